"""Interactive traffic anywhere in the cluster: what a job worker yields to (``ZSC_JOB_YIELD_SCOPE``).

A replica's own signal (``ModelRegistry.interactive_busy``) sees only its own calls. Replicas on shared
cores then hurt each other: one with no interactive request of its own runs job slices flat out and takes
the CPU of the one next to it that is serving (docs/jobs.md: interactive p95 3.79x beside a job on three
replicas, 2.48x on one). So every serving process publishes its activity in the jobs Redis, and a worker
yields while any of them is busy.

How, and what it costs:

- Every ``tick_s`` (0.1 s) a task samples the local signal (true until half a second after the last
  interactive call ends, so a sample this often misses nothing). While it is busy, one script call marks
  this process in a sorted set (member: the process's name; score: Redis's own clock, so the replicas'
  clocks need not agree) and counts the other members marked within the last ``hold_s``. Nothing runs on
  the request path: at most one Redis call per tick, whatever the request rate.
- A process with no interactive call and no job makes no Redis call at all; one running a job (its worker
  asked within the last ``want_s``) reads the set every tick.
- ``busy()`` (the worker, after each slice) answers from memory: ``"replica"`` when this process is busy,
  ``"cluster"`` when only another one is, ``None`` when none is. A view older than ``stale_s`` counts
  for nothing.
- The job share is the cluster's, not each worker's: a process running a job marks itself in a second
  set as it reads, and ``workers()`` says how many are running one (itself included), among which the
  worker divides ``ZSC_JOB_SHARE_PCT``. Three workers at 50 % each on the same cores took three times
  the CPU one did beside interactive traffic (job items/s 228 vs 99 on one replica, interactive p95
  3.59x vs 2.69x); together they now take what one would.
- The jobs Redis down or slow (a short timeout, no retries): the view is dropped, the worker yields to its
  own replica's traffic only, and the next call waits ``retry_s``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from service.obs.tasks import cancel_and_wait

log = logging.getLogger("zsc.jobs.activity")

Interactive = Callable[[], str | None]  # where interactive calls are served: "replica", "cluster" or None

# KEYS[1] the interactive set, KEYS[2] the set of processes running a job; ARGV: this member, 1 = mark it
# interactive, hold (ms), lifetime of the sets (ms), 1 = mark it running a job, that set's hold (ms).
# Returns {other members marked interactive within the hold, members running a job within theirs}.
_MARK = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local since = now - tonumber(ARGV[3])
if ARGV[2] == '1' then
  redis.call('ZADD', KEYS[1], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', since - 1)
local others = 0
for _, member in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], since, '+inf')) do
  if member ~= ARGV[1] then others = others + 1 end
end
local working = 0
if ARGV[5] == '1' then
  redis.call('ZADD', KEYS[2], now, ARGV[1])
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[6]) - 1)
  working = redis.call('ZCARD', KEYS[2])
end
return {others, working}
"""


def local_only(interactive_busy: Callable[[], bool]) -> Interactive:
    """The replica's own signal in the worker's terms (``ZSC_JOB_YIELD_SCOPE=replica``, or no Redis)."""
    return lambda: "replica" if interactive_busy() else None


