"""Where a stored model keeps its ONNX graphs: what the import writes (``modelstore.onnx_export``) and the
ONNX backend reads. Kept here so serving never imports the exporter (and torch and onnx with it)."""

from __future__ import annotations

from pathlib import Path

ONNX_DIR = "onnx"
FP32 = "model.onnx"
INT8 = "model.int8.onnx"
FP16 = "model.fp16.onnx"
VARIANT_FILES = {"fp32": FP32, "int8": INT8, "fp16": FP16}


def onnx_path(model_dir: str | Path, variant: str = "fp32") -> Path:
    return Path(model_dir) / ONNX_DIR / VARIANT_FILES[variant]
