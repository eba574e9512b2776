"""Start, probe, measure and stop local processes, whole trees included.

A ``Member`` describes one process to start: command, environment, working directory, CPU set, log file and
readiness probe. ``start`` launches it in a session of its own with a mark in its environment
(``ZSC_HARNESS_MEMBER``) that every child inherits; ``Running`` waits until its probe answers and stops it:
the graceful signal to the main process, then SIGKILL for every process of the tree still alive after the
grace period. The tree is the main process's descendants plus every process carrying the mark: ``bentoml
serve`` starts its workers in sessions of their own, and a worker whose parent was killed is reparented to
init, out of reach of the descendants walk but not of the mark. nginx and redis-server rewrite their
environment block with their process title, so for them the recorded (pid, start time) is what counts.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import psutil

from . import ROOT

MARK = "ZSC_HARNESS_MEMBER"


class HarnessError(RuntimeError):
    """A process did not start, did not become ready, or a command failed; the message has its log tail."""


@dataclass(frozen=True)
class Probe:
    """A readiness check: ``check()`` is True once the member serves."""

    what: str
    check: Callable[[], bool]


RACED = b"Address already in use"


@dataclass(frozen=True)
class Member:
    name: str
    cmd: Sequence[str]
    log: Path
    env: Mapping[str, str] | None = None  # the whole environment; None = this process's
    cwd: Path = ROOT
    cpus: Sequence[int] | None = None  # pinned before exec: children inherit the set
    probe: Probe | None = None
    mark: str | None = None  # default: unique per start; a cluster uses "<run dir>::<member>"
    port: int | None = None
    url: str | None = None  # how clients reach it (http://..., redis://...)


@dataclass(frozen=True)
class ProcessId:
    """A pid with the start time that makes it unique across pid reuse."""

    pid: int
    started: float

    @classmethod
    def of(cls, pid: int) -> ProcessId | None:
        try:
            return cls(pid, psutil.Process(pid).create_time())
        except psutil.NoSuchProcess:
            return None

    def alive(self) -> bool:
        try:
            p = psutil.Process(self.pid)
            return p.create_time() == self.started and p.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False


@dataclass
class Running:
    member: Member
    proc: subprocess.Popen
    id: ProcessId
    mark: str
    ready_s: float | None = field(default=None)
    log_from: int = 0  # where this start's output begins in the (appended) log

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def url(self) -> str | None:
        return self.member.url

    def alive(self) -> bool:
        return self.proc.poll() is None

    def log_tail(self, n: int = 4000) -> str:
        return tail(self.member.log, n)

    def raced(self) -> bool:
        """Whether it died of a port another process took between being found free and being bound (BentoML
        reserves its internal ZMQ ports that way): a start-up race worth one more try, not a failure."""
        if self.alive():
            return False
        try:
            with self.member.log.open("rb") as f:
                f.seek(self.log_from)
                return RACED in f.read()
        except OSError:
            return False

    def wait_ready(self, timeout: float, poll_s: float = 0.3) -> Running:
        """Block until the probe answers; HarnessError (with the log's tail) if the process exits or time runs out."""
        probe = self.member.probe
        t0 = time.monotonic()
        while probe is not None and not _safe(probe.check):
            if not self.alive():
                raise HarnessError(
                    f"{self.member.name} exited with {self.proc.returncode} before {probe.what}; "
                    f"its log ends with:\n{self.log_tail()}"
                )
            if time.monotonic() - t0 > timeout:
                raise HarnessError(
                    f"{self.member.name}: no {probe.what} after {timeout:.0f} s; its log ends with:\n{self.log_tail()}"
                )
            time.sleep(poll_s)
        self.ready_s = time.monotonic() - t0
        return self

    def wait(self, timeout: float | None = None) -> int:
        """The exit code, once the process ends by itself (subprocess.TimeoutExpired past ``timeout``)."""
        return self.proc.wait(timeout)

    def pids(self) -> list[int]:
        return sorted(tree_pids([self.id], self.mark))

    def send(self, sig: int) -> list[int]:
        """``sig`` to every process of the tree (fault injection)."""
        pids = self.pids()
        signal_pids(pids, sig)
        return pids

    def stop(self, grace: float = 20, sig: int = signal.SIGTERM) -> int | None:
        """Graceful ``sig`` to the main process, SIGKILL to whatever of the tree is left after ``grace``."""
        stop_tree({self.id.pid: self.id}, self.mark, sig, grace)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(5)
        return self.proc.returncode

    def kill(self) -> None:
        self.stop(grace=0, sig=signal.SIGKILL)

    def probe_ok(self) -> bool:
        return self.member.probe is None or _safe(self.member.probe.check)

    def __enter__(self) -> Running:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def start(member: Member) -> Running:
    """Launch ``member`` in its own session, output appended to its log."""
    mark = member.mark or f"{uuid.uuid4().hex}::{member.name}"
    env = {**(os.environ if member.env is None else member.env), MARK: mark}
    cpus = list(member.cpus) if member.cpus else None
    member.log.parent.mkdir(parents=True, exist_ok=True)
    log_from = member.log.stat().st_size if member.log.exists() else 0

    def pin() -> None:  # between fork and exec: everything the member starts inherits the set
        os.sched_setaffinity(0, cpus)

    with member.log.open("ab") as out:
        proc = subprocess.Popen(
            list(member.cmd),
            cwd=member.cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=pin if cpus else None,  # the harness starts no threads of its own
        )
    return Running(member, proc, ProcessId.of(proc.pid) or ProcessId(proc.pid, 0.0), mark, log_from=log_from)


def wait_all_ready(
    procs: Sequence[Running],
    timeout: float,
    on_ready=lambda p: None,
    on_wait=lambda pending: None,
    restart: Callable[[Running], Running] | None = None,
) -> None:
    """Wait for several members at once; ``on_wait(names)`` every 10 s while some load. A member that dies of
    a start-up port race is started again once through ``restart`` (which returns its new handle)."""
    t0 = last = time.monotonic()
    pending = list(procs)
    retried: set[str] = set()
    while pending:
        for p in list(pending):
            if restart is not None and p.member.name not in retried and p.raced():
                retried.add(p.member.name)
                pending[pending.index(p)] = restart(p)
                continue
            if not p.alive():
                raise HarnessError(f"{p.member.name} exited before it was ready; its log ends with:\n{p.log_tail()}")
            if p.probe_ok():
                p.ready_s = time.monotonic() - t0
                on_ready(p)
                pending.remove(p)
        if not pending:
            return
        if time.monotonic() - t0 > timeout:
            p = pending[0]
            raise HarnessError(f"{p.member.name} not ready after {timeout:.0f}s; its log ends with:\n{p.log_tail()}")
        if time.monotonic() - last > 10:
            on_wait([p.member.name for p in pending])
            last = time.monotonic()
        time.sleep(0.5)


@contextlib.contextmanager
def running(member: Member, ready_timeout: float = 300, grace: float = 20, tries: int = 3) -> Iterator[Running]:
    """Start, wait until ready, yield, and always stop the whole tree; a start that dies of a port race
    (``Running.raced``) is tried again, up to ``tries`` starts in all."""
    for attempt in range(1, tries + 1):
        proc = start(member)
        try:
            proc.wait_ready(ready_timeout)
            break
        except HarnessError:
            raced = proc.raced()
            proc.stop(grace)
            if not raced or attempt == tries:
                raise
        except BaseException:  # interrupted while it starts (Ctrl-C, SIGTERM): leave nothing running
            proc.stop(grace)
            raise
    try:
        yield proc
    finally:
        proc.stop(grace)


def run_command(
    cmd: Sequence[str],
    env: Mapping[str, str] | None = None,
    timeout: float = 600,
    cwd: Path = ROOT,
    check: bool = True,
    what: str | None = None,
    capture: bool = True,
) -> subprocess.CompletedProcess:
    """A one-shot command, output captured (or shown, for progress bars); HarnessError with its output when
    ``check`` and it fails."""
    result = subprocess.run(
        list(cmd),
        cwd=cwd,
        env=None if env is None else dict(env),
        capture_output=capture,
        text=True,
        timeout=timeout,
        check=False,
    )
    if check and result.returncode != 0:
        output = (result.stdout or "")[-2000:] + (result.stderr or "")[-3000:]
        raise HarnessError(f"{what or cmd[0]} failed ({result.returncode}):\n{output}")
    return result


# -- finding and stopping trees -----------------------------------------------------------------------
def marked_processes(prefix: str) -> dict[int, str]:
    """{pid: the rest of the mark} of live processes whose ``ZSC_HARNESS_MEMBER`` starts with ``prefix``."""
    found = {}
    for p in psutil.process_iter(["pid"]):
        try:
            mark = p.environ().get(MARK)
            if mark and mark.startswith(prefix) and p.status() != psutil.STATUS_ZOMBIE:
                found[p.pid] = mark[len(prefix) :]
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


def descendants(pids: Iterable[int]) -> set[int]:
    out: set[int] = set()
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            out.update(c.pid for c in psutil.Process(pid).children(recursive=True))
    return out


def tree_pids(roots: Iterable[ProcessId], mark: str | None) -> set[int]:
    """Live roots, their descendants, and every process whose mark starts with ``mark`` (with descendants)."""
    found = {r.pid for r in roots if r.alive()}
    if mark:
        found |= set(marked_processes(mark))
    found |= descendants(found)
    return {pid for pid in found if _alive(pid)}


def signal_pids(pids: Iterable[int], sig: int) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def stop_tree(roots: Mapping[int, ProcessId], mark: str | None, sig: int, grace: float) -> list[int]:
    """``sig`` to the live roots (each stops its own children; to the whole tree when no root is left), then
    SIGKILL to whatever of the tree (``tree_pids``) is alive after ``grace``. Returns every pid it saw."""
    tree = tree_pids(roots.values(), mark)
    signal_pids([pid for pid, rid in roots.items() if rid.alive()] or tree, sig)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline and any(_alive(p) for p in tree):
        time.sleep(0.1)
    left = tree_pids(roots.values(), mark) | {p for p in tree if _alive(p)}
    signal_pids(left, signal.SIGKILL)
    return sorted(tree | left)


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _safe(check: Callable[[], bool]) -> bool:
    try:
        return bool(check())
    except Exception:  # a probe that raises has not seen the member ready
        return False


def tail(path: Path | None, n: int = 4000) -> str:
    try:
        return path.read_text(errors="replace")[-n:] if path else ""
    except OSError:
        return ""


# -- CPU accounting -----------------------------------------------------------------------------------
def tree_cpu_seconds(pids: Iterable[int]) -> float:
    """CPU seconds (user + system) used so far by these processes and their descendants."""
    total = 0.0
    for p in _tree(pids):
        with contextlib.suppress(psutil.NoSuchProcess):
            t = p.cpu_times()
            total += t.user + t.system
    return total


def thread_cpu_seconds(pids: Iterable[int]) -> dict[tuple[int, int], float]:
    """CPU seconds (user + system) used so far by each thread of these processes and their descendants,
    keyed by (process id, thread id)."""
    out: dict[tuple[int, int], float] = {}
    for p in _tree(pids):
        with contextlib.suppress(psutil.NoSuchProcess):
            out.update({(p.pid, t.id): t.user_time + t.system_time for t in p.threads()})
    return out


def _tree(pids: Iterable[int]) -> list[psutil.Process]:
    """These processes and their descendants, each once (the ones gone by now left out)."""
    found: dict[int, psutil.Process] = {}
    for pid in pids:
        with contextlib.suppress(psutil.NoSuchProcess):
            root = psutil.Process(pid)
            for p in (root, *root.children(recursive=True)):
                found.setdefault(p.pid, p)
    return list(found.values())


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine spent busy since boot (idle, iowait and guest time excluded)."""
    t = psutil.cpu_times()
    return sum(t) - t.idle - getattr(t, "iowait", 0.0) - getattr(t, "guest", 0.0) - getattr(t, "guest_nice", 0.0)


@dataclass(frozen=True)
class WorkerView:
    """Where the process that does the work (the one with the most threads in the tree) really runs."""

    pid: int
    affinity: list[int]
    os_threads: int


def busiest_process(pid: int) -> WorkerView | None:
    try:
        p = psutil.Process(pid)
        worker = max([p, *p.children(recursive=True)], key=lambda q: q.num_threads())
        return WorkerView(worker.pid, sorted(worker.cpu_affinity()), worker.num_threads())
    except psutil.NoSuchProcess:
        return None
