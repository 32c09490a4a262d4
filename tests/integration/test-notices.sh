#!/bin/bash
# raidsim tests: what the plugin says, and does not say, on a run that
# works (issue 12, item 7).
#
# Q1: a member that cannot be opened for writing (chattr +i) makes the
#     array read-only, and one warning line names the member and why;
#     with the same member writable, nothing is printed.  The same for
#     an NBD member whose server exports it read-only (nbdkit -r).
# Q2: a member with more than 1% of it unused gets one warning naming it
#     and the bytes (RAID 1 of 8M and 64M; RAID 10 of 8M, 8M and 9M);
#     64K unused of 8M+64K (0.8%), and RAID 0's zones, get none.
# Q3: the statistics summary is printed at exit only when asked: not on
#     a plain run, on stderr with stats=PATH, as debug lines with -v.
# Q4: -D raid.io=1 logs member I/O only with -v, and README.md and the
#     man page say so.
#
# Every run here is `nbdkit -U - --run CMD`, whose stderr is compared
# line by line; all must exit 0.
#
# Run: meson test -C build notices
#  or: tests/integration/test-notices.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires nbdinfo

# Not tmpfs: chattr +i needs a file system that has the flag.
tmp=$(mktemp -d /var/tmp/raidsim-notices.XXXXXX)
at_exit rm -rf "$tmp"
cd "$tmp"
keep_going

# run NAME RUN-CMD PLUGIN-ARGS...: nbdkit with the plugin, running
# RUN-CMD; its stderr in NAME.err, RUN-CMD's output in NAME.out, nbdkit's
# status in RC.
run ()
{
  local name=$1 cmd=$2
  shift 2
  RC=0
  nbdkit -U - --run "$cmd" "$RAID_PLUGIN" "$@" >"$name.out" 2>"$name.err" ||
    RC=$?
}

# stderr_is NAME WANT-FILE: NAME.err holds exactly WANT-FILE's lines.
stderr_is ()
{
  if [ "$RC" -ne 0 ]; then
    fail "$1: nbdkit exited $RC: $(cat "$1.err")"
  elif cmp -s "$2" "$1.err"; then
    ok "$1: stderr as expected ($(grep -c . "$1.err") lines)"
  else
    fail "$1: stderr differs from what is expected:"
    diff "$2" "$1.err" | sed 's/^/    /' || true
  fi
}

for f in a b; do
  { printf 'member %s\n' "$f"; head -c 65536 /dev/urandom; } >"$f.img"
  truncate -s 8M "$f.img"
done
: >none

# ---- Q1: a member that can only be read -----------------------------------

cp b.img b.orig
run q1-writable 'nbdinfo --can write "$uri"' level=1 a.img b.img
stderr_is q1-writable none
if chattr +i b.img 2>/dev/null; then
  at_exit chattr -i "$tmp/b.img"
  run q1 'nbdinfo --can write "$uri"; echo "can write: $?"' \
    level=1 a.img b.img
  cat >q1.want <<'EOF'
nbdkit: raid: warning: member 1 (b.img): cannot be opened for writing (Operation not permitted), so the whole array is served read-only
EOF
  stderr_is q1 q1.want
  if grep -qx 'can write: 2' q1.out; then
    ok "q1: the array is read-only"
  else
    fail "q1: nbdinfo --can write said: $(cat q1.out)"
  fi
  chattr -i b.img
else
  say "Q1: SKIP: chattr +i does not work here (not root, or $tmp has no immutable flag)"
fi
if nbdkit file --version >/dev/null 2>&1; then
  serve "$tmp/ro.sock" "$tmp/ro.log" -r file "$tmp/b.img" ||
    die "Q1: nbdkit -r file b.img did not start"
  run q1-nbd 'nbdinfo --can write "$uri"; echo "can write: $?"' \
    level=1 a.img "nbd+unix:///?socket=$tmp/ro.sock"
  printf '%s\n' "nbdkit: raid: warning: member 1 (nbd+unix:///?socket=$tmp/ro.sock): its server exports it read-only, so the whole array is served read-only" >q1-nbd.want
  stderr_is q1-nbd q1-nbd.want
  if grep -qx 'can write: 2' q1-nbd.out; then
    ok "q1-nbd: the array is read-only"
  else
    fail "q1-nbd: nbdinfo --can write said: $(cat q1-nbd.out)"
  fi
  stop_pid "$SERVE_PID"
