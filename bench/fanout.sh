#!/bin/bash
# raidsim benchmark: proof that the raid plugin fans a request out to its
# members at the same time, with members that are NBD exports.
#
# (a) Bandwidth.  Each member is its own
#       nbdkit --filter=rate memory 1G rate=400M
#     (400 Mbit/s, about 50 MB/s per member) on a Unix socket, given to
#     the plugin as nbd+unix:///?socket=...  fio reads 1 MiB sequentially
#     at QD1 (one request at a time, so only fan-out inside a request can
#     help) from:
#       one member   the plugin as RAID 1 over two such members with
#                    read-policy=first, so that every read goes to member
#                    0 alone: one rate-limited member, reached exactly as
#                    the array reaches its members (fio -> nbdkit raid ->
#                    NBD member).  This is the anchor of the ratio: the
#                    plugin's own hop is in both figures and cancels, so
#                    the ratio measures fan-out only.
#       direct       fio's nbd engine straight to member 0, for context
#                    (no plugin in the path).
#       raid0 x4     RAID 0 over four members, chunk 256K: each 1 MiB read
#                    is four 256K reads, one on every member.
#     Target: raid0 x4 >= 3.5x one member.  ramp_time (RAMP_RATE, 3 s)
#     keeps the rate filter's initial burst (2 s worth of its rate, the
#     filter's default burstiness) out of the figures.
#
# (b) Latency.  Each member is
#       nbdkit --filter=delay memory 1G delay-write=2ms
#     fio writes 4K at random at QD1 to:
#       one member   the plugin as RAID 0 over two such members (chunk
#                    128K): a 4K aligned write lies in one chunk, so each
#                    request is one member write; the same path as the
#                    RAID 1 below, with no fan-out;
#       direct       fio straight to one member, for context;
#       raid1 x2     RAID 1 over two members: each request is a write to
#                    both, which must run at the same time.
#     Target: raid1 x2's mean latency <= 1.2x one member's.
#
# Every nbdkit gets --threads $THREADS; fio's options are printed.
# Exits 0 whether or not a target is met (a measurement, not a test).
#
# Run: bench/fanout.sh          (after meson compile -C build)
# Environment: RUNTIME=5 (seconds per run), RAMP_RATE=3, RAMP_DELAY=1,
# THREADS=16, RAID_PLUGIN (default build/plugins/raid/...).
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=fanout.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
RUNTIME=${RUNTIME:-5}
RAMP_RATE=${RAMP_RATE:-3}
RAMP_DELAY=${RAMP_DELAY:-1}
THREADS=${THREADS:-16}

