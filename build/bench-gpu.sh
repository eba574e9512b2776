#!/usr/bin/env bash
# `make bench-gpu`: the GPU benchmark (bench/gpu.py), on the GPU machine, or on a CPU as a dry run
# with tiny sizes (ZSC_DEVICE=cpu; CI runs it). Arguments go to the benchmark (--help lists them).
#
# The GPU machine has CPython 3.12 with its own torch, no network and no virtualenv of ours: the wheels
# carried in .gpu-wheels/ (`make gpu-wheels`, here) are installed into a private folder put ahead of its
# packages on PYTHONPATH, with this repository. Results go to $OUT when it is set (the device tool's).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -x .venv/bin/python ]; then
  PY=.venv/bin/python
else
  ls .gpu-wheels/*.whl >/dev/null 2>&1 || { echo "no .venv and no .gpu-wheels/: run make venv (CPU) or make gpu-wheels and carry .gpu-wheels" >&2; exit 2; }
  site=${ZSC_GPU_SITE:-/tmp/zsc-gpu-site}
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$site" .gpu-wheels/*.whl
  export PYTHONPATH="$site:$PWD${PYTHONPATH:+:$PYTHONPATH}"
  PY=python3
fi
export PYTHONUNBUFFERED=1 BENTOML_DO_NOT_TRACK=True
exec "$PY" -m bench.gpu "$@"
