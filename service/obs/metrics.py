"""zsc_* Prometheus metrics, next to BentoML's bentoml_service_* ones on /metrics.

Module-level objects: BentoML points prometheus_client at its multiprocess directory before the
service module is imported in a worker, so these aggregate across workers.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

_SIZE_BUCKETS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)

# the engine's metrics carry the model (its name in the store): a replica may serve several (ZSC_MODELS)
BATCH_REQUESTS = Histogram(
    "zsc_batch_requests", "Requests merged into one engine batch by adaptive batching", ["model"], buckets=_SIZE_BUCKETS
)
BATCH_SEQUENCES = Histogram(
    "zsc_batch_sequences",
    "Model sequences asked for per engine batch (before de-duplication)",
    ["model"],
    buckets=_SIZE_BUCKETS,
)
SEQUENCES = Counter("zsc_sequences_total", "Unique sequences sent through the model", ["model"])
TOKENS = Counter("zsc_tokens_total", "Tokens through the model", ["model", "kind"])  # real | padded
MICRO_BATCHES = Counter("zsc_micro_batches_total", "Forward passes", ["model"])
STAGE_SECONDS = Histogram(
    "zsc_stage_seconds",
    "Time per engine stage and batch",
    ["model", "stage"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)
ENGINE_ERRORS = Counter("zsc_engine_errors_total", "Engine batches that failed", ["model"])
REFERENCE_SEQUENCES = Counter(
    "zsc_reference_sequences_total",
    "Unique sequences computed by the model's fp32 copy (labels, and close calls computed again: "
    "ZSC_CLOSE_CALL_MARGIN); zsc_sequences_total counts them too",
    ["model"],
)

CACHE_REQUESTS = Counter("zsc_cache_requests_total", "Sequence lookups per cache tier", ["tier", "result"])
CACHE_RESPONSES = Counter("zsc_cache_responses_total", "Requests by cache outcome", ["status"])
CACHE_ERRORS = Counter("zsc_cache_errors_total", "Cache tier errors", ["tier", "kind"])
CACHE_SECONDS = Histogram(
    "zsc_cache_lookup_seconds",
    "Cache lookup latency per tier",
    ["tier"],
    buckets=(0.0001, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25),
)
BREAKER_OPEN = Gauge(
    "zsc_cache_breaker_open", "1 while the tier's circuit breaker skips it", ["tier"], multiprocess_mode="max"
)

JOBS = Counter("zsc_jobs_total", "Jobs by event: submitted, finished, cancelled, deleted", ["event"])
JOB_ITEMS = Counter("zsc_jobs_items_total", "Job items classified and stored (answers and item errors)")
JOB_CHUNKS = Counter(
    "zsc_jobs_chunks_total",
    "Job chunks by outcome: stored; skipped (cancelled or expired job); claimed (taken over after the visibility "
    "timeout); retried (a slice the model failed on); estimated (the estimate pass of a job calibrating on its own "
    "texts)",
    ["outcome"],
)
IN_FLIGHT_LIMIT = Gauge(
    "zsc_in_flight_limit",
    "Requests in flight taken before 429, learned against ZSC_TARGET_LATENCY_MS (summed over workers): the "
    "replica's (model=\"*\", one model served) or each model's own (several served)",
    ["model"],
    multiprocess_mode="livesum",
)
MODEL_INFO = Gauge(
    "zsc_model_info",
    "1 per served model: the runtime and precision it runs on, and how they were chosen (measured, remembered, "
    "pinned: not verified, only candidate, device)",
    ["model", "runtime", "precision", "how"],
    multiprocess_mode="max",
)
JOB_YIELDS = Counter(
    "zsc_jobs_yields_total",
    "Job slices after which the worker paused for interactive requests, by where they were served: replica "
    "(this one) or cluster (only another replica of the jobs Redis; ZSC_JOB_YIELD_SCOPE)",
    ["where"],
)
JOB_QUEUE = Gauge(
    "zsc_jobs_queue_depth", "Chunks queued or in progress (the Redis stream's length)", multiprocess_mode="max"
)

CALIBRATION_TEXTS = Gauge(
    "zsc_calibration_texts",
    "Texts a calibration has seen: traffic (this process's view of what every replica observed), frozen (what "
    'zsc calibrate fitted it on); per label set\'s own wording, every other wording summed under label_set="*"',
    ["model", "label_set", "mode"],
    multiprocess_mode="max",
)
CALIBRATION_SCOPE = Gauge(
    "zsc_calibration_scope",
    "Traffic calibration per scope (key:<key id>, or shared) in this process's view: records held (label "
    "wordings, at most ZSC_CALIBRATION_SCOPE_RECORDS), texts seen, sources (the most of any one record), the "
    "largest source's share of a record's weight before the cap, and the sources whose texts the burst guard holds "
    "back now (stat)",
    ["model", "scope", "stat"],
    multiprocess_mode="max",
)
CALIBRATION_ANSWERS = Counter(
    "zsc_calibration_answers_total",
    "Answers by the calibration they asked for (mode: none, traffic, frozen, job) and whether their scores were "
    "corrected (calibrated: false while a calibration has seen too few texts, or a frozen one does not fit)",
    ["mode", "calibrated"],
)

# every series exists from the start (dashboards and alerts see 0, not "no data")
for _event in ("submitted", "finished", "cancelled", "deleted"):
    JOBS.labels(_event)
for _outcome in ("stored", "skipped", "claimed", "retried", "estimated"):
    JOB_CHUNKS.labels(_outcome)
for _where in ("replica", "cluster"):
    JOB_YIELDS.labels(_where)
for _mode in ("none", "traffic", "frozen", "job"):
    for _calibrated in ("true", "false"):
        CALIBRATION_ANSWERS.labels(_mode, _calibrated)


def observe_job_worker(event: str, n: int) -> None:
    """The job worker's events (jobs/worker.py) as metrics."""
    if event == "items":
        JOB_ITEMS.inc(n)
    elif event == "finished":
        JOBS.labels("finished").inc(n)
    elif event.startswith("yielded_"):
        JOB_YIELDS.labels(event.removeprefix("yielded_")).inc(n)
    else:  # chunks -> stored, skipped, claimed, retries -> retried
        JOB_CHUNKS.labels({"chunks": "stored", "retries": "retried"}.get(event, event)).inc(n)


