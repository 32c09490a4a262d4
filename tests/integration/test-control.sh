#!/bin/bash
# raidsim tests: the raid plugin's control socket (control=PATH) and
# `raidsim control` (issue 13, item 6).  A RAID 1 of two files made by
# raidsim create, served with the control socket.
#
# socket    the socket is mode 0600; a stale socket left at PATH is
#           replaced, a regular file there is refused and left as it was.
#           Mutant killed: bind without the umask and chmod 0600 (the
#           socket is 0755).
# peer      with the socket opened up to everyone (chmod 0666, as an
#           attacker would find a careless one), `raidsim control ...
#           fail 1` run as nobody (setpriv) is refused by SO_PEERCRED,
#           logged, and member 1 stays active (mdadm --examine agrees).
#           Mutant killed: serve() without the uid comparison (nobody's
#           fail fails member 1).
# bad       an unknown verb, the wrong arguments, a request of 2000
#           bytes that starts "fail 1", and "fail 1" followed by a NUL
#           byte (sent raw with perl) all get {"error": ...} and change
#           nothing: both members stay active, the events in the
#           superblocks stay where they were.
#           Mutants killed: no length limit (serve_request handling the
#           first CONTROL_LINE_MAX bytes of a longer line, and
#           control_handle not checking the length); serve_request not
#           refusing a NUL byte (each fails member 1).
# load      fio writes with verify=crc32c behind nbdkit's delay filter;
#           once the plugin has written, `fail 1`; fio's verify passes,
#           detail says member 1 is faulty, later writes went to member
#           0 only, and mdadm --examine of member 0 says "A.".
#           Mutant killed: do_fail marking no member failed (detail
#           says active sync; member 1 takes every write).
# last      `fail 0` then is refused (the last in-sync copy) and member 0
#           stays active.  Mutant killed: do_fail setting failed without
#           request_mark_failed's check.
# remove    `remove 0` (active) is refused; `remove 1` (faulty) empties
#           role 1: detail says removed, nbdkit no longer has b.img open
#           (/proc/PID/fd), and the superblock's events go one on.
#           Mutant killed: do_remove without ops->close (b.img stays
#           open).
# quiet     a second RAID 1, read once and then left idle: `fail f.img`
#           (by name) is in e.img's superblock (mdadm: "A.") as soon as
#           the answer comes, with no write since to record it.
#           Mutant killed: do_fail without metadata_record (mdadm says
#           AA).
# takeover  a third RAID 1 (its rebuild held at 1 KiB/s after its
#           first step, so that detail does not change): `fail 1`,
#           then `add i.img`, which takes role 1; as md keeps a faulty
#           device until mdadm --remove, detail lists h.img as faulty
#           (JSON "replaced", former role 1, failed_disks 1; mdstat
#           "h.img[1](F)") and nbdkit still has it open; `remove h.img`
#           then closes it (/proc/PID/fd), takes it off detail and the
#           mdstat line, and puts the events one on; a second remove
#           finds no such member.
#           Mutants killed: take_spares setting SPARE_OLD as before (no
#           "replaced" entry); mdstat_of leaving the replaced ones out
#           (mdstat and JSON disagree); recovery_remove_replaced without
#           ops->close (h.img stays open); remove not finding replaced
#           members (find_member without replaced_too: "no such
#           member").
# mdstat    in every state above, the /proc/mdstat form and the JSON
#           agree, and both say what the state is from first principles:
#           "[2/2] [UU]", then "[2/1] [U_]" with "b.img[1](F)", then no
#           b.img.  Mutant killed: mdstat_of counting faulty members as
#           working ("[2/2]" after the fail).
#
# Skips (77) if nbdkit or its delay filter, fio, mdadm, perl's JSON::PP
# or setpriv is missing, or if not run as root (nobody's uid is needed).
#
# Run: meson test -C build control
#  or: tests/integration/test-control.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires fio
requires mdadm
requires setpriv "to run a client as nobody"
requires_perl_module JSON::PP
requires_root "to run a client as nobody"
requires_nbdkit_filter delay
requires_fio_nbd

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-control.XXXXXX")
at_exit rm -rf "$tmp"
d=$tmp
cd "$d"
FAIL_LOGS=("$d/nbdkit.log")
CTL=$d/ctl

