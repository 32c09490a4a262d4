#!/bin/bash
# raidsim tests: --seeds on run and sweep.  Each figure is the mean of
# the runs with each seed, with a 95% interval from Student's t (the
# code validate uses, raidsim/report/stats.c).  Checked here against
# the single-seed runs themselves and against the t quantile from the
# tables (t(0.975, 2) = 4.302653), computed independently in Python:
#   - the values and mean of a figure are those of `run --seed S`;
#   - the half-width is t(0.975, n - 1) x s / sqrt(n), s with divisor
#     n - 1;
#   - --seeds N counts from --seed; a list is taken as given;
#   - the interval shrinks from 4 seeds to 16 (fixed seeds, so the
#     comparison is deterministic, not a matter of chance);
#   - sweep --seeds gives each point the mean and interval run --seeds
#     gives;
#   - bad lists are one-line errors.
#
# Run: meson test -C build sim-seeds
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-seeds.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-seeds.sh: $RAIDSIM is not built"; exit 1; }
command -v python3 > /dev/null || { echo "test-sim-seeds.sh: no python3"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

array=$SRCDIR/configs/arrays/raid0-2x-fixed.ini
job=$SRCDIR/configs/workloads/randread-4k-qd8.fio

for s in 1 2 3; do
  "$RAIDSIM" run "$array" --workload "$job" --seed $s --format json \
    > "$tmp/seed$s.json"
done
"$RAIDSIM" run "$array" --workload "$job" --seeds 1,2,3 --format json \
  > "$tmp/list.json"
"$RAIDSIM" run "$array" --workload "$job" --seeds 3 --format json \
  > "$tmp/count.json"
"$RAIDSIM" run "$array" --workload "$job" --seed 2 --seeds 2 --format json \
  > "$tmp/from2.json"

# 1. The figures against the single runs, and the interval by hand.
if python3 - "$tmp" <<'PY'
import json, math, statistics, sys
d = sys.argv[1]
runs = [json.load(open(f"{d}/seed{s}.json")) for s in (1, 2, 3)]
comb = json.load(open(f"{d}/list.json"))
t2 = 4.302652729911275            # t(0.975, 2), from the tables
def fig(what, direction, name):
    for f in comb["figures"]:
        if f["what"] == what and f.get("direction") == direction \
           and f["figure"] == name:
            return f
    raise SystemExit(f"no figure {what} {direction} {name}")
bad = 0
for name, get in (("iops", lambda r: r["jobs"][0]["read"]["iops"]),
                  ("lat_mean_ns",
                   lambda r: r["jobs"][0]["read"]["lat_ns"]["mean"])):
    x = [get(r) for r in runs]
    f = fig("randread-4k-qd8", "read", name)
    mean = sum(x) / 3
    half = t2 * statistics.stdev(x) / math.sqrt(3)
    for got, want, what in ((f["values"], x, "values"),
                            (f["mean"], mean, "mean"),
                            (f["ci95"], half, "ci95")):
        g = got if isinstance(got, list) else [got]
        w = want if isinstance(want, list) else [want]
        if any(abs(a - b) > 1e-6 * max(1, abs(b)) for a, b in zip(g, w)):
            print(f"{name} {what}: got {got}, want {want}")
            bad += 1
u = [r["disk_util"][0]["util"] for r in runs]
f = fig("member0", None, "util")
if abs(f["mean"] - sum(u) / 3) > 1e-6:
    print(f"member0 util: got {f['mean']}, want {sum(u) / 3}")
    bad += 1
if comb["seeds"] != [1, 2, 3]:
    print(f"seeds {comb['seeds']}")
    bad += 1
sys.exit(1 if bad else 0)
PY
then ok "run --seeds 1,2,3: values, means and t intervals of the single runs"
else fail "run --seeds 1,2,3 against the single runs"; fi

# 2. A count starts at --seed.
if cmp -s "$tmp/list.json" "$tmp/count.json"; then
  ok "--seeds 3 is seeds 1,2,3"
else fail "--seeds 3 differs from --seeds 1,2,3"; fi
got=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["seeds"])' \
  "$tmp/from2.json")
if [ "$got" = "[2, 3]" ]; then
  ok "--seed 2 --seeds 2 is seeds 2,3"
else fail "--seed 2 --seeds 2: seeds $got"; fi

# 3. More seeds, a narrower interval.
"$RAIDSIM" run "$array" --workload "$job" --seeds 4 --format csv > "$tmp/4.csv"
"$RAIDSIM" run "$array" --workload "$job" --seeds 16 --format csv > "$tmp/16.csv"
h4=$(awk -F, '$4 == "iops" { print $8 }' "$tmp/4.csv")
h16=$(awk -F, '$4 == "iops" { print $8 }' "$tmp/16.csv")
if awk -v a="$h4" -v b="$h16" 'BEGIN { exit !(b > 0 && b < a) }'; then
  ok "IOPS interval: +-$h4 over 4 seeds, +-$h16 over 16"
else fail "IOPS interval did not shrink: +-$h4 over 4 seeds, +-$h16 over 16"; fi

# 4. sweep --seeds: the point's mean and half-width are run's.
"$RAIDSIM" sweep "$array" --workload "$job" --seeds 1,2,3 --format csv \
  > "$tmp/sweep.csv"
if python3 - "$tmp" <<'PY'
import csv, json, sys
d = sys.argv[1]
row = next(csv.DictReader(open(f"{d}/sweep.csv")))
comb = json.load(open(f"{d}/list.json"))
f = next(f for f in comb["figures"] if f["figure"] == "iops")
ok = abs(float(row["read_iops"]) - f["mean"]) < 1e-4 and \
     abs(float(row["read_iops_ci95"]) - f["ci95"]) < 1e-4 and \
     row["seeds"] == "3"
print(row["read_iops"], row["read_iops_ci95"], f["mean"], f["ci95"])
sys.exit(0 if ok else 1)
PY
then ok "sweep --seeds 1,2,3: the mean and interval of run --seeds"
else fail "sweep --seeds differs from run --seeds"; fi

# 5. Bad lists.
expect_error ()
{
  local want=$1 status=0
  shift
  "$RAIDSIM" "$@" > /dev/null 2> "$tmp/err" || status=$?
  if [ "$status" = 1 ] && [ "$(cat "$tmp/err")" = "$want" ]; then
    ok "error: $want"
  else
    fail "$*: exit $status, got: $(cat "$tmp/err")"
  fi
}
expect_error "raidsim run: --seeds: seed 1 is in the list twice" \
  run "$array" --workload "$job" --seeds 1,2,1
expect_error "raidsim sweep: --seeds: '0' is not a count of seeds from 1 to 64" \
  sweep "$array" --workload "$job" --seeds 0
expect_error "raidsim run: --seeds: 'x' is not a whole number" \
  run "$array" --workload "$job" --seeds 1,x
expect_error "raidsim run: --seeds: the list ends with a comma" \
  run "$array" --workload "$job" --seeds 1,2,
expect_error "raidsim run: --lat-log: one run's log; give --seed, not --seeds" \
  run "$array" --workload "$job" --seeds 2 --lat-log "$tmp/x"

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
