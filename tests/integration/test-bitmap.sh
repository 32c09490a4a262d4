#!/bin/bash
# raidsim tests: md's write-intent bitmap limits the resync after a crash
# to the chunks that were being written (issue 13, item 3).
#
# A RAID 1 of two 512M members (on /dev/shm when it is there), made by
# raidsim create --assume-clean --bitmap-chunk=1M: 511 bitmap chunks.
#   1. Served, the bits mdadm wrote (all ones) are cleared lazily: real
#      mdadm -X, on the bitmap cut out where mdadm --examine says it is,
#      comes to "0 dirty", with Events Cleared = Events.
#   2. Writes go to a 2M region, chunks 100 and 101 (array offset 100M).
#      Once mdadm says the array is active and mdadm -X says exactly 2
#      bits are dirty, the server is killed -9 while they go on.
#   3. A byte of the second copy is changed in the written region, and
#      one far outside it (chunk 300), as a torn write would leave them.
#   4. Restarted, the plugin logs "2 of 511 chunks" and a resync of
#      2097152 bytes (2 chunks of 1M: what was written) of the array's
#      size (raidsim create's), and says the same in the stats JSON
#      (sync.synced and sync.total).  The byte in the region is repaired
#      (the copies agree there), the one outside is not (proof that only
#      the dirty chunks were walked).
#   5. The bits are cleared again after the resync, and mdadm says clean
#      after a clean stop.
# Mutants killed: bitmap_next_needed returning pos (the whole array is
# resynced: 2097152 != synced); bitmap_start_write not setting bits (the
# kill never sees 2 dirty bits); the daemon never clearing (step 1).
#
# Skips (77) without nbdkit, mdadm or perl's JSON::PP.
# Run: meson test -C build bitmap
#  or: tests/integration/test-bitmap.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN
requires nbdkit
requires mdadm
requires_perl_module JSON::PP

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$base/raidsim-bitmap.XXXXXX")
at_exit rm -rf "$tmp"
cd "$tmp"
uri=$(uri "$tmp/sock")
FAIL_LOGS=("$tmp/nbdkit.log")

start ()
{
  serve "$tmp/sock" "$tmp/nbdkit.log" "$RAID_PLUGIN" a.img b.img "$@" ||
    fail "the plugin did not start"
  wait_readable "$uri" 5
}

MiB=1048576
truncate -s 512M a.img b.img
"$RAIDSIM" create --level=1 --assume-clean --bitmap-chunk=1M a.img b.img \
  >create.out 2>&1 || fail "raidsim create: $(cat create.out)"
size=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
doff=$(( $(mdadm --examine a.img | sed -n 's/^ *Data Offset : \([0-9]*\) sectors/\1/p') * 512 ))
nbits=$(( (size + MiB - 1) / MiB ))
[ "$(md_bitmap_dirty a.img)" = $nbits ] || fail "a new bitmap is not all ones: $(md_bitmap_dirty a.img) of $nbits"

say "1. the bits mdadm's create set are cleared lazily"
start
clear_bits () { [ "$(md_bitmap_dirty a.img)" = 0 ] && [ "$(md_bitmap_dirty b.img)" = 0 ]; }
wait_until 20 "mdadm -X still says $(md_bitmap_dirty a.img) dirty" clear_bits
[ "$(md_bitmap_field a.img 'Events Cleared')" = "$(md_bitmap_field a.img Events)" ] ||
  fail "Events Cleared $(md_bitmap_field a.img 'Events Cleared') is not Events $(md_bitmap_field a.img Events)"

say "2. writes to chunks 100 and 101, killed -9 while they go on"
awk -v base=$(( 100 * MiB )) 'BEGIN { srand (7); for (i = 0; i < 400000; i++)
  print "w", base + int (rand () * 512) * 4096, 4096 }' >reqs
"$NBD_IO" --depth 4 "$uri" <reqs >io.out 2>&1 &
io=$!
two_dirty () { [ "$(md_bitmap_dirty a.img)" = 2 ] && [ "$(md_field a.img State)" = active ]; }
wait_until 10 "mdadm -X says $(md_bitmap_dirty a.img) dirty, state $(md_field a.img State)" two_dirty
kill -0 $io 2>/dev/null || fail "the writes ended before the kill: $(cat io.out)"
kill -KILL "$SERVE_PID"
wait "$SERVE_PID" 2>/dev/null || true
wait $io 2>/dev/null || true
[ "$(md_bitmap_dirty b.img)" = 2 ] || fail "after the kill b.img's bitmap says $(md_bitmap_dirty b.img) dirty"

say "3. a torn write inside the region, and a difference outside it"
in=$(( doff + 100 * MiB + 12345 ))
out=$(( doff + 300 * MiB + 777 ))
flip () { printf '\xa5' | dd of=b.img bs=1 seek="$1" conv=notrunc status=none; }
flip $in
flip $out

say "4. restart: the resync walks the 2 dirty chunks only"
: >nbdkit.log
start stats="$tmp/stats.json"
wait_until 30 "no resync end in the log" grep -q "resync: done" nbdkit.log
grep -q "bitmap: 2 of $nbits chunks of $MiB bytes to resync" nbdkit.log ||
  fail "the log does not say 2 of $nbits chunks"
want=$(( 2 * MiB ))
grep -q "resync: done: $want bytes resynced of the array's $size " nbdkit.log ||
  fail "the log does not say $want bytes resynced of $size"
cmp -s <(dd if=a.img bs=1 skip=$in count=1 status=none) \
       <(dd if=b.img bs=1 skip=$in count=1 status=none) ||
  fail "the byte at $in in the written region was not resynced"
! cmp -s <(dd if=a.img bs=1 skip=$out count=1 status=none) \
         <(dd if=b.img bs=1 skip=$out count=1 status=none) ||
  fail "the byte at $out, outside the written region, was resynced too"

say "5. the bits are cleared again; clean after a stop"
wait_until 20 "mdadm -X still says $(md_bitmap_dirty a.img) dirty after the resync" \
  clear_bits
stop_pid "$SERVE_PID"
[ "$(md_field a.img State)" = clean ] || fail "after a clean stop mdadm says $(md_field a.img State)"
synced=$(perl -MJSON::PP -0777 -ne 'print decode_json ($_)->{sync}{synced} // "none"' stats.json)
total=$(perl -MJSON::PP -0777 -ne 'print decode_json ($_)->{sync}{total} // "none"' stats.json)
[ "$synced" = $want ] && [ "$total" = "$size" ] ||
  fail "stats JSON: sync.synced $synced, sync.total $total; want $want and $size"
# Only the flipped byte outside the region differs.
ndiff=$( { cmp -l <(tail -c +$(( doff + 1 )) a.img) \
                  <(tail -c +$(( doff + 1 )) b.img) || true; } | wc -l)
[ "$ndiff" = 1 ] || fail "the copies differ in $ndiff bytes, not 1"
say "resynced $synced of $total bytes ($(( synced * 1000 / total ))/1000 of the array)"
say "PASS"
