"""The edge's pure parts: how often refusals of the in-flight limit are logged."""

from __future__ import annotations

from service.http.middleware import ShedLines


def test_refusals_are_logged_once_a_second_with_how_many():
    lines = ShedLines(every_s=1.0)
    assert lines.refused(10.0) == 1  # the first of an overload at once
    assert [lines.refused(10.0 + i / 100) for i in range(1, 100)] == [0] * 99  # the rest of that second: quiet
    assert lines.refused(11.0) == 100  # the next line stands for every refusal since the last
    assert lines.refused(11.5) == 0
    assert lines.refused(30.0) == 2  # after a quiet spell: the one held back, and this one


def test_refusals_held_back_are_taken_for_a_line_of_their_own():
    lines = ShedLines(every_s=1.0)
    assert lines.refused(10.0) == 1
    assert lines.refused(10.2) == 0 and lines.refused(10.3) == 0
    assert lines.take(11.0) == 2  # the second is up: their line is written without waiting for another
    assert lines.take(11.5) == 0
    assert lines.refused(11.6) == 0  # within a second of that line: held back again
