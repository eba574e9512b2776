"""What a replica serves with when the operator pins only part of the choice."""

from __future__ import annotations

from dataclasses import replace

import pytest

from service.config import Settings
from service.core.task import Task
from service.engine.runtime_probe import pinned_runtime, request_seconds
from tests.unit.conftest import SPEC


def test_a_precision_pinned_alone_names_the_runtime_that_computes_it():
    def runtime(**env: str) -> str:
        return pinned_runtime(Settings.from_env({"ZSC_DEVICE": "cpu", **env}))

    assert runtime(ZSC_PRECISION="bf16") == "openvino" and runtime(ZSC_PRECISION="fp16") == "openvino"
    assert runtime(ZSC_PRECISION="int8") == "onnx" and runtime(ZSC_PRECISION="fp32") == "auto"
    assert runtime(ZSC_RUNTIME="torch") == "torch"


def test_an_embedding_request_costs_its_texts_share_of_the_pass_and_an_nli_request_a_pair_per_label():
    """Labels come from the cache: a request is its text alone, its share of the timed pass by length (three
    9-character labels beside one 73-character text: the text's 0.73, not a quarter)."""
    embedding = replace(SPEC, kind="embedding")
    text = "x" * 73
    task = Task.of(text, ["a", "b", "c"], "label {}")  # "label a": 7 characters, one sequence each
    assert request_seconds(embedding, [task], 1.0) == pytest.approx(73 / (73 + 3 * 7))
    two = [Task.of(text, ["a", "b", "c"], "label {}"), Task.of("y" * 73, ["a", "b", "c"], "label {}")]
    assert request_seconds(embedding, two, 1.0) == pytest.approx(146 / (146 + 21) / 2)  # labels once
    nli = replace(SPEC, kind="nli", entailment_index=0, contradiction_index=2)
    assert request_seconds(nli, two, 1.0) == pytest.approx(1 / 6 * 3)  # 6 pairs, 3 a request
