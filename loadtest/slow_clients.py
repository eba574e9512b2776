"""Slow and idle clients against one replica (or nginx in front of replicas), beside an ordinary client:
what an attacker with a few hundred sockets does to everyone else (docs/reliability.md "Slow clients").

    .venv/bin/python -m loadtest.slow_clients --url http://127.0.0.1:3000            # 300 + 300 + 300, 20 s
    .venv/bin/python -m loadtest.slow_clients --url ... --bodies 30 --heads 0 --idle 0 --attack-s 15

Three kinds of attacker connection, all opened at the start of the attack and kept for ``--attack-s``:

- ``bodies``: a request head with ``Content-Length: 100000`` and the first bytes of a JSON body, then one more
  byte every ``--interval-s`` (the classic slow POST);
- ``heads``: a request head sent a byte at a time, one every ``--interval-s`` (slowloris);
- ``idle``: one complete request on a keep-alive connection, then nothing.

An attacker connection that the server closes is not reopened: each one records how it ended (``408``, any
other status, ``closed`` by the server without an answer, or ``open`` when the run ended first) and when.
When the attack ends the attackers stop sending but keep their sockets for up to ``--settle-s``: a server
that only times the gap between two reads (nginx's ``client_body_timeout``) closes them then.

The ordinary client sends a ``/classify`` every ``--every-s`` (a fresh text each time: no cache hit; every
other request on a fresh connection) for ``--baseline-s`` alone, then during the attack (from the moment all the
attackers' connections are open; they run in a process of their own, so that the ordinary client's latencies
are the server's and not its load generator's), then alone again
once the attackers' connections have ended: its answered share and p99 during the attack against its own
p99 without it (before and after pooled, so that whatever else the machine does over the run weighs on
both sides). ``zsc_in_flight_limit`` is read from
/metrics before and after (``--metrics-url`` when the URL is nginx's). One JSON object on stdout, or into
``--out``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import re
import string
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import httpx

from harness.progress import say

LABELS = ["billing", "shipping", "praise", "complaint"]
LIMIT_LINE = re.compile(r'^zsc_in_flight_limit\{[^}]*model="([^"]*)"[^}]*\}\s+([0-9.e+-]+)', re.M)


@dataclass
class Ending:
    kind: str  # bodies | heads | idle
    how: str = "open"  # 408, another status, closed, refused (could not connect), or open
    after_s: float | None = None  # from the connection's start


@dataclass
class Ordinary:
    statuses: Counter = field(default_factory=Counter)
    latencies_ms: list[float] = field(default_factory=list)  # of the 200s

    def add(self, other: Ordinary) -> Ordinary:
        return Ordinary(self.statuses + other.statuses, self.latencies_ms + other.latencies_ms)

    def summary(self) -> dict:
        sent = sum(self.statuses.values())
        ok = self.statuses.get("200", 0)
        return {
            "sent": sent,
            "answered_200": ok,
            "share_200": round(ok / sent, 4) if sent else None,
            "statuses": dict(self.statuses),
            "p50_ms": _pct(self.latencies_ms, 50),
            "p99_ms": _pct(self.latencies_ms, 99),
        }


def _pct(values: list[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q / 100 * len(ordered)))], 2)


async def _read_status(reader: asyncio.StreamReader) -> str:
    """The status of the server's answer, or ``closed`` when it closed (or reset) without one."""
    try:
        line = await reader.readline()
    except (ConnectionError, OSError):
        return "closed"
    parts = line.split()
    return parts[1].decode() if len(parts) >= 2 and parts[0].startswith(b"HTTP/") else "closed"


