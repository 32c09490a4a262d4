#!/bin/bash
# raidsim tests: scripts/demo.sh, the README's first command, on this
# build (--build-dir): it runs to its end and shows each of its four
# parts; when a step fails half way (a sha256 check made to fail while
# the array is mounted) it says which step, exits non-zero and leaves
# no mount, loop device, FUSE mount or nbdkit behind; and without a
# working nbdfuse it says so and exits non-zero before touching anything.
#
# Needs root, FUSE and loop devices (else exit 77, saying which).
#
# Run: meson test -C build demo
#  or: tests/integration/test-demo.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"

tmp=$(mktemp -d /var/tmp/raidsim-test-demo.XXXXXX)
at_exit rm -rf "$tmp"
requires_fuse_loop "$tmp"
for cmd in fio mdadm mkfs.ext4 e2fsck perl; do
  requires "$cmd"
done
keep_going

# leftovers DIR: what of a run in DIR is still there: mounts under it,
# loop devices on its files, processes with it in their command line.
leftovers ()
{
  local dir=$1 out=""
  out+=$(findmnt -rn -o TARGET | grep -F "$dir" || true)
  out+=$(losetup -a | grep -F "$dir" || true)
  out+=$(pgrep -af -- "$dir" | grep -v -e "pgrep" -e "test-demo.sh" || true)
  printf '%s' "$out"
}

# 1. The whole demo.
out=$tmp/demo.out
if "$SRCDIR/scripts/demo.sh" --build-dir "$BUILD_ROOT" --dir "$tmp/run" \
     > "$out" 2>&1; then
  ok "demo.sh: exit 0"
else
  fail "demo.sh: exit status $?:"; cat "$out"
fi
# expect WHAT PATTERN: a line of the output matches PATTERN (grep -E).
expect ()
{
  if grep -qE -- "$2" "$out"; then ok "demo shows $1"; else fail "demo does not show $1 ($2)"; fi
}
expect "raidsim create" '^\$ raidsim create --level=10 .*\$D/m3\.img$'
expect "mdadm --examine reading our superblock" '^   Device Role : Active device 0$'
expect "the array degraded" '\[4/3\] \[U_UU\]$'
expect "the rebuild's progress" '^ +recovery = [0-9.]+% '
expect "the spare in role 1, rebuilt" 'spare\.img\[1\] .*$'
expect "the array whole again" '\[4/4\] \[UUUU\]$'
expect "a check that finds the copies equal" '^ +check = [0-9.]+% '
expect "every file verified" '^all [0-9]+ files read back match their sha256 sums'
expect "e2fsck" '^raidsim-demo: [0-9]+/[0-9]+ files'
expect "the sweep's command" '^\$ raidsim sweep \$D/raid10-4x-sata-ssd\.ini .*--vary chunk=16K,64K,512K --vary qd=1,2,4,8,16,32'
expect "the bottleneck named" '^chunk 64K: from QD [0-9]+ on, the array is limited by '
expect "fio against the VROC model" '^\$ nbdkit -U \$D/raid0-2x-optane-900p-vroc\.sock \$P model=configs/arrays/raid0-2x-optane-900p-vroc\.ini '
expect "the penalties" '^  felt [0-9.]+x, predicted [0-9.]+x; inside the plugin'
# The predicted penalty is raidsim's own, for the same job file.
job=$tmp/run/qd1-4k.fio
if [ -f "$job" ]; then
  iops () {
    "$BUILD_ROOT/raidsim/raidsim" run "$SRCDIR/configs/arrays/$1.ini" \
      --workload "$job" --format json |
      perl -MJSON::PP -e 'local $/; print decode_json (<STDIN>)->{jobs}[0]{read}{iops}'
  }
  want=$(perl -e 'printf "%.2f", $ARGV[0] / $ARGV[1]' \
           "$(iops single-optane-900p-480gb)" "$(iops raid0-2x-optane-900p-vroc)")
  expect "raidsim's predicted penalty ($want)" "^  felt [0-9.]+x, predicted ${want}x;"
else
  fail "demo left no $job"
fi
if [ -s "$tmp/run/sweep.png" ] && [ "$(head -c 4 "$tmp/run/sweep.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
  ok "demo leaves its plot, a PNG"
else
  command -v gnuplot >/dev/null 2>&1 && fail "no PNG plot in $tmp/run"
fi
# No pipe in the demo stops its writer early.
if grep -nE '\| *(head|grep -q)' "$SRCDIR/scripts/demo.sh" | grep -v '^ *[0-9]*: *#' > "$tmp/pipes"; then
  fail "demo.sh pipes into head or grep -q:"; cat "$tmp/pipes"
fi
left=$(leftovers "$tmp/run")
[ -z "$left" ] && ok "nothing left behind after the demo" || fail "left behind: $left"
[ -z "$(find "$tmp/run" -name '*.img' -print)" ] || fail "member files left in $tmp/run"

# 2. A failure half way, while the array is mounted: sha256sum -c made
# to fail.  The demo names the step, exits non-zero, and leaves nothing.
mkdir -p "$tmp/fake"
cat > "$tmp/fake/sha256sum" <<'EOF'
#!/bin/sh
for a; do [ "$a" = -c ] && { echo "sha256sum: made to fail by test-demo.sh" >&2; exit 1; }; done
exec /usr/bin/sha256sum "$@"
EOF
chmod +x "$tmp/fake/sha256sum"
if PATH=$tmp/fake:$PATH "$SRCDIR/scripts/demo.sh" --build-dir "$BUILD_ROOT" \
     --dir "$tmp/fail" > "$tmp/fail.out" 2>&1; then
  fail "demo with a failing sha256sum -c: exit 0"
elif grep -q '^demo: error: files read back from the array differ$' "$tmp/fail.out"; then
  ok "demo with a failing sha256sum -c: says so, exits non-zero"
else
  fail "demo with a failing sha256sum -c:"; cat "$tmp/fail.out"
fi
left=$(leftovers "$tmp/fail")
[ -z "$left" ] && ok "nothing left behind after a failure while mounted" ||
  fail "left behind after a failure: $left"

# 3. No working nbdfuse: one clear message, non-zero, nothing made.
printf '#!/bin/sh\necho "nbdfuse: made to fail by test-demo.sh" >&2\nexit 1\n' \
  > "$tmp/fake/nbdfuse"
chmod +x "$tmp/fake/nbdfuse"
rm -f "$tmp/fake/sha256sum"
if PATH=$tmp/fake:$PATH "$SRCDIR/scripts/demo.sh" --build-dir "$BUILD_ROOT" \
     --dir "$tmp/nofuse" > "$tmp/nofuse.out" 2>&1; then
  fail "demo without nbdfuse: exit 0"
elif grep -q '^demo: error: cannot attach the array with nbdfuse and a loop device: nbdfuse cannot mount here: nbdfuse: made to fail by test-demo.sh\. On a machine with the nbd kernel module, try: .*demo\.sh --nbd-client$' "$tmp/nofuse.out" &&
     ! grep -q '^== 1\.' "$tmp/nofuse.out"; then
  ok "demo without nbdfuse: says why and what to try, before step 1"
else
  fail "demo without nbdfuse:"; cat "$tmp/nofuse.out"
fi

end_checks
