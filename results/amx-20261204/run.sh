#!/usr/bin/env bash
# issue 36's AMX check on the lent machine's CPU: OpenVINO (carried, slimmed) against ONNX Runtime fp32 on a
# random-weight encoder of multilingual-e5-small's shape. Args: OV_DIR (unpacked openvino), R (result folder).
# Carried: .gpu-wheels (make gpu-wheels) and .amx/ holding this script and openvino.tar.xz (OpenVINO 2026.4.1's
# cp312 wheel unpacked, its GPU/NPU plugins and non-ONNX readers removed: 21 MB, under the 64 MiB carry limit).
#   run(command="bash .amx/run.sh", carry=[".gpu-wheels", ".amx"], timeout_s=430)
# The recorded ab-auto run predates the ZSC_DEVICE=cpu line below and is not a measurement of auto (notes.md).
set -uo pipefail
export PYTHONUNBUFFERED=1 BENTOML_DO_NOT_TRACK=True
site=${SITE:-/tmp/zsc-site}; ov=${OV_DIR:-/tmp/ov}; r=${R:-/tmp/r}; rounds=${ROUNDS:-2}; secs=${SECS:-15}
mkdir -p "$r" "$ov"
if [ -d .gpu-wheels ] && [ ! -d "$site/bentoml" ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" .gpu-wheels/*.whl
fi
[ -f "$ov/openvino/__init__.py" ] || tar xJf .amx/openvino.tar.xz -C "$ov"
export PYTHONPATH="$site:$ov:$PWD" BENTOML_HOME=/tmp/amxhome-run
{ grep -o -E 'amx_bf16|avx512_bf16|avx512_vnni|avx2' /proc/cpuinfo | sort -u | tr '\n' ' '; echo; lscpu | grep -E 'Model name|^CPU\(s\)'; } | tee "$r/cpu.txt"
python3 -c "
from pathlib import Path
from harness.checkpoints import E5_SMALL_SHAPE
from loadtest.models import write_bert_embedding
write_bert_embedding(Path('/tmp/e5shape'), E5_SMALL_SHAPE)"
python3 -m service.cli import-model /tmp/e5shape --kind embedding --name e5-shape 2>&1 | tail -2
[ -n "${SKIP_FORWARD:-}" ] || taskset -c 1 timeout 120 python3 -m bench.forward --model e5-shape --rounds 3 --texts 256 --out "$r/forward"
for side in bf16 auto; do
  head=(); [ $side = bf16 ] && head=(--head-env ZSC_RUNTIME=openvino --head-env ZSC_PRECISION=bf16)
  # ZSC_DEVICE=cpu: on a GPU machine `auto` sees the driver and takes the GPU path (nothing measured)
  timeout 170 python3 -m bench.ab --model e5-shape --env ZSC_DEVICE=cpu --base-env ZSC_RUNTIME=onnx --base-env ZSC_PRECISION=fp32 "${head[@]}" \
    --cpus 0 --loadgen-cpus "${LG:-1-3}" --rounds "$rounds" --seconds "$secs" --out "$r/ab-$side" 2>&1 | tail -12
  grep -h 'runtime for\|chose\|refused' /tmp/zsc-ab-*/*.log 2>/dev/null | tail -4; rm -rf /tmp/zsc-ab-*
done
