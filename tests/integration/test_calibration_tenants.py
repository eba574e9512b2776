"""Traffic calibration between clients, through the service only: no stream moves another's answers.

THUCNews headlines with the task template (the labels never sent): a client learns from unlabelled headlines,
its answers on others are measured, then another stream of one class with the same labels arrives and the
client's answers are measured again.

- API keys on (two replicas sharing Redis): the other key's 3,000 texts are in the other key's scope, and the
  first key's answers stay where they were (within 0.01; its own measured texts are recorded too, so they are
  measured twice before: the second time is the one compared);
- API keys off (one replica), two labels (时政 / 游戏), where a class prior and a label's bias look most alike:
  10,000 texts of one class from the client's own address leave its answers where its own 400 texts put
  them (the burst guard holds the flood's texts back: ``core.calibration_bursts``).
"""

from __future__ import annotations

import random
import time

import httpx
import pytest

from harness.metrics import scrape
from service.http.auth import key_id
from tests.integration.test_calibration import CLASSES, SYNC_MS, headlines
from tests.support.cluster import local_cluster

pytestmark = [
    pytest.mark.timeout(600),
    pytest.mark.skipif(not CLASSES, reason="../shared/datasets missing"),
]
TEMPLATE = "这是一条关于{}的新闻"
KEYS = ("tenant-one-8d1f0c2a9b", "tenant-two-51e7a3c6d4")


def answers(
    url: str, texts: list[str], mode: str, key: str | None = None, size: int = 250, labels: list[str] = CLASSES
) -> list[dict]:
    """/classify_batch of ``size`` items at a time, in order, with the THUCNews labels (or ``labels``) and
    template."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    common = {"labels": labels, "hypothesis_template": TEMPLATE, "calibration": mode}
    out = []
    for start in range(0, len(texts), size):
        items = [{"text": t, **common} for t in texts[start : start + size]]
        r = httpx.post(f"{url}/classify_batch", json={"items": items}, headers=headers, timeout=300)
        assert r.status_code == 200, r.text
        out += r.json()["results"]
    return out


def accuracy(answered: list[dict], truth: list[str]) -> float:
    return sum(a["labels"][0] == t for a, t in zip(answered, truth)) / len(truth)


def client_and_stream(flood: int) -> tuple[list[str], list[str], list[str], list[str]]:
    """(texts to learn from, measured texts, their classes, a stream of one class ``flood`` texts long): the
    client's 1,000 headlines balanced and shuffled (traffic in no order), the stream the first class's other
    900 headlines over and over."""
    mine = headlines(every=10)
    random.Random(38).shuffle(mine)
    seen = {t for t, _ in mine}
    one_class = [t for t, c in headlines(every=1) if c == CLASSES[0] and t not in seen]
    stream = [one_class[i % len(one_class)] for i in range(flood)]  # repeated: scored once, recorded each time
    learn, measured = mine[:500], mine[500:]
    return [t for t, _ in learn], [t for t, _ in measured], [c for _, c in measured], stream


@pytest.fixture(scope="module")
def keyed_cluster(store_env, tmp_path_factory):
    """Two replicas of the default model sharing the cache's Redis, behind two API keys."""
    run_dir = tmp_path_factory.mktemp("tenants-cluster")
    extra = ["--env", f"ZSC_API_KEYS={','.join(KEYS)}", "--env", f"ZSC_CALIBRATION_SYNC_MS={SYNC_MS}"]
    extra += ["--env", "ZSC_BATCH_OVERHEAD_TOKENS=64"]  # no start-up measurement
    with local_cluster(run_dir, store_env, replicas=2, extra=extra) as state:
        yield state


