"""`zsc evaluate` and `zsc tune` end to end against a live service, their numbers recomputed here from the
service's own answers; the tuned label set loaded by a live service and named by requests."""

from __future__ import annotations

import json
import sys

import httpx
import pytest
import yaml

from harness import ROOT
from tests.support.server import bento_server, run_cli

WORKLOAD = ROOT / "loadtest" / "data" / "workload.jsonl"
SHIPPED_SETS = ROOT / "deploy" / "k8s" / "components" / "label-sets" / "sets"
PHRASINGS = WORKLOAD.parent / "news-phrasings.yaml"


@pytest.fixture(scope="module")
def news(tmp_path_factory):
    """The project's English news sentences (loadtest/data/workload.jsonl), as a labelled JSONL file."""
    rows = [json.loads(line) for line in WORKLOAD.read_text().splitlines() if line]
    rows = [{"text": r["text"], "label": r["label"]} for r in rows if r["lang"] == "en" and r["domain"] == "news"]
    path = tmp_path_factory.mktemp("data") / "news-en.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    return path, rows


def classify(url, **body):
    r = httpx.post(f"{url}/classify", json=body, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def macro_f1(truth, predicted, classes):
    f1s = []
    for c in classes:
        tp = sum(t == c and p == c for t, p in zip(truth, predicted))
        fp = sum(t != c and p == c for t, p in zip(truth, predicted))
        fn = sum(t == c and p != c for t, p in zip(truth, predicted))
        p, r = (tp / (tp + fp) if tp + fp else 0), (tp / (tp + fn) if tp + fn else 0)
        f1s.append(2 * p * r / (p + r) if p + r else 0)
    return sum(f1s) / len(f1s)


def test_evaluate_reports_what_the_answers_say(default_server, news, tmp_path):
    path, rows = news
    out = tmp_path / "ev"
    result = run_cli(
        ["evaluate", str(path), "--url", default_server, "--out", str(out), "--threshold", "0.5",
         "--concurrency", "2", "--batch-size", "8"],
        {},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = json.loads((out / "report.json").read_text())
    m = report["metrics"]
    classes = sorted({r["label"] for r in rows})
    truth = [r["label"] for r in rows]
    predicted = [classify(default_server, text=r["text"], labels=classes, threshold=0.5)["predicted"] for r in rows]
    assert m["items"] == len(rows) and m["classes"] == classes
    assert m["accuracy"] == pytest.approx(sum(t == p for t, p in zip(truth, predicted)) / len(rows))
    assert m["macro_f1"] == pytest.approx(macro_f1(truth, predicted, classes))
    for t in classes:
        for p in classes:
            assert m["confusion"][t].get(p, 0) == sum(a == t and b == p for a, b in zip(truth, predicted)), (t, p)
    abstained = sum(p is None for p in predicted)
    assert m["abstain_rate"] == pytest.approx(abstained / len(rows))
    assert report["model"].startswith("multilingual-e5-small:") and report["items_per_s"] > 0
    md = (out / "report.md").read_text()
    assert "## Confusion matrix" in md and "![confusion matrix](confusion.png)" in md
    assert (out / "confusion.png").stat().st_size > 5_000


@pytest.fixture(scope="module")
def tuned(default_server, tmp_path_factory):
    out = tmp_path_factory.mktemp("tune")
    result = run_cli(
        ["tune", str(WORKLOAD), "--where", "lang=en", "--where", "domain=news", "--url", default_server,
         "--phrasings", str(PHRASINGS), "--out", str(out), "--name", "news-en", "--language", "en"],
        {},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return out, json.loads((out / "ranking.json").read_text()), yaml.safe_load((out / "news-en.yaml").read_text())


def test_tune_reports_the_held_out_score_of_its_choice(default_server, news, tuned):
    _, rows = news
    _, ranking, label_set = tuned
    everything = [json.loads(line) for line in WORKLOAD.read_text().splitlines() if line]
    assert len(ranking["ranking"]) == 16  # 4 templates x (names, 2 phrasings, the ensemble)
    assert ranking["ranking"][0]["macro_f1"] >= ranking["ranking"][-1]["macro_f1"]
    assert not set(ranking["tuning_rows"]) & set(ranking["held_out_rows"])
    # the chosen combination, recomputed on the held-out rows from the label set it wrote
    classes = sorted({r["label"] for r in rows})
    held = [everything[i] for i in ranking["held_out_rows"]]  # rows of the whole file (--where kept these)
    assert {(r["lang"], r["domain"]) for r in held} == {("en", "news")}
    assert len(ranking["tuning_rows"]) + len(held) == len(rows)
    body = {"labels": label_set["labels"]}
    if label_set.get("hypothesis_template"):
        body["hypothesis_template"] = label_set["hypothesis_template"]
    predicted = [classify(default_server, text=r["text"], **body)["labels"][0] for r in held]
    truth = [r["label"] for r in held]
    assert ranking["best"]["held_out"]["macro_f1"] == pytest.approx(macro_f1(truth, predicted, classes))
    assert ranking["best"]["held_out"]["accuracy"] == pytest.approx(
        sum(t == p for t, p in zip(truth, predicted)) / len(held)
    )
    assert label_set["model"] == "multilingual-e5-small" and label_set["revision"].startswith("sha256:")
    assert label_set["tuning"]["held_out"] == ranking["best"]["held_out"]


def test_tune_with_examples_never_scores_an_example(default_server, tmp_path):
    """--examples 2 on the support rows: the drawn examples leave the scored tuning part and never reach the
    held-out part; the rules were ranked; the label set keeps the examples, rule and weight, and answers the
    held-out rows as the ranking says."""
    out = tmp_path / "tune-examples"
    result = run_cli(
        ["tune", str(WORKLOAD), "--where", "lang=en", "--where", "domain=support", "--url", default_server,
         "--examples", "2", "--out", str(out), "--name", "support-k2", "--language", "en"],
        {},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    ranking = json.loads((out / "ranking.json").read_text())
    label_set = yaml.safe_load((out / "support-k2.yaml").read_text())
    everything = [json.loads(line) for line in WORKLOAD.read_text().splitlines() if line]
    support = [r for r in everything if r["lang"] == "en" and r["domain"] == "support"]
    scored = {everything[i]["text"] for i in ranking["tuning_rows"] + ranking["held_out_rows"]}
    tried = {x["examples"]["rule"] for x in ranking["ranking"] if x["examples"]}
    assert tried == {"prototype", "nearest", "blend"}  # every rule was ranked
    if label_set.get("example_rule"):  # the examples won on the tuning part
        drawn = [e for x in label_set["labels"] if isinstance(x, dict) for e in x.get("examples", [])]
        assert drawn and not set(drawn) & scored  # an example is never scored
        assert len(drawn) + len(scored) == len(support)
        assert all(len(x.get("examples", [])) <= 2 for x in label_set["labels"] if isinstance(x, dict))
    body = {k: label_set[k] for k in ("labels", "hypothesis_template", "example_rule", "example_weight")
            if label_set.get(k) is not None}  # fmt: skip
    held = [everything[i] for i in ranking["held_out_rows"]]
    predicted = [classify(default_server, text=r["text"], **body)["labels"][0] for r in held]
    accuracy = sum(r["label"] == p for r, p in zip(held, predicted)) / len(held)
    assert ranking["best"]["held_out"]["accuracy"] == pytest.approx(accuracy)
    assert "held_out_without_examples" in ranking["best"] and "examples" in (out / "ranking.md").read_text()


@pytest.fixture(scope="module")
def with_sets(store_env, tuned, tmp_path_factory):
    out, _, _ = tuned
    sets = tmp_path_factory.mktemp("sets")
    (sets / "news-en.yaml").write_text((out / "news-en.yaml").read_text())
    other = {"name": "old-model", "labels": ["a", "b"], "model": "all-minilm-l6-v2", "revision": "sha256:0"}
    (sets / "old.yml").write_text(yaml.safe_dump(other))
    for shipped in SHIPPED_SETS.glob("*.yaml"):  # the Kubernetes ConfigMap's sets: tuned on this very model
        (sets / shipped.name).write_text(shipped.read_text())
    log = tmp_path_factory.mktemp("logs") / "sets.log"
    with bento_server({**store_env, "ZSC_LABEL_SETS": str(sets)}, log) as url:
        yield url


def test_a_tuned_label_set_answers_as_the_explicit_request(with_sets, tuned):
    _, _, label_set = tuned
    explicit = {"labels": label_set["labels"], "threshold": label_set.get("threshold")}
    if label_set.get("hypothesis_template"):
        explicit["hypothesis_template"] = label_set["hypothesis_template"]
    for text in ("The striker scored twice in the final", "Parliament passed the budget bill"):
        by_set = classify(with_sets, text=text, label_set="news-en")
        by_hand = classify(with_sets, text=text, **{k: v for k, v in explicit.items() if v is not None})
        assert by_set == by_hand
    own = classify(with_sets, text="The striker scored twice", label_set="news-en", labels=["sports", "cooking"])
    assert sorted(own["labels"]) == ["cooking", "sports"]  # the request's own fields win


def test_label_sets_in_every_route(with_sets):
    text = "The striker scored twice in the final"
    single = classify(with_sets, text=text, label_set="news-en")
    batch = httpx.post(f"{with_sets}/classify_batch", json={"items": [{"text": text, "label_set": "news-en"}]}).json()
    assert batch["results"][0] == single
    hf = httpx.post(
        f"{with_sets}/hf/zero-shot-classification", json={"inputs": text, "parameters": {"label_set": "news-en"}}
    ).json()
    assert hf["labels"] == single["labels"] and hf["scores"] == pytest.approx(single["scores"])
    sys.path.insert(0, str(ROOT / "clients" / "python"))
    from zsc_client import Client
    from zsc_client.api.classifier import classify as typed
    from zsc_client.models import ClassifyBody

    with Client(base_url=with_sets, timeout=httpx.Timeout(60)) as client:
        assert typed.sync(client=client, body=ClassifyBody(text=text, label_set="news-en")).labels == single["labels"]
    listed = httpx.get(f"{with_sets}/label_sets").json()["label_sets"]
    assert {s["name"]: s["matches_model"] for s in listed} == {
        "news-en": True,
        "old-model": False,
        "support-intents": True,
        "support-intents-examples": True,
    }
    stale = classify(with_sets, text=text, label_set="old-model")
    assert [w["code"] for w in stale["warnings"]] == ["label_set_model_mismatch"]
    missing = httpx.post(f"{with_sets}/classify", json={"text": text, "label_set": "nope"})
    assert missing.status_code == 404
    assert missing.json() == {
        "error": "unknown label set 'nope'; the service holds: news-en, old-model, support-intents, "
        "support-intents-examples",
        "error_type": "label_set_not_found",
    }
