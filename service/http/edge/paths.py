"""Which paths the edge treats apart: open without a key, not counted in flight, not logged, JSON only."""

from __future__ import annotations

HEALTH = ("/livez", "/healthz", "/readyz", "/ui")  # probes, and the page (its calls carry the key)
# BentoML's Swagger page is its index ("/", assets under /static_content or /assets)
DOCS = ("/", "/docs.json", "/schema.json", "/openapi.json", "/static_content", "/assets")
QUIET = ("/livez", "/healthz", "/readyz", "/metrics")  # no access line: probes and scrapes every few seconds
ADMIN = "/admin"  # the admin API: admin keys only
METRICS = "/metrics"
JOBS = "/jobs"  # uploads up to ZSC_JOB_MAX_MB
JSON_APIS = ("/classify", "/classify_batch", "/hf/zero-shot-classification")  # BentoML APIs: JSON bodies only
DECISIONS = "/v1/decisions"  # OpenAI's Decisions API (http/decisions.py)
SYSTEM_ONE = "/v1/systemone"  # the System One API (http/systemone.py)
JSON_BODIES = (*JSON_APIS, DECISIONS, SYSTEM_ONE)  # routes that read JSON only: 415 for any other media type
UNCOUNTED = HEALTH + DOCS + (METRICS, ADMIN)  # never held against the in-flight limits
JOBS_ROLE = ("/livez", "/healthz", "/readyz", METRICS)  # all a jobs replica serves (ZSC_ROLE=jobs)


def under(path: str, prefixes: tuple[str, ...]) -> bool:
    return any(path == p or path.startswith(p + "/") for p in prefixes)


def header(scope: dict, name: bytes) -> str | None:
    """One request header (``name`` in lower case, as ASGI servers give them), or None."""
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None
