#!/bin/bash
# raidsim validate: every published row runs and gets a prediction, the
# mean over seeds and its interval, the three sets (fitted, informed,
# untouched) as the mapping gives them, the thresholds judged on the
# untouched rows alone, the output formats, bad input, and the VROC
# shape rules.
#
# REQUIRE below is what the exit status of the full run must meet:
# `all` (thresholds on the untouched rows and shape rules) while the
# thresholds are met, as they are since issue 16 (on two rows:
# docs/validation.md), `shape` if they are not (then docs/validation.md
# must say which untouched rows miss).  The test also checks that the
# thresholds' state is what the untouched rows' errors give, so a
# REQUIRE the figures do not support fails here.
#
# Run: meson test -C build --suite integration sim-validate
#  or: tests/integration/test-sim-validate.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAIDSIM
REQUIRE=all
map="$SRCDIR/configs/validation/published-map.csv"
tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
cd "$tmp"     # the command must not need the source tree

# The full run, 5 seeds (the default), once as CSV with the exit status
# of --require all, once as a table.
status=0
"$RAIDSIM" validate --require all --format csv > rows.csv 2> all.err \
  || status=$?
"$RAIDSIM" validate --require none > table.txt || fail "validate failed"

# 67 rows, each with a positive prediction, the mean of 5 seeds.
n=$(tail -n +2 rows.csv | wc -l)
[ "$n" -eq 67 ] || fail "expected 67 rows, got $n"
case $(head -1 rows.csv) in
  id,case,unit,published,predicted,error,fitted,*) ;;
  *) fail "the CSV's first columns are not those of before" ;;
esac
awk -F, 'NR > 1 && !($5 > 0) { print "no prediction: " $1; bad = 1 }
         NR > 1 && $10 != 5 { print "not 5 seeds: " $1; bad = 1 }
         END { exit bad }' rows.csv || fail "a row has no 5-seed mean"

# Each row's set is what the mapping says: fitted if fitted, else
# informed if informed, else untouched; and each set is counted in the
# table.  (The mapping's own columns, read here from the source tree.)
grep -v '^#' "$map" | awk -F, 'NR > 1 && NF > 1 {
    print $1 "," ($6 == "yes" ? "fitted" : $8 == "yes" ? "informed" \
                                          : "untouched") }' \
  | sort > want-use.txt
tail -n +2 rows.csv | awk -F, '{ print $1 "," $9 }' | sort > got-use.txt
cmp -s want-use.txt got-use.txt \
  || { diff want-use.txt got-use.txt >&2; fail "a row is in the wrong set"; }
for set in fitted informed untouched; do
  want=$(grep -c ",$set\$" want-use.txt || true)
  grep -q "^  $set  *$want " table.txt \
    || fail "the table does not count $want $set rows"
done

# The thresholds' state is that of the untouched rows' mean errors.
tail -n +2 rows.csv | awk -F, '$9 == "untouched" {
    e = $6 < 0 ? -$6 : $6; print e }' | sort -g > untouched.txt
nu=$(wc -l < untouched.txt)
if [ "$nu" -gt 0 ]; then
  verdict=$(awk '{ e[NR] = $1 } END {
      m = NR % 2 ? e[(NR + 1) / 2] : (e[NR / 2] + e[NR / 2 + 1]) / 2
      print (m <= 0.15 && e[NR] <= 0.40) ? "met" : "not met" }' untouched.txt)
else
  verdict="not met"
fi
if [ "$verdict" = met ]; then
  [ "$status" -eq 0 ] || { cat all.err >&2
    fail "thresholds met on the untouched rows, but --require all fails"; }
  grep -q '^  median |error| <= 15%: PASS' table.txt \
    || fail "table: median threshold not PASS"
else
  [ "$status" -ne 0 ] || fail "--require all passes, thresholds not met"
  grep -q 'error thresholds not met' all.err \
    || { cat all.err >&2; fail "--require all fails for the shape rules"; }
  [ "$REQUIRE" = shape ] \
    || fail "REQUIRE=$REQUIRE but the thresholds are not met"
