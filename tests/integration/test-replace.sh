#!/bin/bash
# raidsim tests: `raidsim control SOCKET add NEW --replace OLD` as mdadm
# --replace OLD --with NEW: NEW is rebuilt as OLD's replacement while
# OLD keeps serving (writes go to both), and only when NEW is in sync
# does it take OLD's role (issue 13 leftovers, task 2).
#
# A RAID 1 of two 32M files made by raidsim create --assume-clean,
# served with the control socket.  NEW is new.img served by its own
# nbdkit through the delay filter (100 ms per write), so that the copy
# (32 regions of 1M) takes seconds: long enough to look at the array
# while it runs, whatever the load on the machine.
#
#   1. Writes (nbd-io, 64K each, all over the array) run in the
#      background; `add NBD-URI --replace b.img` starts the copy.
#   2. While it runs, detail says b.img (role 1) is still "active sync"
#      with want_replacement, the replacement is "spare rebuilding", and
#      the mdstat form shows it with (R) and [2/2] [UU].
#   3. After "replace: done": role 1 is new.img, active sync; the
#      array's data (nbdcopy) is what check-members finds on a.img and
#      new.img where the layout puts it; the role tables of a.img and
#      new.img give b.img's slot no role (faulty or empty, as md leaves
#      a replaced member) and new.img's role 1; b.img's events are
#      behind.
#   4. Restarted with a.img and b.img: b.img is stale.
#   5. A RAID 10 of four 16M files (64K chunks, 2 near copies): member
#      2 replaced by a plain file while 2000 writes of 4K to 160K run;
#      check-members finds the data on r0, r1, the new member and r3.
# Mutants killed: recovery_replace failing the old member at the start
# (detail in step 2 says faulty); write_copies without the
# recovery_replace_write hook (writes behind the copy miss new.img:
# check-members finds it differs).
#
# Skips (77) without nbdkit or its delay filter, nbdcopy, mdadm or
# perl's JSON::PP.
# Run: meson test -C build replace
#  or: tests/integration/test-replace.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO CHECK_MEMBERS
requires nbdkit
requires nbdcopy
requires mdadm
requires_perl_module JSON::PP
requires_nbdkit_filter delay

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$base/raidsim-replace.XXXXXX")
at_exit rm -rf "$tmp"
cd "$tmp"
uri=$(uri "$tmp/sock")
new_uri=$(uri "$tmp/new.sock")
CTL=$tmp/ctl
FAIL_LOGS=("$tmp/nbdkit.log")

log_has () { grep -q -- "$1" nbdkit.log; }
start ()
{
  serve "$tmp/sock" "$tmp/nbdkit.log" "$RAID_PLUGIN" "$@" control="$CTL" ||
    fail "the plugin did not start"
  wait_readable "$uri" 5
}

MiB=1048576
truncate -s 32M a.img b.img new.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img \
  >create.out 2>&1 || fail "raidsim create: $(cat create.out)"
size=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
doff=$(( $(mdadm --examine a.img | sed -n 's/^ *Data Offset : \([0-9]*\) sectors/\1/p') * 512 ))

# new.img behind the delay filter, in its own nbdkit.
nbdkit --foreground --exit-with-parent -U "$tmp/new.sock" -P new.pid \
  --filter=delay file new.img delay-write=100ms >new.log 2>&1 &
new_pid=$!
at_exit stop_pid "$new_pid"
wait_for_file new.pid "$new_pid" 30 || fail "the delayed nbdkit did not start: $(cat new.log)"

say "1. writes run; add --replace b.img"
# The copy is throttled as md's (sync-speed-min= while clients are
# busy): the writes must not hold it to md's 1000 KiB/s here.
start a.img b.img sync-speed-min=200000
awk -v size="$size" 'BEGIN { srand (11); for (i = 0; i < 300; i++)
  print "w", int (rand () * (size / 65536)) * 65536, 65536 }' >reqs
"$NBD_IO" --depth 4 --stamp 3 "$uri" <reqs >io.out 2>&1 &
io=$!
ctl --json add "$new_uri" --replace b.img >add.json 2>add.err ||
  fail "add --replace: $(cat add.err)"

say "2. while the copy runs, b.img serves and new.img is its replacement"
[ "$(detail_field '$d->{members}[1]{name}')" = b.img ] ||
  fail "role 1 is $(detail_field '$d->{members}[1]{name}') during the replacement"
[ "$(detail_field '$d->{members}[1]{state}')" = "active sync" ] ||
  fail "b.img is $(detail_field '$d->{members}[1]{state}') during the replacement"
[ "$(detail_field '$d->{members}[1]{want_replacement} ? 1 : 0')" = 1 ] ||
  fail "b.img is not marked want_replacement"
[ "$(detail_field '$d->{members}[1]{replacement}{state}')" = "spare rebuilding" ] ||
  fail "the replacement is $(detail_field '$d->{members}[1]{replacement}{state}')"
