#!/usr/bin/env python3
"""Regenerate (or check) the typed Python client from the service's OpenAPI document. One command:

    .venv/bin/python clients/regenerate.py            # schema from the service code -> clients/openapi.json
                                                      #   -> openapi-python-client -> clients/python/
    .venv/bin/python clients/regenerate.py --check    # exit 1 when either is stale (what the tests assert)
    ... --from-url http://localhost:3000              # take the schema from a live server's /docs.json
    ... --from-bento PATH|TAG                         # or from a built bento's apis/openapi.yaml

The schema comes from the same object BentoML serves at ``/docs.json`` and writes into a bento's
``apis/openapi.yaml`` (``Service.openapi_spec``), so no server or model is needed, plus the routes the
service mounts beside BentoML's APIs (label sets, jobs: ``service/openapi.py``), which BentoML does not
document. It is normalised first
(``normalise``): ``info`` (bento tag, BentoML's README text) and ``servers`` vary by build and say nothing
about the API. The generated code depends only on that document and the pinned openapi-python-client.
"""

from __future__ import annotations

import argparse
import difflib
import filecmp
import json
import os
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

CLIENTS = Path(__file__).resolve().parent
ROOT = CLIENTS.parent
SCHEMA = CLIENTS / "openapi.json"
PACKAGE_DIR = CLIENTS / "python"
CONFIG = CLIENTS / "openapi-python-client.yaml"
TITLE = "Zero-shot classifier"
VERSION = "0.1.0"
DESCRIPTION = "Zero-shot text classification: rank any labels for a text, no training. Generated from the service."


# BentoML tags every endpoint "Service APIs" or "Infrastructure"; the tag names the client's modules
TAGS = {"Service APIs": "classifier", "Infrastructure": "infrastructure"}


def normalise(spec: dict[str, Any]) -> dict[str, Any]:
    """The API part of an OpenAPI document, with names fit for a client. Only what says nothing about the
    requests and responses changes: ``info`` and ``servers`` (bento tag, BentoML's README text) get fixed
    values; an operation's ``operationId`` becomes its BentoML API name (``classify``, not
    ``zero_shot_classifier__classify``) and tags get module names (``TAGS``). Applied to both sides of
    every comparison, so any change to paths, bodies, fields or status codes still shows."""
    out = json.loads(json.dumps(spec))  # a copy, and YAML- or JSON-sourced documents compare equal
    out.pop("servers", None)
    out["info"] = {"title": TITLE, "version": VERSION, "description": DESCRIPTION}
    for tag in out.get("tags", []):
        tag["name"] = TAGS.get(tag["name"], tag["name"])
    for item in out.get("paths", {}).values():
        for op in item.values():
            if not isinstance(op, dict):
                continue
            if "x-bentoml-name" in op:
                op["operationId"] = op["x-bentoml-name"]
            if "tags" in op:
                op["tags"] = [TAGS.get(t, t) for t in op["tags"]]
    return json.loads(json.dumps(out, sort_keys=True))


def dumps(spec: dict[str, Any]) -> str:
    return json.dumps(spec, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def schema_from_service() -> dict[str, Any]:
    """Import the service in a clean subprocess (default settings: no ZSC_* from this shell)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZSC_")}
    env.setdefault("BENTOML_HOME", tempfile.mkdtemp(prefix="zsc-openapi-"))
    env["BENTOML_DO_NOT_TRACK"] = "True"
    code = (
        "import json, sys\n"
        "from service.http.openapi import merged\n"
        "from service.http.app import ZeroShotClassifier as S\n"
        "json.dump(merged(S.openapi_spec.asdict()), sys.stdout)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"importing the service failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)


def with_mounted_routes(spec: dict[str, Any]) -> dict[str, Any]:
    """BentoML's document plus the routes the service mounts beside its APIs (service/openapi.py)."""
    sys.path.insert(0, str(ROOT))
    from service.http.openapi import merged

    return merged(spec)


def schema_from_url(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url.rstrip("/") + "/docs.json", timeout=30) as resp:  # noqa: S310
        return with_mounted_routes(json.loads(resp.read()))


def schema_from_bento(path_or_tag: str | Path) -> dict[str, Any]:
    """A built bento's ``apis/openapi.yaml``; a bento directory or a tag in the local bento store."""
    import yaml

    path = Path(path_or_tag)
    if not path.is_dir():
        import bentoml

        path = Path(bentoml.get(str(path_or_tag)).path)
    return with_mounted_routes(yaml.safe_load((path / "apis" / "openapi.yaml").read_text()))


def committed_schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text())


