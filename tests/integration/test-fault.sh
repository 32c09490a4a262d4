#!/bin/bash
# raidsim tests: a member that fails for real, in the middle of the work.
#
# Member 0 of each array is not a file but an nbdfuse view of
#   nbdkit --filter=error memory 64M error-rate=100% error-file=PATH
# so every read and write to it fails with EIO from the moment PATH
# exists; the other members are ordinary files.  The arrays are a RAID 1
# of 2 members and a RAID 10 of 4 (member 0's partner is member 1).
#
# W: copy random data onto the array with nbdcopy, creating PATH exactly
#    half way through the stream.  The copy must succeed, the plugin
#    must log that member 0 failed and the array is degraded, the array
#    must read back equal to the data, and every surviving member must
#    hold its share byte for byte (check-members, built on the
#    independent reference layout in tests/lib/refmap.c).
# R: write the data with no fault, then create PATH and read everything
#    back with read-policy=first, which sends reads to member 0 first:
#    the failed reads must be retried on the other copy, the client sees
#    no error, and the data read back is equal.  On the RAID 10 the first
#    read is one 1M request alone (tests/lib/nbd-io), so that member 0's
#    share of it is one read carrying several pieces (a run), which the
#    plugin must retry piece by piece, each piece's failure logged: alone,
#    because once any request's repair has failed member 0, no other
#    request reads it, and a request that found it failed logs nothing.
# E: the same on a RAID 0, which has no other copy: the read must fail.
# Skips (77) if FUSE, nbdfuse or nbdcopy is missing; needs no root.
#
# nbdfuse serves files through the page cache and has no direct-I/O
# option (libfuse 3 refuses -o direct_io), so after scenario R's writes
# the failing member's pages are still cached and reads would never
# reach the error filter.  The test drops that file's cache
# (POSIX_FADV_DONTNEED through dd iflag=nocache) after creating PATH,
# and checks the error filter's log to prove the reads did fail.
#
# Run: meson test -C build fault
#  or: tests/integration/test-fault.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN CHECK_MEMBERS NBD_IO
requires nbdcopy

tmp=$(mktemp -d /var/tmp/raidsim-fault.XXXXXX)
at_exit rm -rf "$tmp"
# This test needs FUSE, but neither root nor loop devices.
requires_fuse "$tmp"

MEMBER_SIZE=64M
member_bytes=$(( 64 * 1024 * 1024 ))
CHUNK=128K

# setup DIR NMEMBERS: the failing member as DIR/bad/m and NMEMBERS - 1
# files DIR/m1.img ...; sets MEMBERS (member=... parameters) and FAIL
# (the error file).
setup ()
{
  local d=$1 n=$2 i
  mkdir -p "$d"
  FAIL="$d/fail"
  rm -f "$FAIL"
  fuse_attach "$d/bad" m --command \
    nbdkit -s --exit-with-parent --filter=error memory "$MEMBER_SIZE" \
           error-rate=100% error-file="$FAIL"
  MEMBERS=("member=$d/bad/m")
  for (( i = 1; i < n; i++ )); do
    truncate -s "$MEMBER_SIZE" "$d/m$i.img"
    MEMBERS+=("member=$d/m$i.img")
  done
}

# check_survivors DIR LEVEL N DATA: every member but 0 holds its share.
check_survivors ()
{
  local d=$1 level=$2 n=$3 data=$4 i
  local args=("level=$level" "chunk=$CHUNK" "data=$data"
              "skip-member=$MEMBER_SIZE")
  for (( i = 1; i < n; i++ )); do
    args+=("member=$d/m$i.img")
  done
  if ! "$CHECK_MEMBERS" "${args[@]}" | sed "s|^|$RAIDSIM_PROG:   |"; then
    die "$d: a surviving member does not hold what the layout says"
  fi
  if [ "$level" = 1 ]; then
    cmp -n "$(stat -c %s "$data")" "$data" "$d/m1.img" ||
      die "$d: RAID 1 survivor differs from the data"
  fi
}

# injected DIR OP: the error filter failed at least one OP (pread or
# pwrite) on the failing member.
injected ()
{
  grep -q "injecting EIO error into $2" "$1/bad.log"
}

# W: the member fails half way through a write.
scenario_w ()
{
  local level=$1 n=$2 d="$tmp/w-$1" data="$tmp/data-$1.img" half start
  start=$SECONDS
  say "W, RAID $level, $n members: member 0 fails half way through a copy"
  setup "$d" "$n"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" \
    level="$level" chunk="$CHUNK" "${MEMBERS[@]}"

  half=$(( $(stat -c %s "$data") / 2 ))
  # head writes the first half into the pipe and exits once nbdcopy has
  # taken all but the last pipe buffer of it; only then does PATH appear.
  if ! { head -c "$half" "$data"; touch "$FAIL"; tail -c +$(( half + 1 )) "$data"; } |
       nbdcopy - "$(uri "$d/sock")"; then
    cat "$d/nbdkit.log"
    die "W, RAID $level: nbdcopy failed: the client saw an error"
  fi
  injected "$d" pwrite ||
    die "W, RAID $level: no write ever failed on member 0"
  if ! grep -q 'member 0 (.*) failed on .*; array is degraded' "$d/nbdkit.log"; then
    cat "$d/nbdkit.log"
    die "W, RAID $level: the plugin did not log member 0 as failed/degraded"
  fi
  say "plugin log: $(grep -m 1 -i 'degraded' "$d/nbdkit.log")"

  nbdcopy "$(uri "$d/sock")" "$d/out.img"
  truncate -s "$(stat -c %s "$data")" "$d/out.img"
  cmp "$data" "$d/out.img" ||
    die "W, RAID $level: the array reads back different data"
  stop_pid "$SERVE_PID"
  check_survivors "$d" "$level" "$n" "$data"
  fuse_detach "$d/bad" "$FUSE_PID"
  say "W, RAID $level: ok ($(( SECONDS - start )) s)"
  rm -rf "$d"
}

