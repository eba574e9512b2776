"""The contract between the engine and an inference runtime.

A backend knows tensors, not labels: it takes one padded batch and returns one row per input row,
either NLI logits ``[rows, n_classes]`` or L2-normalised embeddings ``[rows, dim]``, as float32 numpy.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from ..microbatch import PaddedBatch


@runtime_checkable
class Backend(Protocol):
    name: str  # e.g. "torch-cpu-fp32", shown in /readyz logs and metrics
    device: str  # "cpu" or "cuda"

    def forward(self, batch: PaddedBatch) -> np.ndarray: ...
