"""``zsc calibrate``: fit a label set's calibration on unlabelled texts through a running service, and write
the set with it (a frozen calibration: the same answers on every replica, after every restart)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_parser(sub) -> None:
    ca = sub.add_parser(
        "calibrate",
        help="fit a label set's per-label bias offsets on unlabelled texts and write the set with them (frozen)",
    )
    ca.add_argument("data", type=Path, help="unlabelled texts: .txt (one per line), .csv, .tsv or .jsonl")
    ca.add_argument(
        "--label-set", type=Path, required=True, help="the label set file to calibrate (zsc tune writes one)"
    )
    ca.add_argument("--url", default="http://localhost:3000", help="the service (a replica or nginx)")
    ca.add_argument("--text-column", default="text", help="CSV/TSV/JSONL: the column of the texts")
    ca.add_argument("--format", choices=["txt", "csv", "tsv", "jsonl"], help="default: from the file's suffix")
    ca.add_argument("--no-header", action="store_true", help="CSV/TSV without a header row: columns by number")
    ca.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                    help="only rows with this value in this column (repeatable)")  # fmt: skip
    ca.add_argument("--limit", type=int, help="at most this many texts (a seeded random sample)")
    ca.add_argument("--seed", type=int, default=7)
    ca.add_argument(
        "--min-texts", type=int, help="refuse fewer texts (default: the service's default ZSC_CALIBRATION_MIN_TEXTS)"
    )
    ca.add_argument("--concurrency", type=int, default=4, help="calls in flight")
    ca.add_argument("--batch-size", type=int, default=32, help="items per /classify_batch call")
    ca.add_argument("--max-pairs", type=int, default=4096, help="the service's ZSC_MAX_PAIRS_PER_REQUEST")
    ca.add_argument("--out", type=Path, default=Path("calibrated"), help="where the calibrated set is written")
    ca.set_defaults(func=_calibrate)


def _calibrate(args: argparse.Namespace) -> int:
    import random

    import yaml
    from pydantic import ValidationError

    from service.core.calibration import CalibrationConfig
    from service.pipeline.label_sets import LabelSet, dump
    from service.quality.calibration import TooFewTexts, calibrate
    from service.quality.evaluation import Remote, RemoteError
    from service.quality.labelled import DataError, read_texts

    try:
        raw = yaml.safe_load(args.label_set.read_text(encoding="utf-8"))
        label_set = LabelSet.model_validate(raw, context={"limits": False})
        where = dict(c.partition("=")[::2] for c in args.where)
        texts = read_texts(args.data, args.text_column, args.format, not args.no_header, where)
    except (OSError, yaml.YAMLError, ValidationError, DataError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.limit and args.limit < len(texts):
        texts = random.Random(args.seed).sample(texts, args.limit)
    remote = Remote(args.url, args.concurrency, args.batch_size, max_pairs=args.max_pairs, progress=not args.quiet)
    print(f"calibrating {label_set.name!r} ({len(label_set.labels)} labels) on {len(texts)} texts at {args.url}",
          file=sys.stderr)  # fmt: skip
    fitted = {"data": str(args.data), "url": args.url, "limit": args.limit, "seed": args.seed}
    config = CalibrationConfig() if args.min_texts is None else CalibrationConfig(min_texts=float(args.min_texts))
    try:
        frozen = calibrate(remote, label_set, texts, config, fitted)
    except TooFewTexts as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RemoteError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    path = dump(label_set.model_copy(update={"calibration": frozen}), args.out / f"{label_set.name}.yaml")
    largest = sorted(frozen.offsets.items(), key=lambda kv: -abs(kv[1]))[:3]
    print(
        f"calibrated on {frozen.texts} texts with {frozen.model} ({frozen.revision}): it changes the top label of "
        f"{frozen.fitted['top_label_changed']:.1%} of them; largest offsets "
        f"{json.dumps(dict(largest), ensure_ascii=False)}; wrote {path}"
    )
    return 0
