#!/bin/bash
# raidsim tests: a member that comes back is re-added from md's
# write-intent bitmap, as md's super_1_validate and mdadm --re-add do:
# when its events are not older than the bitmap's events_cleared, only
# the chunks whose bits are set are rebuilt; otherwise all of it
# (issue 13 leftovers, task 1).
#
# A RAID 1 of two 32M files (on /dev/shm when it is there), made by
# raidsim create --assume-clean --bitmap-chunk=1M, served with the
# control socket.  Expected figures come from the bitmap chunk: a write
# of 1M at array offset 5.5M touches chunks 5 and 6, so 2M; a write of
# 4K at 10M touches chunk 10 only, so 1M.
#
# start     the bits create set are cleared (mdadm -X: 0 dirty); `fail
#           b.img`; the 1M write at 5.5M; a byte of b.img changed in
#           chunk 20 (a difference the re-add must not touch: proof that
#           only the dirty chunks are copied).  Three sweeps of the
#           bitmap daemon later (detail's bitmap.sweeps) the 2 bits are
#           still set (detail and mdadm -X of a.img).  Restarted with
#           both: b.img is stale, re-added from the bitmap, "re-add:
#           member 1 (b.img): 2097152 bytes to resync", "re-add: done:
#           2097152 bytes resynced"; the data areas then differ in that
#           one byte only, and mdadm --examine says b.img is in sync.
#           Mutant killed: sweep() clearing bits while degraded (the bits
#           are gone after the sweeps; the re-add copies 0 bytes).
# add       with the array whole and its bits clear again: `fail b.img`,
#           `remove b.img` (a copy b-old.img is kept, with a byte
#           changed), the 4K write at 10M, a byte of b.img changed in
#           chunk 22; `add b.img` re-adds it into role 1 ("re-added"):
#           1048576 bytes resynced (the log, and sync.synced in the stats
#           JSON), one byte of difference left, detail says active sync.
# old       after the bits are cleared again (events_cleared now past
#           b-old.img's events), a restart with b-old.img: it is
#           re-added but rebuilt in full (the whole array copied, the
#           copies then byte-identical).
#           Mutant killed: bitmap_readd_ok ignoring events_cleared (the
#           old member rebuilt from the clear bitmap: nothing copied,
#           the 4K write missing).
# resume    the member failed again, 1M written at 5.5M and at 25.5M, a
#           byte changed in chunk 28; restarted with sync-speed-min=50
#           and -max=50, the re-add's window (RECOVERY_INFLIGHT = 4
#           regions of 1M, sync/rebuild.h) takes the 4 dirty chunks 5, 6,
#           25 and 26; they come out in that order, each moving the
#           position to its end, with a checkpoint whenever it has moved
#           by 1/16 of the array (31M / 16 < 2M) since the last: at 6M,
#           not at 7M (1M later), at 26M, not at 27M; the throttle, looked
#           at after the 4th, waits (4M at 50 KiB/s: 82 s).  So it
#           records 26M with the bitmap flag (mdadm: Feature Map 0x83,
#           Recovery Offset 53248 sectors); three sweeps later the 4
#           bits are still set; killed -9, restarted: the recovery goes
#           on from 26M from the bitmap, 1048576 bytes (chunk 26), and
#           the byte in chunk 28 is left alone.  (With the 2-region steps
#           of before, the figure was 7M: chunks 5 and 6, then the wait.)
#           Mutant killed: degraded() not counting members being rebuilt
#           (the sweeps clear chunks 25 and 26 during the re-add).
#
# nbd       b-old.img served by nbdkit file over a Unix socket as
#           member 1; its server stopped, 1M written at 12.5M (the
#           member fails), the server started again, `remove 1` and
#           `add URI`: 2097152 bytes resynced (chunks 12 and 13).
#
# Skips (77) without nbdkit, mdadm or perl's JSON::PP.
# Run: meson test -C build readd
#  or: tests/integration/test-readd.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires mdadm
requires_perl_module JSON::PP

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$base/raidsim-readd.XXXXXX")
at_exit rm -rf "$tmp"
cd "$tmp"
uri=$(uri "$tmp/sock")
CTL=$tmp/ctl
FAIL_LOGS=("$tmp/nbdkit.log")

start ()
{
  serve "$tmp/sock" "$tmp/nbdkit.log" "$RAID_PLUGIN" "$@" control="$CTL" ||
    fail "the plugin did not start"
  wait_readable "$uri" 5
}
write () { echo "w $1 $2" | "$NBD_IO" "$uri" >io.out 2>&1 || fail "write $1 $2: $(cat io.out)"; }
flip () { printf '\xa5' | dd of="$1" bs=1 seek="$2" conv=notrunc status=none; }
# ndiff X Y: bytes that differ between the data areas of X and Y.
ndiff ()
{
  { cmp -l <(tail -c +$(( doff + 1 )) "$1") <(tail -c +$(( doff + 1 )) "$2") || true; } | wc -l
}
# No bit set in the plugin's bitmap, nor in a.img's on disk.
clear_bits () { [ "$(detail_field '$d->{bitmap}{dirty}')" = 0 ] && [ "$(md_bitmap_dirty a.img)" = 0 ]; }
log_has () { grep -q -- "$1" nbdkit.log; }

