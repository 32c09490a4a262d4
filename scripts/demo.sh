#!/bin/bash
# raidsim demo: the whole product in about a minute, every step printed
# with the command a user would type.
#
#   0. installs the Debian packages and builds raidsim (first run only);
#   1. an md RAID 10: `raidsim create` writes md superblocks to four
#      sparse 256M files, nbdkit serves the array with the raid plugin,
#      it is attached as a block device (nbdfuse and a loop device, or
#      with --nbd-client the kernel's nbd driver), ext4 is made and
#      files are copied in; `mdadm --examine` reads a member as md would;
#   2. a failure while mounted: member 1 is failed over the control
#      socket, files are written to the degraded array, a spare is
#      added and rebuilt (detail, as /proc/mdstat, until [UUUU]), a
#      check finds the copies equal, and with the rebuilt member's
#      partner failed too every file is read back and its sha256 checked;
#   3. the simulator: `raidsim sweep` of the same RAID 10 (four SATA SSD
#      models behind a chipset's SATA ports) over chunk size and queue
#      depth, the bottleneck it names, and `raidsim plot` of it (PNG);
#   4. the models in real time: the VROC RAID 0 of two Optane 900P
#      (model=configs/arrays/raid0-2x-optane-900p-vroc.ini) and a single
#      900P, each served on sparse files and timed by fio's nbd engine
#      with the same QD1 4K random-read job, beside `raidsim run` of
#      that job: the penalty felt against the one predicted, and how
#      much of what was felt is the host's own path.
#
# Everything (mounts, loop device, FUSE mount, nbdkit, member files) is
# cleaned up on exit, also on failure or Ctrl-C; the sweep, its plot and
# the files the demo wrote for it stay in the demo directory (default
# /var/tmp/raidsim-demo).  Without FUSE or loop devices the demo says so
# and exits non-zero.
#
# Run (as root): scripts/demo.sh [--nbd-client] [--dir DIR] [--build-dir DIR]
#   --nbd-client     attach with nbd-client and /dev/nbd0 (needs the
#                    kernel's nbd module), not nbdfuse and a loop device
#   --dir DIR        where the results stay (default /var/tmp/raidsim-demo)
#   --build-dir DIR  use the programs of the build tree DIR; install and
#                    build nothing (for tests/integration/test-demo.sh)
set -euo pipefail

srcdir=$(cd "$(dirname "$0")/.." && pwd)
attach_mode=nbdfuse
demo_dir=/var/tmp/raidsim-demo
build_dir=

while [ $# -gt 0 ]; do
  case "$1" in
    --nbd-client) attach_mode=nbd-client ;;
    --dir) demo_dir=${2:?--dir needs a directory}; shift ;;
    --build-dir) build_dir=${2:?--build-dir needs a directory}; shift ;;
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
  [ -z "${logs[*]-}" ] || show_logs "${logs[@]}"
}
set -E
trap 'on_error $? $LINENO "$BASH_COMMAND"' ERR
logs=()

