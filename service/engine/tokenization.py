"""Batched tokenization without padding: padding is done per micro-batch after length sorting.

The engine calls Hugging Face's Rust tokenizer (``tokenizers``) directly, as transformers' fast tokenizers do
underneath. transformers resolves three facts the Rust tokenizer does not hold (the pad token's id, whether
the model reads segment ids, which side truncation cuts): the importer records them next to
``tokenizer.json`` (``SERVING_FACTS``), so a replica serves without importing transformers, which costs a
process seconds at start (it imports torch and scikit-learn where they are installed). A folder without that
record (a model imported before it existed, a checkpoint used in place) is read through transformers, once.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tokenizers import Tokenizer as RustTokenizer

SERVING_FACTS = "tokenizer_serving.json"


@dataclass
class Encoded:
    ids: list[list[int]]
    type_ids: list[list[int]] | None


@dataclass(frozen=True)
class TokenizerFacts:
    """What transformers resolves from a tokenizer's files beyond ``tokenizer.json``."""

    pad_id: int
    token_type_ids: bool  # the model reads segment ids ("token_type_ids" in the tokenizer's model_input_names)
    truncation_side: str = "right"

    @classmethod
    def of(cls, hf: Any) -> TokenizerFacts:
        """From a loaded transformers fast tokenizer; without a pad token, its end-of-sequence token, as
        transformers' zero-shot pipeline does."""
        pad = hf.pad_token_id if hf.pad_token_id is not None else hf.convert_tokens_to_ids(hf.eos_token)
        return cls(int(pad), "token_type_ids" in hf.model_input_names, hf.truncation_side)


def write_serving_facts(path: str | Path) -> TokenizerFacts:
    """Record, for the tokenizer in ``path``, what serving needs beside ``tokenizer.json`` (the importer calls
    this). ``tokenizer.json`` is rewritten from the tokenizer transformers built when that differs from the
    file (tokens transformers added from ``tokenizer_config.json``), so the file alone reproduces it."""
    path = Path(path)
    hf = _transformers_tokenizer(path)
    built = hf.backend_tokenizer
    if built.to_str() != RustTokenizer.from_file(str(path / "tokenizer.json")).to_str():
        built.save(str(path / "tokenizer.json"))
    facts = TokenizerFacts.of(hf)
    (path / SERVING_FACTS).write_text(json.dumps(asdict(facts), indent=2) + "\n")
    return facts


class Tokenizer:
    """A fast Hugging Face tokenizer behind the calls the engine makes, with transformers' call semantics
    (``truncation=True`` is longest-first, pairs cut the premise only, special tokens added unless asked not
    to). One configured copy per kind of call: nothing is reconfigured while serving, so threads (the
    engine's, a request's measuring a long text) share them without a lock.

    A copy costs a parse of the tokenizer's JSON (about a second for multilingual-e5's 250k pieces on one
    core, most of a replica's start): ``backend`` itself becomes the untruncated one, the texts' copy is made
    at once, the pairs' copy (NLI models only) on first use."""

    def __init__(
        self,
        backend: RustTokenizer,
        max_length: int,
        facts: TokenizerFacts,
        another: Callable[[], RustTokenizer] | None = None,
    ) -> None:
        """``backend`` is this object's own from here (configured in place); ``another()`` makes a fresh
        copy of it (default: through its JSON)."""
        self.max_length = max_length
        self.pad_id = facts.pad_id
        self.has_types = facts.token_type_ids
        self.tokens_per_char = _tokens_per_char(backend)
        self._side = facts.truncation_side
        self._another = another or (lambda text=backend.to_str(): RustTokenizer.from_str(text))
        self._whole = _configure(backend, None, None, self._side)
        self._texts = _configure(self._another(), max_length, "longest_first", self._side)
        self._pairs_copy: RustTokenizer | None = None
        self._pairs_made = threading.Lock()

    @classmethod
    def load(cls, path: str | Path, max_length: int) -> Tokenizer:
        path = Path(path)
        facts_file, tokenizer_file = path / SERVING_FACTS, path / "tokenizer.json"
        if facts_file.is_file() and tokenizer_file.is_file():
            facts = TokenizerFacts(**json.loads(facts_file.read_text()))
            read = lambda: RustTokenizer.from_file(str(tokenizer_file))  # noqa: E731
            return cls(read(), max_length, facts, read)
        hf = _transformers_tokenizer(path)
        return cls(hf.backend_tokenizer, max_length, TokenizerFacts.of(hf))

    @property
    def _pairs(self) -> RustTokenizer:
        if self._pairs_copy is None:
            with self._pairs_made:
                if self._pairs_copy is None:
                    self._pairs_copy = _configure(self._another(), self.max_length, "only_first", self._side)
        return self._pairs_copy

    def encode_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> Encoded:
        """Premise truncated first (only_first), as transformers' zero-shot pipeline does."""
        pairs = list(zip(premises, hypotheses))
        try:
            return self._encode(self._pairs, pairs)
        except Exception as exc:  # the hypothesis alone is longer than max_length
            if "too short" not in str(exc):
                raise
            # transformers falls back to no truncation for such pairs; do it pair by pair so one
            # odd pair does not change how the others are cut.
            ids, types = [], []
            for pair in pairs:
                try:
                    one = self._encode(self._pairs, [pair])
                except Exception as inner:
                    if "too short" not in str(inner):
                        raise
                    one = self._encode(self._whole, [pair])
                ids += one.ids
                types += one.type_ids or []
            return Encoded(ids, types if self.has_types else None)

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """The character span of each token of ``text`` alone (no special tokens, no truncation)."""
        [enc] = self._whole.encode_batch([text], add_special_tokens=False)
        return [tuple(span) for span in enc.offsets]

    def counts(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text alone (no special tokens)."""
        return [len(enc.ids) for enc in self._whole.encode_batch(list(texts), add_special_tokens=False)]

    def specials(self, pair: bool) -> int:
        """Special tokens the model adds around one text, or around a (text, hypothesis) pair."""
        return int(self._whole.num_special_tokens_to_add(pair))

    def encode_texts(self, texts: Sequence[str]) -> Encoded:
        return self._encode(self._texts, list(texts))

    def _encode(self, backend: RustTokenizer, inputs: list) -> Encoded:
        encodings = backend.encode_batch(inputs)
        return Encoded([e.ids for e in encodings], [e.type_ids for e in encodings] if self.has_types else None)


def _configure(backend: RustTokenizer, max_length: int | None, strategy: str | None, side: str) -> RustTokenizer:
    """``backend``, set to truncate so (or not at all, ``max_length`` None) and never to pad."""
    backend.no_padding()
    if max_length is None:
        backend.no_truncation()
    else:
        backend.enable_truncation(max_length, stride=0, strategy=strategy, direction=side)
    return backend


def _transformers_tokenizer(path: Path):
    from transformers import AutoTokenizer  # only for a folder without SERVING_FACTS, and at import

    return AutoTokenizer.from_pretrained(str(path), use_fast=True)


def _tokens_per_char(backend: RustTokenizer) -> int:
    """At most how many tokens one character becomes, by tokenizer model: WordPiece and WordLevel one
    (a character is a piece or [UNK]), Unigram two (a word-start marker and a piece), byte-level BPE four
    (the UTF-8 bytes of one character). Unknown kinds: four."""
    kind = type(backend.model).__name__
    if kind in ("WordPiece", "WordLevel"):
        return 1
    if kind == "Unigram":
        return 2
    return 4
