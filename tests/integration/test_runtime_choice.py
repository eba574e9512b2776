"""The runtime and precision a replica chooses on its CPU, through a real ``bentoml serve``: with ZSC_RUNTIME and
ZSC_PRECISION auto it measures each candidate on its built-in sample and refuses the ones whose answers are
not fp32's (the tiny random model's dynamic int8 graph flips most top labels), serves the fastest of the
rest, and says so in GET /models, its log and zsc_model_info; a second start on the same CPU remembers the
choice instead of measuring; an operator can still pin the refused candidate, which then serves, marked
not verified."""

from __future__ import annotations

import re

import httpx
import pytest

from tests.support.server import bento_server

BODY = {"text": "my card was charged twice", "labels": ["billing", "shipping", "praise"]}
MEASURED = re.compile(r"measured onnx fp32 in")


def model_summary(url: str) -> dict:
    [model] = httpx.get(f"{url}/models", timeout=30).json()["models"]
    return model


def info_line(url: str) -> str:
    metrics = httpx.get(f"{url}/metrics", timeout=30).text
    return next(line for line in metrics.splitlines() if line.startswith("zsc_model_info{"))


@pytest.fixture
def env(tiny_models, tmp_path):
    """Each test its own folder of remembered choices: the first start measures."""
    return {**tiny_models, "ZSC_MODEL": "tiny-hf", "ZSC_RUNTIME_CACHE_DIR": str(tmp_path / "choices")}


def test_auto_refuses_a_candidate_unlike_fp32_and_serves_the_fastest_of_the_rest(env, tmp_path):
    with bento_server(env, tmp_path / "auto.log") as url:
        model = model_summary(url)
        choice = model["runtime_choice"]
        assert choice["how"] == "measured" and choice["verified"] is True
        by_name = {(c["runtime"], c["precision"]): c for c in choice["candidates"]}
        assert ("onnx", "fp32") in by_name and ("onnx", "int8") in by_name
        int8 = by_name[("onnx", "int8")]
        assert int8["refused"].startswith("top-1 agreement") and int8["top1_agreement"] < 0.99 and not int8["chosen"]
        [chosen] = [c for c in choice["candidates"] if c["chosen"]]
        assert chosen["refused"] is None and (chosen["runtime"], chosen["precision"]) == (
            model["runtime"],
            model["precision"],
        )
        agreeing = [c for c in choice["candidates"] if c["refused"] is None]
        assert chosen["texts_per_s"] == max(c["texts_per_s"] for c in agreeing)
        assert httpx.post(f"{url}/classify", json=BODY, timeout=30).status_code == 200
        line = info_line(url)
        assert f'runtime="{model["runtime"]}"' in line and f'precision="{model["precision"]}"' in line
        assert 'how="measured"' in line and 'model="tiny-hf"' in line
    log = (tmp_path / "auto.log").read_text()
    assert MEASURED.search(log) and "(measured): " in log and "onnx int8" in log and "refused: top-1" in log


def test_a_second_start_remembers_instead_of_measuring(env, tmp_path):
    with bento_server(env, tmp_path / "first.log") as url:
        first = model_summary(url)
    with bento_server(env, tmp_path / "second.log") as url:
        second = model_summary(url)
    assert second["runtime_choice"]["how"] == "remembered" and second["runtime_choice"]["verified"] is True
    assert (second["runtime"], second["precision"]) == (first["runtime"], first["precision"])
    assert second["runtime_choice"]["candidates"] == first["runtime_choice"]["candidates"]
    assert not MEASURED.search((tmp_path / "second.log").read_text())


def test_pinning_the_refused_candidate_serves_it_not_verified(env, tmp_path):
    pinned = {**env, "ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "int8", "ZSC_CLOSE_CALL_MARGIN": "0"}
    with bento_server(pinned, tmp_path / "pinned.log") as url:
        model = model_summary(url)
        assert (model["runtime"], model["precision"]) == ("onnx", "int8")
        assert model["runtime_choice"] == {
            "runtime": "onnx",
            "precision": "int8",
            "how": "pinned",
            "verified": False,
            "candidates": [],
            "reference": None,
            "close_call_margin": None,
        }
        assert httpx.post(f"{url}/classify", json=BODY, timeout=30).status_code == 200
        assert 'how="pinned"' in info_line(url)
    log = (tmp_path / "pinned.log").read_text()
    assert "onnx int8 (pinned by ZSC_RUNTIME/ZSC_PRECISION, not verified)" in log and not MEASURED.search(log)


def reference_sequences(url: str) -> float:
    metrics = httpx.get(f"{url}/metrics", timeout=30).text
    return sum(float(v) for v in re.findall(r"^zsc_reference_sequences_total\{[^}]*\} ([0-9.e+-]+)$", metrics, re.M))


def test_close_calls_below_fp32_are_answered_as_fp32_answers_them(env, tmp_path):
    """int8 flips most of the tiny model's top labels; with every answer a close call (margin 1) each is
    computed again by the fp32 copy, so the answers are fp32's; at the default margin, only close ones are."""
    texts = [f"order {i} arrived late and the box was damaged" for i in range(12)]
    bodies = [{"text": t, "labels": ["billing", "shipping", "praise", "complaint"]} for t in texts]

    def answers(url: str) -> list[dict]:
        return [httpx.post(f"{url}/classify", json=b, timeout=30).json() for b in bodies]

    with bento_server({**env, "ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "fp32"}, tmp_path / "fp32.log") as url:
        fp32 = answers(url)
    every = {**env, "ZSC_RUNTIME": "onnx", "ZSC_PRECISION": "int8", "ZSC_CLOSE_CALL_MARGIN": "1"}
    with bento_server(every, tmp_path / "int8.log") as url:
        choice = model_summary(url)["runtime_choice"]
        assert (choice["reference"], choice["close_call_margin"]) == ("onnx fp32", 1.0)
        before = reference_sequences(url)
        rechecked = answers(url)
        # each answer's four pairs (an NLI model's sequences), computed again; the labels are in the pairs
        assert reference_sequences(url) - before == 4 * len(bodies)
        again = answers(url)  # cached rows that the fp32 copy computed are exact: not computed again
        assert reference_sequences(url) - before == 4 * len(bodies)
    for mine, theirs in zip(rechecked, fp32):
        assert mine["labels"] == theirs["labels"], (mine, theirs)
        assert mine["scores"] == pytest.approx(theirs["scores"], abs=1e-5)
    assert [a["scores"] for a in again] == [a["scores"] for a in rechecked]
    log = (tmp_path / "int8.log").read_text()
    assert "labels and close calls (within 1) computed by onnx fp32" in log
