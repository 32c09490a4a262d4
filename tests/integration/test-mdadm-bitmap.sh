#!/bin/bash
# raidsim tests: the internal write-intent bitmap that `raidsim create`
# writes is md's, as judged by Debian's own mdadm.
#
# For RAID 1 and RAID 10 (2 and 3 near copies), 2 to 4 members, sizes
# from 64M to 3T (sparse), default and chosen bitmap chunks:
#   - `mdadm --examine` of every member: checksum correct, Feature Map
#     0x1, "Internal Bitmap : 8 sectors from superblock", the bad block
#     log right after the bitmap's 4K-rounded size, and raidsim examine
#     printing exactly what mdadm prints (Unused Space included, which
#     depends on the bitmap's size);
#   - `mdadm -X` of the bitmap (cut out where mdadm --examine says it
#     is: mdadm -X reads a regular file as a bitmap file from its start)
#     prints exactly what `raidsim examine -X` prints, and what mdadm 4.2
#     would have written, worked here from its rules: UUID, events 0,
#     chunk (64M by default, or the one asked), daemon 5s, sync size =
#     mdadm's Array Size, bits = sync size over the chunk rounded up, all
#     of them dirty (mdadm writes them all ones).
# Then mdadm's default (Create.c: a bitmap when each member uses more
# than 100G, on RAID 1 and above) and the refusals: RAID 0 with a
# bitmap, a chunk too small for the room, a chunk not a power of two;
# each one line naming the parameter, and no member touched.
#
# Needs mdadm (exits 77 without it).
# Run: meson test -C build mdadm-bitmap
#  or: tests/integration/test-mdadm-bitmap.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
requires mdadm
must_be_built RAIDSIM
export TZ=UTC
tmp=$(mktemp -d)
at_exit rm -rf "$tmp"
cd "$tmp"
keep_going
# ok: one more check passed (only counted: printed at the end).
checks=0
ok () { checks=$(( checks + 1 )); }
field () { sed -n "s/^ *$2 : //p" "$1"; }
bytes ()
{
  local v=$1
  case $v in
    *K) echo $(( ${v%K} << 10 )) ;; *M) echo $(( ${v%M} << 20 )) ;;
    *G) echo $(( ${v%G} << 30 )) ;; *T) echo $(( ${v%T} << 40 )) ;;
    *) echo "$v" ;;
  esac
}
uuid=89abcdef:01234567:0123abcd:4567ef01

# level, near copies (- for RAID 1), --bitmap-chunk (- for the default),
# the chunk mdadm -X must show, then the member sizes.
cases=(
  "1 - - 64M 64M 64M"
  "1 - 64K 64K 64M 64M 64M"
  "1 - 4K 4K 20M 20M"
  "1 - 1M 1M 1G 1G"
  "1 - 128K 128K 21G 21G"
  "1 - - 64M 3T 3T"
  "10 2 - 64M 64M 64M 64M 64M"
  "10 2 64K 64K 64M 64M 64M"
  "10 3 256K 256K 64M 64M 64M"
  "10 2 512K 512K 21G 21G 21G"
  "10 2 - 64M 250G 250G"
)

