#!/bin/bash
# raidsim tests: the plugin never answers wrong data with a success
# status, and never writes when it must not (issue 12, items 1 to 4, and
# the read repair, extents and -r cases of item 8).
#
# Members are files, or NBD exports served by nbdkit's file plugin,
# some behind nbdkit's error filter with a trigger file
# (error-pread-file=, error-pwrite-file=), so that a fault starts and
# stops at an exact point of the test: nothing here depends on timing.
# Requests are sent by nbd-io (exact requests; its writes are the byte
# 0x5a), nbdcopy and nbdinfo.
#
# dead     RAID 1 of two NBD members holding 16M of random data; both
#          member servers are killed and a write fails.  No copy can
#          answer, so block status and reads must fail: nbdinfo --map
#          must fail and never say "zero", and nbdcopy must fail
#          rather than copy zeros.
# extents  RAID 1, member 0 failed by a write error, then a trim punches
#          a hole in member 1 only: the map says hole,zero there (the
#          failed member's allocation is not asked) and data elsewhere.
# shrink1  RAID 1, read-policy=first b.img a.img, 16M of data; b.img is
#          truncated to 0 while served.  A 1M read at 15M succeeds from
#          a.img, b.img stays 0 bytes long (no rewrite grows it back),
#          the log says b.img is shorter than at start, and the whole
#          array reads back equal to the data.
# shrink10 the same on a RAID 10 with io=uring, where the truncated
#          member's read is one that io_uring completes.
# shrink0  RAID 0 of two files, one cut to half its size while served:
#          block status must fail with EIO, not call the lost half a
#          hole of zeros.
# last1    RAID 1 of two NBD members: member 0 fails (write error), then
#          one write fails on member 1, the last in-sync copy.  That
#          write fails with EIO, member 1 is kept, the log says so, and
#          reads and later writes work.
# last10   RAID 10 of four: member 0 fails; then member 1's writes fail
#          (it holds the only other copy of chunk 0) and so do member
#          2's (whose chunks member 3 also holds).  The write to chunk 0
#          fails with EIO and member 1 is kept; member 2 is failed and
#          the write to chunk 1 succeeds; everything reads back.
# repair   RAID 1, read-policy=first: member 0 is made stale in [1M,2M)
#          behind the server, then one read there fails on it (error
#          filter on) and succeeds on member 1; the repair rewrites
#          member 0, whose bytes must then equal the data (cmp).
# ro       nbdkit -r: member 0 stale and failing every read, a whole
#          copy-out succeeds from member 1, member 0's file is not
#          changed, no member is failed, the file member is held open
#          read-only, and the log says once that read repair is off.
#
# Each scenario's comment in the code names a mutant of the plugin that
# it kills.  Skips (77) if nbdkit's file plugin or error filter, nbdcopy
# or nbdinfo is missing.  Needs no root.
#
# Run: meson test -C build wrong-data
#  or: tests/integration/test-wrong-data.sh [SCENARIO...]   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires nbdcopy
requires nbdinfo
requires_nbdkit_plugin file
requires_nbdkit_filter error

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-wrong.XXXXXX")
at_exit rm -rf "$tmp"

MiB=$(( 1024 * 1024 ))

# member DIR I NBDKIT-ARGS...: serve member I with nbdkit (plugin and
# filter arguments as given) on DIR/mI.sock; sets MEMBER_URI and
# MEMBER_PID.
member ()
{
  local d=$1 i=$2
  shift 2
  rm -f "$d/m$i.pid"
  nbdkit -f --exit-with-parent -U "$d/m$i.sock" -P "$d/m$i.pid" "$@" \
         >>"$d/m$i.log" 2>&1 &
  MEMBER_PID=$!
  MEMBER_URI=$(uri "$d/m$i.sock")
  at_exit stop_pid "$MEMBER_PID"
  wait_for_file "$d/m$i.pid" "$MEMBER_PID" 30 ||
    die "member $i: nbdkit $* did not start: $(cat "$d/m$i.log")"
}

# faulty DIR I OP: serve DIR/mI.img as member I behind the error filter,
# failing every OP (pread or pwrite) while DIR/failI exists.
faulty ()
{
  member "$1" "$2" --filter=error file "$1/m$2.img" \
    "error-$3-rate=100%" "error-$3-file=$1/fail$2"
}

# io DIR REQUESTS: send REQUESTS (nbd-io's language) to the array in
# one connection; its status is nbd-io's.
io ()
{
  printf '%s\n' "$2" | "$NBD_IO" "$(uri "$1/sock")" 2>>"$1/nbd-io.err"
}

