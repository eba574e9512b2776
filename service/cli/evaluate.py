"""``zsc evaluate`` and ``zsc tune``: accuracy of a running service on your labelled data, and the wording
of your labels that works best, kept as a label set. Both talk to the service over HTTP (any URL: one
replica, or nginx in front of several), so they measure what is deployed, cache included."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any


def add_parsers(sub) -> None:
    ev = sub.add_parser("evaluate", help="accuracy, macro-F1, confusion matrix of a running service on labelled data")
    _data_options(ev)
    ev.add_argument("--labels", type=Path, help="YAML/JSON: label objects (descriptions, hypotheses) per label")
    ev.add_argument("--label-set", help="use a label set the service holds instead of the data's label names")
    ev.add_argument("--template", help="hypothesis template with '{}' (default: the model's, or the label set's)")
    ev.add_argument("--threshold", type=float, help="decision threshold: report the abstain rate and answered accuracy")
    ev.add_argument("--out", type=Path, default=Path("evaluation"), help="where report.md/json and the PNG go")
    ev.set_defaults(func=_evaluate)

    tu = sub.add_parser("tune", help="try templates and label phrasings; report the best on held-out data")
    _data_options(tu)
    tu.add_argument("--language", choices=["en", "zh", "auto"], default="auto", help="built-in templates to try")
    tu.add_argument("--template", action="append", default=[], help="a template to try as well (repeatable)")
    tu.add_argument("--phrasings", type=Path, help="YAML/JSON: {label: [candidate phrasing, ...]}")
    tu.add_argument("--tune-share", type=float, default=0.5, help="share of the data to tune on (the rest is held out)")
    tu.add_argument("--metric", choices=["macro_f1", "accuracy"], default="macro_f1")
    tu.add_argument("--target-precision", type=float, help="fit the threshold for this precision (else best macro-F1)")
    tu.add_argument("--examples", type=int, default=0, metavar="K",
                    help="embedding models: give each label up to K example texts drawn from the tuning part "
                    "(never scored), and choose how they join the wording")  # fmt: skip
    tu.add_argument(
        "--examples-file", type=Path, help="YAML/JSON: {label: [example text, ...]} instead of drawing them"
    )
    tu.add_argument("--name", help="label set name (default: from the data file)")
    tu.add_argument("--out", type=Path, default=Path("tuning"), help="where ranking.md/json and the label set go")
    tu.set_defaults(func=_tune)


def _data_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("data", type=Path, help="labelled file: .csv, .tsv or .jsonl")
    p.add_argument("--url", default="http://localhost:3000", help="the service (a replica or nginx)")
    p.add_argument("--text-column", default="text")
    p.add_argument("--label-column", default="label")
    p.add_argument(
        "--label-names",
        help="every label name (comma-separated, or a file with one per line): the candidates sent, and what ids "
        "in the label column point into (0-based)",
    )
    p.add_argument("--multi-label", action="store_true", help="several labels per row, joined by --separator")
    p.add_argument("--separator", default="|", help="multi-label: what joins the labels of a row")
    p.add_argument("--format", choices=["csv", "tsv", "jsonl"], help="default: from the file's suffix")
    p.add_argument("--no-header", action="store_true", help="CSV/TSV without a header row: columns by number (0, 1)")
    p.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                   help="only rows with this value in this column (repeatable)")  # fmt: skip
    p.add_argument("--limit", type=int, help="at most this many rows, sampled stratified by label")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--concurrency", type=int, default=4, help="calls in flight")
    p.add_argument("--batch-size", type=int, default=32, help="items per /classify_batch call")
    p.add_argument(
        "--max-pairs", type=int, default=4096, help="the service's ZSC_MAX_PAIRS_PER_REQUEST: calls stay under it"
    )


def _read(args: argparse.Namespace):
    from service.quality.labelled import DataError, read, stratified_sample

    names = None
    if args.label_names:
        src = Path(args.label_names)
        if src.exists():  # a file (or a pipe: --label-names <(jq -r .name labels.jsonl)), one name per line
            names = [line.strip() for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
        else:
            names = [n.strip() for n in args.label_names.split(",") if n.strip()]
    where = {}
    for condition in args.where:
        column, sep, value = condition.partition("=")
        if not sep:
            raise DataError(f"--where {condition!r}: write COLUMN=VALUE")
        where[column] = value
    data = read(
        args.data,
        args.text_column,
        args.label_column,
        names,
        args.separator if args.multi_label else None,
        args.format,
        header=not args.no_header,
        where=where,
    )
    return stratified_sample(data, args.limit, args.seed) if args.limit else data


def _read_or_report(args: argparse.Namespace):
    """The data, or None after saying on stderr what to fix."""
    from service.quality.labelled import DataError

    try:
        return _read(args)
    except (DataError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return None


def _remote(args: argparse.Namespace):
    from service.quality.evaluation import Remote

    return Remote(args.url, args.concurrency, args.batch_size, max_pairs=args.max_pairs, progress=not args.quiet)


def _load_structured(path: Path) -> Any:
    import yaml

    text = path.read_text(encoding="utf-8")
    return json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)


def label_objects(path: Path, classes: list[str]) -> list[Any]:
    """The labels to send for ``classes``: each class's object from the file (a list of label objects, a
    {name: description} map, or a label set file), or its bare name."""
    raw = _load_structured(path)
    if isinstance(raw, dict) and "labels" in raw:
        raw = raw["labels"]
    if isinstance(raw, dict):
        raw = [{"name": k, "description": v} for k, v in raw.items()]
    by_name = {(x if isinstance(x, str) else x["name"]): x for x in raw}
    unknown = sorted(set(by_name) - set(classes))
    if unknown:
        print(f"warning: {path} describes labels the data does not have: {unknown}", file=sys.stderr)
    return [by_name.get(c, c) for c in classes]


def _evaluate(args: argparse.Namespace) -> int:
    from service.quality.evaluation import RemoteError, score_answers, write_report

    data = _read_or_report(args)
    if data is None:
        return 2
    common: dict[str, Any] = {"multi_label": data.multi_label}
    if args.label_set:
        common["label_set"] = args.label_set
        labels_from = f"label set {args.label_set!r} (the service's)"
    else:
        common["labels"] = label_objects(args.labels, data.classes) if args.labels else list(data.classes)
        labels_from = str(args.labels) if args.labels else "the data's label names"
    for key in ("template", "threshold"):
        if getattr(args, key) is not None:
            common["hypothesis_template" if key == "template" else key] = getattr(args, key)
    remote = _remote(args)
    print(f"evaluating {len(data)} items ({len(data.classes)} classes) against {args.url}", file=sys.stderr)
    try:
        answers = remote.classify([{"text": t, **common} for t in data.texts], desc="evaluating")
    except RemoteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    metrics = score_answers(data, answers)
    meta = {
        "data": str(args.data),
        "url": args.url,
        "model": answers[0]["model"],
        "revision": answers[0]["revision"],
        "template": args.template,
        "threshold": args.threshold,
        "labels_from": labels_from,
        "limit": args.limit,
        "seed": args.seed,
        "concurrency": args.concurrency,
        "batch_size": args.batch_size,
        "seconds": remote.seconds,
        "items_per_s": len(data) / remote.seconds if remote.seconds else 0.0,
        "pairs_per_s": remote.pairs_sent / remote.seconds if remote.seconds else 0.0,
        "rows": data.rows,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    paths = write_report(metrics, meta, args.out)
    print(
        f"accuracy {metrics.accuracy:.3f}, macro-F1 {metrics.macro_f1:.3f} on {metrics.items} items "
        f"({meta['items_per_s']:.1f} items/s); wrote {', '.join(str(p) for p in paths)}"
    )
    return 0


def _tune(args: argparse.Namespace) -> int:
    from service.core.languages import dominant_script
    from service.pipeline.label_sets import dump
    from service.quality.evaluation import RemoteError
    from service.quality.labelled import stratified_split
    from service.quality.tuning import TEMPLATES, draw_examples, label_set, tune

    data = _read_or_report(args)
    if data is None:
        return 2
    language = args.language
    if language == "auto":  # by the script most of the texts are written in
        cjk = sum(dominant_script(t)[0] == "CJK" for t in data.texts[:500])
        language = "zh" if cjk > len(data.texts[:500]) / 2 else "en"
    templates = [*TEMPLATES[language], *args.template]
    raw = (_load_structured(args.phrasings) or {}) if args.phrasings else {}
    phrasings = {k: [v] if isinstance(v, str) else list(v) for k, v in raw.items()}
    tuning_part, held_out = stratified_split(data, args.tune_share, args.seed)
    examples = None
    if args.examples_file:
        raw = _load_structured(args.examples_file) or {}
        examples = {k: [v] if isinstance(v, str) else list(v) for k, v in raw.items() if k in data.classes}
        if args.examples:
            examples = {k: v[: args.examples] for k, v in examples.items()}
    elif args.examples > 0:
        examples, tuning_part = draw_examples(tuning_part, args.examples, args.seed)
    say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    try:
        result, combo = tune(
            _remote(args), tuning_part, held_out, templates, phrasings, args.metric, args.target_precision, say,
            examples,
        )  # fmt: skip
    except RemoteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    name = args.name or "".join(c if c.isalnum() or c in "-_." else "-" for c in args.data.stem)
    meta = {
        "data": str(args.data),
        "where": dict(c.partition("=")[::2] for c in args.where),
        "url": args.url,
        "metric": args.metric,
        "language": language,
        "seed": args.seed,
        "tune_share": args.tune_share,
        "examples": args.examples or None,
        "examples_file": str(args.examples_file) if args.examples_file else None,
        "date": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    (args.out / "ranking.json").write_text(json.dumps({**meta, **result.as_dict()}, indent=2, ensure_ascii=False))
    (args.out / "ranking.md").write_text(ranking_markdown(result, args.metric, meta))
    path = dump(label_set(name, result, combo, data, phrasings, meta, examples), args.out / f"{name}.yaml")
    best = result.best
    print(
        f"best: {combo.describe()}: held-out {args.metric} {best['held_out'][args.metric]:.3f} "
        f"(tuning {best['tuning'][args.metric]:.3f}; "
        + (f"the same without examples: {best['held_out_without_examples'][args.metric]:.3f}; " if examples else "")
        + "plain names with the model's template: "
        f"{result.baseline['held_out'][args.metric]:.3f}); threshold {result.describe_threshold()}; "
        f"wrote {args.out / 'ranking.md'}, {path}"
    )
    return 0


def ranking_markdown(result, metric: str, meta: dict) -> str:
    best = result.best
    lines = [
        f"# Tuning on {meta['data']} ({result.model})",
        "",
        f"{len(result.tuning_rows)} items to tune on, {len(result.held_out_rows)} held out (stratified, seed "
        f"{meta['seed']}); ranked by {metric} on the tuning part; {result.seconds:.0f} s.",
        "",
        f"**Result (held out): {metric} {best['held_out'][metric]:.3f}** with template "
        f"`{best['template'] or 'the model default'}` and {best['strategy']}"
        + (
            f", {best['examples']['texts']} examples for {best['examples']['labels']} labels (at most "
            f"{best['examples']['most_per_label']} each) joined by {best['examples']['rule']} (weight "
            f"{best['examples']['weight']:g}); without the examples {best['held_out_without_examples'][metric]:.3f}"
            if best.get("examples")
            else ""
        )
        + f"; the plain default (bare names, the model's template) scores {result.baseline['held_out'][metric]:.3f} "
        "on the same held-out items.",
        "",
        f"Threshold: {result.describe_threshold()}",
        "",
        f"| rank | template | phrasing | examples | {metric} (tuning) | accuracy | macro-F1 |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {i} | `{r['template'] or '(model default)'}` | {r['strategy']} | "
        f"{(r['examples']['rule'] + ' ' + format(r['examples']['weight'], 'g')) if r.get('examples') else '-'} | "
        f"{r[metric]:.3f} | {r['accuracy']:.3f} | {r['macro_f1']:.3f} |"
        for i, r in enumerate(result.ranking, start=1)
    ]
    return "\n".join(lines) + "\n"