async def _attacker(
    kind: str,
    host: str,
    port: int,
    path: str,
    interval_s: float,
    quiet: asyncio.Event,
    stop: asyncio.Event,
    connected: Callable[[], None],
) -> Ending:
    ending = Ending(kind)
    started = time.monotonic()
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        ending.how, ending.after_s = "refused", 0.0
        return ending
    finally:
        connected()  # or refused: either way it is no longer opening
    answered = asyncio.ensure_future(_read_status(reader))
    try:
        if kind == "idle":
            writer.write(f"GET /livez HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
            answered.cancel()
            if await _read_status(reader) == "closed":
                ending.how, ending.after_s = "closed", round(time.monotonic() - started, 2)
                return ending
            await _skip_answer(reader)
            answered = asyncio.ensure_future(_eof(reader))  # idle from here: only the server's close ends it
            payload = b""
        elif kind == "bodies":
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                "Content-Length: 100000\r\n\r\n"
            )
            writer.write(head.encode() + b'{"text": "')
            payload = b"x" * 100000
        else:
            payload = (
                f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\nX-Padding: " + "a" * 100000
            ).encode()
        for i in range(10**9):  # until the server ends it, or the attack does
            if i < len(payload) and not quiet.is_set():
                writer.write(payload[i : i + 1])
            waiter = asyncio.ensure_future(stop.wait())
            done, _ = await asyncio.wait({answered, waiter}, timeout=interval_s, return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
            if answered in done:
                ending.how, ending.after_s = answered.result(), round(time.monotonic() - started, 2)
                return ending
            if stop.is_set():
                return ending
    except (ConnectionError, OSError, asyncio.IncompleteReadError):
        ending.how, ending.after_s = "closed", round(time.monotonic() - started, 2)
        return ending
    finally:
        answered.cancel()
        writer.close()
    return ending


async def _skip_answer(reader: asyncio.StreamReader) -> None:
    """The rest of an answer whose status line was read: its headers, then its Content-Length of body."""
    head = await reader.readuntil(b"\r\n\r\n")
    length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
    await reader.readexactly(int(length.group(1)) if length else 0)


async def _eof(reader: asyncio.StreamReader) -> str:
    """``closed`` once the server closes the connection (anything it sends first is read and ignored)."""
    try:
        while await reader.read(4096):
            pass
    except (ConnectionError, OSError):
        pass
    return "closed"


async def _ordinary(url: str, every_s: float, until: float, rng: random.Random, out: Ordinary, headers: dict) -> None:
    async with (
        httpx.AsyncClient(base_url=url, timeout=30, headers=headers) as keep,
        httpx.AsyncClient(
            base_url=url, timeout=30, headers=headers, limits=httpx.Limits(max_keepalive_connections=0)
        ) as fresh,
    ):
        i = 0
        while time.monotonic() < until:
            tick = time.monotonic()
            text = " ".join("".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 9))) for _ in range(12))
            client = fresh if i % 2 else keep
            try:
                answer = await client.post("/classify", json={"text": text, "labels": LABELS})
                status = str(answer.status_code)
                if answer.status_code == 200:
                    out.latencies_ms.append((time.monotonic() - tick) * 1000)
            except httpx.HTTPError as exc:
                status = type(exc).__name__
            out.statuses[status] += 1
            i += 1
            await asyncio.sleep(max(0.0, every_s - (time.monotonic() - tick)))


def in_flight_limits(metrics_url: str) -> dict[str, float]:
    """``zsc_in_flight_limit`` by its model label (summed over worker processes' series as Prometheus
    multiprocess mode writes them: the lowest of them)."""
    text = httpx.get(f"{metrics_url}/metrics", timeout=10).text
    out: dict[str, float] = {}
    for model, value in LIMIT_LINE.findall(text):
        out[model] = min(out.get(model, float("inf")), float(value))
    return out


def _attack_process(
    kinds: list[str], host: str, port: int, interval_s: float, signals: dict, settle_s: float, out
) -> None:
    """The attackers, in a process of their own: their 900 sockets' event loop is not the ordinary client's,
    so its latencies are the server's, not the load generator's."""

    async def run() -> list[Ending]:
        quiet, stop = asyncio.Event(), asyncio.Event()
        opened = [0]

        def connected() -> None:
            opened[0] += 1
            if opened[0] == len(kinds):
                signals["connected"].set()

        attackers = [
            asyncio.ensure_future(_attacker(k, host, port, "/classify", interval_s, quiet, stop, connected))
            for k in kinds
        ]
        if not kinds:
            signals["connected"].set()
        while not signals["quiet"].is_set():
            await asyncio.sleep(0.1)
        quiet.set()  # the attack is over: the attackers keep their sockets, silent, until the server acts
        deadline = time.monotonic() + settle_s
        while time.monotonic() < deadline and not all(a.done() for a in attackers):
            await asyncio.sleep(0.5)
        stop.set()
        return await asyncio.gather(*attackers)

    out.send([(e.kind, e.how, e.after_s) for e in asyncio.run(run())])


