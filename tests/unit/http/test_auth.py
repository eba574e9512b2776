"""API keys (constant-time check, rotation through a key file) and the per-key token bucket."""

from __future__ import annotations

import os

import pytest

from service.http.auth import ApiKeys, KeyRateLimiter, bearer_token, key_id, parse_key_file

pytestmark = pytest.mark.unit


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_either_of_two_keys_passes_and_nothing_else():
    keys = ApiKeys(["old-key", "new-key"])
    assert keys.check("old-key") and keys.check("new-key")
    for wrong in ("", "old", "old-key ", "OLD-KEY", "new-key-and-more", "x" * 10_000):
        assert not keys.check(wrong), wrong


def test_key_file_is_reread_when_it_changes(tmp_path):
    path = tmp_path / "keys"
    path.write_text("# rotated 2026-11\nfirst\n\n  second  \n")
    clock = Clock()
    keys = ApiKeys([], str(path), clock=clock)
    assert keys.check("first") and keys.check("second") and not keys.check("# rotated 2026-11")
    path.write_text("second\nthird\n")
    os.utime(path, ns=(1, 10**18))  # a new mtime whatever the file system's resolution
    assert keys.check("first"), "the file is looked at again only after RELOAD_CHECK_S"
    clock.now += 5
    assert not keys.check("first") and keys.check("second") and keys.check("third")


def test_a_key_file_that_vanishes_or_empties_keeps_the_keys_it_had(tmp_path):
    path = tmp_path / "keys"
    path.write_text("only\n")
    clock = Clock()
    keys = ApiKeys([], str(path), clock=clock)
    path.unlink()
    clock.now += 5
    assert keys.check("only")
    path.write_text("")
    clock.now += 5
    assert keys.check("only"), "a Secret caught half-written must not lock everyone out"


def test_a_missing_or_empty_key_file_at_start_is_an_error(tmp_path):
    with pytest.raises(ValueError, match="does not exist"):
        ApiKeys([], str(tmp_path / "nope"))
    (tmp_path / "empty").write_text("# nothing\n")
    with pytest.raises(ValueError, match="holds no key"):
        ApiKeys([], str(tmp_path / "empty"))


@pytest.mark.parametrize(
    "header, token",
    [
        ("Bearer abc", "abc"),
        ("bearer  abc ", "abc"),
        ("Basic abc", None),
        ("Bearer", None),
        ("Bearer   ", None),
        ("", None),
        (None, None),
    ],
)
def test_bearer_token(header, token):
    assert bearer_token(header) == token


def test_key_id_names_a_key_without_showing_it():
    assert key_id("secret-key") == key_id("secret-key") != key_id("secret-kez")
    assert len(key_id("secret-key")) == 8 and "secret" not in key_id("secret-key")
    assert parse_key_file("a\n#b\n c \n") == ["a", "c"]


def test_token_bucket_allows_the_burst_then_the_rate():
    clock = Clock()
    limiter = KeyRateLimiter(rate=2, burst=3, clock=clock)
    assert [limiter.acquire("k") for _ in range(3)] == [0, 0, 0]
    wait = limiter.acquire("k")
    assert wait == pytest.approx(0.5)
    assert limiter.acquire("other") == 0, "each key has its own bucket"
    clock.now += 0.5
    assert limiter.acquire("k") == 0 and limiter.acquire("k") > 0
    clock.now += 100
    # the bucket holds at most the burst
    assert [limiter.acquire("k") for _ in range(4)] == [0, 0, 0, pytest.approx(0.5)]


def test_default_burst_is_one_seconds_worth():
    assert KeyRateLimiter(rate=10).burst == 10 and KeyRateLimiter(rate=0.5).burst == 1
