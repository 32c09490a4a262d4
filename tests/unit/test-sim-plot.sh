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


# ---- grids: two varied keys ----
# Two arrays, level against members.  Members (numbers) go across by
# default and level (categories) makes the panels, one per level; each
# panel has a line per array; the title names the arrays and keys.
# Mutants killed: the other key left out of the panels (one panel of
# mixed points); the title taken from the CSV's path; level treated as
# a number (across by default, x at 10 for RAID 10, lines joining it).
"$RAIDSIM" sweep "${arrays[@]}" --workload "$job" --vary level=0,1,10 \
  --vary members=2,4 --format csv > "$tmp/grid.csv"
"$RAIDSIM" plot "$tmp/grid.csv" -o "$tmp/grid.png" --script > "$tmp/grid.gp"
title='"raid0-2x-fixed, raid0-2x-fixed-vroc: members x level"'
if grep -qx "set multiplot layout 1,3 title $title" "$tmp/grid.gp" &&
   grep -qx 'set title "random read 4K, RAID 0"' "$tmp/grid.gp" &&
   grep -qx 'set title "random read 4K, RAID 1"' "$tmp/grid.gp" &&
   grep -qx 'set title "random read 4K, RAID 10"' "$tmp/grid.gp" &&
   [ "$(grep -c '^set title' "$tmp/grid.gp")" = 3 ] &&
   grep -q '^set xlabel "members (drives)"' "$tmp/grid.gp" &&
   grep -qx 'set xtics ("2" 2, "4" 4)' "$tmp/grid.gp" &&
   [ "$(grep -c '^plot .*title "raid0-2x-fixed", .*title "raid0-2x-fixed-vroc"$' "$tmp/grid.gp")" = 3 ]; then
  ok "grid: a panel per level, members across, a line per array, titled by the arrays"
else
  fail "grid panels: $(grep -E '^(set (multiplot|title|xlabel|xtics)|plot)' "$tmp/grid.gp")"
fi

# Level across (--x level): categorical tics, each array's points beside
# the level's tic (index +- 0.15), never at x = 10, never joined.
"$RAIDSIM" plot "$tmp/grid.csv" -o "$tmp/gl.png" --x level --script \
  > "$tmp/gl.gp"
