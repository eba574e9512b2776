"""The contract between the engine and an inference runtime.

A backend knows tensors, not labels: it takes one padded batch and returns one row per input row,
either NLI logits ``[rows, n_classes]`` or L2-normalised embeddings ``[rows, dim]``, as float32 numpy.

``forward`` computes a batch and returns its rows. A backend whose device runs asynchronously (CUDA) also
has ``start``: it queues the batch on the device and returns at once with a ``Pending`` whose ``result()``
waits for the rows, so the engine can pad the next micro-batch while the device computes this one.
``start_forward`` gives every backend that shape.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from service.core.microbatch import PaddedBatch


@runtime_checkable
class Backend(Protocol):
    name: str  # e.g. "torch-cpu-fp32", shown in /readyz logs and metrics
    device: str  # "cpu" or "cuda"

    def forward(self, batch: PaddedBatch) -> np.ndarray: ...


class Pending(Protocol):
    def result(self) -> np.ndarray: ...


class Ready:
    """Rows already computed (a synchronous backend)."""

    def __init__(self, rows: np.ndarray) -> None:
        self._rows = rows

    def result(self) -> np.ndarray:
        return self._rows


def start_forward(backend: Backend, batch: PaddedBatch) -> Pending:
    start = getattr(backend, "start", None)
    return start(batch) if start is not None else Ready(backend.forward(batch))