def schema_diff(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Unified diff of two documents after normalising; empty when they describe the same API."""
    a, b = dumps(normalise(expected)), dumps(normalise(actual))
    return list(difflib.unified_diff(a.splitlines(), b.splitlines(), "committed", "service", lineterm="", n=2))


def for_generator(spec: dict[str, Any]) -> dict[str, Any]:
    """The document without its rules between fields (``anyOf`` / ``not`` beside an object's properties:
    "a description or a hypothesis", "items or texts"): openapi-python-client cannot parse them, and a
    type cannot say them anyway. The document served and committed keeps them."""
    out = json.loads(json.dumps(spec))
    for schema in out.get("components", {}).get("schemas", {}).values():
        if "properties" in schema:
            schema.pop("anyOf", None)
            schema.pop("not", None)
    return out


def generate(schema_path: Path, output: Path) -> None:
    """Run the pinned openapi-python-client on one document into ``output`` (replaced)."""
    exe = Path(sys.executable).parent / "openapi-python-client"
    stripped = output.parent / f".{output.name}-generator-input.json"
    stripped.write_text(dumps(for_generator(json.loads(schema_path.read_text()))))
    cmd = [str(exe) if exe.exists() else "openapi-python-client", "generate", "--path", str(stripped)]
    cmd += ["--config", str(CONFIG), "--meta", "setup", "--output-path", str(output), "--overwrite"]
    cmd += ["--fail-on-warning"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False)
    stripped.unlink()
    if out.returncode != 0:
        sys.exit(f"openapi-python-client failed:\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}")


def code_diff(schema: dict[str, Any], package_dir: Path = PACKAGE_DIR) -> list[str]:
    """Files that differ between ``package_dir`` and a fresh generation from ``schema``."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "openapi.json"
        path.write_text(dumps(normalise(schema)))
        fresh = Path(tmp) / "python"
        generate(path, fresh)
        return _tree_diff(fresh, package_dir)


def _tree_diff(a: Path, b: Path) -> list[str]:
    def files(root: Path) -> set[str]:
        return {
            str(p.relative_to(root))
            for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and ".egg-info" not in str(p)
        }

    fa, fb = files(a), files(b) if b.exists() else set()
    diffs = [f"only in fresh generation: {f}" for f in sorted(fa - fb)]
    diffs += [f"only in {b.name}: {f}" for f in sorted(fb - fa)]
    diffs += [f"differs: {f}" for f in sorted(fa & fb) if not filecmp.cmp(a / f, b / f, shallow=False)]
    return diffs


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    src = p.add_mutually_exclusive_group()
    src.add_argument("--from-url", metavar="URL", help="a live server's base URL (reads /docs.json)")
    src.add_argument("--from-bento", metavar="PATH|TAG", help="a built bento, directory or tag (apis/openapi.yaml)")
    p.add_argument("--check", action="store_true", help="change nothing; exit 1 when the client is stale")
    args = p.parse_args(argv)
    if args.from_url:
        live = schema_from_url(args.from_url)
    elif args.from_bento:
        live = schema_from_bento(args.from_bento)
    else:
        live = schema_from_service()

    if args.check:
        problems = []
        if not SCHEMA.exists():
            problems.append(f"{SCHEMA} is missing")
        else:
            diff = schema_diff(committed_schema(), live)
            if diff:
                problems.append("the service's OpenAPI document differs from clients/openapi.json:\n" + "\n".join(diff))
            files = code_diff(committed_schema())
            if files:
                problems.append("clients/python is not what clients/openapi.json generates:\n" + "\n".join(files))
        for problem in problems:
            print(problem, file=sys.stderr)
        if problems:
            print("regenerate: .venv/bin/python clients/regenerate.py (make client)", file=sys.stderr)
            return 1
        print("client up to date")
        return 0

    SCHEMA.write_text(dumps(normalise(live)))
    generate(SCHEMA, PACKAGE_DIR)
    print(f"wrote {SCHEMA.relative_to(ROOT)} and {PACKAGE_DIR.relative_to(ROOT)}/ (package zsc_client)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
