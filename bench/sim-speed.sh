#!/bin/bash
# raidsim's simulator benchmarks (figures, not a test): simulated I/Os
# per second of wall time on one core, peak memory at 10^6 and 10^8
# I/Os, the wall time of a four-corners sweep of three arrays, and our
# event queue against a DiskSim-style linear event list.  The results go
# in docs/performance.md, section "Simulator".
#
# Run (after meson compile -C build):
#   bench/sim-speed.sh [BUILDDIR]
# The figures in docs/performance.md are from a release build:
#   meson setup build-release --buildtype=release -Db_lto=true
#   meson compile -C build-release && bench/sim-speed.sh build-release
# Environment: IOS (I/Os of the speed run, default 10^7), RUNS (repeats,
# best kept, default 3), BIG (I/Os of the large memory run, default 10^8).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${1:-$top/build}
speed=$build/raidsim/sim-speed
raidsim=$build/raidsim/raidsim
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
best=
for i in $(seq "$RUNS"); do
  line=$("$speed" speed "$array" "$IOS")
  echo "  $line"
  rate=$(echo "$line" | sed 's/.*ios_per_wall_s \([0-9]*\).*/\1/')
  if [ -z "$best" ] || [ "$rate" -gt "$best" ]; then best=$rate; fi
done
echo "best: $best simulated I/Os per second of wall time (one core)"
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
