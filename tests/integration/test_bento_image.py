"""Shipping: `bentoml build` from bentofile.yaml, the image's locked requirements, and the CPU image itself.

The bento is built into the session's private store (``store_env``) with build/bento.sh, as CI does on a
fresh clone. The image tests build the CPU image from that bento with build/image.sh (buildah, local base
image from build/base-image.sh) and run build/smoke.py against it with podman; they are skipped where
buildah/podman are missing or not root (install: buildah podman runc uidmap slirp4netns debootstrap), or
with ZSC_SKIP_IMAGE_TESTS=1. Images they create are removed afterwards; the local base image is kept.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.support.server import BIN, ROOT

sys.path.insert(0, str(ROOT / "clients"))
import regenerate  # noqa: E402  (clients/regenerate.py)

sys.path.insert(0, str(ROOT / "build"))
import smoke  # noqa: E402  (build/smoke.py: the engine's settings, as build/*.sh choose them)

TEST_IMAGE = "localhost/zsc-test-image"
# exported while the bento and the image are built, and given to the container: found nowhere in the image
SECRET = "zsc-image-test-key-9d41b7e2"  # noqa: S105 (a test key, searched for)


def _run(cmd: list[str], env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
    return subprocess.run(
        cmd, cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=timeout, check=False
    )


@pytest.fixture(scope="module")
def built_bento(store_env):
    """(tag, path) of a bento built from the working tree by build/bento.sh into the private store."""
    result = _run(["build/bento.sh"], {**store_env, "VENV_BIN": str(BIN), "ZSC_API_KEYS": SECRET}, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    tag = result.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"zero-shot-classifier:[a-z0-9]+", tag), result.stdout
    code = "import sys, bentoml; print(bentoml.get(sys.argv[1]).path)"
    path = _run([sys.executable, "-c", code, tag], store_env, timeout=120).stdout.strip()
    return tag, path


def test_bentoml_build_packs_the_service_model_and_lean_requirements(built_bento):
    tag, path = built_bento
    info = yaml.safe_load(open(f"{path}/bento.yaml"))
    assert info["service"] == "service.http.app:ZeroShotClassifier"
    models = [m["tag"] for s in info["services"] for m in s["models"]]
    assert len(models) == 1 and models[0].startswith("multilingual-e5-small:"), models
    assert info["image"]["base_image"]  # docker.base_image, not the legacy cuda_version path
    assert os.path.isfile(f"{path}/src/service/http/app.py") and os.path.isfile(f"{path}/src/service/ui/swagger.html")
    for static in ("index.html", "app.js", "app.css"):  # the /ui page is not Python: included by name
        assert os.path.isfile(f"{path}/src/service/ui/static/{static}"), static
    # the predicate calibrations (POST /v1/decisions): without them predicates are answered uncalibrated
    assert os.path.isfile(f"{path}/src/service/core/predicate_calibration.json")
    assert not os.path.exists(f"{path}/src/tests")
    reqs = open(f"{path}/env/python/requirements.txt").read()
    names = {Requirement(line).name.lower() for line in reqs.splitlines() if line and not line.startswith("#")}
    assert {"bentoml", "onnxruntime", "transformers", "tokenizers"} <= names
    assert "torch" not in names


def test_bento_openapi_matches_the_client_source_schema(built_bento):
    _, path = built_bento
    diff = regenerate.schema_diff(regenerate.committed_schema(), regenerate.schema_from_bento(path))
    assert not diff, "the bento's apis/openapi.yaml differs from clients/openapi.json (make client):\n" + "\n".join(
        diff[:80]
    )


def _locked(path: str) -> dict[str, str]:
    pins = {}
    for line in (ROOT / path).read_text().splitlines():
        if line and not line.startswith("#"):
            req = Requirement(line)
            (spec,) = req.specifier
            pins[canonicalize_name(req.name)] = spec.version
    return pins


@pytest.mark.parametrize("flavour", ["cpu", "gpu"])
def test_image_requirements_are_locked_from_pyproject(flavour):
    """requirements/serve*.txt (build/lock.sh) pin every serving dependency of pyproject.toml."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    if flavour == "cpu":
        wanted += [Requirement(r) for r in project["optional-dependencies"]["onnx"]]
        pins = _locked("requirements/serve.txt")
        assert "torch" not in pins and not any(n.startswith("nvidia-cu") for n in pins)
    else:
        wanted += [
            Requirement(r)
            for r in (ROOT / "requirements/serve-gpu.in").read_text().splitlines()
            if r.strip() and not r.startswith("#")
        ]
        pins = _locked("requirements/serve-gpu.txt")
        assert "onnxruntime" not in pins, "onnxruntime and onnxruntime-gpu install the same module"
        assert any(n.startswith("nvidia-cudnn") for n in pins)
    stale = [
        f"{r} (locked: {pins.get(canonicalize_name(r.name))})"
        for r in wanted
        if canonicalize_name(r.name) not in pins or pins[canonicalize_name(r.name)] not in r.specifier
    ]
    assert not stale, f"run build/lock.sh: {stale}"


