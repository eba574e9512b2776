# Sourced by build/*.sh: repository root, container engine choice and its configuration.
# ENGINE=docker|buildah forces one; otherwise docker when a Docker engine answers, else buildah + podman.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR="$ROOT/build"
if [ -z "${ENGINE:-}" ]; then
  if command -v docker >/dev/null 2>&1 && docker info >/dev/null 2>&1; then ENGINE=docker; else ENGINE=buildah; fi
fi
if [ "$ENGINE" = buildah ]; then
  export CONTAINERS_CONF=${CONTAINERS_CONF:-$BUILD_DIR/containers/containers.conf}
  if [ "$(id -u)" = 0 ]; then
    CONTAINERS_STORAGE_CONF=$("$BUILD_DIR/containers/storage-conf.sh")  # overlay where it mounts, else vfs
    export CONTAINERS_STORAGE_CONF
  fi
  RUNNER=podman
else
  RUNNER=docker
fi
# The model and bento store is BentoML's usual one ($BENTOML_HOME, default ~/bentoml), as for `make serve`.
export BENTOML_DO_NOT_TRACK=True
VENV_BIN=${VENV_BIN:-$ROOT/.venv/bin}
LOCAL_BASE_IMAGE=${LOCAL_BASE_IMAGE:-localhost/zsc-base:bookworm}

image_exists() {
  if [ "$ENGINE" = docker ]; then docker image inspect "$1" >/dev/null 2>&1; else buildah inspect --type image "$1" >/dev/null 2>&1; fi
}
log() { printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