mdstat=$(detail_field '$d->{mdstat}')
case "$mdstat" in
  *"[2/2] [UU]"*) ;;
  *) fail "mdstat during the replacement: $mdstat" ;;
esac
case "$mdstat" in
  *"new.sock[1](R)"*|*"(R)"*) ;;
  *) fail "mdstat shows no (R): $mdstat" ;;
esac
wait $io || fail "the writes failed: $(cat io.out)"

say "3. the replacement takes role 1"
wait_until 60 "no replace: done in the log" log_has "replace: done"
[ "$(detail_field '$d->{members}[1]{name}')" = "$new_uri" ] ||
  fail "role 1 is $(detail_field '$d->{members}[1]{name}') after the replacement"
[ "$(detail_field '$d->{members}[1]{state}')" = "active sync" ] ||
  fail "the new member is $(detail_field '$d->{members}[1]{state}')"
# b.img is faulty, out of any role, listed until removed (md).
[ "$(detail_field 'join ",", map { "$_->{device}:$_->{state}" } @{$d->{replaced}}')" = "b.img:faulty" ] ||
  fail "replaced after the replacement: $(detail_field 'encode_json ($d->{replaced})')"
nbdcopy "$uri" data.img || fail "nbdcopy of the array failed"
stop_pid "$SERVE_PID"
"$CHECK_MEMBERS" level=1 data=data.img data-offset=$doff \
  member=a.img member=new.img >check.out 2>&1 ||
  fail "check-members: $(cat check.out)"
# md leaves the replaced member's slot faulty or empty in the role
# tables (mdp_superblock_1: dev_number at byte 160, dev_roles from 256,
# the superblock 4K into the member), and new.img holds role 1.
u16 () { od -An -tu2 -j "$2" -N2 "$1" | tr -d ' '; }
u32 () { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
bdev=$(u32 b.img $(( 4096 + 160 )))
ndev=$(u32 new.img $(( 4096 + 160 )))
for m in a.img new.img; do
  r=$(u16 $m $(( 4096 + 256 + 2 * bdev )))
  [ "$r" = 65535 ] || [ "$r" = 65534 ] ||
    fail "$m's role table gives b.img's slot $bdev role $r, not faulty or empty"
  [ "$(u16 $m $(( 4096 + 256 + 2 * ndev )))" = 1 ] ||
    fail "$m's role table does not give new.img's slot $ndev role 1"
done
[ "$(mdadm --examine new.img | sed -n 's/^ *Device Role : //p')" = "Active device 1" ] ||
  fail "new.img: $(mdadm --examine new.img | grep 'Device Role')"
[ "$(md_events b.img)" -lt "$(md_events a.img)" ] ||
  fail "b.img's events $(md_events b.img) are not behind a.img's $(md_events a.img)"
[ "$(md_events new.img)" = "$(md_events a.img)" ] ||
  fail "new.img's events $(md_events new.img) are not a.img's $(md_events a.img)"

say "4. the replaced member is stale at the next start"
: >nbdkit.log
start a.img b.img
log_has "member 1 (b.img) is stale" || fail "b.img was not found stale"
stop_pid "$SERVE_PID"

say "5. RAID 10: member 2 of four replaced while writes run"
truncate -s 16M r0.img r1.img r2.img r3.img n2.img
"$RAIDSIM" create --level=10 --chunk=64K --assume-clean \
  r0.img r1.img r2.img r3.img >create10.out 2>&1 ||
  fail "raidsim create: $(cat create10.out)"
size10=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create10.out)
doff10=$(( $(mdadm --examine r0.img | sed -n 's/^ *Data Offset : \([0-9]*\) sectors/\1/p') * 512 ))
: >nbdkit.log
start r0.img r1.img r2.img r3.img sync-speed-min=200000
awk -v size="$size10" 'BEGIN { srand (12); for (i = 0; i < 2000; i++)
  print "w", int (rand () * (size / 4096)) * 4096, 4096 * (1 + int (rand () * 40)) }' |
  awk -v size="$size10" '$2 + $3 <= size' >reqs10
"$NBD_IO" --depth 8 --stamp 5 "$uri" <reqs10 >io10.out 2>&1 &
io=$!
ctl --json add "$tmp/n2.img" --replace 2 >add10.json 2>add10.err ||
  fail "add --replace 2: $(cat add10.err)"
wait $io || fail "the writes failed: $(cat io10.out)"
wait_until 60 "no replace: done in the log" log_has "replace: done: .*n2.img takes role 2"
nbdcopy "$uri" data10.img || fail "nbdcopy of the RAID 10 failed"
stop_pid "$SERVE_PID"
"$CHECK_MEMBERS" level=10 chunk=64K copies=2 data=data10.img \
  data-offset=$doff10 member=r0.img member=r1.img member=n2.img \
  member=r3.img >check10.out 2>&1 || fail "check-members: $(cat check10.out)"
[ "$(mdadm --examine n2.img | sed -n 's/^ *Device Role : //p')" = "Active device 2" ] ||
  fail "n2.img: $(mdadm --examine n2.img | grep 'Device Role')"
say "PASS"
