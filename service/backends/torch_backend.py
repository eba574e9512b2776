"""PyTorch runtime: CPU fp32, or CUDA fp16; SDPA attention where the architecture supports it."""

from __future__ import annotations

import logging
import os
from pathlib import Path

# OpenMP threads spin while idle by default. On a small machine shared with the HTTP layer, the
# tokenizer and other workers, a spinning or descheduled thread stalls every parallel region: measured
# here, a one-row forward pass took 10-100x longer under contention. Must be set before torch loads.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from service.backends.base import Ready
from service.core.microbatch import PaddedBatch
from service.core.model_spec import ModelSpec

log = logging.getLogger("zsc.backends.torch")


def resolve_device(device: str) -> str:
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise RuntimeError("ZSC_DEVICE=cuda but torch sees no CUDA device")
    return device


class TorchBackend:
    def __init__(self, model: torch.nn.Module, kind: str, device: str) -> None:
        self._model = model
        self._kind = kind
        self.device = device
        dtype = next(model.parameters()).dtype
        self.name = f"torch-{device}-{str(dtype).removeprefix('torch.')}"

    @classmethod
    def load(cls, path: str | Path, spec: ModelSpec, device: str, threads: int) -> TorchBackend:
        from transformers import AutoModel, AutoModelForSequenceClassification

        device = resolve_device(device)
        if device == "cpu":
            torch.set_num_threads(threads or len(os.sched_getaffinity(0)))
        dtype = torch.float16 if device == "cuda" else torch.float32
        loader = AutoModelForSequenceClassification if spec.kind == "nli" else AutoModel
        kwargs = {"dtype": dtype}
        try:
            model = loader.from_pretrained(str(path), attn_implementation="sdpa", **kwargs)
        except (ValueError, ImportError) as exc:  # architecture without an SDPA path
            log.info("SDPA attention unavailable (%s); using the default attention", exc)
            model = loader.from_pretrained(str(path), **kwargs)
        model.to(device).eval()
        return cls(model, spec.kind, device)

    def forward(self, batch: PaddedBatch) -> np.ndarray:
        return self.start(batch).result()

    @torch.inference_mode()
    def start(self, batch: PaddedBatch) -> Ready | CudaPending:
        """Queue the batch. On CUDA this returns as soon as the kernels are queued: inputs travel from pinned
        memory, the rows come back into pinned memory behind an event, and the CPU is free to prepare the
        next batch meanwhile. On the CPU the rows are computed before it returns."""
        cuda = self.device != "cpu"

        def to_device(array: np.ndarray) -> torch.Tensor:
            t = torch.from_numpy(array)
            return t.pin_memory().to(self.device, non_blocking=True) if cuda else t

        ids, mask = to_device(batch.input_ids), to_device(batch.attention_mask)
        inputs = {"input_ids": ids, "attention_mask": mask}
        if batch.token_type_ids is not None:
            inputs["token_type_ids"] = to_device(batch.token_type_ids)
        out = self._model(**inputs)
        if self._kind == "nli":
            rows = out.logits.float()
        else:  # mean pooling over real tokens, then L2 normalisation (sentence-transformers' recipe)
            hidden = out.last_hidden_state.float()
            m = mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
            rows = torch.nn.functional.normalize(pooled, p=2, dim=1)
        if not cuda:
            return Ready(rows.numpy())
        host = torch.empty(rows.shape, dtype=torch.float32, pin_memory=True)
        host.copy_(rows, non_blocking=True)
        done = torch.cuda.Event()
        done.record()
        return CudaPending(host, done)


class CudaPending:
    """Rows on their way from the GPU: ``result()`` waits for the event recorded after the copy."""

    def __init__(self, host: torch.Tensor, done: torch.cuda.Event) -> None:
        self._host, self._done = host, done

    def result(self) -> np.ndarray:
        self._done.synchronize()
        return self._host.numpy()
