#!/bin/bash
# raidsim tests: the raid plugin refuses bad parameters with a non-zero
# exit and exactly one error line naming the parameter, before it writes
# to any member: every member file keeps its contents and its mtime.
#
# Run: meson test -C build bad-config
#  or: tests/integration/test-bad-config.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
requires nbdkit
must_be_built RAID_PLUGIN

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
cd "$tmp"
keep_going

# Members with recognisable contents, not all zeroes.
for m in a b c; do
  { printf 'member %s\n' "$m"; head -c 300000 /dev/urandom; } > $m.img
  truncate -s 1M $m.img
done
# Pin the mtimes in the past so that any write would change them.
touch -d '2001-02-03 04:05:06' a.img b.img c.img
head -c 65536 /dev/urandom > small.img      # 64K: less than a 128K chunk
touch -d '2001-02-03 04:05:06' small.img
ln -s a.img link-to-a.img
ln a.img hardlink-to-a.img
mkdir dir.img

fingerprint ()
{
  # Contents and mtime (in nanoseconds) of every member file.
  sha256sum a.img b.img c.img small.img
  stat -c '%n %y' a.img b.img c.img small.img
}
fingerprint > before

# nbdkit with the plugin; --run true stops it as soon as it has started,
# so a good configuration exits 0 without any client I/O.
run_plugin ()
{
  nbdkit -U - --run true "$RAID_PLUGIN" "$@"
}

# bad PARAMETER ARGS...: the plugin must refuse ARGS naming PARAMETER.
bad ()
{
  local param=$1 status=0
  shift
  run_plugin "$@" >out 2>err || status=$?
  if [ "$status" -eq 0 ]; then
    fail "$*: accepted"
  elif [ "$(grep -c . err)" -ne 1 ]; then
    fail "$*: want exactly one line on stderr, got:"; sed 's/^/    /' err
  elif ! grep -qw -- "$param" err; then
    fail "$*: the error does not name '$param': $(cat err)"
  elif ! fingerprint >after || ! cmp -s before after; then
    fail "$*: a member file changed:"; diff before after || true
  else
    echo "ok: $param: $* -> $(cat err)"
  fi
}

# A good configuration starts, so the refusals below are not an accident.
if run_plugin level=0 a.img b.img 2>err; then
  echo "ok: level=0 a.img b.img starts"
else
  fail "level=0 a.img b.img does not start: $(cat err)"
fi

bad level    level=5 a.img b.img
bad level    a.img b.img                               # no level at all
bad chunk    level=0 chunk=abc a.img b.img
bad chunk    level=0 chunk=100K a.img b.img            # not a power of two
bad chunk    level=0 chunk=2K a.img b.img              # below 4K
bad chunk    level=0 chunk=128M a.img b.img            # above 64M
bad member   level=0                                   # no member at all
bad member   level=1
bad copies   level=10 a.img                            # one member, 2 copies
bad member   level=0 a.img a.img                       # the same file twice
bad member   level=1 a.img link-to-a.img               # ... via a symlink
bad member   level=1 a.img ./a.img                     # ... via ./
bad member   level=10 a.img b.img hardlink-to-a.img c.img   # ... hard link
bad member   level=0 a.img "$tmp/b.img" "$tmp/./b.img"  # absolute paths
bad member   level=0 a.img missing.img                 # missing
[ ! -e missing.img ] || fail "the plugin created missing.img"
# Unreadable members.  We run as root, and chmod 000 does not stop root
# from reading a file, so use paths that no one can open as a member:
# a directory, and a path under a regular file (ENOTDIR).
bad member   level=1 a.img dir.img
bad member   level=1 a.img b.img/member
bad member   level=0 a.img small.img                   # smaller than a chunk
bad member   level=1 chunk=1M a.img b.img c.img small.img
bad copies   level=10 copies=3 a.img b.img              # more copies than members
bad copies   level=10 copies=1 a.img b.img
bad copies   level=10 copies=x a.img b.img
bad foo      level=0 foo=bar a.img b.img                # unknown key
bad read-policy level=1 read-policy=fastest a.img b.img
bad timeout  level=1 timeout=abc a.img b.img
bad timeout  level=1 timeout=-1 a.img b.img
bad timeout  level=1 timeout=5x a.img b.img             # not s or ms
bad timeout  level=1 timeout=2m a.img b.img             # minutes: no
bad timeout  level=1 timeout= a.img b.img
bad timeout  level=1 timeout=86401s a.img b.img         # over a day
bad timeout  level=1 timeout=1s timeout=2s a.img b.img  # twice

end_checks
