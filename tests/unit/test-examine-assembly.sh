#!/bin/bash
# raidsim tests: raidsim examine --assembly, which judges a set of
# members with md's rules (raidsim/core/mdrules.c) as the nbdkit raid
# plugin's assembly does, on members made by raidsim create whose
# superblocks are then set by hand (events, the freshest role table,
# the bitmap's events_cleared): trusted, one event behind, stale and
# rebuilt in full or from the bitmap, foreign, missing, and an array
# that keeps no copy of some chunk.  No server.
#
# Run: meson test -C build examine-assembly
#  or: RAIDSIM=build/raidsim/raidsim tests/unit/test-examine-assembly.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
RAIDSIM=${RAIDSIM:-$here/../../build/raidsim/raidsim}
[ -x "$RAIDSIM" ] || { echo "test-examine-assembly.sh: $RAIDSIM is not built"; exit 1; }
RAIDSIM=$(cd "$(dirname "$RAIDSIM")" && pwd)/$(basename "$RAIDSIM")
command -v python3 >/dev/null ||
  { echo "test-examine-assembly.sh: needs python3 to set superblock fields"; exit 77; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

# set_sb FILE FIELD=VALUE...: rewrite the md v1.2 superblock's events, or
# role ROLE-SLOT=VALUE in its table, and its checksum (md's
# calc_sb_1_csum: the 32-bit words of 256 + 2 * max_dev bytes with
# sb_csum as 0, carry folded in once); bm_events= and bm_cleared= set
# the internal bitmap's header (8 sectors after the superblock).
set_sb () {
  python3 - "$@" <<'EOF'
import struct, sys
path, sets = sys.argv[1], sys.argv[2:]
f = open(path, 'r+b')
f.seek(4096)
sb = bytearray(f.read(4096))
for s in sets:
    k, v = s.split('=')
    if k == 'events':
        struct.pack_into('<Q', sb, 200, int(v))
    elif k.startswith('role'):
        struct.pack_into('<H', sb, 256 + 2 * int(k[4:]), int(v, 0))
    elif k in ('bm_events', 'bm_cleared'):
        f.seek(8192 + (24 if k == 'bm_events' else 32))
        f.write(struct.pack('<Q', int(v)))
size = 256 + 2 * struct.unpack_from('<I', sb, 220)[0]
struct.pack_into('<I', sb, 216, 0)
csum = sum(struct.unpack_from('<I', sb, o)[0] for o in range(0, size - size % 4, 4))
if size % 4:
    csum += struct.unpack_from('<H', sb, size - 2)[0]
struct.pack_into('<I', sb, 216, ((csum & 0xffffffff) + (csum >> 32)) & 0xffffffff)
f.seek(4096)
f.write(sb)
EOF
}

# judge WANT-STATUS WHAT ARGS...: raidsim examine --assembly ARGS, its
# exit status and output in out.
judge () {
  local want=$1 what=$2 st=0
  shift 2
  "$RAIDSIM" examine --assembly "$@" >out 2>err || st=$?
  if [ "$st" != "$want" ]; then
    fail "$what: exit status $st, not $want"
    cat out err
    return 1
  fi
}

# has WHAT LINE: out holds LINE (a fixed string).
has () {
  if grep -qF -- "$2" out; then ok "$1"; else fail "$1: no '$2' in:"; cat out; fi
}

for m in a b c x y; do truncate -s 32M $m.img; done
"$RAIDSIM" create --level=1 --assume-clean --bitmap=none a.img b.img c.img >/dev/null
"$RAIDSIM" create --level=1 --assume-clean --bitmap=none x.img y.img >/dev/null

if judge 0 "whole" a.img b.img c.img; then
  has "whole: every member trusted" "b.img: role 1: trusted (events 0)"
  has "whole: the array starts whole" "the array starts whole"
fi

# One event behind, and still listed: used.  Two behind: stale, and with
# no bitmap rebuilt in full; the array starts degraded.
set_sb a.img events=5; set_sb c.img events=5; set_sb b.img events=4
if judge 0 "one behind" a.img b.img c.img; then
  has "one event behind: trusted" "b.img: role 1: trusted: events 4, one behind"
  has "one event behind: whole" "the array starts whole"
fi
set_sb b.img events=3
if judge 0 "two behind" a.img b.img c.img; then
  has "two events behind: stale" "b.img: role 1: stale: events 3 < 5 (a.img's)"
  has "stale, no bitmap: in full" "rebuilt in full (the array has no write-intent bitmap)"
  has "stale: degraded" "1 stale, 0 missing: the array starts degraded"
fi
# As many events, but the freshest lists it faulty; then one behind too.
set_sb b.img events=5; set_sb a.img role1=0xfffe
if judge 0 "listed faulty" a.img b.img c.img; then
  has "listed faulty: stale" "b.img: role 1: stale: the freshest superblock (a.img's, events 5) lists it faulty"
fi
set_sb a.img events=6
if judge 0 "behind and listed faulty" c.img b.img a.img; then
  has "behind and listed faulty: stale" "b.img: role 1: stale: events 5 < 6, and the freshest superblock (a.img's) lists it faulty"
fi

if judge 0 "missing" a.img missing c.img; then
  has "missing: its role" "missing: role 1: missing"
  has "missing: degraded" "1 missing: the array starts degraded"
fi
if judge 1 "foreign" a.img x.img c.img; then
  has "foreign: named" "x.img: foreign: array UUID"
  has "foreign: refused" "assembly: refused"
fi

# RAID 10, near 2 over 4: roles 0 and 1 hold chunk 0's two copies.
for m in p q r s; do truncate -s 32M $m.img; done
"$RAIDSIM" create --level=10 --chunk=64K --assume-clean --bitmap=none \
  p.img q.img r.img s.img >/dev/null
if judge 0 "raid10: one of each pair" missing q.img missing s.img; then
  has "raid10: degraded" "the array starts degraded"
fi
if judge 1 "raid10: a pair" missing missing r.img s.img; then
  has "raid10: a pair gone: does not start" "some chunks keep no copy; the array does not start"
fi

# A bitmap: the freshest's events_cleared 2 covers events 3, not 1.
for m in d e; do truncate -s 32M $m.img; done
"$RAIDSIM" create --level=1 --assume-clean --bitmap=internal --bitmap-chunk=1M \
  d.img e.img >/dev/null
set_sb d.img events=5 bm_events=5 bm_cleared=2; set_sb e.img events=3
if judge 0 "bitmap re-add" d.img e.img; then
  has "stale, covered by the bitmap: from the bitmap" "rebuilt from the write-intent bitmap (its events are not older than the bitmap's events_cleared)"
fi
set_sb e.img events=1
if judge 0 "bitmap too new" d.img e.img; then
  has "stale, older than events_cleared: in full" "rebuilt in full (its events are older than the bitmap's events_cleared)"
fi
set_sb d.img bm_events=4; set_sb e.img events=3
if judge 0 "bitmap stale" d.img e.img; then
  has "bitmap behind the superblocks: in full" "rebuilt in full (the bitmap is stale)"
fi

echo "$failures failed"
[ "$failures" = 0 ]
