#!/usr/bin/env bash
# Prints the storage.conf podman and buildah use here (build/lib.sh, build/smoke.py, the image tests), unless
# CONTAINERS_STORAGE_CONF is already set: storage-overlay.conf where root can mount overlay on the store's
# filesystem (an overlay mount tried in /var/lib/containers), storage.conf (vfs) everywhere else.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [ -n "${CONTAINERS_STORAGE_CONF:-}" ]; then
  echo "$CONTAINERS_STORAGE_CONF"
  exit 0
fi
overlay_mounts() {
  [ "$(id -u)" = 0 ] && grep -qw overlay /proc/filesystems 2>/dev/null || return 1
  mkdir -p /var/lib/containers 2>/dev/null || return 1
  local probe ok=1
  probe=$(mktemp -d /var/lib/containers/.overlay-probe.XXXXXX) || return 1
  mkdir "$probe/lower" "$probe/upper" "$probe/work" "$probe/merged"
  if mount -t overlay overlay -o "lowerdir=$probe/lower,upperdir=$probe/upper,workdir=$probe/work" "$probe/merged" 2>/dev/null; then
    umount "$probe/merged" && ok=0
  fi
  rm -rf "$probe"
  return $ok
}
if overlay_mounts; then echo "$here/storage-overlay.conf"; else echo "$here/storage.conf"; fi
