#!/bin/bash
# raidsim tests: the man page documents exactly the plugin's parameters.
#
# The plugin's parameter tables (plugins/raid/params.c and the core's
# raid_keys[]) are read back through --dump-plugin (raid_param_KEY=SYNTAX
# and raid_param_KEY_values=V1,V2,...).  In the pod's PARAMETERS section:
#
# - a key with a list of values has one "=item B<KEY=VALUE>" per value;
# - any other key has one "=item B<KEY=>ALT" (or "[B<KEY=>]ALT" for the
#   magic key) per alternative ALT of its SYNTAX (FILE|DEVICE|URI);
# - every "=item" of the section is one of those: nothing documents a
#   parameter or value the plugin does not have.
#
# Deleting one item or one value from the pod, or adding a value to a
# table without documenting it, fails this test.
#
# Run: meson test -C build pod-params
#  or: RAID_PLUGIN=build/plugins/raid/nbdkit-raid-plugin.so \
#        tests/integration/test-pod-params.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
RAID_PLUGIN=${RAID_PLUGIN:-$SRCDIR/build/plugins/raid/nbdkit-raid-plugin.so}
POD=${POD:-$SRCDIR/plugins/raid/nbdkit-raid-plugin.pod}

if [ ! -s "$POD" ]; then
  echo "test-pod-params.sh: SKIP: $POD is empty"; exit 77
fi
if ! command -v nbdkit >/dev/null 2>&1; then
  echo "test-pod-params.sh: SKIP: nbdkit is not installed"; exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

nbdkit "$RAID_PLUGIN" --dump-plugin > "$tmp/dump"
grep '^raid_param_' "$tmp/dump" > "$tmp/params" || true
if [ ! -s "$tmp/params" ]; then
  echo "FAIL: --dump-plugin lists no raid_param_ lines"; exit 1
fi

# The =item lines between "=head1 PARAMETERS" and the next =head1.
awk '/^=head1 /{ inside = ($2 == "PARAMETERS") } inside && /^=item /' \
  "$POD" > "$tmp/items"
if [ ! -s "$tmp/items" ]; then
  echo "FAIL: $POD has no =item in its PARAMETERS section"; exit 1
fi

# The items the tables call for, one per line, as the pod spells them.
: > "$tmp/want"
while IFS= read -r line; do
  name=${line#raid_param_}
  key=${name%%=*}
  value=${name#*=}
  case "$key" in
    *_values) continue ;;
  esac
  values=$(sed -n "s/^raid_param_${key}_values=//p" "$tmp/params")
  if [ -n "$values" ]; then
    IFS=, read -r -a list <<< "$values"
    for v in "${list[@]}"; do
      echo "=item B<$key=$v>" >> "$tmp/want"
    done
  else
    IFS='|' read -r -a alts <<< "$value"
    for a in "${alts[@]}"; do
      if [ "$key" = member ]; then
        echo "=item [B<$key=>]$a" >> "$tmp/want"
      else
        echo "=item B<$key=>$a" >> "$tmp/want"
      fi
    done
  fi
done < "$tmp/params"

failures=0
while IFS= read -r item; do
  if grep -qxF -- "$item" "$tmp/items"; then
    echo "ok: $item"
  else
    echo "FAIL: the pod lacks '$item'"
    failures=$(( failures + 1 ))
  fi
done < "$tmp/want"
while IFS= read -r item; do
  if ! grep -qxF -- "$item" "$tmp/want"; then
    echo "FAIL: the pod documents '$item', which the plugin does not have"
    failures=$(( failures + 1 ))
  fi
done < "$tmp/items"

if [ "$failures" -ne 0 ]; then
  echo "test-pod-params.sh: $failures failures"; exit 1
fi
echo "test-pod-params.sh: all passed"
