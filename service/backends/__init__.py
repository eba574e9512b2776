"""Inference runtimes behind one small protocol (``base.Backend``); one module per runtime."""

from __future__ import annotations

from pathlib import Path

from ..model_spec import ModelSpec
from .base import Backend


def load_backend(path: str | Path, spec: ModelSpec, runtime: str, device: str, threads: int) -> Backend:
    """Open the runtime named by config for a model directory. Imports stay lazy so a process only
    pays for the runtime it uses."""
    if runtime == "torch":
        from .torch_backend import TorchBackend

        return TorchBackend.load(path, spec, device=device, threads=threads)
    raise ValueError(f"unknown runtime {runtime!r}")


__all__ = ["Backend", "load_backend"]
