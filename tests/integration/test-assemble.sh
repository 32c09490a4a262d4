#!/bin/bash
# raidsim tests: the raid plugin assembles md arrays from their v1.2
# superblocks, and keeps the event counter and the role table up to date
# so that a member that missed writes is never trusted again (issue 13,
# item 1).
#
# The members are made by `raidsim create`; the superblocks the plugin
# writes are read back by real `mdadm --examine` (Events, Array State,
# Device Role, a correct checksum) and compared with `raidsim examine`
# line for line.  Data goes in and out with nbdcopy, sizes with nbdinfo.
#
# shuffle  RAID 10 of 4 and RAID 0 of 3 unequal members, served in
#          create's order: the size is create's (md's), and after random
#          data and a clean stop the superblocks say Events 2 (start and
#          stop); served again with the members shuffled (and level=
#          and chunk= left out), the data reads back the same.
# stale    issue 13's first bullet: RAID 1 of a file and an NBD member,
#          read-policy=round-robin.  Write A, kill -9 the NBD member's
#          server, write B (degraded), stop; restart both with the same
#          command line: the NBD member is logged stale and re-added
#          (rebuilt: test-recovery.sh; never read before it is),
#          and B reads back everywhere.
# crash    the same, but the plugin itself is killed -9 after B, so no
#          clean shutdown writes the superblocks: the update made when
#          the member failed must be enough.
# crash1   the write that fails the member is the last one: a single
#          request (nbd-io), after which the plugin is killed -9.  It
#          must not have been acknowledged before the superblock said
#          the member failed: with read-policy=first on the NBD member
#          (role 0), a stale member trusted would serve its old data.
# behind1  md's margin: a member whose events are one behind (an update
#          a crash cut short, made here by rewriting its superblock) is
#          used; two behind, it is stale.
# split    RAID 1 run once as "a.img missing" (data A) and once as
#          "missing b.img" (data B): equal events, each listing the
#          other out of the array.  Served together, the first given
#          is the freshest and the other is stale: A, never a mix.
# foreign  a member of another array (another UUID), and a member of the
#          same UUID with another chunk, are refused, naming them; no
#          member is written.
# keys     level=, chunk= and copies= that disagree with the superblocks
#          are refused naming the key; the right ones are accepted.
# missing  RAID 10 of 4 started with `missing` for one member (in any
#          place): degraded, same data, writes work, and mdadm sees
#          the member out of the array; given back, it is stale.  RAID 0
#          with missing, too few members, and both copies of a chunk
#          missing are refused; an array created with missing starts.
# none     metadata=none refuses md members; metadata=1.2 refuses blank
#          ones; md metadata of version 1.0 is refused by auto too.
# mix      metadata=auto refuses one member with a superblock and one
#          holding data without any (a blank one, all zeros at both
#          ends, would be a new member: test-recovery.sh)
#          without; blank members alone are still served as before,
#          from offset 0.
# ro       nbdkit -r writes no superblock: every member keeps its bytes.
#
# Each scenario's comment names the mutants of the plugin it kills.
# Skips (77) if nbdkit's file plugin, nbdcopy or nbdinfo is missing;
# without mdadm, the superblocks are checked with raidsim examine only.
# Needs no root.
#
# Run: meson test -C build assemble
#  or: tests/integration/test-assemble.sh [SCENARIO...]   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires nbdcopy
requires nbdinfo
requires_nbdkit_plugin file
if command -v mdadm >/dev/null 2>&1; then
  EXAMINE=(mdadm --examine)
else
  say "mdadm is not installed: superblocks checked by raidsim examine only"
  EXAMINE=("$RAIDSIM" examine)
fi
# mdadm and raidsim examine print times with ctime (3): one zone.
export TZ=UTC

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-assemble.XXXXXX")
at_exit rm -rf "$tmp"

MiB=$(( 1024 * 1024 ))

# scenario NAME WHAT: a fresh directory for it, which is the working
# directory from here on, so that members are named as a user would
# name them (a.img) in commands and in the plugin's messages; a failure
# shows its nbdkit.log.
scenario ()
{
  SCENARIO_DIR="$tmp/$1"
  FAIL_LOGS=("$SCENARIO_DIR/nbdkit.log")
  mkdir -p "$SCENARIO_DIR"
  cd "$SCENARIO_DIR"
  say "$1: $2"
}

