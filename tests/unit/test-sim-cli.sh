#!/bin/bash
# raidsim tests: the options the simulator's commands share.  --format,
# --seed and the worker count are parsed alike by run, sweep, demo and
# validate, and a bad option or value is one line, "raidsim CMD:
# --OPTION: what is wrong", and exit status 1, in every command.  Sweep
# and demo take --workers, and --jobs, its old name, as the same option.
# `raidsim config` keeps the forms it had: no argument, --markdown,
# -h/--help, FILE...; and it reads JOB.FIO as a fio job file.
#
# Run: meson test -C build sim-cli
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-cli.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-cli.sh: $RAIDSIM is not built"; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

array=$SRCDIR/configs/arrays/raid0-2x-fixed.ini
job=$SRCDIR/configs/workloads/randread-4k-qd1.fio

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

# The shared parsers, in each command that takes them.
run=(run "$array" --workload "$job")
sweep=(sweep "$array" --workload "$job")
for cmd in run sweep demo validate; do
  case $cmd in
    run) args=("${run[@]}") ;;
    sweep) args=("${sweep[@]}") ;;
    *) args=("$cmd") ;;
  esac
  expect_error "raidsim $cmd: --format: 'xml' is not table, csv or json" \
    "${args[@]}" --format xml
  if [ "$cmd" != demo ]; then
    expect_error "raidsim $cmd: --seed: '1x' is not a whole number" \
      "${args[@]}" --seed 1x
  fi
  expect_error "raidsim $cmd: --frob: unknown option; see 'raidsim $cmd --help'" \
    "${args[@]}" --frob
  expect_error "raidsim $cmd: -Z: unknown option; see 'raidsim $cmd --help'" \
    "${args[@]}" -Z
  expect_error "raidsim $cmd: --format: needs a value" "${args[@]}" --format
done
# An unknown letter that is not the last of its group.
expect_error "raidsim run: -Z: unknown option; see 'raidsim run --help'" \
  "${run[@]}" -Zh
for cmd in plot config; do
  expect_error "raidsim $cmd: --frob: unknown option; see 'raidsim $cmd --help'" \
    "$cmd" --frob
done

# The worker count: --workers, -j and the old --jobs are one option.
for cmd in sweep demo; do
  case $cmd in sweep) args=("${sweep[@]}") ;; *) args=(demo) ;; esac
  for n in 0 65 two; do
    expect_error "raidsim $cmd: --workers: '$n' is not a number from 1 to 64" \
      "${args[@]}" --workers "$n"
  done
  expect_error "raidsim $cmd: --workers: '0' is not a number from 1 to 64" \
    "${args[@]}" --jobs 0
  "$RAIDSIM" "$cmd" --help > "$tmp/help"
  if grep -q -- '--jobs N, its old name' "$tmp/help"; then
    ok "$cmd --help: names --jobs as --workers' old name"
  else
    fail "$cmd --help: no word of --jobs"
  fi
done
"$RAIDSIM" "${sweep[@]}" --vary qd=1,2,4 --format csv --workers 2 > "$tmp/w"
"$RAIDSIM" "${sweep[@]}" --vary qd=1,2,4 --format csv --jobs 2 > "$tmp/j"
"$RAIDSIM" "${sweep[@]}" --vary qd=1,2,4 --format csv -j 64 > "$tmp/j64"
if cmp -s "$tmp/w" "$tmp/j" && cmp -s "$tmp/w" "$tmp/j64" &&
   [ "$(wc -l < "$tmp/w")" = 4 ]; then
  ok "sweep: --workers 2, --jobs 2 and -j 64 print the same"
else
  fail "sweep: --workers and --jobs differ"
fi
"$RAIDSIM" demo --format csv --workers 1 > "$tmp/dw"
"$RAIDSIM" demo --format csv --jobs 1 > "$tmp/dj"
if cmp -s "$tmp/dw" "$tmp/dj" && [ -s "$tmp/dw" ]; then
  ok "demo: --workers 1 and --jobs 1 print the same"
else
  fail "demo: --workers and --jobs differ"
fi

# raidsim config, in the forms it had before getopt_long.
"$RAIDSIM" config > "$tmp/ref"
if grep -q '^\[array\]' "$tmp/ref" && ! grep -q '^usage:' "$tmp/ref"; then
  ok "config: the reference, without usage"
else
  fail "config: $(head -3 "$tmp/ref")"
fi
for h in -h --help; do
  "$RAIDSIM" config "$h" > "$tmp/help"
  if [ "$(head -1 "$tmp/help")" = "usage: raidsim config [--markdown]" ] &&
     grep -qxF "$(head -1 "$tmp/ref")" "$tmp/help"; then
    ok "config $h: usage, then the reference"
  else
    fail "config $h: $(head -2 "$tmp/help")"
  fi
done
"$RAIDSIM" config --markdown > "$tmp/md"
if cmp -s "$tmp/md" "$SRCDIR/docs/config-reference.md"; then
  ok "config --markdown: docs/config-reference.md"
else
  fail "config --markdown differs from docs/config-reference.md"
fi
"$RAIDSIM" config "$array" > "$tmp/array"
if grep -qx 'read-policy = least-pending' "$tmp/array" &&
   grep -qx 'level = 0' "$tmp/array"; then
  ok "config FILE: the settings in effect"
else
  fail "config FILE: $(head -8 "$tmp/array")"
fi
expect_error "raidsim config: --markdown: prints the reference, so takes no FILE; see 'raidsim config --help'" \
  config --markdown "$array"
cp "$job" "$tmp/JOB.FIO"
if "$RAIDSIM" config "$tmp/JOB.FIO" > "$tmp/fio" 2> "$tmp/err" &&
   grep -qx 'rw = randread' "$tmp/fio"; then
  ok "config JOB.FIO: a fio job file, whatever the case of .fio"
else
  fail "config JOB.FIO: $(cat "$tmp/err")"
fi

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
