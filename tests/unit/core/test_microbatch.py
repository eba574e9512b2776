import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from service.core.microbatch import pad, plan_micro_batches


@given(
    lengths=st.lists(st.integers(1, 600), min_size=1, max_size=300),
    budget=st.integers(16, 4096),
    max_rows=st.one_of(st.none(), st.integers(1, 64)),
)
def test_budget_never_exceeded_except_single_oversized_rows(lengths, budget, max_rows):
    lengths = sorted(lengths)
    plan = plan_micro_batches(lengths, budget, max_rows)
    # every row planned exactly once, in order
    assert [i for r in plan for i in r] == list(range(len(lengths)))
    for r in plan:
        padded = len(r) * max(lengths[i] for i in r)
        if padded > budget:
            assert len(r) == 1, "only a single row longer than the budget may pass it"
        if max_rows is not None:
            assert len(r) <= max_rows


def test_batches_are_as_wide_as_the_budget_allows():
    plan = plan_micro_batches([10] * 10 + [50] * 4, token_budget=100)
    assert [len(r) for r in plan] == [10, 2, 2]


def test_a_long_straggler_does_not_pad_a_batch_of_short_rows():
    # one batch would compute 4 x 100 = 400 tokens; two compute 3 x 10 + 1 x 100 (+ one call's overhead)
    plan = plan_micro_batches([10, 10, 10, 100], token_budget=1000, overhead_tokens=64)
    assert [list(r) for r in plan] == [[0, 1, 2], [3]]


def test_high_overhead_merges_everything_the_budget_allows():
    plan = plan_micro_batches([10, 10, 10, 100], token_budget=1000, overhead_tokens=10_000)
    assert [list(r) for r in plan] == [[0, 1, 2, 3]]


@given(lengths=st.lists(st.integers(1, 200), min_size=1, max_size=120), budget=st.integers(200, 2000))
def test_plan_never_costs_more_than_the_greedy_plan(lengths, budget):
    lengths = sorted(lengths)

    def cost(plan):
        return sum(len(r) * lengths[r.stop - 1] + 64 for r in plan)

    greedy, start = [], 0  # widest batches the budget allows, left to right
    while start < len(lengths):
        end = start + 1
        while end < len(lengths) and (end + 1 - start) * lengths[end] <= budget:
            end += 1
        greedy.append(range(start, end))
        start = end
    assert cost(plan_micro_batches(lengths, budget, overhead_tokens=64)) <= cost(greedy)


def test_oversized_single_sequence_gets_its_own_batch():
    plan = plan_micro_batches([5, 5, 900], token_budget=64)
    assert [list(r) for r in plan] == [[0, 1], [2]]


def test_unsorted_lengths_are_refused():
    with pytest.raises(ValueError, match="sorted"):
        plan_micro_batches([3, 1], 10)


def test_pad_right_pads_and_masks():
    batch = pad([[5, 6, 7], [8]], [[0, 1, 1], [0]], pad_id=0)
    assert batch.input_ids.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert batch.attention_mask.tolist() == [[1, 1, 1], [1, 0, 0]]
    assert batch.token_type_ids.tolist() == [[0, 1, 1], [0, 0, 0]]
    assert batch.input_ids.dtype == np.int64
    assert pad([[1, 2]], None, 0).token_type_ids is None