xs=$(awk '/^\$p[0-9]+l[0-9]+ << EOD$/ { d = 1; next } /^EOD$/ { d = 0 }
          d { print $1 }' "$tmp/gl.gp" | sort -u | tr '\n' ' ')
if grep -qx 'set xtics ("RAID 0" 0, "RAID 1" 1, "RAID 10" 2)' "$tmp/gl.gp" &&
   grep -q '^set xlabel "RAID level"' "$tmp/gl.gp" &&
   grep -qx 'set title "random read 4K, 2 members"' "$tmp/gl.gp" &&
   [ "$xs" = "-0.15 0.15 0.85 1.15 1.85 2.15 " ] &&
   ! grep -q '^plot .*lines' "$tmp/gl.gp" &&
   [ "$(grep -c '^plot .*with points' "$tmp/gl.gp")" = 2 ]; then
  ok "grid, --x level: levels are categories, points never joined"
else
  fail "grid --x level: x = $xs: $(grep -E '^(set (xtics|title)|plot)' "$tmp/gl.gp")"
fi
# A sweep of level alone is drawn the same way by default.
"$RAIDSIM" sweep "${arrays[0]}" --workload "$job" --vary level=0,1,10 \
  --format csv > "$tmp/lv.csv"
"$RAIDSIM" plot "$tmp/lv.csv" -o "$tmp/lv.png" --script > "$tmp/lv.gp"
if grep -qx 'set xtics ("RAID 0" 0, "RAID 1" 1, "RAID 10" 2)' "$tmp/lv.gp" &&
   grep -q '^plot .*with points' "$tmp/lv.gp" &&
   ! grep -q '^plot .*lines' "$tmp/lv.gp" &&
   ! grep -qx '10 .*' "$tmp/lv.gp"; then
  ok "level sweep: no line joins the levels"
else
  fail "level sweep: $(grep -E '^(set xtics|plot|[0-9])' "$tmp/lv.gp")"
fi

# Heat map: members across, level up, a panel per array; each cell is
# its row's figure (thousands of IOPS, from the CSV) at its indices.
# Mutants killed: x and y swapped; the cell holding bandwidth; the
# arrays drawn in one panel.
"$RAIDSIM" plot "$tmp/grid.csv" -o "$tmp/heat.png" --layout heatmap \
  --script > "$tmp/heat.gp"
# level,members -> the cell "members-index level-index kIOPS" of array a.
want=$(awk -F, 'NR > 1 && $1 == "raid0-2x-fixed-vroc" {
         l = ($2 == "0") ? 0 : ($2 == "1") ? 1 : 2; m = ($3 == "2") ? 0 : 1
         printf "%d %d %.3f\n", m, l, $10 / 1000 }' "$tmp/grid.csv" | sort)
got=$(awk '/^\$h1 << EOD$/ { d = 1; next } /^EOD$/ { d = 0 }
           d { printf "%d %d %.3f\n", $1, $2, $3 }' "$tmp/heat.gp" | sort)
if grep -qx 'set multiplot layout 1,2 title '"$title" "$tmp/heat.gp" &&
   grep -qx 'set title "random read 4K, raid0-2x-fixed"' "$tmp/heat.gp" &&
   grep -qx 'set title "random read 4K, raid0-2x-fixed-vroc"' "$tmp/heat.gp" &&
   grep -qx 'set xtics ("2" 0, "4" 1)' "$tmp/heat.gp" &&
   grep -qx 'set ytics ("RAID 0" 0, "RAID 1" 1, "RAID 10" 2)' "$tmp/heat.gp" &&
   grep -qx 'set ylabel "RAID level"' "$tmp/heat.gp" &&
   grep -qx 'set cblabel "thousand IOPS"' "$tmp/heat.gp" &&
   grep -q '^plot $h1 using 1:2:(0.5):(0.5):3 with boxxyerror' "$tmp/heat.gp" &&
   [ -n "$want" ] && [ "$got" = "$want" ]; then
  ok "heat map: a cell per (members, level), a panel per array"
else
  fail "heat map: cells"$'\n'"$got"$'\n'"want"$'\n'"$want"
fi

# Intervals (sweep --seeds adds *_ci95 columns, half-widths): error bars,
# joined across numbers, bare across levels.  The columns are added here
# by hand (1000 IOPS = 1 thousand).  Mutant killed: the columns ignored.
awk 'NR == 1 { print $0 ",seeds,read_iops_ci95,read_bw_bytes_ci95,write_iops_ci95,write_bw_bytes_ci95"; next }
     { print $0 ",3,1000,4096000,0,0" }' "$tmp/grid.csv" > "$tmp/ci.csv"
"$RAIDSIM" plot "$tmp/ci.csv" -o "$tmp/ci.png" --script > "$tmp/ci.gp"
"$RAIDSIM" plot "$tmp/ci.csv" -o "$tmp/ci.png" --x level --script \
  > "$tmp/cil.gp"
if grep -q '^plot $p0l0 using 1:2:3 with yerrorlines' "$tmp/ci.gp" &&
   grep -q '^plot $p0l0 using 1:2:3 with yerrorbars' "$tmp/cil.gp" &&
   ! grep -q '^plot .*lines' "$tmp/cil.gp" &&
   grep -qE '^2 [0-9.]+ 1\.000000$' "$tmp/ci.gp"; then
  ok "intervals: error bars of the *_ci95 columns"
else
  fail "intervals: $(grep -E '^(plot|2 )' "$tmp/ci.gp" "$tmp/cil.gp")"
fi

# Every layout draws a PNG (and the heat map an SVG).
for args in "grid.csv" "grid.csv --x level" "grid.csv --layout lines" \
            "grid.csv --layout heatmap" "ci.csv" "ci.csv --layout heatmap"; do
  read -r -a a <<< "$args"
  rm -f "$tmp/out.png"
  if "$RAIDSIM" plot "$tmp/${a[0]}" "${a[@]:1}" -o "$tmp/out.png" \
       2>"$tmp/err" && is_png "$tmp/out.png" && [ ! -s "$tmp/err" ]; then
    ok "$args -> png ($(stat -c %s "$tmp/out.png") bytes)"
  else
    fail "$args -> png: $(cat "$tmp/err")"
  fi
done
if "$RAIDSIM" plot "$tmp/grid.csv" --layout heatmap -o "$tmp/heat.svg" &&
   is_svg "$tmp/heat.svg"; then
  ok "heat map -> svg"
else
  fail "heat map -> svg"
fi

expect_error "bad --layout" "is not panels, lines or heatmap" \
  "$tmp/grid.csv" --layout pie -o "$tmp/x.png"
expect_error "--x of a key not varied" "'chunk' is not a varied key" \
  "$tmp/grid.csv" --x chunk -o "$tmp/x.png"
"$RAIDSIM" sweep "${arrays[@]}" --workload "$job" --format csv \
  > "$tmp/none.csv"
expect_error "heat map of nothing varied" "needs a varied key" \
  "$tmp/none.csv" --layout heatmap -o "$tmp/x.png"
expect_error "heat map of one key and one array" "needs two varied keys" \
  "$tmp/chunk.csv" --layout heatmap -o "$tmp/x.png"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
