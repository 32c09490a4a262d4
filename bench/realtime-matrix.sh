#!/bin/bash
# raidsim benchmark: the cross-check matrix of issue 14.  bench/crosscheck.sh
# (one fio job file against the timed emulator, nbdkit-raid-plugin
# model=ARRAY.ini, and through raidsim run) for 4K random reads at each
# queue depth, on:
#   raid0-4x-wd2502abys-amd, raid10-4x-st3500641as-amd   QD 1 2 4 8 16 32
#   raid0-2x-optane-900p-vroc                           QD 1 2 4 8
#   raid0-2x-optane-900p-md (the two 900Ps behind md:
#     at QD1 a 4K read is one drive's, so this is the
#     single 900P the VROC figures are held against)    QD 1 2
# and first the host's own path: nbdkit's file plugin over a tmpfs file,
# 4K random reads at QD1 through the same fio nbd engine (the floor no
# emulated latency can go under).
#
# Prints one row per array and QD: the simulator's mean latency, the
# emulator's and raidsim's IOPS (raidsim's: the mean over SEEDS=5
# seeds), mean, p50 and p99 with the ratios, the
# share of late requests, and whether the targets apply (model mean >=
# 4x the host floor's) and are met (IOPS and mean within 10%, p50 and
# p99 within 15%).  A measurement, not a test: it exits 0 either way.
#
# HOST_US=auto runs every row with -D raid.timing_host_us set to the
# timed path's own floor: the p50 latency of the plugin with a model
# that adds nothing (two 1 ns drives), 4K random reads at QD1, so that a
# request returns that much before the model's time and the client sees
# the model's latency rather than the model's plus the host's.  HOST_US=N
# sets it; the default, 0, leaves it off.
#
# Run: bench/realtime-matrix.sh            (after meson compile -C build)
# Environment: ONLY="vroc 900p-md" (arrays whose name has one of these
# words), QDS="1 2" (a subset of queue depths), IOS_HDD=400 and
# IOS_FLASH=8000 (I/Os at QD1; deeper queues do QD/2 times as many, up
# to 8x: at QD32 a p99 then rests on 32 requests, not 16), BENCH_DIR,
# RAID_PLUGIN, RAIDSIM as for crosscheck.sh.
# Takes about 4 minutes.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=realtime-matrix.sh

ONLY=${ONLY:-}
QDS=${QDS:-}
IOS_HDD=${IOS_HDD:-400}
IOS_FLASH=${IOS_FLASH:-8000}
HOST_US=${HOST_US:-0}
# raidsim's figures are the mean of SEEDS seeds (crosscheck.sh --seeds):
# one emulator run is one sample of the random offsets, as one seed is.
SEEDS=${SEEDS:-5}
export SEEDS
RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
export BENCH_DIR

work=$(mktemp -d "$BENCH_DIR/matrix.XXXXXX")
at_exit rm -rf "$work"

RT=""
if chrt -f 1 true 2>/dev/null; then RT="chrt -f 1"; fi

# The host's floor: nbdkit file, QD1, 4K random reads.
truncate -s 1G "$work/floor.img"
serve "$work/floor.sock" "$work/floor.log" file "$work/floor.img"
[ -z "$RT" ] || chrt -f -a -p 1 "$SERVE_PID" > /dev/null
$RT fio --name=floor --ioengine=nbd --uri="nbd+unix:///?socket=$work/floor.sock" \
  --rw=randread --bs=4k --iodepth=1 --number_ios=20000 --size=1g \
  --output-format=json --output="$work/floor.json" > /dev/null 2>&1
