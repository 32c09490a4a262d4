#!/bin/bash
# raidsim benchmark: what md's array lifecycle costs the raid plugin
# (issue 13's performance targets).  A measurement, not a test: it
# prints figures, PASS or MISS against each target, and exits 0.
#
# Named sections, run in turn (SECTIONS="marking resync" by default;
# another section is added as one function, section_NAME, and its name
# in SECTIONS):
#
# marking  The cost of md's clean/dirty marking (safe mode) and of the
#          write-intent bitmap on 4K random writes at QD32 (fio's nbd
#          engine), on a RAID 1 of 2 members on tmpfs.  Setups, all the
#          same size, served with the same nbdkit options:
#            bitmap  md v1.2 metadata with an internal bitmap (raidsim
#                    create --assume-clean --bitmap=internal, mdadm's
#                    default 64M chunks)
#            md      md v1.2 metadata, no bitmap (--bitmap=none)
#            none    the same plugin, metadata=none (no superblock)
#            base    BASELINE's plugin (a build from before md metadata
#                    existed; default /work/base/build), raw members
#          ROUNDS rounds; each round runs every setup once, in an order
#          that rotates, so that a drifting machine affects them alike.
#          For each setup the median IOPS, and the median over rounds of
#          its ratio to base and to none in the same round, with the
#          range.  Target: bitmap and md >= 0.95x base (<= 5% cost).
# resync   A full resync of a 1 GiB RAID 1 on tmpfs (created without
#          --assume-clean, so md's first start resyncs it, with
#          sync-speed-min/max at their maximum and no client I/O), timed
#          by the plugin's own log line, against `nbdcopy` copying the
#          first member's file to the second (the same bytes and more).
#          RESYNC_ROUNDS rounds, interleaved.  Target: >= 0.8x nbdcopy's
#          bytes per second.
#
# Environment: SECTIONS, ROUNDS=5, RUNTIME=3 (seconds per fio run),
# SIZE=512M (marking's members), RESYNC_ROUNDS=3, BENCH_DIR=/dev/shm,
# RAID_PLUGIN, RAIDSIM, BASELINE (a build directory; base is left out
# if its plugin is absent).
# Run: bench/lifecycle.sh     (about 2 minutes with the defaults)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=$here/..
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$SRCDIR/build/raidsim/raidsim}
BASELINE=${BASELINE:-/work/base/build}
BASE_PLUGIN=$BASELINE/plugins/raid/nbdkit-raid-plugin.so
SECTIONS=${SECTIONS:-marking resync}
ROUNDS=${ROUNDS:-5}
RUNTIME=${RUNTIME:-3}
SIZE=${SIZE:-512M}
RESYNC_ROUNDS=${RESYNC_ROUNDS:-3}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
# shellcheck source-path=SCRIPTDIR/.. source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"
RAIDSIM_PROG=lifecycle.sh

for cmd in nbdkit fio nbdcopy perl; do
  command -v $cmd >/dev/null 2>&1 || die "$cmd is not installed"
done
[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built"
tmp=$(mktemp -d "$BENCH_DIR/raidsim-lifecycle.XXXXXX")
at_exit rm -rf "$tmp"

# median N...: the middle value (the lower middle of an even count).
median () { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int ((NR + 1) / 2)] }'; }
range () { printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b > 0 ? a / b : 0) }'; }
verdict () { awk -v r="$1" -v t="$2" 'BEGIN { print (r >= t ? "PASS" : "MISS") }'; }

# serve_setup NAME PLUGIN ARGS...: one nbdkit per setup, its socket
# $tmp/NAME.sock, its pid in pid_NAME.
serve_setup ()
{
  local name=$1
  shift
  serve "$tmp/$name.sock" "$tmp/$name.log" --threads 16 "$@" ||
    die "setup $name did not start"
  printf -v "pid_$name" %s "$SERVE_PID"
}

# fio_iops NAME: 4K random writes at QD32 for RUNTIME s; prints IOPS.
fio_iops ()
{
  fio --name=w --ioengine=nbd --uri="nbd+unix:///?socket=$tmp/$1.sock" \
      --rw=randwrite --bs=4k --iodepth=32 --size="$SIZE" \
      --time_based=1 --runtime="$RUNTIME" --ramp_time=500ms \
      --output-format=json >"$tmp/$1.fio.json" 2>"$tmp/$1.fio.err" ||
    die "fio on $1 failed: $(cat "$tmp/$1.fio.err")"
  # fio's nbd engine says "connected" on stdout before the JSON.
  sed -n '/^{/,$p' "$tmp/$1.fio.json" |
    perl -MJSON::PP -0777 -ne 'print int (decode_json ($_)->{jobs}[0]{write}{iops})'
}

