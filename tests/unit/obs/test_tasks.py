"""Stopping's bounded steps (service/obs/tasks.py)."""

from __future__ import annotations

import asyncio
import logging
import time

from service.obs.tasks import cancel_and_wait, within


def test_a_step_deaf_to_cancel_is_given_up_after_its_bound(caplog):
    released = False

    async def deaf() -> None:
        while not released:
            try:
                await asyncio.sleep(0.05)
            except asyncio.CancelledError:
                continue  # what a hung client or a loop catching everything does

    async def run() -> float:
        nonlocal released
        task = asyncio.create_task(deaf())
        await asyncio.sleep(0)
        started = time.perf_counter()
        await within(cancel_and_wait(task), 0.2, "the deaf task")
        took = time.perf_counter() - started
        released = True  # let it end, so that the loop can close
        await asyncio.wait({task}, timeout=5)
        return took

    with caplog.at_level(logging.WARNING, logger="zsc.tasks"):
        took = asyncio.run(run())
    assert 0.15 < took < 2
    assert "the deaf task did not finish within 0 s" in caplog.text


def test_a_step_that_finishes_in_time_raises_what_it_raises():
    async def fails() -> None:
        raise ValueError("boom")

    async def run() -> None:
        await within(fails(), 1, "a failing step")

    try:
        asyncio.run(run())
    except ValueError as e:
        assert str(e) == "boom"
    else:
        raise AssertionError("the step's error was swallowed")
