"""schemathesis, a real third-party fuzzer, against the service's own OpenAPI document (/openapi.json):
every operation, every check it has (server errors, status codes, content types, headers, response
schemas, schema-valid requests accepted, schema-invalid ones refused, auth enforced, a deleted resource
gone), every phase (examples, coverage, fuzzing, and stateful: chains of calls that follow the document's
links, e.g. submit a job, read it, cancel it, delete it, read it again), on a server with API keys.
Bounded: a fixed number of examples per operation and phase, and for the stateful phase
(schemathesis.toml); the seed is random and printed, so a failure names its reproduction (``st replay`` /
the curl line in the output)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from tests.support.server import KEYS

KEY = KEYS[0]
CONFIG = Path(__file__).with_name("schemathesis.toml")  # the stateful phase's bound, and statuses
EXAMPLES = 40  # per operation and phase (examples, coverage, fuzzing): ~15 s on the 2-core CI machine
JOB = re.compile(r"/jobs/([0-9a-f]{32})(/\w+)?(?:\?|$)")


def after_delete(har: Path) -> list[tuple[str, str, int]]:
    """(method, route, status) of every request on a job id after a DELETE of it answered 204."""
    deleted, out = set(), []
    for entry in json.loads(har.read_text())["log"]["entries"]:
        method, status = entry["request"]["method"], entry["response"]["status"]
        match = JOB.search(entry["request"]["url"])
        if match is None:
            continue
        if match[1] in deleted:
            out.append((method, f"/jobs/{{id}}{match[2] or ''}", status))
        if method == "DELETE" and status == 204:
            deleted.add(match[1])
    return out


def test_schemathesis_finds_no_failure(keyed_server, tmp_path):
    url, log = keyed_server
    exe = Path(sys.executable).parent / "schemathesis"
    command = [
        str(exe), "--config-file", str(CONFIG), "run", f"{url}/openapi.json",
        "--checks", "all",
        "--phases", "examples,coverage,fuzzing,stateful",
        "--max-examples", str(EXAMPLES),
        "--header", f"Authorization: Bearer {KEY}",
        "--report", "har", "--report-dir", str(tmp_path / "reports"),
        "--no-color",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-8000:]
    selected, tested = re.search(r"Selected: \d+/(\d+)", report), re.search(r"Tested: (\d+)", report)
    assert selected and tested and tested[1] == selected[1], report[-3000:]  # every operation was reached
    scenarios = re.search(r"Stateful \(in [\d.]+m?s\)\s+Scenarios:\s+(\d+)", report)
    assert scenarios and int(scenarios[1]) > 0, report[-3000:]  # the stateful phase ran
    # deleted jobs were asked for again (a read, a cancel, a second DELETE): 404s, never a 2xx (a bad query
    # parameter is still a 400 first)
    [har] = (tmp_path / "reports").glob("har-*.json")
    again = after_delete(har)
    assert any(status == 404 for *_, status in again), again
    assert [a for a in again if 200 <= a[2] < 300] == [], again
    assert KEY not in log.read_text(errors="replace"), "the key must never be logged"
