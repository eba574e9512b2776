"""Construction, apart from the framework: ``build(settings, model) -> Components``.

Everything a replica runs is made here, in dependency order, from the settings and the stored models it
serves: per model, the backend and tokenizer, the engine, the adaptive batcher that drives it, the cache
tiers and the scorer in front of the batcher and the pipeline; for all of them, the label sets, the Redis
tier, the registry that picks a model per request (with the process's admission), the model manager that
changes models while serving (given this module's construction of one), and the jobs (store, worker,
manager, the cluster-wide interactive signal), in the jobs' own Redis when ``ZSC_JOBS_REDIS_URL`` names one. The BentoML
class (``service.http.app``) only holds the result and its lifecycle; tests build the same components
without a server. No BentoML import: the caller says where the model is (``StoredModel``) and gives the
batching queue (BentoML's dispatcher, from the HTTP layer).
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.admission.gate import Admission
from service.admission.limit import cpu_request_s
from service.api.limits import RequestLimits
from service.backends import Backend
from service.config import Settings, model_name
from service.core.calibration import CalibrationConfig
from service.core.decisions import load_calibrations, probability_map_for
from service.core.model_spec import ModelSpec, StoredModel
from service.engine.batch_queue import batch_queue
from service.engine.batcher import AdaptiveBatcher, Queue
from service.engine.engine import Engine
from service.engine.runtime_probe import measure_request, reference_backend, select_backend
from service.engine.tokenization import Tokenizer
from service.jobs.activity import ClusterActivity, local_only
from service.jobs.items import classify_items
from service.jobs.manager import JobManager
from service.jobs.redis_store import RedisJobStore
from service.jobs.store import JobStore, MemoryJobStore
from service.jobs.worker import JobWorker, WorkerConfig
from service.obs import metrics
from service.obs.memory import resident_mb
from service.obs.tasks import cancel_and_wait, within
from service.pipeline.cache import LocalTier, RedisTier
from service.pipeline.calibration import JobCalibration, TrafficCalibration
from service.pipeline.calibration_store import CalibrationStore
from service.pipeline.decisions import Decisions
from service.pipeline.label_sets import LabelSet, load_dir
from service.pipeline.pipeline import Pipeline
from service.pipeline.registry import ModelRegistry, ServedModel
from service.pipeline.scorer import CachedScorer
from service.pipeline.systemone import SystemOne
from service.runtime.models import FindStored, ModelManager

log = logging.getLogger("zsc.build")

STOP_STEP_S = 10.0  # most seconds one step of stopping (a Redis client closing, a task cancelled) may take


@dataclass
class ModelComponents:
    """What one served model runs on: its own engine, batcher and cache tiers in front of its pipeline."""

    engine: Engine
    batcher: AdaptiveBatcher
    scorer: CachedScorer


@dataclass
class Components:
    settings: Settings
    models: ModelRegistry
    label_sets: dict[str, LabelSet]
    jobs: JobManager
    redis: RedisTier | None = None  # the shared cache tier: one client for every model (keys name the revision)
    calibration_store: CalibrationStore | None = None  # traffic calibration records shared by the replicas
    model_manager: ModelManager | None = None  # models loaded, replaced and unloaded while serving
    activity: ClusterActivity | None = None  # this process's interactive activity in the jobs Redis
    decisions: Decisions | None = None  # OpenAI's Decisions API on the served models (POST /v1/decisions)
    system_one: SystemOne | None = None  # the System One API, on the same (POST /v1/systemone)
    _tasks: list[asyncio.Task] = field(default_factory=list)

    @property
    def pipeline(self) -> Pipeline:
        """The default model's pipeline."""
        return self.models.default.pipeline

    async def start(self) -> None:
        """On the serving event loop: the job worker's tasks, the activity signal, the queue-depth gauge and
        the models file's follower live there."""
        if self.settings.models_file and self.model_manager is not None:
            self._tasks.append(asyncio.create_task(self.model_manager.follow(Path(self.settings.models_file))))
        if self.activity is not None:
            self.activity.start()
        if self.jobs.worker is not None:
            self.jobs.worker.start()
            log.info("job worker: %s", self.jobs.worker.config)
        self._tasks.append(asyncio.create_task(self.jobs.watch_depth(metrics.JOB_QUEUE.set)))

    async def quiesce(self) -> None:
        """No job chunk taken any more; the ones at work finished within ZSC_JOB_DRAIN_S, else handed back."""
        if self.jobs.worker is not None:
            await self.jobs.worker.stop(self.settings.job_drain_s)

    async def stop(self) -> None:
        """The worker's unfinished chunk goes back to the queue for another worker; connections close. Each
        step is bounded (``STOP_STEP_S``): a replica given SIGTERM in CI once never got past this hook."""
        for task in self._tasks:
            await within(cancel_and_wait(task), STOP_STEP_S, f"task {task.get_name()}")
        self._tasks.clear()
        # at once when SIGTERM's drain did it (http/drain.py)
        await within(self.quiesce(), self.settings.job_drain_s + STOP_STEP_S, "the job worker")
        if self.activity is not None:
            await within(self.activity.stop(), STOP_STEP_S, "the activity signal")
        for model in self.models.served:  # what each process observed and has not written yet
            await within(model.pipeline.traffic.stop(), STOP_STEP_S, f"{model.name}'s traffic record")
        await within(self.jobs.store.close(), STOP_STEP_S, "the job store")
        if self.redis is not None:
            await within(self.redis.close(), STOP_STEP_S, "the cache's Redis")
        if self.calibration_store is not None:
            await within(self.calibration_store.close(), STOP_STEP_S, "the calibration store")


