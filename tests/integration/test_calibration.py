"""Label calibration through the service only (real replicas, Redis and nginx; no in-process shortcut).

One module-scoped cluster (the real cluster command): the cache's redis-server, the jobs' one, two
replicas of the default model and nginx, holding a label set that ``zsc calibrate`` wrote (against the
session's default server, before the cluster starts) and one that declares traffic calibration.

- traffic: /classify calls with ``calibration: "traffic"`` after unlabelled calls with the same labels
  answer better than the first ones (THUCNews headlines, labels never sent), and say so in ``calibration``;
- two replicas share what they learned through Redis;
- ``zsc calibrate``: the set it writes answers identically, to the bit, on both replicas (two fresh processes);
- a job with ``calibration: "job"``: its own texts are the sample, every answer corrected with the fit; a skewed
  two-label job answered for its own mix;
- what is visible: GET /label_sets, /metrics; /classify with "job" is a 400 that says it is for jobs.
"""

from __future__ import annotations

import csv
import json
import math
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
import yaml

from harness.metrics import scrape
from loadtest.workload import SHARED
from tests.support.cluster import local_cluster
from tests.support.server import run_cli

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not (SHARED / "thucnews_test.tsv").is_file(), reason="../shared/datasets missing"),
]
CLASSES = [line.strip() for line in (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").splitlines()] if (
    SHARED / "thucnews_classes.txt"
).is_file() else []  # fmt: skip
SYNC_MS = 200
PER_CLASS = 15  # every 15th headline: 667, half to learn from, half to measure


def headlines(every: int = 10) -> list[tuple[str, str]]:
    """(text, class) of every ``every``-th headline: the file is sorted by class in blocks of 1,000, so this
    is a balanced sample (100 per class by default)."""
    with (SHARED / "thucnews_test.tsv").open(encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh, delimiter="\t") if r]
    return [(text, CLASSES[int(label)]) for text, label in rows[::every]]


