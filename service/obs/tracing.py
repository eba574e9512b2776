"""OpenTelemetry traces, exported over OTLP/HTTP when ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) is set; without it every span here is the API's no-op.

BentoML's own tracing does the request span (its ASGI middleware) and the exporter (``tracing`` in the
service config, built by ``bentoml_tracing_config``); the spans below it are ours, from the one tracer
provider BentoML built, made global at start-up (``use_bentoml_provider``) so that modules outside the
service (the scorer, the batcher, the cache) need only ``opentelemetry.trace``:

    POST /classify                      (BentoML)
      cache.local, cache.redis          (pipeline/scorer.py)
      queue                             (engine/batcher.py: from submission to the batch it joined; links to it)
        batch                           (the merged engine call: a child of its first request's queue
          tokenize, forward              span, linked to every request's queue span)
      cache.redis.write                 (cache.py, after the answer)
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from opentelemetry import trace

TRACER_NAME = "zsc"


_TRACER = trace.get_tracer(TRACER_NAME)  # a proxy: it follows the provider use_bentoml_provider makes global


def tracer() -> trace.Tracer:
    return _TRACER


def otlp_traces_endpoint(env: Mapping[str, str] | None = None) -> str | None:
    """The OTLP/HTTP traces URL the standard variables name, or None."""
    env = os.environ if env is None else env
    if env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"):
        return env["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"]
    base = env.get("OTEL_EXPORTER_OTLP_ENDPOINT", "").rstrip("/")
    return f"{base}/v1/traces" if base else None


def bentoml_tracing_config(sample_rate: float, env: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The ``tracing`` section of the service config, or None when no collector is named."""
    env = os.environ if env is None else env
    endpoint = otlp_traces_endpoint(env)
    if endpoint is None:
        return None
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL") or ""
    if protocol not in ("", "http/protobuf"):
        raise ValueError(
            f"OTEL_EXPORTER_OTLP_PROTOCOL={protocol!r}: this service exports OTLP over HTTP (http/protobuf) only"
        )
    return {
        "exporter_type": "otlp",
        "sample_rate": sample_rate,
        "excluded_urls": "livez,healthz,readyz,metrics",  # probes and scrapes every few seconds: noise
        "otlp": {"protocol": "http", "endpoint": endpoint, "http": {}},
    }


def use_bentoml_provider() -> None:
    """Make BentoML's tracer provider (sampler, exporter, resource) the global one our spans come from."""
    from bentoml._internal.configuration.containers import BentoMLContainer  # no public accessor in 1.4

    trace.set_tracer_provider(BentoMLContainer.tracer_provider.get())
