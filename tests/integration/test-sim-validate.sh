#!/bin/sh
# raidsim validate: every published row runs and gets a prediction, the
# output formats hold together, and all four VROC shape rules are met.
# The error thresholds are not met yet (docs/validation.md): this test
# reports their state but does not fail on them, so that the suite
# checks what holds without loosening the thresholds themselves.
#
# Run: meson test -C build --suite integration sim-validate
set -e
: "${RAIDSIM:?set RAIDSIM to the raidsim binary}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"     # the command must not need the source tree

fail () { echo "FAIL: $*" >&2; exit 1; }

"$RAIDSIM" validate --require none > table.txt || fail "validate failed"
"$RAIDSIM" validate --require none --format csv > rows.csv \
  || fail "validate --format csv failed"

# 67 rows, each with a positive prediction and an error.
n=$(tail -n +2 rows.csv | wc -l)
[ "$n" -eq 67 ] || fail "expected 67 rows, got $n"
awk -F, 'NR > 1 && !($5 > 0) { print "no prediction: " $1; bad = 1 }
         END { exit bad }' rows.csv || fail "a row has no prediction"
# The fitted rows are the ones the mapping names, and no others.
nf=$(awk -F, 'NR > 1 && $7 == "yes"' rows.csv | wc -l)
[ "$nf" -eq 9 ] || fail "expected 9 fitted rows, got $nf"

grep -q '^  overall ' table.txt || fail "no overall summary"
for c in optane-900p-vroc hdd-raid0-raid10 x25m-g1-ich10r; do
  grep -q "^  $c " table.txt || fail "no summary for $c"
done

# All four VROC shape rules, each by name and together by the exit
# status of --require shape.
for rule in "array QD1 random read below a quarter" \
            "array QD2 random read above the single drive" \
            "sequential read peaks by QD4" \
            "sequential write rises QD1 -> QD2 -> QD4"; do
  awk -v rule="$rule" 'index ($0, rule) && index ($0, ": PASS") { found = 1 }
                       END { exit !found }' table.txt || fail "shape rule: $rule"
done
"$RAIDSIM" validate --require shape > /dev/null \
  || fail "validate --require shape: a VROC shape rule fails"

# --case keeps one case; JSON parses.
"$RAIDSIM" validate --require none --case x25m-g1-ich10r --format csv \
  > one.csv
[ "$(tail -n +2 one.csv | wc -l)" -eq 9 ] || fail "--case"
# ... and its table sums that case once, with no "overall" line.
"$RAIDSIM" validate --require none --case x25m-g1-ich10r > one.txt
[ "$(grep -c '^  x25m-g1-ich10r ' one.txt)" -eq 1 ] \
  || fail "--case: the case's summary line is not printed once"
grep -q '^  overall ' one.txt && fail "--case: an overall line"
"$RAIDSIM" validate --require none --format json > out.json
if command -v python3 > /dev/null; then
  python3 -c 'import json,sys; json.load(open("out.json"))' \
    || fail "JSON does not parse"
fi
# A bad --csv path is an error naming the file.
if "$RAIDSIM" validate --csv /nonexistent.csv 2> err.txt; then
  fail "--csv /nonexistent.csv succeeded"
fi
grep -q '/nonexistent.csv' err.txt || fail "error does not name the file"

# Known not met (reported, not failed on): see docs/validation.md.
sed -n '/^thresholds/,$p' table.txt
echo "sim-validate: rows, formats and shape rules 1-4 OK"
