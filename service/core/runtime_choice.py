"""Which runtime and precision serve a model on a CPU: the candidates this machine supports, and the rule that
picks one from their measurements (pure; ``engine.runtime_probe`` measures them).

The rule (after ATLAS and FFTW: measure the candidates once on the machine, keep the fastest that is right):
the first candidate, fp32, is the reference; every other is compared with it on the same sample, through the
model's real scoring, and refused when its top-1 answers agree on less than ``MIN_AGREEMENT`` of the sample
or its scores move by more than ``MAX_MEAN_DIFF`` on average (the bar the default's answers are held to
through HTTP against fp32; the largest difference is reported beside it: bf16's rounding moves a few near
scores by ~0.02 while the mean stays ~0.001). The fastest of the rest serves.

Agreement is judged twice, and the lower counts. Observed: the items whose top label stayed. Projected: on
48 items, a 1 % flip rate is rarely seen at all (0.6 of such samples show none), so the sample's own rounding
errors are also applied to its top-two margins: an item flips when the runner-up's error minus the top
label's exceeds its margin, and over every pairing of the sample's errors with its margins the share that
would flip is that candidate's expected loss. (Measured on e5 with OpenVINO bf16 on an AVX512-BF16 CPU:
the sample showed no flip, while 1.8 % of THUCNews headlines flipped through HTTP; the projection from the
sample's errors onto THUCNews' margins gave 1.2 %.) The sample's ten-label sets give it close margins.
"""

from __future__ import annotations

import bisect
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

MIN_AGREEMENT = 0.99  # share of the sample whose top label is the reference's
MAX_MEAN_DIFF = 0.01  # the mean absolute score difference allowed, on a 0-1 score
RULE = 2  # this rule and its sample: a choice remembered under an earlier one is measured again (2: projected)

# CPU flags (/proc/cpuinfo) under which OpenVINO computes a reduced precision natively: elsewhere it falls
# back to fp32 (fp16 without AMX) or emulates it, and measuring it would only spend the start-up's budget
NATIVE = {"bf16": ("avx512_bf16", "amx_bf16"), "fp16": ("amx_fp16",)}


@dataclass(frozen=True)
class Candidate:
    runtime: str
    precision: str

    def __str__(self) -> str:
        return f"{self.runtime} {self.precision}"


@dataclass(frozen=True)
class Trial:
    """One candidate measured on the sample: its speed and how its answers compare with the reference's."""

    runtime: str
    precision: str
    texts_per_s: float
    top1_agreement: float
    max_score_diff: float
    mean_score_diff: float = 0.0
    refused: str | None = None  # why it may not serve (None: it may)
    projected_top1: float | None = None  # the agreement its rounding errors project onto the sample's margins

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.runtime, self.precision)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Trial:
        return cls(**{k: d[k] for k in cls.__dataclass_fields__ if k in d})


def candidates(
    cpu_flags: Collection[str],
    openvino_caps: Collection[str] | None,
    onnx_fp32: bool,
    onnx_int8: bool,
) -> list[Candidate]:
    """What a CPU replica may serve a model with, the fp32 reference first, then the reduced precisions (the
    likely winners, measured while the start-up's budget is fresh), then the rest. ``openvino_caps``: OpenVINO's
    ``OPTIMIZATION_CAPABILITIES`` for the CPU (None: not installed); ``onnx_fp32``/``onnx_int8``: the ONNX
    graphs the model has and whether ONNX Runtime is there to run them."""
    out: list[Candidate] = []
    if onnx_fp32:
        out.append(Candidate("onnx", "fp32"))
    if openvino_caps is not None:
        if not onnx_fp32:  # the reference
            out.append(Candidate("openvino", "fp32"))
        for precision, flags in NATIVE.items():
            if precision.upper() in openvino_caps and any(f in cpu_flags for f in flags):
                out.append(Candidate("openvino", precision))
    if onnx_int8:
        out.append(Candidate("onnx", "int8"))
    if openvino_caps is not None and onnx_fp32:
        out.append(Candidate("openvino", "fp32"))
    return out


def agreement(
    reference: Sequence[Sequence[float]], scores: Sequence[Sequence[float]]
) -> tuple[float, float, float, float]:
    """(share of the items whose top label is the reference's, largest and mean absolute score difference,
    the share ``projected_agreement`` expects)."""
    if len(reference) != len(scores) or not reference:
        raise ValueError("compare the same items, at least one")
    same, diffs = 0, []
    for ref, got in zip(reference, scores):
        same += _top(ref) == _top(got)
        diffs += [abs(a - b) for a, b in zip(ref, got)]
    return same / len(reference), max(diffs), sum(diffs) / len(diffs), projected_agreement(reference, scores)


def projected_agreement(reference: Sequence[Sequence[float]], scores: Sequence[Sequence[float]]) -> float:
    """The share of top labels expected to stay when every item's top-two margin meets every item's rounding
    error on those two labels (the runner-up's error minus the top's; it flips the answer past the margin)."""
    margins, swings = [], []
    for ref, got in zip(reference, scores):
        if len(ref) < 2:
            continue
        top, runner_up = sorted(range(len(ref)), key=lambda i: -ref[i])[:2]
        margins.append(ref[top] - ref[runner_up])
        swings.append((got[runner_up] - ref[runner_up]) - (got[top] - ref[top]))
    if not margins:
        return 1.0
    swings.sort()
    # for each margin, the share of the swings past it: a sorted list answers each in log time
    past = sum(len(swings) - bisect.bisect_right(swings, m) for m in margins)
    return 1.0 - past / (len(margins) * len(swings))


def judge(trial: Trial) -> Trial:
    """The trial, with why it is refused when its answers are not the reference's (or it was refused
    before: it failed, or was not measured)."""
    if trial.refused is not None:
        return trial
    if trial.top1_agreement < MIN_AGREEMENT:
        why = f"top-1 agreement {trial.top1_agreement:.3f} < {MIN_AGREEMENT}"
    elif trial.projected_top1 is not None and trial.projected_top1 < MIN_AGREEMENT:
        why = f"projected top-1 agreement {trial.projected_top1:.3f} < {MIN_AGREEMENT} (its errors on the margins)"
    elif trial.mean_score_diff > MAX_MEAN_DIFF:
        why = f"scores off by {trial.mean_score_diff:.4f} on average > {MAX_MEAN_DIFF}"
    else:
        return trial
    return replace(trial, refused=why)


def choose(trials: Sequence[Trial]) -> tuple[Trial, list[Trial]]:
    """(the fastest trial not refused, every trial judged). The first is the reference: it always agrees."""
    if not trials:
        raise ValueError("nothing was measured")
    judged = [trials[0], *(judge(t) for t in trials[1:])]
    chosen = max((t for t in judged if t.refused is None), key=lambda t: t.texts_per_s)
    return chosen, judged


def summary(chosen: Trial, trials: Sequence[Trial]) -> str:
    """One line: each candidate's speed and agreement, the refused ones marked, the chosen one first."""
    parts = []
    for t in trials:
        mark = "chosen" if t.candidate == chosen.candidate else (f"refused: {t.refused}" if t.refused else "slower")
        parts.append(
            f"{t.candidate} {t.texts_per_s:.0f} texts/s, top-1 {t.top1_agreement:.3f} "
            f"(projected {t.projected_top1 if t.projected_top1 is not None else float('nan'):.3f}), "
            f"score diff mean {t.mean_score_diff:.4f} max {t.max_score_diff:.4f} ({mark})"
        )
    return "; ".join(parts)


def _top(scores: Sequence[float]) -> int:
    return max(range(len(scores)), key=lambda i: scores[i])
