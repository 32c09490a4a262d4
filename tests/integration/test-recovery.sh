#!/bin/bash
# raidsim tests: md's recovery (the rebuild of a member that is in the
# array but not in sync) and hot spares (issue 13, item 4;
# plugins/raid/sync/rebuild.h).  Members are made by raidsim create; every
# member's bytes are checked against the layout with check-members (the
# independent reference layout) at the end, and real mdadm --examine
# reads the superblocks.  Orderings are forced, never timed: the
# rebuild is held at 1 KiB/s (sync-speed-min=1 sync-speed-max=1: one
# region, then a wait of 1024 s) where a test needs it unfinished, and
# failures are switched on with nbdkit's error filter (error-file=) by
# fio's exec_prerun at a chosen point of the job.
#
# spare    RAID 10 of 4 (one member an NBD export behind the error filter)
#          with spare=s.img (blank).  fio (nbd engine) writes the first
#          half, then its second job switches the failure on and writes
#          the rest: the member fails, the spare takes over its role
#          and is rebuilt; a third job reads everything back with
#          read-policy=round-robin and verifies it.  After the rebuild,
#          fio verifies again, and every member (the spare in the failed
#          one's place) holds the layout's bytes.
#          Mutant killed: take_spares never swapping (no takeover, s.img
#          never written: check-members fails).
# blank    RAID 1 of 2 and RAID 10 of 4 (members 0 and 1 hold the same
#          chunks): member 0 replaced by a blank file at restart, served
#          with read-policy=first (which reads member 0 whenever it
#          may) and the rebuild held after its first region: the whole
#          array reads back as written, never the blank member's zeros.
#          mdadm --examine shows the checkpoint (a Recovery Offset
#          inside the array); the server is killed -9 there.
#          Mutant killed: recovery_hide doing nothing (zeros read back).
# restart  continues the blank scenario: restarted, still held, the log
#          says the recovery goes on from that offset, and a
#          read with read-policy=first still never returns zeros; then
#          at full speed the rebuild ends, mdadm shows no recovery
#          offset, and check-members passes on both members.
#          The array offset to go on from is worked out from the
#          layout by the test (RAID 10 near, 2 copies of 4: member
#          offset M is array offset 2M).
#          Mutants killed: assembly ignoring MDSB_FEATURE_RECOVERY_OFFSET
#          (the half-rebuilt member trusted: zeros read back); array_pos
#          taking the member offset for the array's (RAID 10 goes on
#          from the wrong place).
# readd    RAID 1 of a file and an NBD member: random data A, then the
#          NBD member fails (error filter) and fio writes pattern B over
#          the whole array, degraded.  Restarted with the old member as
#          a plain file (stale: events behind), it is re-added and
#          rebuilt while fio writes and verifies again with
#          read-policy=round-robin (the rebuild held, so fio runs all
#          through it); then at full speed it ends, and check-members
#          passes on both members.
#          Mutant killed: a re-added member not marked out of sync
#          (recovery_assembled's unsynced bit): fio reads stale A.
# add      the control socket's add (recovery_add): on a whole RAID 1,
#          add --replace is refused (nothing to replace), and so are a
#          member of another array and (with mkfs.ext4) a file system; a member failed with `fail 1`, then
#          `add new.img`: it takes role 1 (mdadm --detail's "spare
#          rebuilding" while held), and at full speed is rebuilt;
#          check-members passes on both members.
#          Mutant killed: take_spares not taking a failed role (new.img
#          stays a spare: no takeover in the log).
# speed    a 15 MiB rebuild at sync-speed-min=sync-speed-max=3000 KiB/s
#          takes at least 15360/3000 s, measured by the test from before
#          the first connection to the log's "recovery: done".
#          Mutant killed: the throttle's wait removed.
#
# Skips (77) if nbdkit (and its file plugin and error filter), nbdcopy,
# fio with its nbd engine or mdadm is missing.
#
# Run: meson test -C build recovery
#  or: tests/integration/test-recovery.sh [SCENARIO...]   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM CHECK_MEMBERS
requires nbdkit
requires nbdcopy
requires nbdinfo
requires mdadm
requires_fio_nbd
requires_nbdkit_plugin file
requires_nbdkit_filter error

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-recovery.XXXXXX")
[ -n "${KEEP:-}" ] || at_exit rm -rf "$tmp"

# The data fio writes: a pattern of each block's offset, the same
# whichever job writes it, so that the expected image is fio's own run
# over a plain file.
FIO_DATA=(--verify=pattern '--verify_pattern=%o"raid!"' --do_verify=0
          --verify_state_save=0 --randrepeat=1 --randseed=4242)

