#!/bin/bash
# raidsim cross-check: one fio job file, run by real fio through its nbd
# ioengine against the timed emulator (nbdkit-raid-plugin model=ARRAY.ini)
# and by the simulator (raidsim run ARRAY.ini --workload JOB.fio); the
# two side by side, per job and direction: IOPS, bandwidth (MB/s, 10^6
# bytes/s), and the mean, p50 and p99 of completion latency, each with
# the ratio emulator / simulator.  Then the emulator's own account of its
# limits (the plugin's "timing" statistics): how many requests were late
# (the real I/O ended after the model's time) and the error of the
# others.
#
# The members are sparse files in BENCH_DIR (a tmpfs), each the size of
# one modelled drive, so that the array the plugin serves is the size of
# the one the simulator models and a job without size= covers the same
# range in both (a hard disk's seeks depend on it).  Reads of holes cost
# the host almost nothing; a job that writes allocates what it writes.
#
# Run: bench/crosscheck.sh configs/arrays/raid0-4x-wd2502abys-amd.ini JOB.fio
# Options (before the files):
#   --check TOL   exit 1 unless every job's IOPS and mean latency ratios
#                 are within 1 +- TOL (e.g. 0.25); for tests.
#   --seed N      the simulator's (first) seed (default 1).
#   --failed LIST members (0-based, comma-separated) failed in both: the
#                 simulator's --set failed=LIST, and the control
#                 socket's `fail` (mdadm --fail) on the emulator before
#                 the job runs, whose models then follow the degraded
#                 array (docs/realtime.md).
#   --seeds K     run the simulator with seeds N .. N+K-1 and compare
#                 against the mean of each figure (default 1, or
#                 SEEDS): one emulator run is one sample of the random
#                 offsets, as each seed is, and at deep queues a hard
#                 disk's percentiles move by 15% from seed to seed.
# Environment: RAID_PLUGIN, RAIDSIM (default build/...), BENCH_DIR
# (default /dev/shm), THREADS (nbdkit --threads, default 64: at least the deepest queue a job keeps, or nbdkit queues what the models should), NBDKIT_ARGS
# (more plugin parameters or nbdkit options, e.g. "-D
# raid.timing_lookahead_us=0"), OUT=DIR (keep fio.json, sim.json and
# stats.json there).
# Prints one line per figure; the last lines are "crosscheck: JOB DIR
# iops=R mean=R p50=R p99=R" with the ratios, for scripts.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=crosscheck.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$srcdir/build/raidsim/raidsim}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
THREADS=${THREADS:-64}
NBDKIT_ARGS=${NBDKIT_ARGS:-}
OUT=${OUT:-}
# Both fio and nbdkit run under SCHED_FIFO 1 where allowed (RT= to
# turn it off): on a busy machine a client or a server thread woken at
# the normal policy waits for a CPU for milliseconds, which is the
# host's noise and not the emulator's (docs/realtime.md).
if [ -z "${RT+x}" ]; then
  if chrt -f 1 true 2>/dev/null; then RT="chrt -f 1"; else RT=""; fi
fi

check=
failed=
seed=1
seeds=${SEEDS:-1}
while [ $# -gt 0 ]; do
  case $1 in
    --check) check=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --failed) failed=$2; shift 2 ;;
    --seeds) seeds=$2; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || die "usage: crosscheck.sh [--check TOL] [--failed LIST] [--seed N] [--seeds K] ARRAY.ini JOB.fio"
