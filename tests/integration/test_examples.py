"""Label examples over HTTP on a real ``bentoml serve``: the shipped label set with examples answers exactly
like the explicit request it stands for (/classify, /classify_batch, the Hugging Face route); examples move
the answer; an NLI model refuses them with 422; every limit is a 4xx before any model work; the label set
lists them."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
import yaml

from harness import ROOT

SET = ROOT / "deploy" / "k8s" / "components" / "label-sets" / "sets" / "support-intents-examples.yaml"
TEXT = "I returned the jacket two weeks ago and still have not seen my money"


def post(url: str, body: dict, path: str = "classify") -> httpx.Response:
    return httpx.post(f"{url}/{path}", json=body, timeout=60)


def explicit(text: str) -> dict:
    """The request the shipped set stands for: its labels with their examples, template, rule and weight."""
    found = yaml.safe_load(Path(SET).read_text(encoding="utf-8"))
    body = {"text": text, "labels": found["labels"]}
    for key in ("hypothesis_template", "multi_label", "threshold", "example_rule", "example_weight"):
        if found.get(key) is not None:
            body[key] = found[key]
    return body


def test_the_label_set_answers_like_the_explicit_request(default_server):
    by_set = post(default_server, {"text": TEXT, "label_set": "support-intents-examples"})
    by_hand = post(default_server, explicit(TEXT))
    assert by_set.status_code == by_hand.status_code == 200, (by_set.text, by_hand.text)
    assert by_set.json() == by_hand.json()
    batch = post(default_server, {"items": [{"text": TEXT, "label_set": "support-intents-examples"}, explicit(TEXT)]},
                 "classify_batch").json()["results"]  # fmt: skip
    assert batch[0] == batch[1] == by_set.json()
    hf = post(default_server, {"inputs": TEXT, "parameters": {"label_set": "support-intents-examples"}},
              "hf/zero-shot-classification").json()  # fmt: skip
    assert hf["labels"] == by_set.json()["labels"] and hf["scores"] == pytest.approx(by_set.json()["scores"])


def test_examples_move_the_answer_and_the_set_lists_them(default_server):
    with_examples = post(default_server, explicit(TEXT)).json()
    bare = explicit(TEXT)
    bare["labels"] = [
        {k: v for k, v in x.items() if k != "examples"} if isinstance(x, dict) else x for x in bare["labels"]
    ]
    without = post(default_server, bare).json()
    assert with_examples["scores"] != pytest.approx(without["scores"], abs=1e-4)
    assert sum(with_examples["scores"]) == pytest.approx(1.0)
    sets = {s["name"]: s for s in httpx.get(f"{default_server}/label_sets", timeout=30).json()["label_sets"]}
    shipped = sets["support-intents-examples"]
    found = yaml.safe_load(Path(SET).read_text(encoding="utf-8"))
    assert shipped["examples"] == sum(len(x.get("examples", [])) for x in found["labels"] if isinstance(x, dict)) > 0
    assert shipped["example_rule"] == found["example_rule"] and sets["support-intents"]["examples"] == 0


def test_an_nli_model_refuses_examples_with_422(nli_servers):
    body = {"text": TEXT, "labels": [{"name": "refund", "examples": ["where is my money"]}, "shipping"]}
    answer = post(nli_servers["hf"], body)
    assert answer.status_code == 422, answer.text
    assert answer.json()["error_type"] == "unprocessable_request"
    assert "label examples need an embedding model" in answer.json()["error"]
    assert post(nli_servers["hf"], {"text": TEXT, "labels": ["refund", "shipping"]}).status_code == 200


@pytest.mark.parametrize(
    "labels, status, words",
    [
        ([{"name": "a", "examples": []}, "b"], 400, "examples is an empty list"),
        ([{"name": "a", "examples": ["  "]}, "b"], 400, "example 0 is empty"),
        ([{"name": "a", "examples": ["x"] * 17}, "b"], 400, "the limit is 16 per label (ZSC_MAX_EXAMPLES_PER_LABEL)"),
        ([{"name": "a", "examples": ["x" * 1001]}, "b"], 400, "the limit is 1000 (ZSC_MAX_EXAMPLE_CHARS)"),
    ],
)  # fmt: skip
def test_example_limits_are_4xx_with_what_to_fix(default_server, labels, status, words):
    answer = post(default_server, {"text": TEXT, "labels": labels})
    assert answer.status_code == status, answer.text
    assert words in answer.json()["error"]


def test_example_limits_hold_for_a_batch(default_server):
    """Distinct examples are charged once per call; a batch over the limit is refused as a whole."""
    labels = [{"name": f"l{i}", "examples": [f"t{i}.{j}" for j in range(16)]} for i in range(40)]  # 640
    same = [{"text": f"{TEXT} {i}", "labels": labels} for i in range(3)]
    assert post(default_server, {"items": same}, "classify_batch").status_code == 200
    other = [{"name": f"m{i}", "examples": [f"u{i}.{j}" for j in range(16)]} for i in range(40)]  # 640 more
    answer = post(default_server, {"items": [same[0], {"text": TEXT, "labels": other}]}, "classify_batch")
    assert answer.status_code == 422 and "1280 example texts in total; the limit is 1024" in answer.text
