"""Compressed request bodies: decoded as sent, within the body's bound, and a clear error otherwise."""

from __future__ import annotations

import gzip
import zlib

import pytest
from backports import zstd

from service.errors import InvalidRequest, PayloadTooLarge, UnsupportedMediaType
from service.http.edge.encoding import decoded

BODY = b'{"text": "where is my parcel", "labels": ["shipping", "billing"]}' * 20


def too_large() -> PayloadTooLarge:
    return PayloadTooLarge("over the limit")


@pytest.mark.parametrize(
    ("encoding", "compress"),
    [("gzip", gzip.compress), ("deflate", zlib.compress), ("zstd", zstd.compress), ("identity", lambda b: b)],
)
def test_each_encoding_decodes_to_the_body_sent(encoding, compress):
    assert decoded(compress(BODY), encoding, len(BODY), too_large) == BODY
    assert decoded(compress(BODY), encoding.upper() + " ", len(BODY), too_large) == BODY


def test_two_encodings_are_undone_last_first():
    assert decoded(zstd.compress(gzip.compress(BODY)), "gzip, zstd", len(BODY), too_large) == BODY


@pytest.mark.parametrize("compress", [gzip.compress, zstd.compress])
def test_a_body_that_expands_past_the_bound_stops_there(compress):
    bomb = compress(b"\0" * 50_000_000)  # a few kilobytes sent, 50 MB decoded
    assert len(bomb) < 100_000
    with pytest.raises(PayloadTooLarge):
        decoded(bomb, "gzip" if compress is gzip.compress else "zstd", 1_000_000, too_large)


def test_what_does_not_decode_says_what_to_fix():
    with pytest.raises(InvalidRequest, match="not valid gzip"):
        decoded(b"plain text", "gzip", 1000, too_large)
    with pytest.raises(InvalidRequest, match="not valid zstd"):
        decoded(b"plain text", "zstd", 1000, too_large)
    with pytest.raises(InvalidRequest, match="ends before its end"):
        decoded(gzip.compress(BODY)[:40], "gzip", len(BODY), too_large)
    with pytest.raises(UnsupportedMediaType, match="Content-Encoding 'br' is not supported.*gzip, deflate, zstd"):
        decoded(BODY, "br", len(BODY), too_large)
