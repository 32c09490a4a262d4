#!/bin/bash
# raidsim tests: `raidsim plot` draws a sweep's CSV and JSON as PNG and
# SVG through gnuplot, marks measured points on it (--points), draws the
# rows of `raidsim validate` as pairs of bars, and refuses what it cannot
# draw with one clear line.  Skips (exit 77) when gnuplot is not
# installed.
#
# Run: meson test -C build sim-plot
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/integration/test-sim-plot.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
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
   grep -q 'set xlabel "queue depth (I/Os in flight)"' "$tmp/script.gp"; then
  ok "script: a line per array against queue depth"
else
  fail "script: lines or axis missing"
fi

# Measured points: each lands in its pattern's panel at its queue depth,
# in the colour of its array's line; a figure in MB/s on an IOPS panel
# is converted with its block size (4 KiB at 40.96 MB/s = 10 thousand
# IOPS).
cat > "$tmp/points.csv" <<'EOP'
array,rw,bs,iodepth,value,unit
raid0-2x-fixed,randread,4096,1,5000,IOPS
raid0-2x-fixed-vroc,randread,4096,2,40.96,MB/s
EOP
"$RAIDSIM" plot "$tmp/qd.csv" --points "$tmp/points.csv" -o "$tmp/p.svg" \
  --script > "$tmp/points.gp"
if grep -q 'title "raid0-2x-fixed (published)"' "$tmp/points.gp" &&
   grep -q 'title "raid0-2x-fixed-vroc (published)"' "$tmp/points.gp" &&
   grep -qx '1 5.000000' "$tmp/points.gp" &&
   grep -qx '2 10.000000' "$tmp/points.gp" &&
   grep -q 'pointtype 6 .*linecolor 2 title "raid0-2x-fixed-vroc (published)"' \
     "$tmp/points.gp"; then
  ok "points: placed, converted and coloured as their arrays"
else
  fail "points: $(grep -m 5 -n 'published\|^[12] ' "$tmp/points.gp")"
fi
for ext in png svg; do
  if "$RAIDSIM" plot "$tmp/qd.csv" --points "$tmp/points.csv" --log-y \
       -o "$tmp/p.$ext" 2>"$tmp/err" &&
     { { [ $ext = png ] && is_png "$tmp/p.$ext"; } ||
       { [ $ext = svg ] && is_svg "$tmp/p.$ext"; }; }; then
    ok "points, log y -> $ext"
  else
    fail "points, log y -> $ext: $(cat "$tmp/err")"
  fi
done

# Bars: the rows of `raidsim validate --format csv`, a panel per id
# prefix and unit (or per case), fitted rows starred.
cat > "$tmp/val.csv" <<'EOP'
id,case,unit,published,predicted,error,fitted
t-a-seqr,c1,MB/s,100,110,0.1,no
t-a-4kr1,c1,IOPS,1000,900,-0.1,yes
t-b-seqr,c1,MB/s,200,180,-0.1,no
EOP
"$RAIDSIM" plot "$tmp/val.csv" -o "$tmp/b.svg" --script > "$tmp/bars.gp"
if grep -q '3 bars, 3 panels' "$tmp/bars.gp" &&
   grep -q 'set title "t-a (MB/s)"' "$tmp/bars.gp" &&
   grep -q 'set title "t-a (IOPS)"' "$tmp/bars.gp" &&
   grep -qx '"4kr1\*" 1000 900' "$tmp/bars.gp" &&
   grep -q 'style data histogram' "$tmp/bars.gp"; then
  ok "bars: a panel per prefix and unit, fitted starred"
else
  fail "bars: $(head -c 600 "$tmp/bars.gp")"
fi
"$RAIDSIM" plot "$tmp/val.csv" --group case -o "$tmp/b.svg" --script \
  > "$tmp/bars2.gp"
if grep -q '3 bars, 2 panels' "$tmp/bars2.gp" &&
   grep -qx '"t-b-seqr" 200 180' "$tmp/bars2.gp"; then
  ok "bars: --group case"
else
  fail "bars --group case: $(head -c 400 "$tmp/bars2.gp")"
fi
for ext in png svg; do
  if "$RAIDSIM" plot "$tmp/val.csv" -o "$tmp/b.$ext" 2>"$tmp/err" &&
     { { [ $ext = png ] && is_png "$tmp/b.$ext"; } ||
       { [ $ext = svg ] && is_svg "$tmp/b.$ext"; }; }; then
    ok "bars -> $ext"
  else
    fail "bars -> $ext: $(cat "$tmp/err")"
  fi
done

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
printf 'array,rw,bs,iodepth,value,unit\nx,write,4096,1,5,MB/s\n' \
  > "$tmp/nopanel.csv"
expect_error "point with no panel" "the sweep has no panel 'sequential write 4K'" \
  "$tmp/qd.csv" --points "$tmp/nopanel.csv" -o "$tmp/x.png"
printf 'array,rw,bs,iodepth,value,unit\nx,randread,4096,1,5,GB/s\n' \
  > "$tmp/badunit.csv"
expect_error "point in an unknown unit" "is not IOPS or MB/s" \
  "$tmp/qd.csv" --points "$tmp/badunit.csv" -o "$tmp/x.png"
expect_error "points on a chunk sweep" "needs a plot against queue depth" \
  "$tmp/chunk.csv" --points "$tmp/points.csv" -o "$tmp/x.png"
expect_error "points on bars" "whose bars already hold the published" \
  "$tmp/val.csv" --points "$tmp/points.csv" -o "$tmp/x.png"
expect_error "bad --group" "is not prefix or case" \
  "$tmp/val.csv" --group id -o "$tmp/x.png"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