section_marking ()
{
  local setups=(bitmap md none) s r i order
  local -A iops=() rbase=() rnone=()
  say "marking: 4K random writes, QD32, RAID 1 of 2 x $SIZE on $BENCH_DIR"
  mkdir -p "$tmp/m"
  cd "$tmp/m"
  for s in bitmap md none base; do truncate -s "$SIZE" $s-a.img $s-b.img; done
  "$RAIDSIM" create --level=1 --assume-clean --bitmap=internal \
    bitmap-a.img bitmap-b.img >/dev/null
  "$RAIDSIM" create --level=1 --assume-clean --bitmap=none \
    md-a.img md-b.img >/dev/null
  serve_setup bitmap "$RAID_PLUGIN" bitmap-a.img bitmap-b.img
  serve_setup md "$RAID_PLUGIN" md-a.img md-b.img
  serve_setup none "$RAID_PLUGIN" level=1 metadata=none none-a.img none-b.img
  if [ -f "$BASE_PLUGIN" ]; then
    serve_setup base "$BASE_PLUGIN" level=1 base-a.img base-b.img
    setups+=(base)
  else
    say "  (no $BASE_PLUGIN: base left out)"
  fi
  for (( r = 0; r < ROUNDS; r++ )); do
    order=()
    for (( i = 0; i < ${#setups[@]}; i++ )); do
      order+=("${setups[$(( (i + r) % ${#setups[@]} ))]}")
    done
    for s in "${order[@]}"; do
      iops[$s,$r]=$(fio_iops $s)
    done
    for s in "${setups[@]}"; do
      [ -z "${iops[base,$r]:-}" ] || rbase[$s,$r]=$(ratio "${iops[$s,$r]}" "${iops[base,$r]}")
      rnone[$s,$r]=$(ratio "${iops[$s,$r]}" "${iops[none,$r]}")
    done
    say "  round $((r + 1)): $(for s in "${order[@]}"; do printf '%s %s  ' $s "${iops[$s,$r]}"; done)"
  done
  printf '%-8s %10s  %-22s %-22s %s\n' setup IOPS "vs base (range)" \
    "vs none (range)" "target"
  for s in "${setups[@]}"; do
    local v=() b=() n=()
    for (( r = 0; r < ROUNDS; r++ )); do
      v+=("${iops[$s,$r]}")
      [ -z "${rbase[$s,$r]:-}" ] || b+=("${rbase[$s,$r]}")
      n+=("${rnone[$s,$r]}")
    done
    local vb=- vn t=-
    [ ${#b[@]} -eq 0 ] || vb="$(median "${b[@]}") ($(range "${b[@]}"))"
    vn="$(median "${n[@]}") ($(range "${n[@]}"))"
    if [ ${#b[@]} -gt 0 ] && { [ $s = bitmap ] || [ $s = md ]; }; then
      t=">= 0.95x base: $(verdict "$(median "${b[@]}")" 0.95)"
    fi
    printf '%-8s %10s  %-22s %-22s %s\n' $s "$(median "${v[@]}")" "$vb" "$vn" "$t"
  done
  for s in "${setups[@]}"; do
    local p="pid_$s"
    stop_pid "${!p}"
  done
  cd "$tmp"
  rm -rf "$tmp/m"
}

section_resync ()
{
  local r t_sync t_copy bytes copy_bytes rs rc rr=()
  say "resync: full resync of a 1 GiB RAID 1 on $BENCH_DIR against nbdcopy"
  mkdir -p "$tmp/r"
  cd "$tmp/r"
  # 1 GiB of array after md's data offset (1M for this size: 2048
  # sectors, what raidsim create chooses), filled with random bytes.
  truncate -s $(( (1 << 30) + (1 << 20) )) a.img b.img
  dd if=/dev/urandom of=a.img bs=1M seek=1 count=1024 conv=notrunc \
    status=none
  copy_bytes=$(stat -c %s a.img)
  for (( r = 0; r < RESYNC_ROUNDS; r++ )); do
    # nbdcopy: the first member's whole file to the second's.
    local t0 t1
    t0=$(date +%s.%N)
    nbdcopy a.img b.img
    t1=$(date +%s.%N)
    t_copy=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
    # The resync: created dirty, then served until the log says done.
    "$RAIDSIM" create --force --level=1 --bitmap=none a.img b.img >create.out
    : >resync.log
    serve "$tmp/r/sock" "$tmp/r/resync.log" "$RAID_PLUGIN" a.img b.img \
      sync-speed-min=1000000000 sync-speed-max=1000000000 ||
      die "the resync's server did not start"
    echo "r 0 4096" | "$SRCDIR/build/tests/lib/nbd-io" \
      "nbd+unix:///?socket=$tmp/r/sock" >/dev/null 2>&1 ||
      nbdinfo --size "nbd+unix:///?socket=$tmp/r/sock" >/dev/null
    while ! grep -q 'resync: done' resync.log; do sleep 0.1; done
    stop_pid "$SERVE_PID"
    bytes=$(sed -n "s/.*resync: done: \([0-9]*\) bytes resynced.*/\1/p" resync.log)
    t_sync=$(sed -n 's/.*) in \([0-9.]*\) s (.*/\1/p' resync.log)
    rs=$(awk -v b="$bytes" -v t="$t_sync" 'BEGIN { printf "%.0f", b / t / 1e6 }')
    rc=$(awk -v b="$copy_bytes" -v t="$t_copy" 'BEGIN { printf "%.0f", b / t / 1e6 }')
    rr+=("$(ratio "$rs" "$rc")")
    say "  round $((r + 1)): resync $bytes bytes in $t_sync s ($rs MB/s); nbdcopy $copy_bytes bytes in $t_copy s ($rc MB/s); ratio ${rr[-1]}"
  done
  printf 'resync vs nbdcopy: median %s (range %s); target >= 0.8x: %s\n' \
    "$(median "${rr[@]}")" "$(range "${rr[@]}")" \
    "$(verdict "$(median "${rr[@]}")" 0.8)"
  cd "$tmp"
  rm -rf "$tmp/r"
}

say "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for s in $SECTIONS; do
  declare -F "section_$s" >/dev/null || die "no section '$s' (have: $(declare -F | sed -n 's/.*section_//p' | tr '\n' ' '))"
  "section_$s"
done
say "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
