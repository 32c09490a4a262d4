#!/bin/bash
# raidsim tests: `raidsim sweep` shows a progress line on stderr when
# stderr is a terminal ("sweep: 2/4 runs, 00:00 elapsed, ~00:00 left"),
# rewritten in place with '\r' and blanked at the end, and writes
# nothing to stderr when it is a file or a pipe, so logs and tests stay
# clean.  The terminal is a real pty, made by util-linux's script(1);
# skips (exit 77) without it.
#
# Run: meson test -C build sim-sweep-tty
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-sweep-tty.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-sweep-tty.sh: $RAIDSIM is not built"; exit 1; }
if ! command -v script >/dev/null; then
  echo "SKIP: script(1) is not installed (Debian: util-linux)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

array=$SRCDIR/configs/arrays/raid0-2x-fixed.ini
job=$SRCDIR/configs/workloads/randread-4k-qd1.fio
sweep=("$RAIDSIM" sweep "$array" --workload "$job" --vary qd=1,2
       --vary members=2,4 --format csv)
printf -v cmd '%q ' "${sweep[@]}"

# On a pty: stdout goes to a file, so what script copies out of the pty
# is stderr (and the pty's echo of input, which is nothing: none is
# typed).  script's own log goes to /dev/null; it would add a header.
for workers in 1 2; do
  script -qec "$cmd --workers $workers > '$tmp/out.csv'" /dev/null \
    > "$tmp/typescript" < /dev/null
  # Every count from 0/4 to 4/4, each after a '\r'; the estimate once a
  # run is done; then the line blanked: '\r', blanks, '\r' at the end.
  got=$(tr '\r' '\n' < "$tmp/typescript")
  missing=
  for k in 0 1 2 3 4; do
    grep -q "^sweep: $k/4 runs, [0-9][0-9]:[0-9][0-9] elapsed" <<< "$got" ||
      missing+=" $k/4"
  done
  grep -qE '^sweep: 2/4 runs, [0-9]{2}:[0-9]{2} elapsed, ~[0-9]{2}:[0-9]{2} left' \
    <<< "$got" || missing+=" estimate"
  tail=$(tail -c 2 "$tmp/typescript" | od -An -c | tr -d ' ')
  last=$(tr '\r' '\n' < "$tmp/typescript" | tail -n 1)
  if [ -n "$missing" ]; then
    fail "workers $workers: tty: missing$missing: $(od -c "$tmp/typescript" | sed -n 1,8p)"
  elif [ "$tail" != '\r' ] || [ -n "${last//[$'\n' ]/}" ]; then
    fail "workers $workers: tty: the line is not blanked at the end: $(od -c "$tmp/typescript" | tail -n 4)"
  elif grep -q 'sweep:' "$tmp/out.csv" ||
       [ "$(wc -l < "$tmp/out.csv")" != 5 ]; then
    fail "workers $workers: tty: stdout is not the 4 rows and header"
  else
    ok "workers $workers: a terminal shows 0/4 to 4/4 with an estimate, then a blank line"
  fi
done

# With --seeds 2 the 4 runs are made twice: one line counts all 8, up
# to 8/8 without starting again at 0/4.  Mutant killed: the line
# started afresh for each seed (pg.base left 0).
script -qec "$cmd --seeds 2 --workers 1 > /dev/null" /dev/null \
  > "$tmp/typescript" < /dev/null
got=$(tr '\r' '\n' < "$tmp/typescript")
if grep -q '^sweep: 5/8 runs' <<< "$got" &&
   grep -q '^sweep: 8/8 runs' <<< "$got" &&
   ! grep -q '/4 runs' <<< "$got"; then
  ok "--seeds 2: one line counts the 8 runs of both seeds"
else
  fail "--seeds 2: $(grep -o '[0-9]*/[0-9]* runs' <<< "$got" | tr '\n' ' ')"
fi

# A file and a pipe get nothing, and stdout is the same CSV.
"${sweep[@]}" > "$tmp/file.csv" 2> "$tmp/err"
if [ -s "$tmp/err" ]; then
  fail "stderr to a file: $(od -c "$tmp/err" | sed -n 1,3p)"
else
  ok "stderr to a file: nothing"
fi
"${sweep[@]}" 2>&1 > /dev/null | cat > "$tmp/pipe"
if [ -s "$tmp/pipe" ]; then
  fail "stderr to a pipe: $(od -c "$tmp/pipe" | sed -n 1,3p)"
else
  ok "stderr to a pipe: nothing"
fi
if cmp -s "$tmp/file.csv" "$tmp/out.csv"; then
  ok "the CSV is the same with and without the progress line"
else
  fail "the CSV differs on a terminal"
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
