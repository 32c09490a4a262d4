#!/bin/bash
# raidsim tests: one fio job file, run by real fio against the emulated
# array (nbdkit-raid-plugin through fio's nbd ioengine) and by the
# simulator, must give the same member I/O; and what fio wrote must land
# on the members where the layout says.
#
# For each array the test writes one job file and uses it three times:
#   1. fio --ioengine=psync into a plain file of the array's size: the
#      expected array image, made without the plugin;
#   2. fio --ioengine=nbd against nbdkit serving the plugin over member
#      files, with stats=PATH.  fio verifies everything it reads back,
#      so a read that returns the wrong bytes fails the run;
#   3. raidsim run ARRAY.ini --workload JOB.fio --format json.
# Then:
#   - check-members (the independent reference layout, tests/lib/refmap.c)
#     compares every member byte with the expected image: data on the
#     wrong member or at the wrong offset fails even when the plugin's
#     reads are wrong in the same way, which fio's verify cannot see;
#   - fio and raidsim report the same requests (count and bytes) per job,
#     and the plugin's array counts are fio's requests;
#   - every member's writes (ops and bytes) in the plugin's statistics
#     equal the simulator's disk_util write_ios and write_bytes; reads
#     too where the member a read goes to does not depend on timing.
#
# The job file holds only options that both fio and raidsim read (raidsim
# refuses the rest, so nothing is silently ignored).  What matters only
# to fio goes on its command line: where the array is, and the data.
# The data is fio's verify=pattern with %o: every block of the job holds
# its own array offset followed by 5 bytes of text, repeated, so a
# block's content depends only on where it is, and with a 13-byte period
# a piece moved inside its block is as visible as one moved elsewhere.
# The sequential write covers the first half of the array (and, as fio
# does, the rest of its last block), the random write the rest, so every
# written byte comes from one job and the member check sees both jobs'
# placement (a second pass over the same bytes would write over the
# first pass's mistakes).
#
# Reads are compared member by member on RAID 0, and on RAID 10 with
# read-policy=first, where the layout alone says which member serves a
# read; on the RAID 1 with least-pending, which copy serves a read
# depends on the queues at that moment, so only the totals are compared.
#
# Skips (77) if fio, its nbd ioengine, nbdkit or perl's JSON::PP is
# missing.
#
# Run: meson test -C build fio
#  or: tests/integration/test-fio.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM CHECK_MEMBERS
requires nbdkit
requires_fio_nbd
requires_perl_module JSON::PP

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-fio.XXXXXX")
at_exit rm -rf "$tmp"

keep_going

KiB=1024
MiB=$(( 1024 * KiB ))
MEMBER_SIZE=16M
member_bytes=$(( 16 * MiB ))

# fio's options that the simulator has no use for.  The random write
# job's order is fixed by the seed so that a failure reproduces; the
# data does not depend on it.  The read jobs verify what they read;
# do_verify=0 keeps the write jobs from reading back on their own, which
# raidsim would not know about, and verify_state_save=0 keeps fio from
# leaving state files in the current directory.
FIO_DATA=(--verify=pattern '--verify_pattern=%o"raid!"' --do_verify=0
          --verify_state_save=0 --randrepeat=1 --randseed=4242)

# size_bytes 64K: the bytes of a size with a K or M suffix.
size_bytes ()
{
  case "$1" in
    *[Kk]) echo $(( ${1%[Kk]} * KiB )) ;;
    *[Mm]) echo $(( ${1%[Mm]} * MiB )) ;;
    *)  echo "$1" ;;
  esac
}

# array_size LEVEL N CHUNK COPIES: the array's bytes over N members of
# member_bytes, by the layout's rules: RAID 0 stripes whole chunks over
# every member, RAID 1 is one member's size, RAID 10 near holds
# N * rows / COPIES whole chunks.
array_size ()
{
  local level=$1 n=$2 chunk=$3 copies=$4 rows
  rows=$(( member_bytes / chunk ))
  # shellcheck disable=SC2017 # whole chunks: the division rounds down
  case "$level" in
    0)  echo $(( n * rows * chunk )) ;;
    1)  echo "$member_bytes" ;;
    10) echo $(( n * rows / copies * chunk )) ;;
  esac
}