# create DIR LEVEL SIZE MEMBERS...: raidsim create --assume-clean; sets
# SIZE_BYTES (the array's) and DOFF (the data offset in bytes).
create ()
{
  local d=$1 level=$2 size=$3
  shift 3
  (cd "$d" && truncate -s "$size" "$@" &&
     "$RAIDSIM" create --level="$level" --assume-clean \
       $( [ "$level" = 1 ] || echo --chunk=64K ) "$@") >"$d/create.out" 2>&1 ||
    fail "raidsim create: $(cat "$d/create.out")"
  SIZE_BYTES=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' "$d/create.out")
  DOFF=$(sed -n 's/^  data offset: [0-9]* sectors (\([0-9]*\) bytes).*/\1/p' "$d/create.out")
  [ -n "$SIZE_BYTES" ] && [ -n "$DOFF" ] || fail "raidsim create printed no size"
}

# serve_bad DIR FILE: FILE served by nbdkit's file plugin behind the
# error filter, which fails every request once DIR/fail exists.
serve_bad ()
{
  local d=$1 f=$2 pid
  rm -f "$d/fail" "$d/$f.sock"
  nbdkit --foreground --exit-with-parent -U "$d/$f.sock" -P "$d/$f.pid" \
    --filter=error file "$d/$f" error-rate=100% error-file="$d/fail" \
    >>"$d/$f.log" 2>&1 &
  pid=$!
  at_exit stop_pid $pid
  wait_for_file "$d/$f.pid" $pid 30 || fail "nbdkit file $f did not start"
  BAD_PID=$pid
}

# examine DIR MEMBER FIELD: a field of mdadm --examine (empty if none).
examine ()
{
  mdadm --examine "$1/$2" >"$1/examine" 2>&1 || fail "mdadm --examine $2: $(cat "$1/examine")"
  sed -n "s/^ *$3 : //p" "$1/examine"
}

# start DIR ARGS...: the plugin on DIR/sock, and its first connection,
# which starts the array (superblocks, the rebuild).
start ()
{
  local d=$1
  shift
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" ||
    fail "the plugin did not start"
  nbdinfo --size "$(uri "$d/sock")" >/dev/null 2>&1 ||
    fail "the array cannot be reached"
}

# expected DIR JOB: fio's run of JOB into a plain file of the array's
# size, DIR/expected.img.
expected ()
{
  rm -f "$1/expected.img"
  truncate -s "$SIZE_BYTES" "$1/expected.img"
  FAILFILE=$1/unused fio --ioengine=psync --filename="$1/expected.img" \
    "${FIO_DATA[@]}" --output="$1/expected.out" "$2" >/dev/null 2>&1 ||
    fail "fio into a plain file failed: the job itself is wrong: $(cat "$1/expected.out")"
}

# run_fio DIR JOB: the job against the array; fails on any verify error.
run_fio ()
{
  FAILFILE=$1/fail fio --ioengine=nbd --uri="$(uri "$1/sock")" \
    "${FIO_DATA[@]}" --output="$1/fio.out" "$2" >/dev/null 2>&1 ||
    fail "fio against the array failed: $(grep -i -m 5 'verify\|error' "$1/fio.out")"
}

# check DIR LEVEL MEMBERS...: every member holds the layout's bytes of
# DIR/expected.img.
check ()
{
  local d=$1 level=$2 m
  shift 2
  local args=("level=$level" "chunk=64K" "data-offset=$DOFF"
              "data=$d/expected.img")
  for m in "$@"; do args+=("member=$d/$m"); done
  "$CHECK_MEMBERS" "${args[@]}" >"$d/check.out" 2>&1 ||
    fail "check-members: $(cat "$d/check.out")"
}

