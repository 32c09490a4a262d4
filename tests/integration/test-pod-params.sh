#!/bin/bash
# raidsim tests: the man page source documents every parameter that
# `nbdkit raid --help` lists, and every read policy that --dump-plugin
# lists (raid_read_policies=...).
#
# Run: meson test -C build pod-params
#  or: RAID_PLUGIN=build/plugins/raid/nbdkit-raid-plugin.so \
#        tests/integration/test-pod-params.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
pod=$SRCDIR/plugins/raid/nbdkit-raid-plugin.pod

if [ ! -s "$pod" ]; then
  echo "test-pod-params.sh: SKIP: $pod is empty"; exit 77
fi
if ! command -v nbdkit >/dev/null 2>&1; then
  echo "test-pod-params.sh: SKIP: nbdkit is not installed"; exit 77
fi

# The plugin's part of --help follows the line "plugin: NAME (...)".  Each
# parameter line starts with KEY= or, for the magic key, [KEY=].
keys=$(nbdkit "$RAID_PLUGIN" --help |
       sed -n '/^plugin: /,$p' |
       sed -n 's/^\[\{0,1\}\([a-z][a-z0-9-]*\)\]\{0,1\}=.*/\1/p' | sort -u)
if [ -z "$keys" ]; then
  echo "FAIL: nbdkit --help lists no plugin parameters"; exit 1
fi

failures=0
for key in $keys; do
  if grep -qF -- "$key=" "$pod"; then
    echo "ok: $key= is documented"
  else
    echo "FAIL: $key= is in --help but not in $pod"
    failures=$(( failures + 1 ))
  fi
done

policies=$(nbdkit "$RAID_PLUGIN" --dump-plugin |
           sed -n 's/^raid_read_policies=//p' | tr ',' ' ')
for p in $policies; do
  if grep -qw -- "$p" "$pod"; then
    echo "ok: read policy $p is documented"
  else
    echo "FAIL: read policy $p is not in $pod"
    failures=$(( failures + 1 ))
  fi
done

if [ "$failures" -ne 0 ]; then
  echo "test-pod-params.sh: $failures failures"; exit 1
fi
echo "test-pod-params.sh: all passed"
