#!/bin/bash
# raidsim tests: crash consistency under fio (issue 13): kill -9 the
# server during a fio write load, restart it, let the resync finish;
# then the copies are byte-identical and every write fio had
# acknowledged before the kill reads back.
#
# RAID 1 of 2 and RAID 10 of 4 members (64M each, on /dev/shm when it
# is there), made by raidsim create --assume-clean --bitmap-chunk=1M, so
# that the resync after the crash is the write-intent bitmap's (whose
# bits are all set still, as mdadm's create leaves them: the runs are
# shorter than md's lazy clearing; test-bitmap.sh covers a partial one).
# Ten runs each: fio's nbd engine writes every 4K block of the array
# once, in random order, at QD32, with crc32c verify headers
# (verify_state_save=1); the server is killed -9 10 to 280 ms after
# fio's first write (when mdadm first says the array is active), a
# different time each run.  fio then fails and saves its verify state:
# which writes completed.  Restarted, the plugin resyncs (the log says
# so); then cmp finds each pair of copies identical over the data area,
# and fio --verify_only --verify_state_load=1 reads back every write
# completed before the kill and checks its crc32c (verify_fatal).
# A run whose kill came after fio had finished is not counted as a
# crash during the load; at least 7 of 10 must be.
#
# Mutants killed: the resync skipping every chunk (bitmap_next_needed
# returning size: copies differ); bitmap_start_write not setting bits
# (nothing to resync after the crash: copies differ); sync_piece writing
# nothing (copies differ).
#
# Skips (77) without nbdkit or fio's nbd engine.
# Run: meson test -C build crash-fio
set -euo pipefail
[ -z "${TRACE:-}" ] || set -x

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$SRCDIR/build/raidsim/raidsim}
NBD_IO=${NBD_IO:-$SRCDIR/build/tests/lib/nbd-io}
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"
RAIDSIM_PROG=test-crash-fio.sh

[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built"
command -v nbdkit >/dev/null 2>&1 || skip "nbdkit is not installed"
command -v fio >/dev/null 2>&1 || skip "fio is not installed"
fio --enghelp 2>/dev/null | grep -qw nbd || skip "fio has no nbd engine"
command -v mdadm >/dev/null 2>&1 || skip "mdadm is not installed"

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=${TMPDIR:-/var/tmp}
tmp=$(mktemp -d "$base/raidsim-crash-fio.XXXXXX")
at_exit rm -rf "$tmp"

fail ()
{
  [ -f "$d/nbdkit.log" ] && sed "s|^|$RAIDSIM_PROG:   log: |" "$d/nbdkit.log" >&2
  die "$d: $*"
}

start ()
{
  local i
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" ||
    fail "the plugin did not start"
  for (( i = 0; i < 50; i++ )); do
    echo "r 0 4096" | "$NBD_IO" "nbd+unix:///?socket=$d/sock" >/dev/null 2>&1 &&
      return 0
    sleep 0.1
  done
  fail "the array cannot be read"
}

same_data ()
{
  local off
  off=$(( $(mdadm --examine "$1" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors/\1/p') * 512 ))
  cmp <(tail -c +$(( off + 1 )) "$1") <(tail -c +$(( off + 1 )) "$2") \
    >"$d/cmp" 2>&1 || fail "copies $1 and $2 differ after the resync: $(cat "$d/cmp")"
}

runs ()
{
  local level=$1 run size delay mid=0 fiopid i
  shift
  for run in 1 2 3 4 5 6 7 8 9 10; do
    d="$tmp/r$level-$run"
    mkdir -p "$d"
    cd "$d"
    truncate -s 64M "$@"
    "$RAIDSIM" create --level="$level" --assume-clean --bitmap-chunk=1M \
      $( [ "$level" = 1 ] || echo --chunk=64K ) "$@" >create.out 2>&1 ||
      fail "raidsim create: $(cat create.out)"
    size=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
    cat >job.fio <<JOB
[w]
ioengine=nbd
uri=nbd+unix:///?socket=$d/sock
rw=randwrite
bs=4k
iodepth=32
size=$size
randseed=$(( run * 100 + level ))
verify=crc32c
verify_fatal=1
do_verify=0
verify_state_save=1
JOB
    start "$@"
    fio job.fio >fio.out 2>&1 &
    fiopid=$!
    # The clock starts at fio's first write, which marks the array dirty
    # (fio takes a while to start; a kill before it would test nothing).
    for (( i = 0; i < 100; i++ )); do
      [ "$(mdadm --examine "$1" | sed -n 's/^ *State : //p')" = active ] && break
      sleep 0.05
    done
    [ $i -lt 100 ] || fail "fio did not start writing: $(cat fio.out)"
    delay=$(( 10 + (run - 1) * 30 ))
    sleep "$(( delay / 1000 )).$(printf %03d $(( delay % 1000 )))"
    if kill -0 $fiopid 2>/dev/null; then mid=$(( mid + 1 )); fi
    kill -KILL "$SERVE_PID"
    wait "$SERVE_PID" 2>/dev/null || true
    # fio fails on its next I/O and exits, saving its verify state.  It
    # has been seen to spin instead, rarely, when the server dies under
    # it: SIGTERM ends it the same way (its state is saved then too).
    for (( i = 0; i < 100; i++ )); do
      kill -0 $fiopid 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 $fiopid 2>/dev/null; then
      say "  (fio still running 10 s after the kill: SIGTERM)"
      kill -TERM $fiopid
      for (( i = 0; i < 50; i++ )); do
        kill -0 $fiopid 2>/dev/null || break
        sleep 0.1
      done
      kill -KILL $fiopid 2>/dev/null || true
    fi
    wait $fiopid 2>/dev/null || true
    [ -f local-w-0-verify.state ] || fail "fio saved no verify state: $(cat fio.out)"
    : >nbdkit.log
    start "$@"
    grep -q "resync: done" nbdkit.log ||
      for (( i = 0; i < 300; i++ )); do
        grep -q "resync: done" nbdkit.log && break
        sleep 0.1
      done
    grep -q "resync: done" nbdkit.log || [ "$(mdadm --examine "$1" | sed -n 's/^ *State : //p')" = clean ] ||
      fail "no resync end in the log"
    if ! fio job.fio --verify_only --verify_state_load=1 --do_verify=1 \
         >verify.out 2>&1; then
      fail "fio could not read back its acknowledged writes: $(grep -iE 'verify|bad|err' verify.out)"
    fi
    stop_pid "$SERVE_PID"
    case $level in
      1) same_data "$1" "$2" ;;
      10) same_data "$1" "$2"; same_data "$3" "$4" ;;
    esac
    say "  RAID $level run $run: killed after $delay ms; $(sed -n 's/.*resync: done: \([0-9]*\) bytes resynced.*/\1/p' nbdkit.log) bytes resynced; acknowledged writes verified; copies identical"
    cd "$tmp"
    rm -rf "$d"
  done
  say "  RAID $level: $mid of 10 kills came while fio was writing"
  [ $mid -ge 7 ] || die "too few kills during the load ($mid of 10)"
}

say "kill -9 during fio writes, restart, resync, verify"
runs 1 a.img b.img
runs 10 a.img b.img c.img d.img
say "PASS"
