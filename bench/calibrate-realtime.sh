#!/bin/bash
# raidsim: `raidsim calibrate` against the emulator in real time (issue
# 16, item 4).  One member is served by nbdkit-raid-plugin with
# model=ARRAY.ini, a single-drive array file (level = single): the drive
# the emulator is told to be.  fio runs configs/calibrate.fio (or some
# of its jobs) against it through its nbd engine, exactly as a user runs
# it against a real drive, and `raidsim calibrate` fits a base profile
# (ARRAY's device with the --base changes) to fio's JSON.  Printed: each
# fitted parameter beside the value the emulator was given (read from
# ARRAY's device file, not from any program's output) and the base,
# calibrate's residual for every job, and the emulator's account of its
# limits (late requests).
#
# Run (the full job file against an emulated 7200 rpm disk, about 6
# minutes; a base 15-24% off in the three searched parameters):
#   bench/calibrate-realtime.sh --member null \
#       --base rate_outer=100MB/s --base rate_inner=80MB/s \
#       --base seek_avg=10.5ms --base seek_full=21ms \
#       configs/arrays/single-hdd-7200.ini
# Options (before the array file):
#   --job FILE      the fio job file (default configs/calibrate.fio); its
#                   ioengine, direct and filename lines are dropped
#   --jobs A,B      run only these of its jobs (fio --section)
#   --runtime S     each job's runtime in seconds, in place of the file's
#   --ramp S        each job's ramp_time in seconds, likewise
#   --base KEY=VAL  the base profile's KEY (repeatable; the others are
#                   the emulated drive's own)
#   --fit A,B       what calibrate fits (default: all its model can)
#   --member KIND   file (default): a sparse file in BENCH_DIR the size of
#                   the drive; null: nbdkit's null plugin over a Unix
#                   socket (reads zeroes, keeps nothing: the full job
#                   file writes gigabytes)
#   --check PCT     exit 1 unless every fitted parameter is within PCT%
#                   of the emulated drive's; for tests
# Environment: RAID_PLUGIN, RAIDSIM, BENCH_DIR (default /dev/shm),
# THREADS (nbdkit --threads, default 64: the deepest queue a job keeps),
# NBDKIT_ARGS (more plugin parameters or nbdkit options), RT (as in
# crosscheck.sh: fio and nbdkit under chrt -f 1 where allowed; RT= for
# the normal policy), OUT=DIR (keep fio.json, fit.ini, stats.json).
# The last lines are "calibrate-realtime: NAME fitted=F true=T error=E%"
# per parameter, for scripts.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=calibrate-realtime.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$srcdir/build/raidsim/raidsim}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
THREADS=${THREADS:-64}
NBDKIT_ARGS=${NBDKIT_ARGS:-}
OUT=${OUT:-}
if [ -z "${RT+x}" ]; then
  if chrt -f 1 true 2>/dev/null; then RT="chrt -f 1"; else RT=""; fi
fi

job=$srcdir/configs/calibrate.fio
sections=()
runtime=
ramp=
bases=()
fit=
member=file
check=
while [ $# -gt 0 ]; do
  case $1 in
    --job) job=$2; shift 2 ;;
    --jobs) IFS=, read -r -a sections <<< "$2"; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --ramp) ramp=$2; shift 2 ;;
    --base) bases+=("$2"); shift 2 ;;
    --fit) fit=$2; shift 2 ;;
    --member) member=$2; shift 2 ;;
    --check) check=$2; shift 2 ;;
    -*) die "unknown option $1" ;;
    *) break ;;
  esac
done
[ $# -eq 1 ] || die "usage: calibrate-realtime.sh [options] ARRAY.ini (see the script's header)"
array=$(realpath "$1")
case $member in file|null) ;; *) die "--member: '$member' is not file or null" ;; esac
[ -f "$RAID_PLUGIN" ] || die "$RAID_PLUGIN is not built (meson compile -C build)"
[ -x "$RAIDSIM" ] || die "$RAIDSIM is not built (meson compile -C build)"
command -v nbdkit >/dev/null 2>&1 || skip "nbdkit is not installed"
command -v fio >/dev/null 2>&1 || skip "fio is not installed"
fio --enghelp=nbd >/dev/null 2>&1 || skip "this fio has no nbd ioengine"
perl -MJSON::PP -e 1 2>/dev/null || skip "perl's JSON::PP is not installed"
if [ $member = null ] && ! nbdkit null --version >/dev/null 2>&1; then
  skip "nbdkit's null plugin is not installed"
fi

work=$(mktemp -d "$BENCH_DIR/calibrate-realtime.XXXXXX")
at_exit rm -rf "$work"

# key FILE KEY: KEY's value in an INI file, as written.
key ()
{
  awk -v k="$2" '$1 == k && $2 == "=" { print $3; exit }' "$1"
}

# value FILE KEY: KEY's value in FILE in base units (ns, bytes/s, count).
value ()
{
  awk -v k="$2" '
    $1 == k && $2 == "=" {
      v = $3; n = v + 0; u = v; sub (/^[0-9.]+/, "", u)
      m["ns"] = 1; m["us"] = 1e3; m["ms"] = 1e6; m["s"] = 1e9
      m["B/s"] = 1; m["KB/s"] = 1e3; m["MB/s"] = 1e6; m["GB/s"] = 1e9
      m[""] = 1
      if (!(u in m)) { print "unit?" u; exit }
      printf "%.6g\n", n * m[u]; exit
    }' "$1"
}