[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built (meson compile -C build)"
for cmd in nbdkit fio perl; do
  command -v "$cmd" >/dev/null 2>&1 || die "$cmd is not installed"
done
fio --enghelp=nbd >/dev/null 2>&1 || die "this fio has no nbd ioengine"

work=$(mktemp -d "${TMPDIR:-/tmp}/raidsim-fanout.XXXXXX")
at_exit rm -rf "$work"
log=$work/nbdkit.log

uri () { echo "nbd+unix:///?socket=$work/$1.sock"; }

# fio_run NAME URI RAMP RW BS: one QD1 job over the first 256M; prints
# "IOPS BYTES-PER-S MEAN-LATENCY-NS".
fio_common=(--ioengine=nbd --iodepth=1 --size=256M --time_based
            --runtime="$RUNTIME" --norandommap --randrepeat=1
            --output-format=json)
fio_run ()
{
  local out=$work/fio-$1.json
  fio --name="$1" "${fio_common[@]}" --uri="$2" --ramp_time="$3" \
      --rw="$4" --bs="$5" --output="$out" >/dev/null
  perl -MJSON::PP -e '
    local $/; my $j = decode_json (<>)->{jobs}[0];
    my $d = $j->{read}{io_bytes} ? $j->{read} : $j->{write};
    printf "%.0f %.0f %.0f\n", $d->{iops}, $d->{bw_bytes}, $d->{lat_ns}{mean};' \
    "$out"
}

# member NAME FILTER-ARGS...: a memory 1G member on $work/NAME.sock.
member ()
{
  local name=$1
  shift
  serve "$work/$name.sock" "$log" --threads "$THREADS" "$@"
}

# array NAME PLUGIN-ARGS...: the plugin on $work/NAME.sock; sets ARRAY_PID.
array ()
{
  local name=$1
  shift
  serve "$work/$name.sock" "$log" --threads "$THREADS" "$RAID_PLUGIN" "$@"
  ARRAY_PID=$SERVE_PID
}

mbs () { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
ratio () { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict ()
{
  awk -v r="$1" -v op="$2" -v t="$3" \
      'BEGIN { ok = op == ">=" ? r + 0 >= t + 0 : r + 0 <= t + 0
               print (ok ? "PASS" : "MISS") }'
}

# ---- (a) bandwidth behind the rate filter -------------------------------

for i in 0 1 2 3; do
  member "r$i" --filter=rate memory 1G rate=400M
done
say "(a) 1M sequential reads, QD1, members behind --filter=rate rate=400M"

array one-r level=1 read-policy=first "$(uri r0)" "$(uri r1)"
read -r _ a_one _ < <(fio_run a-one "$(uri one-r)" "$RAMP_RATE" read 1M)
stop_pid "$ARRAY_PID"
say "  one member (plugin, RAID 1, read-policy=first): $(mbs "$a_one") MB/s"

read -r _ a_direct _ < <(fio_run a-direct "$(uri r0)" "$RAMP_RATE" read 1M)
say "  one member (fio direct): $(mbs "$a_direct") MB/s"

array r0x4 level=0 chunk=256K "$(uri r0)" "$(uri r1)" "$(uri r2)" "$(uri r3)"
read -r _ a_r0 _ < <(fio_run a-raid0 "$(uri r0x4)" "$RAMP_RATE" read 1M)
stop_pid "$ARRAY_PID"
say "  raid0 x4, chunk 256K: $(mbs "$a_r0") MB/s"

# ---- (b) latency behind the delay filter --------------------------------

for i in 0 1; do
  member "d$i" --filter=delay memory 1G delay-write=2ms
done
say "(b) 4K random writes, QD1, members behind --filter=delay delay-write=2ms"

array one-d level=0 "$(uri d0)" "$(uri d1)"
read -r _ _ b_one < <(fio_run b-one "$(uri one-d)" "$RAMP_DELAY" randwrite 4k)
stop_pid "$ARRAY_PID"
say "  one member (plugin, RAID 0, one member per write): $b_one ns"

read -r _ _ b_direct < <(fio_run b-direct "$(uri d0)" "$RAMP_DELAY" randwrite 4k)
say "  one member (fio direct): $b_direct ns"

array r1x2 level=1 "$(uri d0)" "$(uri d1)"
read -r _ _ b_r1 < <(fio_run b-raid1 "$(uri r1x2)" "$RAMP_DELAY" randwrite 4k)
stop_pid "$ARRAY_PID"
say "  raid1 x2: $b_r1 ns"

# ---- table --------------------------------------------------------------

ra=$(ratio "$a_r0" "$a_one")
rb=$(ratio "$b_r1" "$b_one")
echo
echo "nbdkit $(nbdkit --version | awk '{ print $2 }'), --threads $THREADS" \
     "everywhere; members are nbdkit memory 1G on Unix sockets"
echo "  fio ${fio_common[*]} --uri=URI --ramp_time=R --rw=RW --bs=BS"
echo "machine: $(nproc) CPUs, Linux $(uname -r)"
echo
printf '%-46s %12s %7s %9s %s\n' measurement figure ratio target verdict
printf '%-46s %12s\n' "(a) one member, through the plugin (anchor)" \
  "$(mbs "$a_one") MB/s"
printf '%-46s %12s %7s\n' "(a) one member, fio direct" \
  "$(mbs "$a_direct") MB/s" "$(ratio "$a_direct" "$a_one")"
printf '%-46s %12s %7s %9s %s\n' "(a) raid0 x4 chunk 256K, 1M seq read QD1" \
  "$(mbs "$a_r0") MB/s" "$ra" ">=3.5" "$(verdict "$ra" ">=" 3.5)"
printf '%-46s %12s %7s\n' "    (raid0 x4 / fio direct)" "" \
  "$(ratio "$a_r0" "$a_direct")"
printf '%-46s %12s\n' "(b) one member, through the plugin (anchor)" \
  "$(awk -v n="$b_one" 'BEGIN { printf "%.3f ms", n / 1e6 }')"
printf '%-46s %12s %7s\n' "(b) one member, fio direct" \
  "$(awk -v n="$b_direct" 'BEGIN { printf "%.3f ms", n / 1e6 }')" \
  "$(ratio "$b_direct" "$b_one")"
printf '%-46s %12s %7s %9s %s\n' "(b) raid1 x2, 4K random write QD1" \
  "$(awk -v n="$b_r1" 'BEGIN { printf "%.3f ms", n / 1e6 }')" "$rb" \
  "<=1.2" "$(verdict "$rb" "<=" 1.2)"
printf '%-46s %12s %7s\n' "    (raid1 x2 / fio direct)" "" \
  "$(ratio "$b_r1" "$b_direct")"
