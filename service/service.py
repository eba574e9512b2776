"""The BentoML surface: validate -> cache -> adaptive batching -> engine -> backend. Thin on purpose.

``/classify`` and ``/classify_batch`` validate (schemas), look every needed model row up in the cache
tiers, and send only the missing sequences into BentoML's adaptive-batching dispatcher (see batcher.py),
which merges concurrent requests' misses into one engine call. A fully cached request never queues.
"""

from __future__ import annotations

import gc
import logging
import os
import socket
import time

import bentoml
from pydantic import ValidationError

from . import logs, routes
from .config import settings
from .errors import BackendFailure, ServiceError, error_boundary
from .middleware import EdgeMiddleware
from .schemas import (
    ClassifyBatchRequest,
    ClassifyBatchResponse,
    ClassifyRequest,
    ClassifyResponse,
    HfZeroShotAnswer,
    HfZeroShotOutput,
    HfZeroShotRequest,
)
from .tracing import bentoml_tracing_config, use_bentoml_provider

log = logging.getLogger("zsc.service")
S = settings()
INTERACTIVE_GRACE_S = 0.5  # jobs keep yielding this long after the last interactive request ends
# The GPU deployment (ZSC_DEVICE=cuda) declares its GPU so BentoML assigns one per worker.
_resources = {"gpu": 1} if S.device == "cuda" else None
_tracing = bentoml_tracing_config(float(S.trace_sample_rate))
if S.log_format == "json":
    logs.configure("json")  # the serving CLI's own lines too; the worker's handlers again in __init__


