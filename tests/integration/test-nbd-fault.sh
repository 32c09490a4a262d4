#!/bin/bash
# raidsim tests: an NBD member whose server dies in the middle of the work.
#
# Every member here is an NBD export: a member file served by
#   nbdkit file FILE
# member 0 over TCP (nbd://127.0.0.1:PORT), the others on Unix sockets.
# Killing member 0's nbdkit with SIGKILL drops its connection the way a
# crashed machine or a cut network would.
#
# W: copy 128M of random data onto a RAID 1 of 2 members with nbdcopy,
#    killing member 0's server exactly half way through the stream.  The
#    copy must succeed, the plugin must log that member 0 failed and the
#    array is degraded, the array must read back equal to the data, and
#    member 1's file must equal the data byte for byte.
# W10: the same on a RAID 10 of 4 members; the survivors must hold their
#    share byte for byte (check-members, on the independent reference
#    layout in tests/lib/refmap.c).
# R: write with no fault, kill member 0's server, and read everything back
#    with read-policy=first, which sends reads to member 0 first: the
#    reads must fail over to member 1, the client sees no error, and the
#    data read back is equal.
# F: nbdkit without -f, so that it forks into the background after the
#    plugin has connected to its members at config time: the connections
#    must survive the fork, and a copy in and out must be exact.
# D: members that must be refused at config time with one error line:
#    the same export spelled twice (localhost and 127.0.0.1, skipped with
#    a message where localhost does not resolve to 127.0.0.1; a relative
#    and an absolute socket path), a server that is not there, and a URI
#    that libnbd cannot use.
# Skips (77) if nbdkit's file plugin or nbdcopy is missing.
#
# Run: meson test -C build nbd-fault
#  or: tests/integration/test-nbd-fault.sh   (build in build/, else BUILD_ROOT=DIR)
. "$(dirname "$0")/common.sh"
must_be_built RAID_PLUGIN CHECK_MEMBERS
requires nbdkit
requires nbdcopy
requires_nbdkit_plugin file

tmp=$(mktemp -d /var/tmp/raidsim-nbd-fault.XXXXXX)
at_exit rm -rf "$tmp"

CHUNK=128K
MiB=$(( 1024 * 1024 ))

# serve_member DIR I FILE tcp|unix: serve FILE with nbdkit's file plugin
# as member I; sets MEMBER_URI and MEMBER_PID.  A TCP port is picked at
# random and another is tried if something else holds it.
serve_member ()
{
  local d=$1 i=$2 file=$3 how=$4 pidfile="$1/m$2.pid" try port
  for (( try = 0; try < 20; try++ )); do
    rm -f "$pidfile"
    if [ "$how" = tcp ]; then
      port=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
      MEMBER_URI="nbd://127.0.0.1:$port"
      nbdkit -f --exit-with-parent -i 127.0.0.1 -p "$port" -P "$pidfile" \
             file "$file" >>"$d/m$i.log" 2>&1 &
    else
      MEMBER_URI="nbd+unix:///?socket=$d/m$i.sock"
      nbdkit -f --exit-with-parent -U "$d/m$i.sock" -P "$pidfile" \
             file "$file" >>"$d/m$i.log" 2>&1 &
    fi
    MEMBER_PID=$!
    at_exit stop_pid "$MEMBER_PID"
    SCENARIO_PIDS+=("$MEMBER_PID")
    if wait_for_file "$pidfile" "$MEMBER_PID" 30; then
      return 0
    fi
    [ "$how" = tcp ] || break
  done
  cat "$d/m$i.log" >&2
  die "member $i: nbdkit file $file did not start"
}

# setup DIR N SIZE: N member files of SIZE bytes, member 0 over TCP and
# the rest on Unix sockets; sets MEMBERS (member=URI ...) and VICTIM
# (member 0's nbdkit).
setup ()
{
  local d=$1 n=$2 size=$3 i
  mkdir -p "$d"
  MEMBERS=()
  SCENARIO_PIDS=()
  for (( i = 0; i < n; i++ )); do
    truncate -s "$size" "$d/m$i.img"
    if (( i == 0 )); then
      serve_member "$d" "$i" "$d/m$i.img" tcp
      VICTIM=$MEMBER_PID
    else
      serve_member "$d" "$i" "$d/m$i.img" unix
    fi
    MEMBERS+=("member=$MEMBER_URI")
  done
  say "members: ${MEMBERS[*]}"
}

