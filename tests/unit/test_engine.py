"""The engine with a real (tiny, random) BERT and the real tokenizer: planning, dedupe, order, failures."""

from __future__ import annotations

import random

import numpy as np
import pytest

from service.backends import load_backend
from service.batching import PaddedBatch
from service.engine import Engine, Task
from service.model_spec import ModelSpec
from service.tokenization import Tokenizer
from tests.support.tiny_models import WORDS, write_hf_nli

SPEC = ModelSpec(
    kind="nli",
    default_template="This example is {}.",
    max_length=128,
    source="test",
    revision="r1",
    entailment_index=2,
    contradiction_index=0,
)


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
        tasks.append(Task(text, labels, SPEC.default_template, rng.random() < 0.3))
    return tasks


def test_token_budget_is_never_exceeded(parts):
    engine = make_engine(parts, budget=200)
    outcomes, stats = engine.run(random_tasks(40))
    assert all(o.error is None for o in outcomes)
    assert stats.micro_batches > 1
    for rows, length in stats.batch_shapes:
        assert rows * length <= 200 or rows == 1
    assert stats.budget_overflows == 0


def test_results_come_back_in_request_order_and_match_solo_runs(parts):
    engine = make_engine(parts, budget=300)
    tasks = random_tasks(25, seed=1)
    together, _ = engine.run(tasks)
    for task, outcome in zip(tasks, together):
        [alone], _ = engine.run([task])
        np.testing.assert_allclose(outcome.scores, alone.scores, atol=1e-6)
        assert len(outcome.scores) == len(task.labels)


def test_identical_pairs_are_computed_once(parts):
    engine = make_engine(parts)
    task = Task("my card was charged twice", ("billing", "shipping"), SPEC.default_template)
    other = Task("my card was charged twice", ("billing", "praise"), SPEC.default_template, multi_label=True)
    outcomes, stats = engine.run([task, task, other])
    assert stats.sequences_in == 6
    assert stats.sequences == 3  # billing, shipping, praise
    assert outcomes[0].scores == outcomes[1].scores


def test_oversized_single_pair_is_answered_alone(parts):
    engine = make_engine(parts, budget=32)
    long_text = " ".join(["refund"] * 300)
    outcomes, stats = engine.run(
        [Task(long_text, ("billing",), SPEC.default_template), Task("ok", ("a",), SPEC.default_template)]
    )
    assert all(o.error is None for o in outcomes)
    assert stats.budget_overflows == 1
    assert (1, 128) in stats.batch_shapes  # truncated to max_length, alone in its batch


def test_max_rows_caps_batch_width(parts):
    engine = make_engine(parts, budget=10_000, max_rows=4)
    _, stats = engine.run(random_tasks(10, seed=2))
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


def test_backend_failure_reaches_every_request_of_the_batch(parts):
    tokenizer, _ = parts
    engine = Engine(SPEC, tokenizer, FailingBackend(fail_on_call=2), token_budget=64)
    outcomes, _ = engine.run(random_tasks(12, seed=3))
    assert len(outcomes) == 12
    assert all(isinstance(o.error, RuntimeError) and o.scores is None for o in outcomes)


def test_backend_returning_wrong_row_count_is_an_error(parts):
    tokenizer, _ = parts

    class Short:
        name, device = "short", "cpu"

        def forward(self, batch):
            return np.zeros((batch.rows - 1, 3), dtype=np.float32)

    outcomes, _ = Engine(SPEC, tokenizer, Short(), 512).run(random_tasks(3))
    assert all("returned" in str(o.error) for o in outcomes)


def test_empty_batch():
    assert Engine(SPEC, None, None, 10).run([])[0] == []
