#!/bin/bash
# raidsim tests: NBD members whose servers only take requests aligned to
# a minimum block size (here nbdkit's blocksize-policy filter with the
# "error" policy, 64K).  The array must
#   - refuse a chunk that is not a multiple of it, in one line naming
#     chunk, before touching a member;
#   - advertise it as the array's own minimum block size;
#   - refuse an unaligned client request with EINVAL, changing nothing
#     and failing no member;
#   - put an aligned request where the layout says.
#
# Run: meson test -C build nbd-minblock
#  or: tests/integration/test-nbd-minblock.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN NBD_IO
requires nbdkit
requires nbdinfo
requires_nbdkit_filter blocksize-policy

tmp=$(mktemp -d)
cleanup ()
{
  for p in "$tmp"/*.pid; do
    [ -s "$p" ] && kill "$(cat "$p")" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
at_exit cleanup
cd "$tmp"

K=1024
head -c $((4 * 1024 * K)) /dev/urandom > m0.img
head -c $((4 * 1024 * K)) /dev/urandom > m1.img
cp m0.img m0.orig; cp m1.img m1.orig

# Member 0 over NBD, 64K-aligned; member 1 a plain file.
nbdkit -U m0.sock -P m0.pid --filter=blocksize-policy file m0.img \
  blocksize-minimum=64K blocksize-preferred=64K blocksize-error-policy=error
m0="nbd+unix:///?socket=$tmp/m0.sock"

# 1. A 16K chunk would send 16K member I/Os to a 64K-only server.
status=0
nbdkit -U - --run true "$RAID_PLUGIN" level=0 chunk=16K "member=$m0" \
  m1.img 2>err || status=$?
[ $status -ne 0 ] || fail "chunk=16K over a 64K-minimum member started"
[ "$(grep -c . err)" -eq 1 ] || fail "want one error line, got: $(cat err)"
grep -qw chunk err || fail "the error does not name chunk: $(cat err)"
grep -q 65536 err || fail "the error does not give the minimum: $(cat err)"
cmp -s m0.img m0.orig && cmp -s m1.img m1.orig ||
  fail "a member changed after a refused start"
echo "ok: refused: $(cat err)"

# 2. A 64K chunk works, and the array advertises the minimum.
nbdkit -U raid.sock -P raid.pid "$RAID_PLUGIN" level=0 chunk=64K \
  "member=$m0" m1.img 2>raid.log
raid="nbd+unix:///?socket=$tmp/raid.sock"
nbdinfo --json "$raid" > info.json
grep -q '"block_size_minimum": 65536' info.json ||
  fail "the array does not advertise 65536: $(grep block_size info.json)"
echo "ok: the array advertises a 64K minimum block size"

# 3. Unaligned requests are refused with EINVAL; nothing changes.
for req in "w 4096 4096" "w 0 65537" "r 512 65536" "z 65536 512" \
           "t 100 131072"; do
  status=0
  echo "$req" | "$NBD_IO" --unaligned "$raid" 2>io.err || status=$?
  [ $status -eq 1 ] || fail "'$req': nbd-io exited $status, want 1"
  grep -q "Invalid argument" io.err ||
    fail "'$req': not EINVAL: $(cat io.err)"
done
cmp -s m0.img m0.orig && cmp -s m1.img m1.orig ||
  fail "a member changed after refused requests"
grep -q "failed on" raid.log && fail "a member was failed: $(cat raid.log)"
echo "ok: unaligned requests refused with EINVAL, members unchanged"

# 4. An aligned write lands by the layout: 64K chunks over two members,
#    so array bytes [64K, 192K) are chunk 1 (member 1, offset 0) and
#    chunk 2 (member 0, offset 64K).
echo "w 65536 131072" | "$NBD_IO" "$raid" || fail "aligned write failed"
# nbd-io writes 0x5a ('Z').  The comparisons are of files, with cmp's own
# skip (-i) and count (-n): a pipe or process substitution into cmp
# could die of SIGPIPE when cmp stops at the first difference.
head -c $((64 * K)) /dev/zero | tr '\0' 'Z' > written.64k
cmp -s -n $((64 * K)) m1.img written.64k ||
  fail "member 1 offset 0: not the written bytes"
cmp -s -i $((64 * K)) m1.img m1.orig ||
  fail "member 1 changed beyond the first chunk"
cmp -s -n $((64 * K)) m0.img m0.orig ||
  fail "member 0 offset 0 changed"
cmp -s -i $((64 * K)):0 -n $((64 * K)) m0.img written.64k ||
  fail "member 0 offset 64K: not the written bytes"
cmp -s -i $((128 * K)) m0.img m0.orig ||
  fail "member 0 changed beyond its second chunk"
echo "ok: an aligned write landed at member 1 offset 0 and member 0 offset 64K"
echo "test-nbd-minblock.sh: all passed"
