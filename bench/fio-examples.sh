#!/bin/bash
# Run every fio example job file (fio's examples/*.fio) through raidsim,
# unmodified, and count how many run; list the others by the reason
# raidsim gives.  This is the measurement docs/fio-jobs.md quotes.
#
# fio's files are not part of this tree: give the path of an examples
# directory, for instance from a checkout of fio 3.33:
#
#   git clone --branch fio-3.33 https://github.com/axboe/fio /tmp/fio
#   bench/fio-examples.sh /tmp/fio/examples
#
# Options (environment):
#   RAIDSIM=path   the raidsim binary (default build/raidsim/raidsim)
#   ARRAY=file     the array to run against
#                  (default configs/arrays/raid0-2x-fixed.ini)
#   VERBOSE=1      print each file's outcome
#
#   CPU_LIMIT=s    CPU seconds per run (default 20)
#
# A job file without a size works over the whole array, which at a small
# block size simulates for a long time: that says nothing about whether
# it is accepted.  A run that hits the CPU limit counts as running (it
# was accepted and was simulating), and is listed apart.
set -uo pipefail
cd "$(dirname "$0")/.."

dir=${1:?usage: bench/fio-examples.sh FIO-EXAMPLES-DIRECTORY}
raidsim=${RAIDSIM:-build/raidsim/raidsim}
array=${ARRAY:-configs/arrays/raid0-2x-fixed.ini}
[ -x "$raidsim" ] || { echo "fio-examples.sh: $raidsim is not executable" >&2; exit 1; }

total=0 ran=0 slow=0
limit=${CPU_LIMIT:-20}
reasons=$(mktemp)
trap 'rm -f "$reasons"' EXIT
for f in "$dir"/*.fio; do
  total=$((total + 1))
  # (The shell's own "Killed" line, for a run stopped by the limit, goes
  # to /dev/null; raidsim's stderr is what is captured.)
  err=$( { (ulimit -t "$limit"
            exec "$raidsim" run "$array" --workload "$f" 2>&1 >/dev/null); } \
         2>/dev/null )
  st=$?
  name=$(basename "$f")
  if [ $st -eq 0 ]; then
    ran=$((ran + 1))
    [ -n "${VERBOSE:-}" ] && echo "ran      $name"
    continue
  fi
  if [ $st -ge 128 ]; then
    ran=$((ran + 1)) slow=$((slow + 1))
    echo "slow     $name (accepted; stopped after $limit s of CPU)"
    continue
  fi
  # The error line: "raidsim run: --workload: FILE:LINE: OPTION: why".
  # Refusals are grouped by their reason, each file listed with the
  # option that stopped it; other errors by their whole message.
  msg=$(printf '%s\n' "$err" | grep -v 'noted, no effect' | tail -n 1)
  why=$(printf '%s\n' "$msg" | sed -E 's|^raidsim run: (--workload: )?||; s|^[^ ]*:[0-9]+: ||; s|^[^ ]*'"$(basename "$array")"': ||')
  case $why in
    *": refused: "*) key=${why#*: refused: } what="${why%%: refused: *}" ;;
    *) key=$why what= ;;
  esac
  printf '%s\t%s%s\n' "$key" "$name" "${what:+ ($what)}" >> "$reasons"
  [ -n "${VERBOSE:-}" ] && echo "refused  $name: $why"
done

echo "fio examples in $dir: $ran of $total run ($slow of them stopped for time)"
if [ -s "$reasons" ]; then
  echo "refused, by reason:"
  sort -t'	' -k1,1 "$reasons" | awk -F'\t' '
    $1 != key { if (key != "") print n "\t" key "\t" files
                key = $1; n = 0; files = "" }
    { n++; files = files (files ? "; " : "") $2 }
    END { print n "\t" key "\t" files }' |
    sort -t'	' -k1,1nr -k2,2 |
    awk -F'\t' '{ printf "%4d  %s\n        %s\n", $1, $2, $3 }'
fi
