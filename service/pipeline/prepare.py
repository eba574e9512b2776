"""From resolved requests to the engine's tasks: what every classification goes through before the model.

Three steps, each once per request:

- ``check_call``: what no schema can state (422 ``unprocessable_request``), over one call: labels unique
  once trimmed, and the call's distinct example texts and (text, phrasing) pairs before any window within
  the limits, counted before anything is tokenized (a hostile call costs little). An interactive call is
  checked by the pipeline; a job item at its submission (``jobs.intake``), never again when it runs;
- ``plan``: each label's hypotheses (the template with the name or each description, or whole
  hypotheses), and whether the text may pass the model's window (then it is measured by the tokenizer,
  worth a worker thread, not the event loop);
- ``prepare`` / ``prepare_call``: a text longer than the window is cut or split into windows as the
  request's ``truncation`` says (``core.windows``), what needs the tokenizer is checked (a text too long
  with ``error``, too many windows, too many pairs once windowed), and a text in a script the model's
  languages do not cover gets a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from service.api.classify import AnswerWarning
from service.api.limits import RequestLimits
from service.core import windows
from service.core.classification import Classification, phrasing_pairs
from service.core.languages import mismatch
from service.core.model_spec import ModelSpec
from service.core.task import Task
from service.engine.tokenization import Tokenizer
from service.errors import UnprocessableRequest, WindowsOverLimit
from service.pipeline.label_sets import NO_CALIBRATION, CalibrationChoice, Resolved


@dataclass
class PreparedRequest:
    """A request as the engine will see it, and what its answer needs besides the scores."""

    request: Classification  # resolved: its label set's fields filled in
    task: Task
    names: list[str]
    truncated: bool = False
    windows: int = 1
    warnings: list[AnswerWarning] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)  # per label (a multi-label set's)
    calibration: CalibrationChoice = NO_CALIBRATION

    @property
    def pairs(self) -> int:
        """(window, phrasing) pairs, and its example texts."""
        return self.task.text_pairs + sum(map(len, self.task.examples))


@dataclass(frozen=True)
class Plan:
    """A resolved request's labels worded for the model, before the tokenizer."""

    resolved: Resolved
    hypotheses: tuple[tuple[str, ...], ...]  # per label
    long: bool  # the text may pass the model's window: the tokenizer measures it


def check_call(resolved: Sequence[Resolved], limits: RequestLimits) -> None:
    """The rules of one call no schema states (a /classify_batch call is one; a job item one on its own);
    stops at the first one broken."""
    for i, r in enumerate(resolved):
        if problem := r.request.repeated_label():
            raise UnprocessableRequest(f"{_where(i, resolved)}{problem}")
    # a batch whose items share their labels' examples (a label set, a tuning run) computes each example
    # once: the call is charged its distinct example texts, on top of its (text, phrasing) pairs
    examples = _distinct_examples(resolved)
    if examples > limits.max_examples_per_request:
        raise UnprocessableRequest(
            f"{examples} example texts in total; the limit is {limits.max_examples_per_request} "
            "(ZSC_MAX_EXAMPLES_PER_REQUEST): split the call"
        )
    before = sum(phrasing_pairs(r.labels) for r in resolved) + examples
    if before > limits.max_pairs_per_request:
        raise UnprocessableRequest(
            f"{before} (text, phrasing) pairs{' and example texts' if examples else ''} in total; the limit is "
            f"{limits.max_pairs_per_request} (ZSC_MAX_PAIRS_PER_REQUEST): split the call"
        )


def plan(resolved: Resolved, spec: ModelSpec, tokenizer: Tokenizer) -> Plan:
    request = resolved.request
    template = request.hypothesis_template or spec.default_template
    hypotheses = tuple(label.hypotheses_for(template) for label in resolved.labels)
    longest = max(len(h) for hyps in hypotheses for h in hyps) if spec.kind == "nli" else len(spec.text_prefix)
    per_char, specials = tokenizer.tokens_per_char, 4  # no tokenizer adds more than 4 around a pair
    room = spec.max_length - specials - per_char * longest
    return Plan(resolved, hypotheses, not windows.cannot_exceed(request.text, room, per_char))


