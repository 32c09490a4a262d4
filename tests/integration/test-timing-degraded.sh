#!/bin/bash
# raidsim tests: under model=, the models follow the real array's
# members, so a degraded array is timed as a degraded array, and a
# rebuild's own member I/O takes the modelled drives' time.
#
# The array: a RAID 1 (md metadata, raidsim create) of two 64 MiB
# members, modelled as `fixed` drives that each serve one request at a
# time, every one in exactly 10 ms, behind a controller that adds
# nothing.  From first principles, 4 KiB random reads at QD2:
#   healthy: the read policy (least-pending) puts one read on each
#            drive, so two reads every 10 ms: 200 IOPS;
#   member 1 failed (the control socket's `fail 1`, mdadm --fail):
#            every read goes to member 0, one at a time: 100 IOPS.
# raidsim run with --set failed=1 predicts the degraded figure from the
# same files; the emulator must be within 25% of both the figure above
# and raidsim's, and the statistics' timing object must list member 1
# as failed.
#
# Then `remove b.img` and `add c.img`: c.img takes role 1 and is
# rebuilt, 1 MiB region by region (sync/rebuild.c), with sync-speed-max
# high enough not to matter.  Each region is one read of member 0 and
# one write of member 1, and member 0's reads take 10 ms each, one at a
# time: the rebuild's 63 regions (64 MiB less md's metadata) take at
# least 0.63 s, where the real copy over tmpfs, with its progress
# records and flushes, takes about 0.2 s here.  Once c.img is in sync
# the array reads at about 200 IOPS again.  A check (sync/scrub.c) reads
# each region from both drives at once: at least 0.63 s again.  Last,
# nbd-io kills the server in the middle of writes; the restart resyncs
# (sync/resync.c), reading each region from member 0 and writing it to
# member 1: at least 0.63 s.  The statistics must count each of these member
# I/Os as a background command of the models (2 per region each).
# Last, while a slow rebuild runs, the members' state the models took
# must show the member being rebuilt.
#
# 10 ms is far above this host's own path (tens of microseconds,
# docs/realtime.md); the tolerances are for a busy machine's
# scheduling.
#
# Mutants killed: the models not told of the failure (timing.c's
# follow_state skipped, or raidsim_array_set_state ignoring failed):
# about 200 IOPS degraded; the rebuild's, the check's or the resync's
# I/O not given to the models (rebuild.c's, scrub.c's or resync.c's
# syncio_run as plain member_run_batch): that walk in about 0.05 to 0.2
# s, and too few background commands; raid.c's model_state reporting
# no member rebuilding; timing switched off: thousands of IOPS.
#
# Takes about 9 s.
#
# Run: meson test -C build timing-degraded
#  or: tests/integration/test-timing-degraded.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires_fio_nbd
requires_perl_module JSON::PP

d=$(mktemp -d)
at_exit rm -rf "$d"
cd "$d"
FAIL_LOGS=("$d/nbdkit.log")
CTL=$d/ctl

