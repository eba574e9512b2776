"""What one classification needs, whichever surface asked for it: the internal type at the pipeline's seam.

``/classify``, ``/classify_batch`` and the Hugging Face route (``api.classify``), a job item (``jobs.items``)
and a question of ``/v1/decisions`` (``api.decisions``) each build a ``Classification`` from their own
protocol types; the pipeline reads nothing else. Its fields are checked where it was built (a public
request's schema and validators, a decision request's bounds); what no schema can state is checked by the
pipeline (``pipeline.prepare.check_call``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Label:
    """A candidate label as the service uses it: its name, and how it is worded for the model."""

    name: str
    descriptions: tuple[str, ...] = ()  # go into the template instead of the name
    hypotheses: tuple[str, ...] = ()  # whole hypotheses, no template
    examples: tuple[str, ...] = ()  # texts that belong to it (embedding models)

    def hypotheses_for(self, template: str) -> tuple[str, ...]:
        if self.hypotheses:
            return self.hypotheses
        return tuple(template.format(d) for d in (self.descriptions or (self.name,)))

    @property
    def phrasings(self) -> int:
        """(text, phrasing) pairs it adds per text window: its descriptions or hypotheses, else its name."""
        return max(1, len(self.descriptions) + len(self.hypotheses))


def phrasing_pairs(labels: Sequence[Label]) -> int:
    """(text window, phrasing) pairs one window of a text needs for these labels."""
    return sum(label.phrasings for label in labels)


def pairs_of(labels: Sequence[Label]) -> int:
    """Model sequences a text (one window) needs for these labels: a pair per phrasing, and each example."""
    return phrasing_pairs(labels) + sum(len(label.examples) for label in labels)


@dataclass(frozen=True)
class Classification:
    """One text and how to classify it. ``None`` is "not given": a label set fills it in, else the default
    (``multi_label``: false)."""

    text: str
    labels: tuple[Label, ...] | None = None  # None: the label set's
    label_set: str | None = None
    model: str | None = None  # a name or tag, ``auto``, or None (the label set's model, else the default)
    hypothesis_template: str | None = None
    multi_label: bool | None = None
    truncation: str = "end"  # end | start | error | chunk
    chunk_aggregation: str = "max"  # max | mean
    threshold: float | None = None
    top_k: int | None = None
    example_rule: str | None = None
    example_weight: float | None = None
    calibration: str | None = None  # none | traffic | job; None: the label set's

    @property
    def names(self) -> list[str]:
        return [label.name for label in self.labels or ()]

    def repeated_label(self) -> str | None:
        """The rule no JSON schema states (422): label names unique once trimmed (a label set's are checked
        when it is loaded)."""
        seen: set[str] = set()
        for name in self.names:
            if name in seen:
                return f"label {name!r} appears twice: labels must be unique"
            seen.add(name)
        return None

    def given(self) -> set[str]:
        """The fields given (not None): what a label set does not override."""
        return {k for k, v in vars(self).items() if v is not None}
