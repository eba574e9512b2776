"""Which estimator turns unlabelled texts into label offsets: measured offline on the default model's raw evidence.

    .venv/bin/python -m bench.studies.calibration_estimators                 # ~1 min after the first run's embeddings
    .venv/bin/python -m bench.studies.calibration_estimators --seeds 10
    .venv/bin/python -m bench.studies.calibration_estimators --all-pairs     # every two-label THUCNews task, ~2 min

The evidence is the service's (``scale * cos`` of each text with each label's wording), computed once per set
with the default model and kept in ``--cache`` (``bench.studies.label_calibration.Embedder``); the sets and splits are
``bench.studies.label_calibration``'s: THUCNews (2,000 headlines, bare names and the task template), CIC (2,000
utterances, 118 intents), the English news and support rows. Top-1 accuracy on the measured half, offsets from:

- **balanced**: the other (stratified) half;
- **skew x5 / x10**: a sample of that half where one class is 5 or 10 times as frequent as each other one;
- **flood**: the balanced half from one source, then ten times as many texts of one class from another source
  (the estimator sees both; "per-source cap" gives no source more than half of the weight);
- **job / job-skew x10**: the measured texts themselves (skewed for job-skew); there "service" is the jobs' path,
  which on two labels follows the job's own mix (``core.calibration_mix``);
- **flood in order** (the service alone): the flood as traffic brings it, from one source, the balanced half
  first and then the ten times as many texts of one class, in batches of 16 through ``core.calibration``'s
  ``observe`` and ``merge`` with the service's own settings (decay, minimum) and its burst guard
  (``core.calibration_bursts``; "service without the burst guard" beside it): a client's stream followed by a
  flood from its own address, which no per-source share bounds; **half in order** the client's stream alone,
  and **flood moved** the difference (what the flood did to the client's answers: 0 is nothing).

Each candidate is a function of an evidence sample; "service" is the one ``service.core.calibration`` ships.
``--all-pairs`` measures every two-label task cut from THUCNews' ten classes (45 per wording) and reports, per
candidate and protocol, the mean gain against the bar (plain centring on balanced samples and jobs, uncalibrated
on skewed ones), how many tasks fall under it and the worst: the three pairs of the default run are easy ones
(~0.95 right uncalibrated), and a two-label task is where a class prior and a label's bias look most alike.
"""

from __future__ import annotations

import argparse
import itertools
import math
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from unittest import mock

import numpy as np

from bench.calibration_sets import THUCNEWS_PAIRS, frequent_classes, halves, load_sets, skewed
from bench.studies.label_calibration import Case, build_cases
from harness.report import table
from loadtest.workload import SHARED
from service.core import calibration as cal
from service.core.calibration_bursts import BurstDetector, BurstGuard

# the label calibration study's embeddings (bench.studies.label_calibration)
DEFAULT_CACHE = Path.home() / ".cache" / "zsc-label-calibration"
FIT = replace(cal.CalibrationConfig(), half_life=math.inf, min_texts=0.0)
Estimator = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (evidence [n, K], source per text) -> offsets


def _centred(e: np.ndarray) -> np.ndarray:
    return e - e.mean(axis=1, keepdims=True)


def plain(e: np.ndarray, _src: np.ndarray) -> np.ndarray:
    """Plain centring: each label's mean evidence over the sample, centred over the labels."""
    m = _centred(e).mean(0)
    return m - m.mean()


def trimmed(e: np.ndarray, _src: np.ndarray, cut: float = 0.1) -> np.ndarray:
    x = np.sort(_centred(e), axis=0)
    k = int(len(x) * cut)
    m = x[k : len(x) - k].mean(0)
    return m - m.mean()


def median_of_means(e: np.ndarray, _src: np.ndarray, groups: int = 10) -> np.ndarray:
    x = _centred(e)
    parts = np.array_split(x[np.random.default_rng(0).permutation(len(x))], min(groups, len(x)))
    m = np.median(np.stack([p.mean(0) for p in parts]), axis=0)
    return m - m.mean()


