"""``zsc``: the project's command line (model import and store housekeeping)."""

from __future__ import annotations

import argparse
import json
import logging
import sys


def _import(args: argparse.Namespace) -> int:
    from service.modelstore.importer import ImportOptions, ModelImportError, import_model

    variants = [v for v in args.onnx.split(",") if v]
    if bad := [v for v in variants if v not in ("fp32", "int8", "fp16")]:
        print(f"error: unknown ONNX variant(s) {bad}: use fp32, int8, fp16", file=sys.stderr)
        return 2

    # the options named as ImportOptions' fields, plus those the command line says another way
    same = ("name", "kind", "entailment_index", "contradiction_index", "template", "max_length", "revision", "offline")
    same += ("text_prefix", "label_prefix", "logit_scale", "multi_label_bias", "example_shift")
    languages = tuple(x.strip() for x in args.languages.split(",") if x.strip()) if args.languages is not None else None
    opts = ImportOptions(
        **{f: getattr(args, f) for f in same},
        onnx=() if args.no_onnx else tuple(variants),
        verify=not args.no_verify,
        languages=languages,
    )
    try:
        m = import_model(args.source, opts, progress=not args.quiet)
    except ModelImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(json.dumps({"tag": str(m.tag), "path": str(m.path), **dict(m.info.metadata)}, ensure_ascii=False))
    return 0


def _ensure_default(args: argparse.Namespace) -> int:
    from service.config import settings
    from service.modelstore.importer import ModelImportError, ensure_bundled

    try:
        stored = [ensure_bundled(name, progress=not args.quiet) for name in settings().served_models()]
    except ModelImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for m in stored:
        print(m.tag)
    return 0


def _list(args: argparse.Namespace) -> int:
    import bentoml

    for m in bentoml.models.list():
        meta = dict(m.info.metadata)
        if "kind" not in meta:
            continue
        if args.json:
            print(json.dumps({"tag": str(m.tag), "path": str(m.path), **meta}, ensure_ascii=False))
        else:
            print(f"{m.tag}\t{meta['kind']}\t{meta.get('source', '')}\t{meta.get('revision', '')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="zsc", description=__doc__)
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress bars")
    sub = parser.add_subparsers(dest="command", required=True)

    imp = sub.add_parser("import-model", help="import a model into the BentoML model store")
    imp.add_argument(
        "source", help="'bundled-multilingual', 'bundled' (English), a local directory, 'modelscope:<id>' or 'hf:<id>'"
    )
    imp.add_argument("--name", help="model name in the store (default: from the source)")
    imp.add_argument("--kind", choices=["nli", "embedding"], help="default: detected from the config")
    imp.add_argument("--entailment-index", type=int, help="override for configs without label names")
    imp.add_argument("--contradiction-index", type=int)
    imp.add_argument("--template", help="default hypothesis template, with '{}'")
    imp.add_argument("--max-length", type=int, help="token limit per sequence (default: the model's)")
    imp.add_argument("--revision", help="hub revision to download; also recorded in the metadata")
    imp.add_argument(
        "--offline", action="store_true", help="hub sources: use the local hub cache only (air-gapped hosts)"
    )
    imp.add_argument(
        "--onnx",
        default="fp32,int8",
        help="ONNX variants to export at import (fp32 always; int8 for CPU; fp16 for CUDA), comma-separated",
    )
    imp.add_argument("--no-onnx", action="store_true", help="skip the ONNX export (torch runtime only)")
    embedding = imp.add_argument_group("embedding models", "how an embedding model reads texts and scores labels")
    embedding.add_argument("--text-prefix", help="put before every text (e5: 'query: ')")
    embedding.add_argument("--label-prefix", help="put before every label hypothesis (e5: 'passage: ')")
    embedding.add_argument("--logit-scale", type=float, help="score = softmax(scale x cosine)")
    embedding.add_argument(
        "--multi-label-bias", type=float, help="multi-label score = sigmoid(scale x (cosine - bias))"
    )
    embedding.add_argument(
        "--example-shift",
        type=float,
        help="taken off a text's cosine to a label's examples (text-to-text cosines sit higher)",
    )
    imp.add_argument(
        "--languages", help="ISO 639-1 codes the model covers, comma-separated (default: known/model card)"
    )
    imp.add_argument("--no-verify", action="store_true", help="skip the load-and-run check")
    imp.set_defaults(func=_import)

    ens = sub.add_parser(
        "ensure-default",
        help="import the models ZSC_MODELS (or ZSC_MODEL) names if missing (default: the bundled multilingual one)",
    )
    ens.set_defaults(func=_ensure_default)

    ls = sub.add_parser("list-models", help="zero-shot models in the store")
    ls.add_argument("--json", action="store_true", help="one JSON object per model, with all its metadata")
    ls.set_defaults(func=_list)

    from service.cli import calibrate
    from service.cli.evaluate import add_parsers

    add_parsers(sub)
    calibrate.add_parser(sub)

    args = parser.parse_args(argv)
    # our progress lines at INFO; third-party loggers (onnxruntime's quantizer logs every tensor) at WARNING
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("zsc").setLevel(logging.INFO)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
