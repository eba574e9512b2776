#!/bin/sh
# The image's entrypoint, run under tini. Configuration comes from the environment only (ZSC_*, BENTOML_*):
#   (no arguments) or options  -> bentoml serve $BENTO_PATH on 0.0.0.0:3000 (BENTOML_HOST / BENTOML_PORT
#                                 override) with the options appended, e.g. `--workers 2`
#   any other command          -> run it (e.g. `bash`, `python -c ...`)
set -e
if [ "$#" -eq 0 ] || [ "${1#-}" != "$1" ]; then
  # `exec`: bentoml replaces this shell, so tini's SIGTERM reaches it directly
  exec bentoml serve "$BENTO_PATH" --host "${BENTOML_HOST:-0.0.0.0}" --port "${BENTOML_PORT:-3000}" "$@"
fi
exec "$@"
