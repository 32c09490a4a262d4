#!/bin/bash
# raidsim tests: `raidsim plot` draws a sweep's CSV and JSON as PNG and
# SVG through gnuplot, and refuses what it cannot draw with one clear
# line.  Skips (exit 77) when gnuplot is not installed.
#
# Run: meson test -C build sim-plot
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/test-sim-plot.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/..}
[ -x "$RAIDSIM" ] || { echo "test-sim-plot.sh: $RAIDSIM is not built"; exit 1; }
if ! command -v gnuplot >/dev/null; then
  echo "SKIP: gnuplot is not installed (Debian: gnuplot-nox)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

arrays=("$SRCDIR/configs/arrays/raid0-2x-fixed.ini"
        "$SRCDIR/configs/arrays/raid0-2x-fixed-vroc.ini")
job=$SRCDIR/configs/workloads/randread-4k-qd1.fio

# A queue-depth sweep of two arrays, as CSV and as JSON.
"$RAIDSIM" sweep "${arrays[@]}" --workload "$job" --vary qd=1,2,4,8 \
  --format csv > "$tmp/qd.csv"
"$RAIDSIM" sweep "${arrays[@]}" --workload "$job" --vary qd=1,2,4,8 \
  --format json > "$tmp/qd.json"
# A chunk sweep.
"$RAIDSIM" sweep "${arrays[0]}" --workload "$job" --vary chunk=4K,16K,64K \
  --format csv > "$tmp/chunk.csv"

is_png () { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }
is_svg () { grep -q '<svg' "$1"; }

for input in qd.csv qd.json chunk.csv; do
  for ext in png svg; do
    out=$tmp/${input%.*}-${input#*.}.$ext
    if ! "$RAIDSIM" plot "$tmp/$input" -o "$out" 2>"$tmp/err"; then
      fail "plot $input -> $ext: $(cat "$tmp/err")"
    elif { [ $ext = png ] && is_png "$out"; } ||
         { [ $ext = svg ] && is_svg "$out"; }; then
      ok "plot $input -> $ext ($(stat -c %s "$out") bytes)"
    else
      fail "plot $input -> $ext: not a $ext file"
    fi
  done
done

# The script has one line per array in the panel, against queue depth.
"$RAIDSIM" plot "$tmp/qd.csv" -o "$tmp/x.png" --script > "$tmp/script.gp"
if grep -q 'title "raid0-2x-fixed"' "$tmp/script.gp" &&
   grep -q 'title "raid0-2x-fixed-vroc"' "$tmp/script.gp" &&
   grep -q 'set xlabel "queue depth"' "$tmp/script.gp"; then
  ok "script: a line per array against queue depth"
else
  fail "script: lines or axis missing"
fi

# Errors: one line naming what is wrong, exit 1.
expect_error ()
{
  local what=$1 want=$2
  shift 2
  if "$RAIDSIM" plot "$@" >/dev/null 2>"$tmp/err"; then
    fail "$what: succeeded"
  elif grep -qF -- "$want" "$tmp/err" && [ "$(wc -l < "$tmp/err")" = 1 ]; then
    ok "$what"
  else
    fail "$what: got: $(cat "$tmp/err")"
  fi
}
expect_error "bad extension" "the name must end in .png or .svg" \
  "$tmp/qd.csv" -o "$tmp/x.gif"
printf 'a,b\n1,2\n' > "$tmp/bad.csv"
expect_error "not a sweep" "no 'array' column" "$tmp/bad.csv" -o "$tmp/x.png"
expect_error "missing input" "No such file" "$tmp/none.csv" -o "$tmp/x.png"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
