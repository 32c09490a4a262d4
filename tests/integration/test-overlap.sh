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
# overlapping writes take turns, and writes that do not overlap do not
# wait for each other.
#
# Ordered cases.  One copy is an NBD export behind nbdkit's delay filter
# with delay-zero (zeroes wait 2 s there; writes do not wait), so that
# the order is forced rather than hoped for:
#   1. the array's bytes are filled with a write P;
#   2. X, a zero, is sent; the test waits until the file copy holds X's
#      zeroes while the delayed copy still holds P: X is in flight;
#   3. Y, a write that overlaps X, is sent.  With the range held, Y waits
#      for X on every copy, and every copy ends with Y over X.  Without
#      it, Y goes straight to both copies: the file copy gets X then Y,
#      the delayed copy Y then X, and the copies differ;
#   4. nbdkit is left running and the member files are compared with
#      what X then Y makes, byte for byte.
# Cases: RAID 1 with Y on X's block; RAID 10 (4 members, 2 near copies,
# chunk 64K: chunk 0 on members 0 and 1, chunk 1 on members 2 and 3,
# member 1 the delayed one) with Y on X's chunk, and with Y over the
# second half of X's chunk and the first half of the next (the ranges
# overlap without starting together).
# Then, on the RAID 10, member 1's server is stopped (SIGSTOP) while X is
# on its way to it, and Y, the next chunk, touching X's range but not
# overlapping it, must finish while X cannot: ranges that only touch do
# not wait for each other.
#
# Stress cases.  Several clients (tests/nbd-io --stamp, each write
# filled with a byte of its own) keep 32 writes each in flight to a few
# blocks, so that most writes overlap others; then, with nbdkit stopped,
# the copies are compared byte for byte: RAID 1's members with each
# other, and a 4-member RAID 10 with 2 near copies member 0 with 1 and 2
# with 3.  These prove no order, only that thousands of overlapping
# writes leave the copies equal and the lock neither deadlocks nor loses
# a wake-up (the test's timeout).
#
# Run: meson test -C build overlap
#  or: tests/integration/test-overlap.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires_nbdkit_plugin file
requires_nbdkit_filter delay
requires timeout

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-overlap.XXXXXX")
at_exit rm -rf "$tmp"
keep_going
K=1024

# ---- ordered cases -------------------------------------------------------

# nbd-io --stamp SEED fills a write with the byte 1 + SEED mod 255 (its
# only request has index 0).  P fills the array first; Y comes last.
P_SEED=1 P_BYTE=2
Y_SEED=100 Y_BYTE=101

# fill FILE LENGTH BYTE: LENGTH bytes of BYTE.
fill ()
{
  head -c "$2" /dev/zero | tr '\0' "\\$(printf '%03o' "$3")" >"$1"
}
fill "$tmp/p.64k" $(( 64 * K )) "$P_BYTE"
fill "$tmp/y.64k" $(( 64 * K )) "$Y_BYTE"
fill "$tmp/zero.64k" $(( 64 * K )) 0

# holds FILE OFFSET LENGTH WHAT: FILE's bytes [OFFSET, OFFSET + LENGTH)
# are those of WHAT (p, y or zero), from the start of its pattern.
holds ()
{
  cmp -s -i "$2:0" -n "$3" "$1" "$tmp/$4.64k"
}

# request URI [NBD-IO-OPTIONS...] -- LINE: send one request, in the
# foreground, and fail the test if it fails.
request ()
{
  local uri=$1 line
  shift
  line=${*: -1}
  if ! echo "$line" | "$NBD_IO" "${@:1:$#-1}" "$uri"; then
    die "nbd-io '$line' against $uri failed"
  fi
}

# catch_x FILE-COPY DELAYED-COPY: wait until X's zeroes are on the file
# copy while the delayed copy still holds P at the same member offset 0;
# fails if X reached the delayed copy before the test saw it in flight
# (the machine stalled for longer than the delay), or after 30 s.
catch_x ()
{
  local i
  for (( i = 0; i < 1500; i++ )); do
    if holds "$1" 0 $(( 64 * K )) zero; then
      holds "$2" 0 $(( 64 * K )) p
      return
    fi
    kill -0 "$X_PID" 2>/dev/null || return 1
    sleep 0.02
  done
  return 1
}

