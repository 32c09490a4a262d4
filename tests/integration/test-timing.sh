#!/bin/bash
# raidsim tests: model=ARRAY.ini makes the emulated array as slow as the
# array file says, and the simulator agrees.
#
# The array: a RAID 0 of two `fixed` drives (every request takes exactly
# 2 ms, 4 at once per drive) behind a controller that adds nothing (the
# generic model with its defaults: no overhead, no coalescing, links
# without a rate).  From first principles, with 4 KiB random reads:
#   QD1: each request takes 2 ms, so 500 IOPS and a mean of 2000 us;
#   QD4: at most 4 requests are at a drive, none ever waits, so every
#        request takes 2 ms again and 4 in flight give 2000 IOPS.
# One job file holds both jobs (stonewall); bench/crosscheck.sh runs it
# through fio's nbd engine against nbdkit-raid-plugin model=ARRAY.ini
# and through `raidsim run`, and must find IOPS and mean latency within
# 25% of each other (--check 0.25); fio's figures must also be within
# 25% of the ones above.  2 ms is far above this host's own path (tens
# of microseconds, docs/realtime.md), so the tolerance is for a busy
# machine's scheduling, not for the emulator: timing switched off gives
# about 0.05x, timing doubled 2x.
#
# Then the refusals: level=, chunk=, a member count or members' md
# metadata that conflicts with the file fails with one line naming the
# key.  And (section 3) a client flush is timed by the models: a flush
# of drives with flush_latency 300ms takes at least 300 ms, and still
# reaches the members.
#
# Takes about 3 s.
#
# Run: meson test -C build timing
#  or: tests/integration/test-timing.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN
requires nbdkit
requires_fio_nbd
requires_perl_module JSON::PP

tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
keep_going

