"""Construction, apart from the framework: ``build(settings, model) -> Components``.

Everything a replica runs is made here, in dependency order, from the settings and a stored model: the
backend and tokenizer, the engine, the adaptive batcher that drives it, the cache tiers and the scorer in
front of the batcher, the label sets, the pipeline, and the jobs (store, worker, manager). The BentoML
class (``service.http.app``) only holds the result and its lifecycle; tests build the same components
without a server. No BentoML import: the caller says where the model is (``StoredModel``) and gives the
batching queue (BentoML's dispatcher, from the HTTP layer).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.backends import load_backend
from service.config import Settings
from service.core.model_spec import ModelSpec
from service.engine.batcher import AdaptiveBatcher, Queue
from service.engine.engine import Engine
from service.engine.tokenization import Tokenizer
from service.jobs.items import classify_items
from service.jobs.manager import JobManager
from service.jobs.redis_store import RedisJobStore
from service.jobs.store import JobStore, MemoryJobStore
from service.jobs.worker import JobWorker, WorkerConfig
from service.obs import metrics
from service.pipeline.cache import LocalTier, RedisTier
from service.pipeline.label_sets import LabelSet, load_dir
from service.pipeline.pipeline import Limits, Pipeline
from service.pipeline.scorer import CachedScorer

log = logging.getLogger("zsc.build")


@dataclass(frozen=True)
class StoredModel:
    """A model in the model store: its tag, its directory and the metadata the import wrote."""

    tag: str
    path: Path
    metadata: Mapping[str, Any]


@dataclass
class Components:
    settings: Settings
    model: StoredModel
    spec: ModelSpec
    engine: Engine
    batcher: AdaptiveBatcher
    scorer: CachedScorer
    label_sets: dict[str, LabelSet]
    pipeline: Pipeline
    jobs: JobManager
    _tasks: list[asyncio.Task] = field(default_factory=list)

    async def start(self) -> None:
        """On the serving event loop: the job worker's tasks and the queue-depth gauge live there."""
        if self.jobs.worker is not None:
            self.jobs.worker.start()
            log.info("job worker: %s", self.jobs.worker.config)
        self._tasks.append(asyncio.create_task(self.jobs.watch_depth(metrics.JOB_QUEUE.set)))

    async def stop(self) -> None:
        """The worker's unfinished chunk goes back to the queue for another worker; connections close."""
        for task in self._tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        if self.jobs.worker is not None:
            await self.jobs.worker.stop()
        await self.jobs.store.close()
        if self.scorer.redis is not None:
            await self.scorer.redis.close()


def build(settings: Settings, model: StoredModel, queue: Queue) -> Components:
    """Every component of one serving process, loaded and warmed up; ``queue`` is the batching queue the
    framework provides (``service.http.batching.cork_queue``: BentoML's)."""
    s = settings
    label_sets = load_dir(s.label_sets) if s.label_sets else {}
    spec = ModelSpec.from_metadata(model.metadata)
    # several workers share the cores this process may use: size each worker's thread pool to its share
    threads = s.cpu_threads or max(1, len(os.sched_getaffinity(0)) // s.workers)
    backend = load_backend(model.path, spec, s.runtime, s.device, threads, s.onnx_variant)
    batching = s.batching(backend.device)
    engine = Engine(
        spec,
        Tokenizer.load(model.path, spec.max_length),
        backend,
        token_budget=batching.token_budget,
        max_rows=batching.max_rows,
        batch_overhead_tokens=max(s.batch_overhead_tokens, 0),
    )
    log.info("loaded %s (%s) on %s; warming up", model.tag, spec.kind, backend.name)
    row_width = engine.warmup()
    if s.batch_overhead_tokens < 0:
        log.info("forward-pass overhead measured at %d tokens", engine.calibrate())
    log.info("batching on %s: %s", backend.device, batching)
    batcher = AdaptiveBatcher(
        engine, queue, batching.max_batch_size, s.max_latency_ms, in_flight=batching.batches_in_flight
    )
    redis = RedisTier(s.redis_url, s.cache_ttl_s, s.redis_timeout_ms / 1000) if s.redis_url else None
    scorer = CachedScorer(
        spec,
        batcher.submit,
        local=LocalTier(s.cache_local_entries, s.cache_local_mb * 2**20),
        labels=LocalTier(s.label_cache_size, s.label_cache_size * row_width * 4),
        redis=redis,
        prefix=s.cache_prefix,
        row_width=row_width,
    )
    log.info("cache: in-process tier%s", f" + Redis at {redis.url}" if redis else " only (no ZSC_REDIS_URL)")
    pipeline = Pipeline(
        model.tag, spec, engine.tokenizer, scorer, label_sets, Limits(s.max_windows, s.max_pairs_per_request)
    )
    jobs = _jobs(s, pipeline)
    return Components(s, model, spec, engine, batcher, scorer, label_sets, pipeline, jobs)


def _jobs(s: Settings, pipeline: Pipeline) -> JobManager:
    store: JobStore
    store = RedisJobStore(s.redis_url, s.cache_prefix, s.job_visibility_s) if s.redis_url else MemoryJobStore()
    worker = None
    if s.job_workers:
        config = WorkerConfig(
            consumer=f"{socket.gethostname()}-{os.getpid()}",
            concurrency=s.job_workers,
            slice_items=s.job_slice_items,
            share=s.job_share_pct / 100,
            visibility_s=s.job_visibility_s,
            max_attempts=s.job_max_attempts,
        )

        async def run_items(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            return await classify_items(pipeline, items)

        worker = JobWorker(store, run_items, config, pipeline.interactive_busy, metrics.observe_job_worker)
    log.info("jobs: %s store%s", store.backend, "" if worker else ", no worker on this replica (ZSC_JOB_WORKERS=0)")
    return JobManager(store, worker, s.job_chunk_items, s.job_ttl_s)
