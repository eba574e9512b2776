"""SIGTERM drains the worker before uvicorn stops listening, so that no request waits on a replica going away.

uvicorn, on SIGTERM, stops accepting at once and waits for the requests it holds. Under ``bentoml serve``
the listening socket is not the worker's alone: circus's arbiter holds it until every worker has exited, so
the kernel goes on accepting the connections nobody will read. A request nginx sends there (least_conn
favours the replica that has just emptied) waits unanswered for as long as the replica takes to stop (its
slowest request in flight, its job chunk: tens of seconds), then meets a reset, or nginx's
``proxy_read_timeout`` first, and nginx retries no request after ``proxy_next_upstream_timeout``. Instead,
on the first SIGTERM the worker

1. refuses every new request with 503 ``shutting_down`` (nginx sends it to the next replica at once:
   ``proxy_next_upstream http_503``) and answers /readyz not ready;
2. finishes the requests it holds (each ends within ZSC_TIMEOUT_S) and its job chunks (ZSC_JOB_DRAIN_S);
3. then hands the signal to uvicorn, whose own shutdown (connections closed, shutdown hooks) is then quick.

A second SIGTERM goes to uvicorn at once. Kubernetes' preStop sleep (deploy/k8s) keeps new traffic away
before the signal; this covers what still arrives, and nginx, which knows nothing of endpoints.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

from service.admission.gate import Admission

log = logging.getLogger("zsc.drain")

Handler = Callable[[int, FrameType | None], Any]


def drain_on_sigterm(admission: Admission, quiesce: Callable[[], Awaitable[None]], requests_within_s: float) -> None:
    """From now on SIGTERM drains this worker (``admission`` refuses, ``quiesce()`` finishes the background
    work) before the handler in place (uvicorn's) gets it. Call on the serving loop."""
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only: an app served from another (a test client) has none to drain
    loop = asyncio.get_running_loop()
    previous: Handler | int | None = signal.getsignal(signal.SIGTERM)
    signalled: list[int] = []
    draining: list[asyncio.Task] = []  # held, so that the task is not collected while it runs

    def forward(sig: int, frame: FrameType | None) -> None:
        if callable(previous):
            previous(sig, frame)
        else:  # no Python handler before ours: the default action
            signal.signal(sig, signal.SIG_DFL)
            signal.raise_signal(sig)

    async def drain(sig: int) -> None:
        log.info(
            "SIGTERM: refusing new requests, finishing %d in flight (up to %.0f s) and the job chunks at work",
            admission.in_flight,
            requests_within_s,
        )
        requests = asyncio.create_task(admission.drained(requests_within_s))
        await quiesce()
        if not await requests:
            log.warning("SIGTERM: %d request(s) still in flight after %.0f s", admission.in_flight, requests_within_s)
        forward(sig, None)

    def start(sig: int) -> None:
        admission.stop()
        draining.append(loop.create_task(drain(sig)))

    def on_sigterm(sig: int, frame: FrameType | None) -> None:
        if signalled:
            forward(sig, frame)  # again: stop now
            return
        signalled.append(sig)
        # a signal handler runs between two bytecodes of the loop's own thread: schedule, never run, loop code
        loop.call_soon_threadsafe(start, sig)

    signal.signal(signal.SIGTERM, on_sigterm)