array=$1
job=$2
[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built (meson compile -C build)"
[ -x "$RAIDSIM" ] || die "$RAIDSIM is not built (meson compile -C build)"
command -v nbdkit >/dev/null 2>&1 || skip "nbdkit is not installed"
command -v fio >/dev/null 2>&1 || skip "fio is not installed"
fio --enghelp=nbd >/dev/null 2>&1 || skip "this fio has no nbd ioengine"
perl -MJSON::PP -e 1 2>/dev/null || skip "perl's JSON::PP is not installed"
if [ -n "$failed" ]; then
  [[ $failed =~ ^[0-9]+(,[0-9]+)*$ ]] ||
    die "--failed: $failed: not a list of member numbers (0,2)"
  command -v nbdinfo >/dev/null 2>&1 || skip "--failed needs nbdinfo"
fi
sim_set=()
[ -z "$failed" ] || sim_set=(--set "failed=$failed")

work=$(mktemp -d "$BENCH_DIR/crosscheck.XXXXXX")
at_exit rm -rf "$work"

# 1. The simulator, over seeds seed .. seed+seeds-1; sim.json holds the
# mean of each figure the comparison reads (and the first run's array),
# and every figure's lowest and highest over the seeds.
for (( s = seed; s < seed + seeds; s++ )); do
  "$RAIDSIM" run "$array" --workload "$job" --seed "$s" --format json \
    "${sim_set[@]}" > "$work/sim-$s.json" || die "raidsim run failed"
done
perl -MJSON::PP -e '
  use strict; use warnings;
  my @runs = map { local $/; open my $f, "<", $_ or die "$_: $!";
                   decode_json (<$f>) } @ARGV;
  my $out = $runs[0];
  for my $i (0 .. $#{$out->{jobs}}) {
    for my $d ("read", "write") {
      my @v = map { $_->{jobs}[$i]{$d} } @runs;
      my $o = $out->{jobs}[$i]{$d};
      my %get = (
        iops => sub { $_[0]{iops} }, bw_bytes => sub { $_[0]{bw_bytes} },
        mean => sub { $_[0]{clat_ns}{mean} },
        p50 => sub { $_[0]{clat_ns}{percentile}{"50.000000"} },
        p99 => sub { $_[0]{clat_ns}{percentile}{"99.000000"} });
      my %m;
      for my $k (keys %get) {
        my @x = map { $get{$k}->($_) // 0 } @v;
        my $sum = 0; $sum += $_ for @x;
        my ($lo, $hi) = (sort { $a <=> $b } @x)[0, -1];
        $m{$k} = $sum / @x;
        $o->{seed_range}{$k} = [$lo, $hi];
      }
      $o->{iops} = $m{iops};
      $o->{bw_bytes} = $m{bw_bytes};
      $o->{clat_ns}{mean} = $m{mean};
      $o->{clat_ns}{percentile}{"50.000000"} = $m{p50};
      $o->{clat_ns}{percentile}{"99.000000"} = $m{p99};
    }
  }
  $out->{seeds} = scalar @runs;
  print JSON::PP->new->canonical->encode ($out);
' $(for (( s = seed; s < seed + seeds; s++ )); do echo "$work/sim-$s.json"; done) \
  > "$work/sim.json"

# 2. The members: one modelled drive each (the simulator's array size
# back to one member's share: RAID 0 splits it over the members, RAID 1
# holds it all on each, RAID 10 holds copies of it over them).
read -r level nmembers size copies < <(perl -MJSON::PP -e '
  local $/; my $j = decode_json (<STDIN>); my $a = $j->{array};
  print join (" ", $a->{level}, $a->{members}, $a->{size},
              $a->{copies} // 2), "\n";' < "$work/sim.json")
case $level in
  0) msize=$(( size / nmembers )) ;;
  # A single drive is served over one member (a one-member RAID 1).
  1|single) msize=$size ;;
  10) msize=$(( (size * copies + nmembers - 1) / nmembers )) ;;
  *) die "$array: level $level is not one the plugin serves" ;;
esac
members=()
for (( i = 0; i < nmembers; i++ )); do
  truncate -s "$msize" "$work/m$i.img"
  members+=("$work/m$i.img")
done

# 3. The emulator, and fio against it.
# shellcheck disable=SC2086
serve "$work/sock" "$work/nbdkit.log" --threads "$THREADS" $NBDKIT_ARGS \
  "$RAID_PLUGIN" model="$(realpath "$array")" stats="$work/stats.json" \
  control="$work/ctl" "${members[@]}"
