"""Observability, used by every layer and using none: zsc_* metrics, log lines with request ids, traces,
and the per-request context the access line reports."""