# shown ARGS...: a command line as the user types it: the demo's
# scratch directory as $D, the plugin as $P, paths in the source tree
# from it (the current directory).
shown ()
{
  local line="" a
  for a in "$@"; do
    # Plain words as they are, '>' and '&' as the shell's own; the rest
    # in double quotes (the demo's arguments hold no " $ ` or \).
    case $a in
      '>'|'&'|'|') ;;
      *[!A-Za-z0-9_./:=,+@%-]*|'')
        # --option=VALUE and key=VALUE: only the value quoted.
        if [[ $a =~ ^(-*[A-Za-z0-9_-]+=)(.*)$ ]]; then
          a="${BASH_REMATCH[1]}\"${BASH_REMATCH[2]}\""
        else
          a="\"$a\""
        fi ;;
    esac
    line+="${line:+ }$a"
  done
  line=${line//"$plugin"/\$P}
  line=${line//"$D"/\$D}
  line=${line//"$srcdir/"/}
  printf '$ %s\n' "$line"
}

# run CMD ARGS...: print the command, then run it.
run () { shown "$@"; "$@"; }

# ---- 0. packages, build ---------------------------------------------------

if [ -z "$build_dir" ]; then
  step "installing dependencies and building"
  "$srcdir/scripts/install-deps.sh"
  "$srcdir/scripts/build.sh" >/dev/null
  build_dir=$srcdir/build
fi
build_dir=$(cd "$build_dir" && pwd)
plugin=$build_dir/plugins/raid/nbdkit-raid-plugin.so
[ -f "$plugin" ] || die "$plugin was not built"
[ -x "$build_dir/raidsim/raidsim" ] || die "raidsim was not built in $build_dir"
[ "$(id -u)" -eq 0 ] || die "the demo mounts a file system: run it as root"
# The commands below are typed from the source tree, with raidsim on
# the PATH as after `meson install`.
cd "$srcdir"
export PATH=$build_dir/raidsim:$PATH

mkdir -p "$demo_dir"
# What the demo keeps: the sweep, its plot and the files it wrote for it.
# Only what an earlier run of the demo left there goes.
rm -f "$demo_dir/member0.img" "$demo_dir/member1.img" "$demo_dir/nbdkit.log"
# The scratch directory: members, sockets, logs; gone at exit.
D=$(mktemp -d "$demo_dir/run.XXXXXX")
at_exit rm -rf "$D"
work=$D

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

start=$SECONDS
echo "D=$D   (the demo's scratch directory)"
echo "P=${plugin#"$srcdir/"}"
echo "raidsim is ${build_dir#"$srcdir/"}/raidsim/raidsim (on PATH here, as after meson install)"

# ---- 1. an md RAID 10, served, mounted ------------------------------------

step "1. an md RAID 10 over four files, served by nbdkit, mounted as ext4"
members=("$D/m0.img" "$D/m1.img" "$D/m2.img" "$D/m3.img")
run truncate -s 256M "${members[@]}" "$D/spare.img"
run raidsim create --level=10 --chunk=64K --name=demo --assume-clean \
  "${members[@]}"
sock=$D/raid10.sock
ctl=$D/raid10.ctl
log=$D/raid10.log
logs+=("$log")
shown nbdkit -U "$sock" "$plugin" "${members[@]}" control="$ctl"
serve "$sock" "$log" "$plugin" "${members[@]}" control="$ctl"
run mdadm --examine "${members[0]}"

if [ "$attach_mode" = nbdfuse ]; then
  shown nbdfuse "$D/fuse/disk" --unix "$sock" '&'
  fuse_attach "$D/fuse" disk --unix "$sock"
  logs+=("$D/fuse.log")
  shown losetup --find --show "$D/fuse/disk"
  loop_attach "$D/fuse/disk"
  dev=$LOOP_DEV
  echo "$dev"
else
  dev=/dev/nbd0
  run nbd-client -unix "$sock" "$dev"
  at_exit nbd-client -d "$dev"
fi
mnt=$D/mnt
run mkfs.ext4 -q -L raidsim-demo "$dev"
shown mount "$dev" "$mnt"
mount_dev "$dev" "$mnt"

# Files to copy: part of /usr/share/doc (every Debian has it) and random
# files, one of them 32M, across many stripes.  No pipe into head: under
# pipefail, find or sort would die of SIGPIPE when head stops reading;
# mapfile -n reads the first lines of a file sort wrote completely.
src=$work/src
mkdir -p "$src/doc"
find /usr/share/doc -mindepth 1 -maxdepth 1 -type d > "$work/docs.found"
sort "$work/docs.found" > "$work/docs.sorted"
mapfile -t -n 40 docs < "$work/docs.sorted"
[ "${#docs[@]}" -gt 0 ] || die "/usr/share/doc has no directories to copy"
cp -a "${docs[@]}" "$src/doc/"
make_random_tree "$src/random" 120
head -c 32M /dev/urandom > "$src/random/big.bin"
run cp -a "$src/." "$mnt/"
run sync -f "$mnt"
run raidsim control "$ctl" detail

# ---- 2. a failure while mounted, a spare, the rebuild -----------------------

step "2. member 1 fails while mounted; a spare is added and rebuilt"
run raidsim control "$ctl" fail 1
run raidsim control "$ctl" detail
# Writes go on while the array is degraded.
mkdir -p "$src/degraded"
head -c 16M /dev/urandom > "$src/degraded/written-while-degraded.bin"
run cp -a "$src/degraded" "$mnt/"
run sync -f "$mnt"
tree_sums "$src" > "$work/src.sums"
nfiles=$(wc -l < "$work/src.sums")
run raidsim control "$ctl" add "$D/spare.img"

# wait_sync WORD: print detail's progress line (as /proc/mdstat's)
# while a sync action runs, until there is none, the action is idle and
# every member is in sync ([UUUU]).  A recovery's members are not all in
# sync until it is done, and `check` answers once the check runs, so
# neither can be taken as done before it started.
wait_sync ()
{
  local word=$1 i detail json progress last=""
  echo "(and again every half second: its $word line)"
  for (( i = 0; i < 600; i++ )); do
    detail=$(raidsim control "$ctl" detail)
    json=$(raidsim control --json "$ctl" detail)
    if [[ $detail == *"$word = "* ]]; then
      progress=${detail#*"$word = "}
      progress=${progress%%$'\n'*}
      if [ "$progress" != "$last" ]; then
        echo "      $word = $progress"
        last=$progress
      fi
    elif [[ $detail == *"[UUUU]"* && $json == *'"action":"idle"'* ]]; then
      return 0
    fi
    sleep 0.5
  done
  die "the $word did not finish in 300 s"
}
wait_sync recovery
run raidsim control "$ctl" detail
run raidsim control "$ctl" check
wait_sync check
detail=$(raidsim control "$ctl" detail)
echo "$detail"
[[ $detail == *"mismatch_cnt 0"* ]] || die "check found copies that differ"
shown mdadm --examine "$D/spare.img"
mdadm --examine "$D/spare.img" > "$work/examine.spare"
echo "(its Events, Device Role and Array State lines:)"
grep -E 'Events|Device Role|Array State' "$work/examine.spare"

# Fail the rebuilt member's mirror partner (role 0; roles 0 and 1 hold
# the same chunks in md's near layout), so that every byte of that half
# of the array is read from the rebuilt spare; then read every file back
# through a cold cache.
run raidsim control "$ctl" fail 0
umount_dir "$mnt"
if [ "$attach_mode" = nbdfuse ]; then
  # The loop device reads the nbdfuse file through the page cache.
  drop_page_cache "$D/fuse/disk"
fi
shown mount "$dev" "$mnt"
mount_dev "$dev" "$mnt"
# shellcheck disable=SC2016 # the command as typed, $D unexpanded
echo '$ (cd $D/mnt && sha256sum --quiet -c $D/src.sums)'
if (cd "$mnt" && sha256sum --quiet -c "$work/src.sums"); then
  echo "all $nfiles files read back match their sha256 sums; every chunk of roles 0 and 1 came from the rebuilt spare alone"
else
  die "files read back from the array differ"
fi
umount_dir "$mnt"
shown e2fsck -fn "$dev"
if ! e2fsck -fn "$dev" > "$work/fsck.log" 2>&1; then
  cat "$work/fsck.log"
  die "e2fsck -fn found problems in the file system"
fi
tail -n 1 "$work/fsck.log"
if [ "$attach_mode" = nbdfuse ]; then
  loop_detach "$dev"
  fuse_detach "$D/fuse" "$FUSE_PID"
else
  nbd-client -d "$dev"
fi
stop_pid "$SERVE_PID"
rm -f "${members[@]}" "$D/spare.img"
part1=$(( SECONDS - start ))

# ---- 3. the simulator: the same RAID 10, swept ----------------------------

step "3. raidsim sweep: the same RAID 10 over chunk size and queue depth"
array=$D/raid10-4x-sata-ssd.ini
cat > "$array" <<'EOF'
; The demo's RAID 10 (md, 4 members, near 2 copies) as raidsim models
; it, on four premium SATA SSDs (the class model sata-ssd-premium) on a
; chipset's SATA II ports behind its DMI uplink (ahci-like).  An
; example, not a validated preset: see raidsim list for those.
[array]
level = 10
members = 4
chunk = 64K
device = sata-ssd-premium
controller = ahci-like
EOF
run cat "$array"
# shellcheck disable=SC2054 # the commas are the values' own
sweep_args=(--workload seqread-128k-qd4 --vary chunk=16K,64K,512K
            --vary qd=1,2,4,8,16,32)
shown raidsim sweep "$array" "${sweep_args[@]}" --format csv '>' "$D/sweep.csv"
raidsim sweep "$array" "${sweep_args[@]}" --format csv > "$work/sweep.csv"
# The table a user reads: chunk, queue depth, MB/s and the bottleneck.
echo "chunk    qd   read MB/s   bottleneck (its busy time)"
awk -F, 'NR > 1 { printf "%-6s %4s %11.1f   %s %.0f%%\n", $2, $3, $11 / 1e6, $19, $20 }' \
  "$work/sweep.csv"
# The bottleneck: at each chunk size, what limits the deepest queue
# (the rows come in queue depth order), and from which depth on it is
# saturated.
awk -F, 'FNR == 1 { next }
  NR == FNR { what[$2] = $19; util[$2] = $20; next }
  $19 == what[$2] && $20 >= 99 && !($2 in first) { first[$2] = $3 }
  END { for (c in what)
          if (c in first) printf "%s %s %s\n", c, first[c], what[c]
          else printf "%s - %s %.0f%%\n", c, what[c], util[c] }' \
  "$work/sweep.csv" "$work/sweep.csv" > "$work/limits"
sort -h "$work/limits" > "$work/limits.sorted"
while read -r chunk qd what; do
  if [ "$qd" = - ]; then
    echo "chunk $chunk: nothing is saturated; the busiest is $what"
    continue
  fi
  case $what in
    uplink) why="the shared uplink to the host (ahci-like's DMI 2.0)" ;;
    port*) why="a member's own SATA link ($what)" ;;
    member*) why="the drives themselves ($what)" ;;
    *) why=$what ;;
  esac
  echo "chunk $chunk: from QD $qd on, the array is limited by $why"
