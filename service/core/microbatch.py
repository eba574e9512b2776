"""Token-budget batch planning and padding. Pure functions, no model, no framework.

A forward pass costs (rows x padded length); padding is paid in full on CPU and GPU alike. So the engine
sorts sequences by length and cuts consecutive runs whose padded size stays within a token budget, choosing
the cuts that waste the least padding for the number of forward calls they make: short pairs travel in
wide batches, long pairs in narrow ones.
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


def plan_micro_batches(
    sorted_lengths: Sequence[int],
    token_budget: int,
    max_rows: int | None = None,
    overhead_tokens: int = 64,
) -> list[range]:
    """Cut ascending lengths into consecutive ranges that minimise padded tokens + a fixed cost per batch.

    Cost of a batch = rows x its longest length (what the forward pass computes, padding included)
    + ``overhead_tokens`` (the fixed price of one forward call, in token equivalents). Constraints:
    ``rows * longest <= token_budget`` and ``rows <= max_rows``; a single sequence longer than the budget
    gets a batch of its own (it cannot be split and must still be answered).

    Dynamic programming over cut points, vectorised per end point: O(n x widest batch) numpy work.
    """
    if token_budget <= 0:
        raise ValueError("token_budget must be positive")
    lengths = np.asarray(sorted_lengths, dtype=np.int64)
    n = len(lengths)
    if n and np.any(np.diff(lengths) < 0):
        raise ValueError("lengths must be sorted ascending")
    best = np.zeros(n + 1, dtype=np.float64)  # best[j] = cheapest plan for the first j sequences
    cut = np.zeros(n + 1, dtype=np.int64)  # cut[j] = start of the last batch in that plan
    for j in range(1, n + 1):
        longest = int(lengths[j - 1])
        widest = max(1, token_budget // longest)  # rows allowed at this padded length
        if max_rows is not None:
            widest = min(widest, max_rows)
        lo = max(0, j - widest)
        starts = np.arange(lo, j)
        costs = best[lo:j] + (j - starts) * longest + overhead_tokens
        k = int(np.argmin(costs))
        best[j] = costs[k]
        cut[j] = lo + k
    batches: list[range] = []
    j = n
    while j > 0:
        batches.append(range(int(cut[j]), j))
        j = int(cut[j])
    return batches[::-1]


def pad(
    sequences: Sequence[Sequence[int]],
    type_ids: Sequence[Sequence[int]] | None,
    pad_id: int,
    multiple: int = 1,
) -> PaddedBatch:
    """Right-pad token id lists into dense arrays (attention mask marks the real tokens), to a length that is
    a multiple of ``multiple`` (8 on a GPU: fp16 tensor-core kernels want dimensions in multiples of 8)."""
    rows = len(sequences)
    length = -(-max(len(s) for s in sequences) // multiple) * multiple
    ids = np.full((rows, length), pad_id, dtype=np.int64)
    mask = np.zeros((rows, length), dtype=np.int64)
    types = np.zeros((rows, length), dtype=np.int64) if type_ids is not None else None
    for i, seq in enumerate(sequences):
        ids[i, : len(seq)] = seq
        mask[i, : len(seq)] = 1
        if types is not None:
            types[i, : len(seq)] = type_ids[i]
    return PaddedBatch(ids, mask, types)
