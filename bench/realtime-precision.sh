#!/bin/bash
# raidsim benchmark: the timed emulator's precision and overhead
# (nbdkit-raid-plugin model=ARRAY.ini).  Measurements, not tests: it
# exits 0 whatever the figures.
#
# 1. Precision.  A RAID 0 of two `fixed` drives (every read 200 us, 64
#    at once) behind a controller that adds nothing, 4K random reads
#    through fio's nbd engine at QD 1 2 4 8 16 (up to about 50K IOPS).  The
#    plugin's statistics give, per request, its completion time minus
#    the model's ("error": p50 and p99; target p50 <= 5 us, p99 <= 50 us
#    at <= 50K IOPS) and the requests whose real I/O ended after the
#    model's time ("late").
# 2. Overhead.  The same array with drives of 1 ns (a model that adds
#    nothing) against the plugin without model=, 4K random reads at
#    QD32, ROUNDS rounds of both, alternating; the median of the
#    per-round IOPS ratios (target >= 0.9).
#
# fio and nbdkit run under SCHED_FIFO 1 where allowed, as in
# bench/crosscheck.sh.  Members are sparse files on BENCH_DIR (tmpfs).
#
# Run: bench/realtime-precision.sh        (after meson compile -C build)
# Environment: RUNTIME=3 (seconds per overhead run), ROUNDS=3,
# IOS=20000 (I/Os per precision run), NBDKIT_ARGS, BENCH_DIR, RAID_PLUGIN.
# Takes about 1 minute.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=realtime-precision.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
RUNTIME=${RUNTIME:-3}
ROUNDS=${ROUNDS:-3}
IOS=${IOS:-20000}
NBDKIT_ARGS=${NBDKIT_ARGS:-}
[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built (meson compile -C build)"

work=$(mktemp -d "$BENCH_DIR/precision.XXXXXX")
at_exit rm -rf "$work"
RT=""
if chrt -f 1 true 2>/dev/null; then RT="chrt -f 1"; fi

for lat in 200us 1ns; do
  cat > "$work/fixed-$lat.ini" <<EOF
[device]
model = fixed
capacity = 1G
latency = $lat
parallelism = 64
EOF
  cat > "$work/array-$lat.ini" <<EOF
[array]
level = 0
members = 2
chunk = 128K
device = fixed-$lat.ini
controller = nothing.ini
EOF
done
printf '[controller]\nmodel = generic\n' > "$work/nothing.ini"
truncate -s 1G "$work/a.img" "$work/b.img"

# serve_raid NAME [PARAMS...]: the plugin over the two members.
serve_raid ()
{
  local name=$1
  shift
  # shellcheck disable=SC2086
  serve "$work/$name.sock" "$work/$name.log" $NBDKIT_ARGS "$RAID_PLUGIN" \
    "$@" "$work/a.img" "$work/b.img"
  [ -z "$RT" ] || chrt -f -a -p 1 "$SERVE_PID" > /dev/null
}

# fio_json NAME OUT FIO-ARGS...
fio_run ()
{
  local name=$1 out=$2
  shift 2
  $RT fio --name="$name" --ioengine=nbd \
    --uri="nbd+unix:///?socket=$work/$name.sock" --rw=randread --bs=4k \
    --size=1g --output-format=json --output="$out" "$@" > /dev/null 2>&1
}

printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
echo "1. precision: 2 x fixed 200 us, 4K random reads, $IOS I/Os per QD"
printf '%4s %9s %9s | %9s %9s %9s | %6s %9s\n' qd iops mean-us \
  err-p50-us err-p99-us err-max-us late late-p99-us
for qd in 1 2 4 8 16; do
  serve_raid p$qd model="$work/array-200us.ini" stats="$work/p$qd.json"
  fio_run p$qd "$work/p$qd-fio.json" --iodepth="$qd" --number_ios="$IOS"
  stop_pid "$SERVE_PID"
  perl -MJSON::PP -e '
    sub load { local $/; open my $f, "<", $_[0] or die "$_[0]: $!";
               my $t = <$f>; $t =~ s/^[^{]*//s; decode_json ($t) }
    my ($qd, $fio, $st) = @ARGV;
    my $r = load ($fio)->{jobs}[0]{read};
    my $t = load ($st)->{timing};
    printf "%4d %9.0f %9.1f | %9.1f %9.1f %9.1f | %5.2f%% %9.1f\n", $qd,
      $r->{iops}, $r->{clat_ns}{mean} / 1e3,
      $t->{error}{p50} / 1e3, $t->{error}{p99} / 1e3, $t->{error}{max} / 1e3,
      100 * $t->{late}{count} / ($t->{requests} || 1), $t->{late}{p99} / 1e3;
  ' "$qd" "$work/p$qd-fio.json" "$work/p$qd.json"
done

echo "2. overhead: 4K random reads at QD32, ${RUNTIME}s each, $ROUNDS rounds"
ratios=()
for (( round = 1; round <= ROUNDS; round++ )); do
  for setup in plain zero; do
    if [ "$setup" = zero ]; then
      serve_raid "$setup" model="$work/array-1ns.ini"
    else
      serve_raid "$setup" level=0 chunk=128K
    fi
    fio_run "$setup" "$work/$setup-$round.json" --iodepth=32 \
      --runtime="$RUNTIME" --time_based
    stop_pid "$SERVE_PID"
  done
  r=$(perl -MJSON::PP -e '
    sub iops { local $/; open my $f, "<", $_[0] or die; my $t = <$f>;
               $t =~ s/^[^{]*//s; decode_json ($t)->{jobs}[0]{read}{iops} }
    my ($p, $z) = (iops ($ARGV[0]), iops ($ARGV[1]));
    printf "%.0f %.0f %.3f", $p, $z, $z / $p;' \
    "$work/plain-$round.json" "$work/zero-$round.json")
  read -r p z ratio <<< "$r"
  printf 'round %d: without model= %s IOPS, model= (1 ns drives) %s IOPS, ratio %s\n' \
    "$round" "$p" "$z" "$ratio"
  ratios+=("$ratio")
done
printf 'median ratio: %s (target >= 0.9)\n' \
  "$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n "$(( (ROUNDS + 1) / 2 ))p")"
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