# value FLAT KEY
value () { awk -v k="$2" '$1 == k { print $2; found = 1; exit }
                          END { if (!found) print "(missing)" }' "$1"; }

# sum FLAT REGEX: the sum of the values whose keys match REGEX.
sum () { awk -v re="$2" '$1 ~ re { s += $2 } END { print s + 0 }' "$1"; }

# same WHAT GOT WANT: one figure, equal or a failure naming both.
same ()
{
  if [ "$2" = "$3" ]; then
    return 0
  fi
  BAD+="    $1: $2, want $3"$'\n'
}

# agree WHAT NAME1 VALUE1 NAME2 VALUE2: two sources give one figure.
agree ()
{
  if [ "$3" = "$5" ] && [ "$3" != "(missing)" ]; then
    return 0
  fi
  BAD+="    $1: $2 $3, $4 $5"$'\n'
}

# report WHAT: ok or fail with the differences collected in BAD.
report ()
{
  if [ -z "$BAD" ]; then
    ok "$1"
  else
    fail "$1:"
    printf '%s' "$BAD"
  fi
  BAD=""
}
BAD=""

# write_job FILE HALF SEQ_BS RAND_BS SIZE: the job file for an array of
# SIZE bytes.  The writes come first, in one group: a sequential pass
# over the first half in blocks that are not a multiple of the chunk (so
# requests straddle chunks, and some carry several pieces to one member),
# and a random pass in small blocks, each block once (fio's random map,
# which raidsim follows), over the rest of the array.  HALF is not a
# whole number of SEQ_BS blocks: fio goes on until it has done size
# bytes, so its last block runs past HALF, and the random pass starts
# where that block ends.  Then, after the writes, both regions are read
# back in the same blocks, so that fio verifies them.
write_job ()
{
  local half=$2 seq_bs=$3 rand_bs=$4 size=$5 rand_off
  [ $(( half % seq_bs )) -ne 0 ] ||
    die "$1: bs=$seq_bs divides $half: choose one that does not"
  rand_off=$(( (half + seq_bs - 1) / seq_bs * seq_bs ))
  cat >"$1" <<EOF
; Written by tests/integration/test-fio.sh: run by fio against the array and into a
; plain file, and by raidsim.
[seq-write]
rw=write
bs=$seq_bs
iodepth=8
size=$half

[rand-write]
rw=randwrite
bs=$rand_bs
iodepth=8
offset=$rand_off
size=$(( size - rand_off ))

[seq-read]
stonewall
rw=read
bs=$seq_bs
iodepth=8
size=$half

[rand-read]
rw=randread
bs=$rand_bs
iodepth=4
offset=$rand_off
size=$(( size - rand_off ))
EOF
}

# run_case NAME LEVEL N CHUNK COPIES READ-POLICY SEQ_BS RAND_BS READS
#   READS: exact when every read's member follows from the layout and the
#   read policy (RAID 0; RAID 1 and 10 with read-policy=first), totals
#   when it depends on which copy is least busy at the time.
run_case ()
{
  local name=$1 level=$2 n=$3 chunk=$4 copies=$5 policy=$6
  local seq_bs=$7 rand_bs=$8 reads=$9
  local d="$tmp/$name" size half i m rc
  local chunk_b start=$SECONDS
  local plugin_args=() members=() check_args=()

  local layout="RAID $level, $n members of $MEMBER_SIZE"
  [ "$level" = 1 ] || layout+=", chunk $chunk"
  say "$name: $layout${copies:+, copies $copies}${policy:+, read-policy $policy}; bs $seq_bs and $rand_bs"
  mkdir -p "$d"
  chunk_b=$(size_bytes "$chunk")
  size=$(array_size "$level" "$n" "$chunk_b" "${copies:-2}")
  half=$(( size / 2 ))
  write_job "$d/job.fio" "$half" "$(size_bytes "$seq_bs")" "$(size_bytes "$rand_bs")" "$size"

  # 1. The expected image, written by fio without the plugin.
  truncate -s "$size" "$d/expected.img"
  if ! fio --ioengine=psync --filename="$d/expected.img" "${FIO_DATA[@]}" \
           --output-format=json --output="$d/expected.json" "$d/job.fio" \
           2>"$d/expected.err"; then
    cat "$d/expected.err" "$d/expected.json"
    die "$name: fio failed on a plain file: the job itself is wrong"
  fi

  # 2. The same job against the plugin.
  plugin_args=("level=$level" "stats=$d/stats.json")
  [ -z "$policy" ] || plugin_args+=("read-policy=$policy")
  [ "$level" = 1 ] || plugin_args+=("chunk=$chunk")
  [ -z "$copies" ] || plugin_args+=("copies=$copies")
  for (( i = 0; i < n; i++ )); do
    truncate -s "$MEMBER_SIZE" "$d/m$i.img"
    members+=("$d/m$i.img")
  done
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" "${plugin_args[@]}" \
    "${members[@]}"
  rc=0
  fio --ioengine=nbd --uri="nbd+unix:///?socket=$d/sock" "${FIO_DATA[@]}" \
      --output-format=json --output="$d/fio.json" "$d/job.fio" \
      2>"$d/fio.err" || rc=$?
  stop_pid "$SERVE_PID"
  if [ "$rc" -ne 0 ]; then
    fail "$name: fio against the plugin exited with $rc (verify errors, if any, below)"
    head -n 20 "$d/fio.err"
    grep -m 10 -i 'error\|fail' "$d/nbdkit.log" || true
    return
  fi
  ok "$name: fio wrote both regions through the plugin and verified them on read-back"
  [ -s "$d/stats.json" ] || die "$name: nbdkit wrote no $d/stats.json at exit"

  # 3. The simulator, over drives of the members' size, behind md's
  # controller, which issues one member I/O per run of contiguous pieces
  # of a request (merge_pieces), as the plugin does.
  cat >"$d/drive.ini" <<EOF
[device]
model = fixed
capacity = $MEMBER_SIZE
latency = 100us
parallelism = 4
EOF
  {
    echo "[array]"
    echo "level = $level"
    echo "members = $n"
    [ "$level" = 1 ] || echo "chunk = $chunk"
    [ -z "$copies" ] || echo "copies = $copies"
    [ -z "$policy" ] || echo "read_policy = $policy"
    echo "device = drive.ini"
    echo "controller = $SRCDIR/configs/controllers/md.ini"
  } >"$d/array.ini"
  if ! "$RAIDSIM" run "$d/array.ini" --workload "$d/job.fio" --format json \
       >"$d/sim.json" 2>"$d/sim.err"; then
    cat "$d/sim.err"
    die "$name: raidsim run failed"
  fi

  json_flat "$d/stats.json" >"$d/stats.flat"
  json_flat "$d/sim.json" >"$d/sim.flat"
  json_flat "$d/fio.json" >"$d/fio.flat"

  # Member bytes against the expected image, by the reference layout.
  check_args=("level=$level" "chunk=${chunk_b}" "data=$d/expected.img")
  [ -z "$copies" ] || check_args+=("copies=$copies")
  for m in "${members[@]}"; do check_args+=("member=$m"); done
  if "$CHECK_MEMBERS" "${check_args[@]}" >"$d/check.out" 2>&1; then
    ok "$name: every member holds its share of fio's data byte for byte"
  else
    fail "$name: the members do not hold what the layout says:"
    sed -n '1,15s/^/    /p' "$d/check.out"
  fi

  # The three agree on the array and on what was asked.
  same "array size: plugin" "$(value "$d/stats.flat" size)" "$size"
  same "array size: raidsim" "$(value "$d/sim.flat" array.size)" "$size"
  for (( i = 0; i < 4; i++ )); do
    local job dir
    job=$(value "$d/fio.flat" "jobs.$i.jobname")
    agree "job $i" fio "$job" raidsim "$(value "$d/sim.flat" "jobs.$i.jobname")"
    same "$job: fio's error" "$(value "$d/fio.flat" "jobs.$i.error")" 0
    for dir in read write; do
      agree "$job: $dir requests" \
        fio "$(value "$d/fio.flat" "jobs.$i.$dir.total_ios")" \
        raidsim "$(value "$d/sim.flat" "jobs.$i.$dir.total_ios")"
      agree "$job: $dir bytes" \
        fio "$(value "$d/fio.flat" "jobs.$i.$dir.io_bytes")" \
        raidsim "$(value "$d/sim.flat" "jobs.$i.$dir.io_bytes")"
    done
  done
  for dir in read write; do
    agree "array $dir requests" \
      fio "$(sum "$d/fio.flat" "^jobs\\.[0-9]+\\.$dir\\.total_ios\$")" \
      plugin "$(value "$d/stats.flat" "array.ops.$dir")"
    agree "array $dir bytes" \
      fio "$(sum "$d/fio.flat" "^jobs\\.[0-9]+\\.$dir\\.io_bytes\$")" \
      plugin "$(value "$d/stats.flat" "array.bytes.$dir")"
  done
  report "$name: fio, raidsim and the plugin agree on every job's requests ($(value "$d/stats.flat" array.ops.write) writes, $(value "$d/stats.flat" array.ops.read) reads)"

  # Member I/O: the prediction against the emulator.  Which copy serves
  # a read depends on the members' queues at that moment, in the plugin
  # and in the model alike, so with reads "totals" only the sums over
  # the members are fixed.
  for dir in write read; do
    if [ "$dir" = write ] || [ "$reads" = exact ]; then
      for (( i = 0; i < n; i++ )); do
        agree "member $i ${dir}s" \
          plugin "$(value "$d/stats.flat" "members.$i.ops.$dir")" \
          raidsim "$(value "$d/sim.flat" "disk_util.$i.${dir}_ios")"
        agree "member $i $dir bytes" \
          plugin "$(value "$d/stats.flat" "members.$i.bytes.$dir")" \
          raidsim "$(value "$d/sim.flat" "disk_util.$i.${dir}_bytes")"
      done
      report "$name: every member's ${dir}s, plugin = raidsim ($(sum "$d/stats.flat" "^members\\.[0-9]+\\.ops\\.$dir\$") member ${dir}s)"
    else
      agree "member ${dir}s in all" \
        plugin "$(sum "$d/stats.flat" "^members\\.[0-9]+\\.ops\\.$dir\$")" \
        raidsim "$(sum "$d/sim.flat" "^disk_util\\.[0-9]+\\.${dir}_ios\$")"
      agree "member $dir bytes in all" \
        plugin "$(sum "$d/stats.flat" "^members\\.[0-9]+\\.bytes\\.$dir\$")" \
        raidsim "$(sum "$d/sim.flat" "^disk_util\\.[0-9]+\\.${dir}_bytes\$")"
      report "$name: member ${dir}s in all, plugin = raidsim (per member they depend on timing)"
    fi
  done
  say "$name: $(( SECONDS - start )) s"
  rm -rf "$d"
}

#        name       level n chunk copies policy        seq  rand reads
run_case raid0-2x64k  0   2 64K  ""     ""             96k  40k  exact
run_case raid0-3x16k  0   3 16K  ""     ""             200k 12k  exact
run_case raid10-3x64k 10  3 64K  2      first          80k  24k  exact
run_case raid1-2      1   2 64K  ""     least-pending  96k  12k  totals

end_checks
