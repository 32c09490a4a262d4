#!/bin/bash
# raidsim: the plots of docs/validation.md, rendered by `raidsim plot`
# from the model's current predictions and tests/data/published.csv, so
# that they follow any change to a profile or a model by running this
# again:
#
#   docs/img/vroc-four-corners.svg  the four-corner QD curves of one
#       Optane 900P (nvme-direct) against two in VROC RAID 0, with the
#       published points of the optane-900p-vroc case marked;
#   docs/img/cdm-bars.svg  CrystalDiskMark 3 (hdd-raid0-raid10 case),
#       published against predicted, a panel per array, span and unit;
#   docs/img/x25m-bars.svg  the HD Tune rows of the x25m-g1-ich10r case.
#
# Needs a build (meson compile -C build) and gnuplot.
#
# Run: scripts/validation-plots.sh [BUILD_DIR]    (default: build)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$srcdir/build}
raidsim=$build/raidsim/raidsim
img=$srcdir/docs/img
[ -x "$raidsim" ] || { echo "$0: $raidsim is not built" >&2; exit 1; }
mkdir -p "$img"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The published points of the optane-900p-vroc case that are 900P
# figures (not the class rows), named after the array each was measured
# on, in the columns `raidsim plot --points` reads.  published.csv's
# fields before the note are never quoted, so splitting at commas is
# safe for them.
awk -F, 'NR > 1 && $2 == "optane-900p-vroc" && $6 ~ /900P/ {
  array = $4 == "single" ? "single-optane-900p-480gb" \
                         : "raid0-2x-optane-900p-vroc"
  rw = ($10 == "random" ? "rand" : "") $11
  printf "%s,%s,%d,%d,%s,%s\n", array, rw, $12 * 1024, $13, $17, $18
}
BEGIN { print "array,rw,bs,iodepth,value,unit" }' \
  "$srcdir/tests/data/published.csv" > "$tmp/points.csv"

"$raidsim" sweep "$srcdir/configs/arrays/single-optane-900p-480gb.ini" \
  "$srcdir/configs/arrays/raid0-2x-optane-900p-vroc.ini" \
  --workload four-corners --format csv > "$tmp/four-corners.csv"
"$raidsim" plot "$tmp/four-corners.csv" --points "$tmp/points.csv" \
  --log-y \
  --title "Optane 900P: one drive against VROC RAID 0 of two (lines: raidsim; open circles: published)" \
  -o "$img/vroc-four-corners.svg"

"$raidsim" validate --require none --case hdd-raid0-raid10 --format csv \
  > "$tmp/cdm.csv"
"$raidsim" plot "$tmp/cdm.csv" \
  --title "CrystalDiskMark 3 on four-disk chipset RAID: published against raidsim" \
  -o "$img/cdm-bars.svg"

"$raidsim" validate --require none --case x25m-g1-ich10r --format csv \
  > "$tmp/x25m.csv"
"$raidsim" plot "$tmp/x25m.csv" \
  --group case \
  --title "HD Tune, X25-M G1 on ICH10R: published against raidsim (* fitted)" \
  -o "$img/x25m-bars.svg"

echo "wrote $img/vroc-four-corners.svg, $img/cdm-bars.svg, $img/x25m-bars.svg"