def service_fit(config: cal.CalibrationConfig) -> Estimator:
    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        found = cal.offsets(cal.fit(e, [str(i) for i in range(e.shape[1])], config), config)
        return np.zeros(e.shape[1]) if found is None else found

    return fit


def service_job_fit(config: cal.CalibrationConfig) -> Estimator:
    """A job's own calibration as the service's jobs make it (``service.jobs.calibration``): the balanced
    correction, on two labels moved towards the job's own mix where it is skewed (``core.calibration_mix``)."""

    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        found = cal.job_offsets(cal.fit(e, [str(i) for i in range(e.shape[1])], config), config)
        return np.zeros(e.shape[1]) if found is None else found

    return fit


def source_capped(inner: Estimator, share: float = 0.5) -> Estimator:
    """Each source's texts weighed so that none holds more than ``share`` of the sample (repeating the
    smaller sources' rows stands for their weight): what per-source statistics give the estimator."""

    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        names, counts = np.unique(src, return_counts=True)
        if len(names) < 2:
            return inner(e, src)
        most = max(share, 1.0 / len(names)) * counts.sum()
        keep = []
        for name, n in zip(names, counts):
            rows = np.flatnonzero(src == name)
            keep.append(rows[: int(min(n, max(most * (1 - share) / share, counts[names != name].sum())))])
        rows = np.concatenate(keep)
        return inner(e[rows], src[rows])

    return fit


def corrected_winners(e: np.ndarray, _src: np.ndarray) -> np.ndarray:
    from bench.studies.label_calibration import est_capped_corrected_winners

    return est_capped_corrected_winners(e)


def skew_left_after_cap(e: np.ndarray) -> float:
    """``core.calibration.skew_left`` of the sample's winners after the capped correction."""
    return cal.skew_left(cal.fit(e, [str(i) for i in range(e.shape[1])], FIT).settled, len(e))


def balanced_share_cap(config: cal.CalibrationConfig) -> Estimator:
    """The service's estimator with the skew weight it had until 2026-12-03: texts of a label capped at the
    balanced share, ``min(1, max(cap / K, cap_floor) / share)``, where the service now caps them at what each
    other label wins on average (``core.calibration._capped``): the same with ten labels or more, less with few
    (a two-label sample 91/9 re-balanced to 85/15 then, 50/50 now)."""

    def capped(share: np.ndarray, k: int, cfg: cal.CalibrationConfig) -> np.ndarray:
        return np.minimum(1.0, max(cfg.cap / k, cfg.cap_floor) / np.maximum(share, 1e-12))

    inner = service_fit(config)

    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        with mock.patch.object(cal, "_capped", capped):
            return inner(e, src)

    return fit


def before_small_sample_rules(inner: Estimator) -> Estimator:
    """``inner`` (the service's fit or job fit) as it was until 2026-12-04: the skew test reading the winners after
    the *shrunk* capped correction, and made at any sample size (``core.calibration.SKEW_TEST_TEXTS_PER_LABEL``)."""

    capped = cal.capped_offsets

    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        shrunk_always = lambda stats, config, shrunk=True: capped(stats, config)  # noqa: E731
        with mock.patch.multiple(cal, capped_offsets=shrunk_always, SKEW_TEST_TEXTS_PER_LABEL=0.0):
            return inner(e, src)

    return fit


def scaled_by_changed_answers(inner: Estimator, enough: float = 1.0) -> Estimator:
    """``inner``'s offsets times min(1, changed / ``enough``), changed the answers they change among the sample's
    own texts: a correction that changes none of the answers it was learned from has shown nothing there (tried
    2026-12-05 for the small skewed samples of a well-calibrated model; docs/evaluation.md)."""

    def fit(e: np.ndarray, src: np.ndarray) -> np.ndarray:
        found = inner(e, src)
        changed = int(np.sum(e.argmax(1) != (e - found).argmax(1)))
        return found * min(1.0, changed / enough)

    return fit


