"""The BentoML surface: validate -> cache -> adaptive batching -> engine -> backend. Thin on purpose.

``/classify`` and ``/classify_batch`` validate (schemas), look every needed model row up in the cache
tiers, and send only the missing sequences into BentoML's adaptive-batching dispatcher (see batcher.py),
which merges concurrent requests' misses into one engine call. A fully cached request never queues.
"""

from __future__ import annotations

import gc
import logging
import os

import bentoml

from . import routes
from .config import settings
from .errors import BackendFailure, error_boundary
from .schemas import (
    ClassifyBatchRequest,
    ClassifyBatchResponse,
    ClassifyRequest,
    ClassifyResponse,
    HfZeroShotAnswer,
    HfZeroShotOutput,
    HfZeroShotRequest,
)

log = logging.getLogger("zsc.service")
S = settings()
# The GPU deployment (ZSC_DEVICE=cuda) declares its GPU so BentoML assigns one per worker.
_resources = {"gpu": 1} if S.device == "cuda" else None


@bentoml.service(
    name="zero_shot_classifier",
    workers=S.workers,
    **({"resources": _resources} if _resources else {}),
    traffic={"timeout": S.timeout_s, **({"max_concurrency": S.max_concurrency} if S.max_concurrency else {})},
)
class ZeroShotClassifier:
    model_ref = bentoml.models.BentoModel(S.model)

    def __init__(self) -> None:
        # heavy imports here: importing the module (bentoml build, the client generator) stays cheap
        from . import metrics
        from .backends import load_backend
        from .batcher import AdaptiveBatcher
        from .cache import LocalTier, RedisTier
        from .classifier import Classifier
        from .engine import Engine
        from .model_spec import ModelSpec
        from .tokenization import Tokenizer

        self._ready = False
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
        # Everything loaded so far lives as long as the process: move it out of the garbage collector's
        # sight, so the collections that request handling triggers do not scan the model's objects.
        gc.collect()
        gc.freeze()
        self._ready = True
        log.info("ready: %s", self.model_tag)

    def __is_ready__(self) -> bool:
        # Readiness is the model's, never Redis's: without Redis the service answers from the model.
        return self._ready

    @bentoml.on_shutdown
    async def _close(self) -> None:
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


# GET routes (the label sets; BentoML's APIs are POST), answered beside the APIs above
ZeroShotClassifier.mount_asgi_app(routes.app, path="/", name="zsc_routes")
