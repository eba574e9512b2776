"""Inference runtimes behind one small protocol (``base.Backend``); one module per runtime."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from service.backends.base import Backend
from service.backends.files import onnx_path
from service.core.model_spec import ModelSpec


def load_backend(
    path: str | Path,
    spec: ModelSpec,
    runtime: str,
    device: str,
    threads: int,
    precision: str = "auto",
    cache_dir: Path | None = None,
) -> Backend:
    """Open a runtime in a precision for a model directory (``auto``: onnx when the model has an ONNX export,
    else torch; the runtime's own precision: fp32, fp16 on a GPU). Imports stay lazy so a process only pays
    for the runtime it uses (an ONNX deployment never imports torch). ``cache_dir``: where OpenVINO keeps
    its compiled models."""
    if runtime == "auto":
        runtime = "onnx" if onnx_path(path, "fp32").is_file() and installed("onnxruntime") else "torch"
    if runtime == "torch":
        from service.backends.torch_backend import TorchBackend

        return TorchBackend.load(path, spec, device=device, threads=threads)
    if runtime == "onnx":
        from service.backends.onnx_backend import OnnxBackend

        return OnnxBackend.load(path, spec, device=device, threads=threads, variant=precision)
    if runtime == "openvino":
        from service.backends.openvino_backend import OpenVinoBackend

        if device == "cuda":
            raise ValueError("ZSC_RUNTIME=openvino runs on the CPU: set ZSC_DEVICE=cpu, or another runtime")
        return OpenVinoBackend.load(path, spec, threads, "fp32" if precision == "auto" else precision, cache_dir)
    raise ValueError(f"unknown runtime {runtime!r}")


def installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


__all__ = ["Backend", "installed", "load_backend"]