# create DIR ARGS...: raidsim create ARGS; sets ARRAY_SIZE to the size
# it prints.
create ()
{
  local d=$1
  shift
  "$RAIDSIM" create "$@" >"$d/create.out" 2>&1 ||
    fail "raidsim create $*: $(cat "$d/create.out")"
  ARRAY_SIZE=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' \
                 "$d/create.out")
}

# start DIR ARGS...: serve the plugin with ARGS on DIR/sock, its log
# appended to DIR/nbdkit.log.
start ()
{
  local d=$1
  shift
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "$@" ||
    fail "the plugin did not start with $*"
}

# stop DIR: a clean shutdown (SIGTERM) of the plugin started by start.
stop ()
{
  stop_pid "$SERVE_PID"
}

copy_in () { nbdcopy "$2" "$(uri "$1/sock")" || fail "copying $2 in failed"; }

# read_back DIR DATA: the array reads back as DATA (its first bytes).
read_back ()
{
  local d=$1 data=$2
  rm -f "$d/out"
  nbdcopy "$(uri "$d/sock")" "$d/out" || fail "reading back failed"
  cmp -n "$(stat -c %s "$data")" "$data" "$d/out" ||
    fail "the array reads back different data"
  rm -f "$d/out"
}

# check_sb DIR MEMBER EVENTS STATE ROLE: the member's superblock, as
# mdadm reads it: a correct checksum, Events, Array State, and Device
# Role "Active device ROLE"; and raidsim examine prints the same.
check_sb ()
{
  local d=$1 m=$2 events=$3 state=$4 role=$5 e="$1/$2.examine" got
  "${EXAMINE[@]}" "$d/$m" >"$e" 2>&1 || fail "examine $m: $(cat "$e")"
  grep -q "Checksum : .* - correct" "$e" ||
    fail "$m: the checksum is not correct: $(grep Checksum "$e")"
  got=$(sed -n 's/^ *Events : //p' "$e")
  # +N: at least N.  Writes made while a member has failed mark the array
  # dirty and clean again without taking the count back (md's
  # can_decrease_events), so how many there are depends on the timing.
  if [ "${events#+}" != "$events" ]; then
    [ "$got" -ge "${events#+}" ] || fail "$m: Events $got, want $events"
  else
    [ "$got" = "$events" ] || fail "$m: Events $got, want $events"
  fi
  got=$(sed -n 's/^ *Array State : \([^ ]*\) .*/\1/p' "$e")
  [ "$got" = "$state" ] || fail "$m: Array State $got, want $state"
  got=$(sed -n 's/^ *Device Role : //p' "$e")
  [ "$got" = "Active device $role" ] ||
    fail "$m: Device Role '$got', want 'Active device $role'"
  if [ "${EXAMINE[0]}" = mdadm ]; then
    "$RAIDSIM" examine "$d/$m" >"$e.ours" 2>&1 || true
    diff -u "$e" "$e.ours" >&2 ||
      fail "$m: mdadm --examine and raidsim examine differ"
  fi
}

# refused DIR PARAM PATTERN ARGS...: the plugin refuses ARGS with one
# error line that names PARAM and matches PATTERN, and leaves every
# member file of DIR as it was.
refused ()
{
  local d=$1 param=$2 pattern=$3 status=0
  shift 3
  sha256sum -- *.img >"$d/before"
  nbdkit -U - --run true "$RAID_PLUGIN" "$@" \
    >"$d/refused.out" 2>"$d/refused.err" || status=$?
  if [ "$status" -eq 0 ]; then
    fail "$*: accepted; want it refused naming $param"
  fi
  [ "$(grep -c . "$d/refused.err")" = 1 ] ||
    fail "$*: want one error line, got: $(cat "$d/refused.err")"
  grep -q -- "error: $param: .*$pattern" "$d/refused.err" ||
    fail "$*: the error is not '$param: ...$pattern': $(cat "$d/refused.err")"
  sha256sum -- *.img | cmp -s - "$d/before" ||
    fail "$*: a member file changed"
  say "  refused: $(cat "$d/refused.err")"
}

