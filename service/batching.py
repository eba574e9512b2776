"""Token-budget batch planning and padding. Pure functions, no model, no framework.

A forward pass costs (rows x padded length); padding is paid in full on CPU and GPU alike. So the engine
sorts sequences by length and cuts consecutive runs whose padded size stays within a token budget:
short pairs travel in wide batches, long pairs in narrow ones.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class PaddedBatch:
    """One forward pass worth of rows, padded to the longest row of the batch."""

    input_ids: np.ndarray  # int64 [rows, length]
    attention_mask: np.ndarray  # int64 [rows, length]
    token_type_ids: np.ndarray | None  # int64 [rows, length], None for models without segments

    @property
    def rows(self) -> int:
        return int(self.input_ids.shape[0])

    @property
    def padded_tokens(self) -> int:
        return int(self.input_ids.shape[0] * self.input_ids.shape[1])


def plan_micro_batches(sorted_lengths: Sequence[int], token_budget: int, max_rows: int | None = None) -> list[range]:
    """Cut ascending lengths into consecutive ranges with ``rows * max_length <= token_budget``.

    A single sequence longer than the budget gets a batch of its own (it cannot be split and must
    still be answered); no other batch ever exceeds the budget.
    """
    if token_budget <= 0:
        raise ValueError("token_budget must be positive")
    if any(b < a for a, b in zip(sorted_lengths, sorted_lengths[1:])):
        raise ValueError("lengths must be sorted ascending")
    batches: list[range] = []
    start = 0
    n = len(sorted_lengths)
    while start < n:
        end = start + 1  # always take at least one row
        while end < n:
            rows = end + 1 - start
            if max_rows is not None and rows > max_rows:
                break
            # ascending order: the new row is the longest, so it sets the padded length
            if rows * sorted_lengths[end] > token_budget:
                break
            end += 1
        batches.append(range(start, end))
        start = end
    return batches


def pad(
    sequences: Sequence[Sequence[int]],
    type_ids: Sequence[Sequence[int]] | None,
    pad_id: int,
) -> PaddedBatch:
    """Right-pad token id lists into dense arrays (attention mask marks the real tokens)."""
    rows = len(sequences)
    length = max(len(s) for s in sequences)
    ids = np.full((rows, length), pad_id, dtype=np.int64)
    mask = np.zeros((rows, length), dtype=np.int64)
    types = np.zeros((rows, length), dtype=np.int64) if type_ids is not None else None
    for i, seq in enumerate(sequences):
        ids[i, : len(seq)] = seq
        mask[i, : len(seq)] = 1
        if types is not None:
            types[i, : len(seq)] = type_ids[i]
    return PaddedBatch(ids, mask, types)
