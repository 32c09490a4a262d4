#!/bin/bash
# raidsim tests: md's safe mode (clean and dirty superblocks) and the
# resync after an unclean shutdown (issue 13, item 3), checked with real
# mdadm --examine.
#
# crash   RAID 1 of 2 and RAID 10 of 4, made by raidsim create
#         --assume-clean: 10 runs each of stamped, non-overlapping
#         writes (nbd-io --stamp --acked, QD32, in random order), the
#         server killed -9 at a different point each run (once run/16
#         of the writes are acknowledged).  mdadm then
#         says the array is active (dirty).  Restarted, the plugin logs
#         the resync and its end; then every pair of copies is
#         byte-identical (member data areas compared with cmp), every
#         write acknowledged before the kill reads back, and mdadm says
#         clean.
#         Mutants killed: sync_write_start not marking dirty (mdadm says
#         clean after the kill, no resync, copies differ); the resync
#         thread skipping the walk (copies differ).
# dirty   RAID 1 of a file and an NBD member behind nbdkit's delay
#         filter (wdelay=1): while a write is held in flight mdadm says
#         the file member is active; 0.2 s after it and at a clean
#         stop, clean.
#         Mutants killed: no dirty mark (clean while the write is in
#         flight); safe mode never marking clean (still active after
#         the idle time).
#
# Skips (77) if nbdkit, its file plugin and delay filter, nbdcopy or
# mdadm is missing.
#
# Run: meson test -C build resync
#  or: tests/integration/test-resync.sh [SCENARIO...]   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires nbdcopy
requires mdadm
requires perl
requires_nbdkit_plugin file
requires_nbdkit_filter delay
export TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-resync.XXXXXX")
at_exit rm -rf "$tmp"

# state DIR MEMBER: mdadm's State line of MEMBER ("clean", "active").
state ()
{
  mdadm --examine "$2" >"$1/examine" 2>&1 || fail "mdadm --examine $2: $(cat "$1/examine")"
  sed -n 's/^ *State : //p' "$1/examine"
}

# check_acked D IMAGE ACKED: every acknowledged write reads back.
check_acked ()
{
  perl -e '
    open my $f, "<:raw", $ARGV[0] or die "$ARGV[0]: $!";
    local $/; my $img = <$f>;
    open my $a, "<", $ARGV[1] or die "$ARGV[1]: $!";
    my ($n, $bad) = (0, 0);
    while (<$a>) {
      my ($off, $len, $b) = split;
      $n++;
      if (substr ($img, $off, $len) ne chr ($b) x $len) {
        print STDERR "acknowledged write at $off ($len bytes, byte $b) lost\n"
          if $bad++ < 5;
      }
    }
    print "$n acknowledged writes, $bad lost\n";
    exit ($bad ? 1 : 0);
  ' "$2" "$3" >"$1/acked.out" 2>&1 ||
    fail "$(cat "$1/acked.out")"
}

