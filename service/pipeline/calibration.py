"""Label calibration while serving: which correction each text's scores get, and the traffic records.

The maths is ``core.calibration``; where it applies is ``core.task`` (the raw wording evidence of every
text, before scores are made). Here, per request (``for_request``):

- ``none``: no correction, nothing recorded;
- ``traffic``: this model's record for the request's wordings (``Columns``: any label order of the same
  wordings shares it) corrects the text with what it had seen when the call arrived, then records the text's
  raw evidence (never the corrected one: the record stays a sample of what the model does). Every text of a
  call is answered before any of them is recorded, so a batch's items do not move each other's answers.
  Until the record has seen ``min_texts`` texts the answer is uncalibrated;
- ``frozen``: the offsets ``zsc calibrate`` wrote into the label set, by label name;
- ``job``: the job's own fit (``JobCalibration``): its estimate pass records, its answer pass corrects.

``TrafficCalibration`` holds one model's records: an LRU in memory (``ZSC_CALIBRATION_RECORDS``) and,
with Redis, what every replica observed (``calibration_store``): each process adds its delta every
``ZSC_CALIBRATION_SYNC_MS`` and reads the records it uses, so the replicas learn together; a record new to
a process is read before the request that needs it is scored.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections import OrderedDict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field

import numpy as np

from service.api.classify import NOT_CALIBRATED, CalibrationApplied
from service.core.calibration import CalibrationConfig, Columns, LabelStats, burst_weights, observe, offsets
from service.core.calibration_bursts import BurstDetector
from service.core.calibration_sources import OTHERS, combined, largest_share, merged, read_record, texts_of
from service.core.task import NLI_PAIRWISE_SPACE, Task, wording_of
from service.obs import metrics
from service.obs.tasks import cancel_and_wait
from service.pipeline.calibration_store import CalibrationStore, CalibrationStoreUnavailable
from service.pipeline.label_sets import CalibrationChoice

log = logging.getLogger("zsc.calibration")
AD_HOC = "*"  # the metrics series of every record that is not a label set's own wording
SHARED = "shared"  # the scope of every traffic record with API keys off, or a label set's opting in
ACTIVE_S = 60.0  # a record used within this long is re-read from Redis at every sync


@functools.lru_cache(maxsize=4096)
def columns_of(wordings: tuple) -> Columns:
    """A request's record columns (cached: a label set's wordings are the same tuple every time)."""
    return Columns.of(wordings)


# -- one text ---------------------------------------------------------------------------------------------
class TextCalibration:
    """One text's calibration: called by ``core.task`` with its raw wording evidence (request order), it
    answers the offsets to subtract (request order) or None, and keeps what the answer reports."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.calibrated = False
        self.texts: int | None = None

    def __call__(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        shift = self.shift(raw, space)
        self.calibrated = shift is not None
        return shift

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        return None  # a single label: nothing to correct it against

    def settle(self) -> None:
        """Once every text of the call is answered: record what is to be recorded."""

    def applied(self) -> CalibrationApplied:
        return CalibrationApplied(mode=self.mode, calibrated=self.calibrated, texts=self.texts)  # type: ignore[arg-type]


class FrozenText(TextCalibration):
    def __init__(self, choice: CalibrationChoice, names: Sequence[str]) -> None:
        super().__init__("frozen")
        self.texts = choice.texts
        self._names = names
        self._choice = choice

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        table = self._choice.multi_label_offsets if space == NLI_PAIRWISE_SPACE else self._choice.offsets
        return None if table is None else np.array([table[name] for name in self._names], dtype=np.float64)


class TrafficText(TextCalibration):
    """Corrected with the offsets its record had when the call came (read here, before the call is scored:
    the calls that come while a batch runs share one reading), recorded once the call is answered."""

    def __init__(self, record: TrafficRecord, columns: Columns, source: str) -> None:
        super().__init__("traffic")
        self._record, self._columns, self._source = record, columns, source
        self._found, self.texts = record.offsets()
        self._raw: np.ndarray | None = None

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        self._raw = self._columns.to_record(raw)
        return None if self._found is None else self._columns.to_request(self._found)

    def settle(self) -> None:
        if self._raw is not None:
            self._record.observe(self._raw, self._source)
            self._raw = None

    def applied(self) -> CalibrationApplied:
        return CalibrationApplied(
            mode="traffic", calibrated=self.calibrated, texts=self.texts, scope=self._record.scope
        )


class JobText(TextCalibration):
    def __init__(self, job: JobCalibration, group: str, columns: Columns) -> None:
        super().__init__("job")
        self._job, self._group, self._columns = job, group, columns
        self._raw: np.ndarray | None = None

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        if self._job.fitted is None:  # the estimate pass: a sample, no answer given
            self._raw = self._columns.to_record(raw)  # the last scoring's (a close call is scored again)
            return None
        found, self.texts = self._job.fitted.get(self._group, (None, 0))
        return None if found is None else self._columns.to_request(found)

    def settle(self) -> None:
        if self._raw is not None:
            self._job.sample.setdefault(self._group, []).append(self._raw)
            self._raw = None


@dataclass
class JobCalibration:
    """A job's own calibration for one call: collecting its texts' raw evidence per group (the estimate
    pass: ``fitted`` None), or correcting with the offsets fitted over all of them (the answer pass)."""

    fitted: dict[str, tuple[np.ndarray | None, int]] | None = None  # group -> (record-order offsets, texts)
    sample: dict[str, list[np.ndarray]] = field(default_factory=dict)  # group -> raw evidence, record order


def group_of(revision: str, space: str, columns: Columns) -> str:
    """A job's record for one model and label wording (what ``JobCalibration`` keys by)."""
    return f"{revision}:{space}:{columns.digest}"


# -- the traffic records -------------------------------------------------------------------------------------
Sources = dict[str, LabelStats]  # a record's statistics per source (``core.calibration_sources``)


@dataclass
class TrafficRecord:
    """What one process knows of one record, per source: ``shared`` as last read (every replica's texts, or
    this process's alone without Redis), ``flushing`` being written, ``pending`` observed since. Its offsets
    come from the sources combined, none holding more than ``max_share`` of the weight; past ``max_sources``
    sources, new ones are counted as one (``OTHERS``).

    A text answered is kept as it is (``observe``) and folded into ``pending`` when the record is next read:
    the texts of a batch, answered together, are then folded in one pass and the offsets computed once for
    the next call, not once per text (every text still counts in order, and a call still sees every text
    answered before it came)."""

    key: str
    labels: tuple[str, ...]
    config: CalibrationConfig
    label_set: str | None = None
    shared: Sources = field(default_factory=dict)
    pending: Sources = field(default_factory=dict)
    flushing: Sources | None = None
    used: float = 0.0  # time.monotonic() of its last use
    scope: str = SHARED
    max_share: float = 0.5
    max_sources: int = 16
    _unfolded: list[tuple[str, np.ndarray]] = field(default_factory=list)  # (source, raw evidence) in order
    _bursts: dict[str, BurstDetector] = field(default_factory=dict)  # per source: the burst guard's test
    _sources: Sources | None = None
    _view: LabelStats | None = None
    _offsets: tuple[np.ndarray | None, int] | None = None

    @property
    def half_life(self) -> float:
        return self.config.half_life

    def sources(self) -> Sources:
        self.fold()
        return self._folded_sources()

    def view(self) -> LabelStats:
        self.fold()
        return self._folded_view()

    def visible(self) -> dict:
        """Texts seen, sources, the largest one's share (before the cap) and the sources whose texts the burst
        guard now holds back (on this replica): GET /label_sets, the metrics."""
        sources = self.sources()
        texts = int(round(texts_of(sources)))
        return {
            "scope": self.scope,
            "texts": texts,
            "sources": len(sources),
            "largest_share": round(largest_share(sources, self.config), 3),
            "held_back": sum(1 for d in self._bursts.values() if d.last_keep < 0.5),
        }

    def offsets(self) -> tuple[np.ndarray | None, int]:
        """(record-order offsets or None: uncalibrated, texts seen)."""
        if self._offsets is None or self._unfolded:
            view = self.view()
            self._offsets = (offsets(view, self.config), int(round(view.texts)))
        return self._offsets

    def observe(self, raw: np.ndarray, source: str) -> None:
        """Count a text answered (its raw evidence, record order) from ``source``."""
        self._unfolded.append((source, raw))

    def fold(self) -> None:
        """Fold the texts observed since the last read into ``pending``: each run of one source's texts in
        one ``observe`` against the statistics before it."""
        while self._unfolded:
            source = self._unfolded[0][0]
            n = next((i for i, (s, _) in enumerate(self._unfolded) if s != source), len(self._unfolded))
            run, self._unfolded = self._unfolded[:n], self._unfolded[n:]
            known = self._folded_sources()
            if source not in known and len(known) >= self.max_sources:
                source = OTHERS
            view = self._folded_view()
            evidence = np.stack([raw for _, raw in run])
            detector = self._bursts.get(source)
            if detector is None:
                detector = self._bursts[source] = BurstDetector(len(self.labels), self.config.burst)
            delta = observe(view, evidence, self.config, burst_weights(detector, view, evidence, self.config))
            self.pending = merged(self.pending, {source: delta}, self.half_life, self.texts_through_pending())
            self._changed()

    # Where each part ends in the record's texts: decay is the record's (``core.calibration.age``), so a part
    # merged after another decays it from the record's texts there, not from the other part's own.
    def texts_through_flushing(self) -> float:
        return texts_of(self.shared) + texts_of(self.flushing or {})

    def texts_through_pending(self) -> float:
        return self.texts_through_flushing() + texts_of(self.pending)

    def _folded_sources(self) -> Sources:
        if self._sources is None:
            later = self.pending
            if self.flushing is not None:
                later = merged(self.flushing, self.pending, self.half_life, self.texts_through_flushing())
            self._sources = merged(self.shared, later, self.half_life)
        return self._sources

    def _folded_view(self) -> LabelStats:
        if self._view is None:
            self._view = combined(self._folded_sources(), self.labels, self.max_share, self.config)
        return self._view

    def _changed(self) -> None:
        self._sources = self._view = self._offsets = None


@dataclass(eq=False, repr=False)  # a model's records are themselves: compared and shown by identity
class TrafficCalibration:
    """One served model's traffic records (see the module)."""

    model: str
    revision: str
    config: CalibrationConfig
    max_records: int
    store: CalibrationStore | None = None
    sync_s: float = 1.0
    scope_records: int = 256
    max_share: float = 0.5
    max_sources: int = 16
    _records: OrderedDict[str, TrafficRecord] = field(default_factory=OrderedDict, init=False)
    _dropped: list[TrafficRecord] = field(default_factory=list, init=False)  # evicted with texts not written yet
    _task: asyncio.Task | None = field(default=None, init=False)

    def key(self, scope: str, space: str, columns: Columns) -> str:
        if self.store is not None:
            return self.store.key(scope, self.revision, space, columns.digest)
        return f"{scope}:{space}:{columns.digest}"

    def record(self, key: str) -> TrafficRecord | None:
        found = self._records.get(key)
        if found is not None:
            self._records.move_to_end(key)
            found.used = time.monotonic()
        return found

    async def load(self, wanted: Sequence[tuple[str, tuple[str, ...], str | None, str]]) -> None:
        """Make sure these records (key, labels, label set, scope) are held: new ones are read from Redis first
        (one round trip for the call), so a replica answers with what the others learned."""
        missing = {key: (labels, name, scope) for key, labels, name, scope in wanted if key not in self._records}
        if not missing:
            return
        if self._task is None:  # on the serving loop, from the first record on (a model loaded later too)
            self._task = asyncio.get_running_loop().create_task(self._follow())
        found: list[dict] | None = None
        if self.store is not None:
            with contextlib.suppress(CalibrationStoreUnavailable):
                found = await self.store.read(list(missing))
        for i, (key, (labels, name, scope)) in enumerate(missing.items()):
            if key in self._records:  # another call loaded it meanwhile
                continue
            shared = read_record(labels, found[i], self.config.half_life) if found and found[i] else {}
            record = TrafficRecord(key, labels, self.config, name, shared, scope=scope,
                                   max_share=self.max_share, max_sources=self.max_sources)  # fmt: skip
            self._add(record)

    def _add(self, record: TrafficRecord) -> None:
        record.used = time.monotonic()
        self._records[record.key] = record
        same = [k for k, r in self._records.items() if r.scope == record.scope]  # least recently used first
        for key in same[: max(0, len(same) - self.scope_records)]:
            self._drop(key)
        while len(self._records) > self.max_records:
            self._drop(next(iter(self._records)))

    def _drop(self, key: str) -> None:
        old = self._records.pop(key)
        old.fold()
        if self.store is not None and old.pending and len(self._dropped) < self.max_records:
            self._dropped.append(old)

    async def status(self, key: str, labels: tuple[str, ...]) -> tuple[int, bool]:
        """(texts seen, whether it corrects) of a record, held here or only in Redis (not loaded for it)."""
        record = self._records.get(key)
        if record is not None:
            found, texts = record.offsets()
            return texts, found is not None
        fields = None
        if self.store is not None:
            with contextlib.suppress(CalibrationStoreUnavailable):
                fields = await self.store.read([key])
        if not fields or not fields[0]:
            return 0, False
        stats = combined(read_record(labels, fields[0], self.config.half_life), labels, self.max_share, self.config)
        return int(round(stats.texts)), offsets(stats, self.config) is not None

    def scopes(self, label_set: str | None = None, visible: Collection[str] | None = None) -> list[dict]:
        """Per scope (of this process's records; of one label set's own wording when named; of the scopes in
        ``visible`` when given, ``visible_scopes``): records held, texts seen, sources, the largest source's share
        of the weight and the sources held back as a burst."""
        out: dict[str, dict] = {}
        for record in self._records.values():
            if label_set is not None and record.label_set != label_set:
                continue
            if visible is not None and record.scope not in visible:
                continue
            seen = record.visible()
            mine = out.setdefault(record.scope, {"scope": record.scope, "records": 0, "texts": 0, "sources": 0,
                                                 "largest_share": 0.0, "held_back": 0})  # fmt: skip
            mine["records"] += 1
            mine["texts"] += seen["texts"]
            mine["held_back"] += seen["held_back"]
            mine["sources"] = max(mine["sources"], seen["sources"])
            mine["largest_share"] = max(mine["largest_share"], seen["largest_share"])
        return sorted(out.values(), key=lambda x: x["scope"])

    def texts_by_label_set(self) -> dict[str, int]:
        """Texts seen per label set's own wording (ad hoc wordings summed under ``AD_HOC``), for metrics
        and GET /label_sets."""
        out: dict[str, int] = {}
        for record in self._records.values():
            name = record.label_set or AD_HOC
            out[name] = out.get(name, 0) + record.offsets()[1]
        return out

    # -- sharing through Redis ------------------------------------------------------------------------------
    async def stop(self) -> None:
        """Stop following and write what is still pending, once (the store is closed by its owner)."""
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        if self.store is not None:
            with contextlib.suppress(Exception):
                await self.sync()

    async def _follow(self) -> None:
        while True:
            await asyncio.sleep(self.sync_s)
            try:
                if self.store is not None:
                    await self.sync()
                metrics.calibration_texts(self.model, self.texts_by_label_set())
                metrics.calibration_scopes(self.model, self.scopes())
            except asyncio.CancelledError:
                raise
            except Exception:  # a bug here must not stop the loop: the records keep learning locally
                log.exception("calibration sync failed")

    async def sync(self) -> None:
        """Write every record's pending delta (increments only) and read back what every replica has; re-read
        the records used lately that had nothing to write."""
        assert self.store is not None
        dropped, self._dropped = self._dropped, []
        now = time.monotonic()
        for record in [*dropped, *self._records.values()]:
            record.fold()
            if record.pending:
                await self._flush(record)
        active = [r for r in self._records.values() if now - r.used < ACTIVE_S and r.flushing is None]
        with contextlib.suppress(CalibrationStoreUnavailable):
            found = await self.store.read([r.key for r in active])
            for record, fields in zip(active, found or ()):
                if fields and record.flushing is None:
                    record.shared = read_record(record.labels, fields, record.half_life)
                    record._changed()

    async def _flush(self, record: TrafficRecord) -> None:
        record.flushing, record.pending = record.pending, {}
        try:
            after = await self.store.add(  # type: ignore[union-attr]
                record.key, record.scope, record.flushing, record.half_life
            )
        except CalibrationStoreUnavailable:  # kept for the next flush
            at = record.texts_through_flushing()
            record.pending = merged(record.flushing, record.pending, record.half_life, at)
        else:
            record.shared = read_record(record.labels, after, record.half_life)
        finally:
            record.flushing = None
            record._changed()


# -- the request's choice to a text's calibration -------------------------------------------------------
def scope_of(choice: CalibrationChoice, key: str | None) -> str:
    """Whose records a traffic calibration reads and adds to: the API key's (``key``: its id), else shared."""
    return SHARED if key is None or choice.shared else key_scope(key)


def key_scope(key: str) -> str:
    """The scope of an API key's own records (``key``: its id)."""
    return f"key:{key}"


def visible_scopes(key: str | None) -> tuple[str, ...]:
    """The scopes a caller may see the records of (GET /label_sets): the shared one, which every key's opted-in
    sets learn together, and its API key's own; never another key's."""
    return (SHARED,) if key is None else (SHARED, key_scope(key))


def for_request(
    choice: CalibrationChoice,
    task: Task,
    names: Sequence[str],
    space: str,
    traffic: TrafficCalibration,
    job: JobCalibration | None,
    sender: tuple[str | None, str] = (None, "-"),
) -> TextCalibration | None:
    """The calibration of one prepared request's text (None: none). Traffic records must be loaded
    (``wanted``, then ``TrafficCalibration.load``)."""
    if choice.mode == "none":
        return None
    if len(task.hypotheses) < 2:  # one label: nothing to correct it against
        return TextCalibration(choice.mode)
    if choice.mode == "frozen":
        return FrozenText(choice, names)
    if choice.mode == "traffic":
        columns = columns_of(wording_of(task))
        record = traffic.record(traffic.key(scope_of(choice, sender[0]), space, columns))
        assert record is not None, "traffic records are loaded before scoring"
        return TrafficText(record, columns, sender[1])
    columns = columns_of(wording_of(task))  # job: its own fit (an item run outside a job: an empty one)
    return JobText(job or JobCalibration(fitted={}), group_of(traffic.revision, space, columns), columns)


def traffic_record_for(
    choice: CalibrationChoice, task: Task, space: str, traffic: TrafficCalibration, key: str | None = None
) -> tuple | None:
    """The traffic record a request needs: (key, labels, label set, scope), or None; ``key``: the id of the
    API key that sent it."""
    if choice.mode != "traffic" or len(task.hypotheses) < 2:
        return None
    columns = columns_of(wording_of(task))
    scope = scope_of(choice, key)
    return traffic.key(scope, space, columns), columns.labels, choice.label_set, scope


def answer_calibration(calibration: TextCalibration | None) -> CalibrationApplied:
    return NOT_CALIBRATED if calibration is None else calibration.applied()
