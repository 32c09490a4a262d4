#!/bin/bash
# raidsim tests: a real ext4 file system on every RAID level.
#
# For RAID 0 (2 members of unequal size, so 2 zones), RAID 1 (2 members),
# RAID 10 (4 members) and RAID 10 (3 members, md's n2 on an odd count):
#   1. serve the array with the raid plugin on a Unix socket, attach it
#      with nbdfuse and a loop device, mkfs.ext4, mount, copy in a tree
#      of a few hundred random files plus one large file filling half the
#      array, record their sha256 sums, unmount and detach everything;
#   2. serve the same members again from a fresh nbdkit (no cache in
#      between can hide a lost write), attach, e2fsck -fn, mount, check
#      the sums, unmount, detach.
# Skips (77) unless run as root with FUSE, nbdfuse and loop devices.
#
# Run: meson test -C build mount
#  or: tests/integration/test-mount.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN
for cmd in mkfs.ext4 e2fsck sha256sum; do
  requires "$cmd"
done

tmp=$(mktemp -d /var/tmp/raidsim-mount.XXXXXX)
at_exit rm -rf "$tmp"
requires_fuse_loop "$tmp"

say "making a tree of random files"
make_random_tree "$tmp/tree" 300
tree_sums "$tmp/tree" > "$tmp/tree.sums"
say "tree: $(wc -l < "$tmp/tree.sums") files, $(du -sh "$tmp/tree" | cut -f1)"

# attach DIR PARAMS...: serve the array described by PARAMS from the
# members in DIR and attach it; sets LOOP_DEV.
attach ()
{
  local d=$1
  shift
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@"
  fuse_attach "$d/fuse" disk --unix "$d/sock"
  loop_attach "$d/fuse/disk"
}

detach ()
{
  local d=$1
  umount_dir "$d/mnt"
  loop_detach "$LOOP_DEV"
  fuse_detach "$d/fuse" "$FUSE_PID"
  stop_pid "$SERVE_PID"
}

# one_array NAME "SIZE..." PARAMS...: the whole test on one array whose
# members have the given sizes.
one_array ()
{
  local name=$1 sizes=$2 d="$tmp/$1" size i=0 fill start
  local members=()
  shift 2
  start=$SECONDS
  mkdir -p "$d"
  for size in $sizes; do
    truncate -s "$size" "$d/m$i.img"
    members+=("member=$d/m$i.img")
    i=$(( i + 1 ))
  done

  say "$name: nbdkit raid $* (members of $sizes)"
  attach "$d" "$@" "${members[@]}"
  mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$LOOP_DEV"
  mount_dev "$LOOP_DEV" "$d/mnt"
  cp -a "$tmp/tree/." "$d/mnt/"
  # One large file reaches the far end of the array (RAID 0's last zone).
  fill=$(( $(df -B1 --output=avail "$d/mnt" | tail -n 1) / 2 ))
  head -c "$fill" /dev/urandom | tee "$d/mnt/fill.bin" | sha256sum |
    sed 's|-$|./fill.bin|' > "$d/fill.sums"
  cat "$tmp/tree.sums" "$d/fill.sums" > "$d/all.sums"
  (cd "$d/mnt" && sha256sum --quiet -c "$d/all.sums") ||
    die "$name: files differ right after copying them in"
  df -h "$d/mnt" | tail -n 1 | sed "s|^|$RAIDSIM_PROG: $name: df: |"
  detach "$d"

  say "$name: fresh nbdkit: e2fsck -fn, mount, verify"
  attach "$d" "$@" "${members[@]}"
  if ! e2fsck -fn "$LOOP_DEV" > "$d/fsck.log" 2>&1; then
    cat "$d/fsck.log"
    die "$name: e2fsck -fn found problems"
  fi
  mount_dev "$LOOP_DEV" "$d/mnt"
  if ! (cd "$d/mnt" && sha256sum --quiet -c "$d/all.sums"); then
    die "$name: files differ after remounting on a fresh server"
  fi
  detach "$d"

  if grep -i 'error' "$d/nbdkit.log"; then
    die "$name: the plugin logged errors (above)"
  fi
  say "$name: ok ($(( SECONDS - start )) s)"
  rm -rf "$d"
}

one_array raid0-unequal "96M 160M" level=0 chunk=64K
one_array raid1 "128M 128M" level=1
one_array raid10-4 "96M 96M 96M 96M" level=10 chunk=128K
one_array raid10-3 "96M 96M 96M" level=10 chunk=32K read-policy=round-robin

say "all arrays passed"
