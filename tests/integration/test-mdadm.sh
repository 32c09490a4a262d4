#!/bin/bash
# raidsim tests: the members that `raidsim create` writes are real md
# members, as judged by Debian's own mdadm, which nobody here wrote.
#
# For arrays of every level (RAID 0, RAID 1, RAID 10 with 2 and 3 near
# copies), 1 to 5 members (one with --force, as mdadm wants it), chunks
# of 4K, 64K and 512K, equal and unequal member sizes, members missing,
# and sparse members of 9G and 3T:
#   - `mdadm --examine` of every member says its checksum is correct;
#   - `raidsim examine` prints exactly what mdadm prints, line for line;
#   - mdadm's view is what was asked for: level, devices, UUID, name,
#     layout (near=N, RAID 0 "alternate" when the members differ), chunk,
#     role, array state, and the data offset, bad block log and state that
#     mdadm 4.2 itself would have chosen (worked by hand in the table);
#   - the array size raidsim create prints (from the shared geometry, so
#     what the plugin serves) is the one Linux md computes from mdadm's
#     fields: the sum of chunk-rounded members for RAID 0, "Array Size"
#     for RAID 1, and "Array Size" rounded down to the chunk for RAID 10;
#   - libblkid's blkid sees a linux_raid_member with the array's UUID.
# Then the refusals: a member holding ext4, or md metadata, is refused
# without --force and nothing is written to any member (checksums before
# and after); with --force the old signature is erased.  A bad parameter
# touches no member.  A damaged superblock is shown as mdadm shows it and
# makes raidsim examine fail.
#
# Needs mdadm (exits 77 without it); no md kernel module, no root.
#
# Run: meson test -C build mdadm
#  or: tests/integration/test-mdadm.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
requires mdadm "scripts/install-deps.sh installs it"
must_be_built RAIDSIM

# mdadm and raidsim both print times with ctime (3); one zone for both.
export TZ=UTC
tmp=$(mktemp -d)
loops=()
cleanup ()
{
  [ ${#loops[@]} -eq 0 ] || losetup --detach "${loops[@]}" || true
  rm -rf "$tmp"
}
at_exit cleanup
cd "$tmp"
keep_going
# ok: one more check passed (only counted: printed at the end).
checks=0
ok () { checks=$(( checks + 1 )); }

# bytes SIZE: "64M+1234" and the like in bytes (K, M, G, T are 1024s).
bytes ()
{
  local total=0 part n
  local IFS=+
  for part in $1; do
    case $part in
      *K) n=$(( ${part%K} << 10 )) ;;
      *M) n=$(( ${part%M} << 20 )) ;;
      *G) n=$(( ${part%G} << 30 )) ;;
      *T) n=$(( ${part%T} << 40 )) ;;
      *) n=$part ;;
    esac
    total=$(( total + n ))
  done
  echo $total
}

# field FILE LABEL: the value of "LABEL : value" in mdadm's output.
field ()
{
  sed -n "s/^ *$2 : //p" "$1"
}

uuid=0123abcd:4567ef01:89abcdef:01234567
blkid_uuid=0123abcd-4567-ef01-89ab-cdef01234567
host=$(hostname)

# One array per line: level, near copies (- if not RAID 10), chunk in K
# (- for RAID 1), the data offset and bad block log offset mdadm 4.2
# would choose (sectors; mdsb.c explains the rules), the State mdadm
# prints, extra options (- for none), then the member sizes ("missing"
# for a missing member).  The data offset comes from the first member
# present: 2048 for small ones; 4096 with 512K chunks on members under
# 128M, where the headroom stays two chunks; 18432 for 9G; 264192 for 3T.
# The bad block log follows the bitmap space mdadm keeps after the
# superblock: none on RAID 0 (size 0), 4K up to 8G, 64K above.
cases=(
  "0 - 4 2048 8 clean - 64M 64M"
  "0 - 512 4096 8 clean - 40M 64M 100M"
  "0 - 64 2048 8 clean - 33M+5K 20M 48M+512 20M 64M"
  "0 - 64 2048 8 clean - 20M 20M+4K 20M+60K 20M"
  "0 - 512 264192 8 clean - 3T 3T 2T"
  "1 - - 2048 16 active - 64M 64M"
  "1 - - 2048 16 active - 40M+100K 64M+1234 50M"
  "1 - - 2048 16 active - missing 64M 64M 48M"
  "1 - - 2048 16 active - 20M 20M 20M 20M 20M"
  "1 - - 18432 136 active - 9G 9G+100K"
  "1 - - 2048 16 clean --assume-clean 64M 64M"
  "10 2 64 2048 16 active - 64M 64M 64M 64M"
  "10 2 4 2048 16 active - 30M+3K 32M 31M"
  "10 2 512 4096 16 active - 64M 70M 64M+700K 80M 66M"
  "10 2 64 2048 16 active - missing 64M 64M 64M"
  "10 2 64 2048 16 clean --assume-clean 64M 64M"
  "10 3 64 2048 16 active - 64M 64M 64M"
  "10 3 512 4096 16 active - 64M 64M 65M 64M 70M"
  "10 3 4 2048 16 active - 16M 16M 16M 16M"
  "0 - 64 2048 8 clean --force 64M"
  "1 - - 2048 16 active --force 40M+100K"
)

