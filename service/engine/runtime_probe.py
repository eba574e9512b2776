"""The backend a model is served with: pinned by the settings, or chosen on this machine (``ZSC_RUNTIME`` and
``ZSC_PRECISION`` both ``auto`` on a CPU).

Choosing measures each candidate (``core.runtime_choice.candidates``: the runtimes and precisions this CPU
supports, fp32 the reference) on a fixed built-in sample of Chinese and English texts and labels
(``core/runtime_sample.json``), through an engine and the model's real scoring: its speed, and its answers
against the reference's. ``core.runtime_choice.choose`` keeps the fastest that agrees. Each candidate is
loaded, measured and dropped in turn (at most the best so far and the one measured are in memory); the
whole measurement stays within ``BUDGET_S`` (a candidate not reached in time is not measured). The choice
is remembered (``runtime_memory``): the next start loads it directly.

Whatever was chosen, the answer says how (``RuntimeChoice``): measured, remembered, pinned (not verified),
the only candidate, or the device's (a GPU: ONNX Runtime's CUDA graph as before).
"""

from __future__ import annotations

import gc
import json
import logging
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from service.backends import Backend, installed, load_backend
from service.backends.files import onnx_path
from service.config import Settings
from service.core.model_spec import ModelSpec
from service.core.runtime_choice import Candidate, Trial, agreement, candidates, choose, summary
from service.core.task import Seq, Task, sequences_for, text_sequences
from service.engine import runtime_memory
from service.engine.engine import Engine

log = logging.getLogger("zsc.runtime")

BUDGET_S = 10.0  # the whole measurement once the reference is loaded: every other candidate's loading, all passes
MAX_PASSES = 2  # timed passes per candidate over half the sample (the fastest counts), after one over the other
OUT_OF_TIME = "not measured: out of time"
SAMPLE = Path(__file__).resolve().parents[1] / "core" / "runtime_sample.json"


@dataclass(frozen=True)
class RuntimeChoice:
    """How a model's runtime and precision were decided, for GET /models, the log and zsc_model_info."""

    runtime: str
    precision: str
    how: str  # measured | remembered | pinned | only candidate | device
    verified: bool  # its answers were compared with fp32's (measured now or before)
    trials: list[Trial] = field(default_factory=list)
    request_s: float | None = None  # what one request costs the chosen backend (``request_seconds``)
    reference: str | None = None  # the fp32 copy close calls are computed again on (``reference_backend``)
    close_call_margin: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "runtime": self.runtime,
            "precision": self.precision,
            "how": self.how,
            "verified": self.verified,
            "candidates": [{**t.as_dict(), "chosen": t.candidate == self.candidate} for t in self.trials],
            "reference": self.reference,
            "close_call_margin": self.close_call_margin,
        }

    @property
    def candidate(self) -> Candidate:
        return Candidate(self.runtime, self.precision)

    def describe(self) -> str:
        if self.how in ("measured", "remembered"):
            said = f"{self.candidate} ({self.how}): {summary(self.candidate_trial(), self.trials)}"
        else:
            what = "pinned by ZSC_RUNTIME/ZSC_PRECISION, not verified" if self.how == "pinned" else self.how
            said = f"{self.candidate} ({what})"
        if self.reference is not None:
            said += f"; labels and close calls (within {self.close_call_margin:g}) computed by {self.reference}"
        return said

    def candidate_trial(self) -> Trial:
        return next(t for t in self.trials if t.candidate == self.candidate)


def sample_tasks(spec: ModelSpec) -> list[Task]:
    data = json.loads(SAMPLE.read_text(encoding="utf-8"))
    sets = data["label_sets"]
    return [Task.of(text, sets[name], spec.default_template) for name, text in data["items"]]


def timed_tasks(tasks: list[Task]) -> list[Task]:
    """The half of the sample whose speed is measured: every other item (both languages, every label set);
    the other half warms the candidate up. The answers of both are compared."""
    return tasks[::2]


def request_seconds(spec: ModelSpec, tasks: list[Task], seconds: float) -> float:
    """What one request costs, from ``seconds`` for ``tasks`` in one engine call. An NLI model's request is a
    pair per label: the unique pairs' share, times the sample's labels per text. An embedding model's labels
    come from its cache, so a request is its text alone: the texts' share of the call by length, per text (a
    label's few words cost far less than a text; counted as sequences alike, labels made a request look a
    fraction of its cost: docs/reliability.md)."""
    unique = {seq for task in tasks for seq in sequences_for(spec, task)}
    if spec.kind == "nli":
        labels = sum(len(t.hypotheses) for t in tasks) / len(tasks)
        return seconds / len(unique) * labels
    texts = [seq for task in tasks for seq in text_sequences(spec, task)]
    share = sum(map(_chars, texts)) / sum(map(_chars, unique))
    return seconds * share / len(texts)


def _chars(seq: Seq) -> int:
    return len(seq[0]) + len(seq[1] or "")


