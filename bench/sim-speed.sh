#!/bin/bash
# raidsim's simulator benchmarks (figures, not a test): simulated I/Os
# per second of wall time on one core, peak memory at 10^6 and 10^8
# I/Os, the wall time of a four-corners sweep of three arrays, and our
# event queue against a DiskSim-style linear event list.  The results go
# in docs/performance.md, under "Today's figures".
#
# Run (after meson compile -C build):
#   bench/sim-speed.sh [BUILDDIR]
# The figures in docs/performance.md are from a release build:
#   meson setup build-release --buildtype=release -Db_lto=true
#   meson compile -C build-release && bench/sim-speed.sh build-release
# Environment: IOS (I/Os of the speed run, default 10^7), RUNS (repeats,
# best kept, default 3), BIG (I/Os of the large memory run, default 10^8),
# BASELINE=BUILDDIR (another build, e.g. of an older commit: its speed
# and instruction count are measured in the same run, interleaved with
# this build's, and the ratios printed).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$top/build}
# bench/ has its own build folder since the tree was split by concern;
# an older build has it in raidsim/.
sim_speed_of () { if [ -x "$1/bench/sim-speed" ]; then echo "$1/bench/sim-speed"; else echo "$1/raidsim/sim-speed"; fi; }
speed=$(sim_speed_of "$build")
raidsim=$build/raidsim/raidsim
base_speed=
if [ -n "${BASELINE:-}" ]; then
  base_speed=$(sim_speed_of "$BASELINE")
  [ -x "$base_speed" ] || { echo "sim-speed.sh: $base_speed is not built" >&2; exit 1; }
fi
IOS=${IOS:-10000000}
RUNS=${RUNS:-3}
BIG=${BIG:-100000000}
array=$top/configs/arrays/raid0-4x-sata-ssd.ini

for p in "$speed" "$raidsim"; do
  [ -x "$p" ] || { echo "sim-speed.sh: $p is not built" >&2; exit 1; }
done

echo "# machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), $(nproc) CPUs"
echo "# load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# 1. Speed: 4 KiB random reads at QD32 on a 4-member RAID 0 of flash
# drives, one process, the best of RUNS (the least disturbed by anything
# else running).  The simulator is single-threaded: one core.
echo "## speed: $IOS I/Os, $array"
best= base_best=
for i in $(seq "$RUNS"); do
  line=$("$speed" speed "$array" "$IOS")
  echo "  $line"
  rate=$(echo "$line" | sed 's/.*ios_per_wall_s \([0-9]*\).*/\1/')
  if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
  if [ -n "$base_speed" ]; then
    line=$("$base_speed" speed "$array" "$IOS")
    echo "  baseline: $line"
    rate=$(echo "$line" | sed 's/.*ios_per_wall_s \([0-9]*\).*/\1/')
    if [ -z "$base_best" ] || [ "$rate" -gt "$base_best" ]; then base_best=$rate; fi
  fi
done
echo "best: $best simulated I/Os per second of wall time (one core)"
if [ -n "$base_speed" ]; then
  echo "baseline best: $base_best; ratio $(echo "scale=3; $best / $base_best" | bc)"
fi
echo "target 10000000; ratio $(echo "scale=3; $best / 10000000" | bc)"
echo

