#!/bin/bash
# raidsim tests: sweeps over several keys at once (issue 15, item 5).
# Several --vary make a grid, every combination, the first key changing
# slowest; the same key twice is refused; CSV, JSON and the table get a
# column per varied key.  The figures are worked by hand on an array
# built for it: fixed-latency drives (100 us, one request at a time)
# behind a controller with no overhead, 4 KiB chunks, sequential 4 KiB
# reads.  Such reads visit the members in turn, so at queue depth QD
# min(QD, members) drives are always busy: min(QD, members) x 10,000
# IOPS exactly.
#
# Run: meson test -C build sim-sweep
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-sweep.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-sweep.sh: $RAIDSIM is not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

# expect_error WANT ARGS...: raidsim ARGS fails with status 1 and prints
# exactly the one line WANT on stderr.
expect_error ()
{
  local want=$1 status=0
  shift
  "$RAIDSIM" "$@" > /dev/null 2> "$tmp/err" || status=$?
  if [ "$status" = 1 ] && [ "$(cat "$tmp/err")" = "$want" ]; then
    ok "$*: $want"
  else
    fail "$*: exit $status, got: $(cat "$tmp/err")"
  fi
}

cat > "$tmp/d.ini" <<'EOI'
[device]
model = fixed
capacity = 1G
latency = 100us
parallelism = 1
EOI
printf '[controller]\nmodel = generic\n' > "$tmp/c.ini"
printf '[array]\nlevel = 0\nmembers = 2\nchunk = 4K\ndevice = d.ini\ncontroller = c.ini\n' \
  > "$tmp/a.ini"
printf '[s]\nrw=read\nbs=4k\nnumber_ios=4000\n' > "$tmp/s.fio"
printf '[r]\nrw=randread\nbs=4k\nnumber_ios=4000\n' > "$tmp/r.fio"

# ---- a grid ----
# Mutants killed: a second --vary replacing the first (2 rows, not 4);
# the last key changing slowest (rows 2,1 and 4,1 swapped); the qd of a
# grid not reaching the jobs (every row 10000).
"$RAIDSIM" sweep "$tmp/a.ini" --workload "$tmp/s.fio" --vary members=2,4 \
  --vary qd=1,8 --format csv > "$tmp/grid.csv"
got=$(cut -d, -f1-3,7,10 "$tmp/grid.csv")
want='array,members,qd,iodepth,read_iops
a,2,1,1,10000.000000
a,2,8,8,20000.000000
a,4,1,1,10000.000000
a,4,8,8,40000.000000'
if [ "$got" = "$want" ]; then
  ok "2x2 grid: 4 rows, members slowest, min(QD, members) x 10,000 IOPS"
else
  fail "2x2 grid:"$'\n'"$got"$'\n'"wanted:"$'\n'"$want"
fi

# The table has the same rows, a column per key.
"$RAIDSIM" sweep "$tmp/a.ini" --workload "$tmp/s.fio" --vary members=2,4 \
  --vary qd=1,8 > "$tmp/grid.txt"
