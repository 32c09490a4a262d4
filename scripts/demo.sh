#!/bin/bash
# raidsim demo: a real file system on a software RAID 0 served by the
# nbdkit raid plugin, and where its bytes went.
#
#   1. installs the Debian packages and builds raidsim;
#   2. creates two sparse 256M member files and serves a RAID 0 (chunk
#      128K) over them with nbdkit on a Unix socket;
#   3. attaches the array as a block device with nbdfuse and a loop device
#      (or, with --nbd-client, the kernel's nbd driver), makes ext4,
#      mounts it, copies in a tree of files (part of /usr/share/doc and
#      random files), remounts with cold caches, copies the tree back out
#      and verifies every sha256 sum;
#   4. shows df, unmounts, runs e2fsck -fn, detaches and stops nbdkit;
#   5. prints where each member's bytes went: per member the bytes
#      allocated, and for a few files their extents in the file system
#      mapped through the RAID geometry (`raidsim map`) to (member, member
#      offset), each piece checked against the member file itself.
#
# The member files, holding a verified ext4 file system, are left in the
# demo directory (default /var/tmp/raidsim-demo) with the command to
# serve them again.  Everything else (mounts, loop device, FUSE mount,
# nbdkit) is cleaned up on exit, also on failure or Ctrl-C.
#
# Run (as root): scripts/demo.sh [--nbd-client] [--dir DIR]
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
attach_mode=nbdfuse
demo_dir=/var/tmp/raidsim-demo

while [ $# -gt 0 ]; do
  case "$1" in
    --nbd-client) attach_mode=nbd-client ;;
    --dir) demo_dir=${2:?--dir needs a directory}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "demo.sh: unknown argument '$1' (try --help)" >&2; exit 1 ;;
  esac
  shift
done

# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=demo

# step NAME: start the next step.  A command that fails (set -e) makes
# the ERR trap below name the step, the command, its line and its exit
# status, so that the demo never stops without saying where and why.
current_step="starting"
step () { current_step=$*; printf '\n== %s\n' "$*"; }

# on_error STATUS LINE COMMAND: the ERR trap.  set -E (errtrace) makes
# functions and command substitutions inherit it; a subshell only says
# what failed in it, and its parent then stops with the same report.
on_error ()
{
  local status=$1 line=$2 command=$3 why=""
  [ "$BASH_SUBSHELL" -eq 0 ] || return 0
  case "$status" in
    141) why=" (SIGPIPE: it wrote to a pipe whose reader had gone)" ;;
    130) why=" (interrupted)" ;;
    126) why=" (not executable)" ;;
    127) why=" (command not found)" ;;
  esac
  printf '%s: error: step "%s" failed: line %s: %s: exit status %s%s\n' \
         "$RAIDSIM_PROG" "$current_step" "$line" "$command" "$status" \
         "$why" >&2
}
set -E
trap 'on_error $? $LINENO "$BASH_COMMAND"' ERR

step "installing dependencies and building"
"$srcdir/scripts/install-deps.sh"
"$srcdir/scripts/build.sh" >/dev/null
plugin=$srcdir/build/plugins/raid/nbdkit-raid-plugin.so
raidsim=$srcdir/build/raidsim/raidsim
[ -f "$plugin" ] || die "$plugin was not built"
[ -x "$raidsim" ] || die "$raidsim was not built"
say "built $plugin and $raidsim"

[ "$(id -u)" -eq 0 ] || die "the demo mounts a file system: run it as root"
mkdir -p "$demo_dir"
# Only what an earlier run of the demo left there.
rm -f "$demo_dir/member0.img" "$demo_dir/member1.img" "$demo_dir/nbdkit.log"
work=$(mktemp -d "$demo_dir/work.XXXXXX")
at_exit rm -rf "$work"

if [ "$attach_mode" = nbdfuse ]; then
  problem=$(fuse_loop_problem "$work")
  if [ -n "$problem" ]; then
    die "cannot attach the array with nbdfuse and a loop device: $problem." \
        "On a machine with the nbd kernel module, try: $0 --nbd-client"
  fi
else
  [ -b /dev/nbd0 ] || modprobe nbd 2>/dev/null || true
  [ -b /dev/nbd0 ] || die "/dev/nbd0 is missing (no nbd kernel module); run without --nbd-client"
  command -v nbd-client >/dev/null 2>&1 ||
    die "nbd-client is not installed (apt-get install nbd-client)"
