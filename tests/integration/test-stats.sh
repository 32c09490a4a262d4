#!/bin/bash
# raidsim tests: the plugin's statistics (stats=PATH, SIGUSR1, the
# summary at exit) against workloads whose member I/O is known exactly.
#
# Every workload is a list of requests that tests/nbd-io sends as it is,
# nothing more, so the member I/O it must cause follows from the layout
# alone.  The test works that out itself, by the layout rules written out
# below (expected_by_hand) or, for members of unequal sizes, from
# `raidsim map` (expected_by_map); no figure is taken from the plugin.
# Then, for each array:
#   - every op and byte count of the array and of every member in the
#     JSON equals what the layout says, at a pause in the middle of the
#     connection (SIGUSR1) and at exit;
#   - the one-line-per-member summary on stderr at exit says the same;
#   - latency histograms hold one sample per op, and
#     min <= p50 <= p95 <= p99 <= max;
#   - max_inflight never passes max-inflight=N under a QD32 load; and,
#     with a member whose server is stopped so that its I/Os cannot
#     finish, it reaches N exactly, and the array's counts every request
#     waiting in the plugin;
#   - SIGUSR1 sent during a busy workload rewrites the file, with counts
#     that only grow and stay within what the workload sends;
#   - a RAID 1 member that fails (an NBD member behind nbdkit's error
#     filter) shows "failed": true and its error, and the array none.
# Skips (77) if nbdkit or perl's JSON::PP is missing.
#
# Run: meson test -C build stats
#  or: tests/integration/test-stats.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN RAIDSIM NBD_IO
requires nbdkit
requires_perl_module JSON::PP

tmp=$(mktemp -d "${TMPDIR:-/var/tmp}/raidsim-stats.XXXXXX")
at_exit rm -rf "$tmp"

keep_going

KiB=1024
MiB=$(( 1024 * 1024 ))
MEMBER_SIZE=64M
member_bytes=$(( 64 * MiB ))

# Whether this kernel lets the plugin use io_uring at all (io=auto then
# still picks worker threads for members on file systems that cannot do
# non-blocking I/O).
auto_io=$(nbdkit "$RAID_PLUGIN" --dump-plugin | sed -n 's/^raid_io=//p')

# ---- workloads ----------------------------------------------------------

# random_aligned OP COUNT BS SPAN SEED: COUNT requests OP of BS bytes at
# BS-aligned offsets drawn from [0, SPAN).
random_aligned ()
{
  awk -v op="$1" -v n="$2" -v bs="$3" -v span="$4" -v seed="$5" 'BEGIN {
    srand (seed)
    for (i = 0; i < n; i++)
      printf "%s %d %d\n", op, int (rand () * (span / bs)) * bs, bs
  }'
}

# random_any OP COUNT MAXLEN SPAN SEED: COUNT requests OP of 1 to MAXLEN
# bytes at any offset, all inside [0, SPAN).
random_any ()
{
  awk -v op="$1" -v n="$2" -v max="$3" -v span="$4" -v seed="$5" 'BEGIN {
    srand (seed)
    for (i = 0; i < n; i++) {
      len = 1 + int (rand () * max)
      printf "%s %d %d\n", op, int (rand () * (span - len + 1)), len
    }
  }'
}

# ---- what the layout says ------------------------------------------------

