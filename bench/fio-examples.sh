#!/bin/bash
# Run every fio example job file (examples/*.fio of a fio source tree)
# through raidsim, unmodified, and count how many run; list the others
# by the reason raidsim gives.  This is the measurement docs/fio-jobs.md
# quotes.  Figures, not a test.
#
# fio's files are not part of this tree: give the path of a fio source
# tree (or of its examples directory), for instance a checkout of
# fio's repository:
#
#   bench/fio-examples.sh /path/to/fio
#
# Options (environment):
#   RAIDSIM=path   the raidsim binary (default build/raidsim/raidsim)
#   ARRAY=file     the array to run against
#                  (default configs/arrays/raid0-4x-sata-ssd.ini)
#   VERBOSE=1      print each file's outcome
#   CPU_LIMIT=s    CPU seconds per run (default 10, the target)
#
# The files whose engine does no block I/O (refused with "an I/O engine
# that does no reads or writes at offsets of a block device or file")
# are counted apart: the tally of the block-device examples leaves
# them out.  A run that hits the CPU limit was accepted but did not
# finish in time, and counts as not run.
set -uo pipefail
cd "$(dirname "$0")/.."

dir=${1:?usage: bench/fio-examples.sh FIO-SOURCE-TREE}
[ -d "$dir/examples" ] && dir=$dir/examples
raidsim=${RAIDSIM:-build/raidsim/raidsim}
array=${ARRAY:-configs/arrays/raid0-4x-sata-ssd.ini}
[ -x "$raidsim" ] || { echo "fio-examples.sh: $raidsim is not executable" >&2; exit 1; }

total=0 ran=0 slow=0 noio=0
limit=${CPU_LIMIT:-10}
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
    slow=$((slow + 1))
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
  case $key in
    "an I/O engine that does no reads or writes"*) noio=$((noio + 1)) ;;
  esac
  printf '%s\t%s%s\n' "$key" "$name" "${what:+ ($what)}" >> "$reasons"
  [ -n "${VERBOSE:-}" ] && echo "refused  $name: $why"
done

block=$((total - noio))
echo "fio examples in $dir: $ran of $total run within $limit s of CPU each"
echo "block-device examples (all but the $noio whose engine does no block I/O): $ran of $block run ($(( block ? 100 * ran / block : 0 ))%); $slow accepted but stopped at $limit s"
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
