#!/bin/bash
# raidsim tests: the helpers every shell test here sources (common.sh)
# do what the tests rely on, each tried in a small script of its own:
#
# requires  a program that is not there exits 77 with one line naming it
#           and why it is needed, and nothing after it runs; one that is
#           there goes on.  Likewise requires_perl_module,
#           requires_nbdkit_filter (where nbdkit is installed) and
#           requires_root (run as nobody with setpriv, where root).
# built     must_be_built of a missing program exits 1 (a failure, not a
#           skip), naming the variable and the path.
# fail      exits 1, says "FAIL: MESSAGE" on stderr after the logs in
#           FAIL_LOGS, runs nothing after it, and still runs the clean-up
#           stack.  After keep_going it goes on, says each failure on
#           stdout, and the script exits 1 through end_checks or however else
#           it ends; with no failure, end_checks exits 0.
# wait      wait_until returns as soon as its command succeeds (a file
#           made 0.3 s later), and fails after its time with "after N ms:
#           WHAT" having tried again and again; wait_log likewise for a
#           log line.
# paths     RAIDSIM=relative/path is made absolute against the directory
#           the test started in; the defaults are under BUILD_ROOT.
# control   ctl_ok of a socket that is not there fails, naming the verb
#           (where raidsim is built).
# md        on a RAID 1 that raidsim create wrote (where mdadm is
#           installed): md_events is 0, md_data_offset is the data offset
#           create printed, md_same_data passes, and fails once one byte
#           of one member's data area differs.
# scenarios run_scenarios tears down what one scenario registered with
#           at_exit before the next, and keeps what came before.
# json      uri, jget and json_flat print exactly what the tests compare.
#
# This test does not trust the helpers for its own verdict: it counts
# its own failures and exits with them.
# Mutants killed: requires returning 0 instead of exiting 77 (requires:
# the script goes on); fail returning instead of exiting (fail: what
# follows it runs), or neither counting nor exiting (fail: exit 0); the
# exit trap not turning counted failures into
# exit 1 (fail: a keep-going script that ends without end_checks exits 0);
# wait_until failing on its first try, or never failing (wait);
# requires_perl_module, requires_nbdkit_filter or requires_root never
# skipping; must_be_built passing a missing file; the paths left
# relative; json_flat dropping booleans; jget not indexing arrays; uri
# misspelt; md_same_data comparing nothing (md).
#
# Run: meson test -C build common
#  or: tests/integration/test-common.sh
. "$(dirname "$0")/common.sh"

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
cd "$tmp"
bad=0
pass () { echo "ok: $*"; }
nok () { echo "NOT OK: $*"; bad=$(( bad + 1 )); }

# run NAME BODY: BODY as a script that sources common.sh, in its own
# directory NAME; its status in $rc, its stdout and stderr in NAME.out
# and NAME.err.
run ()
{
  mkdir -p "$tmp/$1"
  { printf '. %q\n' "$SRCDIR/tests/integration/common.sh"; printf '%s\n' "$2"; } \
    > "$tmp/$1/t.sh"
  rc=0
  (cd "$tmp/$1" && bash t.sh >"$tmp/$1.out" 2>"$tmp/$1.err") || rc=$?
}
# expect NAME STATUS: the script NAME exited STATUS.
expect ()
{
  if [ "$rc" -eq "$2" ]; then
    pass "$1: exit $2"
  else
    nok "$1: exit $rc, want $2; stdout: $(cat "$tmp/$1.out"); stderr: $(cat "$tmp/$1.err")"
  fi
}
# has NAME STREAM PATTERN: a line of NAME.STREAM matches PATTERN (ERE).
has ()
{
  if grep -qE -- "$3" "$tmp/$1.$2"; then
    pass "$1: $2 has /$3/"
  else
    nok "$1: $2 has no line /$3/: $(cat "$tmp/$1.$2")"
  fi
}
# lacks NAME STREAM PATTERN: no line of NAME.STREAM matches PATTERN.
lacks ()
{
  if grep -qE -- "$3" "$tmp/$1.$2"; then
    nok "$1: $2 has /$3/: $(cat "$tmp/$1.$2")"
  else
    pass "$1: $2 has no /$3/"
  fi
}

# ---- requires --------------------------------------------------------------