# detail NAME: the JSON detail into NAME.json, checked against its own
# mdstat form: every member the mdstat line shows is in the JSON with
# that role and (F) exactly when faulty, the removed ones are not shown,
# the faulty ones that spares replaced come last with (F) and the role
# they had, failed_disks counts every faulty one, and [n/m] [U_] say
# what the states of the roles' members say.
detail ()
{
  ctl --json detail >"$1.json" 2>"$1.err" || fail "detail: $(cat "$1.err")"
  perl -MJSON::PP -0777 -e '
    open my $f, "<", $ARGV[0] or die;
    my $d = decode_json (<$f>);
    my @l = split /\n/, $d->{mdstat};
    my @m = @{$d->{members}};
    my ($want_dev, $n, $w, $u) = ("", scalar @m, 0, "");
    my ($f, @r) = (0, @{$d->{replaced}});
    for my $x (reverse @m) {
      next if $x->{state} eq "removed";
      $want_dev .= " $x->{device}\[$x->{role}\]" .
        ($x->{state} eq "faulty" ? "(F)" : "");
    }
    for my $x (@r) {
      $x->{state} eq "faulty" or die "a replaced member is $x->{state}\n";
      $want_dev .= " $x->{device}\[$x->{former_role}\](F)";
    }
    for my $x (@m) {
      my $ok = $x->{state} eq "active sync";
      $w++ if $ok;
      $f++ if $x->{state} eq "faulty";
      $u .= $ok ? "U" : "_";
    }
    $f + @r == $d->{failed_disks} or die "failed_disks\n";
    my $l0 = "$d->{array} : active $d->{level}$want_dev";
    $l[0] eq $l0 or die "mdstat says \"$l[0]\", the JSON \"$l0\"\n";
    $l[1] =~ /^\s+(\d+) blocks super 1\.2 \[(\d+)\/(\d+)\] \[([U_]+)\]$/
      or die "mdstat line 2: $l[1]\n";
    $1 == $d->{size} / 1024 && $2 == $n && $3 == $w && $4 eq $u
      or die "mdstat \"$l[1]\" against JSON [$n/$w] [$u]\n";
    $w == $d->{working_disks} or die "working_disks\n";
  ' "$1.json" >"$1.cmp" 2>&1 || fail "mdstat and JSON disagree: $(cat "$1.cmp")"
  ctl detail >"$1.txt" 2>&1 || fail "detail: $(cat "$1.txt")"
  [ "$(cat "$1.txt")" = "$(jget "$1.json" mdstat)" ] ||
    fail "raidsim control prints $(cat "$1.txt"), not the JSON's mdstat"
}

# expect_error NAME PATTERN VERB...: the request is refused with PATTERN.
expect_error ()
{
  local name=$1 pat=$2
  shift 2
  if ctl "$@" >"$name.out" 2>"$name.err"; then
    fail "$* was accepted: $(cat "$name.out")"
  fi
  grep -q -- "$pat" "$name.err" ||
    fail "$*: expected an error with \"$pat\", got: $(cat "$name.err")"
}

array_state () { md_field "$1" 'Array State' | sed 's/ .*//'; }

both_active ()
{
  detail "$1"
  [ "$(jget "$1.json" members.0.state)" = "active sync" ] &&
    [ "$(jget "$1.json" members.1.state)" = "active sync" ] ||
    fail "$2 changed the array: $(jget "$1.json" mdstat)"
  [ "$(md_events a.img)" = "$ev" ] && [ "$(md_events b.img)" = "$ev" ] ||
    fail "$2 changed the superblocks' events: $ev -> $(md_events a.img) $(md_events b.img)"
}

truncate -s 32M a.img b.img
"$RAIDSIM" create --level=1 --assume-clean a.img b.img >create.out 2>&1 ||
  fail "raidsim create: $(cat create.out)"

