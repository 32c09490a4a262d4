#!/bin/bash
# Fuzz raidsim's parsers with AFL++, one after the other, and print for
# each the executions, crashes and hangs (docs/fuzzing.md has the
# figures and says how to read them).
#
# The harnesses are tests/fuzz/fuzz-NAME.c; the parsers fuzzed are those
# with a corpus directory, tests/fuzz/corpus/NAME/.  They are built with
# afl-cc under AddressSanitizer and UndefinedBehaviorSanitizer in a build
# directory of their own, so the normal build is left alone.  This
# script installs nothing: it needs AFL++ (Debian: apt-get install afl++,
# which pulls clang and LLVM; scripts/install-deps.sh leaves it out).
#
# Usage: bench/fuzz.sh [PARSER...]
#
# Options (environment):
#   EXECS=n        executions per parser (default 1000000), or
#   SECONDS_EACH=s fuzz each parser for s seconds instead
#   FUZZ_BUILD=dir the build directory (default build-fuzz)
#   FUZZ_OUT=dir   AFL++'s output, one directory per parser
#                  (default FUZZ_BUILD/afl)
#   FIO_EXAMPLES=dir  also start the fio job parser from these job files
#                  (fio's examples/, which this tree does not keep)
#   CC=afl-...     the AFL++ compiler (default afl-cc)
#
# A crash or hang is a bug: the inputs are in FUZZ_OUT/NAME/default/
# crashes and hangs.  Fix the parser, then keep the input (afl-tmin
# makes it small) in tests/fuzz/crashes/NAME/, which the unit tests
# replay.  Exit status: 0 if no parser crashed or hung, 1 otherwise, 2
# if the fuzzing could not run.
set -euo pipefail
cd "$(dirname "$0")/.."

build=${FUZZ_BUILD:-build-fuzz}
out=${FUZZ_OUT:-$build/afl}
execs=${EXECS:-1000000}
cc=${CC:-afl-cc}
case "$cc" in afl-*) ;; *) cc=afl-cc ;; esac

for tool in "$cc" afl-fuzz; do
  if ! command -v "$tool" >/dev/null; then
    echo "fuzz.sh: $tool not found; AFL++ is needed:" >&2
    echo "  apt-get install afl++" >&2
    exit 2
  fi
done

if [ $# -gt 0 ]; then
  parsers=("$@")
else
  parsers=()
  for d in tests/fuzz/corpus/*/; do
    parsers+=("$(basename "$d")")
  done
fi
for p in "${parsers[@]}"; do
  [ -d "tests/fuzz/corpus/$p" ] || {
    echo "fuzz.sh: $p: no tests/fuzz/corpus/$p" >&2; exit 2; }
done

# The string comparisons the compiler sees (option names, units, level
# and policy names) become AFL++'s dictionary, so the fuzzer spells
# keys without guessing them byte by byte.
dict=$PWD/$build/afl.dict
if [ ! -f "$build/build.ninja" ]; then
  # No link-time optimization (the project's default): afl-cc
  # instruments at compile time, and its LTO mode is another compiler.
  CC="$cc" meson setup "$build" -Dtests=enabled -Db_lto=false \
    -Db_sanitize=address,undefined -Db_lundef=false \
    -Dc_args=-fno-sanitize-recover=all >"$build.setup.log" 2>&1 || {
    echo "fuzz.sh: meson setup failed; see $build.setup.log" >&2; exit 2; }
fi
targets=()
for p in "${parsers[@]}"; do
  targets+=("tests/fuzz/fuzz-$p")
done
# (ninja, not meson compile, so that a harness added since the last
# setup is found: ninja regenerates the build files first.  afl-cc
# appends the strings of each file it compiles to the raw file;
# files already built are not compiled again, so it is kept and sorted.)
AFL_LLVM_DICT2FILE=$dict.raw AFL_QUIET=1 \
  nice ninja -C "$build" "${targets[@]}" >"$build.compile.log" 2>&1 || {
  echo "fuzz.sh: build failed; see $build.compile.log" >&2; exit 2; }
[ -f "$dict.raw" ] && sort -u "$dict.raw" >"$dict"
dict_args=()
[ -s "$dict" ] && dict_args=(-x "$dict")

if [ -n "${SECONDS_EACH:-}" ]; then
  limit=(-V "$SECONDS_EACH")
else
  limit=(-E "$execs")
fi

# The machine may be shared: no CPU binding, no frequency check, and
# AFL++'s status as lines, not a screen.
export AFL_NO_AFFINITY=1 AFL_SKIP_CPUFREQ=1 AFL_NO_UI=1
export AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
# Under ASan the harness aborts on the first report; leaks are counted
# in the replay (the tests), not in persistent mode, where each child
# runs thousands of inputs.
# A small quarantine keeps each child's memory low on a shared machine.
export ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:symbolize=0:quarantine_size_mb=16
export UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1

field () {
  sed -n "s/^$1 *: *//p" "$2"
}

bad=0 failed=0
results=$(mktemp)
trap 'rm -f "$results"' EXIT
for p in "${parsers[@]}"; do
  in=tests/fuzz/corpus/$p
  if [ "$p" = fiojob ] && [ -n "${FIO_EXAMPLES:-}" ]; then
    in=$build/seeds-fiojob
    rm -rf "$in"; mkdir -p "$in"
    cp tests/fuzz/corpus/fiojob/* "$in"/
    for f in "$FIO_EXAMPLES"/*.fio; do cp "$f" "$in/fio-$(basename "$f")"; done
  fi
  rm -rf "${out:?}/$p"
  mkdir -p "$out"
  echo "fuzz.sh: $p: afl-fuzz ${limit[*]} (log: $out/$p.log)" >&2
  note=
  if ! nice afl-fuzz -i "$in" -o "$out/$p" -m none "${limit[@]}" \
       "${dict_args[@]}" -- "$build/tests/fuzz/fuzz-$p" >"$out/$p.log" 2>&1
  then
    # (Killed by the OOM killer on a crowded machine, for instance: the
    # figures so far are still shown, and the other parsers still run.)
    echo "fuzz.sh: $p: afl-fuzz failed; see $out/$p.log" >&2
    note=" (afl-fuzz stopped early)"
    failed=1
  fi
  s=$out/$p/default/fuzzer_stats
  [ -f "$s" ] || continue
  crashes=$(field saved_crashes "$s")
  hangs=$(field saved_hangs "$s")
  printf '%-10s %12s %10s %10s %8s %8s%s\n' "$p" "$(field execs_done "$s")" \
    "$(field run_time "$s")" "$(field execs_per_sec "$s")" \
    "$crashes" "$hangs" "$note" >>"$results"
  if [ "$crashes" != 0 ] || [ "$hangs" != 0 ]; then
    bad=1
  fi
done

printf '%-10s %12s %10s %10s %8s %8s\n' parser executions seconds \
  'execs/s' crashes hangs
cat "$results"
if [ "$bad" = 1 ]; then
  echo "fuzz.sh: crashes or hangs: inputs in $out/PARSER/default/{crashes,hangs}" >&2
fi
[ "$bad" = 1 ] && exit 1
[ "$failed" = 1 ] && exit 2
exit 0