# 1. The emulated drive: ARRAY's device and controller, and its size as
# the simulator has it (a run of one read prints the array's size).
[ "$(key "$array" level)" = single ] ||
  die "$array: not a single-drive array file (level = single)"
adir=$(dirname "$array")
device=$(realpath "$adir/$(key "$array" device)")
controller=$(realpath "$adir/$(key "$array" controller)")
printf '[one]\nrw=read\nbs=4k\nnumber_ios=1\n' > "$work/one.fio"
"$RAIDSIM" run "$array" --workload "$work/one.fio" --format json \
  > "$work/one.json" || die "raidsim run $array failed"
size=$(perl -MJSON::PP -e 'local $/; print decode_json (<STDIN>)->{array}{size}' \
         < "$work/one.json")

# 2. The base profile: the drive's own device file with --base's keys.
cp "$device" "$work/base-device.ini"
for kv in "${bases[@]}"; do
  k=${kv%%=*} v=${kv#*=}
  [ "$k" != "$kv" ] || die "--base: '$kv' is not KEY=VALUE"
  if grep -q "^$k *=" "$work/base-device.ini"; then
    sed -i "s|^$k *=.*|$k = $v|" "$work/base-device.ini"
  else
    echo "$k = $v" >> "$work/base-device.ini"
  fi
done
printf '; Made by bench/calibrate-realtime.sh: the base of the fit.\n[array]\nlevel = single\nmembers = 1\ndevice = %s\ncontroller = %s\n' \
  "$work/base-device.ini" "$controller" > "$work/base.ini"

# 3. The job file, for fio's nbd engine.
edits=(-e '/^ioengine *=/d' -e '/^direct *=/d' -e '/^filename *=/d')
[ -z "$runtime" ] || edits+=(-e "s/^runtime *=.*/runtime=$runtime/")
[ -z "$ramp" ] || edits+=(-e "s/^ramp_time *=.*/ramp_time=$ramp/")
sed "${edits[@]}" "$job" > "$work/job.fio"
section_args=()
for s in "${sections[@]}"; do section_args+=(--section="$s"); done

# 4. The member, the emulator, and fio against it.
if [ $member = file ]; then
  truncate -s "$size" "$work/m0.img"
  m0=$work/m0.img
else
  serve "$work/null.sock" "$work/null.log" null size="$size"
  m0="nbd+unix:///?socket=$work/null.sock"
fi
# shellcheck disable=SC2086
serve "$work/sock" "$work/nbdkit.log" --threads "$THREADS" $NBDKIT_ARGS \
  "$RAID_PLUGIN" model="$array" stats="$work/stats.json" "$m0"
emu_pid=$SERVE_PID
[ -z "$RT" ] || chrt -f -a -p 1 "$emu_pid" > /dev/null
if ! $RT fio --ioengine=nbd --uri="nbd+unix:///?socket=$work/sock" \
     --output-format=json --output="$work/fio.json" "${section_args[@]}" \
     "$work/job.fio" > "$work/fio.log" 2>&1; then
  cat "$work/fio.log" >&2
  die "fio failed"
fi
stop_pid "$emu_pid"
[ -s "$work/stats.json" ] || { cat "$work/nbdkit.log" >&2; die "no statistics"; }

# 5. The fit, from the base.
fit_args=()
[ -z "$fit" ] || fit_args=(--fit "$fit")
"$RAIDSIM" calibrate "$work/base.ini" "$work/fio.json" -o "$work/fit.ini" \
  "${fit_args[@]}" || die "raidsim calibrate failed"
if [ -n "$OUT" ]; then
  mkdir -p "$OUT"
  cp "$work/fio.json" "$work/fit.ini" "$work/stats.json" "$OUT/"
fi

# 6. Fitted against emulated.
say "$array (device $(basename "$device")), fitted from $work/base-device.ini"
perl -MJSON::PP -e '
  local $/; my $t = decode_json (<STDIN>)->{timing} or die "no timing\n";
  printf "emulator: %d requests timed, %d late (%.2f%%)\n", $t->{requests},
    $t->{late}{count}, $t->{requests} ? 100 * $t->{late}{count} / $t->{requests} : 0;
' < "$work/stats.json"
sed -n '/^; Residuals/,/^\[device\]/p' "$work/fit.ini" | sed '$d'
printf '%-14s %14s %14s %14s %9s\n' parameter emulated base fitted error
bad=0
lines=()
while read -r name; do
  t=$(value "$device" "$name")
  b=$(value "$work/base-device.ini" "$name")
  f=$(value "$work/fit.ini" "$name")
  if [ -z "$t" ]; then
    printf '%-14s %14s (not in %s)\n' "$name" "?" "$device"
    bad=1
    continue
  fi
  e=$(awk -v f="$f" -v t="$t" 'BEGIN { printf "%+.2f", (f / t - 1) * 100 }')
  printf '%-14s %14s %14s %14s %8s%%\n' "$name" "$(key "$device" "$name")" \
    "$(key "$work/base-device.ini" "$name")" "$(key "$work/fit.ini" "$name")" "$e"
  lines+=("calibrate-realtime: $name fitted=$f true=$t error=$e%")
  if [ -n "$check" ] &&
     ! awk -v e="$e" -v p="$check" 'BEGIN { exit !(e <= p && e >= -p) }'; then
    bad=1
  fi
done < <(sed -n 's/^;   \([a-z_]*\) = .*/\1/p' "$work/fit.ini")
printf '%s\n' "${lines[@]}"
if [ "$bad" = 1 ] && [ -n "$check" ]; then
  say "FAIL: a fitted parameter is not within $check% of the emulated drive's"
  exit 1
fi
