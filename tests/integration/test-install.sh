#!/bin/bash
# raidsim tests: an installed raidsim finds its data by name.
#
# `meson install --destdir` into a temporary folder outside the build
# tree (inside it, the build tree's own configs/ would be found and hide
# a broken install), then, from another folder, the installed program:
#
#   - runs `raidsim run raid0-2x-optane-900p-vroc --workload four-corners`
#     and prints exactly what the build tree's program prints for the
#     same array by path (the installed files are configs/'s);
#   - lists with `raidsim list` every array, device, controller and
#     workload of configs/, each with its description, from the
#     installed data directory;
#   - refuses a name that does not exist with one line naming it and
#     every place looked in (the configured data directory among them),
#     exit status 1, and nothing on stdout;
#   - takes $RAIDSIM_DATADIR first: a file there hides the installed
#     one of the same name;
#   - and the installed plugin serves model=NAME from $RAIDSIM_DATADIR.
# The installed man page and bash completion know `raidsim list`.
#
# Run: meson test -C build install
#  or: tests/integration/test-install.sh   (build in build/, else BUILD_ROOT=DIR;
#      PREFIX, BINDIR and DATADIR as configured, default /usr/local, bin, share)
. "$(dirname "$0")/common.sh"
PREFIX=${PREFIX:-/usr/local}
BINDIR=${BINDIR:-bin}
DATADIR=${DATADIR:-share}
requires meson
must_be_built RAIDSIM
unset RAIDSIM_DATADIR

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
case "$(realpath "$tmp")/" in
  "$(realpath "$BUILD_ROOT")"/*) skip "TMPDIR is inside the build tree" ;;
esac
keep_going

if ! meson install -C "$BUILD_ROOT" --no-rebuild --quiet \
     --destdir "$tmp/dest" > "$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  die "meson install --destdir failed"
fi
abs () { case $1 in /*) echo "$1" ;; *) echo "$PREFIX/$1" ;; esac; }
prog=$tmp/dest$(abs "$BINDIR")/raidsim
data=$(abs "$DATADIR")/raidsim
[ -x "$prog" ] || die "meson install put no raidsim in $tmp/dest$(abs "$BINDIR")"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"

# 1. A run by names, the same as the build tree's by paths.
if "$prog" run raid0-2x-optane-900p-vroc --workload four-corners \
     > "$tmp/installed.out" 2> "$tmp/err"; then
  "$RAIDSIM" run "$SRCDIR/configs/arrays/raid0-2x-optane-900p-vroc.ini" \
    --workload four-corners > "$tmp/tree.out"
  jobs=$(grep -c '^job ' "$tmp/installed.out" || true)
  # The members' device files are named by path: the installed ones,
  # else the same.
  sed "s|$tmp/dest$data/|DATA/|" "$tmp/installed.out" > "$tmp/installed.cmp"
  sed "s|$(realpath "$SRCDIR")/configs/|DATA/|" "$tmp/tree.out" > "$tmp/tree.cmp"
  if [ "$jobs" -eq 24 ] && cmp -s "$tmp/installed.cmp" "$tmp/tree.cmp" &&
     grep -q " DATA/arrays/../devices/intel-optane-900p-480gb.ini\$" "$tmp/installed.cmp"; then
    ok "run raid0-2x-optane-900p-vroc --workload four-corners: 24 jobs, as from the tree, from the installed files"
  else
    fail "run by name: $jobs jobs; differs from the tree's run:"
    diff "$tmp/tree.cmp" "$tmp/installed.cmp" > "$tmp/diff" || true
    sed -n 1,20p "$tmp/diff"
  fi
else
  fail "run raid0-2x-optane-900p-vroc: $(cat "$tmp/err")"
fi
# A workload by name too.
if "$prog" run single-optane-900p-480gb --workload randread-4k-qd1 \
     > "$tmp/out" 2> "$tmp/err" && grep -q '^job randread-4k-qd1: randread' "$tmp/out"; then
  ok "run single-optane-900p-480gb --workload randread-4k-qd1"
else
  fail "--workload randread-4k-qd1: $(cat "$tmp/err")"
fi

# 2. raidsim list: everything of configs/, from the installed directory.
if "$prog" list > "$tmp/list" 2> "$tmp/err"; then
  for kind in arrays devices controllers workloads; do
    ext=.ini; [ "$kind" = workloads ] && ext=.fio
    heading="$kind (.*), in $tmp/dest$data/$kind (beside the program):"
    grep -q "^$heading\$" "$tmp/list" || fail "list: no heading '$heading'"
    missing=0
    for f in "$SRCDIR/configs/$kind/"*"$ext"; do
      name=$(basename "$f" "$ext")
      # The line: the name, then the start of its first comment line.
      first=$(sed -n '1{s/^[;#] *//;s/ .*//;p}' "$f")
      grep -qE "^  $name +$first " "$tmp/list" || { missing=1; fail "list: no line for $kind/$name ($first...)"; }
    done
    [ "$missing" = 1 ] || ok "list: every one of configs/$kind, with its description"
  done
  grep -q '^presets (--workload NAME\[:SPAN\]), built in: cdm3, ' "$tmp/list" ||
    fail "list: no presets line"
