#!/bin/bash
# raidsim tests: overlapping writes in flight together leave every copy
# the same.
#
# A RAID 1 or RAID 10 write goes to each copy as its own member I/O, and
# each member applies its I/Os in whatever order its backend finishes
# them.  Two overlapping writes in flight together could then land in
# one order on one copy and in the other order on the other, and later
# reads would return one write or the other depending on which copy the
# read policy picks: data that changes with no write.  The plugin holds
# each write's array range while it is in flight (rangelock.h), so
# overlapping writes take turns.
#
# For each array below, several clients (tests/nbd-io --stamp, each
# write filled with a byte of its own) keep 32 writes each in flight to
# a few blocks, so that most writes overlap others; then, with nbdkit
# stopped, the copies are compared byte for byte: RAID 1's members with
# each other, and a 4-member RAID 10 with 2 near copies member 0 with 1
# and 2 with 3, which hold the same chunks at the same offsets.  One
# member of one array is an NBD export behind nbdkit's delay filter, so
# that its writes finish long after the file member's and in an order of
# their own.  Without the range hold the copies differ after a few
# thousand writes (the mutation check in the commit that added this
# test).
#
# Run: meson test -C build overlap
#  or: RAID_PLUGIN=build/plugins/raid/nbdkit-raid-plugin.so \
#        NBD_IO=build/tests/lib/nbd-io tests/integration/test-overlap.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
NBD_IO=${NBD_IO:-$SRCDIR/build/tests/lib/nbd-io}
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"
RAIDSIM_PROG=test-overlap.sh

[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built"
[ -x "$NBD_IO" ] || die "$NBD_IO is not built"
command -v nbdkit >/dev/null 2>&1 || skip "nbdkit is not installed"
nbdkit --dump-plugin file >/dev/null 2>&1 ||
  skip "nbdkit's file plugin is not installed"
nbdkit --filter=delay null --dump-plugin >/dev/null 2>&1 ||
  skip "nbdkit's delay filter is not installed"

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-overlap.XXXXXX")
at_exit rm -rf "$tmp"
failures=0

# writes SEED: 1500 writes over the first 256 KiB: 4K writes at four
# offsets, and 96K writes that straddle the 64K chunks of the RAID 10,
# all overlapping one another.
writes ()
{
  awk -v seed="$1" 'BEGIN {
    srand (seed)
    for (i = 0; i < 1500; i++)
      if (rand () < 0.75)
        printf "w %d 4096\n", int (rand () * 4) * 4096
      else
        printf "w %d 98304\n", int (rand () * 3) * 32768
  }'
}

# hammer SOCK: four clients at once, 32 writes each in flight.
hammer ()
{
  local c pids=()
  for c in 1 2 3 4; do
    writes "$c" | "$NBD_IO" --depth 32 --stamp $(( c * 61 )) \
      "nbd+unix:///?socket=$1" &
    pids+=($!)
  done
  for c in "${pids[@]}"; do
    wait "$c" || die "nbd-io failed against $1"
  done
}

# same_copies NAME A B: A and B hold the same bytes, and not only zeroes.
same_copies ()
{
  if ! cmp -s "$2" "$3"; then
    say "FAIL: $1: $(basename "$2") and $(basename "$3") differ in" \
        "$(cmp -l "$2" "$3" | wc -l) bytes"
    failures=$(( failures + 1 ))
  elif ! cmp -s -n 262144 "$2" /dev/zero; then
    say "ok: $1: $(basename "$2") and $(basename "$3") are the same"
  else
    say "FAIL: $1: no write reached $(basename "$2")"
    failures=$(( failures + 1 ))
  fi
}

# array NAME PAIRS PARAMS...: serve the plugin with PARAMS, hammer it,
# stop it and compare each pair of member files in PAIRS ("a:b c:d").
array ()
{
  local name=$1 pairs=$2 pair
  shift 2
  serve "$tmp/$name.sock" "$tmp/$name.log" --threads 16 "$RAID_PLUGIN" "$@"
  # Two rounds: the race is a matter of timing, and each round is
  # another chance for it.
  hammer "$tmp/$name.sock"
  hammer "$tmp/$name.sock"
  stop_pid "$SERVE_PID"
  for pair in $pairs; do
    same_copies "$name" "$tmp/${pair%%:*}" "$tmp/${pair##*:}"
  done
}

for f in r1a r1b r1c r1d r10a r10b r10c r10d; do
  truncate -s 4M "$tmp/$f"
done

array raid1-threads "r1a:r1b" level=1 io=threads "$tmp/r1a" "$tmp/r1b"

# The second copy behind a member server that takes 1 ms a write.
serve "$tmp/delay.sock" "$tmp/delay.log" --threads 32 --filter=delay \
  file "$tmp/r1d" delay-write=1ms
array raid1-nbd-delay "r1c:r1d" level=1 "$tmp/r1c" \
  "nbd+unix:///?socket=$tmp/delay.sock"

array raid10-4-near2 "r10a:r10b r10c:r10d" level=10 chunk=64K \
  "$tmp/r10a" "$tmp/r10b" "$tmp/r10c" "$tmp/r10d"

if [ "$failures" -gt 0 ]; then
  say "$failures failures"
  exit 1
fi
say "every copy the same after overlapping writes"