# shuffle.  Mutants killed: assemble_md keeping the members in the
# order given instead of their roles' (the shuffled read differs);
# the geometry built with data_offset 0 (the array is larger than md
# says, and the data overwrites the superblocks); member sizes from
# data_size on RAID 1 and 10 (the RAID 1 is 5K larger than md's);
# metadata_start or metadata_stop not writing (Events are not 2).
scenario_shuffle ()
{
  scenario shuffle "members in any order give the same data"
  local d=$SCENARIO_DIR size i
  truncate -s 24M "$d/a.img" "$d/b.img" "$d/c.img" "$d/d.img"
  create "$d" --level=10 --chunk=64K --assume-clean --name=ten a.img b.img c.img d.img
  start "$d" level=10 chunk=64K a.img b.img c.img d.img
  size=$(nbdinfo --size "$(uri "$d/sock")")
  [ "$size" = "$ARRAY_SIZE" ] ||
    fail "RAID 10: the array is $size bytes, create said $ARRAY_SIZE"
  head -c "$size" /dev/urandom > "$d/data"
  copy_in "$d" "$d/data"
  stop "$d"
  i=0
  for m in a.img b.img c.img d.img; do
    check_sb "$d" $m 2 AAAA $i
    i=$(( i + 1 ))
  done
  start "$d" c.img a.img d.img b.img
  read_back "$d" "$d/data"
  stop "$d"
  start "$d" level=10 d.img c.img b.img a.img
  read_back "$d" "$d/data"
  stop "$d"
  check_sb "$d" c.img 6 AAAA 2

  # RAID 0 of unequal members: md's zones and alternate layout.
  truncate -s 10M "$d/e.img"
  truncate -s 17M "$d/f.img"
  truncate -s 13M "$d/g.img"
  create "$d" --level=0 --chunk=16K --name=zero e.img f.img g.img
  start "$d" level=0 chunk=16K e.img f.img g.img
  size=$(nbdinfo --size "$(uri "$d/sock")")
  [ "$size" = "$ARRAY_SIZE" ] ||
    fail "RAID 0: the array is $size bytes, create said $ARRAY_SIZE"
  head -c "$size" /dev/urandom > "$d/data0"
  copy_in "$d" "$d/data0"
  stop "$d"
  start "$d" g.img e.img f.img
  read_back "$d" "$d/data0"
  stop "$d"
  check_sb "$d" f.img 4 AAA 1

  # RAID 1 of unequal members that are not whole 64Ks: md's size is the
  # smallest rounded down to 64K (Used Dev Size), not what is there.
  truncate -s $(( 12 * MiB + 5 * 1024 )) "$d/h.img"
  truncate -s 16M "$d/i.img"
  create "$d" --level=1 h.img i.img
  start "$d" i.img h.img
  size=$(nbdinfo --size "$(uri "$d/sock")")
  [ "$size" = "$ARRAY_SIZE" ] ||
    fail "RAID 1: the array is $size bytes, create said $ARRAY_SIZE"
  stop "$d"
  say "shuffle: ok (RAID 10, RAID 0 read back after shuffles; sizes md's)"
}

# serve_nbd DIR FILE: serve DIR/FILE with nbdkit's file plugin on
# DIR/FILE.sock; sets NBD_PID and NBD_URI.
serve_nbd ()
{
  local d=$1 f=$2
  rm -f "$d/$f.sock" "$d/$f.pid"
  nbdkit -f --exit-with-parent -U "$d/$f.sock" -P "$d/$f.pid" \
         file "$d/$f" >>"$d/$f.log" 2>&1 &
  NBD_PID=$!
  at_exit stop_pid "$NBD_PID"
  wait_for_file "$d/$f.pid" "$NBD_PID" 30 ||
    fail "nbdkit file $f did not start: $(cat "$d/$f.log")"
  NBD_URI=$(uri "$d/$f.sock")
}

kill9 ()
{
  kill -KILL "$1"
  { wait "$1"; } 2>/dev/null || true
}