done < "$work/limits.sorted"
[ -s "$work/limits.sorted" ] || echo "no resource is saturated at these queue depths"
cp "$work/sweep.csv" "$array" "$demo_dir/"
plot_title="RAID 10 of 4 SATA SSDs: 128K sequential reads"
if command -v gnuplot >/dev/null 2>&1; then
  run raidsim plot "$D/sweep.csv" -o "$D/sweep.png" --x qd --layout lines \
    --title "$plot_title"
  cp "$D/sweep.png" "$demo_dir/"
  echo "plot: $demo_dir/sweep.png ($(stat -c %s "$D/sweep.png") bytes)"
else
  echo "gnuplot is not installed: no plot (apt-get install gnuplot-nox)"
fi
part3=$SECONDS

# ---- 4. the models in real time -----------------------------------------

step "4. the VROC RAID 0 model felt in real time, against one 900P"
job=$D/qd1-4k.fio
cat > "$job" <<'EOF'
; 4 KiB random reads at queue depth 1, one at a time: what a single
; thread of small reads feels.  5000 of them over the first 1 GiB.
[global]
bs=4k
rw=randread
iodepth=1
size=1g
number_ios=5000

[qd1-4k-randread]
EOF
run cat "$job"
cp "$job" "$demo_dir/"

# felt ARRAY: serve ARRAY's model over sparse members as large as its
# modelled drives, and time the job with fio's nbd engine; and predict
# the same job with raidsim run.  Leaves ARRAY.sim.json, .fio.json and
# .stats.json in $D.
felt ()
{
  local a=$1 name level n size msize i ms=()
  name=$(basename "$a" .ini)
  shown raidsim run "$a" --workload "$job" --format json '>' "$D/$name.sim.json"
  raidsim run "$a" --workload "$job" --format json > "$D/$name.sim.json"
  read -r level n size < <(perl -MJSON::PP -e '
    local $/; my $a = decode_json (<STDIN>)->{array};
    print "$a->{level} $a->{members} $a->{size}\n";' < "$D/$name.sim.json")
  case $level in
    0) msize=$(( size / n )) ;;
    *) msize=$size ;;             # a single drive: one member
  esac
  for (( i = 0; i < n; i++ )); do
    ms+=("$D/$name-m$i.img")
  done
  run truncate -s "$msize" "${ms[@]}"
  logs+=("$D/$name.log")
  shown nbdkit -U "$D/$name.sock" "$plugin" model="$a" \
    stats="$D/$name.stats.json" "${ms[@]}"
  serve "$D/$name.sock" "$D/$name.log" "$plugin" model="$a" \
    stats="$D/$name.stats.json" "${ms[@]}"
  run fio --ioengine=nbd --uri="nbd+unix:///?socket=$D/$name.sock" \
    --output-format=json --output="$D/$name.fio.json" "$job"
  stop_pid "$SERVE_PID"
  rm -f "${ms[@]}"
  [ -s "$D/$name.stats.json" ] || die "$name: the plugin wrote no statistics"
}
felt configs/arrays/single-optane-900p-480gb.ini
felt configs/arrays/raid0-2x-optane-900p-vroc.ini

