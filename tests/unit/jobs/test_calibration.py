"""A job's own calibration as sums (service/jobs/calibration.py): a two-label group also counts its margins, chunks
add up, and the answer pass follows the job's mix where the mixture finds it skewed."""

from __future__ import annotations

import numpy as np

from service.core.calibration import CalibrationConfig, offsets
from service.core.calibration_mix import fit_mix, job_offsets, margin_counts
from service.jobs.calibration import fitted, groups_of, sample_sums
from service.pipeline.calibration import JobCalibration

CONFIG = CalibrationConfig(half_life=float("inf"))


def evidence(rng: np.random.Generator, second: int, first: int, labels: int = 2) -> np.ndarray:
    """Raw evidence of ``second`` texts of the second label then ``first`` of the first (others: noise)."""
    x = rng.normal(0.0, 1.0, (second + first, labels))
    x[:second, 1] += 3.0 - 1.0  # the model favours the first label by 1 logit
    x[second:, 0] += 3.0 + 1.0
    return x


def chunks_summed(groups: dict[str, np.ndarray], chunk: int = 128) -> dict[str, float]:
    """The store's hash after every chunk's estimate pass (HINCRBYFLOAT of each chunk's sums)."""
    summed: dict[str, float] = {}
    n = len(next(iter(groups.values())))
    for start in range(0, n, chunk):
        sample = JobCalibration(sample={g: list(x[start : start + chunk]) for g, x in groups.items()})
        for name, value in sample_sums(sample, summed, CONFIG).items():
            summed[name] = summed.get(name, 0.0) + value
    return summed


def test_a_two_label_group_counts_its_margins_and_chunks_add_up():
    rng = np.random.default_rng(11)
    two, three = evidence(rng, 900, 100), evidence(rng, 500, 500, labels=3)
    summed = chunks_summed({"m:wording:two": two, "m:wording:three": three})
    groups = groups_of(summed)
    assert np.allclose(groups["m:wording:two"].margins, margin_counts(two), rtol=0, atol=1e-9)
    assert groups["m:wording:three"].margins.shape == (0,)  # three labels: no mixture to fit
    assert not any(name.startswith("m:wording:three#m|") for name in summed)
    assert groups["m:wording:two"].texts == 1000


def test_the_answer_pass_follows_a_skewed_two_label_jobs_mix():
    rng = np.random.default_rng(12)
    two, three = evidence(rng, 900, 100), evidence(rng, 900, 100, labels=3)
    summed = chunks_summed({"m:wording:two": two, "m:wording:three": three})
    fit = fitted(summed, CONFIG).fitted
    balanced = offsets(groups_of(summed)["m:wording:two"], CalibrationConfig(half_life=float("inf"), mix=None))
    shifted, texts = fit["m:wording:two"]
    assert texts == 1000
    assert fit_mix(margin_counts(two)).share > 0.85
    assert np.allclose(shifted, job_offsets(balanced, margin_counts(two)), rtol=0, atol=1e-9)
    assert not np.allclose(shifted, balanced)
    truth = np.array([1] * 900 + [0] * 100)
    assert np.mean((two - shifted).argmax(1) == truth) > np.mean((two - balanced).argmax(1) == truth)
    assert fit["m:wording:three"][0].tolist() == offsets(groups_of(summed)["m:wording:three"], CONFIG).tolist()
    off = fitted(summed, CalibrationConfig(half_life=float("inf"), mix=None)).fitted
    assert off["m:wording:two"][0].tolist() == balanced.tolist()  # the setting off: the balanced correction
