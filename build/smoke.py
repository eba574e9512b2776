#!/usr/bin/env python3
"""Smoke-test a built image with podman (or docker): size, non-root, PID 1, /readyz, /classify, a calibrated
predicate (/v1/decisions), graceful drain.

    build/smoke.py [IMAGE] [--max-size-mb 1500] [--mount-models DIR [--hide-baked-models]] [--read-only]
                   [--api-key KEY] [--json OUT]

Runs the image in the foreground (a harness member whose readiness probe is ``/readyz``) on a free loopback
port, checks that ``/classify`` ranks obvious labels first, then sends a slow request and stops the
container (SIGTERM) while it runs: the request must still get its answer and the container must exit 0
well before the stop timeout. Prints a JSON summary and exits 1 on the first failed check. Run it with the
project's virtualenv Python.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: harness

from harness.launchers import http_probe  # noqa: E402
from harness.net import HOST, free_port  # noqa: E402
from harness.process import HarnessError, Member, run_command, start  # noqa: E402

BUILD = Path(__file__).resolve().parent
CASES = [
    ("The striker scored twice in the cup final", ["sports", "business", "technology"], "sports"),
    ("Shares fell 5% after the quarterly earnings call", ["sports", "business", "technology"], "business"),
    ("The new phone ships with a faster chip and more memory", ["sports", "business", "technology"], "technology"),
    ("央行宣布下调存款准备金率，股市应声大涨", ["体育", "财经", "科技"], "财经"),  # the default model is multilingual
]


class SmokeError(AssertionError):
    pass


def engine_env(runner: str) -> dict[str, str]:
    env = dict(os.environ)
    if runner == "podman":
        env.setdefault("CONTAINERS_CONF", str(BUILD / "containers" / "containers.conf"))
        if os.geteuid() == 0:
            env["CONTAINERS_STORAGE_CONF"] = storage_conf()
    return env


def storage_conf() -> str:
    """The storage.conf build/*.sh use (build/containers/storage-conf.sh: overlay where it mounts, else vfs)."""
    script = BUILD / "containers" / "storage-conf.sh"
    return subprocess.run([str(script)], capture_output=True, text=True, check=True).stdout.strip()


def sh(runner: str, *args: str, check: bool = True, timeout: float = 120):
    try:
        return run_command([runner, *args], engine_env(runner), timeout, check=check, what=f"{runner} {args[0]}")
    except HarnessError as e:
        raise SmokeError(str(e)[-2500:]) from None


HEADERS: dict[str, str] = {}  # the bearer key when --api-key is given


def http(method: str, url: str, body: object | None = None, timeout: float = 60) -> tuple[int, object]:
    resp = httpx.request(method, url, json=body, timeout=timeout, headers=HEADERS)
    try:
        return resp.status_code, resp.json()
    except ValueError:
        return resp.status_code, resp.text


def check(cond: bool, message: str) -> None:
    if not cond:
        raise SmokeError(message)


def calibrated_predicate(url: str, model: str) -> dict[str, float]:
    """A predicate through POST /v1/decisions is answered with the model's fitted calibration, packed with the
    service (service/core/predicate_calibration.json): its probability is not the uncalibrated pairwise score
    that /classify gives the same statement as its only label."""
    text, statement = CASES[0][0], "This text is about sports."
    body = {"model": model, "input": text, "questions": [{"type": "predicate", "instructions": statement}]}
    status, out = http("POST", url + "/v1/decisions", body)
    check(status == 200, f"/v1/decisions answered {status}: {out}")
    probability = out["answers"][0]["probability"]
    label = {"name": "s", "hypothesis": statement}
    status, raw = http("POST", url + "/classify", {"text": text, "labels": [label], "truncation": "chunk"})
    check(status == 200, f"/classify answered {status}: {raw}")
    check(abs(probability - raw["scores"][0]) > 1e-3, f"the predicate is uncalibrated ({probability}): not packed?")
    return {"probability": round(probability, 4), "uncalibrated": round(raw["scores"][0], 4)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("image", nargs="?", default="zero-shot-classifier:latest")
    p.add_argument("--runner", default=os.environ.get("RUNNER") or ("podman" if shutil.which("podman") else "docker"))
    p.add_argument("--max-size-mb", type=float, default=1500, help="fail when the image is larger (decimal MB)")
    p.add_argument("--ready-timeout", type=float, default=300)
    p.add_argument("--stop-timeout", type=int, default=30, help="seconds podman stop waits before SIGKILL")
    p.add_argument("--mount-models", help="a model store directory to mount at $BENTOML_HOME/models (read-only)")
    p.add_argument(
        "--hide-baked-models",
        action="store_true",
        help="an empty folder over the bento's own models, so the image serves the mounted store as the "
        "runtime target (TARGET=runtime, no model inside) does",
    )
    p.add_argument("--env", action="append", default=[], help="KEY=VALUE for the container (repeatable)")
    p.add_argument("--api-key", help="send this bearer key (the container runs with it in ZSC_API_KEYS)")
    p.add_argument(
        "--read-only",
        action="store_true",
        help="a read-only root filesystem with a tmpfs on /tmp only, as deploy/k8s runs it (readOnlyRootFilesystem)",
    )
    p.add_argument("--keep", action="store_true", help="leave the container running (no drain check)")
    p.add_argument("--json", help="also write the summary here")
    p.add_argument("--log", help="the container's output (default /tmp/<container name>.log)")
    args = p.parse_args(argv)
    runner = args.runner
    summary: dict[str, object] = {"image": args.image, "runner": runner}
    cid = f"zsc-smoke-{uuid.uuid4().hex[:12]}"
    container = None
    try:
        size = int(sh(runner, "image", "inspect", "--format", "{{.Size}}", args.image).stdout.strip())
        summary["size_mb"] = round(size / 1e6)
        check(size / 1e6 < args.max_size_mb, f"image is {size / 1e6:.0f} MB, over {args.max_size_mb:.0f} MB")
        user = sh(runner, "image", "inspect", "--format", "{{.Config.User}}", args.image).stdout.strip()
        summary["user"] = user
        check(user not in ("", "0", "root") and not user.startswith(("0:", "root:")), f"image runs as root ({user!r})")

        port = free_port()
        run = ["run", "--name", cid, "-p", f"{HOST}:{port}:3000"]
        for kv in args.env:
            run += ["-e", kv]
        if args.api_key:
            run += ["-e", f"ZSC_API_KEYS={args.api_key}"]
            HEADERS["Authorization"] = f"Bearer {args.api_key}"
        if args.read_only:  # only /tmp writable (podman's own tmpfs on /run and /var/tmp off)
            run += ["--read-only", *(["--read-only-tmpfs=false"] if runner == "podman" else [])]
            run += ["--tmpfs", "/tmp:rw,mode=1777,size=512m"]  # noqa: S108 (inside the container)
        summary["read_only"] = args.read_only
        if args.mount_models:
            run += ["-v", f"{Path(args.mount_models).resolve()}:/home/bentoml/models:ro"]
        if args.hide_baked_models:  # BentoML serves a bento's own models/ when it is not empty
            run += ["--tmpfs", "/home/bentoml/bento/models:ro,mode=0755"]
        url = f"http://{HOST}:{port}"
        # in the foreground: the container's output goes to the log, and it ends when the container does
        member = Member(
            name="container",
            cmd=[runner, *run, args.image],
            log=Path(args.log or Path(tempfile.gettempdir()) / f"{cid}.log"),
            env=engine_env(runner),
            probe=http_probe(url, timeout=5),
            port=port,
            url=url,
        )
        container = start(member)
        summary["container"] = cid
        try:
            container.wait_ready(args.ready_timeout, poll_s=1)
        except HarnessError as e:
            raise SmokeError(f"container did not answer /readyz: {str(e)[-1500:]}") from None
        summary["ready_s"] = round(container.ready_s, 1)

        answers = []
        for text, labels, expected in CASES:
            status, out = http("POST", url + "/classify", {"text": text, "labels": labels})
            check(status == 200, f"/classify answered {status}: {out}")
            check(out["labels"][0] == expected, f"{text!r}: expected {expected} first, got {out}")
            check(abs(sum(out["scores"]) - 1) < 1e-3, f"single-label scores must sum to 1: {out}")
            answers.append({"text": text, "top": out["labels"][0], "score": round(out["scores"][0], 4)})
        summary["classify"] = answers
        summary["model"] = out["model"]
        status, out = http("POST", url + "/classify", {"text": "", "labels": ["a"]})
        check(status == 400, f"an empty text must get 400, got {status}")
        summary["predicate"] = calibrated_predicate(url, str(summary["model"]))
        status, page = http("GET", url + "/ui/")
        check(status == 200 and "Zero-shot classifier" in str(page), f"/ui/ answered {status}: the page is not packed")
        status, job = http("POST", url + "/jobs", {"texts": [CASES[0][0]], "labels": CASES[0][1]})
        check(status == 202, f"POST /jobs answered {status}: {job}")
        for _ in range(100):
            status, state = http("GET", f"{url}/jobs/{job['id']}")
            if state.get("state") == "done":
                break
            time.sleep(0.2)
        check(state.get("state") == "done", f"a one-item job did not finish: {state}")
        summary["job"] = {"id": job["id"], "items_per_s": state.get("items_per_s")}

        uid = sh(runner, "exec", cid, "id", "-u").stdout.strip()
        pid1 = sh(runner, "exec", cid, "cat", "/proc/1/cmdline").stdout.replace("\0", " ").strip()
        summary["uid"], summary["pid1"] = int(uid), pid1
        check(uid != "0", "the service runs as root")
        check("tini" in pid1.split()[0] or pid1.startswith("bentoml"), f"PID 1 is {pid1!r}")
        flavour = sh(runner, "exec", cid, "sh", "-c", "echo $ZSC_IMAGE_FLAVOUR").stdout.strip()
        if flavour == "cpu":
            torch = sh(runner, "exec", cid, "python", "-c", "import torch", check=False)
            check(torch.returncode != 0, "the CPU image contains torch")
        summary["flavour"] = flavour

        if args.keep:
            summary["url"] = url
        else:
            # graceful drain: a request in flight when SIGTERM arrives still gets its answer (64 texts of
            # ~256 tokens: ~4 s on 2 cores, still well over the 0.3 s head start on a large machine)
            long_text = "The striker scored twice in the cup final while the crowd sang and the manager watched. " * 13
            items = [{"text": f"{i} {long_text}", "labels": ["sports", "business", "technology"]} for i in range(64)]
            result: dict[str, object] = {}

            def slow() -> None:
                t = time.monotonic()
                try:
                    result["status"], _ = http("POST", url + "/classify_batch", {"items": items}, timeout=120)
                except httpx.HTTPError as e:
                    result["status"] = repr(e)
                result["seconds"] = round(time.monotonic() - t, 2)

            thread = threading.Thread(target=slow)
            thread.start()
            time.sleep(0.3)
            in_flight = thread.is_alive()
            t_stop = time.monotonic()
            sh(runner, "stop", "-t", str(args.stop_timeout), cid, timeout=args.stop_timeout + 60)
            stop_s = time.monotonic() - t_stop
            thread.join(130)
            exit_code = container.wait(60)  # `run` in the foreground exits with the container's code
            summary["drain"] = {
                "in_flight_at_sigterm": in_flight,
                "request_status": result.get("status"),
                "request_s": result.get("seconds"),
                "stop_s": round(stop_s, 1),
                "exit_code": exit_code,
            }
            check(in_flight, "the slow request finished before SIGTERM: drain not exercised")
            check(result.get("status") == 200, f"the in-flight request got {result.get('status')} during shutdown")
            check(stop_s < args.stop_timeout - 1, f"stop took {stop_s:.0f} s: SIGTERM was not handled")
            check(exit_code in (0, 143), f"the container exited with {exit_code} after SIGTERM")
        if args.api_key:
            logged = member.log.read_text(errors="replace")
            check(args.api_key not in logged, "the API key appears in the container's log")
        summary["ok"] = True
    except SmokeError as e:
        summary["ok"] = False
        summary["error"] = str(e)
        if container is not None:
            summary["logs_tail"] = container.log_tail()
    finally:
        if container is not None and not (args.keep and summary.get("ok")):
            sh(runner, "rm", "-f", "-t", "0", cid, check=False)
            container.stop(grace=5)
    text = json.dumps(summary, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0 if summary["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