cat > fixed-10ms.ini <<'EOF'
; Written by tests/integration/test-timing-degraded.sh.
[device]
model = fixed
capacity = 1G
latency = 10ms
parallelism = 1
EOF
cat > nothing.ini <<'EOF'
; Written by tests/integration/test-timing-degraded.sh: a controller
; that adds no time (the generic model's defaults).
[controller]
model = generic
EOF
cat > array.ini <<'EOF'
; Written by tests/integration/test-timing-degraded.sh.
[array]
level = 1
members = 2
device = fixed-10ms.ini
controller = nothing.ini
EOF
cat > job.fio <<'EOF'
; Written by tests/integration/test-timing-degraded.sh.
[global]
bs=4k
rw=randread
size=8m
iodepth=2
[qd2]
number_ios=100
EOF

truncate -s 64M a.img b.img c.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
  fail "raidsim create: $(cat create.out)"
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" model=array.ini \
  control="$d/ctl" stats="$d/stats.json" sync-speed-max=100000000 \
  a.img b.img ||
  fail "the plugin did not start"

# iops NAME: fio's read IOPS of job.fio through the nbd engine.
iops ()
{
  fio --ioengine=nbd --uri="nbd+unix:///?socket=$d/sock" \
      --output-format=json --output="$1.json" job.fio >/dev/null 2>&1 ||
    fail "fio ($1): $(cat "$1.json")"
  perl -MJSON::PP -e '
    local $/; my $t = <STDIN>; $t =~ s/^[^{]*//s;
    printf "%.0f\n", decode_json ($t)->{jobs}[0]{read}{iops};' <"$1.json"
}

# within GOT WANT: GOT is within 25% of WANT.
within () { awk -v g="$1" -v w="$2" 'BEGIN { exit !(g > 0.75 * w && g < 1.25 * w) }'; }

healthy=$(iops healthy)
say "healthy: $healthy IOPS (want 200)"
within "$healthy" 200 || fail "healthy: $healthy IOPS, not about 200"

ctl_ok fail 1
degraded=$(iops degraded)
predicted=$("$RAIDSIM" run array.ini --workload job.fio --set failed=1 \
              --format json 2>sim.err |
            perl -MJSON::PP -e '
              local $/;
              printf "%.0f\n", decode_json (<STDIN>)->{jobs}[0]{read}{iops};') ||
  fail "raidsim run --set failed=1: $(cat sim.err)"
say "member 1 failed: $degraded IOPS (want 100; raidsim: $predicted)"
within "$degraded" 100 || fail "degraded: $degraded IOPS, not about 100"
within "$degraded" "$predicted" ||
  fail "degraded: $degraded IOPS against raidsim's $predicted"

# SIGUSR1: the statistics now (written whole, then renamed into place).
kill -USR1 "$SERVE_PID"
wait_line "$d/stats.json" '"timing"' 10 || fail "no statistics after SIGUSR1"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
  my $t = decode_json (<$f>)->{timing} or die "no timing object\n";
  my $f1 = join ",", @{$t->{failed}};
  $f1 eq "1" or die "the models take members [$f1] as failed, not [1]\n";' \
  "$d/stats.json" 2>json.err || fail "stats.json: $(cat json.err)"
say "the models followed member 1's failure"

# The rebuild.
ctl_ok remove b.img
ctl_ok add c.img
wait_line nbdkit.log "recovery: done: member .*c.img.* rebuilt" 60 ||
  fail "no rebuild of c.img in the log after 60 s"
# "... rebuilt, BYTES bytes in SECS s ...": BYTES is the data area (64 MiB
# less md's metadata), REGIONS the 1 MiB regions it takes.
read -r bytes secs < <(sed -n 's/.*recovery: done: member .*c\.img.* rebuilt, \([0-9]*\) bytes in \([0-9.]*\) s.*/\1 \2/p' nbdkit.log)
regions=$(( (bytes + 1048575) / 1048576 ))
# at_least WHAT SECS: SECS is at least the models' REGIONS x 10 ms.
at_least ()
{
  say "$1: $regions regions in $2 s (at least $(( regions * 10 )) ms from the models)"
  awk -v s="$2" -v n="$regions" 'BEGIN { exit !(s >= n * 0.010) }' ||
    fail "the $1 took $2 s: its I/O did not take the models' time"
}
at_least "rebuild of c.img" "$secs"
rebuilt=$(iops rebuilt)
say "rebuilt: $rebuilt IOPS (want 200)"
within "$rebuilt" 200 || fail "rebuilt: $rebuilt IOPS, not about 200"

# A check (md's sync_action=check): each region read from both copies,
# one read on each drive at once.
ctl_ok check
wait_line nbdkit.log "check: done:" 60 || fail "no check done in the log after 60 s"
at_least check "$(sed -n 's/.*check: done: [0-9]* bytes in \([0-9.]*\) s.*/\1/p' nbdkit.log)"

# background_at_least N: the statistics (SIGUSR1, or the server's
# exit) count at least N background commands, and no member failed.
background_at_least ()
{
  perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
    my $t = decode_json (<$f>)->{timing} or die "no timing object\n";
    my $b = $t->{background}{commands};
    $b >= $ARGV[1] or die "$b background commands timed, not $ARGV[1]\n";
    @{$t->{failed}} == 0 or die "the models still take members as failed\n";
    print "$b background commands timed\n";' \
    "$d/stats.json" "$1" 2>json.err || fail "stats.json: $(cat json.err)"
}
rm -f stats.json
kill -USR1 "$SERVE_PID"
wait_line "$d/stats.json" '"timing"' 10 || fail "no statistics after SIGUSR1"
background_at_least $(( 4 * regions ))

# A resync: nbd-io kills the server (SIGKILL) once 4 of 64 writes are
# acknowledged, with more in flight, so the superblocks say dirty
# (sync/resync.c); the restart resyncs the whole array, each region read
# from member 0 and written to member 1.
for (( i = 0; i < 64; i++ )); do echo "w $(( i * 4096 )) 4096"; done >reqs
if "$NBD_IO" --depth 4 --kill-after "4:$SERVE_PID" \
     "nbd+unix:///?socket=$d/sock" <reqs >nbd-io.out 2>&1; then
  fail "every write succeeded: the server was not killed"
fi
wait "$SERVE_PID" 2>/dev/null || true
: >nbdkit.log
rm -f stats.json
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" model=array.ini \
  control="$d/ctl" stats="$d/stats.json" sync-speed-max=100000000 \
  a.img c.img || fail "the plugin did not restart"
# The resync starts with the first connection.
echo "r 0 4096" | "$NBD_IO" "nbd+unix:///?socket=$d/sock" >nbd-io.out 2>&1 ||
  fail "a read after the restart failed: $(cat nbd-io.out)"
wait_line nbdkit.log "resync: done:" 60 || fail "no resync done in the log after 60 s"
at_least resync "$(sed -n 's/.*resync: done: .* in \([0-9.]*\) s .*/\1/p' nbdkit.log)"
stop_pid "$SERVE_PID"
background_at_least $(( 2 * regions ))

# While a rebuild runs, the models read the member being rebuilt only
# below the rebuild's position, so the state they take must say
# rebuilding.  A slow rebuild (sync-speed-max=1000 KiB/s: about a minute
# for the 63 MiB), so that it still runs when looked at: fail 1, remove
# c.img, add d.img; once d.img has taken role 1, a read hands the
# models the array's state, and the statistics (SIGUSR1) must show
# member 1 rebuilding and none failed.
truncate -s 64M d.img
: >nbdkit.log
rm -f stats.json
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" model=array.ini \
  control="$d/ctl" stats="$d/stats.json" sync-speed-max=1000 \
  a.img c.img || fail "the plugin did not restart"
read1 ()
{
  echo "r 0 4096" | "$NBD_IO" "nbd+unix:///?socket=$d/sock" >nbd-io.out 2>&1 ||
    fail "a read failed: $(cat nbd-io.out)"
}
read1                           # the array starts with the first client
ctl_ok fail 1
ctl_ok remove c.img
ctl_ok add d.img
wait_line nbdkit.log "d.img takes over role 1" 30 ||
  fail "d.img did not take role 1 in 30 s"
read1
kill -USR1 "$SERVE_PID"
wait_line "$d/stats.json" '"timing"' 10 || fail "no statistics after SIGUSR1"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
  my $t = decode_json (<$f>)->{timing} or die "no timing object\n";
  my ($r, $x) = map { join ",", @{$t->{$_}} } qw(rebuilding failed);
  $r eq "1" && $x eq "" or
    die "the models take members [$r] as rebuilding and [$x] as failed, " .
        "not [1] and []\n";' \
  "$d/stats.json" 2>json.err || fail "stats.json: $(cat json.err)"
say "the models took member 1 as rebuilding while d.img was rebuilt"
stop_pid "$SERVE_PID"
