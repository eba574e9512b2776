"""From a resolved request to the engine's task: what every classification goes through before the model.

Each label becomes its hypotheses (the template with the name or each description, or whole hypotheses);
a text longer than the model's window is cut or split into windows as the request's ``truncation`` says
(``core.windows``); what no schema can state is checked here (422 ``unprocessable_request``): labels unique
once trimmed, and what needs the tokenizer: a text too long with ``error``, too many windows, too many
(window, phrasing) pairs; and a text in a script the model's languages do not cover gets a warning.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from service.api.classify import AnswerWarning, ClassifyRequest
from service.core import windows
from service.core.languages import mismatch
from service.core.model_spec import ModelSpec
from service.core.task import Task
from service.engine.tokenization import Tokenizer
from service.errors import UnprocessableRequest
from service.pipeline.label_sets import Resolved


@dataclass
class PreparedRequest:
    """A request as the engine will see it, and what its answer needs besides the scores."""

    request: ClassifyRequest  # resolved: its label set's fields filled in
    task: Task
    names: list[str]
    truncated: bool = False
    windows: int = 1
    warnings: list[AnswerWarning] = field(default_factory=list)
    thresholds: dict[str, float] = field(default_factory=dict)  # per label (a multi-label set's)

    @property
    def pairs(self) -> int:
        """(window, phrasing) pairs, and its example texts."""
        return len(self.task.texts) * sum(len(h) for h in self.task.hypotheses) + sum(map(len, self.task.examples))


def needs_tokenizer(request: ClassifyRequest, spec: ModelSpec, tokenizer: Tokenizer) -> bool:
    """Whether preparing this request may tokenize (a text that could pass the model's window): worth a
    worker thread, not the event loop."""
    per_char, specials = tokenizer.tokens_per_char, 4  # no tokenizer adds more than 4 around a pair
    room = spec.max_length - specials - per_char * _longest_hypothesis(request, spec)
    return not windows.cannot_exceed(request.text, room, per_char)


def prepare(request: ClassifyRequest, spec: ModelSpec, tokenizer: Tokenizer, max_windows: int) -> PreparedRequest:
    template = request.hypothesis_template or spec.default_template
    labels = request.label_list
    hypotheses = tuple(label.hypotheses_for(template) for label in labels)
    fitted = windows.fit(
        request.text,
        _room(request, spec, tokenizer, hypotheses),
        request.truncation,
        tokenizer.offsets,
        max_windows,
        tokenizer.tokens_per_char,
    ) if needs_tokenizer(request, spec, tokenizer) else windows.Windows((request.text,), -1, False)  # fmt: skip
    warnings = []
    if problem := mismatch(request.text, spec.languages):
        warnings.append(AnswerWarning(code="language_mismatch", message=problem))
    examples = tuple(label.examples for label in labels)
    if any(examples) and spec.kind == "nli":
        raise UnprocessableRequest(
            "label examples need an embedding model: an NLI cross-encoder scores (text, hypothesis) pairs and has "
            "no place for example texts; leave the examples out, or send the request to an embedding model "
            "(`model`: GET /models gives each model's kind)"
        )
    task = Task(
        fitted.texts,
        hypotheses,
        request.multi_label,
        request.chunk_aggregation,
        examples if any(examples) else (),
        request.example_rule or spec.example_rule,
        spec.example_weight if request.example_weight is None else request.example_weight,
    )
    names = [label.name for label in labels]
    return PreparedRequest(request, task, names, fitted.truncated, len(fitted.texts), warnings)


def prepare_call(
    resolved: Sequence[Resolved],
    spec: ModelSpec,
    tokenizer: Tokenizer,
    max_windows: int,
    max_pairs: int,
    max_examples: int = 1024,
) -> list[PreparedRequest]:
    """Every request of one call (a /classify_batch call is one; each job item is one on its own); stops at
    the first one that breaks a limit, so a hostile call costs little (the pairs before windows are counted
    before anything is tokenized)."""

    def where(i: int) -> str:
        return f"item {i}: " if len(resolved) > 1 else ""

    for i, r in enumerate(resolved):
        if problem := r.request.rule_broken():
            raise UnprocessableRequest(f"{where(i)}{problem}")
    # a batch whose items share their labels' examples (a label set, a tuning run) computes each example
    # once: the call is charged its distinct example texts, on top of its (text, phrasing) pairs
    examples = len({e for r in resolved for label in _labels(r) for e in label.examples})
    if examples > max_examples:
        raise UnprocessableRequest(
            f"{examples} example texts in total; the limit is {max_examples} (ZSC_MAX_EXAMPLES_PER_REQUEST): "
            "split the call"
        )
    before = sum(r.request.pairs - r.request.example_count for r in resolved) + examples
    if before > max_pairs:
        raise UnprocessableRequest(
            f"{before} (text, phrasing) pairs{' and example texts' if examples else ''} in total; the limit is "
            f"{max_pairs} (ZSC_MAX_PAIRS_PER_REQUEST): split the call"
        )
    out, pairs = [], examples
    for i, r in enumerate(resolved):
        try:
            prepared = prepare(r.request, spec, tokenizer, max_windows)
        except windows.TooLong as exc:
            raise UnprocessableRequest(f"{where(i)}{exc}") from None
        prepared.thresholds = r.thresholds
        prepared.warnings = r.warnings + prepared.warnings
        pairs += prepared.pairs - sum(map(len, prepared.task.examples))
        if pairs > max_pairs:
            raise UnprocessableRequest(
                f"{where(i)}the call needs {pairs}+ (text window, phrasing) pairs; the limit is {max_pairs} "
                "(ZSC_MAX_PAIRS_PER_REQUEST): fewer labels, phrasings or windows, or split the call"
            )
        out.append(prepared)
    return out


def _labels(r: Resolved):
    return r.request.label_list if r.request.labels is not None else ()


def _longest_hypothesis(request: ClassifyRequest, spec: ModelSpec) -> int:
    if spec.kind != "nli":
        return len(spec.text_prefix)
    template = request.hypothesis_template or spec.default_template
    return max(len(h) for label in request.label_list for h in label.hypotheses_for(template))


def _room(request: ClassifyRequest, spec: ModelSpec, tokenizer: Tokenizer, hypotheses) -> int:
    """Text tokens that fit in the model's window beside the longest hypothesis (NLI), or the prefix."""
    if spec.kind == "nli":
        longest = max(tokenizer.counts([h for hyps in hypotheses for h in hyps]))
        return spec.max_length - tokenizer.specials(pair=True) - longest
    prefix = tokenizer.counts([spec.text_prefix])[0] if spec.text_prefix else 0
    return spec.max_length - tokenizer.specials(pair=False) - prefix
