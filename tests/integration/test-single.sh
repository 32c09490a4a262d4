#!/bin/bash
# raidsim tests: one-member arrays (issue 14: "one-member arrays cannot
# be served").  md runs a RAID 0 or RAID 1 of one member, and mdadm
# --create makes one only with --force; so do raidsim create and the
# plugin, and model= serves the simulator's single drives (level =
# single) over one member.
#
# none     metadata=none: level=1 of one 8M+4K member serves all of it,
#          level=0 chunk=64K its whole chunks (8M); random data goes in
#          and out with nbdcopy, and the member holds it at the same
#          offsets (array byte x is member byte x).  Kills: the core's
#          old refusal of one member; a one-member RAID 0 that rounds
#          like a wider one, or maps through a stripe.
# create   raidsim create --level=1 of one member without --force is
#          refused (exit 1, one line naming member and saying --force,
#          the member untouched); with --force the superblock says Raid
#          Devices 1, the plugin assembles it without level=, serves the
#          size create printed, the data lands past md's data offset and
#          reads back after a restart.  The same for RAID 0 with --force.
#          Kills: the --force check removed or inverted; assembly that
#          refuses raid_disks 1; a data offset left out of the mapping.
#          A one-member RAID 1 is marked dirty while written and clean
#          after, as md does (its first resync ends at once: one copy):
#          clean after a clean stop, active after a kill -9 inside a
#          write load, clean after the next start.  Kills: safe mode off
#          for one copy (stays active forever); resync_done skipped.
# model    model= of a single drive (a fixed 2 ms device) over one
#          member: served as a one-member RAID 1, data round trip, and
#          40 reads at QD1 (nbd-io) take at least 40 x 2 ms and are all
#          counted in the statistics' timing object; two members, or
#          level=10, are refused naming the key; md members of a
#          one-member RAID 0 are served with it; the shipped
#          configs/arrays/single-hdd-7200.ini starts over one member.
#          Kills: single refused again; a single drive left untimed
#          (timing_begin skipping it); level 0 refused for single.
#
# (mdadm's own view of one-member superblocks is test-mdadm.sh's.)
#
# Run: meson test -C build single
#  or: tests/integration/test-single.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires nbdcopy
requires nbdinfo
requires_perl_module JSON::PP

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
cd "$tmp"
keep_going

# start ARGS...: serve the plugin with ARGS on $tmp/sock (log: nbdkit.log).
start ()
{
  : > nbdkit.log
  if ! serve "$tmp/sock" nbdkit.log "$RAID_PLUGIN" "$@"; then
    fail "the plugin did not start with $*"
    return 1
  fi
}
stop () { stop_pid "$SERVE_PID"; }

# roundtrip WHAT SIZE MEMBER OFFSET: the array served on $tmp/sock is
# SIZE bytes; random data copied in reads back, and MEMBER holds it
# from byte OFFSET on.  Leaves the data in data.WHAT.
roundtrip ()
{
  local what=$1 size=$2 member=$3 offset=$4 got
  got=$(nbdinfo --size "$(uri "$tmp/sock")")
  if [ "$got" != "$size" ]; then
    fail "$what: the array has $got bytes, want $size"
    return
  fi
  head -c "$size" /dev/urandom > "data.$what"
  nbdcopy "data.$what" "$(uri "$tmp/sock")" || { fail "$what: copying in"; return; }
  rm -f out
  nbdcopy "$(uri "$tmp/sock")" out || { fail "$what: reading back"; return; }
  if cmp -s "data.$what" out; then
    ok "$what: $size bytes in and out"
  else
    fail "$what: the array read back different data"
  fi
  rm -f out
  if cmp -s -i "$offset:0" -n "$size" "$member" "data.$what"; then
    ok "$what: the member holds the data from byte $offset on"
  else
    fail "$what: $member does not hold the data from byte $offset on"
  fi
}

# refused KEY ARGS...: the plugin refuses ARGS with one error naming KEY.
refused ()
{
  local key=$1
  shift
  if nbdkit -U - "$RAID_PLUGIN" "$@" --run true > refuse.log 2>&1; then
    fail "$*: accepted"
  elif [ "$(grep -c 'error' refuse.log)" -ne 1 ] ||
       ! grep -q "error: $key: " refuse.log; then
    fail "$*: not one error line naming $key: $(cat refuse.log)"
  else
    ok "refused, naming $key: $*"
  fi
}