scenario_spare ()
{
  say "spare: a member fails under fio; the spare takes over and is rebuilt"
  local d="$tmp/spare" half
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  create "$d" 10 16M a.img b.img c.img d.img
  truncate -s 16M "$d/s.img"
  half=$(( SIZE_BYTES / 2 ))
  cat >"$d/job.fio" <<EOF
[first-half]
rw=write
bs=64k
iodepth=8
size=$half

[second-half]
stonewall
exec_prerun=touch \${FAILFILE}
rw=randwrite
bs=16k
iodepth=16
offset=$half
size=$(( SIZE_BYTES - half ))
EOF
  # Read back in the blocks written: fio's %o pattern is per block.
  cat >"$d/verify.fio" <<EOF
[read-first]
rw=read
bs=64k
iodepth=8
size=$half
do_verify=1

[read-second]
rw=read
bs=16k
iodepth=8
offset=$half
size=$(( SIZE_BYTES - half ))
do_verify=1
EOF
  expected "$d" "$d/job.fio"
  serve_bad "$d" b.img
  start "$d" a.img "$(uri "$d/b.img.sock")" c.img d.img spare=s.img \
    read-policy=round-robin
  [ "$(examine "$d" s.img 'Device Role')" = spare ] ||
    fail "s.img: mdadm says Device Role $(examine "$d" s.img 'Device Role'), not spare"
  run_fio "$d" "$d/job.fio"
  grep -q "injecting EIO error" "$d/b.img.log" || fail "no error was injected"
  wait_log "$d/nbdkit.log" "spare .*s.img takes over role 1" 30
  run_fio "$d" "$d/verify.fio"
  wait_log "$d/nbdkit.log" "recovery: done: member 1 (.*s.img) rebuilt" 60
  run_fio "$d" "$d/verify.fio"
  stop_pid "$SERVE_PID"
  stop_pid "$BAD_PID"
  check "$d" 10 a.img s.img c.img d.img
  [ "$(examine "$d" s.img 'Device Role')" = "Active device 1" ] ||
    fail "s.img: mdadm says $(examine "$d" s.img 'Device Role')"
  [ "$(examine "$d" s.img 'Array State')" = "AAAA ('A' == active, '.' == missing, 'R' == replacing)" ] ||
    fail "s.img: Array State $(examine "$d" s.img 'Array State')"
  say "  $(grep -m 1 'takes over' "$d/nbdkit.log" | sed 's/^nbdkit: [^ ]* //')"
  say "  spare: ok (fio verified before and after the rebuild; every member as the layout says)"
}

# blank_run LEVEL: the blank scenario on a RAID 1 of 2 or a RAID 10 of
# 4 (member 0 and member 1 hold the same chunks: read-policy=first
# reads member 0), in $tmp/blankLEVEL.
blank_run ()
{
  local level=$1 d="$tmp/blank$1" i off others=(b.img)
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  [ "$level" = 1 ] || others=(b.img c.img d.img)
  create "$d" "$level" 16M a.img "${others[@]}"
  head -c "$SIZE_BYTES" /dev/urandom >"$d/expected.img"
  start "$d" a.img "${others[@]}"
  nbdcopy "$d/expected.img" "$(uri "$d/sock")" || fail "copying in failed"
  stop_pid "$SERVE_PID"
  rm "$d/a.img"
  truncate -s 16M "$d/n.img"
  : >"$d/nbdkit.log"
  start "$d" n.img "${others[@]}" read-policy=first sync-speed-min=1 sync-speed-max=1
  grep -q "member 0 (n.img) is blank: it takes role 0" "$d/nbdkit.log" ||
    fail "n.img was not taken as a new member 0"
  nbdcopy "$(uri "$d/sock")" "$d/out.img" || fail "reading back failed"
  cmp "$d/expected.img" "$d/out.img" >"$d/cmp" 2>&1 ||
    fail "the array read back differs while member 0 is rebuilt: $(cat "$d/cmp")"
  ! grep -q "recovery: done" "$d/nbdkit.log" ||
    fail "the rebuild ended though held at 1 KiB/s"
  # The checkpoint after the first region (1/16 of the array).
  for (( i = 0; i < 100; i++ )); do
    off=$(examine "$d" n.img 'Recovery Offset')
    [ -z "$off" ] || break
    sleep 0.1
  done
  # What the walk did before its first wait (the throttle is looked at
  # after RECOVERY_INFLIGHT regions): above 0, below the array's end.
  off=${off% sectors}
  [ -n "$off" ] && [ "$off" -gt 0 ] && [ $(( off * 512 )) -lt "$SIZE_BYTES" ] ||
    fail "n.img: Recovery Offset '$off', want a position inside the array"
  echo "$off" >"$d/recovery-offset"
  kill -KILL "$SERVE_PID"
  wait "$SERVE_PID" 2>/dev/null || true
  say "  blank: ok (RAID $level: read back as written while held at $off sectors; killed -9 there)"
}

scenario_blank ()
{
  say "blank: a blank member 0 at restart is never read where not rebuilt"
  blank_run 1
  blank_run 10
}

