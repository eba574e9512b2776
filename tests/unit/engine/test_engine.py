"""The engine with a real (tiny, random) BERT and the real tokenizer: planning, dedupe, order, failures."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from service.backends import load_backend
from service.core.microbatch import PaddedBatch
from service.core.task import Task, sequences_for
from service.engine.engine import Engine
from service.engine.tokenization import Tokenizer
from tests.support.tiny_models import NLI_SPEC as SPEC
from tests.support.tiny_models import WORDS, write_hf_nli


@pytest.fixture(scope="module")
def parts(tmp_path_factory):
    path = tmp_path_factory.mktemp("tiny_hf")
    write_hf_nli(path)
    return Tokenizer.load(path, SPEC.max_length), load_backend(path, SPEC, "torch", "cpu", 1)


def make_engine(parts, budget=256, max_rows=None):
    tokenizer, backend = parts
    return Engine(SPEC, tokenizer, backend, token_budget=budget, max_rows=max_rows)


def random_tasks(n, seed=0):
    rng = random.Random(seed)
    tasks = []
    for _ in range(n):
        text = " ".join(rng.choices(WORDS, k=rng.randint(1, 40)))
        labels = tuple(rng.sample(WORDS, rng.randint(1, 6)))
        tasks.append(Task.of(text, labels, SPEC.default_template, rng.random() < 0.3))
    return tasks


def encode_tasks(engine, tasks):
    """What the batcher hands the engine for these tasks: their sequences, merged."""
    return engine.encode([s for t in tasks for s in sequences_for(SPEC, t)])


def test_token_budget_is_never_exceeded(parts):
    engine = make_engine(parts, budget=200)
    _, stats = encode_tasks(engine, random_tasks(40))
    assert stats.micro_batches > 1
    for rows, length in stats.batch_shapes:
        assert rows * length <= 200 or rows == 1
    assert stats.budget_overflows == 0


def test_results_come_back_in_request_order_and_match_solo_runs(parts):
    engine = make_engine(parts, budget=300)
    tasks = random_tasks(25, seed=1)
    together = engine.scores(tasks)
    for task, scores in zip(tasks, together):
        [alone] = engine.scores([task])
        np.testing.assert_allclose(scores, alone, atol=1e-6)
        assert len(scores) == len(task.hypotheses)


def test_identical_pairs_are_computed_once(parts):
    engine = make_engine(parts)
    task = Task.of("my card was charged twice", ("billing", "shipping"), SPEC.default_template)
    other = Task.of("my card was charged twice", ("billing", "praise"), SPEC.default_template, multi_label=True)
    rows, stats = encode_tasks(engine, [task, task, other])
    assert stats.sequences_in == 6
    assert stats.sequences == 3  # billing, shipping, praise
    np.testing.assert_array_equal(rows[0:2], rows[2:4])
    np.testing.assert_array_equal(rows[0], rows[4])


def test_oversized_single_pair_is_answered_alone(parts):
    engine = make_engine(parts, budget=32)
    long_text = " ".join(["refund"] * 300)
    rows, stats = encode_tasks(
        engine, [Task.of(long_text, ("billing",), SPEC.default_template), Task.of("ok", ("a",), SPEC.default_template)]
    )
    assert rows.shape[0] == 2 and np.isfinite(rows).all()
    assert stats.budget_overflows == 1
    assert (1, 128) in stats.batch_shapes  # truncated to max_length, alone in its batch


def test_max_rows_caps_batch_width(parts):
    engine = make_engine(parts, budget=10_000, max_rows=4)
    _, stats = encode_tasks(engine, random_tasks(10, seed=2))
    assert max(rows for rows, _ in stats.batch_shapes) <= 4


class FailingBackend:
    name, device = "failing", "cpu"

    def __init__(self, fail_on_call: int) -> None:
        self.calls = 0
        self.fail_on_call = fail_on_call

    def forward(self, batch: PaddedBatch) -> np.ndarray:
        self.calls += 1
        if self.calls >= self.fail_on_call:
            raise RuntimeError("CUDA out of memory (simulated)")
        return np.zeros((batch.rows, 3), dtype=np.float32)


def test_backend_failure_fails_the_whole_call(parts):
    """A failure in any micro-batch fails the engine call: the batcher then fails every request of it."""
    tokenizer, _ = parts
    engine = Engine(SPEC, tokenizer, FailingBackend(fail_on_call=2), token_budget=64)
    with pytest.raises(RuntimeError, match="simulated"):
        encode_tasks(engine, random_tasks(12, seed=3))


def test_backend_returning_wrong_row_count_is_an_error(parts):
    tokenizer, _ = parts

    class Short:
        name, device = "short", "cpu"

        def forward(self, batch):
            return np.zeros((batch.rows - 1, 3), dtype=np.float32)

    with pytest.raises(RuntimeError, match=r"returned \d+ rows for \d+"):
        Engine(SPEC, tokenizer, Short(), 512).scores(random_tasks(1))


def test_no_tasks_no_work():
    assert Engine(SPEC, None, None, 10).scores([]) == []


def test_an_asynchronous_backend_gets_the_next_micro_batch_before_the_current_one_is_collected(parts):
    """With a backend that has ``start`` (CUDA), micro-batch k+1 is queued before k's rows are waited for."""
    tokenizer, real = parts
    log = []

    class Queued:
        name, device = "queued", "cpu"

        def forward(self, batch):
            return real.forward(batch)

        def start(self, batch):
            k = sum(1 for e in log if e[0] == "start")
            log.append(("start", k))
            rows = real.forward(batch)

            class Pending:
                def result(self):
                    log.append(("result", k))
                    return rows

            return Pending()

    tasks = random_tasks(30, seed=4)
    expected = make_engine(parts, budget=200).scores(tasks)
    got = Engine(SPEC, tokenizer, Queued(), token_budget=200).scores(tasks)
    np.testing.assert_allclose(np.concatenate(got), np.concatenate(expected), atol=1e-6)
    starts = [k for kind, k in log if kind == "start"]
    assert len(starts) > 2
    for k in starts[1:]:
        assert log.index(("start", k)) < log.index(("result", k - 1))


@st.composite
def engine_tasks(draw) -> list[Task]:
    """Any list of valid tasks: texts of any words (and characters the vocabulary lacks), 1-6 labels of 1-3
    phrasings, 1-3 windows, single- or multi-label."""
    word = st.sampled_from(WORDS) | st.text(min_size=1, max_size=6)
    out = []
    for _ in range(draw(st.integers(1, 6))):
        windows = tuple(" ".join(draw(st.lists(word, min_size=1, max_size=30))) for _ in range(draw(st.integers(1, 3))))
        labels = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=6, unique=True))
        hypotheses = tuple(
            tuple(f"This example is {label}{'!' * k}." for k in range(draw(st.integers(1, 3)))) for label in labels
        )
        out.append(Task(windows, hypotheses, draw(st.booleans()), draw(st.sampled_from(["max", "mean"]))))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tasks=engine_tasks())
def test_any_valid_tasks_get_probabilities_in_order(parts, tasks):
    engine = make_engine(parts, budget=256)
    together = engine.scores(tasks)
    assert len(together) == len(tasks)
    for task, scores in zip(tasks, together):
        assert len(scores) == len(task.hypotheses)
        assert all(0.0 <= s <= 1.0 for s in scores), scores
        if not task.pairwise:
            assert sum(scores) == pytest.approx(1.0, abs=1e-6)
    last = tasks[-1]  # the order: the last task alone gets what it got among the others
    np.testing.assert_allclose(engine.scores([last])[0], together[-1], atol=1e-5)
