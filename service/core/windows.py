"""Texts longer than the model's window: measure them, cut them, or split them into overlapping windows.

Works on character spans taken from the tokenizer's offsets, so what goes on is text (the engine, the
cache and the batcher see ordinary texts). Pure apart from the tokenizer it is given.

``room`` is the number of text tokens that fit beside the hypothesis: the model's ``max_length`` minus
the special tokens and the longest hypothesis (NLI), or minus the special tokens and the text prefix
(embeddings). A text of more tokens than that is cut by the engine (``end``: its end goes; the pipeline's
behaviour), or here: ``start`` keeps its end, ``chunk`` covers all of it with windows of ``room`` tokens
that overlap by a quarter, ``error`` refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

OVERLAP = 0.25  # share of a window repeated in the next one, so a sentence cut at a border is whole in one
MARGIN = 2  # tokens kept free: a window re-tokenized on its own may come out a token or two longer


@dataclass(frozen=True)
class Windows:
    texts: tuple[str, ...]  # the text, cut or split, as the model will see it
    tokens: int  # tokens of the whole text
    truncated: bool  # part of the text is not seen by the model


class TooLong(ValueError):
    """A text over the window with truncation "error", or needing more windows than allowed."""


Offsets = Callable[[str], list[tuple[int, int]]]  # text -> (start, end) character span of each token


def cannot_exceed(text: str, room: int, per_char: int = 4) -> bool:
    """True when the text is certainly within ``room`` tokens without tokenizing it, a character being at
    most ``per_char`` tokens (``Tokenizer.tokens_per_char``): short texts, most traffic, are never tokenized
    here."""
    return per_char * len(text) + 2 <= room


def fit(text: str, room: int, mode: str, offsets: Offsets, max_windows: int, per_char: int = 4) -> Windows:
    """The text as the model will see it under truncation ``mode`` (end, start, error, chunk)."""
    if cannot_exceed(text, room, per_char):
        return Windows((text,), -1, False)
    spans = offsets(text)
    n = len(spans)
    if n <= room:
        return Windows((text,), n, False)
    if mode == "end":  # the engine's tokenizer cuts the end, as the pipelines do
        return Windows((text,), n, True)
    if mode == "error":
        raise TooLong(
            f"the text is {n} tokens; this model sees at most {room} beside the hypothesis: shorten it, or "
            'send truncation "end", "start" or "chunk"'
        )
    if room - MARGIN < 1:  # a hypothesis as long as the window: no room left for any of the text
        raise TooLong(
            f"a label's phrasing leaves {max(room, 0)} of the model's tokens for the text: shorten the phrasing"
        )
    if mode == "start":
        keep = room - MARGIN
        return Windows((text[spans[n - keep][0] :],), n, True)
    size = room - MARGIN
    step = max(1, int(size * (1 - OVERLAP)))
    starts = list(range(0, max(1, n - size) + step, step))
    starts = [s for s in starts if s < n - size] + [max(0, n - size)]  # the last window ends at the text's end
    if len(starts) > max_windows:
        raise TooLong(
            f"the text is {n} tokens: chunking it takes {len(starts)} windows of {size}; the limit is "
            f'{max_windows} (ZSC_MAX_WINDOWS): shorten the text or send truncation "end" or "start"'
        )
    texts = tuple(text[spans[s][0] : spans[min(s + size, n) - 1][1]] for s in starts)
    return Windows(texts, n, False)
