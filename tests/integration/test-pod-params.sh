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
#  or: tests/integration/test-pod-params.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
POD=${POD:-$SRCDIR/plugins/raid/nbdkit-raid-plugin.pod}
[ -s "$POD" ] || skip "$POD is empty"
requires nbdkit

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"

nbdkit "$RAID_PLUGIN" --dump-plugin > "$tmp/dump"
grep '^raid_param_' "$tmp/dump" > "$tmp/params" || true
if [ ! -s "$tmp/params" ]; then
  fail "--dump-plugin lists no raid_param_ lines"
fi

# The =item lines between "=head1 PARAMETERS" and the next =head1.
awk '/^=head1 /{ inside = ($2 == "PARAMETERS") } inside && /^=item /' \
  "$POD" > "$tmp/items"
if [ ! -s "$tmp/items" ]; then
  fail "$POD has no =item in its PARAMETERS section"
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

keep_going
while IFS= read -r item; do
  if grep -qxF -- "$item" "$tmp/items"; then
    echo "ok: $item"
  else
    fail "the pod lacks '$item'"
  fi
done < "$tmp/want"
while IFS= read -r item; do
  if ! grep -qxF -- "$item" "$tmp/want"; then
    fail "the pod documents '$item', which the plugin does not have"
  fi
done < "$tmp/items"
end_checks
