#!/bin/bash
# raidsim tests: the control socket's remove against a block status
# request in flight on the member it removes (issue 13).  An array
# without md metadata cannot rebuild, so remove does not hold client
# requests out of it (recovery_hold does nothing there); what keeps the
# member open is the member's own hold: member I/O, and since this test
# block status too (member_hole), counts as in flight, and remove's
# member_drain waits for it before it closes the member.
#
# The ordering is forced, not timed: member 1 is an NBD export (nbdkit's
# eval plugin) whose extents method, once called, waits on a FIFO that
# only the test writes to.  So:
#
#   1. nbdinfo --map asks the array for block status; the plugin asks
#      member 0 (a file) and then member 1, whose answer is held;
#   2. `fail 1`, then `remove 1` in the background;
#   3. remove must wait: the test waits for the plugin's debug line
#      saying member 1 has a block status call in flight before it is
#      closed, and only then lets member 1 answer;
#   4. remove then ends ("hot removed"), after the extents call has
#      ended (the eval plugin's log has the end of the extents call
#      before its connection's close), and nbdinfo gets the map: the
#      whole array a hole, as both members said.
#
# Mutant killed: io/extents.c calling m->ops->hole directly (the code
# before member_hole), or member_hole not counting the call: remove
# closes member 1 at once, while the call is held ("hot removed" in the
# log before member 1 has answered; what the call then touches is
# freed).
#
# Skips (77) if nbdkit, its eval plugin or nbdinfo is missing.
#
# Run: meson test -C build remove-extents
#  or: tests/integration/test-remove-extents.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM
requires nbdkit
requires nbdinfo
requires_nbdkit_plugin eval

d=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-remove-extents.XXXXXX")
at_exit rm -rf "$d"
cd "$d"
FAIL_LOGS=("$d/nbdkit.log" "$d/member.log" "$d/calls")

truncate -s 16M a.img b.img
mkfifo gate
# Held open for reading and writing by this shell alone (every child is
# started with 3>&-): the extents method's read then opens it at once
# and waits for a line; closing it (at exit, before the servers are
# stopped) gives that read EOF, so a held call ends whatever happened.
exec 3<>gate
: >calls

# after_start: the lines of calls from the (first) extents-start on.
after_start () { sed -n '/extents-start/,$p' calls | tr '\n' ' '; }

# Member 1: b.img over NBD; its extents method logs its start, waits
# for a line on the gate, logs its end and calls the range a hole.
serve "$d/m1.sock" "$d/member.log" eval \
  get_size="stat -c %s $d/b.img" \
  pread="dd if=$d/b.img skip=\$4 count=\$3 iflag=skip_bytes,count_bytes status=none" \
  pwrite="dd of=$d/b.img seek=\$4 oflag=seek_bytes conv=notrunc status=none" \
  extents="echo extents-start >>$d/calls; read -r x <$d/gate || :; echo extents-end >>$d/calls; echo \"\$4 \$3 hole,zero\"" \
  close="echo close >>$d/calls" 3>&- ||
  fail "the member's nbdkit did not start"

# The array: RAID 1 without md metadata; timeout=0 so that the held
# block status is never given up by the plugin itself.
serve "$d/sock" "$d/nbdkit.log" -v "$RAID_PLUGIN" metadata=none level=1 \
  "$d/a.img" "nbd+unix:///?socket=$d/m1.sock" timeout=0 \
  control="$d/ctl" 3>&- ||
  fail "the plugin did not start"
RAID_PID=$SERVE_PID
at_exit exec 3>&-

say "block status is held on member 1"
nbdinfo --map "nbd+unix:///?socket=$d/sock" >map.out 2>map.err 3>&- &
map_pid=$!
wait_line calls extents-start 20 || fail "member 1 was never asked for block status"

say "fail 1, then remove 1 while the call is in flight"
"$RAIDSIM" control "$d/ctl" fail 1 >fail.out 2>&1 3>&- ||
  fail "fail 1: $(cat fail.out)"
"$RAIDSIM" control "$d/ctl" remove 1 >remove.out 2>&1 3>&- &
rm_pid=$!
# Whichever comes first: remove waiting for the call (right), or remove
# done while the call is still held (member 1 closed under it).
waiting="member 1 (nbd+unix:.*): waiting for 0 I/O and 1 block status call(s) in flight"
wait_line nbdkit.log "$waiting\|hot removed member 1" 20 ||
  fail "remove neither waited nor ended"
if grep -q "hot removed member 1" nbdkit.log; then
  fail "remove closed member 1 while a block status call on it was in flight"
fi
grep -q "$waiting" nbdkit.log || fail "no debug line saying remove waits"
[ "$(after_start)" = "extents-start " ] ||
  fail "member 1 saw, while its call was held: $(after_start)"

say "member 1 answers; remove ends after it"
echo go >&3
wait "$rm_pid" || fail "remove 1: $(cat remove.out)"
grep -q "hot removed member 1" remove.out || fail "remove 1 said: $(cat remove.out)"
wait "$map_pid" || fail "nbdinfo --map: $(cat map.err)"
wait_line calls close 20 || fail "member 1's connection was never closed"
[ "$(after_start)" = "extents-start extents-end close " ] ||
  fail "member 1 saw: $(after_start)"
kill -0 "$RAID_PID" || fail "the plugin died"
# The whole array, 16 MiB from 0, is a hole that reads as zeros, as both
# members said (nbdinfo's columns: offset, length, type 3 = hole,zero,
# description).
awk 'BEGIN { end = 0 }
     $1 != end || $3 != 3 { bad = 1 }
     { end = $1 + $2 }
     END { exit bad || end != 16777216 }' map.out ||
  fail "the map is: $(cat map.out)"
"$RAIDSIM" control --json "$d/ctl" detail >detail.json 2>&1 3>&- ||
  fail "detail: $(cat detail.json)"
grep -q '"state": *"removed"' detail.json || fail "detail: $(cat detail.json)"
say "PASS"
