#!/bin/bash
# raidsim benchmark: nbdkit-raid-plugin against nbdkit's file plugin.
#
# Runs the same four fio jobs, through fio's nbd ioengine over a Unix
# socket, against each setup:
#
#   4K random read QD32    4K random write QD32
#   1M sequential read QD8 1M sequential write QD8
#
# Setups, all on tmpfs and all exporting an array of the same size:
#   anchor        nbdkit file plugin over one file
#   raid0 x2      the raid plugin, RAID 0 over 2 sparse files
#   raid0 x4      RAID 0 over 4
#   raid1 x2      RAID 1 over 2
#   raid10 x4     RAID 10 over 4 (2 near copies)
#   raid0 x4 threads  RAID 0 over 4 with io=threads (the others use
#                 io=auto, which on tmpfs is the inline engine: each
#                 request's member I/Os in the request's own thread)
# RAID sets use the default chunk (128K) and read policy (least-pending).
# Before the read jobs the whole data set is written once (1M sequential,
# not timed), so reads are of real data, not holes.
#
# All setups run at once and every job is run in ROUNDS rounds, each
# round running the job against every setup in turn, so that a machine
# whose speed drifts (a shared or throttled VM) affects the anchor and
# the setups alike.  Prints one table: median IOPS and MB/s (10^6
# bytes/s) per job and setup, the median of the per-round ratios to the
# anchor with their range, the target it must meet, and the nbdkit
# server's CPU time per I/O (a busy machine disturbs it much less than
# it disturbs IOPS):
#   RAID 0 (both engines)  >= 0.95x the anchor on all four jobs;
#   RAID 1 and RAID 10     >= 0.95x on reads, >= 0.45x on writes (every
#                          byte is written twice).
# A figure is PASS or MISS; the script exits 0 either way, since this is
# a measurement, not a test.  The fan-out proof is bench/fanout.sh.
# Each raid setup runs with stats=, and the table names the engine its
# file members used (the statistics' "io": inline, threads or uring), so
# that a table says which code it measured.
#
# Every setup gets the same nbdkit options (--threads $THREADS, the
# foreground, a Unix socket) and the same fio options; both are printed.
#
# Run: bench/emulator.sh          (after meson compile -C build)
# Environment: RUNTIME=2 (seconds per run), RAMP=500ms (fio's
# ramp_time, excluded from the figures), ROUNDS=5, SIZE=512M (the array
# and the fio range), THREADS=16 (nbdkit --threads), BENCH_DIR=/dev/shm
# (a tmpfs), RAID_PLUGIN (default build/plugins/raid/...),
# ONLY="anchor raid0x4" (a subset of setups), JOBS="randwrite read"
# (a subset of jobs, by fio's rw name: randread randwrite read write),
# BASELINE=PATH (another build of the raid plugin, e.g. of an older
# commit: every raid setup is also served by it, as NAME-base, in the
# same rounds, so that two builds are compared under the same load;
# this takes about twice the time and the tmpfs space), PAIRS=1 (run
# the anchor again beside every setup, ABBA round by round, so that each
# ratio comes from two runs seconds apart: on a busy machine the
# anchor's own figure moves from one run to the next by more than the
# differences measured; this takes about twice the time).
# With the defaults it takes about 6 minutes.  The load average and CPU pressure before and
# after are printed: figures taken while something else was running are
# noisy, and the ratio ranges show by how much.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=emulator.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
RUNTIME=${RUNTIME:-2}
RAMP=${RAMP:-500ms}
ROUNDS=${ROUNDS:-5}
SIZE=${SIZE:-512M}
THREADS=${THREADS:-16}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
ONLY=${ONLY:-}
JOBS=${JOBS:-}
BASELINE=${BASELINE:-}
PAIRS=${PAIRS:-0}

