"""The rule that picks a runtime and precision: the candidates a CPU's flags allow, agreement with the fp32
reference, and the fastest of those that agree (never one that disagrees, however fast)."""

from __future__ import annotations

import pytest

from service.core.runtime_choice import (
    Candidate,
    Trial,
    agreement,
    candidates,
    choose,
    judge,
    projected_agreement,
    summary,
)

AVX2 = ("avx", "avx2", "fma", "sse4_2")
AVX512_BF16 = (*AVX2, "avx512f", "avx512_bf16", "avx512_vnni", "avx512_fp16")
AMX = (*AVX512_BF16, "amx_bf16", "amx_int8", "amx_tile", "amx_fp16")
CAPS = ("FP32", "BF16", "FP16", "INT8")


def test_an_avx2_cpu_measures_fp32_only_the_reference_first():
    assert candidates(AVX2, CAPS, onnx_fp32=True, onnx_int8=False) == [
        Candidate("onnx", "fp32"),
        Candidate("openvino", "fp32"),
    ]


def test_bf16_where_the_cpu_has_it_fp16_only_with_amx_int8_where_exported():
    assert candidates(AVX512_BF16, CAPS, onnx_fp32=True, onnx_int8=True) == [
        Candidate("onnx", "fp32"),
        Candidate("openvino", "bf16"),  # the likely winners first, while the budget lasts
        Candidate("onnx", "int8"),
        Candidate("openvino", "fp32"),
    ]
    assert Candidate("openvino", "fp16") in candidates(AMX, CAPS, onnx_fp32=True, onnx_int8=False)
    # OpenVINO must say so too: flags alone are not enough
    assert Candidate("openvino", "bf16") not in candidates(AMX, ("FP32",), onnx_fp32=True, onnx_int8=False)


def test_without_openvino_or_onnx_runtime():
    assert candidates(AMX, None, onnx_fp32=True, onnx_int8=True) == [
        Candidate("onnx", "fp32"),
        Candidate("onnx", "int8"),
    ]
    assert candidates(AMX, CAPS, onnx_fp32=False, onnx_int8=False)[0] == Candidate("openvino", "fp32")


def test_agreement_is_the_top1_share_and_the_largest_score_difference():
    ref = [[0.7, 0.2, 0.1], [0.1, 0.5, 0.4], [0.3, 0.3, 0.4]]
    assert agreement(ref, ref) == (1.0, 0.0, 0.0, 1.0)
    top1, worst, mean, _ = agreement(ref, [[0.69, 0.21, 0.1], [0.1, 0.44, 0.46], [0.3, 0.3, 0.4]])
    assert top1 == pytest.approx(2 / 3) and worst == pytest.approx(0.06) and mean == pytest.approx(0.14 / 9)
    with pytest.raises(ValueError):
        agreement(ref, ref[:2])


def test_projected_agreement_applies_the_samples_errors_to_its_margins():
    # no item flips, but two of the three errors are larger than one of the margins
    close = [[0.51, 0.49], [0.8, 0.2], [0.9, 0.1]]
    moved = [[0.51 - 0.015, 0.49 + 0.0], [0.8 - 0.015, 0.2 + 0.015], [0.9 - 0.015, 0.1 + 0.015]]
    top1, _, _, projected = agreement(close, moved)
    assert top1 == 1.0  # seen: nothing flipped
    # swings 0.015, 0.03, 0.03 against margins 0.02, 0.6, 0.8: two of nine pairings pass the margin
    assert projected == pytest.approx(1 - 2 / 9)
    assert projected_agreement(close, close) == 1.0
    assert projected_agreement([[1.0]], [[1.0]]) == 1.0  # one label: nothing to flip


def test_a_candidate_whose_projection_falls_short_is_refused():
    verdict = judge(Trial("openvino", "bf16", 190, 1.0, 0.02, 0.0012, projected_top1=0.9885))
    assert verdict.refused == "projected top-1 agreement 0.989 < 0.99 (its errors on the margins)"
    assert judge(Trial("openvino", "bf16", 190, 1.0, 0.02, 0.0012, projected_top1=0.995)).refused is None


def trial(runtime, precision, speed, top1=1.0, diff=0.0, mean=None, refused=None):
    return Trial(runtime, precision, speed, top1, diff, diff / 10 if mean is None else mean, refused)


def test_the_fastest_that_agrees_serves():
    ref = trial("onnx", "fp32", 40)
    trials = [ref, trial("openvino", "fp32", 55, diff=1e-5), trial("openvino", "bf16", 160, diff=0.004)]
    chosen, judged = choose(trials)
    assert chosen.candidate == Candidate("openvino", "bf16") and all(t.refused is None for t in judged)


def test_a_fast_candidate_that_disagrees_is_refused_and_says_why():
    trials = [
        trial("onnx", "fp32", 40),
        trial("openvino", "fp32", 38),
        trial("onnx", "int8", 90, top1=0.917, diff=0.2),  # e5's dynamic int8: fast, wrong
        trial("openvino", "bf16", 120, top1=1.0, diff=0.05, mean=0.012),  # right top labels, scores moved too far
    ]
    chosen, judged = choose(trials)
    assert chosen.candidate == Candidate("onnx", "fp32")
    assert judged[2].refused == "top-1 agreement 0.917 < 0.99"
    assert judged[3].refused == "scores off by 0.0120 on average > 0.01"
    line = summary(chosen, judged)
    assert "onnx fp32 40 texts/s" in line and "(chosen)" in line and "refused: top-1 agreement 0.917" in line


def test_the_bounds_are_inclusive_and_earlier_refusals_stay():
    assert judge(trial("openvino", "bf16", 1, top1=0.99, diff=0.02, mean=0.01)).refused is None  # bf16 on e5
    failed = trial("openvino", "bf16", 0, top1=0, refused="failed: no such op")
    assert judge(failed).refused == "failed: no such op"
    with pytest.raises(ValueError):
        choose([])


def test_a_trial_round_trips_through_its_record():
    t = trial("onnx", "int8", 90, top1=0.9, diff=0.1, refused="x")
    assert Trial.from_dict({**t.as_dict(), "chosen": False}) == t
