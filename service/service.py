"""The BentoML surface: validate -> adaptive batching -> engine -> backend. Thin on purpose.

``/classify`` and ``/classify_batch`` validate (schemas), then hand their items to ``/infer``, the
batchable endpoint, through BentoML's in-process proxy: BentoML's adaptive batcher merges the items of
concurrent requests, and the engine runs each merged batch once.
"""

from __future__ import annotations

import logging

import bentoml

from .config import settings
from .errors import error_response
from .schemas import (
    ClassifyBatchRequest,
    ClassifyBatchResponse,
    ClassifyRequest,
    ClassifyResponse,
    InferResult,
)

log = logging.getLogger("zsc")
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
        from .engine import Engine
        from .models import load_spec
        from .tokenization import Tokenizer

        self._ready = False
        stored = self.model_ref
        self.spec = load_spec(stored)
        self.model_tag = str(stored.tag)
        self._metrics = metrics
        backend = load_backend(stored.path, self.spec, S.runtime, S.device, S.cpu_threads, S.onnx_variant)
        self.engine = Engine(
            self.spec,
            Tokenizer.load(stored.path, self.spec.max_length),
            backend,
            token_budget=S.token_budget,
            max_rows=S.max_rows,
            label_cache_size=S.label_cache_size,
            batch_overhead_tokens=S.batch_overhead_tokens,
        )
        log.info("loaded %s (%s) on %s; warming up", self.model_tag, self.spec.kind, backend.name)
        self.engine.warmup()
        self._ready = True
        log.info("ready: %s", self.model_tag)

    def __is_ready__(self) -> bool:
        return self._ready

    @bentoml.api(route="/classify")
    async def classify(self, request: ClassifyRequest, /) -> ClassifyResponse:
        """Rank the candidate labels for one text."""
        [result] = await self._infer([request])
        if result.error is not None:
            return error_response(result.error_type or "backend_error", result.error)
        return self._response(request, result.scores)

    @bentoml.api(route="/classify_batch")
    async def classify_batch(self, request: ClassifyBatchRequest, /) -> ClassifyBatchResponse:
        """Rank labels for many texts in one call; each item carries its own labels."""
        results = await self._infer(request.items)
        for result in results:
            if result.error is not None:
                return error_response(result.error_type or "backend_error", result.error)
        return ClassifyBatchResponse(
            results=[self._response(item, r.scores) for item, r in zip(request.items, results)]
        )

    @bentoml.api(
        route="/infer",
        batchable=True,
        batch_dim=0,
        max_batch_size=S.max_batch_size,
        max_latency_ms=S.max_latency_ms,
    )
    def infer(self, items: list[ClassifyRequest]) -> list[InferResult]:
        """Batchable low-level endpoint behind /classify and /classify_batch: scores in label order.
        Prefer /classify; this one exists so that BentoML's adaptive batching can merge requests."""
        from .engine import Task

        tasks = [
            Task(
                text=item.text,
                labels=tuple(item.label_list),
                template=item.hypothesis_template or self.spec.default_template,
                multi_label=item.multi_label,
            )
            for item in items
        ]
        outcomes, stats = self.engine.run(tasks)
        failed = any(o.error is not None for o in outcomes)
        self._metrics.observe_batch(stats, failed)
        if failed:
            log.error("engine batch of %d items failed: %r", len(items), outcomes[0].error)
        return [
            InferResult(scores=o.scores)
            if o.error is None
            else InferResult(error=f"inference failed: {o.error}", error_type="backend_error")
            for o in outcomes
        ]

    # -- helpers ------------------------------------------------------------------------------------
    async def _infer(self, items: list[ClassifyRequest]) -> list[InferResult]:
        # Through the proxy, not .local: that is what puts the items in the adaptive-batching queue.
        raw = await self.to_async.infer(items=items)
        return [r if isinstance(r, InferResult) else InferResult.model_validate(r) for r in raw]

    def _response(self, request: ClassifyRequest, scores: list[float]) -> ClassifyResponse:
        ranked = sorted(zip(request.label_list, scores), key=lambda p: p[1], reverse=True)
        return ClassifyResponse(
            labels=[label for label, _ in ranked],
            scores=[score for _, score in ranked],
            multi_label=request.multi_label,
            model=self.model_tag,
            revision=self.spec.revision,
        )