@pytest.fixture(scope="module")
def calibrated_sets(default_server, tmp_path_factory) -> Path:
    """A directory with the set `zsc calibrate` wrote (fitted through the default server on 300 unlabelled
    headlines) and a set declaring traffic calibration."""
    work = tmp_path_factory.mktemp("calibrate")
    (work / "news.yaml").write_text(json.dumps({"name": "news", "labels": CLASSES}, ensure_ascii=False))
    (work / "texts.txt").write_text("\n".join(t for t, _ in headlines()[::3]), encoding="utf-8")
    sets = work / "sets"
    result = run_cli(
        ["calibrate", str(work / "texts.txt"), "--label-set", str(work / "news.yaml"), "--url", default_server,
         "--out", str(sets)], {},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "calibrated on 334 texts" in result.stdout
    template = "这是一条关于{}的新闻"
    traffic = {"name": "news-traffic", "labels": CLASSES, "hypothesis_template": template, "calibration": "traffic"}
    (sets / "news-traffic.yaml").write_text(json.dumps(traffic, ensure_ascii=False))
    return sets


@pytest.fixture(scope="module")
def cluster(store_env, calibrated_sets, tmp_path_factory):
    run_dir = tmp_path_factory.mktemp("calibration-cluster")
    extra = ["--env", f"ZSC_LABEL_SETS={calibrated_sets}", "--env", f"ZSC_CALIBRATION_SYNC_MS={SYNC_MS}"]
    extra += ["--env", "ZSC_BATCH_OVERHEAD_TOKENS=64"]  # no start-up measurement
    with local_cluster(run_dir, store_env, replicas=2, extra=extra) as state:
        yield state


def classify(url: str, text: str, **fields) -> dict:
    r = httpx.post(f"{url}/classify", json={"text": text, **fields}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()


def batch(url: str, texts: list[str], calls: int = 1, **fields) -> list[dict]:
    """/classify_batch of 32 items at a time, ``calls`` in flight (in order when 1)."""

    def one(start: int) -> list[dict]:
        items = [{"text": t, **fields} for t in texts[start : start + 32]]
        r = httpx.post(f"{url}/classify_batch", json={"items": items}, timeout=120)
        assert r.status_code == 200, r.text
        return r.json()["results"]

    with ThreadPoolExecutor(calls) as pool:
        return [a for part in pool.map(one, range(0, len(texts), 32)) for a in part]


def accuracy(answers: list[dict], truth: list[str]) -> float:
    return sum(a["labels"][0] == t for a, t in zip(answers, truth)) / len(truth)


def test_traffic_answers_better_after_unlabelled_calls_and_says_so(cluster):
    replica, url = cluster["replicas"][0]["url"], cluster["nginx"]["url"]
    rows = headlines(every=PER_CLASS)
    estimate, measure = rows[1::2], rows[0::2]  # balanced halves; no label is ever sent
    truth = [c for _, c in measure]
    first = batch(replica, [t for t, _ in measure], labels=CLASSES, calibration="traffic")
    # a call is answered with what the record knew when it came: uncalibrated until it had seen
    # ZSC_CALIBRATION_MIN_TEXTS (10) texts, counting them
    assert [a["calibration"]["texts"] for a in first[:96]] == [0] * 32 + [32] * 32 + [64] * 32
    assert [a["calibration"]["calibrated"] for a in first[:96]] == [False] * 32 + [True] * 64
    batch(url, [t for t, _ in estimate], calls=2, labels=CLASSES, calibration="traffic")  # both replicas learn
    time.sleep(3 * SYNC_MS / 1000)
    plain = batch(replica, [t for t, _ in measure], labels=CLASSES)
    after = batch(replica, [t for t, _ in measure], labels=CLASSES, calibration="traffic")
    assert all(a["calibration"]["calibrated"] and a["calibration"]["texts"] >= len(rows) for a in after)
    assert all(a["calibration"] == {"mode": "none", "calibrated": False, "texts": None} for a in plain)
    print(f"THUCNews top-1: uncalibrated {accuracy(plain, truth):.3f}, after traffic {accuracy(after, truth):.3f}")
    assert accuracy(after, truth) > accuracy(plain, truth) + 0.01
    assert [a["labels"] for a in first[:32]] == [a["labels"] for a in plain[:32]]  # the first ones: raw


def test_two_replicas_share_what_they_learned(cluster):
    one, two = (r["url"] for r in cluster["replicas"])
    texts = [t for t, _ in headlines(every=17)][:80]
    answers = batch(one, texts, label_set="news-traffic")  # the set declares traffic calibration
    third = {"mode": "traffic", "calibrated": True, "texts": 64, "scope": "shared"}  # the 3rd call of 32
    assert answers[-1]["calibration"] == third
    time.sleep(3 * SYNC_MS / 1000)  # replica one writes what it observed; two reads it when it needs it
    seen = classify(two, texts[0], label_set="news-traffic")["calibration"]
    assert seen == {"mode": "traffic", "calibrated": True, "texts": 80, "scope": "shared"}
    for replica in cluster["replicas"]:  # both show it, and its metrics series (its label set's name)
        sets = httpx.get(f"{replica['url']}/label_sets", timeout=30).json()["label_sets"]
        shown = {s["name"]: s["calibration"] for s in sets}
        assert shown["news-traffic"]["mode"] == "traffic" and shown["news-traffic"]["texts"] >= 80
        assert shown["news-traffic"]["calibrated"] is True
        [scope] = shown["news-traffic"]["scopes"] if replica is cluster["replicas"][0] else [None]
        assert scope is None or (scope["scope"] == "shared" and scope["texts"] >= 80 and scope["sources"] >= 1)
        assert shown["news"] == {"mode": "frozen", "texts": 334, "calibrated": True}
    time.sleep(3 * SYNC_MS / 1000)
    texts_seen = [
        s.value for s in scrape(two) if s.name == "zsc_calibration_texts" and s.labels["label_set"] == "news-traffic"
    ]
    assert texts_seen and max(texts_seen) >= 80


def test_a_calibrated_label_set_answers_the_same_to_the_bit_on_every_replica(cluster, calibrated_sets):
    written = yaml.safe_load((calibrated_sets / "news.yaml").read_text(encoding="utf-8"))["calibration"]
    assert written["mode"] == "frozen" and set(written["offsets"]) == set(CLASSES) and written["texts"] == 334
    texts = [t for t, _ in headlines(every=97)]
    one, two = (batch(r["url"], texts, label_set="news") for r in cluster["replicas"])
    assert one == two  # two processes started apart: the same floats, the same order
    assert all(a["calibration"] == {"mode": "frozen", "calibrated": True, "texts": 334} for a in one)
    raw = batch(cluster["replicas"][0]["url"], texts, label_set="news", calibration="none")
    assert any(a["labels"][0] != b["labels"][0] for a, b in zip(one, raw)), "the fit moves some answers"
    overridden = classify(cluster["nginx"]["url"], texts[0], label_set="news", hypothesis_template="{}。")
    assert overridden["calibration"] == {"mode": "frozen", "calibrated": False, "texts": 334}


def job_answers(url: str, body: dict) -> list[dict]:
    """A job's results, once every chunk is estimated and answered (polled)."""
    r = httpx.post(f"{url}/jobs", json=body, timeout=60)
    assert r.status_code == 202, r.text
    job = r.json()
    assert job["estimated"] == 0
    deadline = time.monotonic() + 120
    while (status := httpx.get(f"{url}/jobs/{job['id']}", timeout=30).json())["state"] != "done":
        assert time.monotonic() < deadline, status
        time.sleep(0.2)
    assert status["estimated"] == status["chunks"]
    return httpx.get(f"{url}/jobs/{job['id']}/results", timeout=60).json()["results"]


def test_a_job_calibrates_on_its_own_texts(cluster):
    url = cluster["nginx"]["url"]
    rows = headlines(every=30)  # 334, embedded already by the traffic test (every 15th)
    texts, truth = [t for t, _ in rows], [c for _, c in rows]
    results = job_answers(url, {"texts": texts, "labels": CLASSES, "calibration": "job"})
    assert len(results) == len(rows)
    assert all(a["calibration"] == {"mode": "job", "calibrated": True, "texts": len(rows)} for a in results)
    plain = batch(url, texts, labels=CLASSES)
    print(f"job: uncalibrated {accuracy(plain, truth):.3f}, its own calibration {accuracy(results, truth):.3f}")
    assert accuracy(results, truth) > accuracy(plain, truth)


def test_a_skewed_two_label_job_is_answered_for_its_own_mix(cluster):
    """200 headlines of 时政 and 20 of 游戏 (bare names): the balanced correction of such a job pushes 时政 down on
    the very texts it answers (in process 0.76 against 0.80 uncalibrated); the job's own mix, fitted on its
    margins (core.calibration_mix), answers them for that mix (0.99)."""
    url = cluster["nginx"]["url"]
    with (SHARED / "thucnews_test.tsv").open(encoding="utf-8", newline="") as fh:
        rows = [(r[0], CLASSES[int(r[1])]) for r in csv.reader(fh, delimiter="\t") if r]
    common = [r for r in rows if r[1] == "时政"][500:700]
    rare = [r for r in rows if r[1] == "游戏"][500:520]
    texts, truth = [t for t, _ in common + rare], [c for _, c in common + rare]
    labels = ["时政", "游戏"]
    results = job_answers(url, {"texts": texts, "labels": labels, "calibration": "job"})
    assert all(a["calibration"] == {"mode": "job", "calibrated": True, "texts": 220} for a in results)
    plain = accuracy(batch(url, texts, labels=labels), truth)
    own = accuracy(results, truth)
    print(f"skewed two-label job: uncalibrated {plain:.3f}, its own calibration {own:.3f}")
    assert own >= plain + 0.05, (plain, own)


def test_job_calibration_on_classify_is_a_400_that_says_what_to_do(cluster):
    r = httpx.post(
        f"{cluster['nginx']['url']}/classify",
        json={"text": "x", "labels": ["a", "b"], "calibration": "job"},
        timeout=30,
    )
    assert r.status_code == 400 and 'calibration "job" is for jobs (POST /jobs)' in r.json()["error"]
    bad = httpx.post(
        f"{cluster['nginx']['url']}/classify",
        json={"text": "x", "labels": ["a", "b"], "calibration": "yes"},
        timeout=30,
    )
    assert bad.status_code == 400 and "calibration" in bad.json()["error"]


def test_an_nli_model_calibrates_both_of_its_evidences(nli_servers):
    """An NLI model records two evidences apart: the entailment logit (single-label answers) and entailment
    minus contradiction (multi-label); each answer is corrected with its own, and multi-label scores keep their
    mean logit (centred offsets: a threshold lets as many labels through on average).

    The tiny random model answers mostly by label: these labels and texts are ones on which its top label
    varies (two labels win), as a biased model's do on real traffic; where one label wins every text the
    service does not correct (it cannot tell that model from a stream of one class: the coverage guard)."""
    url = nli_servers["hf"]
    labels = ["sports", "politics", "technology", "health"]
    words = "match vote chip rain goal market phone song film trip food doctor stock bank game love".split()
    texts = [f"Report number {i}: the {w} story of the day" for i, w in enumerate(words * 4)]
    for multi_label in (False, True):
        first = batch(url, texts[:60], labels=labels, multi_label=multi_label, calibration="traffic")
        assert first[0]["calibration"] == {"mode": "traffic", "calibrated": False, "texts": 0, "scope": "shared"}
        plain = batch(url, texts[60:], labels=labels, multi_label=multi_label)
        after = batch(url, texts[60:], labels=labels, multi_label=multi_label, calibration="traffic")
        learnt = {"mode": "traffic", "calibrated": True, "texts": 60, "scope": "shared"}
        assert all(a["calibration"] == learnt for a in after)
        assert any(a["scores"] != p["scores"] for a, p in zip(after, plain))
        if multi_label:
            for a, p in zip(after, plain):
                mean = [sum(math.log(s / (1 - s)) for s in x["scores"]) / len(labels) for x in (a, p)]
                assert mean[0] == pytest.approx(mean[1], abs=1e-6)
        else:
            assert all(sum(a["scores"]) == pytest.approx(1.0) for a in after)
