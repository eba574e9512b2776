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
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from service.api.classify import NOT_CALIBRATED, CalibrationApplied
from service.core.calibration import (
    CalibrationConfig,
    Columns,
    LabelStats,
    merge,
    observe,
    offsets,
    read_fields,
)
from service.core.task import NLI_PAIRWISE_SPACE, Task, wording_of
from service.obs import metrics
from service.obs.tasks import cancel_and_wait
from service.pipeline.calibration_store import CalibrationStore, CalibrationStoreUnavailable
from service.pipeline.label_sets import CalibrationChoice

log = logging.getLogger("zsc.calibration")
AD_HOC = "*"  # the metrics series of every record that is not a label set's own wording
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
    def __init__(self, record: TrafficRecord, columns: Columns, config: CalibrationConfig) -> None:
        super().__init__("traffic")
        self._record, self._columns, self._config = record, columns, config
        self._raw: np.ndarray | None = None

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        found, self.texts = self._record.offsets(self._config)
        self._raw = self._columns.to_record(raw)
        return None if found is None else self._columns.to_request(found)

    def settle(self) -> None:
        if self._raw is not None:
            self._record.observe(self._raw, self._config)
            self._raw = None


class JobText(TextCalibration):
    def __init__(self, job: JobCalibration, group: str, columns: Columns) -> None:
        super().__init__("job")
        self._job, self._group, self._columns = job, group, columns

    def shift(self, raw: np.ndarray, space: str) -> np.ndarray | None:
        if self._job.fitted is None:  # the estimate pass: a sample, no answer given
            self._job.sample.setdefault(self._group, []).append(self._columns.to_record(raw))
            return None
        found, self.texts = self._job.fitted.get(self._group, (None, 0))
        return None if found is None else self._columns.to_request(found)


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
@dataclass
class TrafficRecord:
    """What one process knows of one record: ``shared`` as last read (every replica's texts, or this
    process's alone without Redis), ``flushing`` being written, ``pending`` observed since."""

    key: str
    labels: tuple[str, ...]
    half_life: float
    label_set: str | None = None
    shared: LabelStats = None  # type: ignore[assignment]
    pending: LabelStats = None  # type: ignore[assignment]
    flushing: LabelStats | None = None
    used: float = 0.0  # time.monotonic() of its last use
    _view: LabelStats | None = None
    _offsets: tuple[np.ndarray | None, int] | None = None

    def __post_init__(self) -> None:
        self.shared = self.shared or LabelStats.empty(self.labels)
        self.pending = self.pending or LabelStats.empty(self.labels)

    def view(self) -> LabelStats:
        if self._view is None:
            later = self.pending if self.flushing is None else merge(self.flushing, self.pending, self.half_life)
            self._view = merge(self.shared, later, self.half_life)
        return self._view

    def offsets(self, config: CalibrationConfig) -> tuple[np.ndarray | None, int]:
        """(record-order offsets or None: uncalibrated, texts seen)."""
        if self._offsets is None:
            view = self.view()
            self._offsets = (offsets(view, config), int(round(view.texts)))
        return self._offsets

    def observe(self, raw: np.ndarray, config: CalibrationConfig) -> None:
        delta = observe(self.view(), raw[None, :], config)
        self.pending = merge(self.pending, delta, self.half_life)
        self._changed()

    def _changed(self) -> None:
        self._view = self._offsets = None


