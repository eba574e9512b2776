"""Calibration through built components (the bundled English encoder, no server): which correction a
request's scores get, that it is the core maths' on the raw evidence, and what the answer says of it.

The raw evidence is read back from an uncalibrated answer: single-label scores are a softmax, so their logs
are the evidence up to a constant per text, which the centred offsets ignore."""

from __future__ import annotations

import asyncio
import json

import numpy as np
import pytest
from pydantic import ValidationError

from service.api.classify import ClassifyRequest
from service.build import build, calibration_config
from service.core.calibration import LabelStats, fit_after, merge, observe, offsets
from service.engine.batch_queue import batch_queue
from service.jobs import intake
from service.jobs.items import to_store
from service.pipeline.call import Sender
from tests.support.calls import call
from tests.unit.conftest import MINILM

LABELS = ["billing", "shipping", "praise", "a question"]
TEXTS = [
    "My card was charged twice for one order",
    "Where is my parcel? It has been a week",
    "Thank you, the support team was wonderful",
    "Can I change the delivery address?",
    "The invoice shows the wrong amount",
    "Great service, fast and friendly",
    "The courier left the box at the wrong door",
    "How do I get a refund for a cancelled order?",
]


def body(text: str, **fields) -> ClassifyRequest:
    return ClassifyRequest.model_validate({"text": text, "labels": LABELS, **fields})


def raw_of(answer) -> np.ndarray:
    """The raw evidence in request label order, up to a constant (from an uncalibrated single-label answer)."""
    by_name = dict(zip(answer.labels, answer.scores))
    return np.log([by_name[name] for name in LABELS])


def softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max())
    return e / e.sum()


def scores_of(answer, names=LABELS) -> np.ndarray:
    by_name = dict(zip(answer.labels, answer.scores))
    return np.array([by_name[name] for name in names])


@pytest.fixture
def built(settings_for):
    def make(**env):
        return build(settings_for(ZSC_CALIBRATION_MIN_TEXTS="5", **env), [MINILM], batch_queue)

    return make


def run(components, scenario):
    async def go():
        try:
            return await scenario(components)
        finally:
            await components.stop()

    return asyncio.run(go())


def test_traffic_corrects_with_what_came_before_once_it_has_seen_enough(built):
    async def scenario(c):
        raw, answers = [], []
        for text in TEXTS:
            [plain] = (await c.pipeline.classify(call([body(text)]))).results
            [calibrated] = (await c.pipeline.classify(call([body(text, calibration="traffic")]))).results
            raw.append(raw_of(plain))
            answers.append((plain, calibrated))
        return raw, answers

    raw, answers = run(built(), scenario)
    config = calibration_config(built().settings)
    stats = LabelStats.empty([str(j) for j in range(len(LABELS))])
    order = np.argsort(LABELS)  # a record's labels are the wordings sorted
    for i, (plain, calibrated) in enumerate(answers):
        assert plain.calibration.model_dump() == {"mode": "none", "calibrated": False, "texts": None}
        shift = offsets(stats, config)
        assert calibrated.calibration.texts == i and calibrated.calibration.calibrated == (shift is not None)
        assert (shift is not None) == (i >= 5)  # ZSC_CALIBRATION_MIN_TEXTS
        if shift is None:
            np.testing.assert_allclose(scores_of(calibrated), scores_of(plain), rtol=1e-9)
        else:
            by_request = np.empty(len(LABELS))
            by_request[order] = shift
            np.testing.assert_allclose(scores_of(calibrated), softmax(raw[i] - by_request), rtol=1e-6, atol=1e-12)
            assert calibrated.predicted == calibrated.labels[0]  # the decision keeps its rule, on these scores
        stats = merge(stats, observe(stats, raw[i][order][None, :], config), config.half_life)


def test_any_label_order_of_the_same_wordings_shares_one_record_and_none_records_nothing(built):
    async def scenario(c):
        for text in TEXTS[:3]:
            await c.pipeline.classify(call([body(text)]))  # none: not a sample
        assert not c.pipeline.traffic._records
        for i, text in enumerate(TEXTS[:6]):
            labels = LABELS if i % 2 else list(reversed(LABELS))
            request = ClassifyRequest.model_validate({"text": text, "labels": labels, "calibration": "traffic"})
            [answer] = (await c.pipeline.classify(call([request]))).results
        return answer, len(c.pipeline.traffic._records)

    answer, records = run(built(), scenario)
    assert records == 1 and answer.calibration.texts == 5 and answer.calibration.calibrated