# Felt (fio), inside the plugin (its stats: the model's time, without
# the host's path to the client) and predicted (raidsim run), and the
# two penalties, single / RAID 0.
perl -MJSON::PP -e '
  use strict; use warnings;
  my $dir = shift;
  sub load { local $/; open my $f, "<", $_[0] or die "$_[0]: $!\n";
             my $t = <$f>; $t =~ s/^[^{]*//s; decode_json ($t) }
  my (%r, @order);
  for my $name (@ARGV) {
    my $f = load ("$dir/$name.fio.json")->{jobs}[0]{read};
    my $s = load ("$dir/$name.sim.json")->{jobs}[0]{read};
    my $st = load ("$dir/$name.stats.json");
    $r{$name} = { felt_iops => $f->{iops}, felt_us => $f->{clat_ns}{mean} / 1e3,
                  sim_iops => $s->{iops}, sim_us => $s->{clat_ns}{mean} / 1e3,
                  plugin_us => $st->{array}{lat_ns}{read}{mean} / 1e3,
                  late => $st->{timing}{late}{count},
                  timed => $st->{timing}{requests} };
    push @order, $name;
  }
  my $fmt = "%-26s %8s %8s  %9s  %8s %8s  %9s\n";
  printf "\n$fmt", "", "felt", "(fio)", "in the", "predicted", "(raidsim)",
         "";
  printf $fmt, "", "IOPS", "mean us", "plugin us", "IOPS", "mean us",
         "late";
  for my $n (@order) {
    my $x = $r{$n};
    printf $fmt, $n, sprintf ("%.0f", $x->{felt_iops}),
      sprintf ("%.1f", $x->{felt_us}), sprintf ("%.1f", $x->{plugin_us}),
      sprintf ("%.0f", $x->{sim_iops}), sprintf ("%.1f", $x->{sim_us}),
      "$x->{late}/$x->{timed}";
  }
  my ($one, $raid) = @r{@order};
  my $felt = $one->{felt_iops} / $raid->{felt_iops};
  my $pred = $one->{sim_iops} / $raid->{sim_iops};
  my $inside = $raid->{plugin_us} / $one->{plugin_us};
  printf "\nthe RAID 0 penalty at QD1 (single drive IOPS / RAID 0 IOPS):\n";
  printf "  felt %.2fx, predicted %.2fx; inside the plugin, where the models time the requests, %.2fx\n",
    $felt, $pred, $inside;
  for my $n (@order) {
    my $x = $r{$n};
    my $host = $x->{felt_us} - $x->{plugin_us};
    if ($host > $x->{plugin_us}) {
      printf "  %s: the host path limits it: fio, the NBD socket and nbdkit add %.0f us to the model'"'"'s %.1f us\n",
        $n, $host, $x->{plugin_us};
    } else {
      printf "  %s: the host path adds %.0f us to the model'"'"'s %.1f us\n",
        $n, $host, $x->{plugin_us};
    }
    printf "  %s: %d of %d requests came back late (the real I/O took longer than the model)\n",
      $n, $x->{late}, $x->{timed} if $x->{late} > $x->{timed} / 100;
  }
  if ($felt < $pred / 1.5) {
    print "  so the felt penalty is smaller than the predicted one: no request is\n";
    print "  faster than the host'"'"'s own path, which hides most of the fast drive'"'"'s lead\n";
    print "  (docs/realtime.md)\n";
  }
' "$D" single-optane-900p-480gb raid0-2x-optane-900p-vroc

step "done in $(( SECONDS - start )) s (RAID 10 part ${part1} s, sweep $(( part3 - start - part1 )) s, real time $(( SECONDS - part3 )) s)"
echo "left in $demo_dir: sweep.csv, sweep.png, raid10-4x-sata-ssd.ini, qd1-4k.fio"
echo "next: raidsim list; README.md (serving an array yourself); docs/realtime.md"