ncase=0
for c in "${cases[@]}"; do
  read -r level copies bchunk want_chunk sizes <<< "$c"
  ncase=$(( ncase + 1 ))
  dir=case$ncase
  mkdir $dir
  args=(--level=$level --uuid=$uuid --bitmap=internal)
  [ "$copies" = - ] || args+=(--copies=$copies --chunk=64K)
  [ "$bchunk" = - ] || args+=(--bitmap-chunk=$bchunk)
  members=()
  i=0
  for s in $sizes; do
    truncate -s "$(bytes "$s")" $dir/m$i.img
    members+=($dir/m$i.img)
    i=$(( i + 1 ))
  done
  what="case $ncase (RAID $level, bitmap chunk $bchunk: $sizes)"
  if ! "$RAIDSIM" create "${args[@]}" "${members[@]}" > $dir/create.out \
       2> $dir/create.err; then
    fail "$what: raidsim create failed: $(cat $dir/create.err)"
    continue
  fi
  for m in "${members[@]}"; do
    if ! mdadm --examine "$m" > $m.mdadm 2>&1; then
      fail "$what: mdadm --examine $m failed: $(cat $m.mdadm)"
      continue
    fi
    "$RAIDSIM" examine "$m" > $m.ours 2>&1 || fail "$what: raidsim examine $m"
    if diff -u $m.mdadm $m.ours > $m.diff; then ok
    else fail "$what: mdadm --examine and raidsim examine differ:"; cat $m.diff; fi
    e=$m.mdadm
    [ "$(field $e Checksum | cut -d' ' -f3)" = correct ] && ok ||
      fail "$what: $m: checksum: $(field $e Checksum)"
    [ "$(field $e 'Feature Map')" = 0x1 ] && ok ||
      fail "$what: $m: Feature Map $(field $e 'Feature Map')"
    bmoff=$(field $e 'Internal Bitmap' | sed -n 's/^\([0-9]*\) sectors from superblock$/\1/p')
    soff=$(field $e 'Super Offset' | cut -d' ' -f1)
    if [ "$bmoff" != 8 ]; then
      fail "$what: $m: Internal Bitmap '$(field $e 'Internal Bitmap')'"
      continue
    fi
    ok
    # The bitmap, cut out where mdadm says it is; its 128K room at most.
    dd if=$m of=$m.bm bs=512 skip=$(( soff + bmoff )) count=256 status=none
    mdadm -X $m.bm > $m.x-mdadm 2>&1 || fail "$what: mdadm -X $m.bm failed"
    "$RAIDSIM" examine -X $m > $m.x-ours 2>&1 || fail "$what: raidsim examine -X $m"
    if diff -u <(tail -n +2 $m.x-mdadm) <(tail -n +2 $m.x-ours) > $m.xdiff
    then ok
    else fail "$what: mdadm -X and raidsim examine -X differ:"; cat $m.xdiff; fi
    x=$m.x-mdadm
    # What mdadm 4.2 would have written, from its rules.
    asize=$(field $e 'Array Size' | cut -d' ' -f1)      # KiB
    chunk_b=$(bytes "$want_chunk")
    bits=$(( (asize * 1024 + chunk_b - 1) / chunk_b ))
    human=$(echo "$want_chunk" | sed 's/K$/ KB/; s/M$/ MB/')
    bm_sectors=$(( ((bits + 7) / 8 + 256 + 4095) / 4096 * 8 ))
    for want in "Magic:6d746962" "Version:4" "UUID:$uuid" "Events:0" \
                "Events Cleared:0" "State:OK" "Chunksize:$human" \
                "Daemon:5s flush period" "Write Mode:Normal" \
                "Bitmap:$bits bits (chunks), $bits dirty (100.0%)"; do
      label=${want%%:*} value=${want#*:}
      got=$(field $x "$label")
      [ "$got" = "$value" ] && ok ||
        fail "$what: $m: mdadm -X says '$label : $got', want '$value'"
    done
    got=$(field $x 'Sync Size' | cut -d' ' -f1)
    [ "$got" = "$asize" ] && ok ||
      fail "$what: $m: Sync Size $got, want the Array Size $asize"
    got=$(field $e 'Bad Block Log')
    want="512 entries available at offset $(( 8 + bm_sectors )) sectors"
    [ "$got" = "$want" ] && ok || fail "$what: $m: Bad Block Log '$got', want '$want'"
  done
done

# mdadm's default: a bitmap when each member uses more than 100G.
mkdir def
truncate -s 64M def/s0 def/s1
truncate -s 101G def/l0 def/l1
truncate -s 99G def/n0 def/n1
fm () { mdadm --examine "$1" | sed -n 's/^ *Feature Map : //p'; }
"$RAIDSIM" create --level=1 def/s0 def/s1 > /dev/null
"$RAIDSIM" create --level=1 def/l0 def/l1 > /dev/null
"$RAIDSIM" create --level=1 def/n0 def/n1 > /dev/null
[ "$(fm def/s0)" = 0x0 ] && ok || fail "default: 64M members got a bitmap"
[ "$(fm def/l1)" = 0x1 ] && ok || fail "default: 101G members got no bitmap"
[ "$(fm def/n0)" = 0x0 ] && ok || fail "default: 99G members got a bitmap"
"$RAIDSIM" create --force --level=1 --bitmap=none def/l0 def/l1 > /dev/null
[ "$(fm def/l0)" = 0x0 ] && ok || fail "--bitmap=none on 101G members wrote one"

# Refusals: one line naming the parameter, exit 1, nothing written.
mkdir bad
truncate -s 64M bad/a bad/b
refuse ()
{
  local want=$1; shift
  local before after
  before=$(cat bad/a bad/b | md5sum)
  if "$RAIDSIM" create "$@" bad/a bad/b > bad/out 2> bad/err; then
    fail "refusal $*: accepted"; return
  fi
  after=$(cat bad/a bad/b | md5sum)
  [ "$before" = "$after" ] && ok || fail "refusal $*: a member was written"
  if [ "$(wc -l < bad/err)" = 1 ] && grep -q "^raidsim create: $want:" bad/err
  then ok; else fail "refusal $*: stderr '$(cat bad/err)', want '$want:'"; fi
}
refuse bitmap --level=0 --bitmap=internal
refuse bitmap --level=1 --bitmap=external
# 63M in 4K of room: 30720 bits fit, 16128 chunks of 4K do, 2K chunks
# are under md's 4K minimum, 3K is not a power of two.
refuse bitmap-chunk --level=1 --bitmap-chunk=2K
refuse bitmap-chunk --level=1 --bitmap-chunk=3K
refuse bitmap-chunk --level=1 --bitmap=none --bitmap-chunk=64K

echo "test-mdadm-bitmap.sh: $checks checks passed, $failures failed"
[ $failures -eq 0 ]
