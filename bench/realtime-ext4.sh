#!/bin/bash
# raidsim demo: feel the models with a real file system.  The same copy
# and the same fio job on ext4, mounted on three emulated arrays
# (nbdkit-raid-plugin model=ARRAY.ini, attached through nbdfuse and a
# loop device), beside raidsim's predictions for the same work:
#
#   raid0-2x-optane-900p-md    the single Optane 900P (at QD1 a 4K read is
#                              one drive's; raidsim gives both 16.2 us)
#   raid0-2x-optane-900p-vroc  two 900Ps in Intel VROC's RAID 0
#   raid0-4x-wd2502abys-amd    four 2007 hard disks, AMD chipset RAID 0
#
# For each: fresh sparse members on tmpfs, mkfs.ext4 on the first
# FS_SIZE of the array, mount; time `cp` of a COPY_SIZE file of random
# bytes and `sync`; drop the attached file's page cache; then fio 4K
# random reads at QD1 with direct=1 over that file for RUNTIME seconds.
# raidsim's figures: the copy as COPY_SIZE of 1 MiB sequential writes at
# QD4 (roughly what writeback sends), the fio job as it is.  Between
# ext4, the loop device and nbdfuse the requests that reach the array
# are not exactly fio's (nbdfuse goes through the page cache, and reads
# ahead), so these are what a user feels, not a cross-check: that is
# bench/crosscheck.sh.
#
# Needs root, FUSE, nbdfuse, loop devices, mkfs.ext4; skips (77)
# otherwise.
#
# Run: bench/realtime-ext4.sh          (after meson compile -C build)
# Environment: COPY_SIZE=128M, FS_SIZE=2G, RUNTIME=5, NBDKIT_ARGS,
# BENCH_DIR (default /dev/shm), RAID_PLUGIN, RAIDSIM.
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/lib.sh
. "$srcdir/scripts/lib.sh"
RAIDSIM_PROG=realtime-ext4.sh

RAID_PLUGIN=${RAID_PLUGIN:-$srcdir/build/plugins/raid/nbdkit-raid-plugin.so}
RAIDSIM=${RAIDSIM:-$srcdir/build/raidsim/raidsim}
BENCH_DIR=${BENCH_DIR:-/dev/shm}
COPY_SIZE=${COPY_SIZE:-128M}
FS_SIZE=${FS_SIZE:-2G}
RUNTIME=${RUNTIME:-5}
NBDKIT_ARGS=${NBDKIT_ARGS:-}

for cmd in mkfs.ext4 fio perl; do
  command -v "$cmd" >/dev/null 2>&1 || skip "$cmd is not installed"
done
work=$(mktemp -d "$BENCH_DIR/ext4.XXXXXX")
at_exit rm -rf "$work"
problem=$(fuse_loop_problem "$work")
[ -z "$problem" ] || skip "$problem"

umount_if_mounted ()
{
  if mountpoint -q "$1"; then umount "$1"; fi
}

head -c "$(numfmt --from=iec "$COPY_SIZE")" /dev/urandom > "$work/source"
cat > "$work/job.fio" <<EOF
; Written by bench/realtime-ext4.sh.
[global]
bs=4k
rw=randread
iodepth=1
size=$COPY_SIZE
runtime=$RUNTIME
time_based
[rr-qd1]
EOF
cat > "$work/copy.fio" <<EOF
; Written by bench/realtime-ext4.sh: the copy, as raidsim sees it.
[global]
bs=1M
rw=write
iodepth=4
size=$COPY_SIZE
[copy]
EOF

printf '%-28s | %10s %10s | %10s %10s %10s | %10s %10s\n' array \
  copy-s sim-s fio-iops sim-iops fio-lat-us sim-lat-us late
for name in raid0-2x-optane-900p-md raid0-2x-optane-900p-vroc \
            raid0-4x-wd2502abys-amd; do
  array=$srcdir/configs/arrays/$name.ini
  d=$work/$name
  mkdir -p "$d"
  "$RAIDSIM" run "$array" --workload "$work/job.fio" --format json \
    > "$d/sim-fio.json"
  "$RAIDSIM" run "$array" --workload "$work/copy.fio" --format json \
    > "$d/sim-copy.json"
  read -r nmembers size < <(perl -MJSON::PP -e 'local $/;
    my $a = decode_json (<STDIN>)->{array};
    print "$a->{members} $a->{size}\n";' < "$d/sim-fio.json")
  members=()
  for (( i = 0; i < nmembers; i++ )); do
    truncate -s $(( size / nmembers )) "$d/m$i.img"
    members+=("$d/m$i.img")
  done
  # shellcheck disable=SC2086
  serve "$d/sock" "$d/nbdkit.log" --threads 64 $NBDKIT_ARGS "$RAID_PLUGIN" \
    model="$array" stats="$d/stats.json" "${members[@]}"
  serve_pid=$SERVE_PID
  fuse_attach "$d/fuse" disk --unix "$d/sock"
  loop_attach "$d/fuse/disk"
  mkfs.ext4 -q -F -E lazy_itable_init=1,lazy_journal_init=1,nodiscard \
    "$LOOP_DEV" "$FS_SIZE"
  mkdir -p "$d/mnt"
  mount "$LOOP_DEV" "$d/mnt"
  at_exit umount_if_mounted "$d/mnt"
  start=$(date +%s.%N)
  cp "$work/source" "$d/mnt/file"
  sync
  end=$(date +%s.%N)
  drop_page_cache "$d/fuse/disk"
  fio --filename="$d/mnt/file" --direct=1 --ioengine=psync \
    --output-format=json --output="$d/fio.json" "$work/job.fio" \
    > "$d/fio.log" 2>&1 || { cat "$d/fio.log" >&2; die "$name: fio failed"; }
  umount "$d/mnt"
  loop_detach "$LOOP_DEV"
  fuse_detach "$d/fuse" "$FUSE_PID"
  stop_pid "$serve_pid"
  perl -MJSON::PP -e '
    sub load { local $/; open my $f, "<", $_[0] or die "$_[0]: $!";
               my $t = <$f>; $t =~ s/^[^{]*//s; decode_json ($t) }
    my ($d, $name, $copy_s) = @ARGV;
    my $f = load ("$d/fio.json")->{jobs}[0]{read};
    my $s = load ("$d/sim-fio.json")->{jobs}[0]{read};
    my $c = load ("$d/sim-copy.json")->{jobs}[0]{write};
    my $t = load ("$d/stats.json")->{timing};
    printf "%-28s | %10.2f %10.2f | %10.0f %10.0f %10.1f %10.1f | %9.1f%%\n",
      $name, $copy_s, $c->{runtime_ns} / 1e9, $f->{iops}, $s->{iops},
      $f->{clat_ns}{mean} / 1e3, $s->{clat_ns}{mean} / 1e3,
      100 * $t->{late}{count} / ($t->{requests} || 1);
  ' "$d" "$name" "$(perl -e 'printf "%.3f", $ARGV[1] - $ARGV[0]' "$start" "$end")"
done
