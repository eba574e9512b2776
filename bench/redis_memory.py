"""Redis memory per cached row, for sizing the cache tier (docs/capacity.md).

    .venv/bin/python -m bench.redis_memory            # 200,000 rows of each kind, ~10 s

Writes rows exactly as the service's Redis tier does (service/cache.py: key ``zsc:<revision>:<kind>:<blake2b>``,
value the float32 row, a TTL) into a fresh redis-server: NLI rows (one (text, hypothesis) pair: 3 logits)
and embedding rows (one text or label: 384 floats, MiniLM and e5-small). Reports ``used_memory`` per row,
measured, and per million rows.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import numpy as np
import redis

from harness.launchers import redis_server
from harness.net import HOST, free_port
from harness.process import running
from harness.progress import say
from service.pipeline.cache import cache_key

KINDS = {"nli": 3, "embedding": 384}  # floats per row
REVISION = "sha256:bcfe46d679df602d"  # the shape of a real revision
TTL_S = 7 * 24 * 3600


def measure(client: redis.Redis, kind: str, width: int, rows: int, batch: int = 2000) -> float:
    """Bytes of used_memory per row of this kind."""
    client.flushall()
    before = client.info("memory")["used_memory"]
    rng = np.random.default_rng(0)
    for start in range(0, rows, batch):
        pipe = client.pipeline(transaction=False)
        for i in range(start, min(rows, start + batch)):
            seq = (f"text {i}", f"This example is label {i % 50}.") if kind == "nli" else (f"query: text {i}", None)
            row = rng.standard_normal(width).astype(np.float32)
            pipe.set(cache_key("zsc", REVISION, kind, seq), row.tobytes(), ex=TTL_S)
        pipe.execute()
    return (client.info("memory")["used_memory"] - before) / rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    port = free_port()
    out = {}
    with tempfile.TemporaryDirectory() as tmp, running(redis_server("redis", port, Path(tmp), maxmemory=None)):
        client = redis.Redis(host=HOST, port=port)
        out["redis_version"] = client.info("server")["redis_version"]
        for kind, width in KINDS.items():
            per_row = measure(client, kind, width, args.rows)
            out[kind] = {
                "floats": width,
                "bytes_per_row": round(per_row, 1),
                "mib_per_million": round(per_row / 2**20 * 1e6),
            }
            say(f"{kind}: {per_row:.0f} bytes per row, {per_row * 1e6 / 2**20:,.0f} MiB per million rows")
    print(json.dumps(out, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