def build(
    settings: Settings,
    models: Sequence[StoredModel],
    queue: Queue = batch_queue,
    admission: Admission | None = None,
    find_stored: FindStored | None = None,
) -> Components:
    """Every component of one serving process, loaded and warmed up, for the models it serves (the default
    first); ``queue``: the batching queue (``engine.batch_queue``; a test may give its own);
    ``admission``: the process's, which the HTTP edge holds too (made from the settings when not given);
    ``find_stored``: how a model named later (admin API, models file) is found in the model store."""
    s = settings
    label_sets = load_dir(s.label_sets, RequestLimits.from_settings(s)) if s.label_sets else {}
    redis = RedisTier(s.redis_url, s.cache_ttl_s, s.redis_timeout_ms / 1000) if s.redis_url else None
    log.info("cache: in-process tier%s", f" + Redis at {redis.url}" if redis else " only (no ZSC_REDIS_URL)")
    store = (
        CalibrationStore(
            s.redis_url, s.cache_prefix, s.calibration_ttl_s, s.redis_timeout_ms / 1000, s.calibration_scope_records
        )
        if s.redis_url
        else None
    )

    admission = admission or Admission.from_settings(s)

    def serve(stored: StoredModel) -> ServedModel:
        return _served_model(s, stored, queue, redis, label_sets, store, admission)

    served = [serve(model) for model in models]
    registry = ModelRegistry(served, label_sets, admission)
    manager = ModelManager(s, registry, serve, find_stored)
    jobs, activity = _jobs(s, registry)
    decisions = _decisions(s, registry)
    return Components(
        s, registry, label_sets, jobs, redis, store, manager, activity, decisions, system_one=SystemOne(decisions)
    )


def calibration_config(s: Settings) -> CalibrationConfig:
    """The traffic and job calibration's estimator (the study's: capped, shrunk), from the settings."""
    return CalibrationConfig(half_life=float(s.calibration_half_life), min_texts=float(s.calibration_min_texts))


def _decisions(s: Settings, models: ModelRegistry) -> Decisions:
    """OpenAI's Decisions API on the served models, with each model's fitted predicate calibration (the
    similarity -> probability map of ``core.decisions``; not the per-label bias of ``core.calibration``)."""
    calibrations = load_calibrations()
    for model in models.served:
        calibration = probability_map_for(model.spec, calibrations)
        fitted = f"{calibration.on} calibration" if calibration is not None else "no calibration (uncalibrated)"
        log.info("decisions: %s answers predicates with %s", model.name, fitted)
    limits = RequestLimits.from_settings(s)
    return Decisions(models, s.aliases(), limits, calibrations)