# restart_run LEVEL: the restart scenario after blank_run LEVEL.
restart_run ()
{
  local level=$1 d="$tmp/blank$1" off others=(b.img) pos
  FAIL_LOGS=("$d/nbdkit.log")
  cd "$d"
  [ "$level" = 1 ] || others=(b.img c.img d.img)
  off=$(cat "$d/recovery-offset")
  # The array offset to go on from: on a RAID 1 the member's offset; on
  # a RAID 10 of 4 with 2 near copies, member 0 holds chunks 0, 2, 4 ...
  # (each in rows of 64K), so member offset M is array offset 2M.
  pos=$(( off * 512 ))
  [ "$level" = 1 ] || pos=$(( off * 512 * 2 ))
  : >"$d/nbdkit.log"
  start "$d" n.img "${others[@]}" read-policy=first sync-speed-min=1 sync-speed-max=1
  rm -f "$d/out.img"
  nbdcopy "$(uri "$d/sock")" "$d/out.img" || fail "reading back failed"
  cmp "$d/expected.img" "$d/out.img" >"$d/cmp" 2>&1 ||
    fail "after the restart the array reads back differently: $(cat "$d/cmp")"
  grep -q "member 0 (n.img) was being rebuilt: its recovery goes on from array offset $pos (recovery_offset $off sectors)" \
    "$d/nbdkit.log" || fail "the recovery does not go on from its offset"
  stop_pid "$SERVE_PID"
  : >"$d/nbdkit.log"
  start "$d" n.img "${others[@]}" read-policy=first
  wait_log "$d/nbdkit.log" "recovery: done: member 0 (n.img) rebuilt" 60
  rm -f "$d/out.img"
  nbdcopy "$(uri "$d/sock")" "$d/out.img" || fail "reading back failed"
  cmp "$d/expected.img" "$d/out.img" >"$d/cmp" 2>&1 ||
    fail "after the rebuild the array reads back differently: $(cat "$d/cmp")"
  stop_pid "$SERVE_PID"
  [ -z "$(examine "$d" n.img 'Recovery Offset')" ] ||
    fail "n.img still records a recovery after it ended"
  [ "$(examine "$d" n.img 'Feature Map')" = 0x0 ] ||
    fail "n.img: Feature Map $(examine "$d" n.img 'Feature Map')"
  check "$d" "$level" n.img "${others[@]}"
  say "  restart: ok (RAID $level: went on from $off sectors, in sync after, every member as written)"
}

scenario_restart ()
{
  [ -f "$tmp/blank1/n.img" ] && [ -f "$tmp/blank10/n.img" ] || scenario_blank
  say "restart: the recovery goes on from recovery_offset"
  restart_run 1
  restart_run 10
}

scenario_readd ()
{
  say "readd: a stale member is re-added and rebuilt while fio runs"
  local d="$tmp/readd"
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  create "$d" 1 16M a.img b.img
  cat >"$d/job.fio" <<EOF
[fail]
exec_prerun=touch \${FAILFILE}
rw=write
bs=64k
iodepth=8
size=$SIZE_BYTES
EOF
  cat >"$d/again.fio" <<EOF
[rewrite]
rw=randwrite
bs=64k
iodepth=16
size=$(( SIZE_BYTES / 4 ))

[read-verify]
stonewall
rw=read
bs=64k
iodepth=8
size=$SIZE_BYTES
do_verify=1
EOF
  expected "$d" "$d/job.fio"
  serve_bad "$d" b.img
  start "$d" a.img "$(uri "$d/b.img.sock")"
  head -c "$SIZE_BYTES" /dev/urandom | nbdcopy - "$(uri "$d/sock")" ||
    fail "copying A in failed"
  run_fio "$d" "$d/job.fio"
  grep -q "member 1 (.*) failed on" "$d/nbdkit.log" || fail "member 1 did not fail"
  stop_pid "$SERVE_PID"
  stop_pid "$BAD_PID"
  : >"$d/nbdkit.log"
  start "$d" a.img b.img read-policy=round-robin sync-speed-min=1 sync-speed-max=1
  grep -q "member 1 (b.img) is stale: .*re-added, to be rebuilt" "$d/nbdkit.log" ||
    fail "b.img was not called stale and re-added"
  grep -q "member 1 (b.img) is re-added" "$d/nbdkit.log" ||
    fail "b.img was not re-added"
  run_fio "$d" "$d/again.fio"
  ! grep -q "recovery: done" "$d/nbdkit.log" ||
    fail "the rebuild ended though held at 1 KiB/s"
  stop_pid "$SERVE_PID"
  : >"$d/nbdkit.log"
  start "$d" a.img b.img
  wait_log "$d/nbdkit.log" "recovery: done: member 1 (b.img) rebuilt" 60
  stop_pid "$SERVE_PID"
  check "$d" 1 a.img b.img
  say "  readd: ok (fio verified during the rebuild; both members as written after)"
}

