"""Routes beside the BentoML APIs that are not a JSON body in and out (BentoML's APIs are POST with a
body): a Starlette app mounted at the service's root. BentoML mounts it passively, so it answers only the
paths listed here; handlers reach the running service through ``bentoml.get_current_service()``."""

from __future__ import annotations

import bentoml
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route


async def label_sets(request: Request) -> JSONResponse:
    """The label sets this replica holds (ZSC_LABEL_SETS), and whether each was tuned on its model."""
    svc = bentoml.get_current_service()
    sets = [s.summary(svc.model_tag, svc.spec.revision) for s in svc.label_sets.values()]
    return JSONResponse({"label_sets": sets})


app = Starlette(routes=[Route("/label_sets", label_sets, methods=["GET"])])
