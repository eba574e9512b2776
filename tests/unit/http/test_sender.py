"""Who sent a request (traffic calibration's scope and source): the access layer's key id and the address
the ASGI scope gives, never a header a client sets."""

from __future__ import annotations

from service.http.sender import sender_of
from service.pipeline.call import Sender


def test_the_key_and_the_peer_address_name_the_sender():
    scope = {"client": ("10.1.2.3", 5123), "state": {"zsc_key_id": "9f86d081"}, "headers": []}
    assert sender_of(scope) == Sender(key="9f86d081", address="10.1.2.3")


def test_a_header_naming_another_address_is_not_read():
    """Behind a trusted proxy uvicorn has already put the forwarded client in ``client``; a client's own
    X-Real-IP or X-Forwarded-For reaching the service directly changes nothing."""
    headers = [(b"x-real-ip", b"192.0.2.9"), (b"x-forwarded-for", b"192.0.2.9")]
    assert sender_of({"client": ("10.1.2.3", 5123), "headers": headers}) == Sender(key=None, address="10.1.2.3")
    assert sender_of({"headers": headers}) == Sender()