# stale_setup DIR: RAID 1 of f.img and n.img (served over NBD),
# created; write A, kill -9 n.img's server, write B.
stale_setup ()
{
  local d=$1
  truncate -s 20M "$d/f.img" "$d/n.img"
  create "$d" --level=1 --assume-clean --name=mirror f.img n.img
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/A"
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/B"
  serve_nbd "$d" n.img
  start "$d" level=1 read-policy=round-robin f.img "$NBD_URI"
  copy_in "$d" "$d/A"
  kill9 "$NBD_PID"
  copy_in "$d" "$d/B"
  grep -q "member 1 (nbd+unix.*) failed on .*degraded" "$d/nbdkit.log" ||
    fail "the plugin did not log the NBD member as failed"
}

# stale_restart DIR PATTERN: keep the members as they are now in
# f.then.img and n.then.img, for check_sb; restart n.img's server and
# the plugin with the same command line: B reads back, and the log
# matches PATTERN (the NBD member is stale).
stale_restart ()
{
  local d=$1 pattern=$2
  cp "$d/f.img" "$d/f.then.img"
  cp "$d/n.img" "$d/n.then.img"
  serve_nbd "$d" n.img
  : > "$d/nbdkit.log"
  start "$d" level=1 read-policy=round-robin f.img "$NBD_URI"
  read_back "$d" "$d/B"
  grep -q -- "$pattern" "$d/nbdkit.log" ||
    fail "the log does not say '$pattern'"
  stop "$d"
  say "  $(grep 'is stale' "$d/nbdkit.log" | sed 's/^nbdkit: [^ ]* //')"
}

# stale.  Mutants killed: assemble_md not leaving out a member whose
# events are behind (round-robin then reads the stale A from it); the
# superblocks never written (events equal: the member is trusted);
# metadata_stop not writing (Events 2, not 3).  The NBD member is two or
# more events behind, or one behind with the freshest superblock listing
# it faulty: which, depends on whether A's clean mark reached n.img
# before its server was killed (safe mode's 200 ms), and both leave it
# out, so the pattern takes both.
scenario_stale ()
{
  scenario stale "write A, kill -9 the NBD member, write B, restart: B"
  local d=$SCENARIO_DIR
  stale_setup "$d"
  stop "$d"
  stale_restart "$d" \
    "member 1 (nbd+unix.*n.img.sock) is stale: events [0-9]* < [0-9]*[;,] .*re-added, to be rebuilt"
  # Start, failure and shutdown on f.img; only the start on n.img.
  check_sb "$d" f.then.img +3 A. 0
  check_sb "$d" n.then.img +1 AA 1
  # And one start and one shutdown more, with n.img back in the array
  # (re-added; its rebuild done or under way, with a Recovery Offset).
  check_sb "$d" f.img +5 AA 0
  check_sb "$d" n.img +5 AA 1
  say "stale: ok"
}

# crash.  Mutants killed: fail_member not recording the failure
# (metadata_record a no-op: both members at events 1, the stale one
# trusted); the role table not marking the failed member faulty (one
# event behind with its role confirmed: trusted, as md would).
scenario_crash ()
{
  scenario crash "the same with the plugin killed -9 after B"
  local d=$SCENARIO_DIR
  stale_setup "$d"
  kill9 "$SERVE_PID"
  stale_restart "$d" \
    "member 1 (nbd+unix.*) is stale: events [0-9]* < [0-9]*, and the freshest superblock (f.img's) lists it faulty"
  check_sb "$d" f.then.img +2 A. 0
  check_sb "$d" n.then.img +1 AA 1
  say "crash: ok"
}

# le VALUE BYTES: VALUE as BYTES bytes, little-endian, on stdout.
le ()
{
  local v=$1 n=$2 k out=
  for (( k = 0; k < n; k++ )); do
    out+=$(printf '\\x%02x' $(( (v >> (8 * k)) & 255 )))
  done
  printf '%b' "$out"
}

