#!/usr/bin/env bash
# `bentoml build` the service (bentofile.yaml) after making sure the model it packs is in the store:
# the bundled all-minilm-l6-v2 unless ZSC_MODEL names another (imported before: zsc import-model).
# Prints the bento tag on stdout (last line).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
if [ -z "${ZSC_MODEL:-}" ]; then
  "$VENV_BIN/zsc" -q ensure-default >&2
fi
"$VENV_BIN/bentoml" build --output tag . | tail -1 | sed 's/^__tag__://'