def capped_median(e: np.ndarray, _src: np.ndarray) -> np.ndarray:
    """Each label's weighted median over the sample (texts weighed by the service's cap), shrunk with a median's
    variance (pi / 2 times the mean's), times the coverage guard: a label's own class is a minority of its texts, so
    its lift should move the median less than the mean."""
    x, winners = _centred(e), e.argmax(1)
    wins = np.bincount(winners, minlength=e.shape[1]).astype(np.float64)
    w = cal.winner_weights(wins, float(len(e)), FIT)[winners]
    order = np.argsort(x, axis=0)
    median = np.empty(x.shape[1])
    for j in range(x.shape[1]):
        cumulative = np.cumsum(w[order[:, j]])
        median[j] = x[order[np.searchsorted(cumulative, cumulative[-1] / 2), j], j]
    mean = w @ x / w.sum()
    var = np.maximum(w @ x**2 / w.sum() - mean**2, 0.0) / w.sum() * math.pi / 2
    return cal._centred_offsets(median, var, True) * cal.coverage(wins, FIT.coverage_slack)


NO_GUARD = replace(FIT, coverage_slack=math.inf)
CANDIDATES: dict[str, Estimator] = {
    "plain centring": plain,
    "plain + shrink": service_fit(replace(NO_GUARD, cap=math.inf)),
    "trimmed mean 10%": trimmed,
    "median of 10 means": median_of_means,
    "capped corrected winners": corrected_winners,
    "capped + shrink": service_fit(replace(NO_GUARD, skew_test=None)),
    "capped x1.5 + shrink": service_fit(replace(NO_GUARD, cap=1.5, skew_test=None)),
    "plain + shrink + coverage": service_fit(replace(FIT, cap=math.inf)),
    "capped + coverage": service_fit(replace(FIT, skew_test=None)),
    "per-source cap 0.5 + service": source_capped(service_fit(FIT)),
    "skew test 0.2-0.5": service_fit(replace(FIT, skew_test=(0.2, 0.5))),
    "before: balanced-share cap (1/K)": balanced_share_cap(FIT),
    "service without the margins' mixture": service_fit(replace(FIT, mix=None)),  # until 2026-12-04
    "service before the small-sample rules": before_small_sample_rules(service_fit(FIT)),  # until 2026-12-04
    "service, scaled by the answers it changes": scaled_by_changed_answers(service_fit(FIT)),  # tried 2026-12-05
    "capped median + shrink": capped_median,  # tried 2026-12-05
    "service": service_fit(FIT),
}
# on the job protocols (the measured texts are the sample) "service" is the jobs' path: a two-label job follows
# its own mix (core.calibration_mix)
JOBS = ("job", "job-skew x10")
JOB_CANDIDATES: dict[str, Estimator] = {
    "service before the small-sample rules": before_small_sample_rules(service_job_fit(FIT)),
    "service": service_job_fit(FIT),
}


TRAFFIC = cal.CalibrationConfig()  # the service's settings: half-life, minimum texts
IN_ORDER = "flood in order"
HALF_IN_ORDER = "half in order"  # the flood's first part alone: the client's own stream, what a flood must not move
FLOOD_MOVED = "flood moved"  # flood in order less half in order: how far the flood moved the client (a difference)
# the flood in order through the service's path, with its burst guard and without (core.calibration_bursts)
IN_ORDER_GUARDS = {"service": BurstGuard(), "service without the burst guard": BurstGuard(lift=0.0)}