# crash1.  Mutant killed: fail_member not waiting for the superblock
# update (the request that failed the member acknowledged first; only
# later writes that left the member out would record it, and there are
# none).
scenario_crash1 ()
{
  scenario crash1 "the one write that fails the member, then kill -9"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/n.img" "$d/f.img"
  create "$d" --level=1 --assume-clean n.img f.img
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/A"
  cp "$d/A" "$d/B"
  # What nbd-io's one write leaves: 64K of the byte 0x5a at offset 0.
  head -c 65536 /dev/zero | tr '\0' '\132' |
    dd of="$d/B" conv=notrunc status=none
  serve_nbd "$d" n.img
  start "$d" read-policy=first "$NBD_URI" f.img
  copy_in "$d" "$d/A"
  kill9 "$NBD_PID"
  printf 'w 0 65536\n' | "$NBD_IO" "$(uri "$d/sock")" 2>"$d/nbd-io.err" ||
    fail "the write that fails the NBD member failed: $(cat "$d/nbd-io.err")"
  kill9 "$SERVE_PID"
  serve_nbd "$d" n.img
  : > "$d/nbdkit.log"
  start "$d" read-policy=first "$NBD_URI" f.img
  read_back "$d" "$d/B"
  grep -q "member 0 (nbd+unix.*) is stale: events [0-9]* < [0-9]*" "$d/nbdkit.log" ||
    fail "the NBD member was not called stale"
  stop "$d"
  say "crash1: ok"
}

# set_events FILE N: rewrite FILE's superblock with events N and the
# checksum md computes (the 32-bit little-endian words of the first 256
# + 2 * max_dev bytes, sb_csum as 0, summed in 64 bits, the carry added
# back once).  What a crash in the middle of an update leaves.
set_events ()
{
  local f=$1 ev=$2 sb=4096 max_dev len sum=0 i=0 w
  le "$ev" 8 | dd of="$f" bs=1 seek=$(( sb + 200 )) conv=notrunc status=none
  max_dev=$(od -An -tu4 -j $(( sb + 220 )) -N 4 "$f")
  len=$(( 256 + 2 * max_dev ))
  for w in $(od -An -tu4 -v -j "$sb" -N $(( len / 4 * 4 )) "$f"); do
    (( i != 216 / 4 )) && sum=$(( sum + w ))
    i=$(( i + 1 ))
  done
  if (( len % 4 )); then
    sum=$(( sum + $(od -An -tu2 -j $(( sb + len / 4 * 4 )) -N 2 "$f") ))
  fi
  le $(( ((sum & 0xffffffff) + (sum >> 32)) & 0xffffffff )) 4 |
    dd of="$f" bs=1 seek=$(( sb + 216 )) conv=notrunc status=none
}

# behind1.  Mutant killed: assemble_md leaving out every member behind
# the freshest (no margin of one: c.img is called stale).  The second
# half kills a margin of two.
scenario_behind1 ()
{
  scenario behind1 "one event behind is used, as md uses it; two is stale"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/a.img" "$d/b.img" "$d/c.img"
  create "$d" --level=1 --assume-clean a.img b.img c.img
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/A"
  start "$d" a.img b.img c.img
  copy_in "$d" "$d/A"
  stop "$d"
  set_events "$d/c.img" 1
  check_sb "$d" c.img 1 AAA 2
  : > "$d/nbdkit.log"
  start "$d" read-policy=round-robin a.img b.img c.img
  read_back "$d" "$d/A"
  stop "$d"
  if grep -q "stale" "$d/nbdkit.log"; then
    fail "a member one event behind, its role confirmed, was left out"
  fi
  check_sb "$d" c.img 4 AAA 2
  set_events "$d/c.img" 2
  : > "$d/nbdkit.log"
  start "$d" a.img b.img c.img
  grep -q "member 2 (c.img) is stale: events [0-9]* < [0-9]*; not trusted" \
    "$d/nbdkit.log" || fail "a member two events behind was used"
  stop "$d"
  say "behind1: ok"
}

# split.  Mutant killed: assemble_md not comparing a member's role with
# the freshest superblock's role table when the events are equal (both
# halves are used, and round-robin reads mix A and B).
scenario_split ()
{
  scenario split "two halves of a mirror run apart: the first given wins"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/a.img" "$d/b.img"
  create "$d" --level=1 --assume-clean a.img b.img
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/A"
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/B"
  start "$d" a.img missing
  copy_in "$d" "$d/A"
  stop "$d"
  start "$d" missing b.img
  copy_in "$d" "$d/B"
  stop "$d"
  check_sb "$d" a.img 2 A. 0
  check_sb "$d" b.img 2 .A 1
  : > "$d/nbdkit.log"
  start "$d" read-policy=round-robin a.img b.img
  read_back "$d" "$d/A"
  grep -q "member 1 (b.img) is stale: the freshest superblock (a.img's, events 2) lists it out of the array" \
    "$d/nbdkit.log" || fail "b.img was not called stale"
  stop "$d"
  say "split: ok"
}

