"""Background tasks stopped the one way: cancelled, then waited for, so that nothing they hold outlives
the stop (a connection, a chunk of a job, a pending write)."""

from __future__ import annotations

import asyncio
import contextlib


async def cancel_and_wait(task: asyncio.Task, swallow: tuple[type[BaseException], ...] = ()) -> None:
    """Cancel ``task`` and wait until it has finished; its cancellation (and ``swallow``) is not raised."""
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError, *swallow):
        await task
