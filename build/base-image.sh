#!/usr/bin/env bash
# Build the local base image (no registry needed): Debian 12 minbase + Python 3.11 + venv + CA certificates
# + tini, bootstrapped from this machine's own apt source. ~140 MB.
#   build/base-image.sh [TAG]          (default localhost/zsc-base:bookworm; FORCE=1 rebuilds)
# Needs root, debootstrap and buildah. With a registry at hand, python:3.11-slim-bookworm does the same job.
set -euo pipefail
source "$(dirname "$0")/lib.sh"
TAG=${1:-$LOCAL_BASE_IMAGE}
if [ "$ENGINE" != buildah ]; then
  echo "base-image.sh builds with buildah (ENGINE=$ENGINE): with Docker use BASE_IMAGE=python:3.11-slim-bookworm" >&2
  exit 2
fi
if image_exists "$TAG" && [ -z "${FORCE:-}" ]; then
  log "base image $TAG exists (FORCE=1 rebuilds)"
  exit 0
fi
for tool in debootstrap buildah; do
  command -v "$tool" >/dev/null || { echo "need $tool (apt-get install $tool)" >&2; exit 2; }
done
MIRROR=${DEBIAN_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
rootfs=$(mktemp -d /var/tmp/zsc-rootfs.XXXXXX)
container=""
cleanup() {
  [ -n "$container" ] && buildah rm "$container" >/dev/null 2>&1 || true
  rm -rf --one-file-system "$rootfs"
}
trap cleanup EXIT
start=$(date +%s)
log "debootstrap bookworm from $MIRROR"
debootstrap --variant=minbase --include=python3,python3-venv,ca-certificates,tini bookworm "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1 \
  || { tail -20 "$rootfs.log" >&2; exit 1; }
rm -f "$rootfs.log"
# what an image does not need: package caches and lists (apt-get update restores them), docs, locales
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/lib/apt/lists/* \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log
find "$rootfs"/usr/share/locale -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} +
container=$(buildah from scratch)
mnt=$(buildah mount "$container")
cp -a "$rootfs"/. "$mnt"/
buildah umount "$container" >/dev/null
buildah config --env LANG=C.UTF-8 --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --cmd /bin/bash --label org.opencontainers.image.description="Debian 12 minbase, Python 3.11, tini" "$container"
buildah commit --quiet --rm "$container" "$TAG" >/dev/null
container=""
log "built $TAG in $(( $(date +%s) - start )) s: $(( $(podman image inspect --format '{{.Size}}' "$TAG") / 1000000 )) MB"
