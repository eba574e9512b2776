"""How often a frequent event is logged (refusals of the in-flight limit, slow connections closed): the first
at once, then at most one line a second saying how many, the ones held back flushed when the second is up."""

from __future__ import annotations

import asyncio

from service.obs.logs import EverySecond


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def test_the_first_at_once_then_one_line_a_second_with_how_many():
    clock = Clock()
    lines = EverySecond(clock=clock)
    assert lines.count() == {"": 1}  # the first of an overload at once
    held = []
    for i in range(1, 100):
        clock.now = 10.0 + i / 100
        held.append(lines.count())
    assert held == [{}] * 99  # the rest of that second: quiet
    clock.now = 11.0
    assert lines.count() == {"": 100}  # the next line stands for every event since the last
    clock.now = 30.0
    assert lines.count() == {"": 1}


def test_counts_are_kept_by_kind():
    clock = Clock()
    lines = EverySecond(clock=clock)
    assert lines.count("head") == {"head": 1}
    lines.count("body")
    lines.count("body")
    lines.count("evicted")
    assert lines.take() == {"body": 2, "evicted": 1}
    assert lines.take() == {}


def test_the_ones_held_back_are_written_when_the_second_is_up():
    written: list[dict[str, int]] = []

    async def scenario() -> None:
        lines = EverySecond(on_line=written.append, every_s=0.2)
        assert lines.count() == {"": 1}
        assert lines.count() == {} and lines.count() == {}
        await asyncio.sleep(0.35)  # no further event: the flush writes them without waiting for one

    asyncio.run(scenario())
    assert written == [{"": 2}]