crash_runs ()
{
  local level=$1 run d size nblocks target mid=0
  shift
  for run in 1 2 3 4 5 6 7 8 9 10; do
    d="$tmp/crash$level-$run"
    FAIL_LOGS=("$d/nbdkit.log")
    mkdir -p "$d"
    cd "$d"
    truncate -s 32M "$@"
    "$RAIDSIM" create --level="$level" $( [ "$level" = 1 ] || echo --chunk=64K ) --assume-clean "$@" \
      >create.out 2>&1 || fail "raidsim create: $(cat create.out)"
    size=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
    nblocks=$(( size / 4096 ))
    # Every 4K block once, in an order of this run's.
    shuf -i 0-$(( nblocks - 1 )) --random-source=<(yes "$run$level") |
      awk '{ print "w", $1 * 4096, 4096 }' >reqs
    serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" ||
      fail "the plugin did not start"
    wait_readable "$(uri "$d/sock")" 5
    # nbd-io kills the server itself once run/16 of the writes are
    # acknowledged, with 31 more in flight: a point in the load set by
    # progress, not by a sleep that a loaded machine can spend before
    # the first write, or a fast one after the last.
    target=$(( nblocks * run / 16 ))
    local inflight=no
    if "$NBD_IO" --depth 32 --stamp "$run" --acked acked \
         --kill-after "$target:$SERVE_PID" "$(uri "$d/sock")" \
         <reqs >nbd-io.out 2>&1; then
      fail "every write succeeded: the server was not killed mid-load"
    fi
    wait "$SERVE_PID" 2>/dev/null || true
    touch acked
    # The writes after the kill failed: the kill came during the load.
    if [ "$(wc -l <acked)" -lt "$nblocks" ]; then inflight=yes; fi
    if [ $inflight = yes ] && [ -s acked ]; then mid=$(( mid + 1 )); fi
    local was; was=$(state "$d" "$1")
    [ $inflight = no ] || [ ! -s acked ] || [ "$(state "$d" "$1")" = active ] ||
      fail "after a kill -9 during writes mdadm says $(state "$d" "$1"), not active"
    : >nbdkit.log
    serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" ||
      fail "the plugin did not restart"
    # The resync starts with the first connection (nbdkit says only then
    # whether it serves read-only).
    wait_readable "$(uri "$d/sock")" 5
    [ "$was" = clean ] || wait_log "$d/nbdkit.log" "resync: done" 30
    nbdcopy "$(uri "$d/sock")" out.img || fail "reading back failed"
    stop_pid "$SERVE_PID"
    check_acked "$d" out.img acked
    case $level in
      1) md_same_data "$1" "$2" ;;
      10) md_same_data "$1" "$2"; md_same_data "$3" "$4" ;;
    esac
    [ "$(state "$d" "$1")" = clean ] ||
      fail "after the resync and a clean stop mdadm says $(state "$d" "$1")"
    say "  run $run: killed after $target of $nblocks writes, $(wc -l <acked) acknowledged by then, copies identical"
    cd "$tmp"
    rm -rf "$d"
  done
  say "  $mid of 10 kills came while writes were in flight"
  [ $mid -eq 10 ] || die "only $mid of 10 kills came during the load"
}

scenario_crash ()
{
  say "crash: kill -9 during writes, restart, resync"
  crash_runs 1 a.img b.img
  crash_runs 10 a.img b.img c.img d.img
}

scenario_dirty ()
{
  say "dirty: dirty while a write is in flight, clean after idle"
  local d="$tmp/dirty" io
  FAIL_LOGS=("$d/nbdkit.log")
  mkdir -p "$d"
  cd "$d"
  truncate -s 16M a.img b.img
  "$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
    fail "raidsim create: $(cat create.out)"
  nbdkit --foreground --exit-with-parent -U "$d/b.sock" -P "$d/b.pid" \
    --filter=delay file b.img wdelay=1 >>b.log 2>&1 &
  local bpid=$!
  at_exit stop_pid $bpid
  wait_for_file "$d/b.pid" $bpid 30 || die "nbdkit file did not start"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" a.img "$(uri "$d/b.sock")" ||
    fail "the plugin did not start"
  # The first connection writes the superblocks (1 s on b).
  echo "r 0 4096" | "$NBD_IO" "$(uri "$d/sock")" || fail "read failed"
  [ "$(state "$d" a.img)" = clean ] ||
    fail "before any write mdadm says $(state "$d" a.img)"
  echo "w 65536 65536" | "$NBD_IO" "$(uri "$d/sock")" >io.out 2>&1 &
  io=$!
  sleep 0.5
  [ "$(state "$d" a.img)" = active ] ||
    fail "while a write is in flight mdadm says $(state "$d" a.img), not active"
  wait $io || fail "the write failed: $(cat io.out)"
  sleep 0.2
  [ "$(state "$d" a.img)" = active ] || say "  (already clean 0.2 s after the write)"
  sleep 1.5
  [ "$(state "$d" a.img)" = clean ] ||
    fail "after the write and an idle time mdadm says $(state "$d" a.img)"
  [ "$(state "$d" b.img)" = clean ] ||
    fail "after the write and an idle time mdadm says $(state "$d" b.img) of b.img"
  echo "w 0 4096" | "$NBD_IO" "$(uri "$d/sock")" || fail "write failed"
  stop_pid "$SERVE_PID"
  [ "$(state "$d" a.img)" = clean ] ||
    fail "after a clean stop mdadm says $(state "$d" a.img)"
  say "  active while writing, clean when idle and after a stop"
  cd "$tmp"
}

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(dirty crash)
for s in "${scenarios[@]}"; do
  "scenario_$s"
done
say "PASS"
