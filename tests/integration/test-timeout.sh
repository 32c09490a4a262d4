#!/bin/bash
# raidsim tests: NBD members that stop answering (issue 12, item 5).
#
# Each member is `nbdkit file FILE` on a Unix socket; the array runs with
# timeout=2s.  A member's server is stopped with SIGSTOP before the
# request is sent, so the request always finds it stopped: the socket is
# open and nothing ever answers, as with a wedged server or a network
# that drops packets.
#
# W1: RAID 1, member 0 stopped, a 4K write.  The write must succeed, after
#     the timeout (2 s) and well before 20 s; the log must say member 0
#     had no reply within 2s and that it failed on pwrite with "Connection
#     timed out"; member 1's file must hold the data.
# W1big: the same with a 4 MiB write, which fills the socket's buffers
#     (libnbd waits to write, not to read, when the timeout fires).
# R1: RAID 1, read-policy=first, member 0 stopped, a 4K read.  The read
#     must succeed from member 1 after the timeout, and the copy on member
#     0 then fails its rewrite: member 0 is failed.  After SIGCONT, when
#     the late server finally answers, the array keeps serving.
# W0: RAID 0, member 0 stopped, a 4K write on member 0's first chunk: the
#     write must fail after the timeout with EIO (not EINVAL, which is
#     what nbdkit makes of ETIMEDOUT), and the log must name member 0.
# X: RAID 1, member 0 stopped, `nbdinfo --map`: the block status sent to
#     member 0 gets no reply; after the timeout the plugin must drop its
#     connection (logging it) and the map must come back, from member 1.
# P: a slow member that keeps answering is not timed out: member 0 takes
#     at most 64K per command (nbdkit's blocksize-policy filter) and each
#     write takes 300 ms (the delay filter), one at a time (--threads 1),
#     so a 1 MiB write is 16 commands and 4.8 s, with timeout=1s.  The
#     write must succeed with no member failed: the timeout counts from
#     an I/O's last reply.
# H: a member URI pointing at a TCP listener that accepts and never
#     speaks NBD (a perl one-liner): nbdkit must exit non-zero within 20 s
#     with one error line naming the member and the timeout, and leave
#     the other member's file untouched.
#
# Skips (77) if nbdkit's file plugin or perl is missing.
#
# Run: meson test -C build timeout
#  or: tests/integration/test-timeout.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires perl
requires_nbdkit_plugin file

tmp=$(mktemp -d /var/tmp/raidsim-timeout.XXXXXX)
at_exit rm -rf "$tmp"
keep_going

TIMEOUT=2s
MiB=$(( 1024 * 1024 ))

# setup NAME LEVEL PLUGIN-ARGS...: two 16M member files, each served by
# nbdkit file, and the array over them with timeout=$TIMEOUT; sets D,
# VICTIM (member 0's server), ARRAY (the array's socket) and LOG.
setup ()
{
  local name=$1 level=$2 i
  shift 2
  D=$tmp/$name
  mkdir -p "$D"
  for i in 0 1; do
    truncate -s 16M "$D/m$i.img"
    serve "$D/m$i.sock" "$D/m$i.log" file "$D/m$i.img"
    # Registered after serve's stop_pid, so it runs first at exit: a
    # stopped server would hold SIGTERM until it is continued.
    at_exit kill -CONT "$SERVE_PID"
    if [ "$i" = 0 ]; then VICTIM=$SERVE_PID; fi
  done
  ARRAY=$D/raid.sock
  LOG=$D/raid.log
  serve "$ARRAY" "$LOG" "$RAID_PLUGIN" level="$level" timeout=$TIMEOUT "$@" \
    "$(uri "$D/m0.sock")" "$(uri "$D/m1.sock")" ||
    die "$name: the array did not start"
}

