#!/bin/bash
# Configure raidsim in build/ (the first time) and build it.
#
# Run: scripts/build.sh          (then see build/raidsim/raidsim and
#                                 build/plugins/raid/nbdkit-raid-plugin.so)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -f build/build.ninja ]; then
  meson setup build
fi
meson compile -C build
