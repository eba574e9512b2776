"""Load-test comparison: Locust against the naive baseline, one replica and N replicas behind nginx,
cache off and on, step load over user counts; writes a report with tables and charts. One command:

    make loadtest          # full run, about 10 minutes on 2 cores -> results/<time>/report.md
    make loadtest-smoke    # about 1.5 minutes (CI): a few users, 10 s per target
    .venv/bin/python -m loadtest.compare --help

For each target in turn (never two at once): start it (the naive server, or redis + replicas + nginx through
``harness.cluster``) pinned to its CPU set, warm it up, run Locust headless once per user count
(``--headless -u N -r N --run-time S --csv ...``, Locust pinned to its own CPU set), stop it. Every step is
bounded by ``--step-s`` (and a hard timeout); once a step is saturated (p95 over ``--stop-p95-s`` or more
than ``--stop-failures`` failed), the larger user counts of that target are skipped. Everything listens on
127.0.0.1.

Output, under ``results/<run>/``: ``report.md``, ``throughput.png``, ``latency.png``,
``summary.csv`` (one row per target and user count), ``results.json``, Locust's own CSVs in
``csv/<target>/``; logs in ``logs/`` (not committed).

Modules: ``plan`` (targets, user counts, CPU placement), ``run`` (processes and Locust steps), ``results``
(typed results and results.json), ``report`` (markdown, charts, CSV), ``__main__`` (the command line).
"""