class TrafficCalibration:
    """One served model's traffic records (see the module)."""

    def __init__(
        self,
        model: str,
        revision: str,
        config: CalibrationConfig,
        max_records: int,
        store: CalibrationStore | None = None,
        sync_s: float = 1.0,
    ) -> None:
        self.model = model
        self.revision = revision
        self.config = config
        self.max_records = max_records
        self.store = store
        self.sync_s = sync_s
        self._records: OrderedDict[str, TrafficRecord] = OrderedDict()
        self._dropped: list[TrafficRecord] = []  # evicted with texts not written yet
        self._task: asyncio.Task | None = None

    def key(self, space: str, columns: Columns) -> str:
        return self.store.key(self.revision, space, columns.digest) if self.store else f"{space}:{columns.digest}"

    def record(self, key: str) -> TrafficRecord | None:
        found = self._records.get(key)
        if found is not None:
            self._records.move_to_end(key)
            found.used = time.monotonic()
        return found

    async def load(self, wanted: Sequence[tuple[str, tuple[str, ...], str | None]]) -> None:
        """Make sure these records (key, labels, label set) are held: new ones are read from Redis first
        (one round trip for the call), so a replica answers with what the others learned."""
        missing = {key: (labels, name) for key, labels, name in wanted if key not in self._records}
        if not missing:
            return
        if self._task is None:  # on the serving loop, from the first record on (a model loaded later too)
            self._task = asyncio.get_running_loop().create_task(self._follow())
        found: list[dict] | None = None
        if self.store is not None:
            with contextlib.suppress(CalibrationStoreUnavailable):
                found = await self.store.read(list(missing))
        for i, (key, (labels, name)) in enumerate(missing.items()):
            if key in self._records:  # another call loaded it meanwhile
                continue
            shared = read_fields(labels, found[i], self.config.half_life) if found and found[i] else None
            self._add(TrafficRecord(key, labels, self.config.half_life, name, shared))

    def _add(self, record: TrafficRecord) -> None:
        record.used = time.monotonic()
        self._records[record.key] = record
        while len(self._records) > self.max_records:
            _, old = self._records.popitem(last=False)
            if self.store is not None and old.pending.texts and len(self._dropped) < self.max_records:
                self._dropped.append(old)

    async def status(self, key: str, labels: tuple[str, ...]) -> tuple[int, bool]:
        """(texts seen, whether it corrects) of a record, held here or only in Redis (not loaded for it)."""
        record = self._records.get(key)
        if record is not None:
            found, texts = record.offsets(self.config)
            return texts, found is not None
        fields = None
        if self.store is not None:
            with contextlib.suppress(CalibrationStoreUnavailable):
                fields = await self.store.read([key])
        if not fields or not fields[0]:
            return 0, False
        stats = read_fields(labels, fields[0], self.config.half_life)
        return int(round(stats.texts)), offsets(stats, self.config) is not None

    def texts_by_label_set(self) -> dict[str, int]:
        """Texts seen per label set's own wording (ad hoc wordings summed under ``AD_HOC``), for metrics
        and GET /label_sets."""
        out: dict[str, int] = {}
        for record in self._records.values():
            name = record.label_set or AD_HOC
            out[name] = out.get(name, 0) + record.offsets(self.config)[1]
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
            if record.pending.texts:
                await self._flush(record)
        active = [r for r in self._records.values() if now - r.used < ACTIVE_S and r.flushing is None]
        with contextlib.suppress(CalibrationStoreUnavailable):
            found = await self.store.read([r.key for r in active])
            for record, fields in zip(active, found or ()):
                if fields and record.flushing is None:
                    record.shared = read_fields(record.labels, fields, record.half_life)
                    record._changed()

    async def _flush(self, record: TrafficRecord) -> None:
        record.flushing, record.pending = record.pending, LabelStats.empty(record.labels)
        try:
            after = await self.store.add(record.key, record.flushing, record.half_life)  # type: ignore[union-attr]
        except CalibrationStoreUnavailable:  # kept for the next flush
            record.pending = merge(record.flushing, record.pending, record.half_life)
        else:
            record.shared = read_fields(record.labels, after, record.half_life)
        finally:
            record.flushing = None
            record._changed()


# -- the request's choice to a text's calibration -------------------------------------------------------
def for_request(
    choice: CalibrationChoice,
    task: Task,
    names: Sequence[str],
    space: str,
    traffic: TrafficCalibration,
    job: JobCalibration | None,
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
        record = traffic.record(traffic.key(space, columns))
        assert record is not None, "traffic records are loaded before scoring"
        return TrafficText(record, columns, traffic.config)
    columns = columns_of(wording_of(task))  # job: its own fit (an item run outside a job: an empty one)
    return JobText(job or JobCalibration(fitted={}), group_of(traffic.revision, space, columns), columns)


def traffic_record_for(choice: CalibrationChoice, task: Task, space: str, traffic: TrafficCalibration) -> tuple | None:
    """The traffic record a request needs: (key, labels, label set), or None."""
    if choice.mode != "traffic" or len(task.hypotheses) < 2:
        return None
    columns = columns_of(wording_of(task))
    return traffic.key(space, columns), columns.labels, choice.label_set


def answer_calibration(calibration: TextCalibration | None) -> CalibrationApplied:
    return NOT_CALIBRATED if calibration is None else calibration.applied()