# kill_victim: SIGKILL member 0's server and wait until it is gone.
kill_victim ()
{
  kill -KILL "$VICTIM"
  # The braces send bash's own "Killed" job report to /dev/null too.
  { wait "$VICTIM"; } 2>/dev/null || true
}

# logged_failed DIR LOG: the plugin said member 0 failed and the array is
# degraded, and that its NBD connection was lost.
logged_failed ()
{
  local d=$1
  if ! grep -q 'member 0 (nbd://.*) failed on .*; array is degraded' \
       "$d/nbdkit.log"; then
    cat "$d/nbdkit.log"
    die "the plugin did not log member 0 as failed/degraded"
  fi
  grep -q 'member 0 (nbd://.*NBD connection is lost' "$d/nbdkit.log" ||
    die "the plugin did not log that member 0's NBD connection was lost"
  grep -m 2 -E 'member 0 .*(failed|lost)' "$d/nbdkit.log" |
    sed "s|^|$RAIDSIM_PROG:   plugin log: |"
}

# read_back DIR DATA: the array reads back equal to DATA.
read_back ()
{
  local d=$1 data=$2
  rm -f "$d/out.img"
  if ! nbdcopy "$(uri "$d/sock")" "$d/out.img"; then
    cat "$d/nbdkit.log"
    die "reading the array back failed: the client saw an error"
  fi
  truncate -s "$(stat -c %s "$data")" "$d/out.img"
  cmp "$data" "$d/out.img" || die "the array reads back different data"
  rm -f "$d/out.img"
}

# W: member 0's server dies half way through a copy onto the array.
scenario_w ()
{
  local level=$1 n=$2 size=$3 data=$4 d="$tmp/w-$1" half start i
  start=$SECONDS
  say "W, RAID $level, $n NBD members: member 0's server killed half way through a copy"
  setup "$d" "$n" "$size"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" \
    level="$level" chunk="$CHUNK" "${MEMBERS[@]}"

  half=$(( $(stat -c %s "$data") / 2 ))
  # head writes the first half into the pipe and exits once nbdcopy has
  # taken all but the last pipe buffer of it: the kill lands with
  # writes of the first half still in flight or just done, and every
  # write of the second half still to come.
  if ! { head -c "$half" "$data"; kill_victim; tail -c +$(( half + 1 )) "$data"; } |
       nbdcopy - "$(uri "$d/sock")"; then
    cat "$d/nbdkit.log"
    die "W, RAID $level: nbdcopy failed: the client saw an error"
  fi
  logged_failed "$d"
  read_back "$d" "$data"
  stop_pid "$SERVE_PID"

  if [ "$level" = 1 ]; then
    cmp "$data" "$d/m1.img" ||
      die "W, RAID 1: the surviving member differs from the data"
  else
    local args=("level=$level" "chunk=$CHUNK" "data=$data"
                "skip-member=$size")
    for (( i = 1; i < n; i++ )); do
      args+=("member=$d/m$i.img")
    done
    if ! "$CHECK_MEMBERS" "${args[@]}" | sed "s|^|$RAIDSIM_PROG:   |"; then
      die "W, RAID $level: a surviving member does not hold what the layout says"
    fi
  fi
  say "W, RAID $level: ok ($(( SECONDS - start )) s)"
  end_scenario "$d"
}

# R: member 0's server dies after the data is written; reads fail over.
scenario_r ()
{
  local d="$tmp/r-1" data=$1 start
  start=$SECONDS
  say "R, RAID 1, 2 NBD members: member 0's server killed before reading back"
  setup "$d" 2 "$(stat -c %s "$data")"
  serve "$d/sock" "$d/nbdkit.log" "$RAID_PLUGIN" \
    level=1 read-policy=first "${MEMBERS[@]}"
  nbdcopy "$data" "$(uri "$d/sock")" ||
    die "R: writing with no fault failed"
  if grep -i 'degraded' "$d/nbdkit.log"; then
    die "R: degraded before any fault"
  fi
  kill_victim
  read_back "$d" "$data"
  logged_failed "$d"
  stop_pid "$SERVE_PID"
  cmp "$data" "$d/m1.img" ||
    die "R: the surviving member differs from the data"
  say "R, RAID 1: ok ($(( SECONDS - start )) s)"
  end_scenario "$d"
}

