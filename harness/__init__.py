"""The tooling layer: one way to start, probe, measure and stop the processes that tests, benchmarks, load
tests, the local cluster and the image smoke test drive. Never imported by the product (``service/``), never
shipped in the image (bentofile.yaml includes ``service/`` only).

- ``process``: a member description (command, environment, CPU set, readiness probe, log) and the running
  handle: start, wait until ready, stop the whole process tree (psutil); one-shot commands; CPU accounting.
- ``launchers``: members for ``bentoml serve``, redis-server, nginx and the naive baseline server.
- ``cluster``: redis-server + N replicas + nginx on loopback, state in ``cluster.json`` (``make cluster``).
- ``net``, ``cpus``: free ports; CPU-set parsing and splitting, validated.
- ``metrics``: ``/metrics`` read with ``prometheus_client``'s own parser.
- ``store``: the BentoML model store through BentoML's public API.
- ``machine``, ``report``, ``progress``: machine and version facts, markdown tables and charts, progress lines.
"""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