def test_another_keys_stream_does_not_move_a_keys_answers(keyed_cluster):
    one, two = (r["url"] for r in keyed_cluster["replicas"])
    learn, measured, truth, stream = client_and_stream(3000)
    mine, theirs = KEYS
    none = accuracy(answers(one, measured, "none", mine), truth)
    taught = answers(one, learn, "traffic", mine, size=32)
    assert taught[-1]["calibration"]["scope"] == f"key:{key_id(mine)}"
    time.sleep(3 * SYNC_MS / 1000)  # replica one writes what it learned; two reads it for its first answer
    first = answers(two, measured, "traffic", mine)
    assert first[0]["calibration"] == {"mode": "traffic", "calibrated": True, "texts": 500,
                                       "scope": f"key:{key_id(mine)}"}  # fmt: skip
    before = answers(two, measured, "traffic", mine)  # measured again: the measured texts are traffic too
    flooded = answers(two, stream, "traffic", theirs, size=256)
    assert flooded[-1]["calibration"]["scope"] == f"key:{key_id(theirs)}"
    assert flooded[-1]["calibration"]["texts"] == 256 * (3000 // 256)  # the other key's record: nothing of mine
    time.sleep(3 * SYNC_MS / 1000)
    after = answers(one, measured, "traffic", mine)
    assert after[0]["calibration"]["texts"] == 1500  # mine: what I sent, nothing of theirs
    gained, kept = accuracy(before, truth), accuracy(after, truth)
    assert gained > none  # the correction is worth keeping
    assert abs(kept - gained) <= 0.01 + 1e-9, (none, gained, kept)
    # GET /label_sets: replica two holds both keys' records; each key sees its own scope there, never the other's
    shown = {}
    for key in KEYS:
        r = httpx.get(f"{two}/label_sets", headers={"Authorization": f"Bearer {key}"}, timeout=30)
        assert r.status_code == 200, r.text
        shown[key] = {s["scope"]: s for s in r.json()["calibration_scopes"]}
    scope_of = {key: f"key:{key_id(key)}" for key in KEYS}
    assert {key: set(seen) for key, seen in shown.items()} == {key: {scope_of[key]} for key in KEYS}
    ours, other = shown[mine][scope_of[mine]], shown[theirs][scope_of[theirs]]
    assert ours["records"] == other["records"] == 1 and ours["sources"] == other["sources"] == 1
    assert ours["texts"] >= 1000 and other["texts"] >= 256 * (3000 // 256)


def held_back(url: str) -> float:
    """The sources the burst guard holds back now in the shared scope (the metrics, refreshed every sync)."""
    found = [s.value for s in scrape(url) if s.name == "zsc_calibration_scope" and s.labels.get("scope") == "shared"
             and s.labels.get("stat") == "held_back"]  # fmt: skip
    return max(found, default=0.0)


# of THUCNews' 45 two-label tasks, the one a same-address flood of its first class took furthest below
# uncalibrated before the burst guard (-0.10 in process; docs/evaluation.md "A flood from the client's address")
PAIR = ("时政", "游戏")


def test_a_flood_from_the_clients_own_address_does_not_move_its_answers(default_server):
    rows = [(t, c) for t, c in headlines(every=1) if c in PAIR]
    random.Random(38).shuffle(rows)
    learn, measured = [t for t, _ in rows[:400]], rows[400:800]
    texts, truth = [t for t, _ in measured], [c for _, c in measured]
    one_class = [t for t, c in rows[800:] if c == PAIR[0]]
    stream = [one_class[i % len(one_class)] for i in range(10_000)]  # repeated: scored once, recorded each time
    labels = list(PAIR)
    none = accuracy(answers(default_server, texts, "none", labels=labels), truth)
    answers(default_server, learn, "traffic", size=32, labels=labels)
    gained = accuracy(answers(default_server, texts, "traffic", labels=labels), truth)
    flooded = answers(default_server, stream, "traffic", size=256, labels=labels)
    assert flooded[-1]["calibration"]["scope"] == "shared"
    deadline = time.monotonic() + 15  # the metrics are refreshed every sync (ZSC_CALIBRATION_SYNC_MS)
    while held_back(default_server) < 1 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert held_back(default_server) >= 1, "the metrics show no source held back"
    after = answers(default_server, texts, "traffic", labels=labels)
    assert after[0]["calibration"]["texts"] >= 10_800 and after[0]["calibration"]["calibrated"]
    kept = accuracy(after, truth)
    assert gained > none  # the client's own stream is worth keeping
    # the flood's texts are held back as a burst: what the client's stream gave stays (the flood only lets it
    # decay), where the guard's absence took this pair 0.10 below uncalibrated
    assert kept >= gained - 0.02, (none, gained, kept)