ncase=0
for c in "${cases[@]}"; do
  read -r level copies chunk doff bblog state opts sizes <<< "$c"
  ncase=$(( ncase + 1 ))
  dir=case$ncase
  mkdir $dir
  name=t$ncase
  # One array named HOST:NAME, which mdadm marks "local to host".
  if [ $ncase -eq 2 ] && [ $(( ${#host} + 4 )) -le 31 ]; then
    name=$host:t$ncase
  fi
  args=(--level=$level --name=$name --uuid=$uuid)
  [ "$copies" = - ] || args+=(--copies=$copies)
  [ "$chunk" = - ] || args+=(--chunk=${chunk}K)
  [ "$opts" = - ] || args+=($opts)
  members=()
  i=0
  for s in $sizes; do
    if [ "$s" = missing ]; then
      members+=(missing)
    else
      truncate -s "$(bytes "$s")" $dir/m$i.img
      members+=($dir/m$i.img)
    fi
    i=$(( i + 1 ))
  done
  n=$i
  what="case $ncase (RAID $level"
  [ "$copies" = - ] || what+=" near=$copies"
  [ "$chunk" = - ] || what+=" ${chunk}K"
  what+=": $sizes)"

  if ! "$RAIDSIM" create "${args[@]}" "${members[@]}" > $dir/create.out \
       2> $dir/create.err; then
    fail "$what: raidsim create failed: $(cat $dir/create.err)"
    continue
  fi
  ours_bytes=$(sed -n 's/^  array size: \([0-9]*\) bytes.*/\1/p' \
                 $dir/create.out)

  # The array state mdadm must show: A per member present, . if missing.
  want_state=
  for m in "${members[@]}"; do
    if [ "$m" = missing ]; then want_state+=.; else want_state+=A; fi
  done
  raid0_sum=0

  for i in $(seq 0 $(( n - 1 ))); do
    m=${members[$i]}
    [ "$m" = missing ] && continue
    if ! mdadm --examine "$m" > $m.mdadm 2> $m.mdadm-err; then
      fail "$what: mdadm --examine $m failed: $(cat $m.mdadm-err)"
      continue
    fi
    if ! "$RAIDSIM" examine "$m" > $m.ours 2> $m.ours-err; then
      fail "$what: raidsim examine $m failed: $(cat $m.ours-err)"
    fi
    if diff -u $m.mdadm $m.ours > $m.diff; then
      ok
    else
      fail "$what: mdadm --examine and raidsim examine differ on $m:"
      cat $m.diff
    fi

    # mdadm's view against what was asked for.
    e=$m.mdadm
    check () {
      local label=$1 want=$2 got
      got=$(field $e "$label")
      if [ "$got" = "$want" ]; then ok
      else fail "$what: $m: mdadm says '$label : $got', want '$want'"; fi
    }
    check Magic a92b4efc
    check Version 1.2
    check Checksum "$(field $e Checksum | cut -d' ' -f1) - correct"
    check "Array UUID" $uuid
    if [ "$name" = "$host:t$ncase" ]; then
      check Name "$name  (local to host $host)"
    else
      check Name "$name"
    fi
    check "Raid Level" raid$level
    check "Raid Devices" $n
    check "Data Offset" "$doff sectors"
    check "Super Offset" "8 sectors"
    check "Bad Block Log" "512 entries available at offset $bblog sectors"
    check State $state
    check Events 0
    check "Device Role" "Active device $i"
    check "Array State" \
      "$want_state ('A' == active, '.' == missing, 'R' == replacing)"
    avail=$(field $e "Avail Dev Size" | cut -d' ' -f1)
    member_sectors=$(( $(stat -c %s "$m") / 512 ))
    check "Avail Dev Size" \
      "$(( member_sectors - doff )) sectors$(field $e 'Avail Dev Size' |
                                            sed 's/^[0-9]* sectors//')"
    case $level in
      0)
        # md pads the zones only when the members differ in chunks.
        feature=0x0
        for s in $sizes; do
          first=$(( ($(bytes "$(echo $sizes | cut -d' ' -f1)") / 512 - doff)
                    / (chunk * 2) ))
          [ $(( ($(bytes "$s") / 512 - doff) / (chunk * 2) )) -eq $first ] ||
            feature=0x1000
        done
        check "Feature Map" $feature
        if [ $feature = 0x1000 ]; then check Layout alternate
        else check Layout ""; fi
        check "Chunk Size" ${chunk}K
        raid0_sum=$(( raid0_sum + avail / (chunk * 2) * (chunk * 2) ))
        ;;
      1)
        check "Feature Map" 0x0
        check Layout ""
        check "Chunk Size" ""
        used=$(field $e "Used Dev Size" | cut -d' ' -f1)
        [ -n "$used" ] || used=$avail
        # mdadm rounds a RAID 1 member's size down to 64K.
        if [ $(( used % 128 )) -eq 0 ]; then ok
        else fail "$what: $m: Used Dev Size $used is not whole 64Ks"; fi
        mdadm_kib=$(field $e "Array Size" | cut -d' ' -f1)
        if [ $(( ours_bytes / 1024 )) -eq "$mdadm_kib" ]; then ok
        else fail "$what: raidsim create's array size $ours_bytes" \
                  "bytes, mdadm's $mdadm_kib KiB"; fi
        ;;
      10)
        check "Feature Map" 0x0
        check Layout "near=$copies"
        check "Chunk Size" ${chunk}K
        used=$(field $e "Used Dev Size" | cut -d' ' -f1)
        [ -n "$used" ] || used=$avail
        if [ $(( used % (chunk * 2) )) -eq 0 ]; then ok
        else fail "$what: $m: Used Dev Size $used is not whole chunks"; fi
        # mdadm prints size * members / copies; md serves whole chunks.
        mdadm_kib=$(field $e "Array Size" | cut -d' ' -f1)
        want_kib=$(( mdadm_kib / chunk * chunk ))
        if [ $(( ours_bytes / 1024 )) -eq $want_kib ]; then ok
        else fail "$what: raidsim create's array size $ours_bytes bytes," \
                  "md's $want_kib KiB (mdadm prints $mdadm_kib)"; fi
        ;;
    esac

    # A third reader: libblkid, which checks the checksum too.
    if command -v blkid >/dev/null 2>&1; then
      got=$(blkid -p -o export "$m" | grep -E '^(TYPE|UUID)=' | sort |
              tr '\n' ' ')
      if [ "$got" = "TYPE=linux_raid_member UUID=$blkid_uuid " ]; then ok
      else fail "$what: $m: blkid says '$got'"; fi
    fi
  done

  if [ "$level" = 0 ]; then
    if [ $(( raid0_sum * 512 )) -eq "$ours_bytes" ]; then ok
    else fail "$what: raidsim create's array size $ours_bytes bytes," \
              "md's $(( raid0_sum * 512 ))"; fi
  fi
