"""schemathesis, a real third-party fuzzer, against the service's own OpenAPI document (/openapi.json):
every operation, every check it has (server errors, status codes, content types, headers, response
schemas, schema-valid requests accepted, schema-invalid ones refused, auth enforced), on a server with API
keys. Bounded: a fixed number of examples per operation; the seed is random and printed, so a failure
names its reproduction (``st replay`` / the curl line in the output)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.support.server import KEYS

KEY = KEYS[0]
CONFIG = Path(__file__).with_name("schemathesis.toml")
EXAMPLES = 40  # per operation and phase: ~40 s on the 2-core CI machine


def test_schemathesis_finds_no_failure(keyed_server, tmp_path):
    url, log = keyed_server
    exe = Path(sys.executable).parent / "schemathesis"
    command = [
        str(exe), "--config-file", str(CONFIG), "run", f"{url}/openapi.json",
        "--checks", "all",
        "--phases", "examples,coverage,fuzzing",
        "--max-examples", str(EXAMPLES),
        "--header", f"Authorization: Bearer {KEY}",
        "--no-color",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-8000:]
    selected, tested = re.search(r"Selected: \d+/(\d+)", report), re.search(r"Tested: (\d+)", report)
    assert selected and tested and tested[1] == selected[1], report[-3000:]  # every operation was reached
    assert KEY not in log.read_text(errors="replace"), "the key must never be logged"
