"""The traffic calibration store against a real redis-server: replicas' deltas added with increments only (numbers
by HINCRBYFLOAT, packed rows by the store's Lua script) read back as the merged statistics, and a rebase keeps
them."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest

from service.core import calibration as cal
from service.core.calibration_sources import merged, read_record, texts_of
from service.pipeline.calibration_store import CalibrationStore
from tests.support.server import redis

LABELS = tuple(f"intent {i}" for i in range(12))
CONFIG = cal.CalibrationConfig(half_life=50.0, min_texts=0.0)


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    server = redis(tmp_path_factory.mktemp("calibration-redis"))
    yield server.url
    server.stop()


def test_replicas_deltas_read_back_as_the_merged_record_and_survive_a_rebase(redis_url):
    rng = np.random.default_rng(3)

    async def scenario() -> tuple[dict, dict, dict, dict]:
        one = CalibrationStore(redis_url, "t", ttl_s=60, timeout_s=2.0)
        two = CalibrationStore(redis_url, "t", ttl_s=60, timeout_s=2.0)  # another replica
        key = one.key("shared", "rev", "embedding", "digest")
        expected: dict = {}
        try:
            for i in range(8):  # replicas take turns, two sources; the record ages past its half-life
                store = (one, two)[i % 2]
                view = cal.LabelStats.empty(LABELS)  # a replica's stale view: the deltas do not depend on it
                x = rng.normal(size=(int(rng.integers(5, 30)), len(LABELS))) + np.linspace(-1, 1, len(LABELS))
                delta = {f"10.0.0.{i % 3}": cal.observe(view, x, CONFIG)}
                after = await store.add(key, "shared", delta, CONFIG.half_life)
                expected = merged(expected, delta, CONFIG.half_life)
            rebased = await one._rebase(key, LABELS, CONFIG.half_life)
            fields = (await two.read([key]))[0]
            return after, rebased, fields, expected
        finally:
            await one.close()
            await two.close()

    after, rebased, fields, expected = asyncio.run(scenario())
    assert rebased is not None
    for found in (read_record(LABELS, after, CONFIG.half_life), read_record(LABELS, fields, CONFIG.half_life)):
        assert set(found) == set(expected) and texts_of(found) == texts_of(expected)
        for source, stats in expected.items():
            for name in ("by_winner", "by_winner_squares", "wins", "settled"):
                np.testing.assert_allclose(getattr(found[source], name), getattr(stats, name), rtol=1e-9, err_msg=name)
            assert found[source].total == pytest.approx(stats.total, rel=1e-9)
    per_source = [k for k in fields if k.startswith(b"10.0.0.0#")]
    rows = [k for k in per_source if k.split(b"#")[1][:2] in (b"b|", b"v|")]
    assert rows and all(k.count(b"|") == 1 for k in rows)  # one field a row, not one a number
    assert len(per_source) <= 2 + 2 * len(LABELS) + 2 * len(LABELS)  # texts, total, w|, c| and the rows
    assert not math.isnan(float(fields[b"texts"]))