# stamp FILE OFFSET LENGTH: what an nbd-io write leaves, in FILE.
stamp ()
{
  head -c "$3" /dev/zero | tr '\0' '\132' |
    dd of="$1" bs=4096 seek=$(( $2 / 4096 )) conv=notrunc status=none
}

# copy_out DIR OUT: the whole array into OUT; nbdcopy's status.
copy_out ()
{
  rm -f "$2"
  nbdcopy "$(uri "$1/sock")" "$2" 2>>"$1/nbdcopy.err"
}

# logged DIR PATTERN: the plugin's log has a line matching PATTERN.
logged ()
{
  grep -q -- "$2" "$1/nbdkit.log"
}

# scenario NAME WHAT: a fresh directory for it, whose nbdkit.log a
# failure shows.
scenario ()
{
  SCENARIO_DIR="$tmp/$1"
  FAIL_LOGS=("$SCENARIO_DIR/nbdkit.log")
  mkdir -p "$SCENARIO_DIR"
  say "$1: $2"
}

# dead.  Mutant killed: extents_piece adding a hole for a range where no
# copy could answer (today's code, and "skip a copy that cannot tell"
# without the check that one did).
scenario_dead ()
{
  scenario dead "RAID 1, both NBD member servers killed: no zeros, only EIO"
  local d=$SCENARIO_DIR pids=() i
  head -c $(( 16 * MiB )) /dev/urandom > "$d/data"
  for i in 0 1; do
    truncate -s $(( 16 * MiB )) "$d/m$i.img"
    member "$d" "$i" file "$d/m$i.img"
    pids+=("$MEMBER_PID")
  done
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 \
    "$(uri "$d/m0.sock")" "$(uri "$d/m1.sock")"
  nbdcopy "$d/data" "$(uri "$d/sock")" || fail "dead: copying in failed"
  for i in "${pids[@]}"; do
    kill -KILL "$i"
    { wait "$i"; } 2>/dev/null || true
  done
  if io "$d" "w 0 4096"; then
    fail "dead: a write with both member servers dead succeeded"
  fi
  if nbdinfo --map "$(uri "$d/sock")" >"$d/map" 2>"$d/map.err"; then
    cat "$d/map" >&2
    fail "dead: nbdinfo --map succeeded with no member alive"
  fi
  if grep -q zero "$d/map"; then
    cat "$d/map" >&2
    fail "dead: block status called data that no copy holds zeros"
  fi
  if copy_out "$d" "$d/out"; then
    fail "dead: nbdcopy read the whole array with no member alive"
  fi
  say "dead: ok: $(grep -m 1 -i 'error' "$d/map.err" || echo 'map failed')"
}

# extents.  Mutant killed: extents_piece asking a failed member too (it
# says data where the live copy is a hole).
scenario_extents ()
{
  scenario extents "RAID 1, member 0 failed: extents come from the live copy"
  local d=$SCENARIO_DIR
  head -c $(( 4 * MiB )) /dev/urandom > "$d/data"
  truncate -s $(( 4 * MiB )) "$d/m0.img" "$d/m1.img"
  faulty "$d" 0 pwrite
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 \
    "$MEMBER_URI" "$d/m1.img"
  nbdcopy "$d/data" "$(uri "$d/sock")" ||
    fail "extents: copying in failed"
  touch "$d/fail0"
  io "$d" "w 0 4096" || fail "extents: a write with one copy failing failed"
  rm "$d/fail0"
  logged "$d" "member 0 .* failed on pwrite" ||
    fail "extents: member 0 was not failed"
  io "$d" "t $MiB $MiB" || fail "extents: trim failed"
  nbdinfo --map "$(uri "$d/sock")" >"$d/map" ||
    fail "extents: nbdinfo --map failed"
  awk '{ print $1, $2, $3 }' "$d/map" > "$d/map.short"
  printf '%s\n' "0 $MiB 0" "$MiB $MiB 3" "$(( 2 * MiB )) $(( 2 * MiB )) 0" \
    > "$d/map.want"
  if ! cmp -s "$d/map.short" "$d/map.want"; then
    cat "$d/map" >&2
    fail "extents: the map is not data, hole,zero at [1M,2M), data"
  fi
  say "extents: ok"
}

# shrink1.  Mutant killed: a read that meets the end of a file member
# taken as an ordinary read error (EIO), so the member is not failed at
# once but rewritten, which grows it back (today's code); with the
# repair's size check in place the log names the member's size instead
# of the shrink, which this scenario checks too.
shrink1 ()
{
  local engine
  # Both engines meet the end of the file in their own code.
  for engine in uring threads; do
    shrink1 "$engine"
    run_cleanups
    at_exit rm -rf "$tmp"
  done
}