# ordered NAME URI FILE-COPY DELAYED-COPY Y-OFFSET: fill, send X (zero
# [0, 64K)) and, once it is in flight, Y (a write of 64K at Y-OFFSET);
# wait for both.  Up to three tries if X was not caught in flight.
ordered ()
{
  local name=$1 uri=$2 fcopy=$3 dcopy=$4 yoff=$5 try
  for (( try = 1; try <= 3; try++ )); do
    request "$uri" --stamp "$P_SEED" -- "w 0 $(( 256 * K ))"
    echo "z 0 $(( 64 * K ))" | "$NBD_IO" "$uri" &
    X_PID=$!
    if catch_x "$fcopy" "$dcopy"; then
      request "$uri" --stamp "$Y_SEED" -- "w $yoff $(( 64 * K ))"
      wait "$X_PID" || die "$name: the zero X failed"
      return 0
    fi
    wait "$X_PID" || die "$name: the zero X failed"
    say "$name: X was not caught in flight (try $try); again"
  done
  fail "$name: X, a zero slowed down 2 s on one copy, was never seen in flight"
  return 1
}

# A RAID 1 of a file (a) and an NBD export whose zeroes take 2 s (b).
r1a=$tmp/r1-a r1b=$tmp/r1-b
truncate -s 4M "$r1a" "$r1b"
serve "$tmp/r1-b.sock" "$tmp/r1-b.log" --filter=delay file "$r1b" \
  delay-zero=2
serve "$tmp/r1.sock" "$tmp/r1.log" "$RAID_PLUGIN" level=1 "$r1a" \
  "nbd+unix:///?socket=$tmp/r1-b.sock"
uri="nbd+unix:///?socket=$tmp/r1.sock"

say "RAID 1: Y on X's block while X is in flight"
if ordered "RAID 1, same block" "$uri" "$r1a" "$r1b" 0; then
  if holds "$r1a" 0 $(( 64 * K )) y && holds "$r1b" 0 $(( 64 * K )) y &&
     holds "$r1a" $(( 64 * K )) $(( 64 * K )) p &&
     holds "$r1b" $(( 64 * K )) $(( 64 * K )) p; then
    ok "RAID 1, same block: both copies hold Y over X"
  else
    fail "RAID 1, same block: want Y on both copies; the file copy" \
         "holds $(holds "$r1a" 0 $(( 64 * K )) y && echo Y || echo 'not Y')," \
         "the delayed copy $(holds "$r1b" 0 $(( 64 * K )) y && echo Y ||
                             echo 'not Y') (X, the zero, landed last there)"
  fi
fi

# A RAID 10 of 4 members, member 1 the delayed one.
r10=("$tmp/r10-0" "$tmp/r10-1" "$tmp/r10-2" "$tmp/r10-3")
truncate -s 4M "${r10[@]}"
serve "$tmp/r10-1.sock" "$tmp/r10-1.log" --filter=delay file "${r10[1]}" \
  delay-zero=2
r10_server=$SERVE_PID
# Registered after serve's stop_pid, so run before it: a stopped nbdkit
# would not act on stop_pid's SIGTERM.
at_exit kill -CONT "$r10_server"
serve "$tmp/r10.sock" "$tmp/r10.log" "$RAID_PLUGIN" level=10 chunk=64K \
  "${r10[0]}" "nbd+unix:///?socket=$tmp/r10-1.sock" "${r10[2]}" "${r10[3]}"
uri="nbd+unix:///?socket=$tmp/r10.sock"

say "RAID 10: Y on X's chunk while X is in flight"
if ordered "RAID 10, same chunk" "$uri" "${r10[0]}" "${r10[1]}" 0; then
  if holds "${r10[0]}" 0 $(( 64 * K )) y &&
     holds "${r10[1]}" 0 $(( 64 * K )) y; then
    ok "RAID 10, same chunk: members 0 and 1 hold Y over X"
  else
    fail "RAID 10, same chunk: want Y on members 0 and 1 (member 0:" \
         "$(holds "${r10[0]}" 0 $(( 64 * K )) y && echo Y || echo 'not Y')," \
         "member 1: $(holds "${r10[1]}" 0 $(( 64 * K )) y && echo Y ||
                      echo 'not Y'))"
  fi
fi

# Y = array [32K, 96K): the second half of chunk 0 (members 0 and 1 at
# [32K, 64K)) and the first half of chunk 1 (members 2 and 3 at
# [0, 32K)).  X then Y leaves chunk 0 zero then Y, chunk 1 Y then P.
say "RAID 10: Y over the second half of X's chunk and half the next"
if ordered "RAID 10, partial overlap" "$uri" "${r10[0]}" "${r10[1]}" \
     $(( 32 * K )); then
  bad=""
  for m in 0 1; do
    holds "${r10[m]}" 0 $(( 32 * K )) zero &&
      holds "${r10[m]}" $(( 32 * K )) $(( 32 * K )) y ||
      bad+=" member $m: not zero then Y;"
  done
  for m in 2 3; do
    holds "${r10[m]}" 0 $(( 32 * K )) y &&
      holds "${r10[m]}" $(( 32 * K )) $(( 32 * K )) p ||
      bad+=" member $m: not Y then P;"
  done
  if [ -z "$bad" ]; then
    ok "RAID 10, partial overlap: every copy holds Y over X"
  else
    fail "RAID 10, partial overlap: want Y over X on every copy:$bad"
  fi