# ---- socket: mode, stale socket, a file in the way --------------------
say "socket: a regular file at PATH is refused and left alone"
echo precious >ctl
if nbdkit --foreground -U "$d/sock" "$RAID_PLUGIN" a.img b.img \
     control="$d/ctl" >refuse.log 2>&1 </dev/null; then
  fail "nbdkit started with a regular file at control="
fi
grep -q "control: .*ctl exists and is not a socket" refuse.log ||
  fail "no clear message: $(cat refuse.log)"
[ "$(cat ctl)" = precious ] || fail "the file at control= was changed"
rm ctl

say "socket: a stale socket is replaced"
perl -MIO::Socket::UNIX -e 'IO::Socket::UNIX->new (Local => $ARGV[0],
  Listen => 1) or die "$!"' "$d/ctl"
[ -S ctl ] || fail "could not make a stale socket"
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" a.img b.img \
  control="$d/ctl" || fail "the plugin did not start over a stale socket"
[ "$(stat -c %a ctl)" = 600 ] || fail "the socket's mode is $(stat -c %a ctl), not 600"
say "socket: mode 600"

# The verbs that change the array wait for the first connection.
expect_error early "not running yet" fail 1
"$NBD_IO" "nbd+unix:///?socket=$d/sock" <<<"r 0 4096" >/dev/null ||
  fail "the array cannot be read"
ev=$(md_events a.img)
detail clean
[ "$(jget clean.json mdstat | sed -n 2p)" = \
  "      $(( $(jget clean.json size) / 1024 )) blocks super 1.2 [2/2] [UU]" ] ||
  fail "mdstat of a whole array: $(jget clean.json mdstat)"

# ---- peer: another uid ------------------------------------------------
say "peer: nobody's fail is refused"
chmod 0755 "$d"
cp "$RAIDSIM" "$d/raidsim-copy"
chmod 0755 "$d/raidsim-copy"
chmod 0666 ctl
if setpriv --reuid=65534 --regid=65534 --clear-groups \
     "$d/raidsim-copy" control "$d/ctl" fail 1 >nobody.out 2>nobody.err; then
  fail "nobody's fail was accepted: $(cat nobody.out)"
fi
grep -q "permission denied: uid 65534" nobody.err ||
  fail "nobody got: $(cat nobody.err)"
chmod 0600 ctl
grep -q "control: refused a request from uid 65534" nbdkit.log ||
  fail "the refusal is not logged"
both_active peer "nobody's fail"

# ---- bad requests -----------------------------------------------------
say "bad: unknown verbs, wrong arguments, oversized and NUL requests"
expect_error unknown "frobnicate: unknown verb" frobnicate 1
expect_error args "fail: expected MEMBER" fail
expect_error args2 "fail: expected MEMBER" fail 1 2
expect_error nomember "no such member" fail 7
# Raw requests: 2000 bytes that start with a valid "fail 1", and "fail
# 1" cut by a NUL byte.
raw ()
{
  perl -MIO::Socket::UNIX -e '
    my $s = IO::Socket::UNIX->new (Peer => $ARGV[0]) or die "connect: $!";
    print $s $ARGV[1] eq "long" ? "fail 1" . (" " x 2000) . "\n"
                                : "fail 1\0junk\n";
    shutdown $s, 1;
    local $/; print scalar <$s>;
  ' "$d/ctl" "$1"
}
raw long >long.out
grep -q '"error":"request too long' long.out || fail "long request: $(cat long.out)"
raw nul >nul.out
grep -q '"error":"malformed request: a NUL byte' nul.out || fail "NUL request: $(cat nul.out)"
both_active bad "the bad requests"

# ---- load: fail under fio with verify -------------------------------
say "load: fail 1 under fio's verified writes"
stop_pid "$SERVE_PID"
ev=$(md_events a.img)
: >nbdkit.log
serve "$d/sock" "$d/nbdkit.log" --filter=delay "$RAID_PLUGIN" a.img b.img \
  control="$d/ctl" wdelay=10ms || fail "the plugin did not start"
fio --name=load --ioengine=nbd --uri="nbd+unix:///?socket=$d/sock" \
  --rw=randwrite --bs=4k --size=4M --iodepth=4 --verify=crc32c \
  --do_verify=1 --verify_fatal=1 --randrepeat=1 --output=fio.out \
  >fio.stdout 2>&1 &