@bentoml.service(
    name="zero_shot_classifier",
    workers=S.workers,
    **({"resources": _resources} if _resources else {}),
    traffic={"timeout": S.timeout_s},  # ZSC_MAX_CONCURRENCY: middleware.py, so its 429 says when to retry
    # our access line (middleware.py) carries the request id, cache status and pairs: BentoML's would repeat it
    logging={"access": {"enabled": False}},
    **({"tracing": _tracing} if _tracing else {}),
)
class ZeroShotClassifier:
    model_ref = bentoml.models.BentoModel(S.model)

    def __init__(self) -> None:
        # heavy imports here: importing the module (bentoml build, the client generator) stays cheap
        from . import logs, metrics
        from .backends import load_backend
        from .batcher import AdaptiveBatcher
        from .cache import LocalTier, RedisTier
        from .classifier import Classifier
        from .engine import Engine
        from .model_spec import ModelSpec
        from .tokenization import Tokenizer

        self._ready = False
        logs.configure(S.log_format)
        if _tracing:
            use_bentoml_provider()
            log.info("tracing: OTLP/HTTP to %s, sample rate %s", _tracing["otlp"]["endpoint"], S.trace_sample_rate)
        log.info("settings: %s", S.redacted())
        from .label_sets import load_dir

        self.label_sets = load_dir(S.label_sets) if S.label_sets else {}
        stored = self.model_ref
        self.spec = ModelSpec.from_metadata(stored.info.metadata)
        self.model_tag = str(stored.tag)
        # several workers share the cores this process may use: size each worker's thread pool to its share
        threads = S.cpu_threads or max(1, len(os.sched_getaffinity(0)) // S.workers)
        backend = load_backend(stored.path, self.spec, S.runtime, S.device, threads, S.onnx_variant)
        batching = S.batching(backend.device)
        self.engine = Engine(
            self.spec,
            Tokenizer.load(stored.path, self.spec.max_length),
            backend,
            token_budget=batching.token_budget,
            max_rows=batching.max_rows,
            batch_overhead_tokens=max(S.batch_overhead_tokens, 0),
        )
        log.info("loaded %s (%s) on %s; warming up", self.model_tag, self.spec.kind, backend.name)
        row_width = self.engine.warmup()
        if S.batch_overhead_tokens < 0:
            log.info("forward-pass overhead measured at %d tokens", self.engine.calibrate())
        self._metrics = metrics
        log.info("batching on %s: %s", backend.device, batching)
        self.batcher = AdaptiveBatcher(
            self._prepare,
            self._run,
            batching.max_batch_size,
            S.max_latency_ms,
            metrics.observe_batch,
            in_flight=batching.batches_in_flight,
        )
        redis = RedisTier(S.redis_url, S.cache_ttl_s, S.redis_timeout_ms / 1000) if S.redis_url else None
        self.classifier = Classifier(
            self.spec,
            self.batcher.submit,
            local=LocalTier(S.cache_local_entries, S.cache_local_mb * 2**20),
            labels=LocalTier(S.label_cache_size, S.label_cache_size * row_width * 4),
            redis=redis,
            prefix=S.cache_prefix,
            row_width=row_width,
        )
        log.info("cache: in-process tier%s", f" + Redis at {redis.url}" if redis else " only (no ZSC_REDIS_URL)")
        self._interactive = 0  # interactive requests in flight: the job worker yields while there are any
        self._interactive_seen = 0.0  # when the last one ended (time.monotonic)
        self.jobs = self._job_manager()
        # Everything loaded so far lives as long as the process: move it out of the garbage collector's
        # sight, so the collections that request handling triggers do not scan the model's objects.
        gc.collect()
        gc.freeze()
        self._ready = True
        log.info("ready: %s", self.model_tag)

    def __is_ready__(self) -> bool:
        # Readiness is the model's, never Redis's: without Redis the service answers from the model.
        return self._ready

    @bentoml.on_startup
    async def _start_jobs(self) -> None:
        import asyncio

        if self.jobs.worker is not None:  # on the serving event loop: the worker's tasks live there
            self.jobs.worker.start()
            log.info("job worker: %s", self.jobs.worker.config)
        self._depth_watch = asyncio.create_task(self.jobs.watch_depth(self._metrics.JOB_QUEUE.set))

    @bentoml.on_shutdown
    async def _close(self) -> None:
        self._depth_watch.cancel()
        if self.jobs.worker is not None:
            await self.jobs.worker.stop()  # its unfinished chunk goes back to the queue for another worker
        await self.jobs.store.close()
        if self.classifier.redis is not None:
            await self.classifier.redis.close()

    @bentoml.api(route="/classify")
    @error_boundary
    async def classify(self, request: ClassifyRequest, /, ctx: bentoml.Context) -> ClassifyResponse:
        """Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked."""
        [answer] = await self._classify([request], ctx)
        return answer

    @bentoml.api(route="/classify_batch")
    @error_boundary
    async def classify_batch(self, request: ClassifyBatchRequest, /, ctx: bentoml.Context) -> ClassifyBatchResponse:
        """Rank labels for many texts in one call; each item carries its own labels and options."""
        return ClassifyBatchResponse(results=await self._classify(request.items, ctx))

    @bentoml.api(route="/hf/zero-shot-classification")
    @error_boundary
    async def hf_zero_shot(self, request: HfZeroShotRequest, /, ctx: bentoml.Context) -> HfZeroShotOutput:
        """Hugging Face's zero-shot-classification request and answer shape, so its clients work unchanged:
        `InferenceClient(model="http://HOST:PORT/hf/zero-shot-classification").zero_shot_classification(...)`."""
        items = request.requests()
        answers = await self._classify(items, ctx)
        out = [HfZeroShotAnswer(sequence=i.text, labels=a.labels, scores=a.scores) for i, a in zip(items, answers)]
        return HfZeroShotOutput(out[0] if isinstance(request.inputs, str) else out)

    # -- helpers ------------------------------------------------------------------------------------
    async def _classify(self, requests: list[ClassifyRequest], ctx: bentoml.Context) -> list[ClassifyResponse]:
        self._interactive += 1
        try:
            return await self._answer(requests, ctx)
        finally:
            self._interactive -= 1
            self._interactive_seen = time.monotonic()

    def _interactive_busy(self) -> bool:
        return self._interactive > 0 or time.monotonic() - self._interactive_seen < INTERACTIVE_GRACE_S

    async def _answer(self, requests: list[ClassifyRequest], ctx: bentoml.Context) -> list[ClassifyResponse]:
        import anyio

        from .requests import answer, needs_tokenizer, prepare_all, resolve

        tokenizer = self.engine.tokenizer
        resolved = [resolve(r, self.label_sets, self.model_tag, self.spec.revision) for r in requests]
        requests = [r.request for r in resolved]
        args = (resolved, self.spec, tokenizer, S.max_windows, S.max_pairs_per_request)
        if any(needs_tokenizer(r, self.spec, tokenizer) for r in requests):  # long texts: off the event loop
            prepared = await anyio.to_thread.run_sync(prepare_all, *args)
        else:
            prepared = prepare_all(*args)
        results = await self.classifier.classify([p.task for p in prepared])
        statuses = {r.cache for r in results}
        ctx.response.headers["X-Cache"] = statuses.pop() if len(statuses) == 1 else "partial"
        warnings = sorted({w.code for p in prepared for w in p.warnings})
        if warnings:
            ctx.response.headers["X-ZSC-Warnings"] = ",".join(warnings)
        return [
            answer(r, p, res.scores, self.model_tag, self.spec.revision)
            for r, p, res in zip(requests, prepared, results)
        ]

    async def _run_job_items(self, items: list[dict]) -> list[dict]:
        """A slice of a job's items through the interactive path (cache, batching, engine): each item's
        answer as /classify_batch gives it, or its own error (the rest of the slice goes on)."""
        import anyio

        from .jobs.records import item_error
        from .requests import answer, prepare_all, resolve

        def prepare_each():
            out = []
            for raw in items:
                try:
                    request = ClassifyRequest.model_validate(raw)
                    resolved = resolve(request, self.label_sets, self.model_tag, self.spec.revision)
                    [prepared] = prepare_all(
                        [resolved], self.spec, self.engine.tokenizer, S.max_windows, S.max_pairs_per_request
                    )
                    out.append((resolved.request, prepared))
                except ServiceError as exc:
                    out.append(item_error(str(exc), exc.error_type))
                except ValidationError as exc:
                    out.append(item_error(str(exc.errors()[0]["msg"]), "invalid_request"))
            return out

        prepared = await anyio.to_thread.run_sync(prepare_each)
        ready = [p for p in prepared if isinstance(p, tuple)]
        results = iter(await self.classifier.classify([p.task for _, p in ready]))
        return [
            p if isinstance(p, dict)
            else answer(p[0], p[1], next(results).scores, self.model_tag, self.spec.revision).model_dump(mode="json")
            for p in prepared
        ]  # fmt: skip

    def _job_manager(self):
        from . import metrics
        from .jobs.manager import JobManager
        from .jobs.redis_store import RedisJobStore
        from .jobs.store import MemoryJobStore
        from .jobs.worker import JobWorker, WorkerConfig

        if S.redis_url:
            store = RedisJobStore(S.redis_url, S.cache_prefix, S.job_visibility_s)
        else:
            store = MemoryJobStore()
        worker = None
        if S.job_workers:
            config = WorkerConfig(
                consumer=f"{socket.gethostname()}-{os.getpid()}",
                concurrency=S.job_workers,
                slice_items=S.job_slice_items,
                share=S.job_share_pct / 100,
                visibility_s=S.job_visibility_s,
                max_attempts=S.job_max_attempts,
            )
            worker = JobWorker(store, self._run_job_items, config, self._interactive_busy, metrics.observe_job_worker)
        log.info("jobs: %s store%s", store.backend, "" if worker else ", no worker on this replica (ZSC_JOB_WORKERS=0)")
        return JobManager(store, worker, S.job_chunk_items, S.job_ttl_s)

    # The engine's two stages, in the batcher's threads. Whatever goes wrong in there is the model's
    # failure, reported as such to every request of the merged batch.
    def _prepare(self, sequences):
        try:
            return self.engine.prepare(sequences)
        except Exception as exc:
            self._metrics.ENGINE_ERRORS.inc()
            raise BackendFailure(exc) from exc

    def _run(self, prepared):
        try:
            rows, stats = self.engine.run(prepared)
        except Exception as exc:
            self._metrics.ENGINE_ERRORS.inc()
            raise BackendFailure(exc) from exc
        self._metrics.observe_engine(stats)
        return rows


# Routes that are not one JSON body in and out (label sets, jobs, the web page), beside the APIs above
ZeroShotClassifier.mount_asgi_app(routes.app, path="/", name="zsc_routes")
# Request ids, API keys, rate limits, the body bound, Retry-After and the access line, for every route
ZeroShotClassifier.add_asgi_middleware(EdgeMiddleware, settings=S)