fi

# ---- 2. members and server ----------------------------------------------

step "serving a RAID 0 over two sparse 256M files"
members=("$demo_dir/member0.img" "$demo_dir/member1.img")
params=(level=0 chunk=128K)
for m in "${members[@]}"; do
  truncate -s 256M "$m"
done
sock=$work/raid.sock
serve "$sock" "$demo_dir/nbdkit.log" "$plugin" "${params[@]}" \
  "member=${members[0]}" "member=${members[1]}"
say "nbdkit -U $sock $plugin ${params[*]} member=${members[0]} member=${members[1]}"
say "array size: $(nbdinfo --size "nbd+unix:///?socket=$sock") bytes"

# ---- 3. attach, mkfs, copy in and out -----------------------------------

step "attaching the array as a block device ($attach_mode)"
if [ "$attach_mode" = nbdfuse ]; then
  fuse_attach "$work/fuse" disk --unix "$sock"
  say "nbdfuse $work/fuse/disk --unix $sock"
  loop_attach "$work/fuse/disk"
  dev=$LOOP_DEV
  say "losetup: $dev -> $work/fuse/disk"
else
  dev=/dev/nbd0
  nbd-client -unix "$sock" "$dev"
  at_exit nbd-client -d "$dev"
  say "nbd-client -unix $sock $dev"
fi

mkfs.ext4 -q -F -L raidsim-demo "$dev"
say "mkfs.ext4 $dev"
mnt=$work/mnt
mount_dev "$dev" "$mnt"
say "mounted $dev on $mnt"

step "copying files in"
src=$work/src
mkdir -p "$src/doc"
# Part of /usr/share/doc (every Debian has it), plus random files,
# among them one of 32M that spans many stripes.
# No pipe into head: under pipefail, find or sort would die of SIGPIPE
# (status 141) when head stops reading.  mapfile -n 40 reads the first
# 40 lines of a file that sort wrote completely.
find /usr/share/doc -mindepth 1 -maxdepth 1 -type d > "$work/docs.found"
sort "$work/docs.found" > "$work/docs.sorted"
mapfile -t -n 40 docs < "$work/docs.sorted"
[ "${#docs[@]}" -gt 0 ] || die "/usr/share/doc has no directories to copy"
cp -a "${docs[@]}" "$src/doc/"
make_random_tree "$src/random" 120
head -c 32M /dev/urandom > "$src/random/big.bin"
tree_sums "$src" > "$work/src.sums"
nfiles=$(wc -l < "$work/src.sums")
say "$nfiles files, $(du -sh "$src" | cut -f1), copying to $mnt"
cp -a "$src/." "$mnt/"
sync -f "$mnt"

step "df"
df -h "$mnt"

