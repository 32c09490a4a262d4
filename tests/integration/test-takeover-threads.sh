#!/bin/bash
# raidsim tests: a spare that `add` starts may take over a role before
# its engine's threads first run, and the array goes on.
#
# A file member's engine runs threads of its own (io=uring: a reaper of
# completions; io=threads: workers).  `add c.img` opens and starts the
# spare, and with role 1 empty the recovery thread makes it take the
# role at once: swap_backend moves c.img's state into role 1's struct
# member and leaves the spare slot with the role's placeholder.  The
# threads must therefore hold c.img's state, not the struct member they
# started for.  -D raid.file_thread_delay_ms=1000 holds every engine
# thread for a second before it starts, so that the takeover always
# comes first:
#   1. a RAID 1 (md metadata) of a.img and b.img gets 8 MiB of random
#      data;
#   2. `fail 1`, `remove b.img`, `add c.img`: c.img takes role 1 and is
#      rebuilt;
#   3. `fail 0`: only c.img is left, and the whole array read through it
#      must be the data of step 1.
# For io=uring (skipped where io_uring cannot be used) and io=threads;
# io=inline runs no threads.
#
# Mutant killed: a reaper or worker that reads its struct member's
# state when it starts, as before: after the takeover that is the spare
# slot's, which then holds the removed member's closed state: nbdkit
# dies of SIGSEGV, here when it stops (status 139 after SIGTERM).
#
# Takes about 6 s.
#
# Run: meson test -C build takeover-threads
#  or: tests/integration/test-takeover-threads.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM
requires nbdkit
requires nbdcopy

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
head -c 8M /dev/urandom >"$tmp/data"

# one IO: the three steps with io=IO.
one ()
{
  local io=$1 d=$tmp/$1 uri
  mkdir "$d"
  cd "$d"
  say "io=$io: fail 1, remove b.img, add c.img"
  FAIL_LOGS=("$d/nbdkit.log")
  CTL=$d/ctl
  uri=$(uri "$d/sock")
  truncate -s 16M a.img b.img c.img
  "$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
    fail "raidsim create: $(cat create.out)"
  serve "$d/sock" "$d/nbdkit.log" -D raid.file_thread_delay_ms=1000 \
    "$RAID_PLUGIN" io="$io" control="$d/ctl" a.img b.img ||
    fail "the plugin did not start"
  nbdcopy "$tmp/data" "$uri" || fail "writing the data failed"
  ctl_ok fail 1
  ctl_ok remove b.img
  ctl_ok add c.img
  wait_line nbdkit.log "recovery: done: member .*c.img.* rebuilt" 30 ||
    fail "no rebuild of c.img after 30 s"
  kill -0 "$SERVE_PID" 2>/dev/null || fail "nbdkit died in the takeover"
  ctl_ok fail 0
  nbdcopy "$uri" out.img || fail "reading the array from c.img failed"
  cmp -n 8388608 "$tmp/data" out.img ||
    fail "c.img does not hold the data written before the takeover"
  # A clean stop: SIGTERM, and nbdkit's own exit status (0), which a
  # thread left on the wrong state turns into a crash.
  kill "$SERVE_PID"
  local status=0
  wait "$SERVE_PID" || status=$?
  [ "$status" = 0 ] || fail "nbdkit exited with status $status after SIGTERM"
  say "io=$io: c.img took role 1 before its threads ran, and holds the data"
  cd "$tmp"
}

# raid_io: the engine io=auto picks on this machine, uring only where
# io_uring can be used at all.
if [ "$(nbdkit "$RAID_PLUGIN" --dump-plugin | sed -n 's/^raid_io=//p')" = uring ]; then
  one uring
else
  say "io=uring: not run: io_uring cannot be used here"
fi
one threads