cat > "$tmp/fixed-2ms.ini" <<'EOF'
; Written by tests/integration/test-timing.sh.
[device]
model = fixed
capacity = 1G
latency = 2ms
parallelism = 4
EOF
cat > "$tmp/nothing.ini" <<'EOF'
; Written by tests/integration/test-timing.sh: a controller that adds
; no time (the generic model's defaults).
[controller]
model = generic
EOF
cat > "$tmp/array.ini" <<'EOF'
; Written by tests/integration/test-timing.sh.
[array]
level = 0
members = 2
chunk = 64K
device = fixed-2ms.ini
controller = nothing.ini
EOF
cat > "$tmp/job.fio" <<'EOF'
; Written by tests/integration/test-timing.sh.
[global]
bs=4k
rw=randread
size=256m
[qd1]
iodepth=1
number_ios=300
[qd4]
stonewall
iodepth=4
number_ios=1200
EOF

# 1. The cross-check, and the figures from first principles.
if ! OUT="$tmp/out" BENCH_DIR="$tmp" "$SRCDIR/bench/crosscheck.sh" \
     --check 0.25 "$tmp/array.ini" "$tmp/job.fio" > "$tmp/cc.log" 2>&1; then
  cat "$tmp/cc.log"
  fail "the emulator and raidsim disagree beyond 25% (above)"
else
  cat "$tmp/cc.log"
fi
if [ -s "$tmp/out/fio.json" ]; then
  if ! perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die; my $t = <$f>;
    $t =~ s/^[^{]*//s; my $j = decode_json ($t);
    my %want = (qd1 => [500, 2000], qd4 => [2000, 2000]);
    my $bad = 0;
    for my $job (@{$j->{jobs}}) {
      my ($iops, $mean) = @{$want{$job->{jobname}}};
      my $r = $job->{read};
      my ($gi, $gm) = ($r->{iops}, $r->{clat_ns}{mean} / 1e3);
      printf "%s: %.0f IOPS (want %d), mean %.0f us (want %d)\n",
             $job->{jobname}, $gi, $iops, $gm, $mean;
      $bad = 1 if abs ($gi / $iops - 1) > 0.25 || abs ($gm / $mean - 1) > 0.25;
    }
    exit $bad;' "$tmp/out/fio.json"; then
    fail "fio's figures are not those of 2 ms drives"
  fi
  if ! perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die;
    my $t = decode_json (<$f>)->{timing} or die "no timing object\n";
    exit ($t->{requests} >= 1500 ? 0 : 1);' "$tmp/out/stats.json"; then
    fail "the statistics' timing object does not count the 1500 requests"
  fi
fi

# 2. Conflicts with the file: one line naming the key, non-zero exit.
truncate -s 64M "$tmp/a.img" "$tmp/b.img" "$tmp/c.img"
refuse ()
{
  local key=$1
  shift
  if nbdkit -U - "$RAID_PLUGIN" model="$tmp/array.ini" "$@" --run true \
       > "$tmp/refuse.log" 2>&1; then
    fail "$*: accepted despite model=$tmp/array.ini"
    return
  fi
  if [ "$(grep -c 'error' "$tmp/refuse.log")" -ne 1 ] ||
     ! grep -q "error: $key: " "$tmp/refuse.log"; then
    cat "$tmp/refuse.log"
    fail "$*: not one error line naming $key"
  fi
}
refuse level level=1 "$tmp/a.img" "$tmp/b.img"
refuse chunk chunk=128K "$tmp/a.img" "$tmp/b.img"
refuse member "$tmp/a.img" "$tmp/b.img" "$tmp/c.img"
# md metadata that says otherwise than the file (raidsim create writes
# superblocks as mdadm --create does): RAID 10, and RAID 0 with 128K
# chunks.  With the file's own shape it is served.
if [ -x "$RAIDSIM" ]; then
  truncate -s 64M "$tmp/md10a.img" "$tmp/md10b.img" "$tmp/md0a.img" \
    "$tmp/md0b.img" "$tmp/okA.img" "$tmp/okB.img"
  "$RAIDSIM" create --level=10 --chunk=64K "$tmp/md10a.img" "$tmp/md10b.img" \
    > /dev/null
  "$RAIDSIM" create --level=0 --chunk=128K "$tmp/md0a.img" "$tmp/md0b.img" \
    > /dev/null
  "$RAIDSIM" create --level=0 --chunk=64K "$tmp/okA.img" "$tmp/okB.img" \
    > /dev/null
  refuse level "$tmp/md10a.img" "$tmp/md10b.img"
  refuse chunk "$tmp/md0a.img" "$tmp/md0b.img"
  if ! nbdkit -U - "$RAID_PLUGIN" model="$tmp/array.ini" "$tmp/okA.img" \
       "$tmp/okB.img" --run true > "$tmp/accept.log" 2>&1; then
    cat "$tmp/accept.log"
    fail "md members of the file's own shape refused"
  fi
fi
# The same values as the file's are accepted.
if ! nbdkit -U - "$RAID_PLUGIN" model="$tmp/array.ini" level=0 chunk=64K \
     "$tmp/a.img" "$tmp/b.img" --run true > "$tmp/accept.log" 2>&1; then
  cat "$tmp/accept.log"
  fail "level=0 chunk=64K, as in the file, refused"
fi

# 3. A client flush goes through the models (flush_latency = 300ms on
# both drives, which flush at once) and still reaches the members: one
# flush takes at least 300 ms, the statistics count it as timed, and
# each member file got its real flush.  Mutants killed: the flush not
# timed (a few ms); the real flush dropped (members' flush ops 0).
if [ -x "${NBD_IO:-}" ]; then
  printf '; Written by tests/integration/test-timing.sh.\n[device]\nmodel = fixed\ncapacity = 1G\nlatency = 2ms\nflush_latency = 300ms\n' \
    > "$tmp/fixed-flush.ini"
  sed 's/fixed-2ms.ini/fixed-flush.ini/' "$tmp/array.ini" > "$tmp/flush.ini"
  truncate -s 64M "$tmp/f0.img" "$tmp/f1.img"
  serve "$tmp/f.sock" "$tmp/f.log" "$RAID_PLUGIN" model="$tmp/flush.ini" \
    stats="$tmp/f.json" "$tmp/f0.img" "$tmp/f1.img"
  t0=$(date +%s%N)
  echo f | "$NBD_IO" "nbd+unix:///?socket=$tmp/f.sock" ||
    fail "the flush failed"
  t1=$(date +%s%N)
  stop_pid "$SERVE_PID"
  ms=$(( (t1 - t0) / 1000000 ))
  if [ "$ms" -lt 300 ]; then
    fail "a flush of two drives with flush_latency 300ms took $ms ms"
  else
    echo "a flush with flush_latency 300ms took $ms ms"
  fi
  if ! perl -MJSON::PP -e '
    local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json (<$f>);
    my $t = $j->{timing} or die "no timing object\n";
    my @m = map { $_->{ops}{flush} } @{$j->{members}};
    print "timed: $t->{requests}; member flushes: @m\n";
    exit ($t->{requests} == 1 && "@m" eq "1 1" ? 0 : 1);' "$tmp/f.json"; then
    fail "the flush was not timed once, or did not reach both members"
  fi
else
  echo "section 3 skipped: NBD_IO (build/tests/lib/nbd-io) is not given"
fi

end_checks PASS