# ---- none -----------------------------------------------------------

truncate -s $(( 8 * 1048576 + 4096 )) n1.img n0.img
if start level=1 n1.img; then
  roundtrip none-raid1 $(( 8 * 1048576 + 4096 )) n1.img 0
  stop
fi
if start level=0 chunk=64K n0.img; then
  roundtrip none-raid0 $(( 8 * 1048576 )) n0.img 0
  stop
fi

# ---- create ---------------------------------------------------------

truncate -s 32M c1.img c0.img
sha256sum c1.img > c1.sum
status=0
"$RAIDSIM" create --level=1 c1.img > create.out 2> create.err || status=$?
if [ $status -ne 1 ]; then
  fail "create --level=1 of one member without --force: exit $status, want 1"
elif [ "$(grep -c . create.err)" -ne 1 ] ||
     ! grep -q '^raidsim create: member: .*--force' create.err; then
  fail "create without --force: not one line naming member and --force: $(cat create.err)"
else
  ok "create without --force refused: $(cat create.err)"
fi
sha256sum -c --quiet c1.sum || fail "create without --force wrote to c1.img"

# create_force LEVEL MEMBER ARGS...: sets DOFF and SIZE (bytes) from
# what raidsim create prints.
create_force ()
{
  local level=$1 member=$2
  shift 2
  if ! "$RAIDSIM" create --force --level="$level" "$@" "$member" \
       > create.out 2>&1; then
    fail "create --force --level=$level $member: $(cat create.out)"
    return 1
  fi
  DOFF=$(sed -n 's/^  data offset: .*sectors (\([0-9]*\) bytes).*/\1/p' create.out)
  SIZE=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' create.out)
  if "$RAIDSIM" examine "$member" > examine.out 2>&1 &&
     grep -q '^   Raid Devices : 1$' examine.out; then
    ok "create --force --level=$level: Raid Devices : 1"
  else
    fail "create --force --level=$level: examine says: $(cat examine.out)"
  fi
}

# state MEMBER: the superblock's State (clean or active), by examine.
state ()
{
  "$RAIDSIM" examine "$1" 2>&1 | sed -n 's/^          State : //p'
}

if create_force 1 c1.img && start c1.img; then
  roundtrip md-raid1 "$SIZE" c1.img "$DOFF"
  stop
  # md resyncs a new RAID 1 at its first start; with one copy the resync
  # has nowhere to write and ends at once, and a clean stop leaves the
  # array clean, as after md's stop.
  if ! grep -q 'resync: one copy, nothing to resync' nbdkit.log; then
    fail "md-raid1: the first start did not end the resync at once: $(cat nbdkit.log)"
  fi
  st=$(state c1.img)
  [ "$st" = clean ] && ok "md-raid1: clean after a clean stop" ||
    fail "md-raid1: State '$st' after a clean stop, want clean"
  # After a clean stop and a restart, the same data.
  if start c1.img; then
    rm -f out
    if nbdcopy "$(uri "$tmp/sock")" out && cmp -s out data.md-raid1; then
      ok "md-raid1: the data reads back after a restart"
    else
      fail "md-raid1: the data does not read back after a restart"
    fi
    # Dirty while written: a kill -9 from inside a write load (nbd-io
    # kills after the 8th acknowledged write, with more in flight)
    # leaves the superblock active; the next start has nothing to
    # resync, and a clean stop after it leaves the array clean.
    for (( i = 0; i < 64; i++ )); do echo "w $(( i * 65536 )) 65536"; done |
      "$NBD_IO" --depth 8 --kill-after "8:$SERVE_PID" "$(uri "$tmp/sock")" \
      > /dev/null 2>&1 || true
    wait "$SERVE_PID" 2>/dev/null || true
    st=$(state c1.img)
    [ "$st" = active ] && ok "md-raid1: active after a kill -9 while writing" ||
      fail "md-raid1: State '$st' after a kill -9 while writing, want active"
    # (The array starts at the first connection, when nbdkit -r is
    # known: nbdinfo connects.)
    if start c1.img; then
      nbdinfo --size "$(uri "$tmp/sock")" > /dev/null || fail "md-raid1: nbdinfo after the crash"
      stop
      st=$(state c1.img)
      if [ "$st" = clean ] &&
         grep -q 'resync: one copy, nothing to resync' nbdkit.log; then
        ok "md-raid1: after the crash, nothing to resync, then clean"
      else
        fail "md-raid1: after the crash: State '$st'; log: $(cat nbdkit.log)"
      fi
    fi
  fi
