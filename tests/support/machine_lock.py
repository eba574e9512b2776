"""A readers-writer lock on the machine between pytest-xdist workers, a test module at a time (flock on two files
in a folder the run's workers share).

A module that measures latency against itself (``pytest.mark.quiet``) holds it exclusively, every other module
shared: the measured one runs while the other worker waits, not while it builds an image or runs a benchmark on
the same two cores. The lock is taken before the module's first test sets up its fixtures (a server starting
for the next module would weigh on the measurement too) and released once its last test's are torn down. A
waiting writer holds the turnstile, so that no module starts while it waits for the running one to end (without
it, the other worker's next module could always come first)."""

from __future__ import annotations

import fcntl
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest


@contextmanager
def machine_lock(folder: Path, exclusive: bool) -> Iterator[None]:
    with open(folder / "machine.turnstile", "a") as turnstile, open(folder / "machine.lock", "a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


class MachineShare:
    """The pytest plugin: each worker holds the lock from its module's first setup to its last teardown."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.held = ExitStack()
        self.module: str | None = None

    @classmethod
    def for_worker(cls, config: pytest.Config) -> MachineShare | None:
        """The plugin for an xdist worker (a folder per run, named by xdist's run id); None in a single process,
        where nothing runs beside a test."""
        workerinput = getattr(config, "workerinput", None)
        if workerinput is None:
            return None
        folder = Path(tempfile.gettempdir()) / f"zsc-tests-{workerinput['testrunuid']}"
        folder.mkdir(exist_ok=True)
        return cls(folder)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        module = item.nodeid.split("::")[0]
        if self.module != module:
            self.held.close()
            self.module = module
            self.held.enter_context(machine_lock(self.folder, item.get_closest_marker("quiet") is not None))

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: pytest.Item | None):
        try:
            yield  # the fixtures' teardown, module and session ones included after a module's last test
        finally:
            if nextitem is None or nextitem.nodeid.split("::")[0] != self.module:
                self.held.close()
                self.module = None