if [ "$(awk 'NR == 1 { print $2, $3 } NR > 1 { print $2, $3, $8 }' "$tmp/grid.txt")" = \
     "members qd
2 1 10000.0
2 8 20000.0
4 1 10000.0
4 8 40000.0" ]; then
  ok "table: a column per key"
else
  fail "table:"$'\n'"$(cat "$tmp/grid.txt")"
fi

# JSON: the keys in order, each key's values, and a member per key in
# every point.
"$RAIDSIM" sweep "$tmp/a.ini" --workload "$tmp/s.fio" --vary members=2,4 \
  --vary level=0,1 --format json > "$tmp/grid.json"
got=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(d["vary"], d["values"])
for p in d["points"]:
    print(p["members"], p["level"])' "$tmp/grid.json" 2>&1)
want="['members', 'level'] {'members': ['2', '4'], 'level': ['0', '1']}
2 0
2 1
4 0
4 1"
if [ "$got" = "$want" ]; then
  ok "json: keys, values and a member per key"
else
  fail "json:"$'\n'"$got"
fi

# Several arrays: each array's whole grid in turn.
n=$("$RAIDSIM" sweep "$tmp/a.ini" "$tmp/a.ini" --workload "$tmp/s.fio" \
      --vary members=2,4 --vary qd=1,2,4 --format csv | tail -n +2 | wc -l)
[ "$n" = 12 ] && ok "2 arrays x 2 x 3: 12 rows" || fail "2 arrays x 2 x 3: $n rows"

# The same key twice is refused, not silently replaced.
expect_error "raidsim sweep: --vary: qd: given twice; put all its values in one list (qd=A,B,C)" \
  sweep "$tmp/a.ini" --workload "$tmp/s.fio" --vary qd=1,2 --vary qd=4

# A run the grid makes impossible names every key's value.
expect_error "raidsim sweep: $tmp/a.ini with level=10 members=1: copies: 2 copies need at least 2 members, got 1" \
  sweep "$tmp/a.ini" --workload "$tmp/s.fio" --vary level=10 --vary members=1 --workers 1

# ---- keys that mean nothing for the level ----
# An array file that sets one is refused at the key's line, by
# `raidsim config` and by every command that loads it.  Mutants killed:
# the loader's check removed (exit 0); copies judged meaningful on
# RAID 0; the same test's RAID 10 file refused (a check too wide).
# array_file NAME LEVEL KEY=VALUE: an array of two (four for RAID 10)
# of the test's drives, with the key on line 4.
array_file ()
{
  local members=2
  [ "$2" = 10 ] && members=4
  printf '[array]\nlevel = %s\nmembers = %s\n%b\ndevice = d.ini\ncontroller = c.ini\n' \
    "$2" "$members" "$3" > "$tmp/$1.ini"
}
array_file r1-chunk 1 "chunk = 64K"
array_file r0-copies 0 "copies = 2"
array_file r1-copies 1 "copies = 2"
array_file r0-policy 0 "read_policy = round-robin"
array_file single-chunk single "chunk = 64K"
array_file r10-all 10 "chunk = 64K\ncopies = 2\nread-policy = round-robin"
expect_error "raidsim config: $tmp/r1-chunk.ini:4: chunk: means nothing for level 1 (a mirror has no stripes; every member holds the whole array); remove it" \
  config "$tmp/r1-chunk.ini"
expect_error "raidsim config: $tmp/r0-copies.ini:4: copies: means nothing for level 0 (RAID 0 keeps one copy); remove it" \
  config "$tmp/r0-copies.ini"
expect_error "raidsim config: $tmp/r1-copies.ini:4: copies: means nothing for level 1 (a mirror has one copy per member); remove it" \
  config "$tmp/r1-copies.ini"
expect_error "raidsim config: $tmp/r0-policy.ini:4: read-policy: means nothing for level 0 (there is one copy to read); remove it" \
  config "$tmp/r0-policy.ini"
expect_error "raidsim config: $tmp/single-chunk.ini:4: chunk: means nothing for level single (one drive has no stripes); remove it" \
  config "$tmp/single-chunk.ini"
expect_error "raidsim run: $tmp/r1-chunk.ini:4: chunk: means nothing for level 1 (a mirror has no stripes; every member holds the whole array); remove it" \
  run "$tmp/r1-chunk.ini" --workload "$tmp/s.fio"
if "$RAIDSIM" config "$tmp/r10-all.ini" > /dev/null 2> "$tmp/err"; then
  ok "RAID 10 takes chunk, copies and read-policy"
else
  fail "RAID 10 refused: $(cat "$tmp/err")"
fi
# Every shipped array still loads.
for a in "$SRCDIR"/configs/arrays/*.ini; do
  "$RAIDSIM" config "$a" > /dev/null 2> "$tmp/err" ||
    fail "$(basename "$a"): $(cat "$tmp/err")"
done

# A sweep of a key that means nothing for the array's level would print
# identical rows: refused before any run.  With the level varied too,
# the key need only mean something at one of the levels.  Mutant
# killed: check_meaningful () skipped (the chunk sweep of RAID 1 runs).
array_file r1 1 ""
expect_error "raidsim sweep: $tmp/r1.ini: --vary chunk: means nothing for level 1 (a mirror has no stripes; every member holds the whole array)" \
  sweep "$tmp/r1.ini" --workload "$tmp/r.fio" --vary chunk=16K,1M
expect_error "raidsim sweep: $tmp/r1.ini: --vary chunk: means nothing for any of the levels varied" \
  sweep "$tmp/r1.ini" --workload "$tmp/r.fio" --vary chunk=16K,1M --vary level=1,single
if "$RAIDSIM" sweep "$tmp/r1.ini" --workload "$tmp/r.fio" --vary level=0,1 \
     --vary chunk=16K,1M --format csv > /dev/null 2> "$tmp/err"; then
  ok "chunk against level=0,1 runs"
else
  fail "chunk against level=0,1: $(cat "$tmp/err")"
fi

# ---- --qd-per-member ----
# Drives that serve 32 requests at once, 100 us each: with no more than
# 32 in flight nothing waits, so QD requests give QD x 10,000 IOPS.  One
# such member at QD 4 gives 40,000; RAID 0 of N members at 4 per member
# (QD 4N) gives N x 40,000 for random reads, exactly: 80, 160, 320
# thousand for 2, 4, 8.  Without the option the total QD stays 4 and the
# sweep sits flat at 40,000, the issue's "random reads stop scaling".
# Mutants killed: the depth not multiplied (flat 40,000); multiplied by
# the file's member count instead of the run's (flat 80,000).
sed 's/parallelism = 1/parallelism = 32/' "$tmp/d.ini" > "$tmp/d32.ini"
sed 's/d\.ini/d32.ini/' "$tmp/a.ini" > "$tmp/a32.ini"
printf '[r]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=4000\n' > "$tmp/r4.fio"
got=$("$RAIDSIM" sweep "$tmp/a32.ini" --workload "$tmp/r4.fio" \
        --vary members=2,4,8 --qd-per-member --format csv | cut -d, -f2,6,9)
want='members,iodepth,read_iops
2,8,80000.000000
4,16,160000.000000
8,32,320000.000000'
[ "$got" = "$want" ] && ok "--qd-per-member: N x 40,000 IOPS" ||
  fail "--qd-per-member:"$'\n'"$got"
got=$("$RAIDSIM" sweep "$tmp/a32.ini" --workload "$tmp/r4.fio" \
        --vary members=2,4,8 --format csv | cut -d, -f2,6,9)
want='members,iodepth,read_iops
2,4,40000.000000
4,4,40000.000000
8,4,40000.000000'
[ "$got" = "$want" ] && ok "without it: the total QD 4, flat 40,000 IOPS" ||
  fail "without --qd-per-member:"$'\n'"$got"
# With qd varied too, qd= is the depth per member.
got=$("$RAIDSIM" sweep "$tmp/a32.ini" --workload "$tmp/r4.fio" \
        --vary members=2,4 --vary qd=1,2 --qd-per-member --format csv |
      cut -d, -f2,3,7)
want='members,qd,iodepth
2,1,2
2,2,4
4,1,4
4,2,8'
[ "$got" = "$want" ] && ok "--qd-per-member with qd=: per member" ||
  fail "--qd-per-member with qd=:"$'\n'"$got"

# ---- job names follow the varied queue depth ----
# cdm3's "4k-qd32-read" run at QD 2 is reported as "4k-qd2-read".
# Mutant killed: names not renamed.
printf '[r]\nrw=randread\nbs=4k\niodepth=32\nnumber_ios=400\n[r-4k-qd32]\nrw=randread\nbs=4k\niodepth=32\nnumber_ios=400\n' \
  > "$tmp/named.fio"
got=$("$RAIDSIM" sweep "$tmp/a32.ini" --workload "$tmp/named.fio" --vary qd=2 \
        --format csv | cut -d, -f2,3,6)
want='qd,job,iodepth
2,r,2
2,r-4k-qd2,2'
[ "$got" = "$want" ] && ok "job names follow qd=" || fail "job names:"$'\n'"$got"
got=$("$RAIDSIM" sweep "$tmp/a32.ini" --workload "$tmp/named.fio" \
        --vary members=4 --qd-per-member --format csv | cut -d, -f3,6 | tail -1)
[ "$got" = "r-4k-qd128,128" ] && ok "job names follow --qd-per-member" ||
  fail "job name with --qd-per-member: $got"

# ---- plots of grids (the script only: no gnuplot needed) ----
# The title names the arrays and the keys, not the CSV's path; levels
# are points with a tic per level, no line joining them; a grid's second
# key splits the panels, or with --layout lines the lines.  (More in
# test-sim-plot.sh.)  Mutants killed: title = the path; levels drawn as
# linespoints; the second key left out of the panels (one panel);
# --layout lines drawing panels.
"$RAIDSIM" sweep "$tmp/a.ini" "$tmp/a32.ini" --workload "$tmp/r.fio" \
  --vary level=0,1 --format csv > "$tmp/lv.csv"
"$RAIDSIM" plot "$tmp/lv.csv" -o "$tmp/lv.png" --script > "$tmp/lv.gp"
grep -q '^set multiplot layout 1,1 title "a, a32: level"$' "$tmp/lv.gp" &&
  ok "plot title: the arrays' names" || fail "plot title: $(grep multiplot "$tmp/lv.gp")"
grep -q '^set xtics ("RAID 0" 0, "RAID 1" 1)$' "$tmp/lv.gp" &&
  grep -q '^plot .*using 1:2 with points' "$tmp/lv.gp" &&
  ! grep -q '^plot .*lines' "$tmp/lv.gp" &&
  ok "plot: levels are categories, not a line" ||
  fail "plot of levels:"$'\n'"$(grep -E '^(plot|set xtics)' "$tmp/lv.gp")"
"$RAIDSIM" plot "$tmp/grid.csv" -o "$tmp/g.png" --script > "$tmp/g.gp"
grep -q '^set multiplot layout 1,2 ' "$tmp/g.gp" &&
  grep -q '^set title "sequential read 4K, QD 1"$' "$tmp/g.gp" &&
  grep -q '^set title "sequential read 4K, QD 8"$' "$tmp/g.gp" &&
  grep -q '^set xlabel "members (drives)"' "$tmp/g.gp" &&
  ok "plot of a grid: members on x, a panel per qd" ||
  fail "plot of a grid:"$'\n'"$(grep -E '^(plot|set xlabel|set title|set multi)' "$tmp/g.gp")"
"$RAIDSIM" plot "$tmp/grid.csv" -o "$tmp/g.png" --layout lines --script \
  > "$tmp/gl.gp"
grep -q '^set multiplot layout 1,1 ' "$tmp/gl.gp" &&
  grep -q 'title "a QD 1", .* title "a QD 8"' "$tmp/gl.gp" &&
  ok "plot of a grid, --layout lines: a line per qd" ||
  fail "plot of a grid, lines:"$'\n'"$(grep -E '^(plot|set multi)' "$tmp/gl.gp")"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
