"""ONNX Runtime: CPU fp32 or int8 graphs, or the CUDA execution provider (fp16) on a GPU. No torch import."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path

import numpy as np
import onnxruntime as ort

from service.backends.files import ONNX_DIR, onnx_path
from service.core.microbatch import PaddedBatch
from service.core.model_spec import ModelSpec

log = logging.getLogger("zsc.backends.onnx")


class OnnxBackend:
    def __init__(self, session: ort.InferenceSession, inputs: list[str], name: str, device: str) -> None:
        self._session = session
        self._inputs = inputs
        self._output = session.get_outputs()[0].name
        self.name = name
        self.device = device

    @classmethod
    def load(cls, path: str | Path, spec: ModelSpec, device: str, threads: int, variant: str) -> OnnxBackend:
        cuda_ok = "CUDAExecutionProvider" in ort.get_available_providers()
        if device == "cuda" and not cuda_ok:
            log.warning(
                "ZSC_DEVICE=cuda but onnxruntime has no CUDA execution provider (install onnxruntime-gpu "
                "and the CUDA libraries); falling back to CPU"
            )
        use_cuda = cuda_ok and device in ("auto", "cuda")
        if variant == "auto":
            variant = "fp16" if use_cuda and onnx_path(path, "fp16").is_file() else "fp32"
        model_file = onnx_path(path, variant)
        if not model_file.is_file():
            raise FileNotFoundError(f"{model_file} is missing: import the model with --onnx (or set ZSC_RUNTIME=torch)")
        meta = json.loads((Path(path) / ONNX_DIR / "export.json").read_text())
        providers: list = ["CPUExecutionProvider"]
        if use_cuda:
            providers = [("CUDAExecutionProvider", {"device_id": 0}), "CPUExecutionProvider"]
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads or len(os.sched_getaffinity(0))
        opts.inter_op_num_threads = 1
        opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # Idle intra-op threads spin by default: on a small machine that steals the cores the HTTP
        # layer, the tokenizer and other workers need while a batch is being collected.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(model_file), sess_options=opts, providers=providers)
        on_gpu = session.get_providers()[0] == "CUDAExecutionProvider"
        name = f"onnx-{'cuda' if on_gpu else 'cpu'}-{variant}"
        return cls(session, meta["inputs"], name, "cuda" if on_gpu else "cpu")

    def forward(self, batch: PaddedBatch) -> np.ndarray:
        feed = {"input_ids": batch.input_ids, "attention_mask": batch.attention_mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = (
                batch.token_type_ids if batch.token_type_ids is not None else np.zeros_like(batch.input_ids)
            )
        return self._session.run([self._output], feed)[0].astype(np.float32, copy=False)
