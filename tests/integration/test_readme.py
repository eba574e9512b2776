"""The README stays true: its config table matches the code, its examples run."""

from __future__ import annotations

import json
import re
import shlex
import subprocess

import bentoml
import pytest

from service.config import Settings
from tests.support.server import ROOT

README = (ROOT / "README.md").read_text()


def test_config_table_lists_every_setting_with_its_default():
    rows = dict(re.findall(r"^\| `(ZSC_\w+)` \| `([^`]*)` \|", README, flags=re.M))
    expected = {env: default for env, default, _ in Settings.table()}
    assert rows == expected


def console_examples(block: str) -> list[tuple[str, dict]]:
    """(command, documented answer) for each ``$ `` command of a console block; continuation lines end in
    a backslash, the answer is the JSON that follows (possibly over several lines)."""
    out, command, answer = [], None, ""
    for line in block.strip().splitlines():
        if line.startswith("$ "):
            if command:
                out.append((command, json.loads(answer)))
            command, answer = line[2:].rstrip("\\").strip(), ""
        elif command is not None and not answer and command and line.startswith("    "):
            command += " " + line.strip().rstrip("\\").strip()
        else:
            answer += line.strip()
    out.append((command, json.loads(answer)))
    return out


def test_readme_curl_examples_answer_as_documented(default_server):
    block = README.split("```console", 1)[1].split("```", 1)[0]
    examples = console_examples(block)
    assert len(examples) >= 2
    for command, documented in examples:
        command = command.replace("localhost:3000", default_server.removeprefix("http://"))
        out = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60)
        answer = json.loads(out.stdout)
        assert set(answer) == set(documented), ("the README shows another answer shape", command, answer)
        assert answer["labels"] == documented["labels"], (command, answer)
        assert answer["scores"] == pytest.approx(documented["scores"], abs=0.02), (command, answer)
        assert answer["model"].split(":")[0] == documented["model"].split(":")[0]


def test_bentoml_sync_client_as_documented(default_server):
    with bentoml.SyncHTTPClient(default_server) as client:
        out = client.classify({"text": "My card was charged twice", "labels": ["billing", "shipping"]})
    assert out["labels"][0] == "billing"


def test_readme_python_clients_block_runs(default_server, capsys):
    [block] = [b.split("```", 1)[0] for b in README.split("```python")[1:] if "zsc_client" in b]
    code = block.replace("http://localhost:3000", default_server)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 (our own README)
    printed = capsys.readouterr().out.split()
    assert printed[0] == "billing" and printed[1] == "billing"
