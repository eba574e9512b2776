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
