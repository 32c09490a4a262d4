#!/bin/bash
# raidsim tests: which engine io= gives each member, and the inline
# engine's order (issue 12, "Fan-out on memory-backed members").
#
# E1: io=auto on files on tmpfs: every member's engine is "inline" (the
#     statistics JSON's members[].engine and "io"), and the server has
#     no thread per member: with io=threads the same array has exactly
#     2 x 8 more threads (8 workers per member).
# E2: io=auto on files on a disk file system (this test's scratch
#     directory under /var/tmp) is not inline.
# E3: io=threads (and io=uring, where the kernel allows it) on tmpfs
#     still give those engines; io=inline on a disk file system gives
#     inline.
# E4: io=auto on ramfs is inline (root only: it mounts a ramfs).
# E5: NBD members keep concurrent fan-out beside an inline member: a
#     RAID 0 of a tmpfs file and two NBD members, each behind nbdkit's
#     delay filter (1 s per read), reads 192K across all three.  With -v
#     -D raid.io=1 the log must show both NBD reads started before the
#     inline member's read, and the request must take less than 1.9 s
#     (the two NBD reads in flight together; one after the other they
#     take 2 s).
#
# Run: meson test -C build io-engine
#  or: tests/integration/test-io-engine.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires perl
SHM=${SHM:-/dev/shm}
[ "$(stat -f -c %T "$SHM" 2>/dev/null)" = tmpfs ] ||
  skip "$SHM is not a tmpfs (set SHM to one)"

disk=$(mktemp -d /var/tmp/raidsim-io-engine.XXXXXX)
at_exit rm -rf "$disk"
[ "$(stat -f -c %T "$disk")" != tmpfs ] || skip "/var/tmp is a tmpfs here"
shm=$(mktemp -d "$SHM/raidsim-io-engine.XXXXXX")
at_exit rm -rf "$shm"
keep_going

# engines JSON: "IO: ENGINE ENGINE ..." from the statistics file.
engines ()
{
  perl -MJSON::PP -e '
    local $/; my $j = decode_json (<STDIN>);
    print "$j->{io}:", (map { " $_->{engine}" } @{$j->{members}}), "\n";' <"$1"
}

# engine_of NAME DIR PLUGIN-ARGS...: start and stop the plugin over two
# 8M files in DIR, and set ENGINES from its statistics.
engine_of ()
{
  local name=$1 dir=$2
  shift 2
  truncate -s 8M "$dir/$name-a.img" "$dir/$name-b.img"
  ENGINES=
  if nbdkit -U - --run true "$RAID_PLUGIN" level=0 stats="$dir/$name.json" \
       "$@" "$dir/$name-a.img" "$dir/$name-b.img" 2>"$dir/$name.err"; then
    ENGINES=$(engines "$dir/$name.json")
  else
    cat "$dir/$name.err"
  fi
}

# expect NAME WANT: ENGINES is WANT.
expect ()
{
  if [ "$ENGINES" = "$2" ]; then
    ok "$1: $ENGINES"
  else
    fail "$1: want '$2', got '$ENGINES'"
  fi
}

# ---- E1 ----------------------------------------------------------------

engine_of e1 "$shm" io=auto
expect "E1: io=auto on tmpfs" "inline: inline inline"

# threads NAME PLUGIN-ARGS...: the threads of an idle server, counted
# once -v has logged both members' engines, which the plugin does after
# it has started their threads.
threads ()
{
  local i
  truncate -s 8M "$shm/$1-a.img" "$shm/$1-b.img"
  serve "$shm/$1.sock" "$shm/$1.log" -v "$RAID_PLUGIN" level=0 "${@:2}" \
    "$shm/$1-a.img" "$shm/$1-b.img" || die "$1: nbdkit did not start"
  for (( i = 0; i < 100; i++ )); do
    [ "$(grep -c 'does I/O with' "$shm/$1.log")" -lt 2 ] || break
    sleep 0.1
  done
  THREADS=$(find "/proc/$SERVE_PID/task" -mindepth 1 -maxdepth 1 | wc -l)
  stop_pid "$SERVE_PID"
}
threads t-auto io=auto; n_auto=$THREADS
threads t-thr io=threads; n_thr=$THREADS
if [ $(( n_thr - n_auto )) -eq 16 ]; then
  ok "E1: $n_auto threads with io=auto, $n_thr with io=threads"
else
  fail "E1: $n_auto threads with io=auto, $n_thr with io=threads: want 16 more"
fi

# ---- E2, E3 ------------------------------------------------------------

engine_of e2 "$disk" io=auto
case $ENGINES in
  "uring: uring uring"|"threads: threads threads")
    ok "E2: io=auto on $(stat -f -c %T "$disk"): $ENGINES" ;;
  *) fail "E2: io=auto on a disk file system: $ENGINES" ;;
esac
engine_of e3-threads "$shm" io=threads
expect "E3: io=threads on tmpfs" "threads: threads threads"
if [ "$(nbdkit "$RAID_PLUGIN" --dump-plugin | sed -n 's/^raid_io=//p')" = uring ]; then
  engine_of e3-uring "$shm" io=uring
  expect "E3: io=uring on tmpfs" "uring: uring uring"
else
  say "E3: io=uring: SKIP: io_uring is not available here"
fi
engine_of e3-inline "$disk" io=inline
expect "E3: io=inline on a disk file system" "inline: inline inline"

# ---- E4 ----------------------------------------------------------------

if [ "$(id -u)" -eq 0 ] && mkdir -p "$disk/ramfs" &&
   mount -t ramfs ramfs "$disk/ramfs" 2>/dev/null; then
  at_exit umount_dir "$disk/ramfs"
  engine_of e4 "$disk/ramfs" io=auto
  expect "E4: io=auto on ramfs" "inline: inline inline"
  umount_dir "$disk/ramfs"
else
  say "E4: SKIP: cannot mount a ramfs (not root?)"
fi

# ---- E5 ----------------------------------------------------------------

for i in 1 2; do
  serve "$shm/n$i.sock" "$shm/n$i.log" --filter=delay memory 16M rdelay=1 ||
    die "E5: member $i's server did not start"
done
truncate -s 16M "$shm/e5-m0.img"
rm -f "$shm/e5.log"
serve "$shm/e5.sock" "$shm/e5.log" -v -D raid.io=1 "$RAID_PLUGIN" \
  level=0 chunk=64K stats="$shm/e5.json" "$shm/e5-m0.img" \
  "$(uri "$shm/n1.sock")" "$(uri "$shm/n2.sock")" ||
  die "E5: the array did not start"
e5=$SERVE_PID
t0=$(date +%s%N)
printf 'r 0 196608\n' | "$NBD_IO" "$(uri "$shm/e5.sock")" >"$shm/e5.out" 2>&1 ||
  fail "E5: the read failed: $(cat "$shm/e5.out")"
secs=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
stop_pid "$e5"
ENGINES=$(engines "$shm/e5.json")
expect "E5: engines" "inline: inline nbd nbd"
# The member reads, in the order they were started.
order=$(sed -n 's/.*debug: pread member=\([0-9]*\) offset=0 length=65536 .*/\1/p' \
          "$shm/e5.log" | tr -d '\n')
if [ "$order" = 120 ]; then
  ok "E5: the NBD members' reads started before the inline member's (order $order)"
else
  fail "E5: member reads started in the order '$order', want 120"
fi
if awk -v s="$secs" 'BEGIN { exit !(s >= 1 && s < 1.9) }'; then
  ok "E5: the read took $secs s (1 s members, in flight together)"
else
  fail "E5: the read took $secs s, want 1 to 1.9"
fi

end_checks
