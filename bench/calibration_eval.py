"""Label calibration through the service: accuracy with and without it, and what it costs at 32 clients.

    .venv/bin/python -m bench.calibration_eval            # ~15 min on 2 cores -> results/calibration-<date>/
    .venv/bin/python -m bench.calibration_eval --smoke    # 2 seeds, 5 s load steps (-smoke folder)

Everything goes through a served default model (multilingual-e5-small), over HTTP, no in-process shortcut.
The data and the splits are the study's (``bench/calibration_sets.py``): THUCNews (2,000 headlines
stratified, bare class names and the task template), CIC (all 2,000 utterances, 118 intents), the project's
English rows (news and support, bare and with a template), two English review-sentiment sets (``en-yelp``,
``en-imdb``: 1,000 sentences each, ``negative`` or ``positive``, bare and ``This review is {}.``) and three
two-label pairs of THUCNews classes with the template (``--sets thucnews-pairs``: two labels, as sentiment is,
where one side can flood). Top-1
accuracy, labels never sent to the service:

- **half**: a random stratified half is sent with ``calibration: "traffic"`` (the estimation part); the other
  half is then answered in one call with ``"none"`` and in one call with ``"traffic"`` (a call is answered with
  what the record knew when it came: the estimation part alone); per seed;
- **skew**: the same, the estimation part a sample of that half where one class is 5 or 10 times as frequent
  as each other class;
- **job**: the measurement half as a job with ``calibration: "job"`` (its own texts are the sample: scored,
  estimated, then answered) through the jobs API, against the same texts with ``"none"``;
- **job-skew**: the job's texts themselves skewed (the hardest case: the frequent class is also most of what is
  scored);
- **... plain**: the bar, plain centring of the same unlabelled texts, from the service's uncalibrated answers
  (the log of a single-label score is the evidence less a per-text constant, which centring removes).

Each column is compared with its bar run by run (``BARS``: plain centring of the same texts for half and job, no
calibration for the skewed ones): the report lists every cell under its bar on average with the mean difference,
its 95% bootstrap interval over the runs (``harness.intervals``) and the runs under, level with and over it, so a
mean a text under the bar reads as chance or as a loss.

The accuracy replica computes in fp32 (``ZSC_PRECISION=fp32``): the bar and the service's answers then read the
same numbers. Below fp32 (bf16 where a CPU has it) a close call is computed again in fp32 (``ZSC_CLOSE_CALL_MARGIN``),
and which texts are close differs with and without a correction: a calibrated answer read other evidence than the
bar computed its own from (English support's template half, AMD EPYC with bf16, 2026-12-04: one text 0.011 logit
apart, the only difference to plain centring in ten runs). The estimator is what is measured, not the precision.

Between runs the record is dropped by the service itself: the replica keeps one traffic record
(``ZSC_CALIBRATION_RECORDS=1``) and a call with other labels evicts it. A sample of fewer than
``ZSC_CALIBRATION_MIN_TEXTS`` (10) texts is answered uncalibrated, as the service would (the English halves
have 30 and 16 texts; one sentence is 0.033 of a news half, 0.063 of a support half).

Cost: a replica with the default settings but a fixed in-flight bound (``ZSC_TARGET_LATENCY_MS=-1``, as
``bench.ab``), ``/classify`` from 32 closed-loop clients with THUCNews' 10 labels,
``calibration`` none and traffic alternated (three rounds each, the order swapped every round), every text
distinct (no cache hit), the traffic record warmed first (it corrects every answer measured): answers per
second and the replica's CPU per answer. On a shared machine pin them apart:

    .venv/bin/python -m bench.calibration_eval --cost-only --cpus 0 --loadgen-cpus 1 --rounds 6
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from pathlib import Path

import httpx
import numpy as np

from bench.ab import spent as cpu_spent
from bench.calibration_sets import (
    REVIEW_SOURCES,
    REVIEW_TEMPLATE,
    THUCNEWS_PAIRS,
    LabelledSet,
    frequent_classes,
    halves,
    load_sets,
    skewed,
    two_label,
)
from harness.cpus import format_cpus, parse_cpus
from harness.intervals import Interval, mean_interval
from harness.launchers import bento_serve
from harness.machine import machine_info
from harness.net import free_port
from harness.process import running, thread_cpu_seconds
from harness.progress import say
from harness.report import result_folder, table, write_results
from harness.store import ensure_default
from loadtest.loadgen import add_load_options, run_load
from loadtest.workload import SHARED
from service.core.calibration import CalibrationConfig

TEMPLATES = {"thucnews": "这是一条关于{}的新闻", "en-news": "This is a news article about {}.",
             "en-support": "The customer writes about {}.",
             **{f"en-{source}": REVIEW_TEMPLATE for source in REVIEW_SOURCES}}  # fmt: skip
# the service's calibration, then plain centring of the same unlabelled texts (computed here from the service's
# uncalibrated answers): the bar the service's estimator is held to
PROTOCOLS = ("half", "half plain", "skew", "skew plain", "job", "job plain", "job-skew", "job-skew plain")
# each column's bar: plain centring of the same texts, run by run, or (None) no calibration, a gain of 0
BARS = {"half": "half plain", "skew": None, "job": "job plain", "job-skew": None}
PAIRS_SET = "thucnews-pairs"  # --sets name of the two-label THUCNews pairs
ACCURACY_ENV = {
    "ZSC_PRECISION": "fp32",  # the bar's evidence and the answers' the same numbers (the module)
    "ZSC_MAX_LABELS": "128",
    "ZSC_CALIBRATION_RECORDS": "1",  # a call with other labels drops the record: a fresh start per run
    "ZSC_MAX_BATCH_ITEMS": "2048",  # a measurement half in one call
    "ZSC_MAX_PAIRS_PER_REQUEST": "300000",
    "ZSC_JOB_CHUNK_ITEMS": "128",
}


class Service:
    def __init__(self, url: str, min_texts: float = CalibrationConfig().min_texts) -> None:
        self.url = url
        self.min_texts = min_texts
        self.client = httpx.Client(base_url=url, timeout=600)

    def answer(self, texts: list[str], labels: list[str], mode: str, template: str | None) -> list[str]:
        """The top label of each text, in one call."""
        return [a["labels"][0] for a in self._answers(texts, labels, mode, template)]

    def evidence(self, texts: list[str], labels: list[str], template: str | None) -> np.ndarray:
        """[texts, labels] log of each uncalibrated single-label score: the evidence less a per-text constant
        (softmax), which centring removes, so plain centring over it is the service's own evidence's."""
        rows = []
        for a in self._answers(texts, labels, "none", template):
            score = dict(zip(a["labels"], a["scores"]))
            rows.append([score[label] for label in labels])
        return np.log(np.maximum(np.array(rows, dtype=np.float64), 1e-300))

    def _answers(self, texts: list[str], labels: list[str], mode: str, template: str | None) -> list[dict]:
        common = {"labels": labels, "calibration": mode, **({"hypothesis_template": template} if template else {})}
        r = self.client.post("/classify_batch", json={"items": [{"text": t, **common} for t in texts]})
        r.raise_for_status()
        return r.json()["results"]

    def reset(self) -> None:
        """Drop the replica's one traffic record (a call with other labels takes its place)."""
        self.client.post("/classify", json={"text": "-", "labels": ["x", "y"], "calibration": "traffic"})

    def job(self, texts: list[str], labels: list[str], template: str | None) -> tuple[list[str], bool]:
        """(the top label of each text, whether they were calibrated) from a job calibrating on its own texts."""
        body = {
            "texts": texts,
            "labels": labels,
            "calibration": "job",
            **({"hypothesis_template": template} if template else {}),
        }
        r = self.client.post("/jobs", json=body)
        r.raise_for_status()
        job_id = r.json()["id"]
        while self.client.get(f"/jobs/{job_id}").json()["state"] not in ("done", "cancelled"):
            time.sleep(0.2)
        results = self.client.get(f"/jobs/{job_id}/results", params={"limit": 10000}).json()["results"]
        return [a["labels"][0] for a in results], all(a["calibration"]["calibrated"] for a in results)


