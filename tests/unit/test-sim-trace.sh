#!/bin/bash
# raidsim tests: trace replay (read_iolog, raidsim run --trace) and fio's
# latency log (--lat-log), against figures worked out by hand.
#
# The array is one fixed drive that serves one request at a time in
# exactly 1 ms, behind a controller that takes no time
# (tests/data/traces/single-fixed-1ms.ini).  The trace five.* holds, from
# its first I/O: a read at 0 ms, a write at 1 ms, a read at 2 ms, a sync,
# then two reads at 10 ms with a trim between them.  So, replayed timed
# with room in flight, the I/Os complete at 1, 2, 3, 11 and 12 ms, the
# last after waiting 1 ms for the drive: latencies 1, 1, 1, 1 and 2 ms.
# The same trace as a fio iolog v3, blktrace's binary records and
# blkparse's text must give the same log line for line.
#
# Run: meson test -C build sim-trace
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-trace.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-trace.sh: $RAIDSIM is not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

data=$SRCDIR/tests/data/traces
array=$data/single-fixed-1ms.ini
ms=1000000

# check_log NAME FILE EXPECTED: the latency log FILE is EXPECTED exactly.
check_log ()
{
  if [ "$(cat "$2")" = "$3" ]; then
    ok "$1"
  else
    fail "$1: got"; cat "$2"; echo "want"; echo "$3"
  fi
}

# fio 3.33's lat log with log_offset: ms, ns, ddir, bytes, offset, prio.
timed="1, $ms, 0, 4096, 0, 0
2, $ms, 1, 4096, 8192, 0
3, $ms, 0, 65536, 1048576, 0
11, $ms, 0, 4096, 4096, 0
12, $(( 2 * ms )), 0, 4096, 12288, 0"

# 1. Timed replay, each format: the same completions.
for f in five.iolog3 five.blktrace.0 five.blkparse; do
  "$RAIDSIM" run "$array" --trace "$data/$f" --lat-log "$tmp/$f" \
    > "$tmp/$f.out" 2> "$tmp/$f.err"
  check_log "timed replay of $f" "$tmp/${f}_lat.1.log" "$timed"
  grep -q "12.000 ms counted" "$tmp/$f.out" || fail "$f: not 12 ms counted"
  grep -q "skipped 1 syncs and 1 trims" "$tmp/$f.err" ||
    fail "$f: the sync and the trim not reported skipped"
done

# 2. As fast as depth 1 allows: back to back, n x the service time,
# 5 ms for 5 I/Os, each 1 ms.
"$RAIDSIM" run "$array" --trace "$data/five.iolog3" --replay fast \
  --lat-log "$tmp/fast" > "$tmp/fast.out" 2> /dev/null
check_log "fast replay at depth 1" "$tmp/fast_lat.1.log" "1, $ms, 0, 4096, 0, 0
2, $ms, 1, 4096, 8192, 0
3, $ms, 0, 65536, 1048576, 0
4, $ms, 0, 4096, 4096, 0
5, $ms, 0, 4096, 12288, 0"
grep -q "5.000 ms counted" "$tmp/fast.out" || fail "fast: not 5 ms counted"
# An iolog v2 without waits has no times: fast by default.
"$RAIDSIM" run "$array" --trace "$data/five.iolog2" --lat-log "$tmp/v2" \
  > /dev/null 2>&1
check_log "iolog v2 without waits replays fast" "$tmp/v2_lat.1.log" \
  "$(cat "$tmp/fast_lat.1.log")"

# 3. Timed at iodepth 1: the last read is due at 10 ms but the slot is
# busy until 11 ms.  It waits 1 ms in the host queue (mean 1/5 ms =
# 200000 ns over the five), and its latency from issue is 1 ms.
"$RAIDSIM" run "$array" --trace "$data/five.iolog3" --iodepth 1 \
  --format json --lat-log "$tmp/qd1" > "$tmp/qd1.json" 2> /dev/null
hq=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1]));
print(j["jobs"][0]["stages"]["host-queue"]["mean"])' "$tmp/qd1.json")
[ "$hq" = 200000.0 ] && ok "host queue of a held-back I/O: $hq ns" ||
  fail "host queue mean $hq, want 200000"
check_log "timed at iodepth 1" "$tmp/qd1_lat.1.log" "1, $ms, 0, 4096, 0, 0
2, $ms, 1, 4096, 8192, 0
3, $ms, 0, 65536, 1048576, 0
11, $ms, 0, 4096, 4096, 0
12, $ms, 0, 4096, 12288, 0"

# 4. A job file: read_iolog with replay_time_scale=200 halves every
# time: due at 0, 0.5, 1, 5 and 5 ms; done at 1, 2, 3, 6, 7 ms with
# latencies 1, 1.5, 2, 1, 2 ms.
cat > "$tmp/scaled.fio" <<JOB
[global]
ioengine=libaio
[scaled]
read_iolog=$data/five.iolog3
replay_time_scale=200
iodepth=8
JOB
"$RAIDSIM" run "$array" --workload "$tmp/scaled.fio" --lat-log "$tmp/sc" \
  > /dev/null 2>&1
check_log "read_iolog with replay_time_scale=200" "$tmp/sc_lat.1.log" \
  "1, $ms, 0, 4096, 0, 0