MiB=1048576
truncate -s 32M a.img b.img
"$RAIDSIM" create --level=1 --assume-clean --bitmap-chunk=1M a.img b.img \
  >create.out 2>&1 || fail "raidsim create: $(cat create.out)"
size=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
doff=$(( $(md_field a.img 'Data Offset' | sed 's/ sectors//') * 512 ))
[ -n "$size" ] && [ "$doff" -gt 0 ] || fail "no size or data offset: $(cat create.out)"

say "start: a member failed, writes while degraded, restarted"
start a.img b.img
wait_until 20 "the bits create set are not cleared: $(detail_field '$d->{bitmap}{dirty}') dirty" clear_bits
ctl_ok --json fail b.img
write $(( 5 * MiB + MiB / 2 )) $MiB
flip b.img $(( doff + 20 * MiB + 333 ))
s0=$(detail_field '$d->{bitmap}{sweeps}')
sweeps_past () { [ "$(detail_field '$d->{bitmap}{sweeps}')" -ge $(( s0 + 3 )) ]; }
wait_until 30 "the bitmap daemon did not sweep 3 times" sweeps_past
[ "$(detail_field '$d->{bitmap}{dirty}')" = 2 ] ||
  fail "3 sweeps after a degraded write the plugin has $(detail_field '$d->{bitmap}{dirty}') dirty bits, not 2"
[ "$(md_bitmap_dirty a.img)" = 2 ] || fail "mdadm -X a.img: $(md_bitmap_dirty a.img) dirty, not 2"
stop_pid "$SERVE_PID"
ev_b=$(md_events b.img)
[ "$ev_b" -lt "$(md_events a.img)" ] || fail "b.img is not behind: $ev_b, a.img $(md_events a.img)"
[ "$ev_b" -ge "$(md_bitmap_field a.img 'Events Cleared')" ] ||
  fail "b.img's events $ev_b are older than events_cleared $(md_bitmap_field a.img 'Events Cleared')"

: >nbdkit.log
start a.img b.img stats="$tmp/stats.json"
wait_until 30 "no recovery end in the log" log_has "recovery: done"
log_has "member 1 (b.img) is re-added (md's --re-add): events $ev_b, not older" ||
  fail "b.img was not re-added from the bitmap"
want=$(( 2 * MiB ))
log_has "re-add: member 1 (b.img): $want bytes to resync of $size " ||
  fail "the log does not say $want bytes to resync of $size"
log_has "re-add: done: $want bytes resynced of $size" ||
  fail "the log does not say $want bytes resynced"
[ "$(detail_field '$d->{members}[1]{state}')" = "active sync" ] ||
  fail "b.img is $(detail_field '$d->{members}[1]{state}') after the re-add"
n=$(ndiff a.img b.img)
[ "$n" = 1 ] || fail "after the re-add the copies differ in $n bytes, not 1 (the byte in chunk 20)"

say "add: failed, removed, written, and added back while serving"
wait_until 20 "the bits are not cleared after the re-add" clear_bits
ctl_ok --json fail b.img
ctl_ok --json remove b.img
cp b.img b-old.img
flip b-old.img $(( doff + 25 * MiB + 5 ))
ev_old=$(md_events b-old.img)
write $(( 10 * MiB )) 4096
flip b.img $(( doff + 22 * MiB + 77 ))
ctl_ok --json add "$tmp/b.img"
grep -q '"message":"re-added' ctl.out || fail "add b.img: $(cat ctl.out)"
want=$MiB
wait_until 30 "no re-add end in the log" log_has "re-add: done: $want bytes resynced of $size"
[ "$(detail_field '$d->{members}[1]{state}')" = "active sync" ] ||
  fail "b.img is $(detail_field '$d->{members}[1]{state}') after add"
n=$(ndiff a.img b.img)
[ "$n" = 2 ] || fail "after add the copies differ in $n bytes, not 2 (chunks 20 and 22)"

say "old: a member older than events_cleared is rebuilt in full"
wait_until 20 "the bits are not cleared after add" clear_bits
stop_pid "$SERVE_PID"
# The statistics of the last recovery, the add's.
synced=$(perl -MJSON::PP -0777 -ne 'print decode_json ($_)->{sync}{synced} // "none"' stats.json)
[ "$synced" = $MiB ] || fail "stats JSON: sync.synced $synced after add, not $MiB"
cleared=$(md_bitmap_field a.img 'Events Cleared')
[ "$ev_old" -lt "$cleared" ] || fail "b-old.img's events $ev_old are not older than events_cleared $cleared"
: >nbdkit.log
start a.img b-old.img
wait_until 30 "no recovery end in the log" log_has "recovery: done"
log_has "member 1 (b-old.img) is re-added (md's --re-add): its events are older than the bitmap's events_cleared (events $ev_old, events_cleared $cleared): it is rebuilt in full" ||
  fail "b-old.img was not rebuilt in full"