# foreign.  Mutants killed: assemble_md not comparing the array UUIDs,
# or not comparing the shapes (both arrays are then served).
scenario_foreign ()
{
  scenario foreign "members of another array, or of another shape"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/a.img" "$d/b.img" "$d/c.img" "$d/d.img" "$d/e.img" \
    "$d/f.img"
  create "$d" --level=1 --name=one a.img b.img
  create "$d" --level=1 --name=two c.img d.img
  refused "$d" member "c.img is a member of another array: UUID" \
    level=1 a.img c.img
  create "$d" --level=10 --chunk=64K --uuid=01234567:89abcdef:01234567:89abcdef \
    e.img f.img
  cp "$d/f.img" "$d/f64.img"
  create "$d" --level=10 --chunk=128K --force \
    --uuid=01234567:89abcdef:01234567:89abcdef e.img f.img
  refused "$d" member "disagree on its shape: chunksize 256 and 128" \
    e.img f64.img
  say "foreign: ok"
}

# keys.  Mutant killed: check_keys accepting whatever is given (RAID 10
# served as the RAID 1 or chunk asked for).
scenario_keys ()
{
  scenario keys "level, chunk and copies given must agree"
  local d=$SCENARIO_DIR
  truncate -s 16M "$d/a.img" "$d/b.img" "$d/c.img" "$d/d.img"
  create "$d" --level=10 --chunk=64K a.img b.img c.img d.img
  refused "$d" level "level=1 given, but .* say RAID 10" \
    level=1 a.img b.img c.img d.img
  refused "$d" level "level=0 given" level=0 chunk=64K a.img b.img c.img d.img
  refused "$d" chunk "chunk=128K given, but .* say 64K" \
    level=10 chunk=128K a.img b.img c.img d.img
  refused "$d" copies "copies=3 given, but .* say 2 near copies" \
    copies=3 a.img b.img c.img d.img
  truncate -s 16M "$d/e.img" "$d/f.img"
  create "$d" --level=1 e.img f.img
  refused "$d" chunk "RAID 1, which has no chunk" chunk=64K e.img f.img
  nbdkit -U - --run true "$RAID_PLUGIN" \
     level=10 chunk=64K copies=2 a.img b.img c.img d.img \
    2>"$d/ok.err" || fail "the right keys were refused: $(cat "$d/ok.err")"
  say "keys: ok"
}

# missing.  Mutants killed: missing_ops not failing its member (I/O
# reaches it and fails it: "failed on" in the log); the role table
# written with a missing member's slot as active (Array State AAAA);
# assemble_md letting a RAID 0 start with a member missing; the count
# of members given not checked against raid_disks.
scenario_missing ()
{
  scenario missing "missing starts the array degraded"
  local d=$SCENARIO_DIR
  truncate -s 16M "$d/a.img" "$d/b.img" "$d/c.img" "$d/d.img"
  create "$d" --level=10 --chunk=64K --assume-clean a.img b.img c.img d.img
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/A"
  head -c "$ARRAY_SIZE" /dev/urandom > "$d/B"
  start "$d" level=10 chunk=64K a.img b.img c.img d.img
  copy_in "$d" "$d/A"
  stop "$d"
  : > "$d/nbdkit.log"
  start "$d" d.img missing b.img a.img
  grep -q "member 2 is missing; the array starts degraded, 3 of 4" \
    "$d/nbdkit.log" || fail "the log does not say member 2 is missing"
  read_back "$d" "$d/A"
  copy_in "$d" "$d/B"
  read_back "$d" "$d/B"
  stop "$d"
  if grep -q "failed on" "$d/nbdkit.log"; then
    fail "a member failed in a degraded run where none should"
  fi
  check_sb "$d" a.img 4 AA.A 0
  check_sb "$d" d.img 4 AA.A 3
  check_sb "$d" c.img 2 AAAA 2
  # c.img back: it missed B.
  : > "$d/nbdkit.log"
  start "$d" a.img b.img c.img d.img
  grep -q "member 2 (c.img) is stale: events [0-9]* < [0-9]*; not trusted" \
    "$d/nbdkit.log" || fail "c.img given back is not stale"
  read_back "$d" "$d/B"
  stop "$d"

  refused "$d" member "has 4 members, but 3 are given" a.img b.img d.img
  refused "$d" member "some of its chunks have no live copy" \
    a.img b.img missing missing
  truncate -s 8M "$d/e.img" "$d/f.img"
  create "$d" --level=0 --chunk=64K e.img f.img
  refused "$d" member "RAID 0 cannot start with a member missing" \
    e.img missing
  truncate -s 8M "$d/g.img" "$d/h.img"
  create "$d" --level=1 g.img missing h.img
  nbdkit -U - --run true "$RAID_PLUGIN" missing g.img h.img 2>"$d/ok.err" ||
    fail "an array created with missing does not start: $(cat "$d/ok.err")"
  say "missing: ok"
}

