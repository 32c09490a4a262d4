#!/bin/bash
# raidsim tests: block-device members are claimed exclusively, and a loop
# device over another member's file is refused (issue 12, item 6).
#
# Members here are loop devices (losetup) over files in a scratch
# directory.  Every refusal must be one error line naming the parameter
# (member) and the device, a non-zero exit, and no member file changed.
#
# X1: a loop device with a mounted ext4 file system on it is refused
#     (O_EXCL fails with EBUSY while the mount holds it).
# X2: `level=1 b.img LOOP`, where LOOP loops b.img, is refused, in either
#     order and with b.img spelled through a symlink.
# X3: two loop devices over the same file are refused.
# X4: the same loop device twice is called the same device.
# X5: a loop device over a file of its own is accepted, and while the
#     plugin serves it nothing else can claim it: mount fails; once
#     nbdkit has exited, the same mount succeeds.
#
# Skips (77) unless run as root with losetup, mkfs.ext4 and a free loop
# device.
#
# Run: meson test -C build exclusive
#  or: tests/integration/test-exclusive.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN
requires nbdkit
requires_root "losetup and mount need root"
for cmd in losetup mkfs.ext4 mount umount mountpoint; do
  requires "$cmd"
done

tmp=$(mktemp -d /var/tmp/raidsim-exclusive.XXXXXX)
at_exit rm -rf "$tmp"
cd "$tmp"
keep_going

for f in a b c d fs; do
  { printf 'member %s\n' "$f"; head -c 65536 /dev/urandom; } >"$f.img"
  truncate -s 16M "$f.img"
done
mkfs.ext4 -q -F fs.img
mkfs.ext4 -q -F d.img
ln -s b.img link-to-b.img

# attach FILE: a loop device over FILE, detached at exit; prints it.
attach ()
{
  loop_attach "$1" >/dev/null 2>&1 || skip "no loop device can be set up (is the loop module loaded?)"
}
attach fs.img; LFS=$LOOP_DEV
attach b.img;  LB=$LOOP_DEV
attach b.img;  LB2=$LOOP_DEV
attach d.img;  LD=$LOOP_DEV
say "loop devices: $LFS (fs.img), $LB and $LB2 (b.img), $LD (d.img)"

fingerprint () { sha256sum a.img b.img c.img; }
fingerprint >before

# refused NAME PATTERN PLUGIN-ARGS...: nbdkit must exit non-zero with one
# error line naming member and matching PATTERN (ERE), no file changed.
refused ()
{
  local name=$1 pattern=$2 status=0
  shift 2
  timeout 30 nbdkit -U - --run true "$RAID_PLUGIN" "$@" >out 2>err ||
    status=$?
  if [ "$status" -eq 0 ]; then
    fail "$name: $* was accepted"
  elif [ "$(grep -c . err)" -ne 1 ]; then
    fail "$name: want one error line, got:"; sed 's/^/    /' err
  elif ! grep -Eq -- "member: .*$pattern" err; then
    fail "$name: the error does not match 'member: .*$pattern': $(cat err)"
  elif ! fingerprint | cmp -s before -; then
    fail "$name: a member file changed"
  else
    ok "$name: $* -> $(cat err)"
  fi
}

# ---- X1 ---------------------------------------------------------------
mount_dev "$LFS" "$tmp/mnt"
refused X1 "$LFS: the device is in use" level=1 a.img "$LFS"
umount_dir "$tmp/mnt"

# ---- X2 ---------------------------------------------------------------
refused X2 "$LB is a loop device over b.img, which is also a member" \
  level=1 b.img "$LB"
refused X2-reversed "$LB is a loop device over b.img" level=1 "$LB" b.img
refused X2-symlink "$LB is a loop device over link-to-b.img" \
  level=10 a.img c.img "$LB" link-to-b.img

# ---- X3 ---------------------------------------------------------------
refused X3 "$LB and $LB2 are loop devices over the same file" \
  level=1 "$LB" "$LB2"

# ---- X4 ---------------------------------------------------------------
refused X4 "$LB and $LB are the same device" level=1 "$LB" "$LB"

# ---- X5 ---------------------------------------------------------------
serve "$tmp/raid.sock" "$tmp/raid.log" "$RAID_PLUGIN" level=1 c.img "$LD" ||
  die "X5: the array over c.img and $LD did not start"
array=$SERVE_PID
mkdir -p "$tmp/mnt"
if mount -o ro "$LD" "$tmp/mnt" 2>mount.err; then
  umount_dir "$tmp/mnt"
  fail "X5: $LD could be mounted while the plugin serves it"
else
  ok "X5: while served, mount $LD fails: $(cat mount.err)"
fi
stop_pid "$array"
if mount -o ro "$LD" "$tmp/mnt" 2>mount.err; then
  umount_dir "$tmp/mnt"
  ok "X5: once nbdkit has exited, $LD mounts"
else
  fail "X5: $LD does not mount even after nbdkit exited: $(cat mount.err)"
fi

end_checks