def prepare(planned: Plan, spec: ModelSpec, tokenizer: Tokenizer, max_windows: int) -> PreparedRequest:
    resolved = planned.resolved
    request, labels = resolved.request, resolved.labels
    if planned.long:
        fitted = windows.fit(
            request.text,
            _room(spec, tokenizer, planned.hypotheses),
            request.truncation,
            tokenizer.offsets,
            max_windows,
            tokenizer.tokens_per_char,
        )
    else:
        fitted = windows.Windows((request.text,), -1, False)
    warnings = list(resolved.warnings)
    if problem := mismatch(request.text, spec.languages):
        warnings.append(AnswerWarning(code="language_mismatch", message=problem))
    examples = tuple(label.examples for label in labels)
    if any(examples) and spec.kind == "nli":
        raise UnprocessableRequest(
            "label examples need an embedding model: an NLI cross-encoder scores (text, hypothesis) pairs and has "
            "no place for example texts; leave the examples out, or send the request to an embedding model "
            "(`model`: GET /models gives each model's kind)"
        )
    rule = request.example_rule or spec.example_rule
    task = Task(
        fitted.texts,
        planned.hypotheses,
        bool(request.multi_label),
        request.chunk_aggregation,
        examples if any(examples) else (),
        rule,
        spec.example_weight if request.example_weight is None else request.example_weight,
        # a blend's wording share per label: from its own examples' count, where its wording agrees with
        # them (core.task; measured against the plain prototype in docs/evaluation.md, "Examples")
        example_adaptive=rule == "blend",
    )
    names = [label.name for label in labels]
    return PreparedRequest(
        request, task, names, fitted.truncated, len(fitted.texts), warnings, resolved.thresholds, resolved.calibration
    )


def prepare_call(
    plans: Sequence[Plan], spec: ModelSpec, tokenizer: Tokenizer, limits: RequestLimits
) -> list[PreparedRequest]:
    """Every planned request of one call, checked (``check_call``) already; stops at the first one whose
    windows break a limit."""
    resolved = [p.resolved for p in plans]
    pairs = _distinct_examples(resolved)
    out = []
    for i, planned in enumerate(plans):
        try:
            prepared = prepare(planned, spec, tokenizer, limits.max_windows)
        except windows.TooLong as exc:
            raise WindowsOverLimit(f"{_where(i, resolved)}{exc}") from None
        pairs += prepared.task.text_pairs
        if pairs > limits.max_pairs_per_request:
            raise WindowsOverLimit(
                f"{_where(i, resolved)}the call needs {pairs}+ (text window, phrasing) pairs; the limit is "
                f"{limits.max_pairs_per_request} (ZSC_MAX_PAIRS_PER_REQUEST): fewer labels, phrasings or windows, "
                "or split the call"
            )
        out.append(prepared)
    return out


def _distinct_examples(resolved: Sequence[Resolved]) -> int:
    """A call computes each example text once, however many labels or items share it."""
    return len({e for r in resolved for label in r.labels for e in label.examples})


def _where(i: int, call: Sequence[object]) -> str:
    return f"item {i}: " if len(call) > 1 else ""


def _room(spec: ModelSpec, tokenizer: Tokenizer, hypotheses: tuple[tuple[str, ...], ...]) -> int:
    """Text tokens that fit in the model's window beside the longest hypothesis (NLI), or the prefix."""
    if spec.kind == "nli":
        longest = max(tokenizer.counts([h for hyps in hypotheses for h in hyps]))
        return spec.max_length - tokenizer.specials(pair=True) - longest
    prefix = tokenizer.counts([spec.text_prefix])[0] if spec.text_prefix else 0
    return spec.max_length - tokenizer.specials(pair=False) - prefix
