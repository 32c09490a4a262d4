#!/bin/bash
# raidsim tests: what the plugin allocates for a member is freed when
# the member goes, checked by valgrind's leak check over a spare's whole
# life.  A member's statistics live in per-CPU shards on the heap
# (plugins/raid/member/stats.c, about half a megabyte for two CPUs), so a slot
# that is used again must free the ones it had:
#
#   1. a RAID 1 (md metadata) of a.img and b.img with the spare s1.img
#      starts under valgrind; a client connects, which starts the array;
#   2. `fail 1`: s1.img takes over role 1 and is rebuilt; b.img stays
#      listed, faulty, in the spare slot s1.img had;
#   3. `remove b.img` frees that slot, and `add c.img` opens a new spare
#      in it;
#   4. nbdkit stops: valgrind must find no block that the plugin
#      allocated definitely lost.
#
# Every step waits for the log line or the control reply that says it
# is done, so the order is fixed.
#
# Mutants killed:
# - spare_open (md/spares.c) without its stats_destroy before the slot is
#   cleared: b.img's shards (one block of 467,584 bytes on two CPUs)
#   are definitely lost;
# - a spare's name not kept in rec->names (strdup'd and left in the
#   role it took over, as before): "s1.img", 7 bytes, is definitely
#   lost when nbdkit unloads the plugin.
# (Blocks the plugin still points at when nbdkit exits are reachable,
# not lost: valgrind does not judge them, and neither does this test.)
#
# Skips (77) if valgrind, nbdkit or nbdinfo is missing.
#
# Run: meson test -C build leak
#  or: tests/integration/test-leak.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM
requires valgrind
requires nbdkit
requires nbdinfo

d=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-leak.XXXXXX")
at_exit rm -rf "$d"
cd "$d"
FAIL_LOGS=("$d/nbdkit.log" "$d/valgrind.log")
CTL=$d/ctl

truncate -s 32M a.img b.img s1.img c.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
  fail "raidsim create: $(cat create.out)"

# --exit-with-parent and -P as serve () in scripts/lib.sh, with valgrind
# in front; its slower start gets more time.  io=threads: valgrind does
# not run io_uring (the engine io=auto picks on most file systems), and
# a member's statistics are the same whatever its engine.
valgrind --leak-check=full --show-leak-kinds=definite --keep-debuginfo=yes \
         --log-file="$d/valgrind.log" \
  nbdkit --foreground --exit-with-parent -U "$d/sock" -P "$d/pid" \
         "$RAID_PLUGIN" a.img b.img spare=s1.img control="$d/ctl" io=threads \
         >>nbdkit.log 2>&1 &
pid=$!
at_exit stop_pid "$pid"
wait_for_file "$d/pid" "$pid" 120 || fail "nbdkit did not start"
nbdinfo --size "nbd+unix:///?socket=$d/sock" >/dev/null 2>&1 ||
  fail "the array cannot be reached"

ctl_ok fail 1
wait_log nbdkit.log "spare .*s1.img takes over role 1" 60
wait_log nbdkit.log "recovery: done: member 1 (.*s1.img) rebuilt" 120
ctl_ok remove b.img
ctl_ok add c.img
grep -q "c.img" ctl.out || fail "add c.img: no c.img in the reply: $(cat ctl.out)"

# SIGTERM and wait: valgrind writes its report as nbdkit exits.
kill "$pid"
wait "$pid" || fail "nbdkit exited with status $? under valgrind"
grep -q "LEAK SUMMARY\|All heap blocks were freed" valgrind.log ||
  fail "valgrind wrote no leak report"
# --keep-debuginfo names the plugin's frames after nbdkit has unloaded
# it.  Blocks that nbdkit or the C library lose are not the plugin's:
# a loss record fails the test when a frame of its stack is in one of
# the plugin's own source files (plugins/raid/*.c and its folders'),
# which valgrind names by their base names.
plugin_files=$(cd "$SRCDIR/plugins/raid" && find . -name '*.c' -printf '%f\n')
lost=$(awk -v files="$plugin_files" '
  BEGIN { n = split (files, f, "\n"); for (i = 1; i <= n; i++) mine[f[i]] = 1 }
  /definitely lost in loss record/ { rec = $0; sub (/^==[0-9]+== /, "", rec); inrec = 1; next }
  inrec && /^==[0-9]+== *$/ { inrec = 0; next }
  inrec && match ($0, /\(([A-Za-z0-9_.-]+\.c):[0-9]+\)/) {
    file = substr ($0, RSTART + 1, RLENGTH - 2); sub (/:[0-9]+$/, "", file)
    if (file in mine) { print rec; inrec = 0 }
  }' valgrind.log)
[ -z "$lost" ] || fail "the plugin lost memory (valgrind.log above): $lost"
say "no block of the plugin's lost over a spare's life (add, take over, remove, add)"