def accuracy(predicted: list[str], data: LabelledSet, idx: np.ndarray) -> float:
    return float(np.mean([p == data.classes[data.truth[i]] for p, i in zip(predicted, idx)]))


def centred_accuracy(sample: np.ndarray, measured: np.ndarray, data: LabelledSet, idx: np.ndarray) -> float:
    """Plain centring, the bar: each label's mean evidence over the unlabelled sample (rows centred), centred
    over the labels, subtracted from the measured texts' evidence; top-1 accuracy on them."""
    rows = sample - sample.mean(axis=1, keepdims=True)
    offsets = rows.mean(axis=0) - rows.mean()
    top = (measured - offsets).argmax(axis=1)
    return float(np.mean([data.classes[t] == data.classes[data.truth[i]] for t, i in zip(top, idx)]))


def in_order(idx: np.ndarray, rng: random.Random, shuffled: bool) -> np.ndarray:
    """The rows in the order they are sent: shuffled (traffic comes in no order), or as the file has them
    (sorted by class: the service's record decays, so the last classes sent weigh more than the first)."""
    rows = list(idx)
    if shuffled:
        rng.shuffle(rows)
    return np.array(rows)


def run_case(
    service: Service, data: LabelledSet, wording: str, seeds: int, shuffled: bool = True, job_seeds: int | None = None
) -> dict:
    """Every protocol on one set and wording; gains against no calibration on the same texts. ``seeds`` runs
    of the traffic protocols, ``job_seeds`` of the job ones (default: half as many, at least 2)."""
    job_seeds = max(2, seeds // 2) if job_seeds is None else job_seeds
    template = TEMPLATES.get(data.name.split()[0]) if wording == "template" else None
    labels, texts = data.classes, np.array(data.texts, dtype=object)
    out: dict[str, list[float]] = {p: [] for p in PROTOCOLS}
    base: list[float] = []
    calibrated: dict[str, list[bool]] = {k: [] for k in out}
    for seed in range(max(seeds, job_seeds)):
        rng = random.Random(seed)
        est, meas = (in_order(half, rng, shuffled) for half in halves(data.truth, rng))
        measured = service.evidence(list(texts[meas]), labels, template)
        plain = accuracy([labels[t] for t in measured.argmax(axis=1)], data, meas)
        base.append(plain)
        samples = [("half", est)] if seed < seeds else []
        for f in frequent_classes(est, data.truth, rng, 2):
            samples += [("skew", in_order(skewed(est, data.truth, f, ratio, rng), rng, shuffled)) for ratio in (5, 10)]
        samples = samples if seed < seeds else []
        for name, sample in samples:
            centred = centred_accuracy(service.evidence(list(texts[sample]), labels, template), measured, data, meas)
            out[f"{name} plain"].append(centred - plain)
            service.reset()
            service.answer(list(texts[sample]), labels, "traffic", template)  # the estimation part
            out[name].append(
                accuracy(service.answer(list(texts[meas]), labels, "traffic", template), data, meas) - plain
            )
            calibrated[name].append(len(sample) >= service.min_texts)
            calibrated[f"{name} plain"].append(True)
        if seed < job_seeds:
            answers, ok = service.job(list(texts[meas]), labels, template)
            out["job"].append(accuracy(answers, data, meas) - plain)
            out["job plain"].append(centred_accuracy(measured, measured, data, meas) - plain)
            calibrated["job"].append(ok)
            calibrated["job plain"].append(True)
            for f in frequent_classes(meas, data.truth, rng, 1):
                for ratio in (5, 10):
                    sample = in_order(skewed(meas, data.truth, f, ratio, rng), rng, shuffled)
                    own = service.evidence(list(texts[sample]), labels, template)
                    none = accuracy([labels[t] for t in own.argmax(axis=1)], data, sample)
                    answers, ok = service.job(list(texts[sample]), labels, template)
                    out["job-skew"].append(accuracy(answers, data, sample) - none)
                    out["job-skew plain"].append(centred_accuracy(own, own, data, sample) - none)
                    calibrated["job-skew"].append(ok)
                    calibrated["job-skew plain"].append(True)
    summary = {k: {"mean": float(np.mean(v)), "min": float(np.min(v)), "n": len(v), "calibrated": all(calibrated[k]),
                   "runs": [float(g) for g in v]}
               for k, v in out.items() if v}  # fmt: skip
    say(f"  {data.name} {wording}: without {np.mean(base):.3f}; "
        + ", ".join(f"{k} {s['mean']:+.3f} (min {s['min']:+.3f})" for k, s in summary.items()))  # fmt: skip
    return {"set": data.name, "wording": wording, "texts": len(data.texts), "labels": len(labels),
            "without": float(np.mean(base)), "gains": summary}  # fmt: skip


def cost(
    out: Path, clients: int, step_s: float, seed: int, rounds: int = 3, cpus: list[int] | None = None
) -> list[dict]:
    """Rounds of ``"none"`` and ``"traffic"`` on one replica (the order swapped every round, so a drift of the
    machine falls on both), each with its answers per second and the replica's CPU per answer (every thread
    of its processes: what the rule costs, whatever the load generator gets)."""
    classes = (SHARED / "thucnews_classes.txt").read_text(encoding="utf-8").split()
    texts = [line.split("\t")[0] for line in (SHARED / "thucnews_test.tsv").read_text(encoding="utf-8").splitlines()]
    rng = random.Random(seed)
    rows = []
    # a fixed in-flight bound, as bench.ab measures: the learned limit would refuse closed-loop clients past its
    # latency target, and the two modes would be compared on how fast they are refused
    static = {"ZSC_TARGET_LATENCY_MS": "-1"}
    member = bento_serve("cost", free_port(), out / "logs" / "cost", static, cpus=cpus)
    with running(member, ready_timeout=600) as server:
        warm = [
            {"text": f"{t} (warm {i})", "labels": classes, "calibration": "traffic"} for i, t in enumerate(texts[:64])
        ]
        httpx.post(f"{server.url}/classify_batch", json={"items": warm}, timeout=300).raise_for_status()
        for round_ in range(1, rounds + 1):
            for mode in ("none", "traffic") if round_ % 2 else ("traffic", "none"):
                bodies = [{"text": f"{rng.choice(texts)} ({seed}-{round_}-{mode}-{i})", "labels": classes,
                           "calibration": mode} for i in range(20_000)]  # fmt: skip
                before = thread_cpu_seconds(server.pids())
                r = run_load(f"{server.url}/classify", bodies, clients, step_s)
                used = cpu_spent(before, thread_cpu_seconds(server.pids()))
                answers = r.requests - r.failures
                answered = answers / r.duration_s  # 200s only
                cpu_ms = 1000 * used["cpu_s"] / max(1, answers)
                rows.append({"mode": mode, "round": round_, "requests_per_s": answered, "p50_ms": r.p50_ms,
                             "p95_ms": r.p95_ms, "failures": r.failures, "cpu_ms": round(cpu_ms, 3)})  # fmt: skip
                say(f"  {mode}: {answered:.1f} answered/s, {cpu_ms:.2f} CPU ms each, p95 {r.p95_ms:.0f} ms, "
                    f"failures {r.failures}")  # fmt: skip
    return rows


def _gain(gains: dict, protocol: str) -> str:
    g = gains.get(protocol)
    if g is None:
        return "-"
    return f"{g['mean']:+.3f} / {g['min']:+.3f} ({g['n']})" + ("" if g["calibrated"] else " uncal.")


def against_the_bar(result: dict, column: str) -> tuple[Interval, list[float]] | None:
    """A column's gain less its bar's, run by run (the same seeds and texts: paired), with the mean's 95%
    bootstrap interval; None where the runs were not kept (reports written before 2026-12-05)."""
    gains = result["gains"]
    bar = BARS[column]
    if column not in gains or "runs" not in gains[column] or (bar is not None and "runs" not in gains.get(bar, {})):
        return None
    runs = gains[column]["runs"]
    bars = [0.0] * len(runs) if bar is None else gains[bar]["runs"]
    differences = [g - b for g, b in zip(runs, bars)]
    return mean_interval(differences), differences


def bar_report(results: list[dict]) -> list[str]:
    """Every cell under its bar on average, with how far chance alone could put it there: the mean difference,
    its 95% interval over the runs, and the runs under, level with and over the bar."""
    rows, cells = [], 0
    for r in results:
        for column, bar in BARS.items():
            found = against_the_bar(r, column)
            if found is None:
                continue
            cells += 1
            interval, differences = found
            if interval.mean >= 0:
                continue
            d = np.asarray(differences)
            rows.append([r["set"], r["wording"], column, "plain centring" if bar else "uncalibrated",
                         f"{interval.mean:+.4f}", f"[{interval.low:+.4f}, {interval.high:+.4f}]",
                         f"{int(np.sum(d < 0))} / {int(np.sum(d == 0))} / {int(np.sum(d > 0))}",
                         "under" if interval.high < 0 else "within chance"])  # fmt: skip
    if not cells:
        return []
    head = ["## Against the bar", "",
            f"Of {cells} cells, {cells - len(rows)} are at or above their bar on average; the others, with the mean "
            "difference, its 95% bootstrap interval over the runs (paired: the same seeds and texts) and the runs "
            "under / level with / over the bar. `under`: the interval is under 0 too.", ""]  # fmt: skip
    if not rows:
        return head
    return [*head, *table(["set", "wording", "column", "bar", "difference", "95% interval", "runs", ""], rows), ""]


def report(results: dict) -> str:
    head = ["## Top-1 accuracy with calibration, through the service (multilingual-e5-small)", "",
            "Gain against no calibration on the same texts, mean / worst over the runs (n); "
            f"`uncal.`: the sample had fewer than {results.get('min_texts', 50):g} texts, answered uncalibrated "
            "(gain 0 by design); "
            "`plain`: plain centring of the same unlabelled texts (each label's mean evidence subtracted). "
            f"Texts sent {results.get('order', 'sorted by class')}.", ""]  # fmt: skip
    rows = [
        [r["set"], r["wording"], str(r["texts"]), str(r["labels"]), f"{r['without']:.3f}",
         *(_gain(r["gains"], k) for k in PROTOCOLS)]
        for r in results["accuracy"]
    ]  # fmt: skip
    lines = [*head, *table(["set", "wording", "texts", "labels", "without", *PROTOCOLS], rows), ""] if rows else []
    lines += bar_report(results["accuracy"])
    c = results["cost"]
    if not c:  # --no-cost
        return "\n".join(lines)
    rps = {m: float(np.mean([r["requests_per_s"] for r in c if r["mode"] == m])) for m in ("none", "traffic")}
    rounds = max(r["round"] for r in c)
    title = f"## Cost: /classify, {results['clients']} clients, {results['step_s']:g} s per round, {rounds} rounds each"
    cpu = {m: float(np.mean([r.get("cpu_ms", np.nan) for r in c if r["mode"] == m])) for m in rps}
    where = results.get("cost_cpus")
    lines += [title, "", f"{results.get('machine', {}).get('cpu', 'CPU not recorded')}; replica on CPUs "
              f"{where or 'any'}, load generator on {results.get('loadgen_cpus') or 'any'}", "",
              *table(["calibration", "req/s (mean)", "CPU ms per answer (mean)", "p95 ms (worst round)", "failures"],
                     [[m, f"{rps[m]:.1f}", f"{cpu[m]:.2f}", f"{max(r['p95_ms'] for r in c if r['mode'] == m):.0f}",
                       str(sum(r["failures"] for r in c if r["mode"] == m))] for m in rps]),
              "", f"Ratio traffic / none: **{rps['traffic'] / rps['none']:.3f}** requests/s; CPU per answer "
              f"**{cpu['traffic'] / cpu['none']:.3f}**"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--smoke", action="store_true", help="2 seeds, 5 s load steps")
    parser.add_argument("--seeds", type=int, default=5, help="runs of the traffic protocols (half, skew) per set")
    parser.add_argument("--job-seeds", type=int, help="runs of the job protocols (default: half of --seeds, >= 2)")
    parser.add_argument("--sets", help="e.g. cic,en-support (default: every set)")
    add_load_options(parser)
    parser.add_argument("--rounds", type=int, default=3, help="cost: rounds of none then traffic")
    parser.add_argument("--no-cost", action="store_true")
    parser.add_argument("--sorted", action="store_true", help="send each sample sorted by class, not shuffled")
    parser.add_argument("--cost-only", action="store_true", help="measure the cost again into an earlier run's folder")
    parser.add_argument("--cpus", help="cost: CPUs for the replica, e.g. 0 (default: not pinned)")
    parser.add_argument("--loadgen-cpus", help="cost: CPUs for this process, the load generator (default: not pinned)")
    parser.add_argument("--out", type=Path, help="result folder (default results/calibration-<date>)")
    args = parser.parse_args(argv)
    if args.smoke:
        args.seeds, args.step_s = 2, 5
    out = result_folder(args.out, "calibration", args.smoke)
    started = time.monotonic()
    ensure_default(dict(os.environ))
    cpus = parse_cpus(args.cpus) if args.cpus else None
    if args.loadgen_cpus:  # the replica's processes are pinned by the harness; this process keeps to its own
        os.sched_setaffinity(0, parse_cpus(args.loadgen_cpus))
    where = {"cost_cpus": format_cpus(cpus) if cpus else None, "loadgen_cpus": args.loadgen_cpus,
             "machine": machine_info()}  # fmt: skip

    def measured_cost() -> list[dict]:
        return cost(out, args.clients, args.step_s, args.seed, args.rounds, cpus)

    if args.cost_only:
        path = out / "calibration.json"
        results = json.loads(path.read_text()) if path.exists() else {"accuracy": []}
        results.update(clients=args.clients, step_s=args.step_s, cost=measured_cost(), **where)
        say(f"wrote {write_results(out, 'calibration', results, report, lambda results, path: None)}")
        print(report(results))
        return 0
    sets = load_sets(SHARED, thucnews_per_class=200)
    pairs = [two_label(sets[0], i, j) for i, j in THUCNEWS_PAIRS]  # two labels, as sentiment is: template only
    if args.sets:
        wanted = args.sets.split(",")
        unknown = sorted(set(wanted) - {d.name for d in sets} - {PAIRS_SET})
        if unknown:
            names = ", ".join([*(d.name for d in sets), PAIRS_SET])
            parser.error(f"--sets: no set {', '.join(unknown)} (there are {names})")
        pairs = pairs if PAIRS_SET in wanted else []
        sets = [d for d in sets if d.name in wanted]
    results: dict = {"accuracy": [], "clients": args.clients, "step_s": args.step_s, "seeds": args.seeds,
                     "min_texts": CalibrationConfig().min_texts,
                     "order": "sorted by class" if args.sorted else "shuffled"}  # fmt: skip
    with running(bento_serve("accuracy", free_port(), out / "logs" / "accuracy", ACCURACY_ENV), ready_timeout=600) as s:
        service = Service(s.url)
        for data, wording in [
            *((d, w) for d in sets for w in (("bare", "template") if d.name in TEMPLATES else ("bare",))),
            *((d, "template") for d in pairs),
        ]:
            results["accuracy"].append(run_case(service, data, wording, args.seeds, not args.sorted, args.job_seeds))
    results.update(where)
    results["cost"] = [] if args.no_cost else measured_cost()
    results["minutes"] = round((time.monotonic() - started) / 60, 1)
    path = write_results(out, "calibration", results, report, lambda results, path: None)
    say(f"wrote {path}")
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
