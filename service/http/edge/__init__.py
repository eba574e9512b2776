"""The HTTP edge: what every request passes before (and after) its endpoint, as small ASGI layers, each with
one job, outermost first:

    RequestLog      request id, X-Request-ID and Retry-After on answers, the access line   (request_log.py)
    RoleGate        a jobs replica (ZSC_ROLE=jobs): its probes and /metrics only, else 404  (role.py)
    Access          API keys, admin keys, per-key rate limit                                (access.py)
    BodyReader      media type, body bound, the whole body read, bodies' memory bounded    (body.py)
    Admit           the in-flight limits: taken in, or 429 (service.admission)             (admit.py)
    ClassifyEndpoints  /classify, /classify_batch and the HF route answered, past BentoML  (../classify_routes.py)
    FrameworkErrors BentoML's 400 and the router's 404 in the API's words                 (framework.py)

Every refusal is an error of ``service.errors`` answered through ``http/errors.py``'s one table. Slow and
idle connections are handled below ASGI (``http/connections.py``). Pure ASGI (no BaseHTTPMiddleware):
bodies pass untouched and a layer costs a few microseconds. BentoML adds ``Edge`` inside its own tracing,
timeout and concurrency middlewares (``add_asgi_middleware``).
"""

from __future__ import annotations

from typing import Any

from service.admission.gate import Admission
from service.config import Settings
from service.http.classify_routes import ClassifyEndpoints, ClassifyTable
from service.http.edge.access import Access
from service.http.edge.admit import Admit
from service.http.edge.body import BodyReader
from service.http.edge.framework import FrameworkErrors
from service.http.edge.request_log import RequestLog
from service.http.edge.role import RoleGate


class Edge:
    def __init__(self, app: Any, settings: Settings, admission: Admission, classify: ClassifyTable) -> None:
        endpoints = ClassifyEndpoints(FrameworkErrors(app), classify)
        inner: Any = Access(BodyReader(Admit(endpoints, admission), settings), settings)
        if settings.role == "jobs":
            inner = RoleGate(inner, settings.role)
        self.app = RequestLog(inner, settings.retry_after_s)

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