async def attack(
    url: str,
    bodies: int = 300,
    heads: int = 300,
    idle: int = 300,
    attack_s: float = 20.0,
    baseline_s: float = 10.0,
    every_s: float = 0.1,
    interval_s: float = 3.0,
    settle_s: float = 30.0,
    seed: int | None = None,
    metrics_url: str | None = None,
    key: str | None = None,
) -> dict:
    """The whole run (baseline, attack, then up to ``settle_s`` for the attackers' connections to end)."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    rng = random.Random(seed if seed is not None else time.time_ns())
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    limits_before = in_flight_limits(metrics_url or url)
    say(f"baseline: the ordinary client alone for {baseline_s:g} s")
    before = Ordinary()
    await _ordinary(url, every_s, time.monotonic() + baseline_s, rng, before, headers)
    say(f"attack: {bodies} slow bodies, {heads} slow heads, {idle} idle keep-alive connections for {attack_s:g} s")
    context = multiprocessing.get_context("spawn")
    signals = {"connected": context.Event(), "quiet": context.Event()}
    receive, send = context.Pipe(duplex=False)
    kinds = ["bodies"] * bodies + ["heads"] * heads + ["idle"] * idle
    attackers = context.Process(
        target=_attack_process, args=(kinds, host, port, interval_s, signals, settle_s, send), daemon=True
    )
    attackers.start()
    # the attack is its sockets held open: the ordinary client is measured once they all are
    await asyncio.to_thread(signals["connected"].wait, 60)
    during = Ordinary()
    await _ordinary(url, every_s, time.monotonic() + attack_s, rng, during, headers)
    signals["quiet"].set()
    endings = [Ending(*e) for e in await asyncio.to_thread(receive.recv)]
    await asyncio.to_thread(attackers.join, 10)
    limits_after = in_flight_limits(metrics_url or url)
    say(f"after: the ordinary client alone again for {baseline_s:g} s")
    after = Ordinary()
    await _ordinary(url, every_s, time.monotonic() + baseline_s, rng, after, headers)
    without = before.add(after).summary()
    by_kind: dict[str, Counter] = {}
    worst: dict[str, float] = {}
    for e in endings:
        by_kind.setdefault(e.kind, Counter())[e.how] += 1
        if e.after_s is not None:
            worst[e.kind] = max(worst.get(e.kind, 0.0), e.after_s)
    summary = {
        "url": url,
        "attackers": {"bodies": bodies, "heads": heads, "idle": idle, "interval_s": interval_s},
        "attack_s": attack_s,
        "before": before.summary(),
        "during": during.summary(),
        "after": after.summary(),
        "without": without,
        "p99_ratio": _ratio(during.summary()["p99_ms"], without["p99_ms"]),
        "endings": {k: dict(v) for k, v in by_kind.items()},
        "longest_held_s": worst,
        "in_flight_limit_before": limits_before,
        "in_flight_limit_after": limits_after,
    }
    say(
        f"during the attack: {during.summary()['share_200']} answered 200, p99 {during.summary()['p99_ms']} ms "
        f"({summary['p99_ratio']}x the {without['p99_ms']} ms without it); endings {summary['endings']}"
    )
    return summary


def _ratio(a: float | None, b: float | None) -> float | None:
    return round(a / b, 2) if a is not None and b else None


# the slow clients' kinds (the module's docstring), each with an option saying how many attack
ATTACKERS = {
    "bodies": "slow bodies: a request head, then a byte of its body every --interval-s",
    "heads": "slow heads: a request head a byte at a time, one every --interval-s (slowloris)",
    "idle": "idle keep-alive connections: one complete request, then nothing",
}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--url", required=True, help="the replica's (or nginx's) base URL")
    p.add_argument("--metrics-url", help="where /metrics is read (default: --url)")
    for kind, what in ATTACKERS.items():
        p.add_argument(f"--{kind}", type=int, default=300, help=f"how many {what}")
    p.add_argument("--attack-s", type=float, default=20.0)
    p.add_argument("--baseline-s", type=float, default=10.0)
    p.add_argument("--every-s", type=float, default=0.1, help="the ordinary client's pace")
    p.add_argument("--interval-s", type=float, default=3.0, help="the slow clients' pace: a byte every ...")
    p.add_argument("--settle-s", type=float, default=30.0, help="after the attack, how long to wait for closes")
    p.add_argument("--seed", type=int)
    p.add_argument("--key", help="an API key for the ordinary client")
    p.add_argument("--out", type=Path, help="write the JSON here (default: stdout)")
    a = p.parse_args()
    result = asyncio.run(
        attack(
            a.url, a.bodies, a.heads, a.idle, a.attack_s, a.baseline_s, a.every_s, a.interval_s, a.settle_s,
            a.seed, a.metrics_url, a.key,
        )
    )  # fmt: skip
    text = json.dumps(result, indent=2)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
