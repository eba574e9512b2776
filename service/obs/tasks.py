"""Background tasks stopped the one way: cancelled, then waited for, so that nothing they hold outlives
the stop (a connection, a chunk of a job, a pending write)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable

log = logging.getLogger("zsc.tasks")


async def cancel_and_wait(task: asyncio.Task, swallow: tuple[type[BaseException], ...] = ()) -> None:
    """Cancel ``task`` and wait until it has finished; its cancellation (and ``swallow``) is not raised."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, *swallow):
        await task


async def within(step: Awaitable[object], seconds: float, what: str) -> None:
    """Await ``step`` for at most ``seconds``, then give it up with a warning naming ``what``: a process that
    stops must stop, whatever one of its parts waits on."""
    future = asyncio.ensure_future(step)
    done, _ = await asyncio.wait({future}, timeout=seconds)  # not wait_for: it waits on a step deaf to cancel
    if done:
        future.result()
    else:
        log.warning("stopping: %s did not finish within %.0f s; going on without it", what, seconds)