def _served_model(
    s: Settings,
    model: StoredModel,
    queue: Queue,
    redis: RedisTier | None,
    label_sets: dict[str, LabelSet],
    calibration_store: CalibrationStore | None,
    admission: Admission,
) -> ServedModel:
    before = resident_mb()
    spec = ModelSpec.from_metadata(model.metadata)
    name = model_name(model.tag)
    # several workers share the cores this process may use: size each worker's thread pool to its share
    threads = s.cpu_threads or max(1, len(os.sched_getaffinity(0)) // s.workers)
    tokenizer = Tokenizer.load(model.path, spec.max_length)

    def make_engine(backend: Backend, reference: Backend | None = None) -> Engine:
        batching = s.batching(backend.device)
        return Engine(
            spec,
            tokenizer,
            backend,
            token_budget=batching.token_budget,
            max_rows=batching.max_rows,
            batch_overhead_tokens=s.batch_overhead_tokens if s.batch_overhead_tokens >= 0 else 64,
            reference=reference,
        )

    backend, choice = select_backend(s, model.path, spec, threads, make_engine)
    reference, choice = reference_backend(s, model.path, spec, threads, choice)
    log.info("runtime for %s: %s", name, choice.describe())
    metrics.model_info(name, choice.runtime, choice.precision, choice.how)
    batching = s.batching(backend.device)
    engine = make_engine(backend, reference)
    log.info("loaded %s (%s) on %s; warming up", model.tag, spec.kind, backend.name)
    row_width = engine.warmup()
    if s.batch_overhead_tokens < 0:
        log.info("forward-pass overhead measured at %d tokens", engine.measure_overhead())
    # what one request costs this worker, for the in-flight limit's start: from the sample's speed when the
    # runtime was measured, else from one timed pass over a few of its texts (the model's work alone: on a CPU
    # the request path and the other workers take the same cores; a GPU's cost is the GPU's)
    cost = choice.request_s or measure_request(engine)
    if backend.device == "cpu":
        cost = cpu_request_s(cost, len(os.sched_getaffinity(0)), s.workers, threads)
    admission.expect(name, cost)
    log.info("batching %s on %s: %s", name, backend.device, batching)
    metrics.engine_series(name)
    batcher = AdaptiveBatcher(
        engine, queue, batching.max_batch_size, s.max_latency_ms, in_flight=batching.batches_in_flight, model=name
    )
    scorer = CachedScorer(
        spec,
        batcher.submit,
        local=LocalTier(s.cache_local_entries, s.cache_local_mb * 2**20),
        labels=LocalTier(s.label_cache_size, s.label_cache_size * (row_width + 1) * 4),  # + its token count
        redis=redis,
        prefix=s.cache_prefix,
        row_width=row_width,
        submit_reference=batcher.submit_reference if reference is not None else None,
        close_call_margin=s.close_call_margin,
    )
    traffic = TrafficCalibration(
        name,
        spec.revision,
        calibration_config(s),
        s.calibration_records,
        calibration_store,
        s.calibration_sync_ms / 1000,
        s.calibration_scope_records,
        s.calibration_source_share,
        s.calibration_sources,
    )
    pipeline = Pipeline(model.tag, spec, engine.tokenizer, scorer, label_sets, RequestLimits.from_settings(s), traffic)
    used = max(0.0, resident_mb() - before)  # the collector may give back more than a small model takes
    log.info("serving %s: %.0f MB resident", model.tag, used)
    components = ModelComponents(engine, batcher, scorer)
    return ServedModel(name, model.tag, spec, pipeline, used, components, model.created, choice.as_dict())


def _jobs(s: Settings, models: ModelRegistry) -> tuple[JobManager, ClusterActivity | None]:
    url = s.jobs_redis  # ZSC_JOBS_REDIS_URL, else the cache's
    store: JobStore
    store = RedisJobStore(url, s.cache_prefix, s.job_visibility_s) if url else MemoryJobStore()
    consumer = f"{socket.gethostname()}-{os.getpid()}"
    # every process publishes its interactive activity (a replica that runs no job is what others yield to)
    activity = ClusterActivity(url, s.cache_prefix, consumer, models.interactive_busy) if url else None
    cluster = activity is not None and s.job_yield_scope == "cluster"
    worker = None
    if s.runs_jobs:  # ZSC_ROLE=api runs none, nor does ZSC_JOB_WORKERS=0
        config = WorkerConfig(
            consumer=consumer,
            concurrency=s.job_workers,
            slice_items=s.job_slice_items,
            share=s.job_share_pct / 100,
            visibility_s=s.job_visibility_s,
            max_attempts=s.job_max_attempts,
        )

        async def run_items(items: list[dict[str, Any]], calibration: JobCalibration | None) -> list[dict[str, Any]]:
            return await classify_items(models, items, calibration)

        interactive = activity.busy if cluster else local_only(models.interactive_busy)

        # the share is the replica's (cluster-wide: all replicas' together), divided among the chunks at work
        def sharing() -> int:
            return s.job_workers * (activity.workers() if cluster and activity is not None else 1)

        worker = JobWorker(
            store,
            run_items,
            config,
            interactive,
            metrics.observe_job_worker,
            sharing,
            calibration=calibration_config(s),
        )
    where = f" at {store.url}" if isinstance(store, RedisJobStore) else ""
    if worker is None:
        runs = f"no worker on this replica ({'ZSC_ROLE=api' if s.role == 'api' else 'ZSC_JOB_WORKERS=0'})"
    else:
        runs = f"the worker yields to {'every replica' if cluster else 'this replica'}'s interactive calls"
    log.info("jobs: %s store%s; %s", store.backend, where, runs)
    return JobManager(store, worker, s.job_chunk_items, s.job_ttl_s), activity
