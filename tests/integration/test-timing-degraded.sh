#!/bin/bash
# raidsim tests: under model=, the models follow the real array's
# members, so a degraded array is timed as a degraded array.
#
# The array: a RAID 1 (md metadata, raidsim create) of two `fixed`
# drives that each serve one request at a time, every one in exactly
# 2 ms, behind a controller that adds nothing.  From first principles,
# 4 KiB random reads at QD2:
#   healthy: the read policy (least-pending) puts one read on each
#            drive, so two reads every 2 ms: 1000 IOPS;
#   member 1 failed (the control socket's `fail 1`, mdadm --fail):
#            every read goes to member 0, one at a time: 500 IOPS.
# raidsim run with --set failed=1 predicts the degraded figure from the
# same files; the emulator must be within 25% of both the figure above
# and raidsim's, and the statistics' timing object must list member 1
# as failed.  2 ms is far above this host's own path (tens of
# microseconds, docs/realtime.md); the tolerance is for a busy
# machine's scheduling.
#
# Mutants killed: the models not told of the failure (timing.c's
# follow_state skipped, or raidsim_array_set_state ignoring failed):
# about 1000 IOPS degraded; timing switched off: tens of thousands.
#
# Takes about 2 s.
#
# Run: meson test -C build timing-degraded
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$SRCDIR/build/raidsim/raidsim}
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"
RAIDSIM_PROG=test-timing-degraded.sh

[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built"
[ -x "$RAIDSIM" ] || die "$RAIDSIM is not built"
command -v nbdkit >/dev/null 2>&1 || skip "nbdkit is not installed"
command -v fio >/dev/null 2>&1 || skip "fio is not installed"
fio --enghelp=nbd >/dev/null 2>&1 || skip "this fio has no nbd ioengine"
perl -MJSON::PP -e 1 2>/dev/null || skip "perl's JSON::PP is not installed"

d=$(mktemp -d)
at_exit rm -rf "$d"
cd "$d"

fail () { show_logs "$d/nbdkit.log"; die "$*"; }

cat > fixed-2ms.ini <<'EOF'
; Written by tests/integration/test-timing-degraded.sh.
[device]
model = fixed
capacity = 1G
latency = 2ms
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
device = fixed-2ms.ini
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
number_ios=400
EOF

truncate -s 16M a.img b.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
  fail "raidsim create: $(cat create.out)"
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" model=array.ini \
  control="$d/ctl" stats="$d/stats.json" a.img b.img ||
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
say "healthy: $healthy IOPS (want 1000)"
within "$healthy" 1000 || fail "healthy: $healthy IOPS, not about 1000"

"$RAIDSIM" control "$d/ctl" fail 1 >ctl.out 2>&1 ||
  fail "control fail 1: $(cat ctl.out)"
degraded=$(iops degraded)
predicted=$("$RAIDSIM" run array.ini --workload job.fio --set failed=1 \
              --format json 2>sim.err |
            perl -MJSON::PP -e '
              local $/;
              printf "%.0f\n", decode_json (<STDIN>)->{jobs}[0]{read}{iops};') ||
  fail "raidsim run --set failed=1: $(cat sim.err)"
say "member 1 failed: $degraded IOPS (want 500; raidsim: $predicted)"
within "$degraded" 500 || fail "degraded: $degraded IOPS, not about 500"
within "$degraded" "$predicted" ||
  fail "degraded: $degraded IOPS against raidsim's $predicted"

stop_pid "$SERVE_PID"
perl -MJSON::PP -e '
  local $/; open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!\n";
  my $t = decode_json (<$f>)->{timing} or die "no timing object\n";
  my $f1 = join ",", @{$t->{failed}};
  $f1 eq "1" or die "the models take members [$f1] as failed, not [1]\n";' \
  "$d/stats.json" 2>json.err || fail "stats.json: $(cat json.err)"
say "the models followed member 1's failure"