stop_pid "$SERVE_PID"
floor=$(perl -MJSON::PP -e 'local $/; my $t = <STDIN>; $t =~ s/^[^{]*//s;
  my $r = decode_json ($t)->{jobs}[0]{read};
  printf "%.1f %.1f %.1f", $r->{clat_ns}{mean} / 1e3,
    $r->{clat_ns}{percentile}{"50.000000"} / 1e3,
    $r->{clat_ns}{percentile}{"99.000000"} / 1e3;' < "$work/floor.json")
read -r floor_mean floor_p50 floor_p99 <<< "$floor"
printf 'host floor (nbdkit file, fio nbd, 4K randread QD1): mean %s us, p50 %s us, p99 %s us\n' \
  "$floor_mean" "$floor_p50" "$floor_p99"

# The timed path's floor: the plugin with a model that adds nothing.
printf '[device]\nmodel = fixed\ncapacity = 1G\nlatency = 1ns\nparallelism = 64\n' \
  > "$work/zero-dev.ini"
printf '[controller]\nmodel = generic\n' > "$work/nothing.ini"
printf '[array]\nlevel = 0\nmembers = 2\nchunk = 128K\ndevice = zero-dev.ini\ncontroller = nothing.ini\n' \
  > "$work/zero.ini"
truncate -s 1G "$work/z0.img" "$work/z1.img"
serve "$work/zero.sock" "$work/zero.log" "$RAID_PLUGIN" model="$work/zero.ini" \
  "$work/z0.img" "$work/z1.img"
[ -z "$RT" ] || chrt -f -a -p 1 "$SERVE_PID" > /dev/null
$RT fio --name=zero --ioengine=nbd --uri="nbd+unix:///?socket=$work/zero.sock" \
  --rw=randread --bs=4k --iodepth=1 --number_ios=20000 --size=1g \
  --output-format=json --output="$work/zero.json" > /dev/null 2>&1
stop_pid "$SERVE_PID"
zero_p50=$(perl -MJSON::PP -e 'local $/; my $t = <STDIN>; $t =~ s/^[^{]*//s;
  my $r = decode_json ($t)->{jobs}[0]{read};
  printf "%.0f", $r->{clat_ns}{percentile}{"50.000000"} / 1e3;' < "$work/zero.json")
printf 'timed floor (raid plugin, model of 1 ns drives, same job): p50 %s us\n' "$zero_p50"
if [ "$HOST_US" = auto ]; then HOST_US=$zero_p50; fi
if [ "$HOST_US" != 0 ]; then
  export NBDKIT_ARGS="${NBDKIT_ARGS:-} -D raid.timing_host_us=$HOST_US"
fi
printf 'host compensation: -D raid.timing_host_us=%s\n' "$HOST_US"
printf 'load average before: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %3s %9s | %9s %9s %6s | %9s %6s | %9s %6s | %9s %6s | %5s %s\n' \
  array qd model-us emu-iops sim-iops ratio emu-mean ratio emu-p50 ratio \
  emu-p99 ratio late targets

run ()
{
  local array=$1 qd=$2 ios=$3 name job
  name=$(basename "$array" .ini)
  job="$work/$name-qd$qd.fio"
  cat > "$job" <<EOF
; Written by bench/realtime-matrix.sh.
[global]
bs=4k
rw=randread
[rr-qd$qd]
iodepth=$qd
number_ios=$ios
EOF
  if ! OUT="$work/$name-qd$qd" "$srcdir/bench/crosscheck.sh" "$array" "$job" \
       > "$work/$name-qd$qd.log" 2>&1; then
    printf '%-28s %3s crosscheck failed:\n' "$name" "$qd"
    cat "$work/$name-qd$qd.log"
    return 0
  fi
  perl -MJSON::PP -e '
    my ($d, $name, $qd, $floor) = @ARGV;
    sub load { local $/; open my $f, "<", $_[0] or die "$_[0]: $!";
               my $t = <$f>; $t =~ s/^[^{]*//s; decode_json ($t) }
    my $e = load ("$d/fio.json")->{jobs}[0]{read};
    my $s = load ("$d/sim.json")->{jobs}[0]{read};
    my $t = load ("$d/stats.json")->{timing};
    my %f = (iops => [$e->{iops}, $s->{iops}],
             mean => [$e->{clat_ns}{mean}, $s->{clat_ns}{mean}],
             p50 => [$e->{clat_ns}{percentile}{"50.000000"},
                     $s->{clat_ns}{percentile}{"50.000000"}],
             p99 => [$e->{clat_ns}{percentile}{"99.000000"},
                     $s->{clat_ns}{percentile}{"99.000000"}]);
    my %r = map { $_ => $f{$_}[0] / $f{$_}[1] } keys %f;
    my $applies = $s->{clat_ns}{mean} / 1e3 >= 4 * $floor;
    my $met = abs ($r{iops} - 1) <= 0.10 && abs ($r{mean} - 1) <= 0.10 &&
              abs ($r{p50} - 1) <= 0.15 && abs ($r{p99} - 1) <= 0.15;
    printf "%-28s %3d %9.1f | %9.0f %9.0f %6.3f | %9.1f %6.3f | %9.1f %6.3f | %9.1f %6.3f | %4.1f%% %s\n",
      $name, $qd, $s->{clat_ns}{mean} / 1e3,
      $f{iops}[0], $f{iops}[1], $r{iops},
      $f{mean}[0] / 1e3, $r{mean}, $f{p50}[0] / 1e3, $r{p50},
      $f{p99}[0] / 1e3, $r{p99},
      $t->{requests} ? 100 * $t->{late}{count} / $t->{requests} : 0,
      $applies ? ($met ? "MET" : "MISSED") : "n/a (model < 4x floor)";
  ' "$work/$name-qd$qd" "$name" "$qd" "$floor_mean"
}

wanted ()
{
  local name=$1 w
  [ -z "$ONLY" ] && return 0
  for w in $ONLY; do
    case $name in *"$w"*) return 0 ;; esac
  done
  return 1
}

qds ()
{
  local all=$1 q
  for q in $all; do
    if [ -z "$QDS" ] || [[ " $QDS " == *" $q "* ]]; then
      printf '%s ' "$q"
    fi
  done
}

ios_for ()
{
  local base=$1 qd=$2 f
  f=$(( qd / 2 ))
  [ "$f" -ge 1 ] || f=1
  [ "$f" -le 8 ] || f=8
  echo $(( base * f ))
}

for a in raid0-4x-wd2502abys-amd raid10-4x-st3500641as-amd; do
  wanted "$a" || continue
  for q in $(qds "1 2 4 8 16 32"); do
    run "$srcdir/configs/arrays/$a.ini" "$q" "$(ios_for "$IOS_HDD" "$q")"
  done
done
for a in raid0-2x-optane-900p-md raid0-2x-optane-900p-vroc; do
  wanted "$a" || continue
  if [ "$a" = raid0-2x-optane-900p-md ]; then all="1 2"; else all="1 2 4 8"; fi
  for q in $(qds "$all"); do
    run "$srcdir/configs/arrays/$a.ini" "$q" "$(ios_for "$IOS_FLASH" "$q")"
  done
done
printf 'load average after: %s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