def measure_request(engine: Engine) -> float:
    """``request_seconds`` from a quarter of the sample: the faster of two passes (the first meets new shapes)."""
    tasks = sample_tasks(engine.spec)[::4]
    fastest = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        engine.scores(tasks)
        fastest = min(fastest, time.perf_counter() - t0)
    return request_seconds(engine.spec, tasks, fastest)


def select_backend(
    s: Settings,
    path: str | Path,
    spec: ModelSpec,
    threads: int,
    make_engine: Callable[[Backend], Engine],
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[Backend, RuntimeChoice]:
    """The backend to serve ``path`` with, loaded, and how it was chosen."""
    folder = runtime_folder(s)
    cache = folder / "openvino"

    def load(c: Candidate) -> Backend:
        return load_backend(path, spec, c.runtime, s.device, threads, c.precision, cache)

    pinned = s.runtime != "auto" or s.precision != "auto"
    if pinned or s.gpu_expected():
        backend = load_backend(path, spec, pinned_runtime(s), s.device, threads, s.precision, cache)
        runtime, _, precision = _parts(backend.name)
        return backend, RuntimeChoice(runtime, precision, "pinned" if pinned else "device", verified=False)
    runtimes = _installed_graphs(path)
    if sum(runtimes.values()) < 2:  # no ONNX export (torch), or nothing to compare with
        backend = load_backend(path, spec, "auto", s.device, threads, "auto", cache)
        runtime, _, precision = _parts(backend.name)
        return backend, RuntimeChoice(runtime, precision, "only candidate", verified=False)
    # what the candidates depend on, without importing a runtime: a remembered start loads one runtime only
    key = runtime_memory.choice_key(spec.revision, threads, sorted(k for k, v in runtimes.items() if v))
    with runtime_memory.exclusive(folder):
        record = runtime_memory.recall(folder, key)
        remembered = _remembered(record, load, spec) if record is not None else None
        if remembered is not None:
            return remembered
        found = _candidates(path)
        backend, trial, trials = measure(found, load, make_engine, sample_tasks(spec), BUDGET_S, clock)
        cost = _cost(spec, trial.texts_per_s)
        choice = RuntimeChoice(trial.runtime, trial.precision, "measured", True, trials, cost)
        if any(t.refused == OUT_OF_TIME for t in trials):  # a busy start: the next one measures again
            log.info("not remembered: %s", OUT_OF_TIME)
        else:
            runtime_memory.remember(folder, key, {**choice.as_dict(), "trials": [t.as_dict() for t in trials]})
        return backend, choice


def reference_backend(
    s: Settings, path: str | Path, spec: ModelSpec, threads: int, choice: RuntimeChoice
) -> tuple[Backend | None, RuntimeChoice]:
    """The model in fp32 on the chosen runtime, beside a CPU backend that computes below fp32 (bf16, fp16,
    int8), for the close calls ``ZSC_CLOSE_CALL_MARGIN`` names (``pipeline.scorer``); None otherwise (fp32
    already, a GPU, the margin 0). The choice, saying so."""
    if s.close_call_margin <= 0 or s.gpu_expected() or choice.precision == "fp32":
        return None, choice
    if choice.runtime not in ("onnx", "openvino"):
        return None, choice
    backend = load_backend(path, spec, choice.runtime, s.device, threads, "fp32", runtime_folder(s) / "openvino")
    described = replace(choice, reference=f"{choice.runtime} fp32", close_call_margin=s.close_call_margin)
    return backend, described


def pinned_runtime(s: Settings) -> str:
    """ZSC_RUNTIME, or with ZSC_RUNTIME=auto the runtime that computes ZSC_PRECISION: OpenVINO for bf16 (and
    fp16 on a CPU), ONNX Runtime for int8; fp32 and auto as before (onnx when exported, else torch)."""
    if s.runtime != "auto":
        return s.runtime
    if s.precision == "bf16" or (s.precision == "fp16" and not s.gpu_expected()):
        return "openvino"
    return "onnx" if s.precision == "int8" else "auto"


def runtime_folder(s: Settings) -> Path:
    """ZSC_RUNTIME_CACHE_DIR (or its default under BENTOML_HOME) when it can be written; else a folder in the
    temporary directory (a read-only home, as Kubernetes runs the image: its /tmp is a volume)."""
    folder = s.runtime_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if os.access(folder, os.W_OK):
            return folder
    except OSError:
        pass
    fallback = Path(tempfile.gettempdir()) / "zsc-runtime"
    log.info("%s cannot be written: compiled models and the runtime choice go to %s", folder, fallback)
    return fallback


def measure(
    found: list[Candidate],
    load: Callable[[Candidate], Backend],
    make_engine: Callable[[Backend], Engine],
    tasks: list[Task],
    budget_s: float,
    clock: Callable[[], float] = time.perf_counter,
) -> tuple[Backend, Trial, list[Trial]]:
    """Measure each candidate in turn, the first the reference: (the chosen backend, its trial, every trial
    judged). A candidate that fails to load or run is refused with its error."""
    start = None
    timed = timed_tasks(tasks)  # speed needs fewer items than answers do
    warm = tasks[1::2]  # the other half: the untimed pass (the first pays for lazy set-up)
    reference: list[list[float]] | None = None
    reference_s = 0.0  # what measuring the reference took, once loaded: no candidate is started with less left
    trials: list[Trial] = []
    best: tuple[Backend, Trial] | None = None
    for i, candidate in enumerate(found):
        left = budget_s - (clock() - start) if start is not None else budget_s
        if i > 0 and left < reference_s:
            trials.append(Trial(candidate.runtime, candidate.precision, 0.0, 0.0, 0.0, 0.0, OUT_OF_TIME))
            continue
        share = left / (len(found) - i)
        began = clock()
        try:
            backend = load(candidate)
            if start is None:  # the reference's loading is what a start always paid
                start = began = clock()
            engine = make_engine(backend)
            untimed = engine.scores(warm)
            fastest, answers = float("inf"), []
            for _ in range(MAX_PASSES):
                t0 = clock()
                answers = engine.scores(timed)
                fastest = min(fastest, clock() - t0)
                if clock() - began >= share:
                    break
            scores = [row for pair in zip(answers, untimed) for row in pair] + answers[len(untimed) :]
        except Exception as exc:  # a runtime that cannot run this graph here is no candidate
            if reference is None:
                raise
            log.warning("%s failed on the sample: %s", candidate, exc)
            trials.append(Trial(candidate.runtime, candidate.precision, 0.0, 0.0, 0.0, 0.0, f"failed: {exc}"[:200]))
            continue
        if i == 0:
            reference_s = clock() - began
        log.info("measured %s in %.1f s", candidate, clock() - began)
        if reference is None:
            reference = scores
        top1, worst, mean, projected = agreement(reference, scores)
        speed = round(len(timed) / fastest, 1)
        trial = Trial(candidate.runtime, candidate.precision, speed, top1, round(worst, 5), round(mean, 6),
                      projected_top1=round(projected, 4))  # fmt: skip
        trials.append(trial)
        chosen, _ = choose([trials[0], trial])
        if best is None or (chosen is trial and trial.texts_per_s > best[1].texts_per_s):
            best = (backend, trial)
        del backend, engine
        gc.collect()  # the candidates that lost give their memory back before the next loads
    chosen, judged = choose(trials)
    assert best is not None and best[1].candidate == chosen.candidate
    return best[0], chosen, judged


def _remembered(
    record: dict[str, Any], load: Callable[[Candidate], Backend], spec: ModelSpec
) -> tuple[Backend, RuntimeChoice] | None:
    """The remembered choice, loaded; None when the record cannot be read or its backend not loaded (the
    caller measures afresh)."""
    try:
        trials = [Trial.from_dict(t) for t in record["trials"]]
        chosen = Candidate(record["runtime"], record["precision"])
        speed = next(t.texts_per_s for t in trials if t.candidate == chosen)
        backend = load(chosen)
    except Exception as exc:  # an old or damaged record, a graph gone since
        log.warning("the remembered runtime choice is unusable (%s): measuring again", exc)
        return None
    return backend, RuntimeChoice(chosen.runtime, chosen.precision, "remembered", True, trials, _cost(spec, speed))


def _cost(spec: ModelSpec, texts_per_s: float) -> float:
    timed = timed_tasks(sample_tasks(spec))
    return request_seconds(spec, timed, len(timed) / texts_per_s)


def _installed_graphs(path: str | Path) -> dict[str, bool]:
    """Which runtime can run which of the model's graphs here (from files and installed packages alone)."""
    fp32, int8 = onnx_path(path, "fp32").is_file(), onnx_path(path, "int8").is_file()
    has_ort, has_ov = installed("onnxruntime"), installed("openvino")
    return {"onnx fp32": has_ort and fp32, "openvino": has_ov and fp32, "onnx int8": has_ort and int8}


def _candidates(path: str | Path) -> list[Candidate]:
    from service.engine.runtime_memory import cpu_info

    has_ort = installed("onnxruntime")
    caps = None
    if installed("openvino") and onnx_path(path, "fp32").is_file():
        from service.backends.openvino_backend import capabilities

        caps = capabilities()
    _, flags = cpu_info()
    return candidates(
        flags,
        caps,
        onnx_fp32=has_ort and onnx_path(path, "fp32").is_file(),
        onnx_int8=has_ort and onnx_path(path, "int8").is_file(),
    )


def _parts(name: str) -> tuple[str, str, str]:
    """'onnx-cpu-fp32' -> ('onnx', 'cpu', 'fp32'); torch's 'torch-cpu-float32' -> ('torch', 'cpu', 'fp32')."""
    runtime, device, dtype = name.split("-", 2)
    return runtime, device, {"float32": "fp32", "float16": "fp16", "bfloat16": "bf16"}.get(dtype, dtype)