# Threads nbdkit starts from now on inherit the policy.
[ -z "$RT" ] || chrt -f -a -p 1 "$SERVE_PID" > /dev/null
if [ -n "$failed" ]; then
  # The array starts with its first client; then the members fail.
  nbdinfo --size "nbd+unix:///?socket=$work/sock" >/dev/null ||
    die "the emulator cannot be reached"
  for i in ${failed//,/ }; do
    "$RAIDSIM" control "$work/ctl" fail "$i" > "$work/ctl.out" 2>&1 ||
      die "fail $i: $(cat "$work/ctl.out")"
  done
fi
if ! $RT fio --ioengine=nbd --uri="nbd+unix:///?socket=$work/sock" \
     --output-format=json --output="$work/fio.json" "$job" \
     > "$work/fio.log" 2>&1; then
  cat "$work/fio.log" >&2
  die "fio failed"
fi
stop_pid "$SERVE_PID"
[ -s "$work/stats.json" ] || { cat "$work/nbdkit.log" >&2; die "no statistics"; }
if [ -n "$OUT" ]; then
  mkdir -p "$OUT"
  cp "$work/fio.json" "$work/sim.json" "$work/stats.json" "$OUT/"
fi

# 4. Side by side.
perl -MJSON::PP -e '
  use strict; use warnings;
  my ($fio, $sim, $stats, $check, $array, $job, $failed) = @ARGV;
  sub load { local $/; open my $f, "<", $_[0] or die "$_[0]: $!";
             my $t = <$f>; $t =~ s/^[^{]*//s; decode_json ($t) }
  my ($f, $s, $st) = (load ($fio), load ($sim), load ($stats));
  my %sim = map { $_->{jobname} => $_ } @{$s->{jobs}};
  my $bad = 0;
  printf "crosscheck: %s with %s (raidsim: %s)\n", $array, $job,
         ($s->{seeds} // 1) > 1 ? "mean of $s->{seeds} seeds, range after"
                                : "one seed";
  if ($failed ne "") {
    my $took = join ",", @{$st->{timing}{failed} // []};
    printf "degraded: members %s failed; the models took %s\n", $failed,
           $took eq "" ? "none" : $took;
    $bad = 1 if $took ne $failed;
  }
  printf "%-22s %-6s %-10s %12s %12s %7s  %s\n", "job", "dir", "figure",
         "emulator", "raidsim", "ratio", "raidsim range";
  for my $fj (@{$f->{jobs}}) {
    my $sj = $sim{$fj->{jobname}} or die "raidsim has no job $fj->{jobname}\n";
    for my $d ("read", "write") {
      my ($e, $m) = ($fj->{$d}, $sj->{$d});
      next unless $e->{total_ios} && $m->{total_ios};
      my %r;
      my @rows = (
        ["iops", "IOPS", $e->{iops}, $m->{iops}, 1],
        ["bw", "MB/s", $e->{bw_bytes} / 1e6, $m->{bw_bytes} / 1e6, 1],
        ["mean", "mean us", $e->{clat_ns}{mean} / 1e3,
         $m->{clat_ns}{mean} / 1e3, 1],
        ["p50", "p50 us", $e->{clat_ns}{percentile}{"50.000000"} / 1e3,
         $m->{clat_ns}{percentile}{"50.000000"} / 1e3, 1],
        ["p99", "p99 us", $e->{clat_ns}{percentile}{"99.000000"} / 1e3,
         $m->{clat_ns}{percentile}{"99.000000"} / 1e3, 1]);
      my %scale = (iops => 1, bw => 1e6, mean => 1e3, p50 => 1e3,
                   p99 => 1e3);
      my %key = (iops => "iops", bw => "bw_bytes", mean => "mean",
                 p50 => "p50", p99 => "p99");
      for my $row (@rows) {
        my ($k, $name, $ev, $mv) = @$row;
        my $range = $m->{seed_range}{$key{$k}};
        $r{$k} = $mv > 0 ? $ev / $mv : 0;
        printf "%-22s %-6s %-10s %12.1f %12.1f %7.3f  %s\n",
               $fj->{jobname}, $d, $name, $ev, $mv, $r{$k},
               $range ? sprintf ("%.1f-%.1f", $range->[0] / $scale{$k},
                                 $range->[1] / $scale{$k}) : "";
      }
      push @{$r{lines}}, sprintf "crosscheck: %s %s iops=%.3f mean=%.3f p50=%.3f p99=%.3f",
           $fj->{jobname}, $d, @r{qw(iops mean p50 p99)};
      print "$_\n" for @{$r{lines}};
      if ($check ne "" &&
          (abs ($r{iops} - 1) > $check || abs ($r{mean} - 1) > $check)) {
        printf "crosscheck: FAIL: %s %s: IOPS ratio %.3f, mean ratio %.3f, beyond 1 +- %s\n",
               $fj->{jobname}, $d, $r{iops}, $r{mean}, $check;
        $bad = 1;
      }
    }
  }
  my $t = $st->{timing} or die "the plugin wrote no timing statistics\n";
  printf "timing: %d requests, %d late (%.1f%%; by p50 %.1f us, p99 %.1f us), the others returned after the model time by p50 %.1f us, p99 %.1f us\n",
    $t->{requests}, $t->{late}{count},
    $t->{requests} ? 100 * $t->{late}{count} / $t->{requests} : 0,
    $t->{late}{p50} / 1e3, $t->{late}{p99} / 1e3,
    $t->{error}{p50} / 1e3, $t->{error}{p99} / 1e3;
  exit $bad;
' "$work/fio.json" "$work/sim.json" "$work/stats.json" "$check" "$array" "$job" \
  "$failed"
