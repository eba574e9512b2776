"""What a replica serves with when the operator pins only part of the choice."""

from __future__ import annotations

from service.config import Settings
from service.engine.runtime_probe import pinned_runtime


def test_a_precision_pinned_alone_names_the_runtime_that_computes_it():
    def runtime(**env: str) -> str:
        return pinned_runtime(Settings.from_env({"ZSC_DEVICE": "cpu", **env}))

    assert runtime(ZSC_PRECISION="bf16") == "openvino" and runtime(ZSC_PRECISION="fp16") == "openvino"
    assert runtime(ZSC_PRECISION="int8") == "onnx" and runtime(ZSC_PRECISION="fp32") == "auto"
    assert runtime(ZSC_RUNTIME="torch") == "torch"
