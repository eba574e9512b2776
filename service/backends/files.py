"""Where a stored model keeps its weights: the ONNX graphs the import writes (``modelstore.onnx_export``) and
the ONNX backend reads (here so serving never imports the exporter, and torch and onnx with it), and what
loading them will take in memory."""

from __future__ import annotations

from pathlib import Path

ONNX_DIR = "onnx"
FP32 = "model.onnx"
INT8 = "model.int8.onnx"
FP16 = "model.fp16.onnx"
VARIANT_FILES = {"fp32": FP32, "int8": INT8, "fp16": FP16}


def onnx_path(model_dir: str | Path, variant: str = "fp32") -> Path:
    return Path(model_dir) / ONNX_DIR / VARIANT_FILES[variant]


# Resident memory per byte of weights on disk, measured: multilingual-e5-small took 756 MB for its 266 MB
# ONNX graph (its fp16 word embeddings become fp32 when the session folds their Cast; tokenizer, arena), so a
# graph costs ~2.5x its file; torch loads fp16 safetensors as fp32 on a CPU (2x) plus its own overhead.
PER_BYTE = 2.5
OVERHEAD_MB = 150  # tokenizer, engine, caches' first rows


def memory_needed_mb(model_dir: str | Path, runtime: str, precision: str, device: str) -> float:
    """What loading a model will take, from the weights it will load: the ONNX graph the settings pick
    when it has one, else its torch weights (auto's candidates are loaded one at a time)."""
    path = Path(model_dir)
    onnx = onnx_path(path, precision if precision in VARIANT_FILES and runtime == "onnx" else "fp32")
    if runtime != "torch" and onnx.is_file():
        weights = onnx.stat().st_size
    else:
        weights = sum(f.stat().st_size for f in [*path.glob("*.safetensors"), *path.glob("*.bin")])
    return weights * PER_BYTE / 2**20 + OVERHEAD_MB