# none.  Mutants killed: metadata=none not probing the members (it
# serves md members from offset 0); metadata=1.2 accepting blank
# members; metadata_read not looking for version 1.0 at the end.
scenario_none ()
{
  scenario none "metadata=none and metadata=1.2"
  local d=$SCENARIO_DIR size off
  truncate -s 8M "$d/a.img" "$d/b.img" "$d/x.img" "$d/y.img"
  create "$d" --level=1 a.img b.img
  refused "$d" member "holds an md v1.2 superblock .* metadata=none" \
    metadata=none level=1 a.img b.img
  refused "$d" member "holds no md v1.2 superblock (metadata=1.2)" \
    metadata=1.2 level=1 x.img y.img
  # A version 1.0 superblock, 8K to 12K from the end: a.img's, moved.
  size=$(stat -c %s "$d/x.img")
  off=$(( ((size / 512 - 16) & ~7) * 512 ))
  dd if="$d/a.img" of="$d/x.img" bs=4096 skip=1 seek=$(( off / 4096 )) \
    count=1 conv=notrunc status=none
  refused "$d" member "x.img holds md metadata version 1.0" level=1 x.img y.img
  refused "$d" member "x.img holds md metadata (version 1.0)" \
    metadata=none level=1 x.img y.img
  say "none: ok"
}

# mix.  Mutant killed: metadata=auto serving a mix as superblock-less
# (data from offset 0, over a.img's superblock).
scenario_mix ()
{
  scenario mix "metadata=auto and members with and without metadata"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/a.img" "$d/b.img" "$d/x.img" "$d/y.img"
  create "$d" --level=1 a.img b.img
  head -c $(( 8 * MiB )) /dev/urandom > "$d/r.img"
  refused "$d" member "r.img holds data (its first or last MiB is not zeros), not md metadata of this array; refusing to write over it" \
    level=1 a.img r.img
  # Blank members: served as always, from offset 0, no superblock.
  head -c $(( 8 * MiB )) /dev/urandom > "$d/data"
  start "$d" level=1 x.img y.img
  copy_in "$d" "$d/data"
  stop "$d"
  cmp "$d/data" "$d/x.img" ||
    fail "a superblock-less member does not hold the data from offset 0"
  cmp "$d/data" "$d/y.img" ||
    fail "a superblock-less member does not hold the data from offset 0"
  say "mix: ok"
}

# ro.  Mutant killed: metadata_start or metadata_stop writing under
# nbdkit -r (the events move).
scenario_ro ()
{
  scenario ro "nbdkit -r writes no superblock"
  local d=$SCENARIO_DIR
  truncate -s 8M "$d/a.img" "$d/b.img"
  create "$d" --level=1 a.img b.img
  sha256sum -- *.img >"$d/before"
  # shellcheck disable=SC2016 # $uri is nbdkit --run's, not ours
  nbdkit -r -U - "$RAID_PLUGIN" level=1 a.img b.img \
     --run 'nbdcopy "$uri" out.data' 2>"$d/ro.err" ||
    fail "nbdkit -r failed: $(cat "$d/ro.err")"
  sha256sum -- *.img | cmp -s - "$d/before" ||
    fail "nbdkit -r changed a member"
  check_sb "$d" a.img 0 AA 0
  say "ro: ok"
}

all=(shuffle stale crash crash1 behind1 split foreign keys missing none mix ro)
run_scenarios "${@:-${all[@]}}"
say "all scenarios passed"