2, $(( 3 * ms / 2 )), 1, 4096, 8192, 0
3, $(( 2 * ms )), 0, 65536, 1048576, 0
6, $ms, 0, 4096, 4096, 0
7, $(( 2 * ms )), 0, 4096, 12288, 0"
# replay_no_stall=1 in the job file is --replay fast.
printf 'replay_no_stall=1\n' >> "$tmp/scaled.fio"
sed -i 's/^iodepth=8/iodepth=1/' "$tmp/scaled.fio"
"$RAIDSIM" run "$array" --workload "$tmp/scaled.fio" --lat-log "$tmp/ns" \
  > /dev/null 2>&1
check_log "replay_no_stall=1" "$tmp/ns_lat.1.log" "$(cat "$tmp/fast_lat.1.log")"

# 5. An iolog fio 3.33 wrote (tests/data/traces/README.md): its N I/Os
# all arrive within the first millisecond, so the drive serves them
# back to back: the last completes at N ms, and its latency is N ms less
# its arrival after the first I/O (microseconds in the log).
f=$data/fio-randrw.iolog3
n=$(awk '$3 == "read" || $3 == "write"' "$f" | wc -l)
t0=$(awk '$3 == "read" || $3 == "write" { print $1; exit }' "$f")
tn=$(awk '$3 == "read" || $3 == "write" { t = $1 } END { print t }' "$f")
"$RAIDSIM" run "$array" --trace "$f" --lat-log "$tmp/fio" > "$tmp/fio.out"
last=$(tail -n 1 "$tmp/fio_lat.1.log")
want="$n, $(( n * ms - (tn - t0) * 1000 )), "
if [ "$(wc -l < "$tmp/fio_lat.1.log")" = "$n" ] && [ "${last#"$want"}" != "$last" ] &&
   grep -q "$n.000 ms counted" "$tmp/fio.out"; then
  ok "fio's own iolog: $n I/Os back to back, the last at $n ms"
else
  fail "fio's own iolog: last line '$last', want '$want...'"
fi

# 6. Real blkparse reads the binary trace as the checked-in text.
if command -v blkparse > /dev/null; then
  cp "$data/five.blktrace.0" "$tmp/"
  (cd "$tmp" && blkparse -i five > five.txt 2>&1)
  if cmp -s "$tmp/five.txt" "$data/five.blkparse"; then
    ok "blkparse -i five gives five.blkparse"
  else
    fail "blkparse output differs:"; diff "$tmp/five.txt" "$data/five.blkparse" || :
  fi
else
  echo "skip: blkparse is not installed (Debian's blktrace)"
fi

# 7. Bad traces: one line naming the file and line (or event), exit 1.
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
printf 'fio version 3 iolog\n0 /dev/sdb add\n10 /dev/sdb read 0 4096\n20 /dev/sdb frob 0 4096\n' > "$tmp/bad1"
expect_error "raidsim run: --trace: $tmp/bad1:4: 'frob' is not an I/O action (read, write, sync, datasync, trim)" \
  run "$array" --trace "$tmp/bad1"
printf 'fio version 2 iolog\n/dev/sdb add\n/dev/sdb read 0\n' > "$tmp/bad2"
expect_error "raidsim run: --trace: $tmp/bad2:3: expected 'FILE ACTION' or 'FILE ACTION OFFSET LENGTH' (fio iolog version 2)" \
  run "$array" --trace "$tmp/bad2"
printf 'fio version 3 iolog\n5 /dev/sdb wait 100 0\n' > "$tmp/bad3"
expect_error "raidsim run: --trace: $tmp/bad3:2: wait: not allowed in version 3 (timestamps take its place)" \
  run "$array" --trace "$tmp/bad3"
head -3 "$data/five.blkparse" > "$tmp/bad4"
echo '  8,16   0        9     0.00x000000  4242  Q   R 0 + 8 [fio]' >> "$tmp/bad4"
expect_error "raidsim run: --trace: $tmp/bad4:4: not an event of blkparse's default output ('MAJ,MIN CPU SEQ SEC.NSEC PID ACTION RWBS SECTOR + COUNT')" \
  run "$array" --trace "$tmp/bad4"
# Two whole events (48 bytes each, the first with a 16-byte payload)
# and 20 bytes of a third.
head -c $(( 64 + 48 + 20 )) "$data/five.blktrace.0" > "$tmp/bad5"
expect_error "raidsim run: --trace: $tmp/bad5: event 3 (byte 112): truncated: 20 bytes of a 48-byte blk_io_trace" \
  run "$array" --trace "$tmp/bad5"
printf 'fio version 3 iolog\n0 /dev/sdb read 0 4096\n7 /dev/sdb write 1073737728 8192\n' > "$tmp/bad6"
expect_error "raidsim run: $tmp/bad6:3: write of 8192 bytes at 1073737728 runs past the end of the array (1073741824 bytes)" \
  run "$array" --trace "$tmp/bad6"
printf '[j]\nrw=read\nread_iolog=%s\n' "$tmp/bad1" > "$tmp/bad.fio"
expect_error "raidsim run: --workload: $tmp/bad.fio:3: read_iolog: $tmp/bad1:4: 'frob' is not an I/O action (read, write, sync, datasync, trim)" \
  run "$array" --workload "$tmp/bad.fio"
printf 'fio version 2 iolog\n' > "$tmp/empty"
expect_error "raidsim run: --trace: $tmp/empty: no reads or writes to replay (fio iolog v2)" \
  run "$array" --trace "$tmp/empty"
expect_error "raidsim run: --replay: 'slow' is not timed or fast" \
  run "$array" --trace "$data/five.iolog3" --replay slow

if [ "$failures" -gt 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
