"""zsc_* Prometheus metrics, next to BentoML's bentoml_service_* ones on /metrics.

Module-level objects: BentoML points prometheus_client at its multiprocess directory before the
service module is imported in a worker, so these aggregate across workers.
"""

from __future__ import annotations

from prometheus_client import Counter, Histogram

from .engine import BatchStats

_SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)

BATCH_TASKS = Histogram("zsc_engine_batch_requests", "Classification items per engine batch", buckets=_SIZE_BUCKETS)
BATCH_PAIRS = Histogram("zsc_engine_batch_pairs", "(text, label) pairs per engine batch", buckets=_SIZE_BUCKETS)
SEQUENCES = Counter("zsc_sequences_total", "Unique sequences sent through the model")
PAIRS = Counter("zsc_pairs_total", "(text, label) pairs scored")
TOKENS = Counter("zsc_tokens_total", "Tokens through the model", ["kind"])  # real | padded
MICRO_BATCHES = Counter("zsc_micro_batches_total", "Forward passes")
STAGE_SECONDS = Histogram(
    "zsc_stage_seconds",
    "Time per engine stage and batch",
    ["stage"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
ENGINE_ERRORS = Counter("zsc_engine_errors_total", "Engine batches that failed")


def observe_batch(stats: BatchStats, failed: bool) -> None:
    BATCH_TASKS.observe(stats.tasks)
    BATCH_PAIRS.observe(stats.pairs)
    PAIRS.inc(stats.pairs)
    SEQUENCES.inc(stats.sequences)
    TOKENS.labels("real").inc(stats.real_tokens)
    TOKENS.labels("padded").inc(stats.padded_tokens)
    MICRO_BATCHES.inc(stats.micro_batches)
    STAGE_SECONDS.labels("tokenize").observe(stats.tokenize_s)
    STAGE_SECONDS.labels("forward").observe(stats.forward_s)
    if failed:
        ENGINE_ERRORS.inc()