class ActivityView:
    """What this process knows about interactive traffic, and what its next tick should do. Pure: the
    clock is injected, the Redis call is the caller's."""

    def __init__(
        self,
        local: Callable[[], bool],
        clock: Callable[[], float] = time.monotonic,
        stale_s: float = 0.5,
        want_s: float = 1.0,
        retry_s: float = 1.0,
    ) -> None:
        self._local = local
        self._clock = clock
        self.stale_s = stale_s  # a read that saw others busy counts this long
        self.want_s = want_s  # the worker asked this recently: keep the view fresh
        self.retry_s = retry_s  # after a failed call
        self._others_until = float("-inf")
        self._asked = float("-inf")
        self._retry_at = float("-inf")
        self._working = 1
        self._working_until = float("-inf")

    def busy(self) -> str | None:
        """Whether the job worker should yield now, and to whom."""
        now = self._clock()
        self._asked = now
        if self._local():
            return "replica"
        return "cluster" if now < self._others_until else None

    def workers(self) -> int:
        """Processes running a job in the cluster, this one included (1 when not known): the job share
        is divided among them."""
        return self._working if self._clock() < self._working_until else 1

    def running_job(self) -> bool:
        """Whether this process's worker asked lately (it is running a job): this tick marks it so."""
        return self._clock() - self._asked < self.want_s

    def plan(self) -> bool | None:
        """This tick's call: True = mark this process busy (and read), False = read only, None = none."""
        now = self._clock()
        if now < self._retry_at:
            return None
        if self._local():
            return True
        return False if now - self._asked < self.want_s else None

    def seen(self, others: int, working: int = 0) -> None:
        """A call answered: ``others`` other processes were busy a moment ago, ``working`` were running a
        job (0: not asked)."""
        now = self._clock()
        self._others_until = now + self.stale_s if others > 0 else float("-inf")
        if working > 0:
            self._working, self._working_until = working, now + self.stale_s

    def failed(self) -> None:
        """A call failed: nothing is known about the others until one succeeds."""
        now = self._clock()
        self._others_until = float("-inf")
        self._working_until = float("-inf")
        self._retry_at = now + self.retry_s


class ClusterActivity:
    """This process's interactive activity published in the jobs Redis, and everyone else's read back."""

    def __init__(
        self,
        url: str,
        prefix: str,
        member: str,
        local: Callable[[], bool],
        tick_s: float = 0.1,
        hold_s: float = 0.3,
        timeout_s: float = 0.25,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        import redis.asyncio as aioredis
        from redis.asyncio.retry import Retry
        from redis.backoff import NoBackoff
        from redis.exceptions import ConnectionError as RedisConnectionError

        # its own small client with a short timeout: a slow Redis costs one tick, never a pile-up. One
        # immediate retry on a broken connection only (one that Redis closed when it restarted), none on
        # a timeout.
        self._redis = aioredis.from_url(
            url,
            socket_timeout=timeout_s,
            socket_connect_timeout=timeout_s,
            retry=Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,)),
            health_check_interval=0,
            max_connections=2,
        )
        self._script = self._redis.register_script(_MARK)
        self.key = f"{prefix}:jobs:interactive"
        self.working_key = f"{prefix}:jobs:working"
        self.member = member
        self.tick_s = tick_s
        self._hold_ms = int(hold_s * 1000)
        self._lifetime_ms = 60_000  # the set goes away a minute after the last mark
        self.view = ActivityView(local, clock, stale_s=max(0.5, 3 * tick_s))
        # a worker asks after each slice, and may then sleep several slices' time: it counts as running a
        # job for as long as the view keeps marking it (want_s), and a tick more
        self._working_hold_ms = int((self.view.want_s + 2 * tick_s) * 1000)
        self._task: asyncio.Task | None = None
        self._down = False

    def busy(self) -> str | None:
        return self.view.busy()

    def workers(self) -> int:
        return self.view.workers()

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="cluster-activity")

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None
        await self._redis.aclose()

    async def _run(self) -> None:
        while True:
            await self.tick()
            await asyncio.sleep(self.tick_s)

    async def tick(self) -> None:
        mark = self.view.plan()
        if mark is None:
            return
        working = self.view.running_job()
        try:
            others, running = await self._script(
                keys=[self.key, self.working_key],
                args=[self.member, int(mark), self._hold_ms, self._lifetime_ms, int(working), self._working_hold_ms],
            )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # down, slow, refusing writes: the worker falls back to its own replica
            if not self._down:
                log.warning(
                    "the jobs Redis does not answer (%s: %s): job workers yield to this replica's interactive "
                    "traffic only until it does",
                    type(exc).__name__,
                    exc,
                )
            self._down = True
            self.view.failed()
            return
        if self._down:
            log.info("the jobs Redis answers again: job workers yield to the whole cluster's interactive traffic")
            self._down = False
        self.view.seen(int(others), int(running))