scenario_shrink1 ()
{
  scenario shrink1 "RAID 1, a member truncated to 0 while served"
  local d=$SCENARIO_DIR size
  head -c $(( 16 * MiB )) /dev/urandom > "$d/data"
  truncate -s $(( 16 * MiB )) "$d/a.img" "$d/b.img"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 read-policy=first \
    "$d/b.img" "$d/a.img"
  nbdcopy "$d/data" "$(uri "$d/sock")" ||
    fail "shrink1: copying in failed"
  truncate -s 0 "$d/b.img"
  io "$d" "r $(( 15 * MiB )) $MiB" ||
    fail "shrink1: a read with one copy left failed"
  size=$(stat -c %s "$d/b.img")
  [ "$size" = 0 ] ||
    fail "shrink1: the truncated member grew back to $size bytes"
  logged "$d" "member 0 (.*b.img) failed on pread: .*shorter than" ||
    fail "shrink1: the log does not say member 0 became shorter"
  copy_out "$d" "$d/out" || fail "shrink1: reading back failed"
  cmp "$d/data" "$d/out" ||
    fail "shrink1: the array reads back different data"
  size=$(stat -c %s "$d/b.img")
  [ "$size" = 0 ] ||
    fail "shrink1: the truncated member grew back to $size bytes"
  say "shrink1: ok: $(grep -m 1 'shorter' "$d/nbdkit.log")"
}

# shrink10.  A request's last member I/O runs in the request's own
# thread, through the same synchronous code in both engines, so
# shrink1's one read never reaches io_uring's completion path.  Here a
# 128K read covers chunk 0 (member 0, truncated) and chunk 1 (member 2)
# of a RAID 10, and member 0's read is the one io_uring completes.
# Mutant killed: uring_complete taking a read that meets the end for
# EIO (the log then says the member failed on its rewrite, not on the
# read).
scenario_shrink10 ()
{
  scenario shrink10 "RAID 10, a member truncated while served (io=uring)"
  local d=$SCENARIO_DIR i members=()
  if [ "$(nbdkit "$RAID_PLUGIN" --dump-plugin | sed -n 's/^raid_io=//p')" \
       != uring ]; then
    say "shrink10: io_uring is not available here: not tested"
    return 0
  fi
  head -c $(( 8 * MiB )) /dev/urandom > "$d/data"
  for i in 0 1 2 3; do
    truncate -s $(( 4 * MiB )) "$d/m$i.img"
    members+=("$d/m$i.img")
  done
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=10 chunk=64K \
    read-policy=first io=uring "${members[@]}"
  nbdcopy "$d/data" "$(uri "$d/sock")" ||
    fail "shrink10: copying in failed"
  truncate -s 0 "$d/m0.img"
  io "$d" "r 0 131072" || fail "shrink10: a read with copies left failed"
  logged "$d" "member 0 (.*m0.img) failed on pread: .*shorter than" ||
    fail "shrink10: the log does not say member 0 became shorter"
  [ "$(stat -c %s "$d/m0.img")" = 0 ] ||
    fail "shrink10: the truncated member grew back"
  copy_out "$d" "$d/out" || fail "shrink10: reading back failed"
  cmp "$d/data" "$d/out" ||
    fail "shrink10: the array reads back different data"
  say "shrink10: ok"
}

# shrink0.  Mutant killed: file_hole taking "no data after this offset"
# (ENXIO) for a hole even past the member's end.
scenario_shrink0 ()
{
  scenario shrink0 "RAID 0, a member cut to half while served"
  local d=$SCENARIO_DIR
  head -c $(( 16 * MiB )) /dev/urandom > "$d/data"
  truncate -s $(( 8 * MiB )) "$d/m0.img" "$d/m1.img"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=0 chunk=64K \
    "$d/m0.img" "$d/m1.img"
  nbdcopy "$d/data" "$(uri "$d/sock")" ||
    fail "shrink0: copying in failed"
  truncate -s $(( 4 * MiB )) "$d/m1.img"
  if nbdinfo --map "$(uri "$d/sock")" >"$d/map" 2>"$d/map.err"; then
    cat "$d/map" >&2
    fail "shrink0: block status succeeded over a lost half member"
  fi
  if grep -q zero "$d/map"; then
    cat "$d/map" >&2
    fail "shrink0: block status called the lost data zeros"
  fi
  if copy_out "$d" "$d/out"; then
    fail "shrink0: nbdcopy read a lost half member"
  fi
  say "shrink0: ok"
}

