#!/usr/bin/env bash
# slow-client figures for docs/reliability.md: base direct, head direct, head via the shipped nginx
set -u
OUT=/work/main/results/slow-clients-20261202
mkdir -p $OUT/logs
PY=/work/main/.venv/bin/python
BML=/work/main/.venv/bin/bentoml
export BENTOML_DO_NOT_TRACK=True
serve() {  # a checkout dir, a port, a log (cd $1 && exec setsid $BML serve service.http.app:ZeroShotClassifier --host 127.0.0.1 --port $2 > $3 2>&1) & sleep 1; }
ready() { for i in $(seq 1 300); do curl -sf localhost:$1/readyz >/dev/null && return 0; sleep 1; done; return 1; }
stop() { pkill -TERM -f "port $1" ; sleep 5; pkill -KILL -f "port $1"; sleep 1; }
serve /work/wt-base 3201 $OUT/logs/base.log; ready 3201 && $PY -m loadtest.slow_clients --url http://127.0.0.1:3201 --settle-s 15 --out $OUT/base-direct.json; stop 3201
serve /work/main 3202 $OUT/logs/head.log; ready 3202 && $PY -m loadtest.slow_clients --url http://127.0.0.1:3202 --settle-s 15 --out $OUT/head-direct.json
cd /work/main && $PY - <<'PY'
import subprocess, sys
from pathlib import Path
from harness.launchers import nginx, write_nginx_conf
from harness.net import free_port
from harness.process import running
out = Path("/work/main/results/slow-clients-20261202")
port = free_port()
conf = write_nginx_conf(out / "logs" / "nginx", port, [3202], [1])
with running(nginx("nginx", conf, port), 30) as m:
    subprocess.run([sys.executable, "-m", "loadtest.slow_clients", "--url", m.url, "--metrics-url", "http://127.0.0.1:3202",
                    "--settle-s", "15", "--out", str(out / "head-nginx.json")], check=True)
PY
stop 3202
echo done
