"""Tokens a call's model sequences are, as the engine feeds them to the model: what an OpenAI-shaped answer
reports as its usage (``POST /v1/decisions``).

A call reads every distinct sequence it needs once: an embedding model each window of the text and each
hypothesis (with the model's prefixes), an NLI model each (window, hypothesis) pair; counted by the model's
tokenizer with its special tokens and cut to the model's window, as the engine cuts them. Of those, the
ones whose rows came from the cache tiers (or a remembered label side) are ``cached``; the rest were
computed by this call. Counting costs a tokenizer call, so the lengths of recent short sequences are
remembered: a question's hypotheses come again and again, and only the text is new.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from service.core.task import Seq
from service.engine.tokenization import Tokenizer


@dataclass(frozen=True)
class TokenUsage:
    read: int  # tokens of every distinct sequence the call needed
    cached: int  # of them, the tokens of sequences whose rows came from the cache

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(self.read + other.read, self.cached + other.cached)


REMEMBERED_CHARS = 1024  # longer strings (texts, NLI pairs with their text) are counted every time
QUICK_CHARS = 2048  # counted on the event loop up to this many new characters (a tokenizer call of ~0.1 ms)


class SequenceLengths:
    """One model's token counts of its sequences, the most recent ``entries`` short ones remembered (LRU)."""

    def __init__(self, tokenizer: Tokenizer, pairs: bool, entries: int = 4096) -> None:
        self.tokenizer = tokenizer
        self.pairs = pairs  # an NLI model reads (text, hypothesis) pairs; an embedding model one string each
        self.entries = entries
        self._known: OrderedDict[Seq, int] = OrderedDict()
        self._lock = threading.Lock()  # calls come from worker threads, several at once

    def quick(self, sequences: Sequence[Seq]) -> bool:
        """Whether counting ``sequences`` is cheap enough for the event loop: what is not remembered is at
        most ``QUICK_CHARS`` characters in all."""
        return sum(len(a) + len(b or "") for a, b in sequences if (a, b) not in self._known) <= QUICK_CHARS

    def lengths(self, sequences: Sequence[Seq]) -> list[int]:
        """Tokens of each sequence, special tokens included and cut to the window (as the engine cuts them).
        Blocking (the tokenizer): call it from a worker thread."""
        with self._lock:
            return self._lengths(sequences)

    def _lengths(self, sequences: Sequence[Seq]) -> list[int]:
        missing = list(dict.fromkeys(s for s in sequences if s not in self._known))
        counted: dict[Seq, int] = {}
        if missing:
            if self.pairs:
                enc = self.tokenizer.encode_pairs([a for a, _ in missing], [b or "" for _, b in missing])
            else:
                enc = self.tokenizer.encode_texts([a for a, _ in missing])
            counted = {seq: len(ids) for seq, ids in zip(missing, enc.ids)}
        out = []
        for seq in sequences:
            if seq in counted:
                out.append(counted[seq])
                if len(seq[0]) + len(seq[1] or "") <= REMEMBERED_CHARS:
                    self._known[seq] = counted[seq]
            else:
                out.append(self._known[seq])
                self._known.move_to_end(seq)
        while len(self._known) > self.entries:
            self._known.popitem(last=False)
        return out

    def usage(self, read: Iterable[Seq], fresh: set[Seq] | frozenset[Seq]) -> TokenUsage:
        """``read``: the call's sequences (each once); ``fresh``: those it computed (not from the cache)."""
        read = list(dict.fromkeys(read))
        counts = self.lengths(read)
        return TokenUsage(sum(counts), sum(n for seq, n in zip(read, counts) if seq not in fresh))
