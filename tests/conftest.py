"""Shared fixtures: the private model store, and one server per configuration for every module that needs it.

Tests are marked by folder: ``unit`` (tests/unit), ``integration`` (tests/integration), ``tooling``
(tests/tooling); the integration modules of the inner loop (``make test-fast``) are also ``core``."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.server import KEYS, ROOT, bento_server, run_cli
from tests.support.tiny_models import write_hf_nli, write_modelscope_structbert

# the HTTP API's own behaviour on the default model and the tiny NLI ones: a few minutes with the unit tests
CORE = {"test_http_api", "test_bad_input", "test_answers", "test_readme", "test_one_path", "test_error_path"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.fspath)).resolve()
        folder = path.relative_to(tests).parts[0]
        if folder in ("unit", "integration", "tooling"):
            item.add_marker(getattr(pytest.mark, folder))
        if folder == "integration" and path.stem in CORE:
            item.add_marker(pytest.mark.core)


@pytest.fixture(scope="session")
def store_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A private BentoML home holding the bundled model, imported through the real CLI."""
    home = tmp_path_factory.mktemp("bentoml_home")
    env = {"BENTOML_HOME": str(home), "BENTOML_DO_NOT_TRACK": "True"}
    result = run_cli(["ensure-default"], env)
    assert result.returncode == 0, result.stderr
    return env


# the example label set the Kubernetes component ships (tuned on the default model)
SHIPPED_SETS = ROOT / "deploy" / "k8s" / "components" / "label-sets" / "sets"


@pytest.fixture(scope="session")
def default_server(store_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory):
    """The default model as `make serve` runs it, holding the shipped example label set."""
    log = tmp_path_factory.mktemp("logs") / "default_server.log"
    with bento_server({**store_env, "ZSC_LABEL_SETS": str(SHIPPED_SETS)}, log) as url:
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


@pytest.fixture(scope="session")
def keyed_server(tiny_models, tmp_path_factory):
    """A tiny NLI model behind two API keys (a rotation), JSON logs and a 1 MB body bound: the edge tests
    and the fuzzer; yields (url, log path)."""
    log = tmp_path_factory.mktemp("keyed") / "keyed.log"
    env = {
        **tiny_models,
        "ZSC_MODEL": "tiny-hf",
        "ZSC_RUNTIME": "torch",
        "ZSC_API_KEYS": ",".join(KEYS),
        "ZSC_LOG_FORMAT": "json",
        "ZSC_MAX_BODY_MB": "1",
    }
    with bento_server(env, log) as url:
        yield url, log
