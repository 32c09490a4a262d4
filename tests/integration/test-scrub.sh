#!/bin/bash
# raidsim tests: scrub, md's check and repair, through the control
# socket (issue 13, item 5).
#
# For a RAID 1 of 2 (32M), a RAID 10 of 4 with 64K chunks and one with
# 16K chunks (16M members), made by raidsim create --assume-clean: one
# byte of the second copy of some data flipped offline, in the member
# image; then, served with control=:
#
#   check   reports md's mismatch_cnt.  md compares in resync blocks of
#           RESYNC_BLOCK_SIZE (64 KiB, drivers/md/raid1-10.c), which
#           raid10_sync_request also stops at the chunk's end, and adds
#           a block's sectors for each copy that differs: so 65536 / 512
#           = 128 with 64K chunks and on RAID 1, 16384 / 512 = 32 with
#           16K chunks.  The same count is in the log and, at exit, in
#           the statistics JSON.
#   repair  rewrites the differing copy from the first copy (md's
#           repair): the pairs of copies are byte-identical again, and
#           the flipped byte is back to what it was (0), not the other
#           way round.
#   check   reports 0.
#
# Mutants killed: scrub_piece counting blocks, not sectors (1, not
# 128); SCRUB_BLOCK of 1 MiB (2048 on the RAID 1); block_len not
# cutting blocks at the piece's end (chunk) would be hidden by the
# 16K pieces, so the 16K case pins md's per-chunk count instead (32);
# repair not writing (the copies still differ); repair writing the
# differing copy over the first (the byte stays 0x5a); scrub_start not
# resetting mismatch_cnt (the last check says 256).
#
# Skips (77) if nbdkit, mdadm or perl's JSON::PP is missing.
#
# Run: meson test -C build scrub
#  or: tests/integration/test-scrub.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires mdadm
requires_perl_module JSON::PP

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-scrub.XXXXXX")
at_exit rm -rf "$tmp"

byte_at () { od -An -tu1 -j "$2" -N1 "$1" | tr -d ' '; }

# scrub VERB: run it and wait until it has ended; prints mismatch_cnt.
scrub ()
{
  local i
  ctl "$1" >"$1.out" 2>&1 || fail "$1: $(cat "$1.out")"
  for (( i = 0; i < 600; i++ )); do
    ctl --json detail >detail.json 2>&1 || fail "detail: $(cat detail.json)"
    if [ "$(jget detail.json sync.action)" = idle ]; then
      [ "$(jget detail.json sync.last_check)" = "$1" ] &&
        [ "$(jget detail.json sync.last_check_complete)" = 1 ] ||
        fail "$1 ended as $(jget detail.json sync.last_check), complete=$(jget detail.json sync.last_check_complete)"
      jget detail.json sync.mismatch_cnt
      return 0
    fi
    sleep 0.1
  done
  fail "$1 did not end in 60 s"
}

# case NAME LEVEL CHUNK SIZE FLIP-MEMBER FLIP-ARRAY-AREA-OFFSET EXPECT PAIRS MEMBERS...
run_case ()
{
  local name=$1 level=$2 chunk=$3 size=$4 flip=$5 at=$6 expect=$7 pairs=$8
  shift 8
  d=$tmp/$name
  FAIL_LOGS=("$d/nbdkit.log")
  CTL=$d/ctl
  mkdir -p "$d"
  cd "$d"
  truncate -s "$size" "$@"
  "$RAIDSIM" create --level="$level" $( [ "$chunk" = - ] || echo --chunk="$chunk" ) \
    --assume-clean "$@" >create.out 2>&1 || fail "raidsim create: $(cat create.out)"
  local off pos
  off=$(md_data_offset "$flip")
  pos=$(( off + at ))
  [ "$(byte_at "$flip" $pos)" = 0 ] || fail "the byte to flip is not 0"
  printf '\x5a' | dd of="$flip" bs=1 seek=$pos conv=notrunc status=none
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" control="$d/ctl" \
    stats="$d/stats.json" || fail "the plugin did not start"
  "$NBD_IO" "$(uri "$d/sock")" <<<"r 0 4096" >/dev/null ||
    fail "the array cannot be read"

  local n
  n=$(scrub check)
  [ "$n" = "$expect" ] || fail "check: mismatch_cnt $n, expected $expect"
  grep -q "check: done: .* mismatch_cnt $expect " nbdkit.log ||
    fail "the log does not say mismatch_cnt $expect"
  n=$(scrub repair)
  [ "$n" = "$expect" ] || fail "repair: mismatch_cnt $n, expected $expect"
  [ "$(byte_at "$flip" $pos)" = 0 ] ||
    fail "repair left $(byte_at "$flip" $pos) in $flip, not the first copy's 0"
  local p
  for p in $pairs; do
    md_same_data "${p%,*}" "${p#*,}"
  done
  n=$(scrub check)
  [ "$n" = 0 ] || fail "check after repair: mismatch_cnt $n, expected 0"
  stop_pid "$SERVE_PID"
  [ "$(jget stats.json scrub.mismatch_cnt)" = 0 ] &&
    [ "$(jget stats.json scrub.last)" = check ] ||
    fail "the statistics JSON says $(jget stats.json scrub.last) $(jget stats.json scrub.mismatch_cnt)"
  say "$name: check $expect, repair $expect and the copies agree, check 0"
  cd "$tmp"
}

# The byte lies in the second copy: b.img on RAID 1; on a RAID 10 of 4
# with 2 copies, member 3 holds the second copy of every chunk that
# members 2 and 3 hold (md's near layout).
run_case raid1 1 - 32M b.img $(( 5 * 1048576 + 12345 )) 128 "a.img,b.img" \
  a.img b.img
run_case raid10-64k 10 64K 16M d.img $(( 2 * 1048576 + 777 )) 128 \
  "a.img,b.img c.img,d.img" a.img b.img c.img d.img
run_case raid10-16k 10 16K 16M d.img $(( 3 * 1048576 + 4097 )) 32 \
  "a.img,b.img c.img,d.img" a.img b.img c.img d.img
say "ok"