# F: nbdkit forks into the background after connecting to the members.
scenario_f ()
{
  local d="$tmp/f-1" data=$1 start pid
  start=$SECONDS
  say "F, RAID 1, 2 NBD members: nbdkit forks into the background"
  setup "$d" 2 "$(stat -c %s "$data")"
  rm -f "$d/sock.pid"
  # No -f: the parent exits once the child serves, and the child writes
  # the PID file.
  nbdkit -U "$d/sock" -P "$d/sock.pid" "$RAID_PLUGIN" \
    level=1 "${MEMBERS[@]}" >>"$d/nbdkit.log" 2>&1 ||
    die "F: nbdkit failed to start: $(cat "$d/nbdkit.log")"
  for (( i = 0; i < 300; i++ )); do
    [ -s "$d/sock.pid" ] && break
    sleep 0.1
  done
  [ -s "$d/sock.pid" ] || die "F: nbdkit wrote no PID file"
  pid=$(cat "$d/sock.pid")
  at_exit stop_pid "$pid"
  nbdcopy "$data" "$(uri "$d/sock")" ||
    die "F: writing to the forked nbdkit failed"
  read_back "$d" "$data"
  kill "$pid"
  for (( i = 0; i < 100; i++ )); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  cmp "$data" "$d/m0.img" && cmp "$data" "$d/m1.img" ||
    die "F: a member differs from the data"
  say "F, RAID 1: ok ($(( SECONDS - start )) s)"
  end_scenario "$d"
}

# refused DIR WHAT PATTERN ARGS...: the plugin refuses ARGS with one
# error line matching PATTERN.
refused ()
{
  local d=$1 what=$2 pattern=$3
  shift 3
  if nbdkit -U - --run true "$RAID_PLUGIN" "$@" >"$d/out" 2>&1; then
    die "D: $what: accepted"
  fi
  if [ "$(grep -c 'error' "$d/out")" -ne 1 ] ||
     ! grep -q -- "$pattern" "$d/out"; then
    cat "$d/out"
    die "D: $what: not one error line matching '$pattern'"
  fi
  say "D: $what: $(grep error "$d/out")"
}

scenario_d ()
{
  local d="$tmp/d" port
  say "D: NBD members refused at config time"
  setup "$d" 2 1M
  port=${MEMBERS[0]##*:}
  # The name localhost must lead to the server on 127.0.0.1, which a
  # fresh machine without that line in /etc/hosts does not have.  libnbd
  # resolves it with getaddrinfo, as getent ahosts does.
  local addrs
  addrs=$(getent ahosts localhost 2>/dev/null) || addrs=""
  if [[ $'\n'$addrs =~ $'\n'127\.0\.0\.1[[:space:]] ]]; then
    refused "$d" "one export as localhost and 127.0.0.1" "same export" \
      level=1 "nbd://127.0.0.1:$port" "nbd://localhost:$port"
  else
    say "D: SKIP one export as localhost and 127.0.0.1: localhost does" \
        "not resolve to 127.0.0.1 here (getent ahosts localhost:" \
        "${addrs:-nothing})"
  fi
  # A relative socket path is relative to nbdkit's working directory.
  cd "$d"
  refused "$d" "one socket by relative and absolute path" "same export" \
    level=1 "nbd+unix:///?socket=$d/m1.sock" "nbd+unix:///?socket=m1.sock"
  cd - >/dev/null
  refused "$d" "no server" "member: nbd+unix:///?socket=$d/none.sock: " \
    level=1 "${MEMBERS[1]#member=}" "nbd+unix:///?socket=$d/none.sock"
  refused "$d" "no socket parameter" "member: nbd+unix:///: " \
    level=1 "${MEMBERS[1]#member=}" "nbd+unix:///"
  end_scenario "$d"
}

# end_scenario DIR: stop this scenario's member servers and remove DIR,
# so that the next scenario starts clean.  (The exit trap stops them
# too, but only at the end.)
end_scenario ()
{
  local pid
  for pid in "${SCENARIO_PIDS[@]}"; do
    stop_pid "$pid"
  done
  rm -rf "$1"
}

head -c $(( 128 * MiB )) /dev/urandom > "$tmp/data-128M.img"
head -c $(( 32 * MiB )) /dev/urandom > "$tmp/data-32M.img"

scenario_w 1 2 $(( 128 * MiB )) "$tmp/data-128M.img"
scenario_w 10 4 $(( 64 * MiB )) "$tmp/data-128M.img"
scenario_r "$tmp/data-32M.img"
scenario_f "$tmp/data-32M.img"
scenario_d

say "all scenarios passed"
