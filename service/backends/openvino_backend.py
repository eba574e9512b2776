"""OpenVINO on the CPU: the ONNX graph the import wrote (``files.onnx_path``), read by OpenVINO, compiled for
this CPU with dynamic batch and sequence axes, in fp32, bf16 or fp16 (its own ``INFERENCE_PRECISION_HINT``:
the weights stay as exported, OpenVINO computes in the precision asked). The compiled model is kept in a
cache folder (``CACHE_DIR``), so a restart reads it instead of compiling again. No torch import.

One infer request, all of the worker's threads, the latency hint: the engine sends one padded batch at a
time, and the throughput hint's several streams would split the threads among requests that never come.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path

import numpy as np
import openvino as ov

from service.backends.files import onnx_path
from service.core.microbatch import PaddedBatch
from service.core.model_spec import ModelSpec

log = logging.getLogger("zsc.backends.openvino")

HINTS = {"fp32": "f32", "bf16": "bf16", "fp16": "f16"}


def capabilities() -> tuple[str, ...]:
    """What OpenVINO's CPU plugin says this CPU computes natively (e.g. FP32, BF16, FP16, INT8)."""
    return tuple(ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES"))


class OpenVinoBackend:
    device = "cpu"

    def __init__(self, compiled: ov.CompiledModel, name: str) -> None:
        self._compiled = compiled
        self._inputs = {port.get_any_name() for port in compiled.inputs}
        self._request = compiled.create_infer_request()
        self._lock = threading.Lock()  # one request: a second batch in flight waits for it
        self.name = name

    @classmethod
    def load(
        cls, path: str | Path, spec: ModelSpec, threads: int, precision: str, cache_dir: Path | None
    ) -> OpenVinoBackend:
        # OpenVINO names a compiled model by the path it was read from, links and all: a store reached through
        # a link (each harness server's home links to the shared store) would compile and keep a blob per link
        model_file = onnx_path(Path(path).resolve(), "fp32")
        if not model_file.is_file():
            raise FileNotFoundError(f"{model_file} is missing: import the model with --onnx (or set ZSC_RUNTIME=torch)")
        if precision not in HINTS:
            raise ValueError(f"OpenVINO computes in {', '.join(HINTS)}, not {precision}")
        core = ov.Core()
        config = {
            "INFERENCE_PRECISION_HINT": HINTS[precision],
            "PERFORMANCE_HINT": "LATENCY",
            "NUM_STREAMS": "1",
            "INFERENCE_NUM_THREADS": str(threads or len(os.sched_getaffinity(0))),
        }
        if cache_dir is not None:
            try:
                cache_dir.mkdir(parents=True, exist_ok=True)
                config["CACHE_DIR"] = str(cache_dir)
            except OSError as exc:  # a read-only home: compile each start, serve all the same
                log.warning(
                    "OpenVINO's compiled-model cache %s is not writable (%s): compiling each start", cache_dir, exc
                )
        compiled = core.compile_model(str(model_file), "CPU", config)
        return cls(compiled, f"openvino-cpu-{precision}")

    def forward(self, batch: PaddedBatch) -> np.ndarray:
        feed = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = (
                batch.token_type_ids if batch.token_type_ids is not None else np.zeros_like(batch.input_ids)
            )
        with self._lock:
            result = self._request.infer(feed)
            rows = result[self._compiled.output(0)]
            return np.array(rows, dtype=np.float32)  # a copy: the request's buffer is reused by the next batch