# R: the member fails after the data is written; reads must fail over.
scenario_r ()
{
  local level=$1 n=$2 d="$tmp/r-$1" data="$tmp/data-$1.img" start
  start=$SECONDS
  say "R, RAID $level, $n members: member 0 fails before reading back"
  setup "$d" "$n"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" \
    level="$level" chunk="$CHUNK" read-policy=first "${MEMBERS[@]}"

  nbdcopy "$data" "$(uri "$d/sock")" ||
    die "R, RAID $level: writing with no fault failed"
  if grep -i 'degraded' "$d/nbdkit.log"; then
    die "R, RAID $level: degraded before any fault"
  fi

  touch "$FAIL"
  drop_page_cache "$d/bad/m"
  if [ "$level" = 10 ]; then
    # Array bytes [0, 1M) alone: member 0 holds chunks 0, 2, 4 and 6 of
    # them, in rows 0 to 3, so it gets one read of 4 pieces at member
    # offset 0.  When that fails the plugin must read each piece again
    # on its own, and each fails and is logged with its offset (member 0
    # is not failed yet: only the repair after this can fail it), before
    # the other copy is read.  Member offsets 128K to 384K start inside
    # the run: only a piece-by-piece retry names them.
    if ! echo "r 0 1048576" | "$NBD_IO" "$(uri "$d/sock")"; then
      cat "$d/nbdkit.log"
      die "R, RAID 10: reading array bytes [0, 1M) failed: the client saw an error"
    fi
    local off
    for off in 0 131072 262144 393216; do
      if ! grep -q "pread: member 0 .* at offset $off: .*reading another copy" \
           "$d/nbdkit.log"; then
        cat "$d/nbdkit.log"
        die "R, RAID 10: a failed run of pieces was not retried piece by" \
            "piece (no failed read of member 0 at offset $off logged)"
      fi
    done
  fi
  # 1M requests, many at once: the failed reads are retried on the
  # other copy (on the RAID 10, member 0 may already be failed by now).
  if ! nbdcopy --request-size=1048576 "$(uri "$d/sock")" "$d/out.img"; then
    cat "$d/nbdkit.log"
    die "R, RAID $level: reading back failed: the client saw an error"
  fi
  injected "$d" pread ||
    die "R, RAID $level: no read reached the failing member (page cache?)"
  truncate -s "$(stat -c %s "$data")" "$d/out.img"
  cmp "$data" "$d/out.img" ||
    die "R, RAID $level: the array reads back different data"
  grep -m 3 -i 'member' "$d/nbdkit.log" | sed "s|^|$RAIDSIM_PROG:   plugin log: |"
  stop_pid "$SERVE_PID"
  check_survivors "$d" "$level" "$n" "$data"
  fuse_detach "$d/bad" "$FUSE_PID"
  say "R, RAID $level: ok ($(( SECONDS - start )) s)"
  rm -rf "$d"
}

# E: RAID 0 has no other copy, so reading a failed member is an error.
scenario_e ()
{
  local d="$tmp/e-0" data="$tmp/data-0.img" start
  start=$SECONDS
  say "E, RAID 0, 2 members: member 0 fails; reads of it must fail"
  setup "$d" 2
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" \
    level=0 chunk="$CHUNK" "${MEMBERS[@]}"
  nbdcopy "$data" "$(uri "$d/sock")" ||
    die "E, RAID 0: writing with no fault failed"
  touch "$FAIL"
  drop_page_cache "$d/bad/m"
  if nbdcopy "$(uri "$d/sock")" "$d/out.img" 2>"$d/nbdcopy.err"; then
    die "E, RAID 0: reading a failed member succeeded"
  fi
  grep -q 'Input/output error' "$d/nbdcopy.err" ||
    die "E, RAID 0: the client did not see EIO: $(cat "$d/nbdcopy.err")"
  injected "$d" pread ||
    die "E, RAID 0: no read reached the failing member"
  stop_pid "$SERVE_PID"
  fuse_detach "$d/bad" "$FUSE_PID"
  say "E, RAID 0: ok, the client got EIO ($(( SECONDS - start )) s)"
  rm -rf "$d"
}

# Data as large as each array: RAID 1 holds one member, RAID 10 of 4
# members with 2 copies holds two, RAID 0 of 2 holds two.
head -c "$member_bytes" /dev/urandom > "$tmp/data-1.img"
head -c $(( 2 * member_bytes )) /dev/urandom > "$tmp/data-10.img"
cp "$tmp/data-10.img" "$tmp/data-0.img"

scenario_w 1 2
scenario_w 10 4
scenario_r 1 2
scenario_r 10 4
scenario_e

say "all scenarios passed"
