"""The admin API: models loaded, replaced and unloaded while the replica serves, with no failed request.

    POST   /admin/models          {"model": "NAME[:VERSION]"}: load it from the model store and serve it;
                                  one of the same name (another version) is replaced
    DELETE /admin/models/{name}   stop serving it and give its memory back

Only with an admin key (``ZSC_ADMIN_KEYS``; the middleware refuses a data key with 403), and only on a
replica of one worker process (a call reaches one worker; 409 otherwise). A models file
(``ZSC_MODELS_FILE``, a ConfigMap on Kubernetes) does the same by its content: ``watch_models_file`` re-reads
it when it changes and loads, replaces, unloads and reorders to match (its first line is the default).
Loading runs in a thread while requests are served; in-flight calls finish on the model they started on
(``ModelRegistry.add``); a replaced or unloaded model is retired once its last call is done. One change at
a time.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from service.errors import InvalidRequest, ManyWorkers, ModelNotFound, NotInStore, ServiceError
from service.http.errors import error_boundary

if TYPE_CHECKING:
    from service.build import Components, StoredModel

log = logging.getLogger("zsc.http.admin")
FileStored = Callable[[str], "StoredModel"]  # a tag -> the stored model (ModelNotFound when not in the store)


def routes(components: Components, stored: FileStored, lock: asyncio.Lock) -> list[Route]:
    models = components.models

    def one_worker() -> None:
        if components.settings.workers > 1:
            raise ManyWorkers(components.settings.workers)

    @error_boundary
    async def load(request: Request) -> JSONResponse:
        one_worker()
        try:
            body = json.loads(await request.body())
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InvalidRequest(f"the body is not JSON: {exc}") from None
        if not isinstance(body, dict) or set(body) != {"model"} or not isinstance(body["model"], str):
            raise InvalidRequest('send {"model": "NAME[:VERSION]"}: a model in the store')
        async with lock:
            changed, replaced = await _serve(components, stored(body["model"]))
        served = models.find(body["model"])
        return JSONResponse({"model": served.summary(served is models.default), "changed": changed,
                             "replaced": replaced, "models": models.summaries()})  # fmt: skip

    @error_boundary
    async def unload(request: Request) -> JSONResponse:
        one_worker()
        async with lock:
            model, freed = await components.unload(request.path_params["name"])
        log.info("unloaded %s: %.0f MB freed", model.tag, freed)
        return JSONResponse({"unloaded": model.tag, "memory_freed_mb": round(freed, 1), "models": models.summaries()})

    return [
        Route("/admin/models", load, methods=["POST"]),
        Route("/admin/models/{name:str}", unload, methods=["DELETE"]),
    ]


async def _serve(components: Components, model: StoredModel) -> tuple[bool, str | None]:
    """Serve a stored model unless that very version is served already: (changed, the tag replaced)."""
    try:
        if components.models.find(model.tag).tag == model.tag:
            return False, None
    except ModelNotFound:
        pass
    log.info("loading %s", model.tag)
    served = await anyio.to_thread.run_sync(components.load, model)  # the event loop serves meanwhile
    old = await components.swap(served)
    log.info("serving %s%s", served.tag, f" in place of {old.tag}" if old else "")
    return True, old.tag if old else None


def store_lookup(tag: str) -> StoredModel:
    """A model of this process's BentoML store (``NotInStore`` when it has none by that tag)."""
    import bentoml
    from bentoml.exceptions import NotFound

    from service.build import StoredModel

    try:
        m = bentoml.models.get(tag)
    except (NotFound, ValueError):
        raise NotInStore(tag) from None
    return StoredModel(str(m.tag), Path(m.path), dict(m.info.metadata))


def read_models_file(path: Path) -> list[str]:
    """Tags, one per line (commas too); blank lines and ``#`` comments ignored."""
    tags: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for tag in line.split("#", 1)[0].split(","):
            if tag.strip() and tag.strip() not in tags:
                tags.append(tag.strip())
    return tags


async def reconcile(components: Components, stored: FileStored, tags: list[str]) -> None:
    """Make the served models what ``tags`` lists, in its order; a model that cannot be loaded is logged
    and skipped, the others still change."""
    if not tags:
        log.error("the models file lists no model: nothing changes")
        return
    for tag in tags:
        try:
            await _serve(components, stored(tag))
        except ServiceError as exc:
            log.error("models file: %s not served: %s", tag, exc)
    wanted = set()
    for tag in tags:
        try:
            wanted.add(components.models.find(tag).name)
        except ModelNotFound:
            continue
    for model in [m for m in components.models.served if m.name not in wanted]:
        if len(components.models.served) > 1:
            await components.unload(model.name)
    components.models.order([t.split(":")[0] for t in tags])


async def watch_models_file(
    components: Components, stored: FileStored, path: Path, lock: asyncio.Lock, every_s: float = 2.0
) -> None:
    """Reconcile with the file at start and whenever it changes (its modification time or size), until
    cancelled. A Kubernetes ConfigMap update swaps a symlink: the path is read afresh every time."""
    seen: tuple[float, int] | None = None
    while True:
        try:
            stat = path.stat()
            now = (stat.st_mtime, stat.st_size)
            if now != seen:
                tags = read_models_file(path)
                async with lock:
                    await reconcile(components, stored, tags)
                seen = now
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("models file %s: could not apply it; retrying", path)
        await asyncio.sleep(every_s)
