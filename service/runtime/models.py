"""Models changed while the replica serves, one change at a time, with no failed request.

- ``serve(tag)``: load a stored model (in a thread: the event loop serves meanwhile), after checking that it
  fits in the memory the replica may still use (``ModelTooLarge``), and serve it; a model of the same name
  (another version) is replaced in its place and retired once its calls in flight have finished;
- ``unload(name)``: stop serving a model, retire it, and give its memory back;
- ``reconcile(tags)`` / ``follow(path)``: make the served models what a models file lists (``ZSC_MODELS_FILE``,
  a Kubernetes ConfigMap), in its order (its first line is the default), re-read whenever it changes; a
  model that cannot be loaded is logged and skipped, the others still change.

Calls already under way finish on the models they started on (``ModelRegistry.add`` swaps its list whole).
The admin API (``http/admin.py``) and the file both come here; ``service.build`` gives the manager the
function that constructs a served model and the one that finds a model in the store.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path

import anyio

from service.backends.files import memory_needed_mb
from service.config import Settings, model_name
from service.core.model_spec import StoredModel
from service.errors import ModelNotFound, ModelTooLarge, ServiceError
from service.obs.memory import memory_left_mb, release_memory, resident_mb
from service.pipeline.registry import ModelRegistry, ServedModel

log = logging.getLogger("zsc.models")
Construct = Callable[[StoredModel], ServedModel]  # load and warm up a model (blocking)
FindStored = Callable[[str], StoredModel]  # a tag -> the stored model (NotInStore when the store has none)


class ModelManager:
    def __init__(
        self, settings: Settings, registry: ModelRegistry, construct: Construct, find: FindStored | None = None
    ) -> None:
        self.settings = settings
        self.registry = registry
        self.construct = construct
        self.find = find
        self.lock = asyncio.Lock()  # one change at a time: the admin API, the models file

    # -- one change ----------------------------------------------------------------------------------
    async def serve(self, tag: str) -> tuple[bool, str | None]:
        """Serve the stored model ``tag`` unless that very version is served already: (changed, the tag it
        replaced)."""
        async with self.lock:
            return await self._serve(self._stored(tag))

    async def unload(self, name: str) -> tuple[ServedModel, float]:
        """Stop serving a model (by name or tag), retire it, and give its memory back: (the model, MB freed)."""
        async with self.lock:
            return await self._unload(name)

    def load(self, stored: StoredModel) -> ServedModel:
        """Load and warm up a model (blocking: call it in a thread); ``ModelTooLarge`` when it would not fit in
        the memory the replica may still use. Not served until ``swap``."""
        s = self.settings
        need = memory_needed_mb(stored.path, s.runtime, s.precision, s.device)
        left = memory_left_mb(s.memory_limit_mb)
        if left is not None and need > left:
            raise ModelTooLarge(
                f"loading {stored.tag} needs about {need:.0f} MB; this replica has {left:.0f} MB left "
                "(ZSC_MEMORY_LIMIT_MB, or the container's limit): unload a model first, or give it more memory"
            )
        return self.construct(stored)

    async def swap(self, model: ServedModel) -> ServedModel | None:
        """Serve ``model`` (replacing another version of it); the one replaced is retired once its calls in
        flight have finished. Returns it."""
        old = self.registry.add(model)
        if old is not None:
            await self.retire(old)
        return old

    async def retire(self, model: ServedModel, wait_s: float | None = None) -> None:
        deadline = time.monotonic() + (wait_s if wait_s is not None else self.settings.timeout_s)
        while model.pipeline.in_flight and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        parts, model.components = model.components, None
        if parts is not None:
            parts.batcher.close()  # cancels the queue's task, which holds the batcher and its engine
        del parts
        await model.pipeline.traffic.stop()  # what it observed and has not written yet
        model.pipeline.close()
        for _ in range(3):  # the cancelled task ends on the loop's next turns
            await asyncio.sleep(0)
        release_memory()
        log.info("retired %s", model.tag)

    # -- the models file -------------------------------------------------------------------------------
    async def reconcile(self, tags: list[str]) -> None:
        """Make the served models what ``tags`` lists, in its order."""
        async with self.lock:
            await self._reconcile(tags)

    async def follow(self, path: Path, every_s: float = 2.0) -> None:
        """Reconcile with the file at start and whenever it changes (its modification time or size), until
        cancelled. A Kubernetes ConfigMap update swaps a symlink: the path is read afresh every time."""
        seen: tuple[float, int] | None = None
        while True:
            try:
                stat = path.stat()
                now = (stat.st_mtime, stat.st_size)
                if now != seen:
                    await self.reconcile(read_models_file(path))
                    seen = now
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("models file %s: could not apply it; retrying", path)
            await asyncio.sleep(every_s)

    # -- under the lock ----------------------------------------------------------------------------------
    def _stored(self, tag: str) -> StoredModel:
        if self.find is None:
            raise ModelNotFound(tag, [m.name for m in self.registry.served])
        return self.find(tag)

    async def _serve(self, stored: StoredModel) -> tuple[bool, str | None]:
        try:
            if self.registry.find(stored.tag).tag == stored.tag:
                return False, None
        except ModelNotFound:
            pass
        log.info("loading %s", stored.tag)
        served = await anyio.to_thread.run_sync(self.load, stored)
        old = await self.swap(served)
        log.info("serving %s%s", served.tag, f" in place of {old.tag}" if old else "")
        return True, old.tag if old else None

    async def _unload(self, wanted: str) -> tuple[ServedModel, float]:
        model = self.registry.remove(wanted)
        before = resident_mb()
        await self.retire(model)
        freed = max(0.0, before - resident_mb())
        log.info("unloaded %s: %.0f MB freed", model.tag, freed)
        return model, freed

    async def _reconcile(self, tags: list[str]) -> None:
        if not tags:
            log.error("the models file lists no model: nothing changes")
            return
        for tag in tags:
            try:
                await self._serve(self._stored(tag))
            except ServiceError as exc:
                log.error("models file: %s not served: %s", tag, exc)
        wanted = set()
        for tag in tags:
            try:
                wanted.add(self.registry.find(tag).name)
            except ModelNotFound:
                continue
        for model in [m for m in self.registry.served if m.name not in wanted]:
            if len(self.registry.served) > 1:
                await self._unload(model.name)
        self.registry.order([model_name(t) for t in tags])


def read_models_file(path: Path) -> list[str]:
    """Tags, one per line (commas too); blank lines and ``#`` comments ignored."""
    tags: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for tag in line.split("#", 1)[0].split(","):
            if tag.strip() and tag.strip() not in tags:
                tags.append(tag.strip())
    return tags
