"""The guards' shared ramp: 0 up to where a rule starts, 1 from where it applies in full, linear between."""

from __future__ import annotations

import pytest

from service.core.ramp import ramp


@pytest.mark.parametrize(
    ("value", "expected"),
    [(-1.0, 0.0), (0.2, 0.0), (0.25, 0.5), (0.275, 0.75), (0.3, 1.0), (5.0, 1.0)],
)
def test_the_ramp_is_flat_outside_its_range_and_linear_in_it(value, expected):
    assert ramp(value, 0.2, 0.3) == pytest.approx(expected)