fio_pid=$!
# Once the plugin has written to both members, fail member 1: the load
# is then half-way through its writes (1024 of them at 10 ms, 4 at once).
for (( i = 0; i < 300; i++ )); do
  detail before
  [ "$(jget before.json members.1.writes)" -ge 64 ] && break
  sleep 0.05
done
[ "$(jget before.json members.1.writes)" -ge 64 ] ||
  fail "fio did not write (member 1: $(jget before.json members.1.writes) writes)"
ctl fail 1 >fail.out 2>&1 || fail "fail 1: $(cat fail.out)"
grep -q "set member 1 (b.img) faulty" fail.out || fail "fail 1 said: $(cat fail.out)"
# Recorded in member 0's superblock before the answer.
[ "$(array_state a.img)" = "A." ] ||
  fail "after fail 1 mdadm says member 0's Array State is $(array_state a.img)"
wait "$fio_pid" || fail "fio failed: $(cat fio.out fio.stdout)"
grep -q "err= 0" fio.out || fail "fio reports errors: $(cat fio.out)"
detail failed
[ "$(jget failed.json members.1.state)" = faulty ] ||
  fail "member 1 is $(jget failed.json members.1.state) after fail 1"
w0=$(jget failed.json members.0.writes)
w1=$(jget failed.json members.1.writes)
[ "$w1" -lt 1024 ] && [ "$w0" -ge 1024 ] ||
  fail "member 0 took $w0 writes and member 1 $w1: the fail did not come during the load"
grep -q "$(jget failed.json size | awk '{print $1 / 1024}') blocks super 1.2 \[2/1\] \[U_\]" failed.txt ||
  fail "mdstat after fail 1: $(cat failed.txt)"
grep -q "b.img\[1\](F) a.img\[0\]" failed.txt || fail "mdstat after fail 1: $(cat failed.txt)"
say "  fio verified every block; member 0 took $w0 writes, member 1 $w1"

# ---- last: the last in-sync member ----------------------------------
say "last: fail 0 is refused"
expect_error last "holds the last in-sync copy" fail 0
detail last
[ "$(jget last.json members.0.state)" = "active sync" ] ||
  fail "member 0 is $(jget last.json members.0.state) after a refused fail"

# ---- remove ---------------------------------------------------------------
say "remove: refused on an active member, done on the faulty one"
expect_error rm0 "is active in the array" remove 0
ls -l "/proc/$SERVE_PID/fd" >fd-before
grep -q "/b.img" fd-before || fail "nbdkit does not have b.img open before remove"
ev=$(md_events a.img)
ctl remove b.img >remove.out 2>&1 || fail "remove b.img: $(cat remove.out)"
detail removed
[ "$(jget removed.json members.1.state)" = removed ] ||
  fail "member 1 is $(jget removed.json members.1.state) after remove"
ls -l "/proc/$SERVE_PID/fd" >fd-after
if grep -q "/b.img" fd-after; then fail "b.img is still open after remove"; fi
[ "$(md_events a.img)" -gt "$ev" ] || fail "remove did not update the superblock"
if grep -q "b.img" removed.txt; then fail "mdstat still shows b.img: $(cat removed.txt)"; fi
expect_error rm1again "empty already" remove 1

stop_pid "$SERVE_PID"
[ ! -e ctl ] || fail "the control socket is left behind at exit"

# ---- quiet: the fail is in the superblock with no write to carry it --
say "quiet: fail 1 with no I/O is recorded before the answer"
truncate -s 32M e.img f.img
"$RAIDSIM" create --level=1 --assume-clean e.img f.img >create2.out 2>&1 ||
  fail "raidsim create: $(cat create2.out)"
: >nbdkit.log
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" e.img f.img \
  control="$d/ctl" || fail "the plugin did not start"
"$NBD_IO" "nbd+unix:///?socket=$d/sock" <<<"r 0 4096" >/dev/null ||
  fail "the array cannot be read"