run requires-absent 'requires raidsim-no-such-program "to test requires"
echo after'
expect requires-absent 77
has requires-absent out '^t\.sh: SKIP: raidsim-no-such-program is not installed \(to test requires\)$'
lacks requires-absent out '^after$'

run requires-present 'requires sh
echo after'
expect requires-present 0
has requires-present out '^after$'

run requires-perl 'requires_perl_module Raidsim::No::Such::Module
echo after'
expect requires-perl 77
has requires-perl out "^t\\.sh: SKIP: perl's Raidsim::No::Such::Module is not installed$"

if command -v nbdkit >/dev/null 2>&1; then
  run requires-filter 'requires_nbdkit_filter raidsim-no-such-filter
echo after'
  expect requires-filter 77
  has requires-filter out "^t\\.sh: SKIP: nbdkit's raidsim-no-such-filter filter is not installed$"
else
  echo "requires_nbdkit_filter: not tried, nbdkit is not installed"
fi

if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
  mkdir -p "$tmp/root"
  printf '. %q\nrequires_root "to test requires_root"\necho after\n' \
    "$SRCDIR/tests/integration/common.sh" > "$tmp/root/t.sh"
  chmod -R a+rX "$tmp"
  rc=0
  (cd / && setpriv --reuid=nobody --regid=nogroup --clear-groups \
     env TMPDIR="$tmp/root" bash "$tmp/root/t.sh" >"$tmp/root.out" 2>"$tmp/root.err") || rc=$?
  expect root 77
  has root out '^t\.sh: SKIP: not running as root \(to test requires_root\)$'
elif [ "$(id -u)" -ne 0 ]; then
  run root 'requires_root "to test requires_root"'
  expect root 77
else
  echo "requires_root: not tried as nobody, setpriv is not installed"
fi

# ---- must_be_built ------------------------------------------------------------

run built 'RAIDSIM=/nonexistent/raidsim; must_be_built RAIDSIM
echo after'
expect built 1
has built err 'RAIDSIM: /nonexistent/raidsim is not built'
lacks built out '^after$'

# ---- fail ----------------------------------------------------------------------

run fail 'echo "the server said so" > server.log
FAIL_LOGS=("$PWD/server.log")
touch left.tmp; at_exit rm -f "$PWD/left.tmp"
fail "a check"
echo after'
expect fail 1
has fail err '^t\.sh: FAIL: a check$'
has fail err 'server\.log: the server said so$'
lacks fail out '^after$'
if [ -e "$tmp/fail/left.tmp" ]; then nok "fail: the clean-up stack did not run"; else pass "fail: the clean-up stack ran"; fi

run fail-in-if 'if true; then [ 1 = 2 ] || fail "in a list"; fi
echo after'
expect fail-in-if 1
lacks fail-in-if out '^after$'

run keep-going 'keep_going
fail "first"
[ 1 = 2 ] || fail "second"
echo after
end_checks'
expect keep-going 1
has keep-going out '^t\.sh: FAIL: first$'
has keep-going out '^t\.sh: FAIL: second$'
has keep-going out '^after$'
has keep-going out '^t\.sh: 2 failures$'

run keep-going-no-end 'keep_going
fail "counted"
echo after'
expect keep-going-no-end 1
has keep-going-no-end out '^after$'

run keep-going-pass 'keep_going
[ 1 = 1 ] || fail "not this"
end_checks "all fine"'
expect keep-going-pass 0
has keep-going-pass out '^t\.sh: all fine$'

# ---- run_scenarios -------------------------------------------------------------

run scenarios 'touch kept; at_exit rm -f "$PWD/kept"
scenario_one () { touch one; at_exit rm -f "$PWD/one"; }
scenario_two () { [ ! -e one ] || fail "one is still there"; [ -e kept ] || fail "kept is gone"; echo two ran; }
run_scenarios one two
[ -e kept ] || fail "kept is gone after the scenarios"'
expect scenarios 0
has scenarios out '^two ran$'
if [ -e "$tmp/scenarios/kept" ]; then nok "run_scenarios: the clean-up stack did not run at exit"; else pass "run_scenarios: what came before was cleaned up at exit"; fi

# ---- waiting -------------------------------------------------------------------

run wait-ok '( sleep 0.3; touch there ) &
wait_until 10 "the file never came" test -e there
echo after'
expect wait-ok 0
has wait-ok out '^after$'

