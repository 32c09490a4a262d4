#!/bin/bash
# raidsim tests: `raidsim` with no arguments runs the built-in demo, and
# `raidsim validate` its rows, from any directory, reading their
# compiled-in files from memory and writing none; and the command line
# names bad presets clearly.
#
# Run: meson test -C build sim-demo
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/integration/test-sim-demo.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
SRCDIR=${SRCDIR:-$here/../..}
[ -x "$RAIDSIM" ] || { echo "test-sim-demo.sh: $RAIDSIM is not built"; exit 1; }
RAIDSIM=$(cd "$(dirname "$RAIDSIM")" && pwd)/$(basename "$RAIDSIM")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

# From a directory with no configs in it, with a TMPDIR that does not
# exist: nothing is written to disk.
mkdir "$tmp/cwd"
if (cd "$tmp/cwd" && TMPDIR="$tmp/none" "$RAIDSIM") > "$tmp/demo" \
     2>"$tmp/err"; then
  rows=$(grep -cE '^(seq|rand)-(read|write)-(128k|4k)-qd[0-9]+ ' "$tmp/demo")
  if [ "$rows" = 24 ] && grep -q 'single-optane-900p' "$tmp/demo" &&
     grep -q 'raid0-2x-optane-vroc' "$tmp/demo"; then
    ok "demo: 24 four-corner rows, single drive against RAID 0"
  else
    fail "demo: unexpected output:"; cat "$tmp/demo"
  fi
else
  fail "demo: exit status $?: $(cat "$tmp/err")"
fi
if (cd "$tmp/cwd" && TMPDIR="$tmp/none" "$RAIDSIM" validate --require none \
      --case x25m-g1-ich10r --format csv) > "$tmp/validate" 2>"$tmp/err" &&
   [ "$(grep -c ',x25m-g1-ich10r,' "$tmp/validate")" -gt 0 ]; then
  ok "validate: one case's rows from the built-in files"
else
  fail "validate: $(cat "$tmp/err")"
fi
if [ -z "$(ls -A "$tmp/cwd")" ] && [ ! -e "$tmp/none" ]; then
  ok "demo and validate: wrote nothing"
else
  fail "demo and validate: wrote $(ls -A "$tmp/cwd" "$tmp/none" 2>&1)"
fi

# The compiled-in configs are those of configs/: the demo's arrays and
# the files they name.
"$RAIDSIM" demo --configs > "$tmp/configs"
for f in arrays/single-optane-900p.ini devices/optane-900p-like.ini \
         controllers/vroc-like.ini; do
  # Into a file, then cmp: cmp stops reading at the first difference,
  # and a pipe into it could end in SIGPIPE.
  if awk -v f="==> configs/$f <==" '$0 == f {p = 1; next}
                                    /^==> / {p = 0} p' "$tmp/configs" |
       sed '${/^$/d}' > "$tmp/config.out" &&
     cmp -s "$tmp/config.out" "$SRCDIR/configs/$f"; then
    ok "demo --configs: $f matches configs/"
  else
    fail "demo --configs: $f differs from configs/$f"
  fi
done

# Bad presets: one line that names the presets.
array=$SRCDIR/configs/arrays/raid0-2x-fixed.ini
for w in cdm4 four_corners; do
  if "$RAIDSIM" run "$array" --workload "$w" >/dev/null 2>"$tmp/err"; then
    fail "--workload $w: succeeded"
  elif grep -qF "'$w' is neither a fio job file nor a preset; the presets are cdm3, cdm8, winsat-disk, hdtune-read, hdtune-write, four-corners" "$tmp/err"; then
    ok "--workload $w: names the presets"
  else
    fail "--workload $w: got: $(cat "$tmp/err")"
  fi
done
if "$RAIDSIM" run "$array" --workload cdm3:lots >/dev/null 2>"$tmp/err"; then
  fail "--workload cdm3:lots: succeeded"
elif grep -qF "cdm3:lots: 'lots' is not a span" "$tmp/err"; then
  ok "--workload cdm3:lots: says what a span is"
else
  fail "--workload cdm3:lots: got: $(cat "$tmp/err")"
fi

# A bad queue depth for winsat-disk: exactly one line, naming the value
# and the range, and no output.  The default and a given depth show in
# the jobs that run (iodepth) and in the line saying what was assumed.
# Mutants killed: a bad value accepted (exit 0, jobs printed); the
# assumed line missing from run's table.
for q in qd=0 qd=x 1G; do
  if "$RAIDSIM" run "$array" --workload "winsat-disk:$q" >"$tmp/out" \
      2>"$tmp/err"; then
    fail "--workload winsat-disk:$q: succeeded"
  elif [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
       grep -qF "winsat-disk:$q: '$q' is not qd=N, a queue depth from 1 to 65536 (the default is 16)" "$tmp/err"; then
    ok "--workload winsat-disk:$q: one line naming it"
  else
    fail "--workload winsat-disk:$q: got: $(cat "$tmp/err" "$tmp/out")"
  fi
done
want16="preset:winsat-disk: assumed queue depth 16 (the default: an estimate, the tool's own is not documented) in every test"
want4="preset:winsat-disk:qd=4: assumed queue depth 4 (given) in every test"
for t in "16|winsat-disk|$want16" "4|winsat-disk:qd=4|$want4"; do
  qd=${t%%|*}; rest=${t#*|}; spec=${rest%%|*}; line=${rest#*|}
  "$RAIDSIM" run "$array" --workload "$spec" > "$tmp/out"
  if grep -qF "$line" "$tmp/out" &&
     [ "$(grep -c "iodepth $qd, numjobs 1" "$tmp/out")" -eq 3 ]; then
    ok "--workload $spec: three tests at QD $qd, said so"
  else
    fail "--workload $spec: got: $(cat "$tmp/out")"
  fi
done

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
