"""Loopback ports. Everything the harness starts listens on 127.0.0.1 only."""

from __future__ import annotations

import socket
from collections.abc import Collection

HOST = "127.0.0.1"


def free_port(taken: Collection[int] = ()) -> int:
    """A port nothing listens on right now (the kernel's choice), not one of ``taken``."""
    while True:
        with socket.socket() as s:
            s.bind((HOST, 0))
            port = s.getsockname()[1]
        if port not in taken:
            return port


def port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
        return True