fi
if create_force 0 c0.img --chunk=64K && start c0.img; then
  roundtrip md-raid0 "$SIZE" c0.img "$DOFF"
  stop
fi

# ---- model ----------------------------------------------------------

cat > fixed-2ms.ini <<'EOF'
; Written by tests/integration/test-single.sh.
[device]
model = fixed
capacity = 64M
latency = 2ms
parallelism = 1
EOF
printf '; Written by tests/integration/test-single.sh.\n[controller]\nmodel = generic\n' \
  > nothing.ini
cat > single.ini <<'EOF'
; Written by tests/integration/test-single.sh: one 2 ms drive.
[array]
level = single
members = 1
device = fixed-2ms.ini
controller = nothing.ini
EOF

truncate -s 16M s1.img s2.img
if start model="$tmp/single.ini" s1.img; then
  roundtrip model-single $(( 16 * 1048576 )) s1.img 0
  stop
fi
# 40 reads at QD1, each one 2 ms on the model.
for i in $(seq 0 39); do echo "r $(( i * 4096 * 7 )) 4096"; done > reads
if start model="$tmp/single.ini" stats="$tmp/stats.json" s1.img; then
  t0=$(date +%s%N)
  "$NBD_IO" --depth 1 "$(uri "$tmp/sock")" < reads || fail "model: nbd-io failed"
  t1=$(date +%s%N)
  stop
  ms=$(( (t1 - t0) / 1000000 ))
  if [ "$ms" -ge 80 ]; then
    ok "model: 40 reads of a 2 ms drive took $ms ms (at least 80)"
  else
    fail "model: 40 reads of a 2 ms drive took $ms ms, less than 80"
  fi
  # The plugin's own view, without nbd-io's start: 40 reads timed, and
  # none of them shorter than the drive's 2 ms.
  got=$(perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die;
          my $j = decode_json (<$f>); my $t = $j->{timing};
          my $r = $j->{array}{lat_ns}{read};
          printf "%s %d %d", $t ? $t->{requests} : "none", $r->{count},
                 $r->{min}' "$tmp/stats.json")
  read -r n count min <<< "$got"
  if [ "$n" = 40 ] && [ "$count" = 40 ] && [ "$min" -ge 2000000 ]; then
    ok "model: 40 reads timed, the quickest $min ns (a 2 ms drive)"
  else
    fail "model: $n timed of $count reads, the quickest $min ns; want 40, 40 and at least 2000000"
  fi
fi
refused member model="$tmp/single.ini" s1.img s2.img
refused level model="$tmp/single.ini" level=10 s1.img
# md members of a one-member RAID 0: level 0 serves a single drive too.
truncate -s 32M m0.img
if create_force 0 m0.img --chunk=64K; then
  if nbdkit -U - "$RAID_PLUGIN" model="$tmp/single.ini" m0.img --run true \
       > accept.log 2>&1; then
    ok "model: a one-member md RAID 0 served with a single drive's file"
  else
    fail "model: a one-member md RAID 0 refused: $(cat accept.log)"
  fi
fi
# The shipped single-drive files: one 1 TB disk over a 16M member (the
# model folds the requests past the member's end back into it).
if start model="$SRCDIR/configs/arrays/single-hdd-7200.ini" s2.img; then
  if echo "r 0 4096" | "$NBD_IO" "$(uri "$tmp/sock")"; then
    ok "model: configs/arrays/single-hdd-7200.ini served over one member"
  else
    fail "model: a read of configs/arrays/single-hdd-7200.ini failed"
  fi
  stop
fi

end_checks PASS
