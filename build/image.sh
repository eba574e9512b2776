#!/usr/bin/env bash
# Build the service's OCI image from a bento (docs/image.md).
#   build/image.sh [cpu|gpu]      flavour (default cpu)
# Environment:
#   BENTO=zero-shot-classifier:latest   the bento to package (make bento builds it)
#   IMAGE=zero-shot-classifier          image name; tags :<bento version>[-gpu] and :latest (cpu) / :gpu
#   TARGET=service | runtime            model baked in (default) | no model (mount a model store)
#   BASE_IMAGE=...                      default: the bentofile's docker.base_image with a Docker engine,
#                                       localhost/zsc-base:bookworm (build/base-image.sh) with buildah
#   ENGINE=docker|buildah               default: docker when a Docker engine answers, else buildah
# Prints the image reference on stdout (last line).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
FLAVOUR=${1:-${FLAVOUR:-cpu}}
case "$FLAVOUR" in cpu | gpu) ;; *) echo "flavour must be cpu or gpu, not $FLAVOUR" >&2; exit 2 ;; esac
BENTO=${BENTO:-zero-shot-classifier:latest}
IMAGE=${IMAGE:-zero-shot-classifier}
TARGET=${TARGET:-service}
BENTOML=${BENTOML:-$VENV_BIN/bentoml}

bento_path=$("$VENV_BIN/python" -c 'import sys, bentoml; print(bentoml.get(sys.argv[1]).path)' "$BENTO" 2>/dev/null) || {
  echo "no bento $BENTO in ${BENTOML_HOME:-~/bentoml}: run make bento (build/bento.sh) first" >&2
  exit 2
}
version=$(basename "$bento_path")
if [ -z "${BASE_IMAGE:-}" ]; then
  if [ "$ENGINE" = docker ]; then
    BASE_IMAGE=$("$VENV_BIN/python" -c 'import sys, yaml; print(yaml.safe_load(open(sys.argv[1]))["image"]["base_image"])' "$bento_path/bento.yaml")
  else
    BASE_IMAGE=$LOCAL_BASE_IMAGE
    image_exists "$BASE_IMAGE" || "$BUILD_DIR/base-image.sh" "$BASE_IMAGE"
  fi
fi
suffix=$([ "$FLAVOUR" = gpu ] && echo "-gpu" || true)
[ "$TARGET" = runtime ] && suffix="$suffix-nomodel"
moving=$([ "$FLAVOUR" = gpu ] && echo gpu || echo latest)
[ "$TARGET" = runtime ] && moving="$moving-nomodel"
ref="$IMAGE:$version$suffix"

# build context: the bento with its models (what `bentoml export` writes), plus our two files
ctx=$(mktemp -d /var/tmp/zsc-image-ctx.XXXXXX)
trap 'rm -rf "$ctx"' EXIT
start=$(date +%s)
log "exporting $BENTO ($version) with its models"
"$BENTOML" export "$BENTO" "$ctx/bento.tar" >/dev/null
mkdir "$ctx/bento"
tar -xf "$ctx/bento.tar" -C "$ctx/bento" && rm "$ctx/bento.tar"
if [ -d "$ctx/bento/models" ]; then mv "$ctx/bento/models" "$ctx/models"; else mkdir "$ctx/models"; fi
if [ "$FLAVOUR" = cpu ]; then
  # the CPU image has no torch: it serves a model's ONNX export, so the torch weights of a model that has
  # one are dead weight (multilingual-e5-small: 225 MB of 520)
  find "$ctx/models" -name model.onnx -path '*/onnx/*' | while read -r graph; do
    dir=$(dirname "$(dirname "$graph")")
    rm -f "$dir"/*.safetensors "$dir"/pytorch_model.bin
    log "dropped torch weights of $(basename "$(dirname "$dir")") (served from its ONNX export)"
  done
fi
cp "$ROOT/requirements/serve-gpu.txt" "$ctx/requirements-gpu.txt"
cp "$BUILD_DIR/entrypoint.sh" "$ctx/zsc-entrypoint.sh"
# COPY keeps modes: everything readable (the model store writes 0700 directories), the entrypoint executable
chmod -R u+rwX,go+rX,go-w "$ctx" && chmod 0755 "$ctx/zsc-entrypoint.sh"
requirements=$([ "$FLAVOUR" = gpu ] && echo requirements-gpu.txt || echo bento/env/python/requirements.txt)
args=(--file "$BUILD_DIR/Containerfile" --target "$TARGET"
  --build-arg "BASE_IMAGE=$BASE_IMAGE" --build-arg "FLAVOUR=$FLAVOUR" --build-arg "REQUIREMENTS=$requirements"
  --tag "$ref" --tag "$IMAGE:$moving")
log "building $ref ($FLAVOUR, target $TARGET) FROM $BASE_IMAGE with $ENGINE"
if [ "$ENGINE" = docker ]; then
  docker build "${args[@]}" "$ctx" >&2
else
  # behind a TLS-inspecting proxy the build's pip needs this machine's CA bundle
  ca=/etc/ssl/certs/ca-certificates.crt
  [ -f "$ca" ] && args+=(--volume "$ca:$ca:ro" --build-arg "PIP_INSTALL_OPTS=--cert $ca")
  buildah bud --layers --pull-never --isolation chroot "${args[@]}" "$ctx" >&2
fi
size=$(if [ "$ENGINE" = docker ]; then docker image inspect --format '{{.Size}}' "$ref"; else podman image inspect --format '{{.Size}}' "$ref"; fi)
log "built $ref in $(( $(date +%s) - start )) s, $(( size / 1000000 )) MB"
echo "$ref"