def test_records_are_bounded(built):
    async def scenario(c):
        for i in range(5):
            labels = [f"topic {i}", "other", "sports"]
            await c.pipeline.classify(call([{"text": "x", "labels": labels, "calibration": "traffic"}]))
        return len(c.pipeline.traffic._records)

    assert run(built(ZSC_CALIBRATION_RECORDS="2"), scenario) == 2


def test_a_caller_sees_its_own_keys_records_and_the_shared_ones_never_another_keys(built, tmp_path):
    sets = tmp_path / "shared-sets"
    sets.mkdir()
    team = {"name": "team", "labels": LABELS, "hypothesis_template": "A message about {}.", "calibration": "traffic"}
    (sets / "team.yaml").write_text(json.dumps(team))

    async def scenario(c):
        for text in TEXTS:  # key one's ad hoc wordings, in its own scope; its set's (other wordings) there too
            await c.pipeline.classify(call([body(text, calibration="traffic")], sender=Sender("one", "10.0.0.1")))
        for text in TEXTS[:3]:
            await c.pipeline.classify(call([{"text": text, "label_set": "team"}], sender=Sender("one", "10.0.0.1")))
        for text in TEXTS[:6]:  # key two, other wordings
            request = {"text": text, "labels": ["refund", "delivery"], "calibration": "traffic"}
            await c.pipeline.classify(call([request], sender=Sender("two", "10.0.0.2")))
        return {k: (c.pipeline.calibration_scopes(k), await c.pipeline.label_set_calibration("team", k))
                for k in ("one", "two", None)}  # fmt: skip

    seen = run(built(ZSC_LABEL_SETS=str(sets)), scenario)
    [one], [two], nothing = (seen[k][0] for k in ("one", "two", None))
    assert one == {"scope": "key:one", "records": 2, "texts": len(TEXTS) + 3, "sources": 1, "largest_share": 1.0,
                   "held_back": 0}  # fmt: skip
    assert two["scope"] == "key:two" and two["records"] == 1 and two["texts"] == 6
    assert nothing == []  # keys off sees the shared scope only: nothing was learned there
    team = {k: seen[k][1] for k in seen}
    assert team["one"]["texts"] == 3 and team["one"]["scopes"] == [{**one, "records": 1, "texts": 3}]
    assert team["two"]["texts"] == 0 and team["two"]["scopes"] == []  # key one's record of the set is not key two's
    assert team[None]["texts"] == 0 and team[None]["scopes"] == []


def test_multi_label_offsets_are_centred_so_thresholds_keep_their_meaning(built):
    """The mean logit over the labels is the model's: a threshold lets as many labels through on average."""

    async def scenario(c):
        out = []
        for text in TEXTS * 2:
            [plain] = (await c.pipeline.classify(call([body(text, multi_label=True)]))).results
            [calibrated] = (
                await c.pipeline.classify(call([body(text, multi_label=True, calibration="traffic")]))
            ).results
            out.append((plain, calibrated))
        return out

    pairs = run(built(), scenario)
    logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    corrected = [(p, c) for p, c in pairs if c.calibration.calibrated]
    assert len(corrected) == len(pairs) - 5
    for plain, calibrated in corrected:
        assert logit(scores_of(calibrated)).mean() == pytest.approx(logit(scores_of(plain)).mean(), abs=1e-6)
        assert calibrated.predicted == [n for n, s in zip(calibrated.labels, calibrated.scores) if s >= 0.5]
    # and the correction is not nothing once the record has two texts per label (below, the skew test is not made
    # and the capped estimate of a handful of texts is shrunk to nothing)
    tested = [(p, c) for p, c in corrected if c.calibration.texts >= 2 * len(LABELS)]
    assert tested and all(not np.allclose(scores_of(c), scores_of(p)) for p, c in tested)


FROZEN = {"billing": 0.5, "shipping": -0.25, "praise": -0.5, "a question": 0.25}