fi

# Touching, not overlapping: X = zero [0, 64K) (members 0 and 1),
# Y = write [64K, 128K) (members 2 and 3).  Member 1's server is stopped
# before X is sent, so X cannot finish until it goes on; Y must finish
# meanwhile.
say "RAID 10: Y touching X's range finishes while X cannot"
request "$uri" --stamp "$P_SEED" -- "w 0 $(( 256 * K ))"
kill -STOP "$r10_server"
echo "z 0 $(( 64 * K ))" | "$NBD_IO" "$uri" &
X_PID=$!
for (( i = 0; i < 1500; i++ )); do
  holds "${r10[0]}" 0 $(( 64 * K )) zero && break
  sleep 0.02
done
holds "${r10[0]}" 0 $(( 64 * K )) zero ||
  fail "touching: X never reached member 0"
echo "w $(( 64 * K )) $(( 64 * K ))" >"$tmp/y.req"
if timeout 20 "$NBD_IO" --stamp "$Y_SEED" "$uri" <"$tmp/y.req"; then
  if kill -0 "$X_PID" 2>/dev/null; then
    ok "touching: Y finished while X was held up on member 1"
  else
    fail "touching: X finished though member 1's server is stopped"
  fi
else
  fail "touching: Y, which does not overlap X, did not finish in 20 s" \
       "while X was held up (it waited for X?)"
fi
kill -CONT "$r10_server"
wait "$X_PID" || die "touching: the zero X failed"
if holds "${r10[0]}" 0 $(( 64 * K )) zero &&
   holds "${r10[1]}" 0 $(( 64 * K )) zero &&
   holds "${r10[2]}" 0 $(( 64 * K )) y && holds "${r10[3]}" 0 $(( 64 * K )) y
then
  ok "touching: X on members 0 and 1, Y on members 2 and 3"
else
  fail "touching: the members do not hold X on chunk 0 and Y on chunk 1"
fi

# ---- stress cases --------------------------------------------------------

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
    writes "$c" > "$tmp/writes.$c"
    "$NBD_IO" --depth 32 --stamp $(( c * 61 )) "nbd+unix:///?socket=$1" \
      <"$tmp/writes.$c" &
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
    cmp -l "$2" "$3" >"$tmp/cmp.out" || true
    fail "$1: $(basename "$2") and $(basename "$3") differ in" \
         "$(wc -l <"$tmp/cmp.out") bytes"
  elif ! cmp -s -n 262144 "$2" /dev/zero; then
    ok "$1: $(basename "$2") and $(basename "$3") are the same"
  else
    fail "$1: no write reached $(basename "$2")"
  fi
}

# array NAME PAIRS PARAMS...: serve the plugin with PARAMS, hammer it,
# stop it and compare each pair of member files in PAIRS ("a:b c:d").
array ()
{
  local name=$1 pairs=$2 pair
  shift 2
  serve "$tmp/$name.sock" "$tmp/$name.log" --threads 16 "$RAID_PLUGIN" "$@"
  hammer "$tmp/$name.sock"
  stop_pid "$SERVE_PID"
  for pair in $pairs; do
    same_copies "$name" "$tmp/${pair%%:*}" "$tmp/${pair##*:}"
  done
}

for f in s1a s1b s1c s1d s10a s10b s10c s10d; do
  truncate -s 4M "$tmp/$f"
done

array raid1-threads "s1a:s1b" level=1 io=threads "$tmp/s1a" "$tmp/s1b"

# The second copy behind a member server that takes 1 ms a write.
serve "$tmp/delay.sock" "$tmp/delay.log" --threads 32 --filter=delay \
  file "$tmp/s1d" delay-write=1ms
array raid1-nbd-delay "s1c:s1d" level=1 "$tmp/s1c" \
  "nbd+unix:///?socket=$tmp/delay.sock"

array raid10-4-near2 "s10a:s10b s10c:s10d" level=10 chunk=64K \
  "$tmp/s10a" "$tmp/s10b" "$tmp/s10c" "$tmp/s10d"

end_checks "every copy the same after overlapping writes, Y over X wherever they overlap"
