"""Label sets: a team's labels, their wording, template and decision threshold kept in one YAML file, loaded
by the service from ``ZSC_LABEL_SETS`` (a directory; a ConfigMap on Kubernetes) and named by requests
(``"label_set": "support-intents"``). ``zsc tune`` writes them.

    name: support-intents
    description: Customer-service intents of the web shop
    hypothesis_template: "The customer writes about {}."
    labels:
      - name: billing
        description: payments, refunds and invoices
      - name: shipping
        description: [delivery, where a parcel is]
      - name: praise
        examples: ["thank you, it arrived early", "great service"]   # texts that belong to it (embedding models)
    multi_label: false
    threshold: 0.45          # single-label: abstain under it
    thresholds: {}           # multi-label: per label
    example_rule: blend      # how examples join the wording (prototype | nearest | blend), and the
    example_weight: 0.2      # wording's share in a blend: zsc tune --examples picks them
    model: multilingual-e5-small
    revision: sha256:43553a7616af57f4
    tuning: {...}            # where the values came from (zsc tune), free-form
    calibration: traffic     # none (the default) | traffic | a frozen fit, as zsc calibrate writes it
    calibration_scope: key   # traffic with API keys on: key (each key's own records) | shared (the keys learn together)
    # calibration:
    #   mode: frozen
    #   model: multilingual-e5-small
    #   revision: sha256:43553a7616af57f4
    #   texts: 2000                          # the unlabelled texts it was fitted on
    #   offsets: {billing: 0.21, shipping: -0.05, praise: -0.16}   # per label, subtracted from its evidence
    #   multi_label_offsets: {...}           # NLI models: for multi-label answers (another evidence)
    #   fitted: {...}                        # where it came from, free-form

A request's own ``calibration`` wins over the set's. A frozen fit applies where it was measured: the set's
own labels and template (a request overriding either is answered uncalibrated) on the model and revision
it names.

Every file is validated at start-up with the request's own rules; a bad file stops the service with a
message naming the file (better than a set that silently answers differently).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from service.api import limits
from service.api.classify import AnswerWarning
from service.api.label_sets import FrozenCalibration, LabelSet
from service.api.validation import first_mistake
from service.core.classification import Classification, Label
from service.errors import LabelSetNotFound

log = logging.getLogger("zsc.label_sets")
SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class CalibrationChoice:
    """Which calibration a resolved request asks for: the request's own ``calibration``, else its label
    set's. A frozen fit comes with its offsets (by label name), or none when it does not apply."""

    mode: str = "none"  # none | traffic | frozen | job
    label_set: str | None = None  # the set whose own wording the request uses (its metrics series), else None
    offsets: dict[str, float] | None = None  # frozen: per label name (single-label NLI, and embedding models)
    multi_label_offsets: dict[str, float] | None = None  # frozen, NLI: for pairwise answers
    texts: int | None = None  # frozen: the texts it was fitted on
    shared: bool | None = None  # traffic: the set's own wording opted into the shared scope (calibration_scope)

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items() if v is not None}


NO_CALIBRATION = CalibrationChoice()


@dataclass(frozen=True)
class Resolved:
    """A classification with its label set's fields filled in (or as it came, when it names none), its
    labels and ``multi_label`` known: what the rest of the pipeline reads. The set's per-label thresholds and
    a warning when it was tuned on another model come with it."""

    request: Classification  # with the label set's fields filled in
    thresholds: dict[str, float]
    warnings: list[AnswerWarning]
    calibration: CalibrationChoice = NO_CALIBRATION

    @property
    def labels(self) -> tuple[Label, ...]:
        assert self.request.labels is not None, "a resolved classification has its labels"
        return self.request.labels


