"""The harness's start-up retry: a member that dies of a port race (BentoML reserves its internal ports,
releases and binds them, so two servers starting at once can collide) is started again; any other early
death is a failure at once."""

from __future__ import annotations

import sys

import pytest

from harness import process
from harness.process import HarnessError, Member, Probe, running

SCRIPT = """
import pathlib, sys, time
marker = pathlib.Path(sys.argv[1])
if not marker.exists():
    marker.write_text("1")
    print(sys.argv[2], flush=True)
    sys.exit(1)
(marker.parent / "up").write_text("ok")
time.sleep(60)
"""


def member(tmp_path, message: str) -> Member:
    up = tmp_path / "up"
    return Member(
        name="flaky",
        cmd=[sys.executable, "-c", SCRIPT, str(tmp_path / "marker"), message],
        log=tmp_path / "flaky.log",
        probe=Probe("the up file", up.exists),
    )


def test_a_port_race_at_start_up_is_tried_again(tmp_path):
    with running(member(tmp_path, "zmq.error.ZMQError: Address already in use"), ready_timeout=20) as proc:
        assert proc.alive() and (tmp_path / "up").exists()
    assert "Address already in use" in (tmp_path / "flaky.log").read_text()  # the first start's output kept


def test_any_other_early_death_fails_at_once(tmp_path):
    with pytest.raises(HarnessError, match="exited with 1"), running(member(tmp_path, "ValueError: bad"), 20):
        pass
    assert not (tmp_path / "up").exists()


def test_a_member_interrupted_while_it_starts_is_stopped(tmp_path, monkeypatch):
    """Ctrl-C or SIGTERM (a `timeout`) arriving while a server starts: nothing is left running."""
    slow = Member(
        name="slow",
        cmd=[sys.executable, "-c", "import time; time.sleep(60)"],
        log=tmp_path / "slow.log",
        probe=Probe("never", lambda: (_ for _ in ()).throw(KeyboardInterrupt)),
    )
    started = []
    monkeypatch.setattr(process, "start", lambda m, real=process.start: started.append(real(m)) or started[-1])
    with pytest.raises(KeyboardInterrupt), running(slow, ready_timeout=20):
        pass
    assert started and not started[0].alive()