# 1a. The same through the CLI, as a user runs it (raidsim run of a fio
# job file with IOS I/Os), on the flash array (target 10M a second) and
# on a four-disk RAID 0 of hard disks (target 5M): I/Os per second of
# the process's CPU time, which the neighbours move less than the wall
# time, best of RUNS, with the command.
cli_rate ()                     # ARRAY -> I/Os per CPU second
{
  local job t0 t1
  job=$(mktemp --suffix=.fio)
  # Round the 16 GiB as often as needed (time_based), IOS I/Os, and no
  # early stop (--precision 0): every I/O is simulated.
  printf '[speed]\nrw=randread\nbs=4k\niodepth=32\nsize=16g\ntime_based\nruntime=1000h\nnumber_ios=%s\n' \
    "$IOS" > "$job"
  /usr/bin/time -f '%U %S' -o "$job.t" "$raidsim" run "$1" --workload "$job" \
    --precision 0 > /dev/null
  awk -v n="$IOS" '{ printf "%.0f\n", n / ($1 + $2) }' "$job.t"
  rm -f "$job" "$job.t"
}
for pair in "raid0-4x-sata-ssd 10000000" "raid0-4x-st3500641as-amd 5000000"; do
  set -- $pair
  a=$top/configs/arrays/$1.ini
  echo "## CLI: $raidsim run $a --workload (4K randread, QD32, $IOS I/Os)"
  best=
  for i in $(seq "$RUNS"); do
    r=$(cli_rate "$a")
    echo "  $r I/Os per CPU second"
    if [ -z "$best" ] || [ "$r" -gt "$best" ]; then best=$r; fi
  done
  echo "best: $best; target $2; ratio $(echo "scale=3; $best / $2" | bc)"
  echo
done

# 1c. Time per I/O and memory from 10^6 to 10^8 I/Os (sim-speed, flash).
echo "## trend: CPU ns per I/O and peak memory"
for n in 1000000 10000000 100000000; do
  line=$("$speed" speed "$array" "$n")
  echo "$line" | awk -v n="$n" '{ printf "%10d I/Os: %.1f ns per I/O (CPU), maxrss %s KiB\n", n, $8 * 1e9 / n, $16 }'
done
echo

# 1b. The same run's instructions per simulated I/O, counted by
# callgrind: a figure that does not depend on what else the machine is
# doing (set CALLGRIND=0 to skip; it takes a few seconds).
if [ "${CALLGRIND:-1}" != 0 ] && command -v valgrind >/dev/null; then
  n=300000
  out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" \
    "$speed" speed "$array" "$n" > /dev/null 2> "$out.err"
  ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.err")
  echo "instructions: $ir for $n I/Os, $(( ir / n )) per simulated I/O (callgrind)"
  if [ -n "$base_speed" ]; then
    valgrind --tool=callgrind --callgrind-out-file="$out" \
      "$base_speed" speed "$array" "$n" > /dev/null 2> "$out.err"
    bir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out.err")
    echo "baseline instructions: $bir, $(( bir / n )) per simulated I/O; ratio $(echo "scale=4; $ir / $bir" | bc)"
  fi
  rm -f "$out" "$out.err"
  echo
fi

# 2. Memory: peak resident set of the same run at 10^6 and at BIG I/Os.
echo "## peak memory"
small=$("$speed" speed "$array" 1000000 | sed 's/.*maxrss_kib \([0-9]*\).*/\1/')
large=$("$speed" speed "$array" "$BIG" | sed 's/.*maxrss_kib \([0-9]*\).*/\1/')
echo "10^6 I/Os: $small KiB; $BIG I/Os: $large KiB; ratio $(echo "scale=3; $large / $small" | bc)"
echo

# 3. A full four-corners sweep of three arrays, on one worker and on
# every CPU.
echo "## four-corners sweep of three arrays"
arrays=("$top/configs/arrays/single-optane-900p.ini"
        "$top/configs/arrays/raid0-2x-optane-vroc.ini"
        "$top/configs/arrays/raid0-4x-sata-ssd.ini")
for jobs in 1 "$(nproc)"; do
  t0=$(date +%s.%N)
  "$raidsim" sweep "${arrays[@]}" --workload four-corners --jobs "$jobs" \
    --format csv > /dev/null
  t1=$(date +%s.%N)
  echo "--jobs $jobs: $(echo "$t1 - $t0" | bc) s wall"
done
echo

# 4. The event queue: our engine against DiskSim's sorted list with
# linear insertion, in the hold model, at several queue sizes.
echo "## event queue (hold model): ns per event"
"$speed" queue
echo
echo "# load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
