"""Every knob of the service, declared once, read from the environment (prefix ``ZSC_``).

The settings object is frozen and built once per process (``settings()``); tests build their own with
``Settings.from_env(env)``. Secrets are redacted by ``Settings.redacted()`` before they are logged.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin
from urllib.parse import urlsplit, urlunsplit

Device = Literal["auto", "cpu", "cuda"]
Runtime = Literal["auto", "onnx", "openvino", "torch"]
Precision = Literal["auto", "fp32", "bf16", "fp16", "int8"]

DEFAULT_MODEL = "multilingual-e5-small"
# what each runtime computes in: onnx's int8 is the quantized graph the import writes, fp16 its CUDA graph;
# openvino's bf16 and fp16 are its own inference precision over the fp32 graph; torch is fp32 (fp16 on CUDA)
RUNTIME_PRECISIONS = {"onnx": ("fp32", "int8", "fp16"), "openvino": ("fp32", "bf16", "fp16"), "torch": ("fp32", "fp16")}

# a model-store tag: a name, optionally ":version" (requests' `model`, aliases; validated and documented alike)
MODEL_TAG = r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}"


def model_name(tag: str) -> str:
    """A model's name from its tag (``name:version``, or the name alone)."""
    return tag.split(":")[0]


@dataclass(frozen=True)
class Batching:
    max_batch_size: int
    token_budget: int
    max_rows: int
    batches_in_flight: int


# On a CPU a forward pass costs the same per token at any width past a few rows: small batches keep latency
# low. A GPU is efficient only wide (docs/performance.md, "GPU batch width"), and tokenizing on the CPU can
# run beside it.
DEVICE_DEFAULTS = {
    "cpu": Batching(max_batch_size=512, token_budget=8192, max_rows=256, batches_in_flight=1),
    "cuda": Batching(max_batch_size=4096, token_budget=65536, max_rows=1024, batches_in_flight=2),
}


def _doc(text: str, **kw: Any) -> Any:
    return field(metadata={"doc": text}, **kw)


