"""Shared fixtures. Tests in tests/unit are marked ``unit``, tests in tests/integration ``integration``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import bento_server, run_cli
from tests.support.tiny_models import write_hf_nli, write_modelscope_structbert


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.fspath)).parent.name
        if folder in ("unit", "integration"):
            item.add_marker(getattr(pytest.mark, folder))


@pytest.fixture(scope="session")
def store_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A private BentoML home holding the bundled model, imported through the real CLI."""
    home = tmp_path_factory.mktemp("bentoml_home")
    env = {"BENTOML_HOME": str(home), "BENTOML_DO_NOT_TRACK": "True"}
    result = run_cli(["ensure-default"], env)
    assert result.returncode == 0, result.stderr
    return env


@pytest.fixture(scope="session")
def default_server(store_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory):
    log = tmp_path_factory.mktemp("logs") / "default_server.log"
    with bento_server(store_env, log) as url:
        yield url


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory: pytest.TempPathFactory):
    """(hf_dir, hf_reference_model, ms_dir, ms_reference_model, tokenizer)."""
    root = tmp_path_factory.mktemp("tiny")
    hf_model, tok = write_hf_nli(root / "hf")
    ms_model, _ = write_modelscope_structbert(root / "ms")
    return {"hf": (root / "hf", hf_model), "ms": (root / "ms", ms_model), "tokenizer": tok}


@pytest.fixture(scope="session")
def tiny_models(store_env, tiny_checkpoints):
    """Both tiny checkpoints imported through `zsc import-model` as tiny-hf and tiny-ms."""
    for layout in ("hf", "ms"):
        result = run_cli(["import-model", str(tiny_checkpoints[layout][0]), "--name", f"tiny-{layout}"], store_env)
        assert result.returncode == 0, result.stderr
    return store_env


@pytest.fixture(scope="session")
def nli_servers(tiny_models, tmp_path_factory):
    """Both tiny checkpoints served; yields {layout: url}."""
    store_env = tiny_models
    logs = tmp_path_factory.mktemp("logs")
    with (
        # one server on each runtime: torch for the Hugging Face layout, ONNX (auto) for StructBERT
        bento_server(
            {**store_env, "ZSC_MODEL": "tiny-hf", "ZSC_TOKEN_BUDGET": "512", "ZSC_RUNTIME": "torch"}, logs / "hf.log"
        ) as hf,
        bento_server({**store_env, "ZSC_MODEL": "tiny-ms", "ZSC_TOKEN_BUDGET": "512"}, logs / "ms.log") as ms,
    ):
        yield {"hf": hf, "ms": ms}