def streamed(
    e: np.ndarray, order: np.ndarray, config: cal.CalibrationConfig = TRAFFIC, batch: int = 16,
    guard: BurstGuard = BurstGuard(),
) -> np.ndarray:  # fmt: skip
    """The offsets after ``order``'s texts arrive as traffic from one source: each batch observed against the
    record so far (its texts weighed by the burst guard) and merged into it (the service's path, without
    Redis); zeros while uncalibrated."""
    stats = cal.LabelStats.empty([str(i) for i in range(e.shape[1])])
    detector = BurstDetector(e.shape[1], guard)
    for start in range(0, len(order), batch):
        x = e[order[start : start + batch]]
        keep = cal.burst_weights(detector, stats, x, config)
        stats = cal.merge(stats, cal.observe(stats, x, config, keep), config.half_life)
    found = cal.offsets(stats, config)
    return np.zeros(e.shape[1]) if found is None else found


def accuracy(e: np.ndarray, y: np.ndarray, shift: np.ndarray | None = None) -> float:
    return float(np.mean((e if shift is None else e - shift).argmax(1) == y))


def study(case: Case, seeds: int) -> dict[str, dict[str, float]]:
    """Per candidate and protocol: mean accuracy, and the worst gain against uncalibrated."""
    e, y = case.evidence, case.data.truth
    names = ["uncalibrated", *CANDIDATES, *(n for n in [*IN_ORDER_GUARDS, *JOB_CANDIDATES] if n not in CANDIDATES)]
    acc: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n in names}
    gain: dict[str, dict[str, list[float]]] = {n: defaultdict(list) for n in names[1:]}
    left: dict[str, list[float]] = defaultdict(list)

    def add(protocol: str, sample: np.ndarray, src: np.ndarray, measured: np.ndarray) -> None:
        base = accuracy(e[measured], y[measured])
        acc["uncalibrated"][protocol].append(base)
        left[protocol].append(skew_left_after_cap(e[sample]))
        candidates = {**CANDIDATES, **JOB_CANDIDATES} if protocol in JOBS else CANDIDATES
        for name, fn in candidates.items():
            a = accuracy(e[measured], y[measured], fn(e[sample], src))
            acc[name][protocol].append(a)
            gain[name][protocol].append(a - base)

    for seed in range(seeds):
        rng = random.Random(seed)
        a, b = halves(y, rng)
        add("balanced", a, np.zeros(len(a)), b)
        for f in frequent_classes(a, y, rng, 1):
            for ratio in (5, 10):
                s = skewed(a, y, f, ratio, rng)
                add(f"skew x{ratio}", s, np.zeros(len(s)), b)
            flood = np.array([i for i in a if y[i] == f] * 10 * max(1, len(a) // max(1, np.sum(y[a] == f))))
            flood = flood[: 10 * len(a)]
            add("flood", np.concatenate([a, flood]), np.array([0] * len(a) + [1] * len(flood)), b)
            shuffle = random.Random(seed * 1000 + f)  # its own draws: the other protocols' samples stay as they were
            order = np.concatenate([shuffle.sample(list(a), len(a)), shuffle.sample(list(flood), len(flood))])
            none = accuracy(e[b], y[b])
            acc["uncalibrated"][IN_ORDER].append(none)
            acc["uncalibrated"][HALF_IN_ORDER].append(none)
            for name, guard in IN_ORDER_GUARDS.items():
                served = accuracy(e[b], y[b], streamed(e, order, guard=guard))
                acc[name][IN_ORDER].append(served)
                gain[name][IN_ORDER].append(served - none)
            alone = accuracy(e[b], y[b], streamed(e, order[: len(a)]))  # what the client's own stream gave
            acc["service"][HALF_IN_ORDER].append(alone)
            gain["service"][HALF_IN_ORDER].append(alone - none)
            moved = acc["service"][IN_ORDER][-1] - alone  # what the flood did to it (0: nothing)
            acc["uncalibrated"][FLOOD_MOVED].append(0.0)
            acc["service"][FLOOD_MOVED].append(moved)
            gain["service"][FLOOD_MOVED].append(moved)
            s = skewed(b, y, f, 10, rng)
            add("job-skew x10", s, np.zeros(len(s)), s)
            one = np.array([i for i in a if y[i] == f])
            add("one class", one, np.zeros(len(one)), b)
        add("job", b, np.zeros(len(b)), b)
    out = {"skew left after the cap": {p: float(np.mean(v)) for p, v in left.items()}}
    for name in acc:
        out[name] = {p: float(np.mean(v)) for p, v in acc[name].items()}
        if name in gain:
            out[name].update({f"{p} worst": float(np.min(v)) for p, v in gain[name].items()})
    return out


def pair(case: Case, i: int, j: int) -> Case:
    """The same texts' evidence restricted to two classes' texts and labels."""
    rows = np.flatnonzero((case.data.truth == i) | (case.data.truth == j))
    data = replace(case.data, name=f"thucnews {case.data.classes[i]}-{case.data.classes[j]}",
                   texts=[case.data.texts[r] for r in rows], truth=(case.data.truth[rows] == j).astype(int),
                   classes=[case.data.classes[i], case.data.classes[j]])  # fmt: skip
    return replace(case, data=data, cos=case.cos[rows][:, [i, j]])


SAMPLES = ("balanced", "skew x5", "skew x10", "flood", "one class", "job", "job-skew x10")
PROTOCOLS = (*SAMPLES, HALF_IN_ORDER, IN_ORDER, FLOOD_MOVED)


def cell(by: dict[str, float], protocol: str) -> str:
    """A candidate's mean accuracy on a protocol (and its worst gain); "—" where it was not measured."""
    if protocol not in by:
        return "—"
    worst = by.get(f"{protocol} worst")
    return f"{by[protocol]:.3f}" + ("" if worst is None else f" ({worst:+.3f})")


def report(results: dict[str, dict]) -> str:
    parts = []
    for case, by in results.items():
        rows = [[name, *(cell(by[name], p) for p in PROTOCOLS)] for name in by]
        parts.append(f"**{case}**\n\n" + "\n".join(table(["estimator", *PROTOCOLS], rows)))
    return "\n\n".join(parts)


BAR = {"balanced": "plain centring", "job": "plain centring"}  # every other protocol's bar: uncalibrated


def against_the_bar(results: dict[str, dict]) -> str:
    """Per candidate and protocol over many tasks: the mean gain against the bar, the tasks under it (by more
    than half a thousandth: a tie is not a loss) and the worst task's gain."""
    names = [n for n in next(iter(results.values())) if n not in ("skew left after the cap", "uncalibrated")]
    rows = []
    for name in names:
        cells = []
        for p in PROTOCOLS:
            if any(p not in by[name] for by in results.values()):
                cells.append("—")
                continue
            gap = np.array([by[name][p] - by[BAR.get(p, "uncalibrated")][p] for by in results.values()])
            cells.append(f"{gap.mean():+.4f} ({int(np.sum(gap < -0.0005))}/{len(gap)} under, worst {gap.min():+.3f})")
        rows.append([name, *cells])
    return "\n".join(table(["estimator", *PROTOCOLS], rows))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--model", default="multilingual-e5-small")
    parser.add_argument("--datasets", type=Path, default=SHARED)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE, help="embeddings kept between runs")
    parser.add_argument("--all-pairs", action="store_true", help="every two-label THUCNews task, against the bars")
    args = parser.parse_args(argv)
    sets = load_sets(args.datasets)
    for s in sets:
        s.extra, s.extra_truth = [], None  # no unlabelled pool: the halves are the samples
    cases, _ = build_cases([args.model], sets, args.cache)
    if args.all_pairs:
        for case in (c for c in cases if c.name.startswith("thucnews/")):
            tasks = [pair(case, i, j) for i, j in itertools.combinations(range(len(case.data.classes)), 2)]
            print(f"**{case.name}, every pair**: mean gain against the bar (tasks under it, worst task)\n")
            print(against_the_bar({t.data.name: study(t, args.seeds) for t in tasks}) + "\n")
        return 0
    cases += [pair(c, i, j) for c in cases if c.name == "thucnews/template" for i, j in THUCNEWS_PAIRS]
    results = {case.name: study(case, args.seeds) for case in cases}
    print(report(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
