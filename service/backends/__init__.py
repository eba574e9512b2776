"""Inference runtimes behind one small protocol (``base.Backend``); one module per runtime."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from service.backends.base import Backend
from service.backends.files import onnx_path
from service.core.model_spec import ModelSpec


def load_backend(
    path: str | Path, spec: ModelSpec, runtime: str, device: str, threads: int, onnx_variant: str = "auto"
) -> Backend:
    """Open the runtime named by config for a model directory. Imports stay lazy so a process only
    pays for the runtime it uses (an ONNX deployment never imports torch)."""
    if runtime == "auto":
        runtime = "onnx" if onnx_path(path, "fp32").is_file() and _has_onnxruntime() else "torch"
    if runtime == "torch":
        from service.backends.torch_backend import TorchBackend

        return TorchBackend.load(path, spec, device=device, threads=threads)
    if runtime == "onnx":
        from service.backends.onnx_backend import OnnxBackend

        return OnnxBackend.load(path, spec, device=device, threads=threads, variant=onnx_variant)
    raise ValueError(f"unknown runtime {runtime!r}")


def _has_onnxruntime() -> bool:
    return importlib.util.find_spec("onnxruntime") is not None


__all__ = ["Backend", "load_backend"]
