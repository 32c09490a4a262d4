#!/bin/bash
# raidsim tests: `raidsim map` prints the layout worked out by hand below,
# and bad input gets one error line naming the parameter and exit 1.
#
# Run: meson test -C build map
#  or: RAIDSIM=build/raidsim/raidsim tests/integration/test-map.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
[ -x "$RAIDSIM" ] || { echo "test-map.sh: $RAIDSIM is not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }

# expect "DESCRIPTION" "EXPECTED LINES" ARGS...: raidsim map -q ARGS must
# print exactly the expected piece lines (spaces squeezed).
expect ()
{
  local what=$1 want=$2 got
  shift 2
  if ! got=$("$RAIDSIM" map -q "$@" 2>"$tmp/err"); then
    fail "$what: exit status $?: $(cat "$tmp/err")"
    return
  fi
  got=$(printf '%s\n' "$got" | tr -s ' ')
  if [ "$got" != "$want" ]; then
    fail "$what"
    printf '  raidsim map -q %s\n  want:\n%s\n  got:\n%s\n' \
           "$*" "$want" "$got" | sed 's/^/    /'
  else
    echo "ok: $what"
  fi
}

# RAID 0, two 256M members, chunk 128K.  1M is array chunk 8; even chunks
# are on member 0 and odd ones on member 1, each at chunk (c div 2), so
# chunk 8 is member 0 chunk 4 (512K = 524288), chunk 9 member 1 chunk 4,
# and chunk 10 member 0 chunk 5 (640K = 655360), of which the last 44K
# (300K - 256K = 45056) are asked for.
expect "RAID 0, equal members, across chunks" \
"1048576 131072 0:524288
1179648 131072 1:524288
1310720 45056 0:655360" \
  level=0 chunk=128K member-size=256M member-size=256M 1M+300K

# RAID 0, members of 4, 2 and 3 chunks of 4K (A, B, C).  Zone 0 stripes
# A, B, C for 2 rows (array chunks 0-5), zone 1 stripes A and C for their
# third chunk (6 on A, 7 on C), zone 2 is A's fourth chunk (8).  Array
# 24K..36K is chunks 6, 7, 8: A at 8K, C at 8K, A at 12K.
expect "RAID 0, three zones" \
"24576 4096 0:8192
28672 4096 2:8192
32768 4096 0:12288" \
  level=0 chunk=4K member-size=16K member-size=8K member-size=12K 24K+12K

# Zone 0, row 1: chunk 4 is B's second chunk; a request inside one chunk
# is one piece.
expect "RAID 0, inside one chunk" \
"17000 100 1:4712" \
  level=0 chunk=4K member-size=16K member-size=8K member-size=12K 17000+100

# One member (a single drive): array byte x is member byte x; RAID 0
# still cuts at its 64K chunks (65536 here), RAID 1 does not.
expect "RAID 0, one member" \
"60000 5536 0:60000
65536 4464 0:65536" \
  level=0 chunk=64K member-size=1M 60000+10000
expect "RAID 1, one member" \
"60000 10000 0:60000" \
  level=1 member-size=1M 60000+10000

# RAID 1: one piece, every member at the array offset.
expect "RAID 1, three mirrors" \
"4096 8192 0:4096 1:4096 2:4096" \
  level=1 member-size=1M member-size=2M member-size=1M 4K+8K

# RAID 10 near, 2 copies, 3 members of 3 chunks: chunk c takes slots 2c
# and 2c+1, slot s being member (s mod 3), row (s div 3).  Chunk 1 is
# slots 2, 3: member 2 row 0, then member 0 row 1 (4K).  Chunk 2 is slots
# 4, 5: members 1 and 2, row 1.
expect "RAID 10, 3 members, n2" \
"4096 4096 2:0 0:4096
8192 4096 1:4096 2:4096" \
  level=10 chunk=4K member-size=12K member-size=12K member-size=12K 4K+8K

# RAID 10, 4 members, 3 copies, chunk 64K: chunk 1 is slots 3, 4, 5:
# member 3 row 0, members 0 and 1 row 1 (65536).  The request starts 1000
# bytes into the chunk.
expect "RAID 10, 4 members, n3" \
"66536 100 3:1000 0:66536 1:66536" \
  level=10 chunk=64K copies=3 member-size=1M member-size=1M \
  member-size=1M member-size=1M 66536+100

# data-offset shifts every member offset.
expect "RAID 0, data offset 8K" \
"0 4096 0:8192
4096 4096 1:8192" \
  level=0 chunk=4K data-offset=8K member-size=1M member-size=1M 0+8K

# Sizes read from member files, 1M and 512K, chunk 128K: zone 0 stripes
# the first 512K of both (array 0 to 1M), zone 1 is the last 512K of
# member 0 alone.  Array 1M is zone 1's first chunk: member 0 at 512K.
truncate -s 1M "$tmp/a.img"
truncate -s 512K "$tmp/b.img"
expect "RAID 0, sizes from files" \
"1048576 131072 0:524288" \
  level=0 member="$tmp/a.img" --file "$tmp/b.img" 1M+128K

# --runs: the member I/Os.  RAID 0, two members, chunk 128K, 1M at 0:
# chunks 0, 2, 4, 6 are member 0's rows 0 to 3, one run of 512K with 4
# pieces; chunks 1, 3, 5, 7 likewise on member 1.
expect "RAID 0, --runs, 1M over 2 members" \
"0:0 524288 4 0+131072,262144+131072,524288+131072,786432+131072
1:0 524288 4 131072+131072,393216+131072,655360+131072,917504+131072" \
  --runs level=0 chunk=128K member-size=256M member-size=256M 0+1M

# Across zones (A=16K, B=8K, C=12K, chunk 4K): array 12K to 32K is chunks
# 3 to 7: A row 1, B row 1, C row 1, then zone 1's A row 2 and C row 2.
# A's rows 1 and 2 are contiguous on A, so one run; C's too.
expect "RAID 0, --runs across a zone boundary" \
"0:4096 8192 2 12288+4096,24576+4096
1:4096 4096 1 16384+4096
2:4096 8192 2 20480+4096,28672+4096" \
  --runs level=0 chunk=4K member-size=16K member-size=8K member-size=12K 12K+20K

# RAID 10, 3 members, n2, chunk 4K, chunks 0 to 2 (slots 0 to 5: rows 0
# and 1 of every member).  Every copy: each member holds two chunks, one
# in each row, so one run each.  --runs=first: chunk 0 on member 0 row 0,
# chunk 1 on member 2 row 0, chunk 2 on member 1 row 1: three runs.
expect "RAID 10, --runs, every copy" \
"0:0 8192 2 0+4096,4096+4096
1:0 8192 2 0+4096,8192+4096
2:0 8192 2 4096+4096,8192+4096" \
  --runs level=10 chunk=4K member-size=12K member-size=12K member-size=12K 0+12K
expect "RAID 10, --runs=first" \
"0:0 4096 1 0+4096
2:0 4096 1 4096+4096
1:4096 4096 1 8192+4096" \
  --runs=first level=10 chunk=4K member-size=12K member-size=12K \
  member-size=12K 0+12K

# The summary states the array size: 1M + 512K.
if "$RAIDSIM" map level=0 member="$tmp/a.img" member="$tmp/b.img" \
     > "$tmp/summary.out" &&
   grep -q '^# array size 1572864 bytes, 2 zones$' "$tmp/summary.out"; then
  echo "ok: summary"
else
  fail "summary does not say '# array size 1572864 bytes, 2 zones'"
fi

# bad PARAMETER ARGS...: exit 1, nothing on stdout, one stderr line that
# names PARAMETER.
bad ()
{
  local param=$1 status=0
  shift
  "$RAIDSIM" map "$@" >"$tmp/out" 2>"$tmp/err" || status=$?
  if [ "$status" -ne 1 ]; then
    fail "map $*: exit status $status, want 1"
  elif [ -s "$tmp/out" ]; then
    fail "map $*: printed to stdout: $(head -n 3 "$tmp/out")"
  elif [ "$(wc -l <"$tmp/err")" -ne 1 ]; then
    fail "map $*: want one error line, got:"; cat "$tmp/err"
  elif ! grep -qw -- "$param" "$tmp/err"; then
    fail "map $*: error does not name '$param': $(cat "$tmp/err")"
  else
    echo "ok: bad $param: $(cat "$tmp/err")"
  fi
}

# Every parameter also as a long option, --KEY=VALUE, and members keep
# their order whichever form gives them: the three-zone case above with
# the middle member given as an option.
expect "RAID 0, three zones, long options" \
"24576 4096 0:8192
28672 4096 2:8192
32768 4096 0:12288" \
  --level=0 --chunk=4K member-size=16K --member-size=8K member-size=12K 24K+12K

two=(member-size=1M member-size=1M)
bad level level=5 "${two[@]}"
bad level --level=5 "${two[@]}"
bad read-policy level=1 read-policy=first "${two[@]}"
bad level level=0 level=1 "${two[@]}"
bad --frobnicate --frobnicate level=0 "${two[@]}"
bad level "${two[@]}"
bad chunk level=0 chunk=abc "${two[@]}"
bad chunk level=0 chunk=100K "${two[@]}"
bad chunk level=0 chunk=2K "${two[@]}"
bad chunk level=0 chunk=128M "${two[@]}"
# One member is a single drive (md's one-member RAID 0 and 1), not RAID
# 10's two copies.
bad copies level=10 member-size=1M
bad member level=0
bad member level=0 member-size=64K member-size=1M
bad member level=0 member="$tmp/missing.img" member-size=1M
bad member-size level=0 member-size=lots member-size=1M
# Sizes whose sum passes 2^63 - 1 (nbdkit's int64_t) are too large, not
# an array that wraps to 0 bytes; a RAID 1 of the same members is not.
bad member level=0 chunk=64K member-size=4194304T member-size=4194304T
grep -q "too large" "$tmp/err" || fail "RAID 0 past 8 EiB: $(cat "$tmp/err")"
bad member level=10 chunk=64K member-size=4194304T member-size=4194304T
if ! "$RAIDSIM" map -q level=1 member-size=8388607T member-size=8388607T \
     > /dev/null 2> "$tmp/err"; then
  fail "RAID 1 of two 8388607T members: $(cat "$tmp/err")"
fi
bad copies level=10 copies=3 "${two[@]}"
bad copies level=10 copies=x "${two[@]}"
bad copies level=1 copies=2 "${two[@]}"
bad foo level=0 foo=bar "${two[@]}"
bad runs --runs=last level=0 "${two[@]}" 0+4K
bad range level=0 "${two[@]}" 2M+1
bad range level=0 "${two[@]}" 1536K+513K
bad range level=0 "${two[@]}" 12x
bad range level=0 "${two[@]}" 0+0

if [ "$failures" -ne 0 ]; then
  echo "test-map.sh: $failures failures"
  exit 1
fi
echo "test-map.sh: all passed"