# expected_by_hand LEVEL CHUNK NMEMBERS COPIES POLICY < REQUESTS: the op
# and byte counts the requests must cause, as "KEY VALUE" lines keyed
# like json_flat's output.  Equal members only.  The rules:
#   - RAID 0 and RAID 10 cut a request at chunk boundaries; RAID 1 does
#     not cut it at all.  Each piece is a piece on every copy used.
#   - RAID 0: array chunk c is on member c mod NMEMBERS, at member chunk
#     c div NMEMBERS.
#   - RAID 1: every member holds every byte, copies in member order, at
#     the array offset.
#   - RAID 10 near with COPIES copies: chunk c's copy j is slot
#     s = c * COPIES + j, on member s mod NMEMBERS at member chunk
#     s div NMEMBERS.
#   - Within one request, a piece that starts on its member where that
#     member's previous piece of the request ended joins it: one member
#     I/O (a run) carries both, up to 1024 pieces.
#   - A read uses one copy: read-policy=first takes j = 0; round-robin
#     takes j = (a counter over all pieces read) mod COPIES, which gives
#     exact counts when every piece is the same size.  Writes, zeroes and
#     trims go to every copy.  A flush goes to every member.
#   - Array counts are the client's requests; members' are member I/Os.
expected_by_hand ()
{
  awk -v level="$1" -v chunk="$2" -v n="$3" -v copies="$4" \
      -v policy="$5" '
    BEGIN {
      name["r"] = "read"; name["w"] = "write"; name["z"] = "zero"
      name["t"] = "trim"; name["f"] = "flush"
      if (level == 0) copies = 1
      if (level == 1) copies = n
    }
    function member_io (m, op, len, moff) {
      if (!((m, "end") in run) || run[m, "end"] != moff ||
          run[m, "segs"] == 1024) {
        ops[m, op]++
        run[m, "segs"] = 0
      }
      run[m, "end"] = moff + len
      run[m, "segs"]++
      pieces[m, op]++
      bytes[m, op] += len
    }
    # c: the chunk; off: the array offset, for the offset in the chunk.
    function copy_io (op, len, c, off, j,   s) {
      if (level == 1) { member_io(j, op, len, off); return }
      s = c * copies + j
      member_io(s % n, op, len, int (s / n) * chunk + off % chunk)
    }
    function piece (op, len, c, off,   j) {
      apieces[op]++
      if (op == "read") {
        j = policy == "round-robin" ? rr++ % copies : 0
        copy_io(op, len, c, off, j)
        return
      }
      for (j = 0; j < copies; j++)
        copy_io(op, len, c, off, j)
    }
    $1 == "p" { next }
    $1 == "f" {
      aops["flush"]++
      for (m = 0; m < n; m++) member_io(m, "flush", 0)
      next
    }
    {
      op = name[$1]; off = $2; len = $3
      aops[op]++; abytes[op] += len
      delete run
      if (level == 1) { piece(op, len, 0, off); next }
      while (len > 0) {
        c = int (off / chunk)
        l = (c + 1) * chunk - off
        if (l > len) l = len
        piece(op, l, c, off)
        off += l; len -= l
      }
    }
    END {
      split ("read write zero trim flush", all, " ")
      for (i = 1; i <= 5; i++) {
        op = all[i]
        printf "array.ops.%s %d\n", op, aops[op]
        if (op != "flush") {
          printf "array.pieces.%s %d\n", op, apieces[op]
          printf "array.bytes.%s %d\n", op, abytes[op]
        }
        for (m = 0; m < n; m++) {
          printf "members.%d.ops.%s %d\n", m, op, ops[m, op]
          if (op != "flush") {
            printf "members.%d.pieces.%s %d\n", m, op, pieces[m, op]
            printf "members.%d.bytes.%s %d\n", m, op, bytes[m, op]
          }
        }
      }
    }'
}

# expected_by_map NMEMBERS MAP-PARAMS... < REQUESTS: the same for a
# RAID 0 of reads and writes only, from `raidsim map --runs`: one member
# I/O per run line, carrying its pieces.
expected_by_map ()
{
  local n=$1 op
  shift
  local reqs
  reqs=$(cat)
  for op in r w; do
    local ranges=()
    mapfile -t ranges < <(awk -v op="$op" '$1 == op { print $2 "+" $3 }' \
                                <<<"$reqs")
    if [ "${#ranges[@]}" -gt 0 ]; then
      "$RAIDSIM" map -q --runs "$@" "${ranges[@]}" | sed "s/^/$op /"
    fi
  done | awk -v n="$n" '
    # op member:member-offset length pieces array-offset+length,...
    { name = $1 == "r" ? "read" : "write"
      split ($2, mc, ":")
      if (split ($5, segs, ",") != $4) { print "bad run line: " $0 > "/dev/stderr"; exit 1 }
      ops[mc[1], name]++; pieces[mc[1], name] += $4; bytes[mc[1], name] += $3 }
    END {
      split ("read write zero trim flush", all, " ")
      for (i = 1; i <= 5; i++)
        for (m = 0; m < n; m++) {
          printf "members.%d.ops.%s %d\n", m, all[i], ops[m, all[i]]
          if (all[i] != "flush") {
            printf "members.%d.pieces.%s %d\n", m, all[i], pieces[m, all[i]]
            printf "members.%d.bytes.%s %d\n", m, all[i], bytes[m, all[i]]
          }
        }
    }'
  awk '{ name = $1 == "r" ? "read" : "write"; ops[name]++; bytes[name] += $3 }
       END { printf "array.ops.read %d\narray.bytes.read %d\n", ops["read"], bytes["read"]
             printf "array.ops.write %d\narray.bytes.write %d\n", ops["write"], bytes["write"] }' \
    <<<"$reqs"
}

# ---- reading the statistics ---------------------------------------------