[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built (meson compile -C build)"
[ -z "$BASELINE" ] || [ -f "$BASELINE" ] || die "BASELINE: $BASELINE not found"
for cmd in nbdkit fio perl; do
  command -v "$cmd" >/dev/null 2>&1 || die "$cmd is not installed"
done
fio --enghelp=nbd >/dev/null 2>&1 || die "this fio has no nbd ioengine"
[ "$(stat -f -c %T "$BENCH_DIR")" = tmpfs ] ||
  die "$BENCH_DIR is not a tmpfs (set BENCH_DIR)"

size_bytes=$(numfmt --from=iec "$SIZE")
work=$(mktemp -d "$BENCH_DIR/raidsim-bench.XXXXXX")
at_exit rm -rf "$work"

# The four jobs: name, fio rw, bs, iodepth.
jobs=(
  "4K randread QD32|randread|4k|32"
  "4K randwrite QD32|randwrite|4k|32"
  "1M seqread QD8|read|1M|8"
  "1M seqwrite QD8|write|1M|8"
)
if [ -n "$JOBS" ]; then
  chosen=()
  for j in "${jobs[@]}"; do
    IFS='|' read -r _ rw _ <<<"$j"
    if [[ " $JOBS " == *" $rw "* ]]; then
      chosen+=("$j")
    fi
  done
  [ ${#chosen[@]} -gt 0 ] || die "JOBS=$JOBS names no job"
  jobs=("${chosen[@]}")
fi
fio_common=(--ioengine=nbd --size="$SIZE" --time_based
            --runtime="$RUNTIME" --ramp_time="$RAMP" --norandommap
            --randrepeat=1 --numjobs=1 --output-format=json)

# Setups: name, description, member count, member size as SIZE divided
# by this (so that every array is SIZE), plugin parameters ("" = the
# anchor).
setups=(
  "anchor|nbdkit file 1 file|1|1|"
  "raid0x2|raid0 x2|2|2|level=0"
  "raid0x4|raid0 x4|4|4|level=0"
  "raid1x2|raid1 x2|2|1|level=1"
  "raid10x4|raid10 x4|4|2|level=10"
  "raid0x4thr|raid0 x4 threads|4|4|level=0 io=threads"
)
if [ -n "$BASELINE" ]; then
  for s in "${setups[@]}"; do
    IFS='|' read -r name desc n div params <<<"$s"
    if [ -n "$params" ]; then
      setups+=("$name-base|$desc, base|$n|$div|$params")
    fi
  done
fi

# cpu_ticks PID: user + system CPU time of the whole process so far.
cpu_ticks () { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
clk_tck=$(getconf CLK_TCK)
ramp_s=$(awk -v r="$RAMP" 'BEGIN {
  if (r ~ /ms$/) print r / 1000; else if (r ~ /us$/) print r / 1e6;
  else print r + 0 }')

# run_fio NAME URI RW BS DEPTH PID: run one job; prints "IOPS
# BYTES-PER-S CPU-US-PER-IO", the last the CPU time the server PID used
# during the whole run (ramp included) over the I/Os of the whole run
# (IOPS times ramp and runtime: the ramp runs at about the same rate).
run_fio ()
{
  local out=$work/fio-$1.json t0 t1
  t0=$(cpu_ticks "$6")
  # The engine's own options (--uri) must come after --ioengine.
  fio --name="$1" "${fio_common[@]}" --uri="$2" --rw="$3" --bs="$4" \
      --iodepth="$5" --output="$out" >/dev/null
  t1=$(cpu_ticks "$6")
  perl -MJSON::PP -e '
    local $/; my $j = decode_json (<STDIN>)->{jobs}[0];
    my $d = $j->{read}{io_bytes} ? $j->{read} : $j->{write};
    my ($ticks, $tck, $secs) = @ARGV;
    my $ios = $d->{iops} * $secs;
    printf "%.0f %.0f %.1f\n", $d->{iops}, $d->{bw_bytes},
      $ios > 0 ? $ticks / $tck * 1e6 / $ios : 0;' \
    "$(( t1 - t0 ))" "$clk_tck" "$(awk -v a="$RUNTIME" -v b="$ramp_s" \
                                   'BEGIN { print a + b }')" <"$out"
}

# load: the load average and, where the kernel has PSI, the share of
# time some task waited for a CPU over the last 60 s.
load ()
{
  local psi=""
  if [ -r /proc/pressure/cpu ]; then
    psi=", cpu pressure $(awk '/^some/ { sub ("avg60=", "", $3); print $3 "%" }' /proc/pressure/cpu) (60 s)"
  fi
  echo "load average $(cut -d' ' -f1-3 /proc/loadavg)$psi"
}
load_before=$(load)

declare -A iops mbs ratios cpus pids
log=$work/nbdkit.log
active=()

# Start every setup at once, so that the rounds below can interleave
# them: on a busy or throttled machine, drift then hits the anchor and
# the setups alike.
for s in "${setups[@]}"; do
  IFS='|' read -r name desc n div params <<<"$s"
  if [ -n "$ONLY" ] && [[ " $ONLY " != *" ${name%-base} "* ]]; then
    continue
  fi
  plugin=$RAID_PLUGIN
  if [[ $name == *-base ]]; then
    plugin=$BASELINE
  fi
  d=$work/$name
  mkdir -p "$d"
  member_size=$(( size_bytes / div ))
  files=()
  for (( i = 0; i < n; i++ )); do
    truncate -s "$member_size" "$d/m$i.img"
    files+=("$d/m$i.img")
  done
  if [ -z "$params" ]; then
    serve "$d/sock" "$log" --threads "$THREADS" file "${files[0]}"
  else
    # shellcheck disable=SC2086 # params is a list of key=value words
    serve "$d/sock" "$log" --threads "$THREADS" "$plugin" \
      $params stats="$d/stats.json" "${files[@]}"
  fi
  pids[$name]=$SERVE_PID
  say "$desc: prefilling $SIZE"
  fio --name=prefill --ioengine=nbd --uri="nbd+unix:///?socket=$d/sock" \
      --rw=write --bs=1M --iodepth=8 --size="$SIZE" \
      --output="$work/prefill.json" >/dev/null
  active+=("$s")
done

# median N...: the middle value (the lower middle of an even count).
median () { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int ((NR + 1) / 2)] }'; }

# one SETUP-LINE JOB-FIELDS...: run one job against one setup, record
# its figures, and set LAST_IOPS.
one ()
{
  local name desc io bw cpu uri
  IFS='|' read -r name desc _ <<<"$1"
  uri="nbd+unix:///?socket=$work/$name/sock"
  read -r io bw cpu < <(run_fio "$name-$3" "$uri" "$3" "$4" "$5" \
                                "${pids[$name]}")
  iops[$name,$2]+=" $io"
  mbs[$name,$2]+=" $bw"
  cpus[$name,$2]+=" $cpu"
  say "round $round/$ROUNDS: $desc: $2: $io IOPS," \
      "$(awk -v b="$bw" 'BEGIN { printf "%.1f", b / 1e6 }') MB/s," \
      "server CPU $cpu us per I/O"
  LAST_IOPS=$io
}

for (( round = 1; round <= ROUNDS; round++ )); do
  for j in "${jobs[@]}"; do
    IFS='|' read -r jname rw bs depth <<<"$j"
    if [ "$PAIRS" = 1 ]; then
      # Each setup beside its own run of the anchor, the anchor first in
      # odd rounds and second in even ones, so that the two runs of a
      # ratio are seconds apart and drift favours neither.
      anchor_line=
      for s in "${active[@]}"; do
        [[ $s == anchor\|* ]] && anchor_line=$s
      done
      [ -n "$anchor_line" ] || die "PAIRS=1 needs the anchor in ONLY"
      for s in "${active[@]}"; do
        [[ $s == anchor\|* ]] && continue
        IFS='|' read -r name _ <<<"$s"
        if (( round % 2 )); then
          one "$anchor_line" "$jname" "$rw" "$bs" "$depth"; a=$LAST_IOPS
          one "$s" "$jname" "$rw" "$bs" "$depth"; x=$LAST_IOPS
        else
          one "$s" "$jname" "$rw" "$bs" "$depth"; x=$LAST_IOPS
          one "$anchor_line" "$jname" "$rw" "$bs" "$depth"; a=$LAST_IOPS
        fi
        ratios[$name,$jname]+=" $(awk -v x="$x" -v y="$a" \
                                     'BEGIN { printf "%.3f", x / y }')"
      done
      continue
    fi
    for s in "${active[@]}"; do
      one "$s" "$jname" "$rw" "$bs" "$depth"
    done
    # Each round's ratio, against the anchor of the same round.
    for s in "${active[@]}"; do
      IFS='|' read -r name _ <<<"$s"
      a=${iops[anchor,$jname]:-}
      if [ -z "$a" ] || [ "$name" = anchor ]; then
        continue
      fi
      ratios[$name,$jname]+=" $(awk -v x="${iops[$name,$jname]##* }" \
                                   -v y="${a##* }" \
                                   'BEGIN { printf "%.3f", x / y }')"
    done
  done
done

# engine SETUP: the engine of its file members, from its statistics
# (SIGUSR1 has the plugin write them), or "-" for the anchor.
declare -A engines
for s in "${active[@]}"; do
  IFS='|' read -r name _ _ _ params <<<"$s"
  engines[$name]=-
  [ -n "$params" ] || continue
  rm -f "$work/$name/stats.json"
  kill -USR1 "${pids[$name]}"
  for (( i = 0; i < 50; i++ )); do
    [ -s "$work/$name/stats.json" ] && break
    sleep 0.1
  done
  engines[$name]=$(perl -MJSON::PP -e 'local $/; print decode_json (<>)->{io}' \
                     "$work/$name/stats.json" 2>/dev/null || echo "?")
done

# target SETUP JOB: the least ratio to the anchor, or empty.
target ()
{
  case "${1%-base}" in
    raid0*) echo 0.95 ;;
    raid1x2|raid10x4)
      case "$2" in *read*) echo 0.95 ;; *) echo 0.45 ;; esac ;;
    *) echo "" ;;
  esac
}

