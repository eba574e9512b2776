"""The BentoML service: it holds the components ``service.build`` makes, runs their lifecycle, and declares
the classification APIs. A POST to one of them is answered by the edge's own layer
(``http/classify_routes.py``: cheaper than BentoML's way to an endpoint); the declarations give BentoML's
document and clients their shapes and answer through the same ``ClassifyRoutes`` should a request reach them.

Serve it with ``bentoml serve service.http.app:ZeroShotClassifier`` (``make serve``).
"""

from __future__ import annotations

import gc
import logging
from typing import TypeVar

import bentoml

from service.admission.gate import Admission
from service.api import limits
from service.api.classify import ClassifyBatchRequest, ClassifyBatchResponse, ClassifyRequest, ClassifyResponse
from service.api.hf import HfZeroShotOutput, HfZeroShotRequest
from service.api.limits import RequestLimits
from service.config import settings
from service.http import connections
from service.http.classify_routes import ClassifyRoutes, ClassifyTable, Headers
from service.http.drain import drain_on_sigterm
from service.http.edge import Edge
from service.http.errors import error_boundary
from service.http.openapi import merged
from service.http.routes import RoutesBoundLater, make_app
from service.http.sender import sender_of
from service.http.timeout import install as install_timeout
from service.obs import logs
from service.obs.tracing import bentoml_tracing_config, use_bentoml_provider

log = logging.getLogger("zsc.http")
T = TypeVar("T")
SETTINGS = settings()
limits.use(RequestLimits.from_settings(SETTINGS))  # for the bodies BentoML validates, and the document it writes
install_timeout()  # BentoML's per-request timeout, with its timer cancelled once the answer starts
connections.install(SETTINGS)  # uvicorn's connections with head, body and send timeouts and a bound on the pending
# The GPU deployment (ZSC_DEVICE=cuda) declares its GPU so BentoML assigns one per worker.
_resources = {"gpu": 1} if SETTINGS.device == "cuda" else None
_tracing = bentoml_tracing_config(float(SETTINGS.trace_sample_rate))
if SETTINGS.log_format == "json":
    logs.configure("json")  # the serving CLI's own lines too; the worker's handlers again in __init__
ROUTES = RoutesBoundLater()  # label sets, jobs, the documents, the pages: bound once this worker's components exist
# who gets in, one per worker process: made before the framework builds the edge, given to it and to build()
ADMISSION = Admission.from_settings(SETTINGS)
CLASSIFY = ClassifyTable()  # the classification APIs the edge answers: bound once the components exist


SERVED = SETTINGS.served_models()  # ZSC_MODELS, else ZSC_MODEL: the default first


class ZeroShotClassifier:
    def __init__(self) -> None:
        from service.build import build  # the heavy imports: importing this module stays cheap
        from service.http import admin
        from service.http.model_store import find_stored, stored

        self._ready = False
        logs.configure(SETTINGS.log_format)
        if _tracing:
            use_bentoml_provider()
            log.info(
                "tracing: OTLP/HTTP to %s, sample rate %s", _tracing["otlp"]["endpoint"], SETTINGS.trace_sample_rate
            )
        log.info("settings: %s", SETTINGS.redacted())
        models = [stored(getattr(self, f"model_{i}")) for i in range(len(SERVED))]
        self.components = build(SETTINGS, models, admission=ADMISSION, find_stored=find_stored)
        self.models = self.components.models
        document = lambda: merged(ZeroShotClassifier.openapi_spec.asdict(), self.models.default.name)  # noqa: E731
        admin_routes = admin.routes(self.components.model_manager, SETTINGS)
        ROUTES.bind(make_app(self.components, openapi=document, extra=admin_routes))
        self.routes = ClassifyRoutes(self.models)
        CLASSIFY.bind(self.routes)
        # Everything loaded so far lives as long as the process: move it out of the garbage collector's
        # sight, so the collections that request handling triggers do not scan the model's objects.
        gc.collect()
        gc.freeze()
        self._ready = True
        log.info("ready: %s", ", ".join(m.tag for m in models))

    def __is_ready__(self) -> bool:
        # Readiness is the model's, never Redis's: without Redis the service answers from the model. A
        # replica draining after SIGTERM is not ready: it takes no new request.
        return self._ready and not ADMISSION.stopping

    @bentoml.on_startup
    async def _start(self) -> None:
        await self.components.start()  # with ZSC_MODELS_FILE, the served models follow the file from here
        drain_on_sigterm(ADMISSION, self.components.quiesce, SETTINGS.timeout_s)

    @bentoml.on_shutdown
    async def _stop(self) -> None:
        await self.components.stop()

    @bentoml.api(route="/classify")
    @error_boundary
    async def classify(self, request: ClassifyRequest, /, ctx: bentoml.Context) -> ClassifyResponse:
        """Rank the candidate labels for one text; decide with a threshold; long texts cut or chunked."""
        return answered(await self.routes.classify(request, sender_of(ctx.request.scope)), ctx)

    @bentoml.api(route="/classify_batch")
    @error_boundary
    async def classify_batch(self, request: ClassifyBatchRequest, /, ctx: bentoml.Context) -> ClassifyBatchResponse:
        """Rank labels for many texts in one call; each item carries its own labels and options."""
        return answered(await self.routes.classify_batch(request, sender_of(ctx.request.scope)), ctx)

    @bentoml.api(route="/hf/zero-shot-classification")
    @error_boundary
    async def hf_zero_shot(self, request: HfZeroShotRequest, /, ctx: bentoml.Context) -> HfZeroShotOutput:
        """Hugging Face's zero-shot-classification request and answer shape, so its clients work unchanged:
        `InferenceClient(model="http://HOST:PORT/hf/zero-shot-classification").zero_shot_classification(...)`."""
        return answered(await self.routes.hf_zero_shot(request, sender_of(ctx.request.scope)), ctx)


def answered(result: tuple[T, Headers], ctx: bentoml.Context) -> T:
    answer, headers = result
    ctx.response.headers.update(headers)
    return answer


# One class attribute per served model: BentoML packages (bentoml build) and resolves the models its service
# class names; `model_0` is the default
for _i, _name in enumerate(SERVED):
    setattr(ZeroShotClassifier, f"model_{_i}", bentoml.models.BentoModel(_name))
ZeroShotClassifier = bentoml.service(
    name="zero_shot_classifier",
    workers=SETTINGS.workers,
    **({"resources": _resources} if _resources else {}),
    traffic={"timeout": SETTINGS.timeout_s},  # ZSC_MAX_CONCURRENCY: service.admission, so its 429 says when to retry
    # our access line (http/edge) carries the request id, cache status and pairs: BentoML's would repeat it
    logging={"access": {"enabled": False}},
    # without a collector, BentoML's tracing middleware would still record a span per request (its request
    # ids come from them), a third of what a 429 costs under overload: it is told to skip every path
    tracing=_tracing or {"excluded_urls": [".*"]},
)(ZeroShotClassifier)

# Routes that are not one JSON body in and out (label sets, jobs, the web page), beside the APIs above
ZeroShotClassifier.mount_asgi_app(ROUTES, path="/", name="zsc_routes")
# Request ids, API keys, rate limits, the body read and bound, admission and the access line, for every route
ZeroShotClassifier.add_asgi_middleware(Edge, settings=SETTINGS, admission=ADMISSION, classify=CLASSIFY)
