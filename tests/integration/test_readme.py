"""The README stays true: its config table matches the code, its examples run."""

from __future__ import annotations

import re
import shlex
import subprocess

import bentoml

from service.config import Settings
from tests.support.server import ROOT

README = (ROOT / "README.md").read_text()


def test_config_table_lists_every_setting_with_its_default():
    rows = dict(re.findall(r"^\| `(ZSC_\w+)` \| `([^`]*)` \|", README, flags=re.M))
    expected = {env: default for env, default, _ in Settings.table()}
    assert rows == expected


def test_readme_curl_example_works(default_server):
    block = README.split("```console", 1)[1].split("```", 1)[0]
    command = " ".join(line.strip().rstrip("\\") for line in block.splitlines() if not line.startswith("{"))
    command = (
        command.strip().removeprefix("$").strip().replace("localhost:3000", default_server.removeprefix("http://"))
    )
    out = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=60)
    assert '"labels":["billing"' in out.stdout, out


def test_bentoml_sync_client_as_documented(default_server):
    with bentoml.SyncHTTPClient(default_server) as client:
        out = client.classify({"text": "My card was charged twice", "labels": ["billing", "shipping"]})
    assert out["labels"][0] == "billing"


def test_readme_python_clients_block_runs(default_server, capsys):
    block = README.split("```python", 1)[1].split("```", 1)[0]
    code = block.replace("http://localhost:3000", default_server)
    exec(compile(code, "README.md", "exec"), {})  # noqa: S102 (our own README)
    printed = capsys.readouterr().out.split()
    assert printed[0] == "billing" and printed[1] == "billing"