echo
echo "nbdkit $(nbdkit --version | awk '{ print $2 }'), --threads $THREADS," \
     "one Unix socket per setup; fio $(fio --version), one connection:"
echo "  fio ${fio_common[*]} --uri=URI --rw=RW --bs=BS --iodepth=QD"
echo "machine: $(nproc) CPUs ($(sed -n '/^model name/{s/^model name[[:space:]]*: //p;q}' /proc/cpuinfo)), Linux $(uname -r), data on tmpfs $BENCH_DIR"
echo "before: $load_before; after: $(load)"
echo "plugin: $RAID_PLUGIN${BASELINE:+; baseline (NAME, base): $BASELINE}"
if [ "$PAIRS" = 1 ]; then
  echo "$ROUNDS rounds; in each, every setup's run is paired with a run of the"
  echo "anchor just before it (odd rounds) or after it (even rounds); IOPS and"
  echo "MB/s are medians over the runs, ratio the median of the pairs' IOPS"
  echo "ratios (range in brackets); cpu/IO the median of"
else
  echo "$ROUNDS rounds, setups interleaved within each job; IOPS and MB/s are"
  echo "medians over the rounds, ratio the median of each round's IOPS ratio"
  echo "to that round's anchor (range in brackets); cpu/IO the median of"
fi
echo "the server's CPU time per I/O in microseconds (user + system, all"
echo "its threads); quartiles: the middle half of the ratios lies between"
echo "them"
echo
printf '%-20s %-7s %-17s %8s %8s %7s %5s %-11s %-9s %6s %s\n' \
  setup engine job IOPS MB/s cpu/IO ratio "(range)" quartiles target verdict
