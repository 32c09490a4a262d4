#!/bin/bash
# Install the dependencies, build, and run the whole test suite.  The last
# line of output is "N passed, N failed, N skipped", counted from meson's
# build/meson-logs/testlog.json; the exit status is non-zero if any test
# failed.
#
# Run: scripts/test.sh
# Extra arguments go to meson test, e.g. scripts/test.sh --suite unit
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
scripts/build.sh

# The tests that start servers and mount file systems are slow on a small
# machine; meson's per-test timeouts are multiplied by this.
multiplier=${RAIDSIM_TIMEOUT_MULTIPLIER:-3}

log=build/meson-logs/testlog.json
rm -f "$log"
set +e
meson test -C build --print-errorlogs --timeout-multiplier "$multiplier" "$@"
status=$?
set -e

if [ ! -s "$log" ]; then
  echo "test.sh: meson test wrote no $log (exit status $status)" >&2
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi

# One JSON object per line, each with a "result": OK is a pass, SKIP a
# skip, anything else (FAIL, TIMEOUT, ERROR, EXPECTEDFAIL, UNEXPECTEDPASS)
# a failure.  JSON::PP ships with perl on every Debian.
read -r passed failed skipped < <(perl -MJSON::PP -ne '
  BEGIN { ($p, $f, $s) = (0, 0, 0) }
  next unless /\S/;
  my $r = decode_json ($_)->{result} // "";
  if ($r eq "OK") { $p++ } elsif ($r eq "SKIP") { $s++ } else { $f++ }
  END { print "$p $f $s\n" }
' "$log")

if [ "$failed" -eq 0 ] && [ "$status" -ne 0 ]; then
  # meson failed without a failing test (a build error, say).
  echo "test.sh: meson test exited with status $status" >&2
  failed=1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
