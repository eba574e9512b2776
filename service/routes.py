"""Routes beside the BentoML APIs that are not one JSON body in and out (BentoML's APIs are POST with a
body): a Starlette app mounted at the service's root. BentoML mounts it passively, so it answers only the
paths listed here; handlers reach the running service through ``bentoml.get_current_service()``."""

from __future__ import annotations

import bentoml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .jobs import api as jobs
from .ui import STATIC


async def label_sets(request: Request) -> JSONResponse:
    """The label sets this replica holds (ZSC_LABEL_SETS), and whether each was tuned on its model."""
    svc = bentoml.get_current_service()
    sets = [s.summary(svc.model_tag, svc.spec.revision) for s in svc.label_sets.values()]
    return JSONResponse({"label_sets": sets})


async def openapi_document(request: Request) -> JSONResponse:
    """BentoML's /docs.json plus the routes mounted here: the whole API, what the typed client is made from."""
    from .openapi import merged
    from .service import ZeroShotClassifier  # the bentoml.Service (its instance has no openapi_spec)

    return JSONResponse(merged(ZeroShotClassifier.openapi_spec.asdict()))


async def ui_root(request: Request) -> RedirectResponse:
    return RedirectResponse("/ui/", status_code=308)


app = Starlette(
    routes=[
        Route("/label_sets", label_sets, methods=["GET"]),
        Route("/openapi.json", openapi_document, methods=["GET"]),
        Route("/jobs", jobs.submit, methods=["POST"]),
        Route("/jobs/{job_id:str}", jobs.status_or_cancel, methods=["GET", "DELETE"]),
        Route("/jobs/{job_id:str}/results", jobs.results, methods=["GET"]),
        Route("/ui", ui_root, methods=["GET"]),
        Mount("/ui", app=StaticFiles(directory=STATIC, html=True), name="ui"),
    ]
)