run wait-late 'tries () { echo x >> tries; false; }
wait_until 1 "it never happened" tries
echo after'
expect wait-late 1
has wait-late err '^t\.sh: FAIL: after 1000 ms: it never happened$'
lacks wait-late out '^after$'
n=$(wc -l < "$tmp/wait-late/tries")
if [ "$n" -ge 5 ]; then pass "wait_until tried $n times in 1 s"; else nok "wait_until tried $n times in 1 s"; fi

run wait-log '( sleep 0.3; echo "resync: done" >> log ) &
: > log
wait_log log "resync: done" 10
wait_log log "never" 1
echo after'
expect wait-log 1
has wait-log err '^t\.sh: FAIL: no "never" in the log after 1 s$'

# ---- paths ---------------------------------------------------------------------

mkdir -p "$tmp/paths"
rc=0
(cd "$tmp/paths" && env -u BUILD_ROOT -u NBD_IO RAIDSIM=rel/raidsim bash -c '
  . "$1"; echo "RAIDSIM=$RAIDSIM"; echo "NBD_IO=$NBD_IO"' _ \
  "$SRCDIR/tests/integration/common.sh" >"$tmp/paths.out" 2>"$tmp/paths.err") || rc=$?
expect paths 0
has paths out "^RAIDSIM=$tmp/paths/rel/raidsim\$"
has paths out "^NBD_IO=$SRCDIR/build/tests/lib/nbd-io\$"

# ---- the control socket and md metadata ----------------------------------------

if [ -x "$RAIDSIM" ]; then
  run ctl-ok 'CTL=$PWD/no-such-socket
ctl_ok detail
echo after'
  expect ctl-ok 1
  has ctl-ok err '^t\.sh: FAIL: control detail: '
  lacks ctl-ok out '^after$'
else
  echo "ctl_ok: not tried, $RAIDSIM is not built"
fi

if [ -x "$RAIDSIM" ] && command -v mdadm >/dev/null 2>&1; then
  # Two members of a RAID 1 as raidsim create writes them: the same data
  # area, then one byte of it changed in b.img only.
  run md 'truncate -s 8M a.img b.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
  fail "raidsim create: $(cat create.out)"
echo "events $(md_events a.img)"
echo "offset $(md_data_offset a.img)"
md_same_data a.img b.img
echo "same before"
printf x | dd of=b.img bs=1 seek=$(( $(md_data_offset b.img) + 4097 )) conv=notrunc status=none
md_same_data a.img b.img
echo after'
  expect md 1
  has md out '^events 0$'
  want=$(( $(sed -n 's/^  data offset: [0-9]* sectors (\([0-9]*\) bytes).*/\1/p' "$tmp/md/create.out") + 0 ))
  has md out "^offset $want\$"
  has md out '^same before$'
  has md err '^t\.sh: FAIL: copies a\.img and b\.img differ: '
  lacks md out '^after$'
else
  echo "md_events, md_data_offset, md_same_data: not tried without raidsim and mdadm"
fi

# ---- uri and JSON --------------------------------------------------------------

[ "$(uri /a/sock)" = "nbd+unix:///?socket=/a/sock" ] && pass "uri" || nok "uri: $(uri /a/sock)"
if command -v perl >/dev/null 2>&1 && perl -MJSON::PP -e 1 2>/dev/null; then
  echo '{"members":[{"state":"active"},{"state":"faulty","n":3}],"on":true}' > j.json
  [ "$(jget j.json members.1.state)" = faulty ] && pass "jget" ||
    nok "jget: $(jget j.json members.1.state)"
  [ "$(jget j.json members.0.n)" = null ] && pass "jget of nothing" ||
    nok "jget of nothing: $(jget j.json members.0.n)"
  want=$'members.0.state active\nmembers.1.n 3\nmembers.1.state faulty\non true'
  [ "$(json_flat j.json)" = "$want" ] && pass "json_flat" ||
    nok "json_flat: $(json_flat j.json)"
else
  echo "jget, json_flat: not tried, perl's JSON::PP is not installed"
fi

if [ "$bad" -ne 0 ]; then
  echo "test-common.sh: $bad checks failed"
  exit 1
fi
echo "test-common.sh: all passed"