def frozen_set(tmp_path, model="minilm", revision="r1", calibration=None):
    sets = tmp_path / "frozen-sets"
    sets.mkdir(exist_ok=True)
    fit = calibration or {"mode": "frozen", "model": model, "revision": revision, "texts": 100, "offsets": FROZEN}
    (sets / "team.yaml").write_text(json.dumps({"name": "team", "labels": LABELS, "calibration": fit}))
    return str(sets)


def test_a_frozen_fit_applies_to_its_own_wording_on_its_own_model(built, tmp_path):
    async def scenario(c):
        text = TEXTS[0]
        [plain] = (await c.pipeline.classify(call([body(text)]))).results
        answers = [
            (
                await c.pipeline.classify(
                    call([ClassifyRequest.model_validate({"text": text, "label_set": "team", **f})])
                )
            ).results[0]
            for f in ({}, {"calibration": "none"}, {"hypothesis_template": "This is about {}."})
        ]
        return plain, answers, await c.pipeline.label_set_calibration("team")

    plain, (frozen, none, overridden), summary = run(built(ZSC_LABEL_SETS=frozen_set(tmp_path)), scenario)
    assert frozen.calibration.model_dump() == {"mode": "frozen", "calibrated": True, "texts": 100}
    shift = np.array([FROZEN[n] for n in LABELS])
    np.testing.assert_allclose(scores_of(frozen), softmax(raw_of(plain) - shift), rtol=1e-6)
    assert none.calibration.mode == "none" and np.allclose(scores_of(none), scores_of(plain))
    assert overridden.calibration.model_dump() == {"mode": "frozen", "calibrated": False, "texts": 100}
    assert summary == {"mode": "frozen", "texts": 100, "calibrated": True}

    other = tmp_path / "other"
    other.mkdir()
    _, (elsewhere, *_), summary = run(built(ZSC_LABEL_SETS=frozen_set(other, revision="r0")), scenario)
    assert not elsewhere.calibration.calibrated and summary["calibrated"] is False  # fitted on another revision


def test_a_frozen_fit_must_name_every_label(built, tmp_path):
    bad = {"mode": "frozen", "model": "minilm", "revision": "r1", "texts": 9, "offsets": {"billing": 1.0}}
    with pytest.raises(ValueError, match="must name every label"):
        built(ZSC_LABEL_SETS=frozen_set(tmp_path, calibration=bad))


def test_job_calibration_is_for_jobs():
    with pytest.raises(ValidationError, match='calibration "job" is for jobs'):
        body("x", calibration="job")
    [item] = intake.from_json({"texts": ["x"], "labels": LABELS, "calibration": "job"}, 10)
    assert item.calibration == "job"


def test_a_job_calibrates_on_its_own_texts_then_answers(built):
    """Two passes through the memory store: every text in the sample, then every answer corrected with the
    fit over all of them (chunk after chunk, each as a whole against the sums before it)."""
    texts = TEXTS * 2

    async def scenario(c):
        plain = [(await c.pipeline.classify(call([body(t)]))).results[0] for t in texts]
        submitted = intake.from_json({"texts": texts, "labels": LABELS, "calibration": "job"}, 100)
        items = [to_store(r) for r in intake.resolved(submitted, c.models.resolve)]
        small = items[:3]
        await c.start()
        jobs = [await c.jobs.submit(items), await c.jobs.submit(small)]
        for _ in range(400):
            if all(s.state == "done" for s in [await c.jobs.get(j.id) for j in jobs]):
                break
            await asyncio.sleep(0.05)
        status = await c.jobs.get(jobs[0].id)
        return plain, [await c.jobs.results(await c.jobs.get(j.id), 0, 100) for j in jobs], status

    plain, (results, few), status = run(built(ZSC_JOB_CHUNK_ITEMS="5"), scenario)
    assert status.estimated == status.estimate_chunks == 4 and status.done == len(texts)
    config = calibration_config(built().settings)
    order = np.argsort(LABELS)
    raw = np.stack([raw_of(p)[order] for p in plain])
    stats = LabelStats.empty([str(j) for j in range(4)])
    for start in range(0, len(raw), 5):  # chunk after chunk, each a whole against the sums before it
        stats = stats.plus(fit_after(stats, raw[start : start + 5], config))
    shift = np.empty(4)
    shift[order] = offsets(stats, config)
    for p, r in zip(plain, results):
        assert r["calibration"] == {"mode": "job", "calibrated": True, "texts": len(texts)}
        got = np.array([dict(zip(r["labels"], r["scores"]))[n] for n in LABELS])
        np.testing.assert_allclose(got, softmax(raw_of(p) - shift), rtol=1e-6)
    assert [r["calibration"] for r in few] == [{"mode": "job", "calibrated": False, "texts": 3}] * 3