for s in "${active[@]}"; do
  IFS='|' read -r name desc _ <<<"$s"
  for j in "${jobs[@]}"; do
    IFS='|' read -r jname _ <<<"$j"
    # shellcheck disable=SC2086 # lists of numbers
    io=$(median ${iops[$name,$jname]})
    # shellcheck disable=SC2086
    mb=$(awk -v b="$(median ${mbs[$name,$jname]})" 'BEGIN { printf "%.1f", b / 1e6 }')
    # shellcheck disable=SC2086
    cpu=$(median ${cpus[$name,$jname]})
    ratio="" range="" iqr="" want="" verdict=""
    if [ -n "${ratios[$name,$jname]:-}" ]; then
      # shellcheck disable=SC2086
      ratio=$(printf '%.2f' "$(median ${ratios[$name,$jname]})")
      # shellcheck disable=SC2086
      range=$(printf '%s\n' ${ratios[$name,$jname]} | sort -g |
              awk 'NR == 1 { lo = $1 } { hi = $1 }
                   END { printf "(%.2f-%.2f)", lo, hi }')
      # The middle half of the ratios: the lower and upper quartiles.
      # shellcheck disable=SC2086
      iqr=$(printf '%s\n' ${ratios[$name,$jname]} | sort -g |
            awk '{ v[NR] = $1 }
                 END { q1 = int ((NR + 3) / 4); q3 = int ((3 * NR + 3) / 4)
                       printf "%.2f-%.2f", v[q1], v[q3] }')
      want=$(target "$name" "$jname")
      verdict=$(awk -v r="$ratio" -v t="$want" \
                    'BEGIN { print ((r + 0 >= t + 0) ? "PASS" : "MISS") }')
      want=">=$want"
    fi
    printf '%-20s %-7s %-17s %8s %8s %7s %5s %-11s %-9s %6s %s\n' "$desc" \
      "${engines[$name]}" "$jname" "$io" "$mb" "$cpu" "$ratio" "$range" \
      "$iqr" "$want" "$verdict"
  done
done
