#!/usr/bin/env bash
# `bentoml build` the service (bentofile.yaml) after making sure the models it packs are in the store:
# the bundled multilingual-e5-small unless ZSC_MODELS (several: the image serves them all) or ZSC_MODEL
# names others (a bundled one is imported when missing; any other must be imported before: zsc import-model).
# Prints the bento tag on stdout (last line).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$ROOT"
"$VENV_BIN/zsc" -q ensure-default >&2
"$VENV_BIN/bentoml" build --output tag . | tail -1 | sed 's/^__tag__://'