# summary_flat LOG: the summary lines of the log, as json_flat's keys.
summary_flat ()
{
  perl -ne '
    next unless /^nbdkit: raid: stats: (array|member (\d+))( \(failed\))?: (\d+) reads \((\d+) pieces, (\d+) bytes, p50 \d+ p99 \d+ ns\), (\d+) writes \((\d+) pieces, (\d+) bytes, p50 \d+ p99 \d+ ns\), (\d+) zero, (\d+) trim, (\d+) flush(?:, (\d+) errors)?, max in flight (\d+)$/;
    my $k = defined $2 ? "members.$2" : "array";
    print "$k.ops.read $4\n$k.pieces.read $5\n$k.bytes.read $6\n";
    print "$k.ops.write $7\n$k.pieces.write $8\n$k.bytes.write $9\n";
    print "$k.ops.zero $10\n$k.ops.trim $11\n";
    print "$k.ops.flush $12\n$k.errors ", $13 // 0, "\n$k.max_inflight $14\n";
    print "$k.failed ", (defined $3 ? "true" : "false"), "\n" if defined $2;
  ' "$1"
}

# value FLAT KEY
value () { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }

# compare WHAT FLAT EXPECTED: every "KEY VALUE" line of EXPECTED is in
# FLAT with that value.
compare ()
{
  local what=$1 flat=$2 expected=$3 bad
  bad=$(awk 'NR == FNR { got[$1] = $2; next }
             !($1 in got) { print "  " $1 ": missing, want " $2; next }
             got[$1] != $2 { print "  " $1 ": " got[$1] ", want " $2 }' \
            "$flat" "$expected")
  if [ -n "$bad" ]; then
    fail "$what"
    sed -n '1,20p' <<<"$bad"
  else
    ok "$what ($(wc -l <"$expected") figures)"
  fi
}

# check_latency WHAT FLAT NMEMBERS: for the array and every member, one
# latency sample per successful op (zero and trim count as writes), and
# min <= p50 <= p95 <= p99 <= max, min <= mean <= max.
check_latency ()
{
  local what=$1 flat=$2 n=$3 bad
  bad=$(awk -v n="$n" '
    { v[$1] = $2 }
    function check (s,   t, p) {
      if (v[s ".lat_ns.read.count"] != v[s ".ops.read"])
        print "  " s ": read latency count " v[s ".lat_ns.read.count"] \
              " != " v[s ".ops.read"] " reads"
      if (v[s ".lat_ns.write.count"] != v[s ".ops.write"] + v[s ".ops.zero"] + v[s ".ops.trim"])
        print "  " s ": write latency count " v[s ".lat_ns.write.count"] \
              " != writes + zeroes + trims"
      split ("read write", t, " ")
      for (i = 1; i <= 2; i++) {
        p = s ".lat_ns." t[i]
        if (v[p ".count"] == 0) continue
        if (!(v[p ".min"] <= v[p ".p50"] && v[p ".p50"] <= v[p ".p95"] &&
              v[p ".p95"] <= v[p ".p99"] && v[p ".p99"] <= v[p ".max"] &&
              v[p ".min"] > 0 &&
              v[p ".min"] <= v[p ".mean"] && v[p ".mean"] <= v[p ".max"]))
          print "  " p ": min " v[p ".min"] " p50 " v[p ".p50"] " p95 " \
                v[p ".p95"] " p99 " v[p ".p99"] " max " v[p ".max"] \
                " mean " v[p ".mean"]
      }
    }
    END { check("array"); for (m = 0; m < n; m++) check("members." m) }
  ' "$flat")
  if [ -n "$bad" ]; then
    fail "$what: latency figures"
    sed -n '1,20p' <<<"$bad"
  else
    ok "$what: latency counts and min <= p50 <= p95 <= p99 <= max"
  fi
}

# ---- running an array -----------------------------------------------------

# start_array NAME PLUGIN-ARGS...: serve the plugin with stats= in
# $tmp/NAME; sets DIR, PID, URI, JSON.
start_array ()
{
  local filters=()
  DIR="$tmp/$1"
  shift
  # Leading --filter=NAME arguments go before the plugin.
  while [ "${1#--filter=}" != "${1:-}" ]; do
    filters+=("$1")
    shift
  done
  mkdir -p "$DIR"
  JSON="$DIR/stats.json"
  serve "$DIR/sock" "$DIR/nbdkit.log" "${filters[@]}" "$RAID_PLUGIN" \
        stats="$JSON" "$@"
  PID=$SERVE_PID
  URI="nbd+unix:///?socket=$DIR/sock"
}

# make_members NAME N: N sparse member files; sets FILES.
make_members ()
{
  local i
  FILES=()
  mkdir -p "$tmp/$1"
  for (( i = 0; i < $2; i++ )); do
    truncate -s "$MEMBER_SIZE" "$tmp/$1/m$i.img"
    FILES+=("$tmp/$1/m$i.img")
  done
}

# snapshot OUT: SIGUSR1, wait for the file to be rewritten, json_flat it.
snapshot ()
{
  rm -f "$JSON"
  kill -USR1 "$PID"
  if ! wait_for_file "$JSON" "$PID" 10; then
    fail "SIGUSR1 did not write $JSON"
    cat "$DIR/nbdkit.log"
    exit 1
  fi
  json_flat "$JSON" >"$1"
}

# run_client DEPTH REQUESTS-FILE: send the requests in the background;
# sets CLIENT.
run_client ()
{
  "$NBD_IO" --depth "$1" "$URI" <"$2" >>"$DIR/client.log" 2>&1 &
  CLIENT=$!
}

# at_pause NAME: wait until the client is paused at "p DIR/NAME".
at_pause ()
{
  local tries=600
  while [ ! -e "$DIR/$1.ready" ]; do
    if ! kill -0 "$CLIENT" 2>/dev/null || [ "$tries" -le 0 ]; then
      cat "$DIR/client.log"
      die "the client did not reach pause $1"
    fi
    tries=$(( tries - 1 ))
    sleep 0.1
  done
}
resume () { touch "$DIR/$1"; }

# finish WHAT NMEMBERS EXPECTED: wait for the client, stop nbdkit, and
# check the JSON written at exit and the summary against EXPECTED.
finish ()
{
  local what=$1 n=$2 expected=$3
  if ! wait "$CLIENT"; then
    cat "$DIR/client.log"
    fail "$what: the client saw errors"
  fi
  stop_pid "$PID"
  [ -s "$JSON" ] || die "$what: nbdkit wrote no $JSON at exit"
  json_flat "$JSON" >"$DIR/final.flat"
  compare "$what: JSON at exit" "$DIR/final.flat" "$expected"
  check_latency "$what" "$DIR/final.flat" "$n"
  summary_flat "$DIR/nbdkit.log" >"$DIR/summary.flat"
  if [ "$(grep -c '^nbdkit: raid: stats: ' "$DIR/nbdkit.log")" -ne $(( n + 1 )) ] ||
     [ "$(grep -c '\.ops\.read ' "$DIR/summary.flat")" -ne $(( n + 1 )) ]; then
    fail "$what: want $(( n + 1 )) summary lines on stderr, got:"
    grep 'stats' "$DIR/nbdkit.log" || true
  else
    # The summary has counts but not every byte figure: compare those.
    awk 'NR == FNR { have[$1]; next } $1 in have' \
        "$DIR/summary.flat" "$expected" >"$DIR/summary.want"
    compare "$what: summary on stderr" "$DIR/summary.flat" "$DIR/summary.want"
  fi
}

# no_errors WHAT FLAT NMEMBERS: no errors, no member failed.
no_errors ()
{
  local what=$1 flat=$2 n=$3 m bad=""
  [ "$(value "$flat" array.errors)" = 0 ] || bad+=" array.errors"
  for (( m = 0; m < n; m++ )); do
    [ "$(value "$flat" "members.$m.errors")" = 0 ] || bad+=" members.$m.errors"
    [ "$(value "$flat" "members.$m.failed")" = false ] || bad+=" members.$m.failed"
  done
  if [ -n "$bad" ]; then fail "$what: not clean:$bad"; else ok "$what: no errors, no member failed"; fi
}

# ---- RAID 0, 4 members, chunk 64K ---------------------------------------

say "RAID 0, 4 members, chunk 64K"
make_members r0 4
start_array r0 level=0 chunk=64K "${FILES[@]}"
array_bytes=$(( 4 * member_bytes ))
r0="$DIR/requests"
{
  # 1000 aligned 4 KiB reads: each inside one chunk, so one member read.
  random_aligned r 1000 4096 "$array_bytes" 1
  echo "p $DIR/p1"
  # Two aligned 1 MiB reads: 16 chunks of 64K each, 4 on every member.
  echo "r 0 $MiB"
  echo "r $(( 5 * MiB )) $MiB"
  echo "p $DIR/p2"
  # 1 MiB starting 4K into a chunk: 60K, 15 chunks, 4K: 17 pieces.
  echo "r $(( MiB + 4 * KiB )) $MiB"
  random_aligned w 500 4096 "$array_bytes" 2
  echo "w $(( 8 * MiB )) $MiB"
  echo "z $(( 3 * 64 * KiB )) $(( 128 * KiB ))"
  echo "t $(( 16 * MiB )) $(( 256 * KiB ))"
  echo "f"
} >"$r0"
run_client 16 "$r0"

at_pause p1
snapshot "$DIR/p1.flat"
sed -n "1,/^p /p" "$r0" | expected_by_hand 0 65536 4 1 first >"$DIR/p1.want"
compare "RAID 0: 1000 4K reads, SIGUSR1 at a pause" "$DIR/p1.flat" "$DIR/p1.want"
# The same in the issue's own terms: each 4K read touched one member.
sum=$(awk '$1 ~ /^members\.[0-9]+\.ops\.read$/ { s += $2 } END { print s }' "$DIR/p1.flat")
if [ "$sum" = 1000 ]; then
  ok "RAID 0: 1000 4K reads are 1000 member reads"
else
  fail "RAID 0: 1000 4K reads made $sum member reads"
fi
# "io" names the one engine that all four file members use, and is
# threads where the kernel has no io_uring.
engines=$(awk '$1 ~ /^members\.[0-9]+\.engine$/ { print $2 }' "$DIR/p1.flat" | sort -u)
io=$(value "$DIR/p1.flat" io)
if [ "$io" = "$engines" ] && { [ "$auto_io" = uring ] || [ "$io" = threads ]; }; then
  ok "RAID 0: io is $io, the members' engine"
else
  fail "RAID 0: io is $io, members' engines: $engines, --dump-plugin: $auto_io"
fi
resume p1

at_pause p2
snapshot "$DIR/p2.flat"
# Two 1 MiB reads: 1M / 64K = 16 chunks over 4 members, so each read
# touches 4 chunks of every member, rows r to r+3, contiguous there: one
# member read of 256K carrying 4 pieces.  So 2 more reads and 8 more
# pieces on each member, whatever came before, and 32 more pieces on
# the array for 2 more requests.
bad=""
for m in 0 1 2 3; do
  d_ops=$(( $(value "$DIR/p2.flat" "members.$m.ops.read") -
            $(value "$DIR/p1.flat" "members.$m.ops.read") ))
  d_pieces=$(( $(value "$DIR/p2.flat" "members.$m.pieces.read") -
               $(value "$DIR/p1.flat" "members.$m.pieces.read") ))
  d_bytes=$(( $(value "$DIR/p2.flat" "members.$m.bytes.read") -
              $(value "$DIR/p1.flat" "members.$m.bytes.read") ))
  [ "$d_ops" = 2 ] && [ "$d_pieces" = 8 ] &&
    [ "$d_bytes" = $(( 8 * 64 * KiB )) ] ||
    bad+=" member $m: $d_ops reads, $d_pieces pieces, $d_bytes bytes;"
done
d_ops=$(( $(value "$DIR/p2.flat" array.ops.read) -
          $(value "$DIR/p1.flat" array.ops.read) ))
d_pieces=$(( $(value "$DIR/p2.flat" array.pieces.read) -
             $(value "$DIR/p1.flat" array.pieces.read) ))
[ "$d_ops" = 2 ] && [ "$d_pieces" = 32 ] ||
  bad+=" array: $d_ops reads, $d_pieces pieces;"
if [ -z "$bad" ]; then
  ok "RAID 0: two 1M reads touch 16 chunks each, 4 per member, and are one 256K member read per member per read"
else
  fail "RAID 0: two 1M reads, want 2 reads of 4 pieces (256K) per member:$bad"
fi
resume p2

expected_by_hand 0 65536 4 1 first <"$r0" >"$DIR/final.want"
cat >>"$DIR/final.want" <<EOF
level 0
chunk 65536
size $array_bytes
EOF
finish "RAID 0" 4 "$DIR/final.want"
no_errors "RAID 0" "$DIR/final.flat" 4

# ---- RAID 1, 2 members, round-robin -------------------------------------

say "RAID 1, 2 members, read-policy=round-robin"
make_members r1 2
start_array r1 level=1 read-policy=round-robin "${FILES[@]}"
r1="$DIR/requests"
{
  random_aligned w 300 4096 "$member_bytes" 3
  echo "p $DIR/p1"
  # Equal sizes, so round-robin splits the reads exactly in two.
  random_aligned r 400 4096 "$member_bytes" 4
  for i in 0 1 2 3; do echo "w $(( i * 3 * MiB + 512 )) $MiB"; done
} >"$r1"
run_client 8 "$r1"
at_pause p1
snapshot "$DIR/p1.flat"
bad=""
for m in 0 1; do
  [ "$(value "$DIR/p1.flat" "members.$m.ops.write")" = 300 ] &&
  [ "$(value "$DIR/p1.flat" "members.$m.bytes.write")" = $(( 300 * 4096 )) ] ||
    bad+=" member $m"
done
if [ -z "$bad" ]; then
  ok "RAID 1: 300 writes are 300 writes on each member"
else
  fail "RAID 1: 300 writes, want 300 on each member:$bad"
fi
resume p1
expected_by_hand 1 0 2 2 round-robin <"$r1" >"$DIR/final.want"
finish "RAID 1" 2 "$DIR/final.want"
no_errors "RAID 1" "$DIR/final.flat" 2

# ---- RAID 10, 4 members, chunk 64K, 2 copies ----------------------------

say "RAID 10, 4 members, chunk 64K, read-policy=first"
make_members r10 4
start_array r10 level=10 chunk=64K read-policy=first "${FILES[@]}"
array_bytes=$(( 2 * member_bytes ))
r10="$DIR/requests"
{
  random_aligned w 400 4096 "$array_bytes" 5
  echo "p $DIR/p1"
  echo "w $(( 2 * MiB )) $MiB"
  echo "p $DIR/p2"
  random_aligned r 300 4096 "$array_bytes" 6
  random_any r 100 $(( 300 * KiB )) "$array_bytes" 7
  echo "f"
} >"$r10"
run_client 16 "$r10"
at_pause p1
snapshot "$DIR/p1.flat"
sum=$(awk '$1 ~ /^members\.[0-9]+\.ops\.write$/ { s += $2 } END { print s }' "$DIR/p1.flat")
if [ "$sum" = 800 ]; then
  ok "RAID 10: 400 4K writes are 800 member writes"
else
  fail "RAID 10: 400 4K writes made $sum member writes, want 800"
fi
resume p1
at_pause p2
snapshot "$DIR/p2.flat"
# 1 MiB is 16 chunks, each written twice: 32 pieces of 64K, 8 per
# member.  Chunk c's copies are slots 2c and 2c+1, so members 0 and 1
# hold the even chunks and members 2 and 3 the odd ones, each at row
# c div 2: rows 0 to 7, contiguous, so one member write of 512K each.
bad=""
for m in 0 1 2 3; do
  d_ops=$(( $(value "$DIR/p2.flat" "members.$m.ops.write") -
            $(value "$DIR/p1.flat" "members.$m.ops.write") ))
  d_pieces=$(( $(value "$DIR/p2.flat" "members.$m.pieces.write") -
               $(value "$DIR/p1.flat" "members.$m.pieces.write") ))
  [ "$d_ops" = 1 ] && [ "$d_pieces" = 8 ] ||
    bad+=" member $m: $d_ops writes, $d_pieces pieces;"
done
if [ -z "$bad" ]; then
  ok "RAID 10: a 1M write is 8 pieces and one member write on each member"
else
  fail "RAID 10: a 1M write, want 1 write of 8 pieces per member:$bad"
fi
resume p2
expected_by_hand 10 65536 4 2 first <"$r10" >"$DIR/final.want"
echo "size $array_bytes" >>"$DIR/final.want"
finish "RAID 10" 4 "$DIR/final.want"
no_errors "RAID 10" "$DIR/final.flat" 4

# ---- RAID 0 of unequal members (zones), from raidsim map ----------------

say "RAID 0, members of 16M, 8M and 12M, chunk 64K, expected from raidsim map"
mkdir -p "$tmp/zones"
truncate -s 16M "$tmp/zones/a.img"
truncate -s 8M "$tmp/zones/b.img"
truncate -s 12M "$tmp/zones/c.img"
start_array zones level=0 chunk=64K \
  "$tmp/zones/a.img" "$tmp/zones/b.img" "$tmp/zones/c.img"
zones="$DIR/requests"
{
  random_any r 300 $(( 256 * KiB )) $(( 36 * MiB )) 8
  random_any w 200 $(( 256 * KiB )) $(( 36 * MiB )) 9
} >"$zones"
run_client 8 "$zones"
expected_by_map 3 level=0 chunk=64K member-size=16M member-size=8M \
  member-size=12M <"$zones" >"$DIR/final.want"
finish "RAID 0 in zones" 3 "$DIR/final.want"

# ---- max-inflight, under a QD32 load, with both engines -----------------

# 4000 random 4K reads at depth 32 over one connection (nbdkit's 16
# threads serve it).  On members this fast, whether two I/Os of one
# member overlap at all is up to the scheduler, so this checks only that
# none has more than 2 out; that the limit is reached, and overlap
# counted, is forced below with a member whose server is stopped.
for io in uring threads; do
  if [ "$io" = uring ] && [ "$auto_io" != uring ]; then
    say "io_uring is not available here: io=uring not tested"
    continue
  fi
  say "RAID 0, 4 members, io=$io, max-inflight=2, QD32"
  make_members "mi-$io" 4
  start_array "mi-$io" level=0 chunk=64K io="$io" max-inflight=2 "${FILES[@]}"
  random_aligned r 4000 4096 $(( 4 * member_bytes )) 10 >"$DIR/requests"
  run_client 32 "$DIR/requests"
  expected_by_hand 0 65536 4 1 first <"$DIR/requests" >"$DIR/final.want"
  echo "io $io" >>"$DIR/final.want"
  finish "max-inflight=2, io=$io" 4 "$DIR/final.want"
  top=0 bad=""
  for m in 0 1 2 3; do
    mi=$(value "$DIR/final.flat" "members.$m.max_inflight")
    [ "$mi" -ge 1 ] && [ "$mi" -le 2 ] || bad+=" member $m: $mi;"
    [ "$mi" -le "$top" ] || top=$mi
  done
  if [ -z "$bad" ]; then
    ok "io=$io: max_inflight of every member <= max-inflight=2 (highest $top; array $(value "$DIR/final.flat" array.max_inflight))"
  else
    fail "io=$io: max-inflight=2, members' max_inflight:$bad"
  fi
done

# ---- max-inflight reached: a member whose server is stopped -------------

# Member 3 is an NBD export whose nbdkit is stopped (SIGSTOP) before six
# reads of member 3 are sent at once, so none of them can finish: every
# one stays in the plugin, two hold member 3's two slots and four wait
# for one.  The test waits until SIGUSR1 shows exactly that (six in the
# array, two out on member 3), gives the plugin half a second in which a
# plugin that ignored the limit would send more, and lets the server go
# on.  The overlap is forced, not hoped for: member 3's max_inflight
# must be 2 exactly, and the array's 6.
say "RAID 0, 4 members, member 3 an NBD export whose server is stopped, max-inflight=2"
mkdir -p "$tmp/stalled"
for i in 0 1 2 3; do
  truncate -s "$MEMBER_SIZE" "$tmp/stalled/m$i.img"
done
serve "$tmp/stalled/m3.sock" "$tmp/stalled/m3.log" \
  file "$tmp/stalled/m3.img"
m3_server=$SERVE_PID
# Registered after serve's stop_pid, so run before it: a stopped nbdkit
# would not act on stop_pid's SIGTERM.
at_exit kill -CONT "$m3_server"
start_array stalled level=0 chunk=64K max-inflight=2 \
  "$tmp/stalled/m0.img" "$tmp/stalled/m1.img" "$tmp/stalled/m2.img" \
  "nbd+unix:///?socket=$tmp/stalled/m3.sock"
# Array chunk 4k + 3 is on member 3, at row k.
for k in 0 1 2 3 4 5; do
  echo "r $(( (4 * k + 3) * 64 * KiB )) 4096"
done >"$DIR/requests"
kill -STOP "$m3_server"
run_client 6 "$DIR/requests"
stalled=no
for (( try = 0; try < 300; try++ )); do
  snapshot "$DIR/stalled.flat"
  if [ "$(value "$DIR/stalled.flat" array.max_inflight)" -ge 6 ] &&
     [ "$(value "$DIR/stalled.flat" members.3.max_inflight)" -ge 2 ]; then
    stalled=yes
    break
  fi
  sleep 0.1
done
sleep 0.5
snapshot "$DIR/stalled.flat"
kill -CONT "$m3_server"
if [ "$stalled" = yes ] &&
   [ "$(value "$DIR/stalled.flat" array.ops.read)" = 0 ]; then
  ok "stalled member: six reads in the plugin, none done, while its server is stopped"
else
  fail "stalled member: want six reads in the plugin and two on member 3 while its server is stopped; after $try tries: array max_inflight $(value "$DIR/stalled.flat" array.max_inflight), member 3 $(value "$DIR/stalled.flat" members.3.max_inflight), $(value "$DIR/stalled.flat" array.ops.read) reads done"
fi
expected_by_hand 0 65536 4 1 first <"$DIR/requests" >"$DIR/final.want"
printf '%s\n' "members.0.max_inflight 0" "members.1.max_inflight 0" \
  "members.2.max_inflight 0" "members.3.max_inflight 2" \
  "array.max_inflight 6" "members.3.backend nbd" >>"$DIR/final.want"
finish "stalled member, max-inflight=2" 4 "$DIR/final.want"
no_errors "stalled member" "$DIR/final.flat" 4

# ---- default max-inflight under load, and SIGUSR1 while busy ------------

say "RAID 0, 4 members, default max-inflight, QD32, SIGUSR1 while busy"
make_members busy 4
# nbdkit's delay filter holds every read 2 ms before the plugin sees it,
# so that the 38,000 reads after the pause take at least 38,000 x 2 ms /
# 16 (nbdkit's threads) = 4.75 s however fast the machine is: the
# snapshots below see reads in progress by construction, not by luck of
# the scheduler (on a loaded machine the client could otherwise finish
# before the first SIGUSR1 is answered).
start_array busy --filter=delay rdelay=2ms level=0 chunk=64K "${FILES[@]}"
busy="$DIR/requests"
total=40000
{
  random_aligned r 2000 4096 $(( 4 * member_bytes )) 11
  echo "p $DIR/p1"
  random_aligned r $(( total - 2000 )) 4096 $(( 4 * member_bytes )) 12
} >"$busy"
run_client 32 "$busy"
at_pause p1
snapshot "$DIR/p1.flat"
if [ "$(value "$DIR/p1.flat" array.ops.read)" = 2000 ]; then
  ok "busy: 2000 reads at the pause"
else
  fail "busy: $(value "$DIR/p1.flat" array.ops.read) reads at the pause, want 2000"
fi
resume p1
# Signal as fast as the plugin rewrites the file while the client runs.
last=2000 snaps=0 mid=0 bad=""
while kill -0 "$CLIENT" 2>/dev/null; do
  snapshot "$DIR/busy.flat"
  snaps=$(( snaps + 1 ))
  n=$(value "$DIR/busy.flat" array.ops.read)
  if [ "$n" -lt "$last" ] || [ "$n" -gt "$total" ]; then
    bad+=" $n after $last;"
  fi
  if [ "$n" -gt 2000 ] && [ "$n" -lt "$total" ]; then
    mid=$(( mid + 1 ))
  fi
  last=$n
done
if [ -z "$bad" ] && [ "$mid" -ge 1 ]; then
  ok "busy: SIGUSR1 rewrote the file $snaps times during the run ($mid with reads in progress), counts only grew"
else
  fail "busy: $snaps snapshots, $mid mid-run, counts out of order or range:$bad"
fi
expected_by_hand 0 65536 4 1 first <"$busy" >"$DIR/final.want"
finish "busy" 4 "$DIR/final.want"
no_errors "busy" "$DIR/final.flat" 4
# Each 4K read is one member read, done by the nbdkit thread that took
# the request, so how many overlap on one member depends on how the
# scheduler runs nbdkit's threads on this machine's CPUs: what must hold
# is that it stays within the default max-inflight.  (That overlap is
# counted at all is forced in the stalled-member case above.)
bad=""
top=0
for m in 0 1 2 3; do
  mi=$(value "$DIR/final.flat" "members.$m.max_inflight")
  [ "$mi" -ge 1 ] && [ "$mi" -le 64 ] || bad+=" member $m: $mi;"
  [ "$mi" -gt "$top" ] && top=$mi
done
if [ -z "$bad" ]; then
  ok "busy: members had at most 64 I/Os in flight (up to $top at once)"
else
  fail "busy: members' max_inflight under QD32:$bad highest $top"
fi

# ---- a member that fails ------------------------------------------------

say "RAID 1, member 1 an NBD export that starts failing"
mkdir -p "$tmp/failed"
errfile="$tmp/failed/error"
serve "$tmp/failed/bad.sock" "$tmp/failed/bad.log" \
  --filter=error memory "$MEMBER_SIZE" error-rate=100% error-file="$errfile"
truncate -s "$MEMBER_SIZE" "$tmp/failed/m0.img"
start_array failed level=1 "$tmp/failed/m0.img" \
  "nbd+unix:///?socket=$tmp/failed/bad.sock"
{
  random_aligned w 20 4096 "$member_bytes" 13
  echo "p $DIR/p1"
  random_aligned w 20 4096 "$member_bytes" 14
} >"$DIR/requests"
run_client 1 "$DIR/requests"
at_pause p1
touch "$errfile"
resume p1
cat >"$DIR/final.want" <<EOF
array.ops.write 40
array.errors 0
members.0.ops.write 40
members.0.failed false
members.0.errors 0
members.1.ops.write 20
members.1.failed true
members.1.backend nbd
EOF
if ! wait "$CLIENT"; then
  fail "failed member: the client saw errors"; cat "$DIR/client.log"
fi
stop_pid "$PID"
json_flat "$JSON" >"$DIR/final.flat"
compare "failed member: JSON" "$DIR/final.flat" "$DIR/final.want"
e=$(value "$DIR/final.flat" members.1.errors)
if [ "$e" -ge 1 ]; then
  ok "failed member: its errors are counted ($e)"
else
  fail "failed member: members.1.errors is $e"
fi
if grep -q '^nbdkit: raid: stats: member 1 (failed): .*errors, max in flight' \
        "$DIR/nbdkit.log"; then
  ok "failed member: the summary says 'member 1 (failed)' with its errors"
else
  fail "failed member: no summary line for member 1 (failed)"
  grep stats "$DIR/nbdkit.log" || true
fi

end_checks
