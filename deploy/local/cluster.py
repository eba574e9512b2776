#!/usr/bin/env python3
"""A local cluster on 127.0.0.1: redis-server, N ``bentoml serve`` replicas, nginx in front.

    python deploy/local/cluster.py up --replicas 3      # make cluster N=3
    python deploy/local/cluster.py status
    python deploy/local/cluster.py kill replica-2       # fault injection: SIGKILL every process of one member
    python deploy/local/cluster.py down                 # make cluster-down
    python deploy/local/cluster.py up -n 2 --cpus 0 --cpus 1 --front-cpus 1   # pin replica-1 to CPU 0, replica-2 to 1

State, logs and PID files go to the run directory (default ``run/cluster``: ``cluster.json`` has ports,
PIDs and URLs). The work is done by ``harness/cluster.py``; run this with the project's virtualenv Python
(``.venv/bin/python``).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: harness, service

from harness.cluster import DEFAULT_RUN_DIR, ClusterError, ClusterSpec, down, kill_member, status, up  # noqa: E402
from harness.cpus import CpuSetError  # noqa: E402


def say(msg: str) -> None:
    print(f"[cluster] {msg}", flush=True)


def _env_pairs(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--env wants KEY=VALUE, got {item!r}")
        out[key] = value
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--run-dir",
        type=Path,
        default=Path(os.environ.get("ZSC_CLUSTER_DIR") or DEFAULT_RUN_DIR),
        help="where state, logs and PID files go (default run/cluster)",
    )
    sub = parser.add_subparsers(dest="cmd", required=True)
    p_up = sub.add_parser("up", help="start redis, N replicas and nginx; return once all are ready")
    p_up.add_argument("--replicas", "-n", type=int, default=3)
    p_up.add_argument("--port", type=int, default=8080, help="nginx port (0 = any free port)")
    p_up.add_argument("--base-port", type=int, default=3001, help="first replica port (0 = free ports)")
    p_up.add_argument("--redis-port", type=int, default=6390, help="0 = any free port")
    p_up.add_argument("--no-redis", action="store_true", help="no redis-server, no ZSC_REDIS_URL")
    p_up.add_argument("--weights", help="nginx weight per replica, e.g. 4,1,1 (default all 1)")
    p_up.add_argument(
        "--threads",
        type=int,
        help="ZSC_CPU_THREADS per replica (default: size of its CPU set if pinned, else cores / replicas)",
    )
    p_up.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="extra env for replicas")
    p_up.add_argument("--ready-timeout", type=float, default=300)
    p_up.add_argument(
        "--cpus",
        action="append",
        default=[],
        metavar="LIST",
        help="pin replicas to CPU sets: one --cpus per replica in order (0, 0-1, 0,2), repeated cyclically; "
        "`--cpus auto` splits the available CPUs evenly (default: no pinning)",
    )
    p_up.add_argument("--front-cpus", metavar="LIST", help="pin nginx and redis-server to this CPU set")
    p_down = sub.add_parser("down", help="stop everything this run directory started")
    p_down.add_argument("--grace", type=float, default=30, help="seconds before SIGKILL")
    sub.add_parser("status", help="what is running and healthy")
    p_kill = sub.add_parser("kill", help="signal every process of one member (fault injection)")
    p_kill.add_argument("member", help="replica-N, nginx or redis")
    p_kill.add_argument("--signal", default="KILL", help="signal name (default KILL)")
    args = parser.parse_args(argv)

    try:
        if args.cmd == "up":
            spec = ClusterSpec(
                replicas=args.replicas,
                port=args.port,
                base_port=args.base_port,
                redis=not args.no_redis,
                redis_port=args.redis_port,
                weights=tuple(int(w) for w in args.weights.split(",")) if args.weights else None,
                env=_env_pairs(args.env),
                threads=args.threads,
                ready_timeout=args.ready_timeout,
                cpus=tuple(args.cpus),
                front_cpus=args.front_cpus,
            )
            up(args.run_dir, spec, say)
        elif args.cmd == "down":
            down(args.run_dir, args.grace, say=say)
        elif args.cmd == "status":
            return status(args.run_dir)
        elif args.cmd == "kill":
            sig = signal.Signals[f"SIG{args.signal.upper().removeprefix('SIG')}"]
            pids = kill_member(args.run_dir, args.member, sig)
            say(f"{sig.name} -> {args.member}: {' '.join(map(str, pids)) or 'no process found'}")
            return 0 if pids else 1
    except (ClusterError, CpuSetError) as e:
        say(f"error: {e}")
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