fi
# The shape rules: each by name, and together by the exit status.
for rule in "array QD1 random read below a quarter" \
            "array QD2 random read above the single drive" \
            "sequential read peaks by QD4" \
            "sequential write rises QD1 -> QD2 -> QD4"; do
  awk -v rule="$rule" 'index ($0, rule) && index ($0, ": PASS") { found = 1 }
                       END { exit !found }' table.txt || fail "shape rule: $rule"
done
if [ "$REQUIRE" = all ]; then
  [ "$status" -eq 0 ] || { cat all.err >&2; fail "validate --require all"; }
fi

# A row whose interval straddles a limit is flagged, in the CSV and the
# table alike; and only such rows are.  The error's bounds are worked
# from the predicted interval and the published figure, not read from
# error_lo and error_hi: those are rounded to 4 places, and a bound
# within 0.00005 of a limit would round onto it.
awk -F, 'NR > 1 && $11 != "" {
    lo = $11 / $4 - 1; hi = $12 / $4 - 1; want = ""
    if ((lo < 0.15 && 0.15 < hi) || (lo < -0.15 && -0.15 < hi)) want = "15%"
    if ((lo < 0.40 && 0.40 < hi) || (lo < -0.40 && -0.40 < hi))
      want = want (want == "" ? "" : " ") "40%"
    if ($15 != want) { print $1 ": straddles \"" $15 "\", want \"" want "\""
                       bad = 1 } }
  END { exit bad }' rows.csv || fail "straddle flags"
tail -n +2 rows.csv | awk -F, '$15 != "" { print $1 " " $15 }' > flagged.txt
while read -r id limits; do
  awk -v id="$id" -v l="  $limits" '$1 == id \
      && substr ($0, length ($0) - length (l) + 1) == l { found = 1 }
    END { exit !found }' table.txt || fail "table: $id is not flagged $limits"
done < flagged.txt

# The mean over seeds: five one-seed runs against the 5-seed run, on a
# case that is quick and has rows that vary with the seed (the X25-M's
# garbage collection); the interval is t(0.975, 4) = 2.776 times s/sqrt(5).
# And --seed S --seeds N is the seeds S to S + N - 1.
case=x25m-g1-ich10r
for s in 1 2 3 4 5; do
  "$RAIDSIM" validate --require none --case $case --seeds 1 --seed $s \
    --format csv | tail -n +2 | awk -F, -v s=$s '{ print $1 "," s "," $5 }'
done > seeds.csv
"$RAIDSIM" validate --require none --case $case --format csv \
  | tail -n +2 > five.csv
"$RAIDSIM" validate --require none --case $case --seed 3 --seeds 2 \
  --format csv | tail -n +2 > three-four.csv
awk -F, '
  FILENAME == "seeds.csv" { v[$1, $2] = $3; next }
  FILENAME == "five.csv" {
    m = 0; for (i = 1; i <= 5; i++) m += v[$1, i]; m /= 5
    ss = 0; for (i = 1; i <= 5; i++) ss += (v[$1, i] - m) ^ 2
    h = 2.776445 * sqrt (ss / 4) / sqrt (5)
    if (h > 1e-3 * m) varied++
    if ((m - $5) ^ 2 > (1e-5 * m) ^ 2) {
      print $1 ": mean " $5 ", want " m; bad = 1 }
    if (ss > 0 && (((m - h) - $11) ^ 2 > (1e-5 * m) ^ 2 \
                   || ((m + h) - $12) ^ 2 > (1e-5 * m) ^ 2)) {
      print $1 ": interval " $11 " to " $12 ", want " m - h " to " m + h
      bad = 1 }
    next }
  FILENAME == "three-four.csv" {
    m = (v[$1, 3] + v[$1, 4]) / 2
    if ((m - $5) ^ 2 > (1e-5 * m) ^ 2) {
      print $1 ": --seed 3 --seeds 2 gives " $5 ", want " m; bad = 1 } }
  END { if (!varied) { print "no row varies with the seed"; bad = 1 }
        exit bad }' seeds.csv five.csv three-four.csv \
  || fail "the mean or interval over seeds"