# timed NAME REQUESTS: send REQUESTS (nbd-io's format) to the array,
# giving up after 20 s; sets RC (nbd-io's status, 124 if it was still
# waiting) and SECS (the wall time), and keeps its messages in
# $D/NAME.out.
timed ()
{
  local t0 t1
  t0=$(date +%s%N)
  RC=0
  printf '%b' "$2" | timeout 20 "$NBD_IO" "$(uri "$ARRAY")" \
    >"$D/$1.out" 2>&1 || RC=$?
  t1=$(date +%s%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
}

# between SECS LO HI: LO <= SECS <= HI
between () { awk -v s="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(s >= lo && s <= hi) }'; }

# logged NAME PATTERN: the array's log has a line matching PATTERN (ERE).
logged ()
{
  if grep -Eq -- "$2" "$LOG"; then
    ok "$1: logged: $(grep -E -m1 -- "$2" "$LOG")"
  else
    fail "$1: no log line matching '$2'; the log:"
    sed 's/^/    /' "$LOG"
  fi
}

# ---- W1: RAID 1, a write to a stopped member ----------------------------

say "W1: RAID 1, member 0's server stopped, a 4K write"
setup w1 1
kill -STOP "$VICTIM"
timed w "w 0 4096\n"
if [ "$RC" -eq 0 ] && between "$SECS" 1.9 15; then
  ok "W1: the write succeeded after $SECS s (timeout=$TIMEOUT)"
else
  fail "W1: nbd-io exited $RC after $SECS s, want 0 after 2 to 15 s: $(cat "$D/w.out")"
fi
logged W1 '^nbdkit: .*member 0 \(.*m0\.sock\): an I/O had no reply within 2s'
logged W1 'member 0 \(.*\) failed on pwrite: Connection timed out; array is degraded, 1 of 2'
if cmp -s -n 4096 "$D/m1.img" /dev/zero; then
  fail "W1: member 1 does not hold the write"
else
  ok "W1: member 1 holds the write"
fi
# The array goes on, degraded, without waiting for member 0 again.
timed r "r 0 4096\nw 65536 4096\n"
if [ "$RC" -eq 0 ] && between "$SECS" 0 1.5; then
  ok "W1: then a read and a write took $SECS s"
else
  fail "W1: then a read and a write: status $RC after $SECS s: $(cat "$D/r.out")"
fi

# ---- W1big: the write that fills the socket ----------------------------

say "W1big: RAID 1, member 0's server stopped, a 4 MiB write"
setup w1big 1
kill -STOP "$VICTIM"
timed w "w 0 $(( 4 * MiB ))\n"
if [ "$RC" -eq 0 ] && between "$SECS" 1.9 15; then
  ok "W1big: the write succeeded after $SECS s"
else
  fail "W1big: nbd-io exited $RC after $SECS s, want 0 after 2 to 15 s: $(cat "$D/w.out")"
fi
logged W1big 'member 0 \(.*\) failed on pwrite: Connection timed out'

# ---- R1: RAID 1, a read from a stopped member ---------------------------

say "R1: RAID 1, read-policy=first, member 0's server stopped, a 4K read"
setup r1 1 read-policy=first
kill -STOP "$VICTIM"
timed r "r 0 4096\n"
if [ "$RC" -eq 0 ] && between "$SECS" 1.9 15; then
  ok "R1: the read succeeded from member 1 after $SECS s"
else
  fail "R1: nbd-io exited $RC after $SECS s, want 0 after 2 to 15 s: $(cat "$D/r.out")"
fi
logged R1 'pread: member 0 \(.*\) at offset 0: Connection timed out; reading another copy'
logged R1 'member 0 \(.*\) failed on rewrite after read error: Connection timed out'
# The late server wakes up and answers on a socket that is shut down.
kill -CONT "$VICTIM"
sleep 0.5
timed r2 "r 0 4096\nw 0 8192\nr 0 8192\n"
if [ "$RC" -eq 0 ] && between "$SECS" 0 1.5 && kill -0 "$SERVE_PID"; then
  ok "R1: after member 0's server continued, the array still serves"
else
  fail "R1: after SIGCONT: status $RC after $SECS s: $(cat "$D/r2.out")"
fi

# ---- W0: RAID 0 has no other copy ---------------------------------------

say "W0: RAID 0, member 0's server stopped, a 4K write on member 0"
setup w0 0
kill -STOP "$VICTIM"
timed w "w 0 4096\n"
if [ "$RC" -eq 1 ] && between "$SECS" 1.9 15 &&
   grep -q 'Input/output error' "$D/w.out"; then
  ok "W0: the write failed with EIO after $SECS s: $(cat "$D/w.out")"
else
  fail "W0: nbd-io exited $RC after $SECS s, want 1 (EIO) after 2 to 15 s: $(cat "$D/w.out")"
fi
logged W0 'pwrite: member 0 \(.*\) at offset 0: Connection timed out'

# ---- X: a block status to a stopped member -----------------------------

if command -v nbdinfo >/dev/null 2>&1; then
  say "X: RAID 1, member 0's server stopped, nbdinfo --map"
  setup x 1
  kill -STOP "$VICTIM"
  t0=$(date +%s%N)
  RC=0
  timeout 20 nbdinfo --map "$(uri "$ARRAY")" >"$D/map" 2>&1 || RC=$?
  SECS=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
  if [ "$RC" -eq 0 ] && between "$SECS" 1.9 15; then
    ok "X: the map came back after $SECS s: $(head -c 200 "$D/map")"
  else
    fail "X: nbdinfo --map exited $RC after $SECS s: $(cat "$D/map")"
  fi
  logged X 'member 0 \(.*\): a block status request had no reply within 2s'
else
  say "X: SKIP: nbdinfo is not installed"
fi

# ---- P: slow but answering ---------------------------------------------

say "P: RAID 1, member 0 answers every 300 ms, a 1 MiB write in 16 commands, timeout=1s"
if nbdkit --filter=blocksize-policy --filter=delay null 1M --run true \
     2>/dev/null; then
  D=$tmp/p
  mkdir -p "$D"
  truncate -s 16M "$D/m0.img" "$D/m1.img"
  serve "$D/m0.sock" "$D/m0.log" --threads 1 \
    --filter=blocksize-policy --filter=delay file "$D/m0.img" \
    blocksize-maximum=64K wdelay=300ms
  serve "$D/m1.sock" "$D/m1.log" file "$D/m1.img"
  ARRAY=$D/raid.sock
  LOG=$D/raid.log
  serve "$ARRAY" "$LOG" "$RAID_PLUGIN" level=1 timeout=1s \
    "$(uri "$D/m0.sock")" "$(uri "$D/m1.sock")" || die "P: no array"
  timed w "w 0 $MiB\n"
  if [ "$RC" -eq 0 ] && between "$SECS" 4 15 && ! grep -q failed "$LOG" &&
     cmp -s "$D/m0.img" "$D/m1.img"; then
    ok "P: the write took $SECS s, no member failed, both copies agree"
  else
    fail "P: status $RC after $SECS s (want 0 after 4.8 s, no member failed); the log:"
    sed 's/^/    /' "$LOG"
  fi
else
  say "P: SKIP: nbdkit has no blocksize-policy or delay filter"
fi

# ---- H: a listener that never speaks NBD --------------------------------

say "H: a member at a TCP listener that accepts and never speaks NBD"
D=$tmp/h
mkdir -p "$D"
perl -MIO::Socket::INET -e '
  my $s = IO::Socket::INET->new (Listen => 5, LocalAddr => "127.0.0.1",
                                 LocalPort => 0, ReuseAddr => 1)
    or die "listen: $!\n";
  open my $f, ">", "$ARGV[0].tmp" or die; print $f $s->sockport, "\n";
  close $f; rename "$ARGV[0].tmp", $ARGV[0];
  my @keep; while (my $c = $s->accept) { push @keep, $c }' "$D/port" &
listener=$!
at_exit stop_pid "$listener"
wait_for_file "$D/port" "$listener" 10 || die "H: the listener did not start"
port=$(cat "$D/port")
{ printf 'member 1\n'; head -c 65536 /dev/urandom; } >"$D/a.img"
truncate -s 16M "$D/a.img"
cp "$D/a.img" "$D/a.orig"
t0=$(date +%s%N)
RC=0
timeout 20 nbdkit -U - --run true "$RAID_PLUGIN" level=1 timeout=$TIMEOUT \
  "$D/a.img" "nbd://127.0.0.1:$port/" >"$D/out" 2>"$D/err" || RC=$?
SECS=$(awk -v a="$t0" -v b="$(date +%s%N)" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
if [ "$RC" -ne 0 ] && [ "$RC" -ne 124 ] && [ "$(grep -c . "$D/err")" -eq 1 ] &&
   grep -q "^nbdkit: error: member: nbd://127.0.0.1:$port/: .*within 2s (timeout=)" "$D/err" &&
   cmp -s "$D/a.img" "$D/a.orig"; then
  ok "H: refused after $SECS s: $(cat "$D/err")"
else
  fail "H: nbdkit exited $RC after $SECS s, want non-zero with one line naming the member and the timeout: $(cat "$D/err")"
fi

end_checks
