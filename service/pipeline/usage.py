"""Tokens a call's model sequences are, as the engine fed them to the model: what an OpenAI-shaped answer
reports as its usage (``POST /v1/decisions``).

A call reads every distinct sequence it needs once: an embedding model each window of the text and each
hypothesis (with the model's prefixes), an NLI model each (window, hypothesis) pair. Of those, the ones
whose rows came from the cache tiers (or a remembered label side) are ``cached``; the rest were computed by
this call. The counts are the engine's own, measured when it tokenized each sequence and kept with its row
(``pipeline.scorer``): nothing is tokenized again here.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from service.core.task import Seq


@dataclass(frozen=True)
class TokenUsage:
    read: int  # tokens of every distinct sequence the call needed
    cached: int  # of them, the tokens of sequences whose rows came from the cache

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.read + other.read, self.cached + other.cached)

    @classmethod
    def of(cls, tasks: Iterable[tuple[dict[Seq, int], frozenset[Seq]]]) -> TokenUsage:
        """From each task's sequences' tokens and those it computed: every distinct sequence once."""
        tokens: dict[Seq, int] = {}
        fresh: set[Seq] = set()
        for counted, computed in tasks:
            tokens.update(counted)
            fresh |= computed
        return cls(sum(tokens.values()), sum(n for seq, n in tokens.items() if seq not in fresh))
