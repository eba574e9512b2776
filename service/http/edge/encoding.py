"""A request body sent compressed (``Content-Encoding``), decoded before anything reads it: gzip and deflate
(zlib), and zstd, which TypeSafe's SDK uses for every body over 1 KiB when it can (Python 3.14's
``compression.zstd``, else the ``backports.zstd`` the service depends on).

Decoding is bounded by the same limit as a plain body: past it the request is a 413, so a small body that
expands to gigabytes (a decompression bomb) costs no more than the limit. A body that does not decode, or
an encoding not listed, is the client's mistake to fix (400, 415)."""

from __future__ import annotations

import zlib
from collections.abc import Callable

from service.errors import InvalidRequest, ServiceError, UnsupportedMediaType

try:
    from compression import zstd  # type: ignore[import-not-found]  # Python 3.14
except ImportError:
    try:
        from backports import zstd  # type: ignore[import-not-found,no-redef]
    except ImportError:  # pragma: no cover - a dependency of the service
        zstd = None  # type: ignore[assignment]

IDENTITY = ("", "identity")


def decoded(body: bytes, encoding: str, limit: int, too_large: Callable[[], ServiceError]) -> bytes:
    """``body`` as sent before ``encoding`` (a Content-Encoding value), at most ``limit`` bytes of it."""
    codings = [c.strip().lower() for c in encoding.split(",") if c.strip().lower() not in IDENTITY]
    for coding in reversed(codings):  # the last one listed was applied last
        body = _one(body, coding, limit, too_large)
    return body


def supported() -> tuple[str, ...]:
    return ("gzip", "deflate", "zstd") if zstd is not None else ("gzip", "deflate")


def _one(body: bytes, coding: str, limit: int, too_large: Callable[[], ServiceError]) -> bytes:
    if coding in ("gzip", "x-gzip", "deflate"):
        inflater = zlib.decompressobj(wbits=47)  # 32 + 15: a gzip or a zlib header, whichever it is
        try:
            out = inflater.decompress(body, limit + 1)
        except zlib.error as exc:
            raise InvalidRequest(f"the body is not valid {coding} (Content-Encoding): {exc}") from None
        done, left = inflater.eof, bool(inflater.unconsumed_tail)
    elif coding == "zstd" and zstd is not None:
        decompressor = zstd.ZstdDecompressor()
        try:
            out = decompressor.decompress(body, max_length=limit + 1)
        except zstd.ZstdError as exc:
            raise InvalidRequest(f"the body is not valid zstd (Content-Encoding): {exc}") from None
        done, left = decompressor.eof, not decompressor.needs_input and not decompressor.eof
    else:
        raise UnsupportedMediaType(
            f"Content-Encoding {coding!r} is not supported: send the body uncompressed, or as {', '.join(supported())}"
        )
    if len(out) > limit or left:
        raise too_large()
    if not done:
        raise InvalidRequest(f"the {coding} body ends before its end (Content-Encoding): send all of it")
    return out