log_has "recovery: done: member 1 (b-old.img) rebuilt, $size bytes in" ||
  fail "the full rebuild did not copy $size bytes"
stop_pid "$SERVE_PID"
n=$(ndiff a.img b-old.img)
[ "$n" = 0 ] || fail "after the full rebuild the copies differ in $n bytes"
[ "$(md_field b-old.img 'Feature Map')" = 0x1 ] ||
  fail "b-old.img's feature map is $(md_field b-old.img 'Feature Map'), not 0x1 (in sync)"

say "resume: a re-add from the bitmap killed in the middle goes on from it"
start a.img b-old.img
wait_until 20 "the bits are not cleared: $(detail_field '$d->{bitmap}{dirty}') dirty" clear_bits
ctl_ok --json fail b-old.img
write $(( 5 * MiB + MiB / 2 )) $MiB
write $(( 25 * MiB + MiB / 2 )) $MiB
flip b-old.img $(( doff + 28 * MiB + 9 ))
stop_pid "$SERVE_PID"
: >nbdkit.log
start a.img b-old.img sync-speed-min=50 sync-speed-max=50
# The walk copies chunks 5, 6, 25 and 26 (its window of 4 regions),
# records how far at 6M and 26M (each 1/16 of the array or more past the
# last; 7M and 27M are not), with the bitmap flag, then waits ~80 s for
# the speed limit: killed meanwhile, after three sweeps that must not
# clear chunks 25 and 26 (the member is still out of sync).
checkpointed () { [ "$(md_field b-old.img 'Feature Map')" = 0x83 ]; }
wait_until 20 "b-old.img's feature map is $(md_field b-old.img 'Feature Map'), not 0x83" checkpointed
s0=$(detail_field '$d->{bitmap}{sweeps}')
wait_until 30 "the bitmap daemon did not sweep 3 times" sweeps_past
[ "$(detail_field '$d->{bitmap}{dirty}')" = 4 ] ||
  fail "during the re-add the plugin has $(detail_field '$d->{bitmap}{dirty}') dirty bits, not 4"
log_has "recovery: done" && fail "the walk was not held back by the speed limit"
kill -KILL "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
[ "$(md_field b-old.img 'Recovery Offset')" = "$(( 26 * MiB / 512 )) sectors" ] ||
  fail "b-old.img's recovery offset is $(md_field b-old.img 'Recovery Offset')"
: >nbdkit.log
start a.img b-old.img
wait_until 30 "no recovery end in the log" log_has "recovery: done"
log_has "member 1 (b-old.img) was being rebuilt: its recovery goes on from array offset $(( 26 * MiB ))" ||
  fail "b-old.img's recovery did not go on from 26M"
want=$(( 1 * MiB ))
log_has "re-add: member 1 (b-old.img): $want bytes to resync of $size .*from array offset $(( 26 * MiB ))" ||
  fail "the log does not say $want bytes to resync from 26M"
log_has "re-add: done: $want bytes resynced of $size" ||
  fail "the log does not say $want bytes resynced"
stop_pid "$SERVE_PID"
n=$(ndiff a.img b-old.img)
[ "$n" = 1 ] || fail "after the resumed re-add the copies differ in $n bytes, not 1 (the byte in chunk 28)"

say "nbd: an NBD member whose server died is re-added when it is back"
bsock=$tmp/b.sock
buri=$(uri "$bsock")
serve_b ()
{
  rm -f "$bsock"
  nbdkit --foreground --exit-with-parent -U "$bsock" -P b.pid file b-old.img >>b.log 2>&1 &
  b_pid=$!
  at_exit stop_pid "$b_pid"
  wait_for_file b.pid "$b_pid" 30 || fail "nbdkit file b-old.img did not start: $(cat b.log)"
}
serve_b
: >nbdkit.log
start a.img "$buri"
wait_until 20 "the bits are not cleared: $(detail_field '$d->{bitmap}{dirty}') dirty" clear_bits
stop_pid "$b_pid"
rm -f b.pid
write $(( 12 * MiB + MiB / 2 )) $MiB
[ "$(detail_field '$d->{members}[1]{state}')" = faulty ] ||
  fail "the NBD member is $(detail_field '$d->{members}[1]{state}') after its server died"
serve_b
ctl_ok --json remove 1
ctl_ok --json add "$buri"
grep -q '"message":"re-added' ctl.out || fail "add $buri: $(cat ctl.out)"
wait_until 30 "no re-add end in the log" log_has "re-add: done: $(( 2 * MiB )) bytes resynced of $size"
stop_pid "$SERVE_PID"
n=$(ndiff a.img b-old.img)
[ "$n" = 1 ] || fail "after the NBD re-add the copies differ in $n bytes, not 1 (the byte in chunk 28)"
say "PASS"