done

# ---- refusals -------------------------------------------------------

mkdir refuse
cd refuse

# unchanged WHAT FILES...: the files' checksums are those of before.
unchanged ()
{
  local what=$1
  shift
  if sha256sum "$@" | cmp -s - before; then ok
  else fail "$what: a member was modified"; fi
}

# refused PARAM WHAT ARGS...: raidsim create refuses with exit 1 and one
# line naming PARAM, and leaves every file as it was.
refused ()
{
  local param=$1 what=$2 status=0
  shift 2
  "$RAIDSIM" create "$@" > out 2> err || status=$?
  if [ $status -ne 1 ]; then
    fail "$what: exit status $status, want 1"
  elif [ "$(grep -c . err)" -ne 1 ]; then
    fail "$what: stderr is not one line:"; cat err
  elif ! grep -q "^raidsim create: $param: " err; then
    fail "$what: the error does not name $param: $(cat err)"
  else
    ok
  fi
  unchanged "$what" *.img
}

truncate -s 64M blank1.img blank2.img
truncate -s 64M fs.img
mkfs.ext4 -q -F fs.img
cp ../case1/m0.img md.img              # a member of an array above
sha256sum *.img > before

refused member "a member holding ext4" --level=1 blank1.img fs.img
grep -q ext4 err && ok || fail "the ext4 refusal does not say ext4"
refused member "a member holding md metadata" --level=0 md.img blank1.img
grep -q "md metadata" err && ok || fail "the md refusal does not say so"
refused member "ext4 behind a blank member" --level=10 blank1.img blank2.img \
  fs.img
refused chunk "a bad chunk" --level=0 --chunk=3K blank1.img blank2.img
refused chunk "a chunk on RAID 1" --level=1 --chunk=64K blank1.img blank2.img
refused copies "more copies than members" --level=10 --copies=3 \
  blank1.img blank2.img
refused member "RAID 0 with a member missing" --level=0 blank1.img missing
refused member "RAID 10 missing both copies" --level=10 missing missing \
  blank1.img blank2.img