@dataclass(frozen=True)
class Settings:
    # Model selection -------------------------------------------------------------------------------
    model: str = _doc(
        "BentoML model tag (name or name:version) to serve; the bundled multilingual encoder when unset "
        "(all-minilm-l6-v2: the bundled English one, faster on English-only traffic).",
        default=DEFAULT_MODEL,
    )
    models: str = _doc(
        "Several models in one replica, comma-separated tags or bundled names (each imported on first use); the "
        "first is the default, a request picks another with `model`. Empty = ZSC_MODEL alone.",
        default="",
    )
    models_file: str = _doc(
        "A file listing the models to serve (one tag per line, the default first; a ConfigMap on Kubernetes), "
        "re-read when it changes: models are loaded, replaced (a new version) and unloaded to match, with no "
        "failed request. Empty = the models are fixed at start-up (or changed through the admin API).",
        default="",
    )
    model_aliases: str = _doc(
        'Other names for served models, "alias=model[,alias=model...]" (e.g. gpt-6-luna=multilingual-e5-small,'
        "jev-latest=multilingual-e5-small): a request's model (POST /v1/decisions, POST /v1/systemone, GET /v1/models)"
        " may name the alias, so code written for another "
        "provider runs with only its base URL changed. An alias of a model this replica does not serve stops it at "
        "start-up (unless ZSC_MODELS_FILE decides the models); one whose model is unloaded later answers 404. "
        "Empty = none.",
        default="",
    )
    admin_keys: str = _doc(
        "Comma-separated keys for the admin API (POST /admin/models, DELETE /admin/models/NAME: load, replace "
        "and unload models while serving); a data key (ZSC_API_KEYS) is refused with 403. Empty = no admin API.",
        default="",
    )
    memory_limit_mb: int = _doc(
        "Memory the replica may use, in megabytes, against which a model to load is checked (refused with 507 "
        "when it would not fit); 0 = the container's limit (cgroup), else the machine's available memory.",
        default=0,
    )
    device: Device = _doc("Where the backend runs: auto picks cuda when a GPU is visible, else cpu.", default="auto")
    runtime: Runtime = _doc(
        "Inference runtime: onnx (ONNX Runtime), openvino, torch, or auto: on a CPU the fastest of the runtimes "
        "and precisions this machine supports whose answers agree with fp32 on a built-in sample (measured at the "
        "first start, remembered per model revision and CPU); on a GPU onnx when the model has an ONNX export, "
        "else torch. Setting it (or ZSC_PRECISION) pins the choice: nothing is measured.",
        default="auto",
    )
    precision: Precision = _doc(
        "Arithmetic of the forward pass: fp32; bf16 and fp16 (openvino's inference precision; fp16 is the ONNX "
        "graph on a GPU); int8 (ONNX Runtime's dynamically quantized graph: faster, scores differ); or auto: "
        "chosen with ZSC_RUNTIME=auto, else the runtime's fp32 (fp16 on a GPU when exported).",
        default="auto",
    )
    close_call_margin: float = _doc(
        "On a CPU serving below fp32 (bf16, fp16, int8): an answer whose two best labels are within this of each "
        "other is computed again in fp32 by the same runtime (label rows always are), so a rounding error cannot "
        "flip a close call; 0 = never, and no fp32 copy of the model is loaded.",
        default=0.01,
    )
    runtime_cache_dir: str = _doc(
        "Writable folder for OpenVINO's compiled models (a restart does not compile again) and the remembered "
        "auto choice; empty = zsc-runtime under BENTOML_HOME (~/bentoml when unset).",
        default="",
    )
    cpu_threads: int = _doc(
        "Intra-op threads per worker for the CPU backend; 0 = this process's cores divided by ZSC_WORKERS.", default=0
    )

    # Batching (0 = the device's default: see DEVICE_DEFAULTS) ---------------------------------------
    max_batch_size: int = _doc(
        "Most model sequences (NLI pairs, or texts and labels) adaptive batching merges into one engine "
        "call per worker; a larger request is split across calls. 0 = 512 on CPU, 4096 on a GPU.",
        default=0,
    )
    max_latency_ms: int = _doc(
        "The batching queue sheds a request with 503 when it would wait past this for its batch to start (at "
        "the speed it measures), or has; generous because the cost per request varies with its label count.",
        default=30000,
    )
    token_budget: int = _doc(
        "Padded tokens (rows x padded length) in one forward pass; bounds memory and keeps batches "
        "of short pairs wide and batches of long pairs narrow. 0 = 8192 on CPU, 65536 on a GPU.",
        default=0,
    )
    max_rows: int = _doc("Most rows per forward pass, whatever their length; 0 = 256 on CPU, 1024 on a GPU.", default=0)
    batches_in_flight: int = _doc(
        "Engine calls one worker keeps going: 2 tokenizes the next merged batch while the current one runs "
        "its forward passes. 0 = 1 on CPU (the stages would share the same cores), 2 on a GPU.",
        default=0,
    )
    batch_overhead_tokens: int = _doc(
        "Fixed cost of one forward pass in padded-token equivalents, for planning micro-batches "
        "(higher merges more, lower pads less); -1 = measure it at start-up.",
        default=-1,
    )

    # Cache -----------------------------------------------------------------------------------------
    redis_url: str = _doc(
        "redis:// or rediss:// URL (password inside) of the shared cache tier; empty = in-process tier only.",
        default="",
    )
    cache_ttl_s: int = _doc("Lifetime of an entry in Redis, in seconds.", default=7 * 24 * 3600)
    cache_prefix: str = _doc("Prefix of every Redis key (several deployments can share one Redis).", default="zsc")
    cache_local_entries: int = _doc("Most rows in the in-process tier (0 disables it).", default=200_000)
    cache_local_mb: int = _doc("Most megabytes of rows in the in-process tier.", default=256)
    label_cache_size: int = _doc(
        "Label embeddings kept per process (embedding models): labels are encoded once and reused.",
        default=65536,
    )
    redis_timeout_ms: int = _doc(
        "Socket timeout of every Redis call; past it the request goes on without Redis.", default=50
    )

    # Label sets ------------------------------------------------------------------------------------
    label_sets: str = _doc(
        "Directory of label-set YAML files (zsc tune writes them) loaded at start-up; requests name a set "
        "with label_set. Empty = none.",
        default="",
    )

    # Calibration (label bias learned from unlabelled texts) ---------------------------------------------
    calibration_min_texts: int = _doc(
        "Texts a traffic or job calibration must have seen before it corrects anything; until then answers say "
        "uncalibrated. zsc calibrate refuses a file with fewer.",
        default=10,
    )
    calibration_half_life: int = _doc(
        "Traffic calibration: texts after which an answered text counts half, once a record has seen as many "
        "(until then every text counts in full: a plain mean of what it has). Old traffic fades; a moving class "
        "mix favours long memory, a moving bias short: 2000 was within 0.007 of the best of both, "
        "docs/evaluation.md.",
        default=2000,
    )
    calibration_records: int = _doc(
        "Traffic calibration records (label wordings) kept per model and process, least recently used dropped "
        "first (with Redis, a dropped record is read again when its labels come back).",
        default=4096,
    )
    calibration_sync_ms: int = _doc(
        "With Redis (ZSC_REDIS_URL): milliseconds between a process's writes of what it observed (increments "
        "only) and its reads of what every replica has, per active record.",
        default=1000,
    )
    calibration_scope_records: int = _doc(
        "Traffic calibration records (label wordings) kept per scope (an API key's, or the shared one), in each "
        "process and in Redis; a scope's least recently written record is dropped first.",
        default=256,
    )
    calibration_source_share: float = _doc(
        "Traffic calibration: the largest share of a record's weight one source (an API key; with keys off, a "
        "client address) may hold when it has others; a stream flooding one label moves the answers no further.",
        default=0.5,
    )
    calibration_sources: int = _doc(
        "Traffic calibration: sources a record keeps apart; texts of further sources count as one more.",
        default=16,
    )
    calibration_ttl_s: int = _doc(
        "With Redis: lifetime of a traffic calibration record after its last write, in seconds.",
        default=30 * 24 * 3600,
    )

    # Jobs ------------------------------------------------------------------------------------------
    jobs_redis_url: str = _doc(
        "redis:// or rediss:// URL (password inside) of the Redis that keeps jobs (their queue, records and "
        "results, and the replicas' interactive-activity signal): give it append-only persistence so that jobs "
        "survive its restart, and keep the cache's Redis volatile. Empty = the cache's (ZSC_REDIS_URL); both "
        "empty = jobs in this process only.",
        default="",
    )
    job_max_items: int = _doc("Most items in one job (POST /jobs).", default=100_000)
    job_max_mb: int = _doc("Largest job upload or body, in megabytes; refused with 413 past it.", default=64)
    job_chunk_items: int = _doc(
        "Items per chunk: the unit a replica takes from the queue, stores results for and acknowledges.",
        default=64,
    )
    job_slice_items: int = _doc(
        "Items a job worker sends into the classifier at once; small, so an interactive request never waits "
        "behind more than one slice.",
        default=16,
    )
    job_ttl_s: int = _doc(
        "How long a job and its results are kept once it has ended (done or cancelled), in seconds; a job "
        "still queued or running never expires, however long the queue.",
        default=86400,
    )
    job_visibility_s: int = _doc(
        "With Redis: a chunk whose replica stopped renewing it for this long is claimed by another replica.",
        default=60,
    )
    job_share_pct: int = _doc(
        "Share of a replica's model time, in percent, that job work may take while interactive requests "
        "are in flight (100 = no yielding), divided among its ZSC_JOB_WORKERS; with ZSC_JOB_YIELD_SCOPE=cluster "
        "the share of all replicas' job workers together; with no interactive load jobs take all of it.",
        default=50,
    )
    job_yield_scope: Literal["cluster", "replica"] = _doc(
        "Whose interactive requests a job worker yields to: cluster = any replica's that shares the jobs Redis "
        "(replicas on shared cores or a shared GPU); replica = only its own (each replica has cores of its own).",
        default="cluster",
    )
    job_max_attempts: int = _doc(
        "Tries of a slice the model fails on, and deliveries of a chunk that kills its workers, before its "
        "items are answered with an error.",
        default=3,
    )
    job_workers: int = _doc(
        "Chunks this replica works on at once (per BentoML worker); 0 = it accepts and serves jobs but runs "
        "none (dedicated interactive replicas).",
        default=1,
    )
    role: Literal["all", "api", "jobs"] = _doc(
        "What this replica does: all = serves requests and runs job chunks; api = serves requests (jobs "
        "included: submitted, polled, read) and runs no chunk; jobs = runs job chunks only, answering /livez, "
        "/readyz and /metrics and a 404 on any other path (needs the jobs Redis; scaled on the queue, "
        "docs/deploy.md).",
        default="all",
    )
    job_drain_s: int = _doc(
        "On shutdown (SIGTERM), seconds a job worker may take to finish the chunk it holds before handing it "
        "back to the queue unfinished; below the pod's terminationGracePeriodSeconds.",
        default=20,
    )

    # Access ----------------------------------------------------------------------------------------
    api_keys: str = _doc(
        "Comma-separated API keys; when set (or ZSC_API_KEYS_FILE), every data endpoint needs "
        "`Authorization: Bearer <key>`. Two keys at once let a key be rotated.",
        default="",
    )
    api_keys_file: str = _doc(
        "File with one API key per line (a mounted Kubernetes Secret); re-read when it changes, so a "
        "rotated Secret takes effect without a restart.",
        default="",
    )
    open_metrics: Literal["true", "false"] = _doc(
        "Whether /metrics answers without a key (Prometheus scrapes it inside the cluster).", default="true"
    )
    open_docs: Literal["true", "false"] = _doc(
        "Whether the Swagger page (/), /docs.json, /schema.json and /openapi.json answer without a key.", default="true"
    )
    rate_limit_rps: int = _doc(
        "Requests per second each API key may send to one worker (429 with Retry-After past it); 0 = no limit.",
        default=0,
    )
    rate_limit_burst: int = _doc("Requests a key may send at once above its rate; 0 = one second's worth.", default=0)
    max_body_mb: int = _doc(
        "Largest request body, in megabytes, outside POST /jobs (ZSC_JOB_MAX_MB); 413 past it. nginx's "
        "client_max_body_size matches it.",
        default=16,
    )
    retry_after_s: int = _doc("The Retry-After every 429 and 503 answer carries, in seconds.", default=1)

    # Connections: slow and idle clients (per worker process) ----------------------------------------
    head_timeout_s: int = _doc(
        "Seconds a request's head (request line and headers) may take to arrive, from the connection's start or "
        "its first byte after an answer; past it 408 and the connection is closed (slowloris).",
        default=10,
    )
    body_timeout_s: int = _doc(
        "Seconds a request's body may take to arrive once its head has, plus one second per 64 KiB received (a "
        "large upload on a slow link still arrives, a trickle does not); past it 408 and the connection is closed. "
        "A request is admitted (counted in flight) only once its whole body is read.",
        default=15,
    )
    send_timeout_s: int = _doc(
        "Seconds a client may leave an answer unread (the socket's send buffer full) before its connection is dropped.",
        default=30,
    )
    keep_alive_s: int = _doc(
        "Seconds an idle keep-alive connection is kept between requests (nginx's upstream keepalive_timeout "
        "stays below it).",
        default=5,
    )
    max_pending_connections: int = _doc(
        "Connections per worker that may still be sending their request's head or body at once; a new one past "
        "it closes the one that has been sending the longest (408).",
        default=1024,
    )
    body_buffer_mb: int = _doc(
        "Megabytes of request bodies still being received that one worker holds at once; a body that would pass "
        "it is refused with 503 and Retry-After. At least ZSC_MAX_BODY_MB and ZSC_JOB_MAX_MB.",
        default=256,
    )

    # Logs and traces -------------------------------------------------------------------------------
    log_format: Literal["text", "json"] = _doc(
        "text: BentoML's lines; json: one JSON object per line (time, level, logger, request id, message, and "
        "for each request its endpoint, status, duration, cache status and pairs).",
        default="text",
    )
    trace_sample_rate: str = _doc(
        "Share of requests traced (0 to 1) when OTEL_EXPORTER_OTLP_ENDPOINT (or "
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names an OTLP/HTTP collector; without one nothing is traced.",
        default="1.0",
    )

    # Limits ----------------------------------------------------------------------------------------
    max_text_chars: int = _doc("Longest accepted text, in characters.", default=10000)
    max_labels: int = _doc("Most candidate labels in one request or batch item.", default=64)
    max_label_chars: int = _doc("Longest accepted label, in characters.", default=100)
    max_template_chars: int = _doc("Longest accepted hypothesis template.", default=200)
    max_description_chars: int = _doc(
        "Longest accepted label description or hypothesis (label objects), per phrasing.", default=300
    )
    max_phrasings: int = _doc("Most phrasings (descriptions or hypotheses) one label object may list.", default=8)
    max_examples_per_label: int = _doc(
        "Most example texts one label object may list (embedding models; each is one more model sequence, "
        "counted against ZSC_MAX_PAIRS_PER_REQUEST).",
        default=16,
    )
    max_examples_per_request: int = _doc(
        "Most distinct example texts in one call, over all its labels (a /classify_batch call's items that share "
        "examples, e.g. through a label set, are charged each text once).",
        default=1024,
    )
    max_example_chars: int = _doc("Longest accepted example text (label objects), in characters.", default=1000)
    max_windows: int = _doc('Most windows one text may be split into with truncation "chunk".', default=16)
    max_batch_items: int = _doc("Most items in one /classify_batch call.", default=256)
    max_pairs_per_request: int = _doc(
        "Most (text window, phrasing) pairs in one call, summed over a /classify_batch call's items: a label "
        "with several phrasings and a text in several windows count as many pairs.",
        default=4096,
    )

    # Process ---------------------------------------------------------------------------------------
    workers: int = _doc("BentoML worker processes; each loads its own copy of the model.", default=1)
    timeout_s: int = _doc("Per-request timeout before BentoML answers 504.", default=60)
    target_latency_ms: int = _doc(
        "Latency the replica keeps accepted requests within, queue wait included: the in-flight limit is learned "
        "from it (429 with Retry-After beyond; ZSC_MAX_CONCURRENCY stays the upper bound; a replica serving several "
        "models learns one per model). 0 = by device: 500 on CPU, 250 on a GPU; -1 = no learned limit (the static "
        "ZSC_MAX_CONCURRENCY alone).",
        default=0,
    )
    max_concurrency: int = _doc(
        "Most requests in flight per replica (divided among its workers): the upper bound of the limit learned "
        "against ZSC_TARGET_LATENCY_MS, or the limit itself with ZSC_TARGET_LATENCY_MS=-1 (0 = unlimited); "
        "beyond it 429 with Retry-After; health checks, /metrics and the docs do not count.",
        default=256,
    )

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        if env.get("ZSC_ONNX_VARIANT"):
            raise ValueError(
                f"ZSC_ONNX_VARIANT={env['ZSC_ONNX_VARIANT']} is gone: set ZSC_PRECISION (auto, fp32, bf16, fp16, int8) "
                "and ZSC_RUNTIME (auto, onnx, openvino, torch) instead, e.g. ZSC_RUNTIME=onnx ZSC_PRECISION=int8"
            )
        values: dict[str, Any] = {}
        for f in dataclasses.fields(cls):
            raw = env.get(f"ZSC_{f.name.upper()}")
            if raw is None or raw == "":
                continue
            values[f.name] = _parse(f.name, f.type, raw)
        settings = cls(**values)
        settings.check()
        return settings

    def check(self) -> None:
        positive = [
            "max_latency_ms",
            "max_text_chars",
            "max_labels",
            "max_label_chars",
            "max_template_chars",
            "max_description_chars",
            "max_phrasings",
            "max_examples_per_label",
            "max_examples_per_request",
            "max_example_chars",
            "max_windows",
            "max_batch_items",
            "max_pairs_per_request",
            "workers",
            "timeout_s",
            "cache_ttl_s",
            "redis_timeout_ms",
            "job_max_items",
            "job_max_mb",
            "job_chunk_items",
            "job_slice_items",
            "job_ttl_s",
            "job_visibility_s",
            "job_max_attempts",
            "calibration_half_life",
            "calibration_records",
            "calibration_sync_ms",
            "calibration_ttl_s",
            "calibration_scope_records",
            "calibration_sources",
            "max_body_mb",
            "retry_after_s",
            "head_timeout_s",
            "body_timeout_s",
            "send_timeout_s",
            "keep_alive_s",
            "max_pending_connections",
            "body_buffer_mb",
        ]
        for name in positive:
            if getattr(self, name) <= 0:
                raise ValueError(f"ZSC_{name.upper()} must be > 0, got {getattr(self, name)}")
        for name in ("redis_url", "jobs_redis_url"):
            url = getattr(self, name)
            if url and not url.startswith(("redis://", "rediss://", "unix://")):
                raise ValueError(f"ZSC_{name.upper()} must start with redis://, rediss:// or unix://")
        for name in ("max_batch_size", "token_budget", "max_rows", "batches_in_flight"):
            if getattr(self, name) < 0:
                raise ValueError(
                    f"ZSC_{name.upper()} must be >= 0 (0 = the device's default), got {getattr(self, name)}"
                )
        if self.max_batch_size == 1:
            raise ValueError("ZSC_MAX_BATCH_SIZE must be >= 2 (BentoML's batching needs it), or 0 for the default")
        if not 0 <= self.close_call_margin <= 1:
            raise ValueError(f"ZSC_CLOSE_CALL_MARGIN must be between 0 and 1, got {self.close_call_margin}")
        if not 0 < self.calibration_source_share <= 1:
            raise ValueError(f"ZSC_CALIBRATION_SOURCE_SHARE must be in (0, 1], got {self.calibration_source_share}")
        if not 1 <= self.job_share_pct <= 100:
            raise ValueError(f"ZSC_JOB_SHARE_PCT must be between 1 and 100, got {self.job_share_pct}")
        if self.job_workers < 0:
            raise ValueError(f"ZSC_JOB_WORKERS must be >= 0, got {self.job_workers}")
        if self.role == "jobs" and not self.jobs_redis:
            raise ValueError("ZSC_ROLE=jobs needs the jobs Redis (ZSC_JOBS_REDIS_URL or ZSC_REDIS_URL): "
                             "a jobs replica runs the chunks other replicas queue there")  # fmt: skip
        if self.role == "jobs" and self.job_workers < 1:
            raise ValueError("ZSC_ROLE=jobs runs job chunks: ZSC_JOB_WORKERS must be >= 1")
        if self.job_drain_s < 0:
            raise ValueError(f"ZSC_JOB_DRAIN_S must be >= 0, got {self.job_drain_s}")
        if self.calibration_min_texts < 1:
            raise ValueError(f"ZSC_CALIBRATION_MIN_TEXTS must be >= 1, got {self.calibration_min_texts}")
        if set(self.admin_key_list()) & set(self.keys_from_env()):
            raise ValueError("ZSC_ADMIN_KEYS and ZSC_API_KEYS share a key: an admin key must not be a data key")
        for name in ("rate_limit_rps", "rate_limit_burst", "memory_limit_mb"):
            if getattr(self, name) < 0:
                raise ValueError(f"ZSC_{name.upper()} must be >= 0, got {getattr(self, name)}")
        try:
            rate = float(self.trace_sample_rate)
        except ValueError:
            rate = -1.0
        if not 0 <= rate <= 1:
            raise ValueError(f"ZSC_TRACE_SAMPLE_RATE must be a number between 0 and 1, got {self.trace_sample_rate!r}")
        served = self.served_models()
        if len(set(served)) != len(served):
            raise ValueError(f"ZSC_MODELS names a model twice: {self.models!r}")
        if self.body_buffer_mb < max(self.max_body_mb, self.job_max_mb):
            raise ValueError(
                f"ZSC_BODY_BUFFER_MB ({self.body_buffer_mb}) must be at least ZSC_MAX_BODY_MB ({self.max_body_mb}) and "
                f"ZSC_JOB_MAX_MB ({self.job_max_mb}): a body that size could never be received"
            )
        self._check_aliases()
        allowed = RUNTIME_PRECISIONS.get(self.runtime)
        if allowed is not None and self.precision != "auto" and self.precision not in allowed:
            raise ValueError(
                f"ZSC_RUNTIME={self.runtime} runs {', '.join(allowed)}, not ZSC_PRECISION={self.precision}"
            )
        if self.batches_in_flight > 4:
            raise ValueError("ZSC_BATCHES_IN_FLIGHT must be at most 4: more only queues work and memory")

    def _check_aliases(self) -> None:
        served = self.served_models()
        names = {model_name(m) for m in served}
        seen: set[str] = set()
        for entry in (e.strip() for e in self.model_aliases.split(",")):
            if not entry:
                continue
            alias, eq, model = (x.strip() for x in entry.partition("="))
            if not eq or not alias or not model:
                raise ValueError(
                    f"ZSC_MODEL_ALIASES: {entry!r} is not alias=model (e.g. gpt-6-luna=multilingual-e5-small)"
                )
            if not re.fullmatch(MODEL_TAG, alias):
                raise ValueError(f"ZSC_MODEL_ALIASES: {alias!r} is not a name (letters, digits, '_', '.', ':', '-')")
            if alias in seen:
                raise ValueError(f"ZSC_MODEL_ALIASES names the alias {alias!r} twice")
            seen.add(alias)
            if alias in names or alias in served or alias == "auto":
                raise ValueError(f"ZSC_MODEL_ALIASES: {alias!r} is already the name of a model: choose another alias")
            if not self.models_file and model not in served and model_name(model) not in names:
                raise ValueError(
                    f"ZSC_MODEL_ALIASES: {alias!r} names {model!r}, which this replica does not serve "
                    f"(ZSC_MODELS / ZSC_MODEL: {', '.join(served)})"
                )

    def served_models(self) -> list[str]:
        """The models this replica serves, the default first: ZSC_MODELS, else ZSC_MODEL."""
        listed = [m.strip() for m in self.models.split(",") if m.strip()]
        return listed or [self.model]

    def aliases(self) -> dict[str, str]:
        """ZSC_MODEL_ALIASES as {alias: model}, in the order given (``check`` has validated it)."""
        out = {}
        for entry in (e.strip() for e in self.model_aliases.split(",")):
            if entry:
                alias, _, model = entry.partition("=")
                out[alias.strip()] = model.strip()
        return out

    def keys_from_env(self) -> list[str]:
        return [k.strip() for k in self.api_keys.split(",") if k.strip()]

    def admin_key_list(self) -> list[str]:
        return [k.strip() for k in self.admin_keys.split(",") if k.strip()]

    @property
    def jobs_redis(self) -> str:
        """The Redis jobs live in: ZSC_JOBS_REDIS_URL, else the cache's; empty = the in-process store."""
        return self.jobs_redis_url or self.redis_url

    @property
    def runs_jobs(self) -> bool:
        """Whether this replica runs job chunks (ZSC_ROLE all or jobs, and ZSC_JOB_WORKERS above 0)."""
        return self.role != "api" and self.job_workers > 0

    @property
    def auth_enabled(self) -> bool:
        return bool(self.api_keys or self.api_keys_file)

    def target_latency_ms_for(self) -> int:
        """ZSC_TARGET_LATENCY_MS, or the device's default (0); 0 when no limit is to be learned (-1)."""
        if self.target_latency_ms:
            return max(0, self.target_latency_ms)
        return 250 if self.gpu_expected() else 500

    def gpu_expected(self) -> bool:
        """Whether the backend will run on a GPU: ZSC_DEVICE=cuda, or auto on a machine with NVIDIA's driver."""
        return self.device == "cuda" or (self.device == "auto" and Path("/dev/nvidiactl").exists())

    def runtime_dir(self) -> Path:
        """ZSC_RUNTIME_CACHE_DIR, else zsc-runtime under BentoML's home."""
        if self.runtime_cache_dir:
            return Path(self.runtime_cache_dir)
        home = os.environ.get("BENTOML_HOME") or str(Path.home() / "bentoml")
        return Path(home) / "zsc-runtime"

    def max_in_flight_per_worker(self) -> int:
        """ZSC_MAX_CONCURRENCY divided among the workers, as BentoML divided its own (0 = unlimited)."""
        return max(1, self.max_concurrency // self.workers) if self.max_concurrency else 0

    def batching(self, device: str) -> Batching:
        """The batching limits for the device the backend runs on: set values, else the device's defaults."""
        defaults = DEVICE_DEFAULTS["cuda" if device == "cuda" else "cpu"]
        return Batching(**{k: getattr(self, k) or v for k, v in asdict(defaults).items()})

    def redacted(self) -> dict[str, Any]:
        values = dataclasses.asdict(self)
        values["redis_url"] = redact_url(self.redis_url)
        values["jobs_redis_url"] = redact_url(self.jobs_redis_url)
        values["api_keys"] = f"<{len(self.keys_from_env())} keys>" if self.api_keys else ""
        values["admin_keys"] = f"<{len(self.admin_key_list())} keys>" if self.admin_keys else ""
        return values

    @staticmethod
    def table() -> list[tuple[str, str, str]]:
        """(env var, default, why) rows for the README's config table."""
        rows = []
        for f in dataclasses.fields(Settings):
            rows.append((f"ZSC_{f.name.upper()}", str(f.default), f.metadata["doc"]))
        return rows


def _parse(name: str, type_: Any, raw: str) -> Any:
    type_ = eval(type_, globals()) if isinstance(type_, str) else type_  # noqa: S307 (own annotations)
    if get_origin(type_) is Literal:
        allowed = get_args(type_)
        if raw not in allowed:
            raise ValueError(f"ZSC_{name.upper()} must be one of {allowed}, got {raw!r}")
        return raw
    if type_ is int:
        try:
            return int(raw)
        except ValueError:
            raise ValueError(f"ZSC_{name.upper()} must be an integer, got {raw!r}") from None
    if type_ is float:
        try:
            return float(raw)
        except ValueError:
            raise ValueError(f"ZSC_{name.upper()} must be a number, got {raw!r}") from None
    return raw


@functools.lru_cache(maxsize=1)
def settings() -> Settings:
    return Settings.from_env()


def redact_url(url: str) -> str:
    """The URL with its password replaced by ``***``, for logs."""
    parts = urlsplit(url)
    if parts.password:
        netloc = parts.netloc.replace(f":{parts.password}@", ":***@")
        return urlunsplit(parts._replace(netloc=netloc))
    return url