def model_info(model: str, runtime: str, precision: str, how: str) -> None:
    MODEL_INFO.labels(model, runtime, precision, how).set(1)


def engine_series(model: str) -> None:
    """Every engine series of a model exists from its load on (dashboards and alerts see 0)."""
    ENGINE_ERRORS.labels(model)
    REFERENCE_SEQUENCES.labels(model)
    SEQUENCES.labels(model)
    MICRO_BATCHES.labels(model)


def observe_batch(model: str, requests: int, sequences: int) -> None:
    BATCH_REQUESTS.labels(model).observe(requests)
    BATCH_SEQUENCES.labels(model).observe(sequences)


def observe_engine(model: str, stats) -> None:
    SEQUENCES.labels(model).inc(stats.sequences)
    TOKENS.labels(model, "real").inc(stats.real_tokens)
    TOKENS.labels(model, "padded").inc(stats.padded_tokens)
    MICRO_BATCHES.labels(model).inc(stats.micro_batches)
    STAGE_SECONDS.labels(model, "tokenize").observe(stats.tokenize_s)
    STAGE_SECONDS.labels(model, "forward").observe(stats.forward_s)


def cache_lookup(tier: str, hits: int, misses: int) -> None:
    if hits:
        CACHE_REQUESTS.labels(tier, "hit").inc(hits)
    if misses:
        CACHE_REQUESTS.labels(tier, "miss").inc(misses)


def cache_response(status: str) -> None:
    CACHE_RESPONSES.labels(status).inc()


def cache_error(tier: str, kind: str, n: int = 1) -> None:
    CACHE_ERRORS.labels(tier, kind).inc(n)


def cache_latency(tier: str, seconds: float) -> None:
    CACHE_SECONDS.labels(tier).observe(seconds)


def breaker_state(tier: str, state: str) -> None:
    BREAKER_OPEN.labels(tier).set(1.0 if state == "open" else 0.0)


def calibration_answer(mode: str, calibrated: bool) -> None:
    CALIBRATION_ANSWERS.labels(mode, "true" if calibrated else "false").inc()


def calibration_scopes(model: str, scopes: list[dict]) -> None:
    """Per scope: records held, texts seen, sources, the largest source's share and the sources held back as a
    burst (``TrafficCalibration.scopes``)."""
    for seen in scopes:
        for stat in ("records", "texts", "sources", "largest_share", "held_back"):
            CALIBRATION_SCOPE.labels(model, seen["scope"], stat).set(seen[stat])


def calibration_texts(model: str, texts: dict[str, int], mode: str = "traffic") -> None:
    """Texts per label set (``*``: every ad hoc wording) of one model's calibrations."""
    for label_set, n in texts.items():
        CALIBRATION_TEXTS.labels(model, label_set, mode).set(n)