refused member "a member twice" --level=1 blank1.img ./blank1.img
refused member "one member without --force (mdadm asks for it too)" \
  --level=1 blank1.img
refused level "no level" blank1.img blank2.img
refused name "a name too long" --level=1 --name=abcdefghijklmnopqrstuvwxyz0123456 \
  blank1.img blank2.img
refused uuid "a bad uuid" --level=1 --uuid=0123 blank1.img blank2.img

# --force: the ext4 and md members are overwritten, their old signatures
# erased, and mdadm and blkid see only the new array.
uuid2=fedcba98:76543210:fedcba98:76543210
if "$RAIDSIM" create --force --level=1 --uuid=$uuid2 fs.img md.img \
     > out 2> err; then
  ok
  grep -q "fs.img: erased its ext4 signature" out && ok ||
    fail "--force did not say it erased ext4: $(cat out)"
  for m in fs.img md.img; do
    mdadm --examine $m > $m.mdadm 2>&1 || true
    if [ "$(field $m.mdadm 'Array UUID')" = $uuid2 ] &&
       grep -q "Checksum : .* - correct" $m.mdadm; then ok
    else fail "--force: mdadm does not see the new array on $m"; fi
    if command -v blkid >/dev/null 2>&1; then
      got=$(blkid -p -o value -s TYPE $m || true)
      [ "$got" = linux_raid_member ] && ok ||
        fail "--force: blkid sees '$got' on $m"
    fi
  done
  # blkid shows md before a file system; asked for ext4 alone, it must
  # find none left (exit status 2: nothing found).
  if command -v blkid >/dev/null 2>&1; then
    status=0
    blkid -p -n ext4 fs.img > /dev/null || status=$?
    [ $status -eq 2 ] && ok ||
      fail "--force left the ext4 signature on fs.img (blkid: $status)"
  fi
else
  fail "--force: raidsim create failed: $(cat err)"
fi

# A damaged superblock: mdadm reports the checksum it expected, and so
# does raidsim examine, which also fails.
cp ../case6/m0.img bad.img
printf '\x01' | dd of=bad.img bs=1 seek=$(( 4096 + 92 )) conv=notrunc \
  status=none                            # raid_disks
mdadm --examine bad.img > bad.mdadm 2>&1 || true
status=0
"$RAIDSIM" examine bad.img > bad.ours 2> bad.err || status=$?
grep -q "Checksum : .* - expected" bad.mdadm && ok ||
  fail "mdadm did not notice the damaged superblock"
if diff -u bad.mdadm bad.ours; then ok
else fail "mdadm and raidsim examine differ on a damaged superblock"; fi
if [ $status -eq 1 ] && grep -q "sb_csum" bad.err; then ok
else fail "raidsim examine accepted a damaged superblock: $status $(cat bad.err)"; fi

# No superblock at all.
status=0
"$RAIDSIM" examine blank2.img > /dev/null 2> err || status=$?
if [ $status -eq 1 ] && grep -q "no md superblock" err; then ok
else fail "raidsim examine of a blank member: $status $(cat err)"; fi

# Block devices: members on loop devices, where the size comes from the
# device and a member is opened exclusively.  Needs root and loop
# devices; skipped (and said so) without them.
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null 2>&1 &&
   truncate -s 48M loop0.img loop1.img loop2.img &&
   l=$(losetup --find --show loop0.img 2>/dev/null); then
  loops+=("$l")
  for f in loop1.img loop2.img; do
    l=$(losetup --find --show $f) && loops+=("$l")
  done
  if "$RAIDSIM" create --level=10 --chunk=64K --name=loops --uuid=$uuid \
       "${loops[@]}" > out 2> err; then
    ok
    for l in "${loops[@]}"; do
      mdadm --examine "$l" > loop.mdadm 2>&1 || true
      "$RAIDSIM" examine "$l" > loop.ours 2>&1 || fail "raidsim examine $l"
      if diff -u loop.mdadm loop.ours; then ok
      else fail "mdadm and raidsim examine differ on $l"; fi
      grep -q "Checksum : .* - correct" loop.mdadm && ok ||
        fail "mdadm: bad checksum on $l"
    done
    # The same superblock through the file behind the device.
    "$RAIDSIM" examine loop0.img | tail -n +2 > file.ours
    "$RAIDSIM" examine "${loops[0]}" | tail -n +2 > dev.ours
    cmp -s file.ours dev.ours && ok ||
      fail "loop0.img and ${loops[0]} examine differently"
  else
    fail "raidsim create on loop devices: $(cat err)"
  fi
else
  echo "test-mdadm.sh: loop devices not tested (needs root and losetup)"
fi

echo "test-mdadm.sh: $ncase arrays, $checks checks passed, $failures failed"
[ $failures -eq 0 ]