def test_a_call_is_answered_with_what_the_record_knew_when_it_came(built):
    """A batch's items do not move each other's answers: all are corrected alike, then all recorded."""

    async def scenario(c):
        await c.pipeline.classify(call([body(t, calibration="traffic") for t in TEXTS[:6]]))
        one = (await c.pipeline.classify(call([body(t, calibration="traffic") for t in TEXTS]))).results
        two = (await c.pipeline.classify(call([body(t, calibration="traffic") for t in reversed(TEXTS)]))).results
        return one, two

    one, two = run(built(), scenario)
    assert {a.calibration.texts for a in one} == {6} and {a.calibration.texts for a in two} == {14}
    assert all(a.calibration.calibrated for a in one + two)


def test_a_job_text_scored_twice_is_sampled_once_with_its_last_evidence():
    """A close call is scored again with its exact rows: the job's estimate pass keeps that evidence once."""
    from service.core.calibration import Columns
    from service.core.task import EMBEDDING_SPACE
    from service.pipeline.calibration import JobCalibration, JobText

    job, columns = JobCalibration(), Columns.of(["a", "b", "c"])
    text = JobText(job, "group", columns)
    assert text(np.array([1.0, 2.0, 3.0]), EMBEDDING_SPACE) is None
    assert text(np.array([1.5, 2.0, 3.0]), EMBEDDING_SPACE) is None
    text.settle()
    [sampled] = job.sample["group"]
    np.testing.assert_array_equal(sampled, columns.to_record(np.array([1.5, 2.0, 3.0])))


@pytest.mark.parametrize("written", [False, True])
@pytest.mark.parametrize("senders", [["a"] * 30, ["a"] * 12 + ["b"] * 6 + ["a"] * 12])
def test_texts_answered_between_two_reads_are_folded_in_once_as_if_one_by_one(senders, written):
    """A record keeps the texts a batch answered and folds them in at its next read, in order, sources apart:
    the statistics are the texts' one by one (``settled`` aside: a run reads one view's offsets). ``written``:
    the first 8 are written to the shared record and read back before the others come, so the texts after
    them decay from the record's 8th text on (the record is young until its 10th: nothing fades before; a run
    read at the 13th text is merged after the 8 written, not from the 1st)."""
    from service.core.calibration import CalibrationConfig
    from service.core.calibration_sources import combined, merged
    from service.pipeline.calibration import TrafficRecord

    config = CalibrationConfig(half_life=10.0, min_texts=5.0)
    labels = tuple(str(j) for j in range(4))
    rng = np.random.default_rng(7)
    rows = rng.normal(0, 1, (30, 4)) + np.array([0.8, 0.0, -0.3, 0.1])
    record = TrafficRecord("k", labels, config)
    by_source = {}
    for i, (row, sender) in enumerate(zip(rows, senders)):
        if i in (3, 13, 20):  # reads between the batches: what was answered before is in
            assert record.offsets()[1] == i
        if written and i == 8:  # a flush, and the shared record read back: what every replica has
            record.shared, record.pending = record.sources(), {}
            record._changed()
        record.observe(row, sender)
        delta = observe(combined(by_source, labels, record.max_share, config), row[None, :], config)
        by_source = merged(by_source, {sender: delta}, config.half_life)
    found, texts = record.offsets()
    assert texts == 30 and found is not None
    assert set(record.sources()) == set(senders)
    exact = ("texts", "total", "wins", "by_winner", "by_winner_squares")
    for source, stats in record.sources().items():
        for name in exact:
            np.testing.assert_allclose(getattr(stats, name), getattr(by_source[source], name), rtol=1e-9, err_msg=name)
