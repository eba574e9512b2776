"""The web page at /ui: static files (HTML, CSS, JavaScript; nothing from a CDN) that call the service's
own API from the browser. ``STATIC`` is the folder ``routes.py`` serves."""

from pathlib import Path

STATIC = Path(__file__).resolve().parent / "static"