def _image_tools_missing() -> str | None:
    if os.environ.get("ZSC_SKIP_IMAGE_TESTS"):
        return "ZSC_SKIP_IMAGE_TESTS is set"
    missing = [t for t in ("buildah", "podman", "runc") if shutil.which(t) is None]
    if missing:
        return f"{', '.join(missing)} missing (apt-get install buildah podman runc uidmap slirp4netns debootstrap)"
    if os.geteuid() != 0:
        return "the image build here needs root (image storage under /var/lib/containers, debootstrap)"
    return None


image_tools = pytest.mark.skipif(_image_tools_missing() is not None, reason=str(_image_tools_missing()))


def _podman(*args: str) -> subprocess.CompletedProcess:
    return _run(["podman", *args], smoke.engine_env("podman"), timeout=300)


@pytest.fixture(scope="module")
def image_cleanup():
    """Remove every image the tests below create (the local base image and older images stay)."""
    before = set(_podman("images", "-a", "-q", "--no-trunc").stdout.split())
    yield
    for tag in ("latest", "latest-nomodel"):
        _podman("rmi", "-f", f"{TEST_IMAGE}:{tag}")
    after = _podman("images", "-a", "-q", "--no-trunc").stdout.split()
    created = [i for i in after if i not in before]
    if created:
        _podman("rmi", "-f", *created)


def _build(built_bento, store_env, target: str) -> tuple[str, str]:
    tag, _ = built_bento
    env = {
        **store_env,
        "BENTO": tag,
        "IMAGE": TEST_IMAGE,
        "TARGET": target,
        "VENV_BIN": str(BIN),
        "ZSC_API_KEYS": SECRET,
    }
    result = _run(["build/image.sh", "cpu"], env, timeout=1500)
    assert result.returncode == 0, result.stderr[-4000:]
    return result.stdout.strip().splitlines()[-1], result.stderr


def _smoke(image: str, tmp_path, *extra: str) -> dict:
    out = tmp_path / "smoke.json"
    result = _run([sys.executable, "build/smoke.py", image, "--json", str(out), *extra], {}, timeout=900)
    summary = json.loads(out.read_text()) if out.exists() else {}
    assert result.returncode == 0 and summary.get("ok"), result.stdout[-4000:] + result.stderr[-2000:]
    return summary


@pytest.fixture(scope="module")
def image(built_bento, store_env, image_cleanup):
    """The CPU image, built once (the `service` target: the model baked in); (reference, build log)."""
    if reason := _image_tools_missing():
        pytest.skip(reason)
    return _build(built_bento, store_env, "service")


@image_tools
@pytest.mark.timeout(1800)
def test_cpu_image_builds_and_serves(image, tmp_path):
    """Served as deploy/k8s runs it: read-only root filesystem (a tmpfs on /tmp only), an API key. The key,
    exported during both builds, is in no layer of the image nor its config, nor in the container's log."""
    image, log = image
    summary = _smoke(image, tmp_path, "--read-only", "--api-key", SECRET)
    print(json.dumps(summary, indent=2), log.strip().splitlines()[-1])
    assert summary["read_only"] and summary["ok"]
    size, found = _search_saved_image(image, (SECRET.encode(), b"zsc-entrypoint"), tmp_path / "save.log")
    assert size > 100e6, "the archive holds the image's layers"
    assert SECRET.encode() not in found, "the API key is inside the image"
    assert b"zsc-entrypoint" in found, "the search finds what is in the image"
    assert summary["size_mb"] < 1500
    assert summary["uid"] != 0 and summary["pid1"].startswith("/usr/bin/tini")
    assert [c["top"] for c in summary["classify"]] == ["sports", "business", "technology", "财经"]
    assert summary["drain"]["request_status"] == 200 and summary["drain"]["exit_code"] == 0


def _search_saved_image(image: str, needles: tuple[bytes, ...], log, chunk: int = 64 * 2**20) -> tuple[int, set]:
    """``podman save`` of the image (a docker archive: every layer and the config), read as it streams rather
    than written to disk (a GB): its size, and which of the needles occur in it (the chunks overlap by the
    longest needle's length)."""
    cmd = ["podman", "save", "--format", "docker-archive", image]
    size, found, tail, overlap = 0, set(), b"", max(map(len, needles))
    with open(log, "wb") as err:
        proc = subprocess.Popen(cmd, cwd=ROOT, env=smoke.engine_env("podman"), stdout=subprocess.PIPE, stderr=err)
        with proc.stdout:
            while block := proc.stdout.read(chunk):
                size += len(block)
                window = tail + block
                found |= {n for n in needles if n in window}
                tail = window[-overlap:]
        rc = proc.wait(timeout=300)
    assert rc == 0, log.read_text(errors="replace")[-2000:]
    return size, found


@image_tools
@pytest.mark.timeout(1200)
def test_the_image_serves_a_mounted_store_when_it_has_no_model(image, store_env, tmp_path):
    """As TARGET=runtime runs (its stages are the image's without the last layer, the model): with the
    bento's own models hidden, the store mounted read-only at $BENTOML_HOME/models is what it serves."""
    image, _ = image
    store = tmp_path / "models"
    shutil.copytree(os.path.join(store_env["BENTOML_HOME"], "models"), store)
    subprocess.run(["chmod", "-R", "a+rX", str(store)], check=True)  # the container's uid 1000 reads it
    summary = _smoke(image, tmp_path, "--mount-models", str(store), "--hide-baked-models")
    assert summary["model"].startswith("multilingual-e5-small:")
