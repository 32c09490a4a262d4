#!/bin/bash
# raidsim tests: raidsim run --measured FILE prints FILE's figures beside
# the run's, with measured / predicted.
#
# The run: a RAID 0 of two `fixed` 100 us drives behind a controller
# that adds nothing, 4K random reads at QD1, so raidsim predicts 10,000
# IOPS and a mean of 100 us (first principles).  The measured files are
# written here by hand: a fio JSON claiming 5,000 IOPS and a mean of
# 200 us (ratios 0.500 and 2.000), and a raid plugin stats= file
# claiming 100 reads with a mean of 300 us (3.000) and 7 late requests.
# A job the run does not have, and a file of neither kind, are refused
# with one line naming the file.
#
# Run: meson test -C build measured
#  or: RAIDSIM=build/raidsim/raidsim tests/unit/test-measured.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }

printf '[device]\nmodel = fixed\ncapacity = 1G\nlatency = 100us\n' > "$tmp/dev.ini"
printf '[controller]\nmodel = generic\n' > "$tmp/ctl.ini"
printf '[array]\nlevel = 0\nmembers = 2\nchunk = 64K\ndevice = dev.ini\ncontroller = ctl.ini\n' \
  > "$tmp/array.ini"
printf '[global]\nbs=4k\nrw=randread\nsize=64m\n[rr]\niodepth=1\nnumber_ios=100\n' \
  > "$tmp/job.fio"
cat > "$tmp/fio.json" <<'EOF2'
fio: connected to NBD server
{ "fio version": "fio-3.33",
  "jobs": [ { "jobname": "rr",
              "read": { "total_ios": 100, "iops": 5000.0,
                        "bw_bytes": 20480000,
                        "clat_ns": { "mean": 200000.0,
                                     "percentile": { "50.000000": 190000,
                                                     "99.000000": 400000 } } },
              "write": { "total_ios": 0, "iops": 0, "bw_bytes": 0,
                         "clat_ns": { "mean": 0 } } } ] }
EOF2
cat > "$tmp/stats.json" <<'EOF2'
{ "level": 0, "chunk": 65536,
  "array": { "ops": { "read": 100, "write": 0 },
             "lat_ns": { "read": { "count": 100, "mean": 300000.0,
                                   "p50": 290000, "p99": 500000 },
                         "write": { "count": 0, "mean": 0, "p50": 0,
                                    "p99": 0 } } },
  "timing": { "model": "array.ini", "requests": 100,
              "late": { "count": 7 } } }
EOF2

run () { "$RAIDSIM" run "$tmp/array.ini" --workload "$tmp/job.fio" "$@"; }

# want FILE REGEX: FILE has a line matching REGEX (extended).
want ()
{
  grep -Eq "$2" "$1" || { cat "$1"; fail "no line matching: $2"; }
}

run --measured "$tmp/fio.json" > "$tmp/out1" || fail "--measured fio.json failed"
want "$tmp/out1" '^rr +read +IOPS +5000\.0 +10000\.0 +0\.500$'
want "$tmp/out1" '^rr +read +mean us +200\.0 +100\.0 +2\.000$'
want "$tmp/out1" '^rr +read +MB/s +20\.5 +41\.0 +0\.500$'

run --measured "$tmp/stats.json" > "$tmp/out2" || fail "--measured stats.json failed"
want "$tmp/out2" '^\(all jobs\) +read +requests +100\.0 +100\.0 +1\.000$'
want "$tmp/out2" '^\(all jobs\) +read +mean us +300\.0 +100\.0 +3\.000$'
want "$tmp/out2" '100 requests timed, 7 late'

# Refusals: one line naming the file, non-zero exit.
sed 's/"rr"/"other"/' "$tmp/fio.json" > "$tmp/other.json"
printf '{ "something": 1 }\n' > "$tmp/neither.json"
for f in other neither; do
  if run --measured "$tmp/$f.json" > /dev/null 2> "$tmp/err"; then
    fail "$f.json accepted"
  elif [ "$(wc -l < "$tmp/err")" -ne 1 ] || ! grep -q "$f.json" "$tmp/err"; then
    cat "$tmp/err"
    fail "$f.json: not one line naming the file"
  fi
done
if run --format json --measured "$tmp/fio.json" > /dev/null 2>&1; then
  fail "--measured with --format json accepted"
fi

if [ "$failures" -gt 0 ]; then
  echo "test-measured.sh: $failures failure(s)"
  exit 1
fi
echo "test-measured.sh: PASS"
