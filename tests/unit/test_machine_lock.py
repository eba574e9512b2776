"""The suite's machine lock (tests/support/machine_lock.py): modules share it, a quiet one holds it alone, and a
quiet one that waits is not overtaken by modules that start after it asked."""

from __future__ import annotations

import threading
import time

from tests.support.machine_lock import machine_lock


def hold(folder, exclusive: bool, log: list, name: str, release: threading.Event) -> threading.Thread:
    def run() -> None:
        with machine_lock(folder, exclusive):
            log.append(f"{name} in")
            release.wait(10)
            log.append(f"{name} out")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def wait_for(log: list, entry: str) -> None:
    deadline = time.monotonic() + 10
    while entry not in log and time.monotonic() < deadline:
        time.sleep(0.01)
    assert entry in log, log


def test_shared_holders_overlap_and_an_exclusive_one_waits_for_them(tmp_path):
    log: list[str] = []
    first, second, quiet = threading.Event(), threading.Event(), threading.Event()
    threads = [hold(tmp_path, False, log, "a", first), hold(tmp_path, False, log, "b", second)]
    wait_for(log, "a in")
    wait_for(log, "b in")  # while a holds it
    threads.append(hold(tmp_path, True, log, "q", quiet))
    time.sleep(0.2)
    assert "q in" not in log
    first.set()
    wait_for(log, "a out")
    time.sleep(0.2)
    assert "q in" not in log  # b still holds it
    second.set()
    wait_for(log, "q in")
    quiet.set()
    for thread in threads:
        thread.join(10)
    assert log.index("q in") > max(log.index("a out"), log.index("b out"))


def test_a_waiting_exclusive_holder_goes_before_shared_ones_that_ask_after_it(tmp_path):
    log: list[str] = []
    running, quiet, later = threading.Event(), threading.Event(), threading.Event()
    threads = [hold(tmp_path, False, log, "running", running)]
    wait_for(log, "running in")
    threads.append(hold(tmp_path, True, log, "q", quiet))
    time.sleep(0.2)  # q waits, holding the turnstile
    threads.append(hold(tmp_path, False, log, "next", later))
    time.sleep(0.2)
    assert "next in" not in log  # though the lock is only held shared
    running.set()
    wait_for(log, "q in")
    time.sleep(0.2)
    assert "next in" not in log
    quiet.set()
    later.set()
    wait_for(log, "next out")
    for thread in threads:
        thread.join(10)
    assert log.index("next in") > log.index("q out")
