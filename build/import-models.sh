#!/usr/bin/env bash
# Build-time model import: the bundled default, plus any sources given as arguments
# (DIR | modelscope:ID | hf:ID), each optionally followed by `=name`.
#   build/import-models.sh modelscope:damo/nlp_structbert_zero-shot-classification_chinese-base=structbert-zh
set -euo pipefail
cd "$(dirname "$0")/.."
ZSC=${ZSC:-.venv/bin/zsc}
"$ZSC" ensure-default
for spec in "$@"; do
  source=${spec%%=*}
  name=${spec#*=}
  if [ "$name" = "$spec" ]; then
    "$ZSC" import-model "$source"
  else
    "$ZSC" import-model "$source" --name "$name"
  fi
done
"$ZSC" list-models