[ "$(array_state e.img)" = "AA" ] || fail "before fail: $(array_state e.img)"
ctl fail f.img >quiet.out 2>&1 || fail "fail f.img: $(cat quiet.out)"
[ "$(array_state e.img)" = "A." ] ||
  fail "after fail f.img, with no write since, mdadm says $(array_state e.img)"
stop_pid "$SERVE_PID"

# ---- takeover: a faulty member that a spare replaced -------------------
say "takeover: the member a spare replaced is faulty in detail until remove"
truncate -s 32M g.img h.img i.img
"$RAIDSIM" create --level=1 --assume-clean g.img h.img >create3.out 2>&1 ||
  fail "raidsim create: $(cat create3.out)"
: >nbdkit.log
serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" g.img h.img \
  control="$d/ctl" sync-speed-min=1 sync-speed-max=1 ||
  fail "the plugin did not start"
"$NBD_IO" "nbd+unix:///?socket=$d/sock" <<<"r 0 4096" >/dev/null ||
  fail "the array cannot be read"
ctl fail 1 >tk-fail.out 2>&1 || fail "fail 1: $(cat tk-fail.out)"
ctl add i.img >tk-add.out 2>&1 || fail "add i.img: $(cat tk-add.out)"
for (( i = 0; i < 300; i++ )); do
  grep -q "spare .*i.img takes over role 1" nbdkit.log && break
  sleep 0.1
done
grep -q "spare .*i.img takes over role 1" nbdkit.log ||
  fail "i.img did not take over role 1"
# The rebuild's first step (two 1 MiB regions) done, it waits 2048 s at
# 1 KiB/s: from then on its progress and rate stay as they are, and the
# JSON and the mdstat form of each detail below can be compared.
for (( i = 0; i < 300; i++ )); do
  ctl --json detail >tk-progress.json 2>&1 || fail "detail: $(cat tk-progress.json)"
  [ "$(jget tk-progress.json sync.done)" -gt 0 ] && break
  sleep 0.1
done
[ "$(jget tk-progress.json sync.done)" -gt 0 ] ||
  fail "the rebuild made no step: $(cat tk-progress.json)"
detail takeover
[ "$(jget takeover.json members.1.device)" = i.img ] ||
  fail "role 1 is $(jget takeover.json members.1.device), not i.img"
[ "$(jget takeover.json replaced.0.device)" = h.img ] &&
  [ "$(jget takeover.json replaced.0.state)" = faulty ] &&
  [ "$(jget takeover.json replaced.0.former_role)" = 1 ] &&
  [ "$(jget takeover.json replaced.1)" = null ] ||
  fail "detail after the takeover does not list h.img as faulty: $(cat takeover.json)"
[ "$(jget takeover.json failed_disks)" = 1 ] ||
  fail "failed_disks is $(jget takeover.json failed_disks) after the takeover"
grep -q "i.img\[1\] g.img\[0\] h.img\[1\](F)$" takeover.txt ||
  fail "mdstat after the takeover: $(cat takeover.txt)"
ls -l "/proc/$SERVE_PID/fd" >tk-fd-before
grep -q "/h.img" tk-fd-before || fail "nbdkit does not have h.img open before remove"
ev=$(md_events g.img)
ctl remove h.img >tk-remove.out 2>&1 || fail "remove h.img: $(cat tk-remove.out)"
grep -q "hot removed h.img" tk-remove.out || fail "remove h.img said: $(cat tk-remove.out)"
detail tkremoved
[ "$(jget tkremoved.json replaced.0)" = null ] &&
  [ "$(jget tkremoved.json failed_disks)" = 0 ] ||
  fail "detail after remove h.img: $(cat tkremoved.json)"
if grep -q "h.img" tkremoved.txt; then fail "mdstat still shows h.img: $(cat tkremoved.txt)"; fi
ls -l "/proc/$SERVE_PID/fd" >tk-fd-after
if grep -q "/h.img" tk-fd-after; then fail "h.img is still open after remove"; fi
[ "$(md_events g.img)" -gt "$ev" ] || fail "remove h.img did not update the superblocks"
expect_error tkagain "no such member" remove h.img
stop_pid "$SERVE_PID"
say "ok"