def resolve(
    request: Classification, sets: dict[str, LabelSet], model: str, revision: str, pin: str | None = None
) -> Resolved:
    """A classification naming a label set, with the set's labels, template, multi_label and threshold filled
    in where it does not give its own (LabelSetNotFound: 404); ``pin``: the model it runs on, written into it
    (a job item, run later by any replica). Nothing is validated again: the request was, and so was the set
    when it was loaded; the one rule between them (labels from somewhere) holds by construction."""
    pinned = {"model": pin} if pin is not None else {}
    if request.label_set is None:
        merged = replace(request, multi_label=bool(request.multi_label), **pinned)
        return Resolved(merged, {}, [], _chosen(request, None))
    found = sets.get(request.label_set)
    if found is None:
        raise LabelSetNotFound(request.label_set, list(sets))
    given = request.given()
    fill = {k: v for k, v in found.defaults().items() if k not in given}
    merged = replace(request, **{**fill, "label_set": None, **pinned})
    merged = replace(merged, multi_label=bool(merged.multi_label))
    thresholds = found.thresholds if merged.multi_label and "threshold" not in given else {}
    warnings = []
    if not found.matches(model, revision):
        warnings.append(
            AnswerWarning(
                code="label_set_model_mismatch",
                message=f"label set {found.name!r} was tuned on {found.model or '?'} (revision "
                f"{found.revision or '?'}); this service runs {model} (revision {revision}): its wording and "
                "thresholds may not carry over",
            )
        )
    return Resolved(merged, thresholds, warnings, _chosen(request, found, given, model, revision))


def _chosen(
    request: Classification,
    found: LabelSet | None,
    given: set[str] = frozenset(),  # type: ignore[assignment]
    model: str = "",
    revision: str = "",
) -> CalibrationChoice:
    """The request's calibration, else its set's; a frozen fit's offsets only where they were measured: the
    set's own labels and template, on its model and revision."""
    own = found is not None and not {"labels", "hypothesis_template"} & given
    name = found.name if own and found is not None else None
    shared = True if own and found is not None and found.calibration_scope == "shared" else None
    if request.calibration is not None:
        return CalibrationChoice(request.calibration, name, shared=shared)
    declared = found.calibration if found is not None else None
    if not isinstance(declared, FrozenCalibration):
        return CalibrationChoice(declared or "none", name, shared=shared)
    fits = own and declared.applies_to(model, revision)
    return CalibrationChoice(
        "frozen",
        name,
        dict(declared.offsets) if fits else None,
        dict(declared.multi_label_offsets) if fits and declared.multi_label_offsets else None,
        declared.texts,
    )


class LabelSetError(ValueError):
    pass


def load_dir(directory: str | Path, most: limits.RequestLimits | None = None) -> dict[str, LabelSet]:
    """Every ``*.yaml`` / ``*.yml`` of the directory, by set name; an unreadable or invalid file, or two
    files with the same name, raise ``LabelSetError`` naming the file."""
    import yaml

    directory = Path(directory)
    if not directory.is_dir():
        raise LabelSetError(f"ZSC_LABEL_SETS={directory} is not a directory")
    sets: dict[str, LabelSet] = {}
    for path in sorted(p for p in directory.iterdir() if p.suffix in SUFFIXES and p.is_file()):
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
            found = LabelSet.model_validate(raw, context=limits.context(most))
        except ValidationError as exc:
            raise LabelSetError(f"label set file {path}: {first_mistake(exc)}") from None
        except (OSError, yaml.YAMLError) as exc:
            raise LabelSetError(f"label set file {path}: {exc}") from None
        if found.name in sets:
            raise LabelSetError(f"label set {found.name!r} is defined twice ({path} and another file)")
        sets[found.name] = found
    log.info("label sets from %s: %s", directory, ", ".join(sets) or "none")
    return sets


def _compact(label: dict[str, Any]) -> dict[str, Any]:
    """One phrasing written as a string, not a one-item list: the file is read by people."""
    return {k: v[0] if isinstance(v, list) and len(v) == 1 and k != "examples" else v for k, v in label.items()}


def dump(label_set: LabelSet, path: Path) -> Path:
    import yaml

    data = label_set.model_dump(exclude_none=True)
    data["labels"] = [x if isinstance(x, str) else _compact(x.model_dump(exclude_none=True)) for x in label_set.labels]
    if not data.get("thresholds"):
        data.pop("thresholds", None)
    path.write_text(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return path
