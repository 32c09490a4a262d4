#!/bin/bash
# Write the simulator's observable outputs into a directory, one file per
# command, so that a refactoring can be shown to change no behaviour:
#
#   scripts/snapshot-outputs.sh build/raidsim/raidsim /tmp/before
#   ... change and rebuild ...
#   scripts/snapshot-outputs.sh build/raidsim/raidsim /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# It covers what issue 11 names: `raidsim validate --format csv`, the
# demo, `raidsim run` of every shipped array against four-corners and
# cdm3, the sweeps the test suite runs, and `raidsim map`.  Each file
# ends with the command's exit status, so a changed refusal shows too.
set -uo pipefail
cd "$(dirname "$0")/.."

raidsim=$1 out=$2
[ -x "$raidsim" ] || { echo "snapshot-outputs.sh: $raidsim is not executable" >&2; exit 1; }
mkdir -p "$out"

# snap NAME ARGS...: run raidsim ARGS, keep stdout, stderr and the status.
snap ()
{
  local name=$1
  shift
  "$raidsim" "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo "exit $?" >> "$out/$name.out"
}

snap validate validate --format csv
snap demo
for a in configs/arrays/*.ini; do
  n=$(basename "$a" .ini)
  snap "run-$n-four-corners" run "$a" --workload four-corners
  snap "run-$n-cdm3" run "$a" --workload cdm3
done

# The sweeps of tests/ (test-sim-plot.sh).
fixed=(configs/arrays/raid0-2x-fixed.ini configs/arrays/raid0-2x-fixed-vroc.ini)
job=configs/workloads/randread-4k-qd1.fio
snap sweep-qd-csv sweep "${fixed[@]}" --workload "$job" --vary qd=1,2,4,8 --format csv
snap sweep-qd-json sweep "${fixed[@]}" --workload "$job" --vary qd=1,2,4,8 --format json
snap sweep-chunk-csv sweep "${fixed[0]}" --workload "$job" --vary chunk=4K,16K,64K --format csv
snap sweep-members sweep configs/arrays/raid0-4x-sata-ssd.ini --workload "$job" --vary members=2,4,8
snap sweep-level sweep configs/arrays/raid0-2x-fixed.ini --workload configs/workloads/randrw-4k-qd8.fio --vary level=0,1,10

# raidsim map: every level, zones, copies, runs, and refusals.
snap map-r0 map level=0 chunk=128K member-size=256M member-size=256M 1M+300K 0+2M
snap map-r0-zones map level=0 chunk=4K member-size=16K member-size=8K member-size=12K 24K+12K 17000+100 0+36K
snap map-r1 map level=1 member-size=1M member-size=2M member-size=1M 4K+8K
snap map-r10 map level=10 chunk=4K member-size=12K member-size=12K member-size=12K 4K+8K 0+36K
snap map-r10-c3 map level=10 chunk=64K copies=3 member-size=1M member-size=1M member-size=1M member-size=1M 0+1M
snap map-runs map --runs level=0 chunk=128K member-size=256M member-size=256M 0+1M
snap map-runs-first map --runs=first level=10 chunk=64K member-size=1G member-size=1G member-size=1G 0+256K
snap map-q map -q level=10 chunk=64K copies=2 member-size=1G member-size=1G member-size=1G 0+256K
snap map-bad-level map level=5 member-size=1M 0+4K
snap map-bad-chunk map level=0 chunk=3K member-size=1M member-size=1M 0+4K
snap map-help map --help
snap config-help config --help
snap help help
exit 0
