"""The admin API: models loaded, replaced and unloaded while the replica serves, with no failed request.

    POST   /admin/models          {"model": "NAME[:VERSION]"}: load it from the model store and serve it;
                                  one of the same name (another version) is replaced
    DELETE /admin/models/{name}   stop serving it and give its memory back

Only with an admin key (``ZSC_ADMIN_KEYS``; the edge refuses a data key with 403), and only on a replica of
one worker process (a call reaches one worker; 409 otherwise: the models file, which every worker follows,
changes them all). The changes themselves are ``service.runtime.models.ModelManager``'s.
"""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from service.config import Settings
from service.errors import InvalidRequest, ManyWorkers
from service.http.errors import error_boundary
from service.pipeline.registry import ModelRegistry
from service.runtime.models import ModelManager


def routes(manager: ModelManager, settings: Settings) -> list[Route]:
    models: ModelRegistry = manager.registry

    def one_worker() -> None:
        if settings.workers > 1:
            raise ManyWorkers(settings.workers)

    @error_boundary
    async def load(request: Request) -> JSONResponse:
        one_worker()
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict) or set(body) != {"model"} or not isinstance(body["model"], str):
            raise InvalidRequest('send {"model": "NAME[:VERSION]"}: a model in the store')
        changed, replaced = await manager.serve(body["model"])
        served = models.find(body["model"])
        return JSONResponse({"model": served.summary(served is models.default), "changed": changed,
                             "replaced": replaced, "models": models.summaries()})  # fmt: skip

    @error_boundary
    async def unload(request: Request) -> JSONResponse:
        one_worker()
        model, freed = await manager.unload(request.path_params["name"])
        return JSONResponse({"unloaded": model.tag, "memory_freed_mb": round(freed, 1), "models": models.summaries()})

    return [
        Route("/admin/models", load, methods=["POST"]),
        Route("/admin/models/{name:str}", unload, methods=["DELETE"]),
    ]