# Record where a few files lie in the file system, for step 5.
bigdoc=$(cd "$mnt" && find doc -type f -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
(cd "$mnt" && find random -type f -size +4k -size -64k) > "$work/small.found"
sort "$work/small.found" > "$work/small.sorted"
read -r smallfile < "$work/small.sorted" ||
  die "no file of 4k to 64k under $mnt/random"
shown=("random/big.bin" "$bigdoc" "$smallfile")
for f in "${shown[@]}"; do
  filefrag -v "$mnt/$f" > "$work/frag.$(echo "$f" | tr / _)"
done
fs_bs=$(stat -f -c %S "$mnt")

step "copying files back out through a cold cache, and verifying"
umount_dir "$mnt"
if [ "$attach_mode" = nbdfuse ]; then
  # The loop device reads the nbdfuse file through the page cache; drop
  # it so that every byte comes back from nbdkit and the members.
  drop_page_cache "$work/fuse/disk"
fi
mount_dev "$dev" "$mnt"
out=$work/out
mkdir -p "$out"
cp -a "$mnt/." "$out/"
if (cd "$out" && sha256sum --quiet -c "$work/src.sums"); then
  say "all $nfiles files read back from the array match their sha256 sums"
else
  die "files read back from the array differ"
fi

# ---- 4. unmount, fsck, detach -------------------------------------------

step "unmounting, e2fsck -fn, detaching, stopping nbdkit"
umount_dir "$mnt"
if ! e2fsck -fn "$dev" > "$work/fsck.log" 2>&1; then
  cat "$work/fsck.log"
  die "e2fsck -fn found problems in the file system"
fi
say "e2fsck -fn: $(tail -n 1 "$work/fsck.log")"
if [ "$attach_mode" = nbdfuse ]; then
  loop_detach "$dev"
  fuse_detach "$work/fuse" "$FUSE_PID"
else
  nbd-client -d "$dev"
fi
stop_pid "$SERVE_PID"
say "detached; nbdkit stopped"
if grep -i error "$demo_dir/nbdkit.log"; then
  die "the plugin logged errors (above)"
fi

# ---- 5. where the bytes went --------------------------------------------

step "where each member's bytes went"
printf '%-40s %12s %12s\n' member size allocated
for m in "${members[@]}"; do
  printf '%-40s %12s %12s\n' "$m" "$(stat -c %s "$m")" \
         "$(du -B1 "$m" | cut -f1)"
done
"$raidsim" map "${params[@]}" "member=${members[0]}" "member=${members[1]}" |
  sed 's/^# /  /'

# show_file F: F's extents (file system blocks) mapped to the members.
# The first pieces of each extent are checked against the member bytes.
show_file ()
{
  local f=$1 frag=$2 size lstart pstart len aoff alen foff
  local -A per_member=()
  size=$(stat -c %s "$out/$f")
  printf '\n%s (%s bytes)\n' "$f" "$size"
  # filefrag -v: "ext: logical..end: physical..end: length: [expected:] flags"
  while read -r lstart pstart len; do
    aoff=$(( pstart * fs_bs ))
    alen=$(( len * fs_bs ))
    printf '  file blocks %s-%s = fs blocks %s-%s = array bytes %s+%s\n' \
           "$lstart" "$(( lstart + len - 1 ))" "$pstart" \
           "$(( pstart + len - 1 ))" "$aoff" "$alen"
    local n=0 piece_off piece_len copy member moff
    while read -r piece_off piece_len copy; do
      member=${copy%%:*}
      moff=${copy#*:}
      per_member[$member]=$(( ${per_member[$member]:-0} + piece_len ))
      n=$(( n + 1 ))
      [ "$n" -le 4 ] || continue
      foff=$(( lstart * fs_bs + piece_off - aoff ))
      # The last block of a file may be partly beyond its end.
      local cmplen=$piece_len
      [ $(( foff + cmplen )) -le "$size" ] || cmplen=$(( size - foff ))
      # cmp's own skip and count, not dd into process substitutions
      # that cmp may stop reading.
      if cmp -s -i "$moff:$foff" -n "$cmplen" "${members[$member]}" \
             "$out/$f"; then
        verdict="same bytes as the file"
      else
        verdict="DIFFERENT from the file"
        demo_failed=1
      fi
      printf '    array %s+%s -> member %s offset %s  (%s)\n' \
             "$piece_off" "$piece_len" "$member" "$moff" "$verdict"
    done < <("$raidsim" map -q "${params[@]}" "member=${members[0]}" \
               "member=${members[1]}" "$aoff+$alen")
    [ "$n" -le 4 ] || printf '    ... %s more pieces\n' $(( n - 4 ))
  done < <(sed 's/\.\./ /g; s/:/ /g' "$frag" |
           awk '$1 ~ /^[0-9]+$/ && NF >= 6 { print $2, $4, $6 }')
  local summary="  bytes of its blocks on each member:"
  for member in "${!members[@]}"; do
    summary+=" member $member: ${per_member[$member]:-0}"
  done
  echo "$summary"
}

demo_failed=0
printf '\nfile system block size %s; extents from filefrag -v, mapped with\n' "$fs_bs"
printf '  %s map %s member=... member=... OFFSET+LENGTH\n' "$raidsim" "${params[*]}"
for f in "${shown[@]}"; do
  show_file "$f" "$work/frag.$(echo "$f" | tr / _)"
done
[ "$demo_failed" -eq 0 ] || die "a member does not hold what the geometry says"

step "done"
say "the verified ext4 file system stays on ${members[*]}"
say "serve and mount it again with:"
cat <<EOF
  nbdkit -U /tmp/raid.sock $plugin ${params[*]} ${members[0]} ${members[1]}
  mkdir -p /tmp/raid && nbdfuse /tmp/raid/disk --unix /tmp/raid.sock &
  mount "\$(losetup --find --show /tmp/raid/disk)" /mnt
EOF
