"""Routes beside the BentoML APIs that are not one JSON body in and out (label sets, jobs, OpenAI's API
shape under /v1, the OpenAPI document, the web page, the Swagger page): a Starlette app made by ``make_app``
from the components it serves, so no handler looks anything up.

BentoML mounts apps when the service class is defined, before a worker has built its components, so the
class mounts ``RoutesBoundLater``, a Starlette app without routes until ``bind`` gives it those ``make_app`` made (in
the service's ``__init__``, before the worker reports ready). BentoML mounts it passively (``PassiveMount``
reads its routes per request): it answers only the paths listed here, and everything else, its own routes
included, stays BentoML's.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from service.http import decisions, jobs, systemone
from service.http.sender import key_of
from service.ui import STATIC

if TYPE_CHECKING:  # importing this module stays cheap: the serving CLI imports it before any worker exists
    from service.build import Components

SWAGGER = STATIC.parent / "swagger.html"  # BentoML's Swagger UI page, pointed at /openapi.json


def make_app(
    components: Components, openapi: Callable[[], dict[str, Any]], extra: Sequence[BaseRoute] = ()
) -> Starlette:
    """The routes of one serving process; ``openapi`` makes the whole document (BentoML's plus ours);
    ``extra``: more routes (the admin API)."""
    models = components.models
    document: dict[str, Any] = {}

    async def label_sets(request: Request) -> JSONResponse:
        """The label sets this replica holds (ZSC_LABEL_SETS), whether each was tuned on the model it runs on
        here, and its calibration (a traffic one: the texts its wording has seen on that model); then every
        traffic record this replica holds, ad hoc wordings too, per model and scope. A caller sees its own API
        key's scope and the shared one, never another key's."""
        key = key_of(request.scope)
        sets = []
        for s in components.label_sets.values():
            model = models.for_label_set(s.name)
            summary = s.summary(model.tag, model.spec.revision)
            summary["calibration"] = await model.pipeline.label_set_calibration(s.name, key)
            sets.append(summary)
        scopes = [{"model": m.name, **seen} for m in models.served for seen in m.pipeline.calibration_scopes(key)]
        return JSONResponse({"label_sets": sets, "calibration_scopes": scopes})

    async def served_models(request: Request) -> JSONResponse:
        """The models this replica serves (ZSC_MODELS), the default first."""
        return JSONResponse({"models": models.summaries()})

    async def openapi_document(request: Request) -> JSONResponse:
        """The whole API, jobs and label sets included: what the typed client is generated from."""
        if not document:  # made once: the settings it states do not change while the process runs
            document.update(openapi())
        return JSONResponse(document)

    async def swagger(request: Request) -> HTMLResponse:
        return HTMLResponse(SWAGGER.read_text(encoding="utf-8"))

    async def ui_root(request: Request) -> RedirectResponse:
        return RedirectResponse("/ui/", status_code=308)

    job_routes = jobs.routes(components.jobs, models, components.settings)
    openai_routes = decisions.routes(components.decisions) if components.decisions is not None else []
    system_one_routes = systemone.routes(components.system_one) if components.system_one is not None else []
    return Starlette(
        routes=[
            Route("/", swagger, methods=["GET"]),
            Route("/label_sets", label_sets, methods=["GET"]),
            Route("/models", served_models, methods=["GET"]),
            Route("/openapi.json", openapi_document, methods=["GET"]),
            *job_routes,
            *openai_routes,
            *system_one_routes,
            *extra,
            Route("/ui", ui_root, methods=["GET"]),
            Mount("/ui", app=StaticFiles(directory=STATIC, html=True), name="ui"),
        ]
    )


class RoutesBoundLater(Starlette):
    """The mounted app: no routes (so no path is taken from BentoML) until ``bind``."""

    def __init__(self) -> None:
        super().__init__(routes=[])

    def bind(self, app: Starlette) -> None:
        self.router.routes[:] = app.router.routes