else
  fail "list: $(cat "$tmp/err")"
fi

# 3. A name that does not exist: one line, naming where it looked.
if "$prog" run no-such-array --workload four-corners > "$tmp/out" 2> "$tmp/err"; then
  fail "run no-such-array: exit status 0"
else
  rc=$?
  want="raidsim run: no-such-array: no array file of that name: looked for no-such-array and no-such-array.ini in the current directory, then for no-such-array and no-such-array.ini in "
  line=$(cat "$tmp/err")
  if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] &&
     [ "${line#"$want"}" != "$line" ] &&
     [[ $line == *" $data/arrays (installed), "* ]] &&
     [[ $line == *" $tmp/dest$data/arrays (beside the program); \$RAIDSIM_DATADIR is not set" ]]; then
    ok "run no-such-array: exit 1, one line naming the installed directories"
  else
    fail "run no-such-array: exit $rc: $(cat "$tmp/err" "$tmp/out")"
  fi
fi

# 4. $RAIDSIM_DATADIR first: its raid0-2x-optane-900p-vroc is a single
# drive, and hides the installed RAID 0.
mkdir -p "$tmp/mine/arrays"
printf '; mine: one drive.\n[array]\nlevel = single\nmembers = 1\ndevice = intel-optane-900p-480gb\ncontroller = nvme-direct\n' \
  > "$tmp/mine/arrays/raid0-2x-optane-900p-vroc.ini"
if RAIDSIM_DATADIR=$tmp/mine "$prog" run raid0-2x-optane-900p-vroc \
     --workload randread-4k-qd1 > "$tmp/out" 2> "$tmp/err" &&
   grep -q '^array raid0-2x-optane-900p-vroc: level single, 1 members' "$tmp/out" &&
   RAIDSIM_DATADIR=$tmp/mine "$prog" list arrays > "$tmp/list2" &&
   grep -q "^arrays (.*), in $tmp/mine/arrays (\$RAIDSIM_DATADIR):\$" "$tmp/list2" &&
   [ "$(grep -c '^  raid0-2x-optane-900p-vroc ' "$tmp/list2")" -eq 1 ] &&
   grep -qE '^  raid0-2x-optane-900p-vroc +mine: one drive\.$' "$tmp/list2"; then
  ok "RAIDSIM_DATADIR: its file of a name hides the installed one, in run and list"
else
  fail "RAIDSIM_DATADIR: $(cat "$tmp/err" "$tmp/out")"
fi

# 5. The installed plugin: model=NAME, found in $RAIDSIM_DATADIR (the
# installed data directory of a DESTDIR install is not where nbdkit
# could know it).
plugin=$(find "$tmp/dest" -name nbdkit-raid-plugin.so -print)
if [ -z "$plugin" ] || ! command -v nbdkit >/dev/null 2>&1 ||
   ! command -v nbdinfo >/dev/null 2>&1; then
  echo "skip: the installed plugin (no plugin installed, or no nbdkit/nbdinfo)"
else
  truncate -s 64M "$tmp/m0.img" "$tmp/m1.img"
  if RAIDSIM_DATADIR=$tmp/dest$data serve "$tmp/sock" "$tmp/nbdkit.log" \
       --threads 4 "$plugin" model=raid0-2x-optane-900p-vroc \
       stats="$tmp/stats.json" "$tmp/m0.img" "$tmp/m1.img" &&
     [ "$(nbdinfo --size "nbd+unix:///?socket=$tmp/sock")" = 134217728 ]; then
    stop_pid "$SERVE_PID"
    if grep -q 'model=raid0-2x-optane-900p-vroc' "$tmp/stats.json" "$tmp/nbdkit.log"; then
      ok "installed plugin: model=raid0-2x-optane-900p-vroc by name"
    else
      fail "installed plugin: the model is not named:"; cat "$tmp/nbdkit.log"
    fi
  else
    fail "installed plugin: model=raid0-2x-optane-900p-vroc:"; cat "$tmp/nbdkit.log"
  fi
fi

# 6. The man page and the completion know the command.
man=$tmp/dest$(abs "$DATADIR")/man/man1/raidsim.1
if [ -f "$man" ] && grep -q '^\.SS "raidsim list"$' "$man"; then
  ok "man page: raidsim list"
else
  fail "man page $man: no raidsim list"
fi
comp=$(find "$tmp/dest" -path '*completions/raidsim' -print)
if [ -n "$comp" ] && grep -q "compgen -W '[^']* list " "$comp" &&
   grep -q -- '--paths' "$comp"; then
  ok "bash completion: list and --paths"
else
  fail "bash completion ($comp): no list or --paths"
fi

end_checks