# last1.  Mutant killed: fail_member failing the last live copy (today's
# code): the array then has no copy and every read fails.
scenario_last1 ()
{
  scenario last1 "RAID 1: a write error on the last in-sync member"
  local d=$SCENARIO_DIR
  head -c $(( 8 * MiB )) /dev/urandom > "$d/data"
  cp "$d/data" "$d/want"
  truncate -s $(( 8 * MiB )) "$d/m0.img" "$d/m1.img"
  faulty "$d" 0 pwrite
  faulty "$d" 1 pwrite
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 \
    "$(uri "$d/m0.sock")" "$(uri "$d/m1.sock")"
  nbdcopy "$d/data" "$(uri "$d/sock")" || fail "last1: copying in failed"

  touch "$d/fail0"
  io "$d" "w 0 65536" || fail "last1: a write with one copy failing failed"
  stamp "$d/want" 0 65536
  rm "$d/fail0"
  logged "$d" "member 0 .* failed on pwrite" ||
    fail "last1: member 0 was not failed"

  # Member 1 is the last copy.  This write fails, so what its range
  # holds is unspecified; it goes where the first went, with the same
  # bytes (0x5a), so that the range is the same whether it landed or
  # not.
  touch "$d/fail1"
  if io "$d" "w 0 65536"; then
    fail "last1: a write that failed on the last copy succeeded"
  fi
  rm "$d/fail1"
  copy_out "$d" "$d/out" ||
    fail "last1: reads fail after one write error on the last copy"
  cmp "$d/want" "$d/out" || fail "last1: the array reads back different data"
  logged "$d" "member 1 .*pwrite.*last live copy.*kept" ||
    fail "last1: the log does not say member 1 was kept"
  if logged "$d" "member 1 .* failed on"; then
    fail "last1: member 1, the last copy, was failed"
  fi
  io "$d" "w $(( 2 * MiB )) 65536" ||
    fail "last1: writes fail after one write error on the last copy"
  stamp "$d/want" $(( 2 * MiB )) 65536
  copy_out "$d" "$d/out" || fail "last1: reading back failed"
  cmp "$d/want" "$d/out" || fail "last1: the array reads back different data"
  say "last1: ok: $(grep -m 1 'kept' "$d/nbdkit.log")"
}

# last10.  Mutant killed: the RAID 1 rule alone ("keep a member only if
# no other member is live"), which fails member 1 although chunk 0 then
# has no copy left.
scenario_last10 ()
{
  scenario last10 "RAID 10 of 4: member 1 holds chunk 0's last copy"
  local d=$SCENARIO_DIR i members=()
  head -c $(( 8 * MiB )) /dev/urandom > "$d/data"
  cp "$d/data" "$d/want"
  for i in 0 1 2 3; do
    truncate -s $(( 4 * MiB )) "$d/m$i.img"
    faulty "$d" "$i" pwrite
    members+=("$MEMBER_URI")
  done
  # chunk=64K, 2 near copies on 4 members: chunk 0 is on members 0 and
  # 1, chunk 1 on members 2 and 3.
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=10 chunk=64K \
    "${members[@]}"
  nbdcopy "$d/data" "$(uri "$d/sock")" || fail "last10: copying in failed"

  touch "$d/fail0"
  io "$d" "w 0 4096" || fail "last10: a write with one copy failing failed"
  stamp "$d/want" 0 4096
  rm "$d/fail0"
  logged "$d" "member 0 .* failed on pwrite" ||
    fail "last10: member 0 was not failed"

  # As in last1, the write that fails goes where the first went.
  touch "$d/fail1" "$d/fail2"
  if io "$d" "w 0 4096"; then
    fail "last10: a write that failed on chunk 0's last copy succeeded"
  fi
  io "$d" "w 65536 4096" ||
    fail "last10: a write to chunk 1 with member 3 alive failed"
  stamp "$d/want" 65536 4096
  rm "$d/fail1" "$d/fail2"
  copy_out "$d" "$d/out" || fail "last10: reading back failed"
  cmp "$d/want" "$d/out" || fail "last10: the array reads back different data"
  logged "$d" "member 1 .*pwrite.*last live copy.*kept" ||
    fail "last10: the log does not say member 1 was kept"
  if logged "$d" "member 1 .* failed on"; then
    fail "last10: member 1, chunk 0's last copy, was failed"
  fi
  logged "$d" "member 2 .* failed on pwrite" ||
    fail "last10: member 2 was not failed"
  io "$d" "w 0 4096" || fail "last10: writing chunk 0 again failed"
  say "last10: ok"
}