else
  say "Q1: SKIP: nbdkit's file plugin is missing (no NBD member case)"
fi

# ---- Q2: space left unused ------------------------------------------------

truncate -s 8M c8.img d8.img
truncate -s 9M e9.img
truncate -s 64M f64.img
truncate -s $(( 8 * 1024 * 1024 + 65536 )) g8.img
run q2-raid1 true level=1 c8.img f64.img
cat >q2-raid1.want <<'EOF'
nbdkit: raid: warning: member 1 (f64.img): 58720256 of its 67108864 bytes (87.5%) are not used: the array uses 8388608 bytes of it
EOF
stderr_is q2-raid1 q2-raid1.want
run q2-raid10 true level=10 c8.img d8.img e9.img
cat >q2-raid10.want <<'EOF'
nbdkit: raid: warning: member 2 (e9.img): 1048576 of its 9437184 bytes (11.1%) are not used: the array uses 8388608 bytes of it
EOF
stderr_is q2-raid10 q2-raid10.want
run q2-under-1pct true level=1 c8.img g8.img
stderr_is q2-under-1pct none
run q2-raid0 true level=0 c8.img f64.img
stderr_is q2-raid0 none

# ---- Q3: the statistics summary -------------------------------------------

run q3-plain true level=0 a.img b.img
stderr_is q3-plain none
run q3-stats true level=0 stats="$tmp/stats.json" a.img b.img
if [ "$RC" -eq 0 ] && [ -s stats.json ] &&
   [ "$(grep -c '^nbdkit: raid: stats: ' q3-stats.err)" -eq 3 ] &&
   [ "$(grep -c . q3-stats.err)" -eq 3 ]; then
  ok "q3-stats: with stats=, 3 summary lines on stderr"
else
  fail "q3-stats: want 3 summary lines, got: $(cat q3-stats.err)"
fi
RC=0
nbdkit -v -U - --run true "$RAID_PLUGIN" level=0 a.img b.img \
  >q3-verbose.out 2>q3-verbose.err || RC=$?
if [ "$RC" -eq 0 ] &&
   [ "$(grep -c 'debug: raid: stats: \(array\|member [01]\): ' q3-verbose.err)" -eq 3 ]; then
  ok "q3-verbose: with -v, 3 summary lines among the debug messages"
else
  fail "q3-verbose: want 3 debug summary lines, got: $(grep stats q3-verbose.err)"
fi

# ---- Q4: -D raid.io=1 -----------------------------------------------------

RC=0
nbdkit -D raid.io=1 -U - --run 'printf "r 0 4096\n" | "$NBD_IO" "$uri"' \
  "$RAID_PLUGIN" level=0 a.img b.img >q4.out 2>q4.err || RC=$?
stderr_is q4 none
RC=0
nbdkit -v -D raid.io=1 -U - --run 'printf "r 0 4096\n" | "$NBD_IO" "$uri"' \
  "$RAID_PLUGIN" level=0 a.img b.img >q4v.out 2>q4v.err || RC=$?
if [ "$RC" -eq 0 ] && grep -q 'pread member=0 offset=0 length=4096' q4v.err; then
  ok "q4-verbose: with -v, the member I/O is logged"
else
  fail "q4-verbose: no 'pread member=0 offset=0 length=4096' with -v"
fi
if grep -q 'without `-v` the flag prints' "$SRCDIR/README.md" &&
   grep -q 'without C<-v>, C<-D raid.io=1> prints' \
        "$SRCDIR/plugins/raid/nbdkit-raid-plugin.pod"; then
  ok "q4-docs: README.md and the man page say -D raid.io=1 needs -v"
else
  fail "q4-docs: README.md or the man page does not say -D raid.io=1 needs -v"
fi

end_checks
