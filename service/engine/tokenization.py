"""Batched tokenization without padding: padding is done per micro-batch after length sorting."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from transformers import AutoTokenizer, PreTrainedTokenizerBase


@dataclass
class Encoded:
    ids: list[list[int]]
    type_ids: list[list[int]] | None


class Tokenizer:
    """A fast Hugging Face tokenizer behind the two calls the engine makes."""

    def __init__(self, hf: PreTrainedTokenizerBase, max_length: int) -> None:
        if hf.pad_token_id is None:
            # transformers' zero-shot pipeline does the same for tokenizers without a pad token
            hf.pad_token = hf.eos_token
        self._hf = hf
        # transformers sets the backend tokenizer's truncation state on every call: two threads calling at
        # once (the engine's, and a request's measuring a long text) could each run with the other's
        self._lock = threading.Lock()
        self.max_length = max_length
        self.pad_id = int(hf.pad_token_id)
        self.has_types = "token_type_ids" in hf.model_input_names
        self.tokens_per_char = _tokens_per_char(hf)

    @classmethod
    def load(cls, path: str | Path, max_length: int) -> Tokenizer:
        return cls(AutoTokenizer.from_pretrained(str(path), use_fast=True), max_length)

    def encode_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Encoded:
        """Premise truncated first (only_first), as transformers' zero-shot pipeline does."""
        try:
            out = self._call(list(premises), list(hypotheses), truncation="only_first")
        except Exception as exc:  # the hypothesis alone is longer than max_length
            if "too short" not in str(exc):
                raise
            # transformers falls back to no truncation for such pairs; do it pair by pair so one
            # odd pair does not change how the others are cut.
            ids, types = [], []
            for p, h in zip(premises, hypotheses):
                try:
                    one = self._call([p], [h], truncation="only_first")
                except Exception as inner:
                    if "too short" not in str(inner):
                        raise
                    one = self._call([p], [h], truncation=False)
                ids += one.ids
                types += one.type_ids or []
            return Encoded(ids, types if self.has_types else None)
        return out

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """The character span of each token of ``text`` alone (no special tokens, no truncation)."""
        with self._lock:
            enc = self._hf(text, add_special_tokens=False, truncation=False, return_offsets_mapping=True)
        return [tuple(span) for span in enc["offset_mapping"]]

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text alone (no special tokens)."""
        with self._lock:
            enc = self._hf(list(texts), add_special_tokens=False, truncation=False, return_attention_mask=False)
        return [len(ids) for ids in enc["input_ids"]]

    def specials(self, pair: bool) -> int:
        """Special tokens the model adds around one text, or around a (text, hypothesis) pair."""
        return int(self._hf.num_special_tokens_to_add(pair=pair))

    def encode_texts(self, texts: Sequence[str]) -> Encoded:
        return self._call(list(texts), None, truncation=True)

    def _call(self, first: list[str], second: list[str] | None, truncation) -> Encoded:
        with self._lock:
            return self._call_locked(first, second, truncation)

    def _call_locked(self, first: list[str], second: list[str] | None, truncation) -> Encoded:
        enc = self._hf(
            first,
            second,
            truncation=truncation,
            max_length=self.max_length if truncation else None,
            padding=False,
            return_attention_mask=False,
            return_token_type_ids=self.has_types,
        )
        return Encoded(enc["input_ids"], enc["token_type_ids"] if self.has_types else None)


def _tokens_per_char(hf: PreTrainedTokenizerBase) -> int:
    """At most how many tokens one character becomes, by tokenizer model: WordPiece and WordLevel one
    (a character is a piece or [UNK]), Unigram two (a word-start marker and a piece), byte-level BPE four
    (the UTF-8 bytes of one character). Unknown kinds: four."""
    backend = getattr(hf, "backend_tokenizer", None)
    kind = type(backend.model).__name__ if backend is not None else ""
    if kind in ("WordPiece", "WordLevel"):
        return 1
    if kind == "Unigram":
        return 2
    return 4
