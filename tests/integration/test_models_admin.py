"""Models changed while a real replica serves: a new revision swapped in under a steady stream of requests
(none fails, the answers move to the new revision), a model loaded and unloaded (its memory given back),
admin keys apart from data keys, and the models file followed when it changes."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from tests.support.server import KEYS, bento_server, run_cli

ADMIN = "zsc-admin-key-7a11e0"
DATA = KEYS[0]


def tag_of(result) -> str:
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1].split('"tag": "')[1].split('"')[0]


@pytest.fixture(scope="module")
def versions(tiny_models, tiny_checkpoints):
    """Two versions of one model in the store: (tag r1, tag r2)."""
    path = str(tiny_checkpoints["hf"][0])
    args = ["import-model", path, "--name", "tiny-swap", "--no-onnx", "--no-verify"]
    return tuple(tag_of(run_cli([*args, "--revision", r], tiny_models)) for r in ("r1", "r2"))


@pytest.fixture(scope="module")
def admin_server(tiny_models, versions, tmp_path_factory):
    work = tmp_path_factory.mktemp("admin")
    models_file = work / "models"
    models_file.write_text(f"{versions[0]}\n")
    env = {
        **tiny_models,
        "ZSC_MODEL": versions[0],
        "ZSC_RUNTIME": "torch",
        "ZSC_API_KEYS": DATA,
        "ZSC_ADMIN_KEYS": ADMIN,
        "ZSC_MODELS_FILE": str(models_file),
    }
    with bento_server(env, work / "server.log") as url:
        yield url, models_file


def admin(url: str, method: str, path: str, key: str | None = ADMIN, **kwargs) -> httpx.Response:
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    return httpx.request(method, f"{url}{path}", headers=headers, timeout=120, **kwargs)


def classify(url: str, i: int) -> httpx.Response:
    body = {"text": f"my parcel {i} is late", "labels": ["billing", "shipping", "praise"]}
    return httpx.post(f"{url}/classify", json=body, headers={"Authorization": f"Bearer {DATA}"}, timeout=60)


def served(url: str) -> list[dict]:
    return admin(url, "GET", "/models", key=DATA).json()["models"]


def serving(admin_server, tags: list[str]) -> str:
    """Bring the replica to serve ``tags`` (the default first) through its models file, whatever an earlier
    test left: each test starts from the state it names. Returns the url."""
    url, models_file = admin_server

    def now() -> list[str]:
        models = served(url)
        return (
            [m["tag"] if ":" in tag else m["name"] for m, tag in zip(models, tags)] if len(models) == len(tags) else []
        )

    if now() == tags:
        return url  # written only when needed: a write the follower reads after the test's own change undoes it
    models_file.write_text(f"# {time.time_ns()}\n" + "".join(f"{tag}\n" for tag in tags))
    deadline = time.monotonic() + 60
    while now() != tags:
        assert time.monotonic() < deadline, served(url)
        time.sleep(0.2)
    return url


def test_only_an_admin_key_may_change_the_models(admin_server, versions):
    url = serving(admin_server, [versions[0]])
    body = {"json": {"model": versions[1]}}
    assert admin(url, "POST", "/admin/models", key=None, **body).status_code == 401
    wrong = admin(url, "POST", "/admin/models", key="zsc-not-a-key", **body)
    assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
    data = admin(url, "POST", "/admin/models", key=DATA, **body)
    assert data.status_code == 403 and data.json()["error_type"] == "forbidden" and "ZSC_ADMIN_KEYS" in data.text
    assert admin(url, "POST", "/classify", key=ADMIN, json={"text": "x", "labels": ["a"]}).status_code == 401
    assert [m["tag"] for m in served(url)] == [versions[0]]
    missing = admin(url, "POST", "/admin/models", json={"model": "no-such-model"})
    assert missing.status_code == 404 and "not in the model store" in missing.json()["error"]
    assert admin(url, "POST", "/admin/models", json={"nope": 1}).status_code == 400


def test_a_new_revision_replaces_the_old_under_a_steady_stream(admin_server, versions):
    url = serving(admin_server, [versions[0]])
    outcomes: list[tuple[float, int, str]] = []
    stop = threading.Event()

    def stream(worker: int) -> None:
        i = 0
        while not stop.is_set():
            r = classify(url, worker * 100_000 + i)
            outcomes.append((time.monotonic(), r.status_code, r.json().get("revision", r.text[:200])))
            i += 1

    threads = [threading.Thread(target=stream, args=(w,)) for w in range(4)]

    def answered(after: float) -> int:
        return sum(1 for at, _, _ in list(outcomes) if at > after)

    def wait_for(count: int, after: float) -> None:
        deadline = time.monotonic() + 30
        while answered(after) < count and time.monotonic() < deadline:
            time.sleep(0.05)

    for t in threads:
        t.start()
    wait_for(20, after=0.0)  # a steady stream on the old revision
    swap = admin(url, "POST", "/admin/models", json={"model": versions[1]})
    swapped_at = time.monotonic()
    wait_for(20, after=swapped_at + 0.2)  # and on, well after the swap
    stop.set()
    for t in threads:
        t.join()
    assert swap.status_code == 200, swap.text
    assert swap.json()["changed"] and swap.json()["replaced"] == versions[0]
    assert [code for _, code, _ in outcomes if code != 200] == [], "a request failed during the swap"
    assert {rev for _, _, rev in outcomes} == {"r1", "r2"}
    assert {rev for at, _, rev in outcomes if at > swapped_at + 0.2} == {"r2"}  # new requests: the new revision
    assert [m["tag"] for m in served(url)] == [versions[1]]
    again = admin(url, "POST", "/admin/models", json={"model": versions[1]})
    assert again.status_code == 200 and not again.json()["changed"]


def test_a_model_loaded_then_unloaded_gives_its_memory_back(admin_server, versions):
    url = serving(admin_server, [versions[1]])
    loaded = admin(url, "POST", "/admin/models", json={"model": "multilingual-e5-small"})
    assert loaded.status_code == 200, loaded.text
    e5 = loaded.json()["model"]
    assert e5["name"] == "multilingual-e5-small" and not e5["default"] and e5["memory_mb"] > 150
    answer = httpx.post(
        f"{url}/classify",
        json={"text": "央行宣布下调存款准备金率", "labels": "体育，财经", "model": "multilingual-e5-small"},
        headers={"Authorization": f"Bearer {DATA}"},
        timeout=60,
    ).json()
    assert answer["labels"][0] == "财经"
    gone = admin(url, "DELETE", "/admin/models/multilingual-e5-small")
    assert gone.status_code == 200, gone.text
    assert gone.json()["memory_freed_mb"] > 100, gone.json()  # most of what it took
    assert [m["name"] for m in served(url)] == ["tiny-swap"]
    last = admin(url, "DELETE", "/admin/models/tiny-swap")
    assert last.status_code == 409 and last.json()["error_type"] == "last_model"


def test_the_models_file_is_followed_when_it_changes(admin_server, versions):
    url, models_file = admin_server
    models_file.write_text("# the default first\ntiny-ms\ntiny-swap\n")
    deadline = time.monotonic() + 60
    while [m["name"] for m in served(url)] != ["tiny-ms", "tiny-swap"]:
        assert time.monotonic() < deadline, served(url)
        time.sleep(0.5)
    assert served(url)[0]["default"] and served(url)[1]["tag"] == versions[1]  # a name: its latest version
    assert classify(url, 1).json()["model"].startswith("tiny-ms:")
