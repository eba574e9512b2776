#!/usr/bin/env bash
# Download, here, the wheels the GPU machine needs for `make bench-gpu` (requirements/gpu-bench.txt) into
# .gpu-wheels/ (git-ignored; carried to the machine with the device tool's `carry`). That machine runs
# CPython 3.12 on x86-64 and has no network; it takes at most 64 MiB of files from the repo.
set -euo pipefail
cd "$(dirname "$0")/.."
PIP=${PIP:-.venv/bin/pip}
DEST=${DEST:-.gpu-wheels}
mkdir -p "$DEST"
platforms=()
for p in manylinux_2_28_x86_64 manylinux_2_27_x86_64 manylinux_2_17_x86_64 manylinux2014_x86_64 manylinux1_x86_64; do
  platforms+=(--platform "$p")
done
"$PIP" download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
  -d "$DEST" -r requirements/gpu-bench.txt
# one version of each: a stale wheel from an earlier pin would make the install there refuse both
python3 - "$DEST" <<'PY'
import pathlib, re, sys
dest = pathlib.Path(sys.argv[1])
wanted = {}
for line in pathlib.Path("requirements/gpu-bench.txt").read_text().splitlines():
    if line and not line.startswith("#"):
        name, version = line.split("==")
        wanted[re.sub(r"[-_.]+", "_", name).lower()] = version
for wheel in dest.glob("*.whl"):
    name, version = wheel.name.split("-")[:2]
    if wanted.get(re.sub(r"[-_.]+", "_", name).lower()) != version:
        wheel.unlink()
        print(f"removed {wheel.name} (not pinned)")
PY
echo "$(ls "$DEST"/*.whl | wc -l) wheels, $(du -sh "$DEST" | cut -f1) in $DEST"

# OpenVINO for `make bench-amx` (the GPU machine's host CPU): its wheel (59 MB) holds plugins for Intel GPUs and
# NPUs and readers for TensorFlow, PyTorch, Paddle, JAX and GGUF that a CPU run of an ONNX graph never loads;
# without them it is 21 MB compressed, which fits beside the wheels above in what can be carried (64 MiB)
ov_version=$("$PIP" show openvino 2>/dev/null | awk '/^Version:/ {print $2}')
if [ -n "$ov_version" ]; then
  tmp=$(mktemp -d)
  "$PIP" download -q --no-deps --only-binary=:all: --python-version 3.12 --implementation cp "${platforms[@]}" \
    -d "$tmp/wheels" "openvino==$ov_version" openvino-telemetry
  mkdir -p "$tmp/site"
  for w in "$tmp"/wheels/*.whl; do (cd "$tmp/site" && python3 -m zipfile -e "$w" .); done
  (cd "$tmp/site/openvino" && rm -rf include cmake libs/cache.json libs/libopenvino_intel_gpu_plugin.so \
    libs/libopenvino_intel_npu_plugin.so libs/libopenvino_*tensorflow* libs/libopenvino_pytorch_frontend* \
    libs/libopenvino_paddle_frontend* libs/libopenvino_jax_frontend* libs/libopenvino_gguf_frontend*)
  tar cf - -C "$tmp/site" . | xz -T0 -6 > "$DEST/openvino-cpu.tar.xz"
  rm -rf "$tmp"
  echo "OpenVINO $ov_version for a CPU, slimmed: $(du -sh "$DEST/openvino-cpu.tar.xz" | cut -f1)"
fi
