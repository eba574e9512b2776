#!/usr/bin/env bash
# `make bench-amx`: issue 36's check on a lent machine's CPU (the H200 machine's host has AMX): OpenVINO bf16 and
# the runtime `auto` chooses, against ONNX Runtime fp32, on a random-weight encoder of multilingual-e5-small's
# shape (the default model's 91 MB wheel cannot be carried there). Results in $OUT (the device tool's) or R.
#
#   here:  make gpu-wheels     # the service's wheels and a slimmed OpenVINO (CPU plugin, ONNX reader) in .gpu-wheels/
#   there: run(command="bash build/bench-amx.sh", carry=[".gpu-wheels"], timeout_s=600)   # about 7 minutes
#
# Every server runs with ZSC_DEVICE=cpu: on a GPU machine `auto` would see the driver and take the GPU path.
set -uo pipefail
cd "$(dirname "$0")/.."
export PYTHONUNBUFFERED=1 BENTOML_DO_NOT_TRACK=True
site=${SITE:-/tmp/zsc-site}; ov=${OV_DIR:-/tmp/zsc-openvino}; r=${R:-/tmp/zsc-amx}
rounds=${ROUNDS:-2}; secs=${SECS:-12}; loadgen=${LOADGEN_CPUS:-1-3}
sides=${SIDES:-bf16 auto auto-no-close-calls}  # a subset when device time is short, e.g. SIDES=auto
mkdir -p "$r" "$ov"
if [ ! -x .venv/bin/python ]; then  # the GPU machine: its python3, our wheels ahead of its packages
  [ -d "$site/bentoml" ] || python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --target "$site" .gpu-wheels/*.whl || exit 2
  [ -f "$ov/openvino/__init__.py" ] || tar xJf .gpu-wheels/openvino-cpu.tar.xz -C "$ov" || exit 2
  export PYTHONPATH="$site:$ov:$PWD"
  PY=python3
else
  PY=.venv/bin/python
fi
export BENTOML_HOME=${BENTOML_HOME_AMX:-/tmp/zsc-amx-home}
{ grep -o -E 'amx_bf16|avx512_bf16|avx512_vnni|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '; echo
  lscpu | grep -E 'Model name|^CPU\(s\)'; } | tee "$r/cpu.txt"
"$PY" -c "
from pathlib import Path
from harness.checkpoints import E5_SMALL_SHAPE
from loadtest.models import write_bert_embedding
write_bert_embedding(Path('$r/e5-shape'), E5_SMALL_SHAPE)"
"$PY" -m service.cli import-model "$r/e5-shape" --kind embedding --name e5-shape 2>&1 | tail -1
rm -rf "$r/e5-shape"
[ -n "${SKIP_FORWARD:-}" ] || taskset -c 1 timeout 150 "$PY" -m bench.forward --model e5-shape --rounds 3 \
  --texts 256 --out "$r/forward"
# bf16 pinned; the default (auto); auto without the fp32 copy for close calls (random weights tie labels within the
# 0.01 margin far more often than a trained model does, so most of its answers would be computed twice)
for side in $sides; do
  args=(--env ZSC_DEVICE=cpu)
  case $side in
    bf16) args+=(--head-env ZSC_RUNTIME=openvino --head-env ZSC_PRECISION=bf16) ;;
    auto-no-close-calls) args+=(--env ZSC_CLOSE_CALL_MARGIN=0) ;;
  esac
  rm -rf /tmp/zsc-ab-*  # the servers' logs of this run alone (bench.ab puts them there)
  timeout 170 "$PY" -m bench.ab --model e5-shape "${args[@]}" --base-env ZSC_RUNTIME=onnx \
    --base-env ZSC_PRECISION=fp32 --cpus 0 --loadgen-cpus "$loadgen" --rounds "$rounds" --seconds "$secs" \
    --out "$r/ab-$side" 2>&1 | grep -E 'round|head / base|Error'
  grep -h 'runtime for' /tmp/zsc-ab-*/*.log 2>/dev/null | sed 's/.*runtime for/runtime for/' | tee "$r/ab-$side/choice.txt"
  rm -rf /tmp/zsc-ab-*
done
if [ -n "${OUT:-}" ]; then tar czf "$OUT/bench-amx.tgz" -C "$r" --exclude='*.onnx' . && echo "results: $OUT/bench-amx.tgz"; fi
