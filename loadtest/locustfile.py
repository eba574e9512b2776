"""Locust users for the zero-shot service: realistic traffic, strict answer checks, per-endpoint tags.

    .venv/bin/locust -f loadtest/locustfile.py --headless -u 16 -r 16 --run-time 30s \
        --host http://127.0.0.1:3000 --csv out/run
    .venv/bin/locust -f loadtest/locustfile.py --headless ... --exclude-tags classify_batch   # /classify only

What a user does (every knob is a ``--zsc-*`` option, declared in ``_options`` below):
- texts: the shipped workload (English and Chinese news and customer-service sentences) plus, when
  ``../shared/datasets`` is present, THUCNews headlines and CIC customer-service intents (read, not copied);
- labels: 2-20 candidate labels (``--zsc-labels``), the text's own class plus others of its dataset,
  capped by how many classes that dataset has;
- repetition: with probability ``--zsc-repeat-rate`` a request is drawn from a fixed hot set of
  ``--zsc-hot-set`` requests with Zipf weights (rank^-s, ``--zsc-zipf-s``), identical across users, runs and
  replicas: what a cache can serve; otherwise a fresh text no earlier request carried
  (a run-unique marker is appended, ``--zsc-salt``);
- endpoints: ``/classify`` (tag ``classify``) and ``/classify_batch`` (tag ``classify_batch``, 2-8 items,
  share ``--zsc-batch-share`` of requests); ``--exclude-tags classify_batch`` for servers without it;
- think time: uniform in ``--zsc-think`` seconds between requests.

A 200 whose body is not a well-formed answer to the request sent (every label back exactly once, scores
finite in [0, 1], best first, summing to 1 for single-label; one result per batch item) is a failure.
``--zsc-stats-out FILE`` writes what Locust's CSVs lack: (text, label) pairs and texts answered, X-Cache
counts, the measuring window.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import random
import time
from collections import Counter
from pathlib import Path

from locust import FastHttpUser, events, tag, task

from loadtest.workload import Row, label_pools, load_rows

SERVICE_FIELDS = ("model", "revision")


# -- options -----------------------------------------------------------------------------------------
@events.init_command_line_parser.add_listener
def _options(parser) -> None:
    g = parser.add_argument_group("zero-shot workload (loadtest/locustfile.py)")
    g.add_argument("--zsc-repeat-rate", type=float, default=0.3, help="share of requests drawn from the hot set")
    g.add_argument("--zsc-hot-set", type=int, default=200, help="requests in the hot set")
    g.add_argument("--zsc-zipf-s", type=float, default=1.1, help="Zipf exponent of the hot set's popularity")
    g.add_argument("--zsc-labels", default="2-20", help="label count range, MIN-MAX (capped by the dataset)")
    g.add_argument("--zsc-batch-share", type=float, default=0.2, help="share of requests sent to /classify_batch")
    g.add_argument("--zsc-batch-items", default="2-8", help="items per /classify_batch call, MIN-MAX")
    g.add_argument("--zsc-think", default="0-0.5", help="think time between requests in seconds, MIN-MAX")
    g.add_argument("--zsc-shipped-only", action="store_true", help="ignore ../shared/datasets")
    g.add_argument("--zsc-naive", action="store_true", help="target is the naive baseline: no model/revision")
    g.add_argument("--zsc-seed", type=int, default=7, help="seed of the hot set (same across runs)")
    g.add_argument("--zsc-salt", default="", help="makes fresh texts unique to this run (default: time + pid)")
    g.add_argument("--zsc-stats-out", default="", help="write pairs, texts and X-Cache counts here (JSON)")


def _range(spec: str, cast=int) -> tuple:
    lo, _, hi = str(spec).partition("-")
    lo, hi = cast(lo), cast(hi or lo)
    if lo > hi or lo < 0:
        raise ValueError(f"bad range {spec!r}: want MIN-MAX")
    return lo, hi


# -- the workload ------------------------------------------------------------------------------------
class Workload:
    """Request bodies: a Zipf-weighted hot set shared by everyone, and an endless stream of fresh texts."""

    def __init__(self, opts) -> None:
        self.rows: list[Row] = load_rows(extra_datasets=not opts.zsc_shipped_only)
        self.pools = label_pools(self.rows)
        self.labels = _range(opts.zsc_labels)
        if self.labels[0] < 1:
            raise ValueError("--zsc-labels: at least one label")
        self.repeat_rate = min(1.0, max(0.0, opts.zsc_repeat_rate))
        salt = opts.zsc_salt or f"{int(time.time()) % 100000:05d}{os.getpid() % 1000:03d}"
        self._fresh = (f"{salt}.{n}" for n in itertools.count())
        hot_rng = random.Random(opts.zsc_seed)
        self.hot = [self._body(hot_rng.choice(self.rows), hot_rng) for _ in range(max(1, opts.zsc_hot_set))]
        weights = [1 / (rank**opts.zsc_zipf_s) for rank in range(1, len(self.hot) + 1)]
        self.hot_cum = list(itertools.accumulate(weights))

    def _body(self, row: Row, rng: random.Random) -> dict:
        pool = [label for label in self.pools[(row.lang, row.domain)] if label != row.label]
        n = rng.randint(*self.labels)
        labels = [row.label, *rng.sample(pool, min(len(pool), n - 1))]
        rng.shuffle(labels)
        return {"text": row.text, "labels": labels}

    def body(self, rng: random.Random) -> dict:
        if rng.random() < self.repeat_rate:
            return rng.choices(self.hot, cum_weights=self.hot_cum)[0]
        body = self._body(rng.choice(self.rows), rng)
        body["text"] = f"{body['text']} #{next(self._fresh)}"  # never seen before: a cache cannot help
        return body


WORKLOAD: Workload | None = None
TOTALS: Counter = Counter()  # what Locust's CSVs lack, written at the end with --zsc-stats-out


@events.init.add_listener
def _init(environment, **_kw) -> None:
    global WORKLOAD
    opts = environment.parsed_options
    if opts is None:  # used as a library without options: defaults
        opts = environment.parsed_options = _defaults()
    WORKLOAD = Workload(opts)
    # the endpoint mix: rebuild the task list with integer weights (tags are filtered later, at start)
    share = min(1.0, max(0.0, opts.zsc_batch_share))
    batch = round(share * 100)
    ZeroShotUser.tasks = [ZeroShotUser.classify] * (100 - batch) + [ZeroShotUser.classify_batch] * batch


def _defaults():
    import argparse

    parser = argparse.ArgumentParser()
    _options(parser)
    return parser.parse_args([])


@events.test_stop.add_listener
def _write_totals(environment, **_kw) -> None:
    path = environment.parsed_options.zsc_stats_out if environment.parsed_options else ""
    if not path:
        return
    total = environment.stats.total
    window = max(0.0, (total.last_request_timestamp or total.start_time) - total.start_time)
    out = {
        "window_s": window,
        "requests": total.num_requests,
        "failures": total.num_failures,
        **{k: v for k, v in sorted(TOTALS.items())},
    }
    Path(path).write_text(json.dumps(out, indent=2) + "\n")


# -- checks ------------------------------------------------------------------------------------------
def check_answer(sent: dict, got, naive: bool) -> str | None:
    """None when ``got`` is a well-formed answer to ``sent``, else what is wrong."""
    if not isinstance(got, dict):
        return f"answer is {type(got).__name__}, not an object"
    labels, scores = got.get("labels"), got.get("scores")
    if not isinstance(labels, list) or not isinstance(scores, list):
        return "labels or scores missing"
    if sorted(labels) != sorted(sent["labels"]):
        return f"labels {labels} are not the {len(sent['labels'])} labels sent"
    if len(scores) != len(labels):
        return f"{len(scores)} scores for {len(labels)} labels"
    if not all(isinstance(s, int | float) and math.isfinite(s) and -1e-6 <= s <= 1 + 1e-6 for s in scores):
        return f"scores outside [0, 1]: {scores}"
    if any(a < b - 1e-6 for a, b in zip(scores, scores[1:])):
        return "scores not best first"
    if len(scores) > 1 and not got.get("multi_label") and abs(sum(scores) - 1) > 0.01:
        return f"single-label scores sum to {sum(scores):.4f}"
    if not naive and not all(isinstance(got.get(f), str) and got.get(f) for f in SERVICE_FIELDS):
        return "model or revision missing"
    return None


# -- the user ----------------------------------------------------------------------------------------
class ZeroShotUser(FastHttpUser):
    """One client: pick a request, send it, check the answer, think, repeat."""

    connection_timeout = 30.0
    network_timeout = 90.0  # past the service's own 60 s timeout: its 504 is what gets reported

    def on_start(self) -> None:
        opts = self.environment.parsed_options
        self.rng = random.Random()
        self.think = _range(opts.zsc_think, float)
        self.items = _range(opts.zsc_batch_items)
        self.naive = opts.zsc_naive

    def wait_time(self) -> float:
        return self.rng.uniform(*self.think)

    def _post(self, path: str, payload: dict, bodies: list[dict], unwrap) -> None:
        with self.client.post(path, json=payload, name=path, catch_response=True) as resp:
            if resp.status_code == 0:
                resp.failure(f"connection error: {resp.error!r}")
                return
            if resp.status_code != 200:
                resp.failure(f"HTTP {resp.status_code}: {(resp.text or '')[:200]}")
                return
            try:
                answers = unwrap(resp.json())
            except (ValueError, TypeError, KeyError) as exc:
                resp.failure(f"not the expected JSON: {exc!r}")
                return
            if not isinstance(answers, list) or len(answers) != len(bodies):
                resp.failure(f"{len(answers) if isinstance(answers, list) else 'no'} results for {len(bodies)} items")
                return
            for sent, got in zip(bodies, answers):
                problem = check_answer(sent, got, self.naive)
                if problem:
                    resp.failure(problem)
                    return
            TOTALS["texts"] += len(bodies)
            TOTALS["pairs"] += sum(len(b["labels"]) for b in bodies)
            TOTALS[f"texts {path}"] += len(bodies)
            TOTALS[f"pairs {path}"] += sum(len(b["labels"]) for b in bodies)
            TOTALS[f"x-cache {resp.headers.get('X-Cache') or 'none'}"] += 1

    @tag("classify")
    @task
    def classify(self) -> None:
        body = WORKLOAD.body(self.rng)
        self._post("/classify", body, [body], lambda doc: [doc])

    @tag("classify_batch")
    @task
    def classify_batch(self) -> None:
        items = [WORKLOAD.body(self.rng) for _ in range(self.rng.randint(*self.items))]
        self._post("/classify_batch", {"items": items}, items, lambda doc: doc["results"])