scenario_add ()
{
  say "add: the control socket's add puts a spare in a failed member's role"
  local d="$tmp/add"
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  create "$d" 1 16M a.img b.img
  head -c "$SIZE_BYTES" /dev/urandom >"$d/expected.img"
  truncate -s 16M "$d/new.img"
  # A member of another array, and (with mkfs.ext4) a file system.
  truncate -s 16M x.img y.img fs.img
  "$RAIDSIM" create --level=1 x.img y.img >/dev/null 2>&1 ||
    fail "raidsim create of another array failed"
  if command -v mkfs.ext4 >/dev/null 2>&1; then
    mkfs.ext4 -q -F fs.img >/dev/null 2>&1 || fail "mkfs.ext4 failed"
  fi
  start "$d" a.img b.img control="$d/ctl" sync-speed-min=1 sync-speed-max=1
  nbdcopy "$d/expected.img" "$(uri "$d/sock")" || fail "copying in failed"
  ! "$RAIDSIM" control "$d/ctl" add new.img --replace >add.out 2>&1 ||
    fail "add --replace with nothing failed was accepted"
  grep -q "no member is failed or missing to replace" add.out ||
    fail "add --replace: $(cat add.out)"
  ! "$RAIDSIM" control "$d/ctl" add "$d/x.img" >add.out 2>&1 ||
    fail "a member of another array was added"
  grep -q "another array's metadata" add.out || fail "add x.img: $(cat add.out)"
  if command -v mkfs.ext4 >/dev/null 2>&1; then
    ! "$RAIDSIM" control "$d/ctl" add "$d/fs.img" >add.out 2>&1 ||
      fail "a member holding a file system was added"
    grep -q "fs.img holds ext4" "$d/nbdkit.log" ||
      fail "the log does not say fs.img holds ext4"
  fi
  "$RAIDSIM" control "$d/ctl" fail 1 >fail.out 2>&1 ||
    fail "fail 1: $(cat fail.out)"
  # A path relative to the client's directory, not the server's (the
  # server runs in $d): the client sends it as an absolute path.
  # Mutant killed: the client sending "../new.img" as given (the server
  # looks for $tmp/new.img).
  mkdir -p "$d/sub"
  (cd "$d/sub" && "$RAIDSIM" control "$d/ctl" add ../new.img) >add.out 2>&1 ||
    fail "add ../new.img from $d/sub: $(cat add.out)"
  wait_log "$d/nbdkit.log" "spare .*new.img takes over role 1" 30
  "$RAIDSIM" control --json "$d/ctl" detail >detail.json 2>&1 ||
    fail "detail: $(cat detail.json)"
  grep -q "spare rebuilding" detail.json ||
    fail "detail does not say spare rebuilding: $(cat detail.json)"
  stop_pid "$SERVE_PID"
  : >"$d/nbdkit.log"
  start "$d" a.img new.img
  wait_log "$d/nbdkit.log" "recovery: done: member 1 (new.img) rebuilt" 60
  stop_pid "$SERVE_PID"
  check "$d" 1 a.img new.img
  say "  add: ok (refusals, then fail 1 and add: rebuilt, both members as written)"
}

scenario_speed ()
{
  say "speed: a rebuild at sync-speed-max=3000 takes the time that implies"
  local d="$tmp/speed" t0 t1 bound
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  create "$d" 1 16M a.img b.img
  rm "$d/b.img"
  truncate -s 16M "$d/n.img"
  t0=$(date +%s.%N)
  start "$d" a.img n.img sync-speed-min=3000 sync-speed-max=3000
  wait_log "$d/nbdkit.log" "recovery: done" 60
  t1=$(date +%s.%N)
  stop_pid "$SERVE_PID"
  bound=$(echo "$SIZE_BYTES / 1024 / 3000" | bc -l)
  say "  $SIZE_BYTES bytes rebuilt in $(echo "$t1 - $t0" | bc -l | cut -c1-5) s; at 3000 KiB/s at least $(echo "$bound" | cut -c1-5) s"
  [ "$(echo "$t1 - $t0 >= $bound" | bc -l)" = 1 ] ||
    fail "the rebuild took $(echo "$t1 - $t0" | bc -l) s, less than $bound s"
  say "  speed: ok"
}

requires bc
scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(spare blank restart readd add speed)
for s in "${scenarios[@]}"; do
  "scenario_$s"
done
say "PASS"