# repair.  Mutants killed: the repair writing zeros instead of the data
# it read, and the repair writing nothing.
scenario_repair ()
{
  scenario repair "RAID 1: one read fails on member 0, the rewrite succeeds"
  local d=$SCENARIO_DIR
  head -c $(( 4 * MiB )) /dev/urandom > "$d/data"
  truncate -s $(( 4 * MiB )) "$d/m0.img" "$d/m1.img"
  faulty "$d" 0 pread
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 read-policy=first \
    "$MEMBER_URI" "$d/m1.img"
  nbdcopy "$d/data" "$(uri "$d/sock")" || fail "repair: copying in failed"
  # Member 0 goes stale in [1M,2M) behind the server's back, so that
  # only a rewrite of the right bytes makes it equal to the data again.
  stamp "$d/m0.img" "$MiB" "$MiB"
  cmp -s -i "$MiB" -n "$MiB" "$d/data" "$d/m0.img" &&
    die "repair: member 0 is not stale"

  touch "$d/fail0"
  io "$d" "r $MiB $MiB" || fail "repair: the read failed"
  rm "$d/fail0"
  grep -q 'injecting EIO error into pread' "$d/m0.log" ||
    fail "repair: no read failed on member 0"
  if ! cmp -i "$MiB" -n "$MiB" "$d/data" "$d/m0.img"; then
    fail "repair: member 0 does not hold the data after its repair"
  fi
  if logged "$d" "degraded"; then
    fail "repair: a member was failed"
  fi
  copy_out "$d" "$d/out" || fail "repair: reading back failed"
  cmp "$d/data" "$d/out" || fail "repair: the array reads back different data"
  say "repair: ok"
}

# ro.  Mutants killed: the read path repairing whatever nbdkit said
# (today's code); the repair left to member.c's write refusal, which
# then fails the member it could not rewrite; the notice logged at
# every connection; the file member left open for writing.
scenario_ro ()
{
  scenario ro "nbdkit -r: read errors are not repaired, nothing is written"
  local d=$SCENARIO_DIR n
  head -c $(( 4 * MiB )) /dev/urandom > "$d/data"
  truncate -s $(( 4 * MiB )) "$d/m0.img" "$d/m1.img"
  faulty "$d" 0 pread
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" level=1 \
    "$MEMBER_URI" "$d/m1.img"
  nbdcopy "$d/data" "$(uri "$d/sock")" || fail "ro: copying in failed"
  stop_pid "$SERVE_PID"
  stamp "$d/m0.img" 0 "$MiB"
  cp "$d/m0.img" "$d/m0.before"
  cp "$d/m1.img" "$d/m1.before"

  : > "$d/nbdkit.log"
  serve "$d/sock" "$d/nbdkit.log" -r "$RAID_PLUGIN" level=1 read-policy=first \
    "$MEMBER_URI" "$d/m1.img"
  touch "$d/fail0"
  copy_out "$d" "$d/out" || fail "ro: reading back failed"
  copy_out "$d" "$d/out" || fail "ro: reading back a second time failed"
  rm "$d/fail0"
  # The file member is held read-only: the access mode of nbdkit's
  # descriptor for it (fdinfo's flags, octal) is O_RDONLY, 0.
  local fd flags real held=0
  real=$(readlink -f "$d/m1.img")
  for fd in /proc/"$SERVE_PID"/fd/*; do
    [ "$(readlink "$fd")" = "$real" ] || continue
    held=1
    flags=$(awk '/^flags:/ { print $2 }' "/proc/$SERVE_PID/fdinfo/${fd##*/}")
    (( (8#$flags & 3) == 0 )) ||
      fail "ro: nbdkit holds member 1 open for writing (flags $flags)"
  done
  [ "$held" = 1 ] || fail "ro: nbdkit does not hold member 1 open"
  grep -q 'injecting EIO error into pread' "$d/m0.log" ||
    fail "ro: no read failed on member 0"
  cmp "$d/data" "$d/out" || fail "ro: the array reads back different data"
  cmp "$d/m0.before" "$d/m0.img" || fail "ro: member 0 was written"
  cmp "$d/m1.before" "$d/m1.img" || fail "ro: member 1 was written"
  if logged "$d" "degraded"; then
    fail "ro: a member was failed"
  fi
  n=$(grep -c 'read repair is off' "$d/nbdkit.log" || true)
  [ "$n" = 1 ] ||
    fail "ro: the log says $n times (not once) that read repair is off"
  say "ro: ok: $(grep 'read repair is off' "$d/nbdkit.log")"
}

all=(dead extents shrink1 shrink10 shrink0 last1 last10 repair ro)
run_scenarios "${@:-${all[@]}}"
say "all scenarios passed"