# --case keeps one case, sums it once and has no by-case lines; JSON
# parses.
[ "$(wc -l < five.csv)" -eq 9 ] || fail "--case"
"$RAIDSIM" validate --require none --case $case --seeds 1 > one.txt
grep -q '^untouched rows by case' one.txt && fail "--case: by-case lines"
grep -q '^one seed (1): no interval' one.txt || fail "--seeds 1: header"
"$RAIDSIM" validate --require none --case $case --format json > out.json
if command -v python3 > /dev/null; then
  python3 -c 'import json,sys; d = json.load(open("out.json"))
assert d["seeds"] == {"first": 1, "n": 5}, d["seeds"]
assert set(d["sets"]) == {"fitted", "informed", "untouched"}
assert d["thresholds"]["rows"] == "untouched"' \
    || fail "JSON does not parse or lacks seeds, sets or thresholds"
fi

# Bad input: one line naming the file (and line).
if "$RAIDSIM" validate --csv /nonexistent.csv 2> err.txt; then
  fail "--csv /nonexistent.csv succeeded"
fi
grep -q '/nonexistent.csv' err.txt || fail "error does not name the file"
for bad in 0 65 x; do
  if "$RAIDSIM" validate --seeds $bad 2> err.txt; then
    fail "--seeds $bad succeeded"
  fi
  [ "$(wc -l < err.txt)" -eq 1 ] && grep -q -- "--seeds: '$bad'" err.txt \
    || { cat err.txt >&2; fail "--seeds $bad: not one line naming it"; }
done
if "$RAIDSIM" validate --seed 18446744073709551615 --seeds 2 2> err.txt; then
  fail "seeds past 2^64 - 1 accepted"
fi
# A malformed row of a mapping: a bad yes/no, an informed row with no
# why, a row mapped twice, a missing column, an array not built in.
row=hdt-g1-raid0-r-used
line=$(grep -n "^$row," "$map" | cut -d: -f1)
head5=$(grep "^$row," "$map" | cut -d, -f1-5)
awk -v n="$line" -v r="$head5,no,,maybe," 'NR == n { $0 = r } 1' "$map" \
  > bad1.csv
awk -v n="$line" -v r="$head5,no,,yes," 'NR == n { $0 = r } 1' "$map" \
  > bad2.csv
{ cat "$map"; echo "$head5,no,,no,"; } > bad3.csv
sed 's/^id,\(.*\),why$/id,\1/' "$map" > bad4.csv
sed "${line}s#,arrays/[^,]*,#,arrays/nonexistent.ini,#" "$map" > bad5.csv
last=$(wc -l < bad3.csv)
for b in "bad1.csv:$line: informed: 'maybe' is not yes or no" \
         "bad2.csv:$line: why: empty" \
         "bad3.csv:$last: id: '$row' is mapped already, on line $line" \
         "bad4.csv:.*: no 'why' column" \
         "bad5.csv:$line: array: configs/arrays/nonexistent.ini: not among"; do
  f=${b%%:*}
  if "$RAIDSIM" validate --map "$f" --seeds 1 2> err.txt > /dev/null; then
    fail "--map $f succeeded"
  fi
  [ "$(wc -l < err.txt)" -eq 1 ] && grep -q "$b" err.txt \
    || { cat err.txt >&2; fail "--map $f: want one line: $b"; }
done

sed -n '/^|error| by set/,$p' table.txt
echo "sim-validate: rows, seeds, sets, formats, bad input and shape rules OK" \
     "(REQUIRE=$REQUIRE)"
