"""SIGTERM's drain (service/http/drain.py): refuse, finish what is held, then the handler that was in place."""

from __future__ import annotations

import asyncio
import os
import signal

from service.admission.gate import Admission
from service.http.drain import drain_on_sigterm


def test_sigterm_refuses_then_waits_for_the_requests_and_the_jobs_before_the_previous_handler():
    events: list[str] = []
    gate = Admission(target_s=None, max_in_flight=8)
    gate.serve(["m"])
    before = signal.getsignal(signal.SIGTERM)

    async def run() -> None:
        stopped = asyncio.Event()
        signal.signal(signal.SIGTERM, lambda sig, frame: (events.append(f"previous {sig}"), stopped.set()))
        held = gate.enter()

        async def quiesce() -> None:
            events.append("quiesce")
            await asyncio.sleep(0.05)
            events.append("jobs done")

        drain_on_sigterm(gate, quiesce, requests_within_s=10)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.1)
        assert gate.stopping and events == ["quiesce", "jobs done"], "the request in flight holds the handler back"
        gate.leave(held)
        await asyncio.wait_for(stopped.wait(), 5)

    try:
        asyncio.run(run())
    finally:
        signal.signal(signal.SIGTERM, before)
    assert events == ["quiesce", "jobs done", f"previous {int(signal.SIGTERM)}"]


def test_a_second_sigterm_goes_to_the_previous_handler_at_once():
    calls: list[int] = []
    gate = Admission(target_s=None, max_in_flight=8)
    gate.serve(["m"])
    before = signal.getsignal(signal.SIGTERM)

    async def run() -> None:
        signal.signal(signal.SIGTERM, lambda sig, frame: calls.append(sig))
        gate.enter()  # never leaves: the drain would wait its whole bound

        async def quiesce() -> None:
            return None

        drain_on_sigterm(gate, quiesce, requests_within_s=30)
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)
        assert calls == []
        os.kill(os.getpid(), signal.SIGTERM)
        await asyncio.sleep(0.05)

    try:
        asyncio.run(run())
    finally:
        signal.signal(signal.SIGTERM, before)
    assert calls == [int(signal.SIGTERM)]
