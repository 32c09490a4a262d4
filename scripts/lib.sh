# shellcheck shell=bash
# raidsim shell helpers, shared by scripts/demo.sh and the shell tests in
# tests/: a clean-up stack run at exit, serving an nbdkit export on a Unix
# socket, and attaching an export as a block device through nbdfuse and a
# loop device.  Source it from bash; it only defines functions and the
# EXIT trap.
#
#   . scripts/lib.sh
#   serve "$dir/sock" "$dir/nbdkit.log" "$plugin" level=0 a.img b.img
#   fuse_attach "$dir/fuse" disk --unix "$dir/sock"
#   loop_attach "$dir/fuse/disk"          # sets LOOP_DEV
#
# Every resource is registered with at_exit when it is created, and every
# teardown function is harmless to call twice, so a script may tear down
# in order itself and still be sure that nothing is left behind if it
# stops half way.

# ---- clean-up stack ------------------------------------------------------

_raidsim_cleanups=()

# at_exit CMD [ARGS...]: run CMD at exit, after the commands registered
# later (last in, first out).
at_exit ()
{
  _raidsim_cleanups+=("$(printf '%q ' "$@")")
}

run_cleanups ()
{
  local i
  for (( i = ${#_raidsim_cleanups[@]} - 1; i >= 0; i-- )); do
    eval "${_raidsim_cleanups[i]}" || true
  done
  _raidsim_cleanups=()
}

# run_cleanups_since N: run, last in first out, only the commands
# registered after the first N (N as ${#_raidsim_cleanups[@]} was then),
# and forget them: what one part of a script set up, torn down before
# the next part starts, leaving what came before it in place.
run_cleanups_since ()
{
  local i
  for (( i = ${#_raidsim_cleanups[@]} - 1; i >= $1; i-- )); do
    eval "${_raidsim_cleanups[i]}" || true
  done
  _raidsim_cleanups=("${_raidsim_cleanups[@]:0:$1}")
}

_raidsim_on_exit ()
{
  local rc=$?
  trap - EXIT
  run_cleanups
  exit "$rc"
}

trap _raidsim_on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- messages -----------------------------------------------------------

# The script's name, for messages.
RAIDSIM_PROG=${RAIDSIM_PROG:-$(basename "$0")}

say ()  { printf '%s: %s\n' "$RAIDSIM_PROG" "$*"; }
die ()  { printf '%s: error: %s\n' "$RAIDSIM_PROG" "$*" >&2; exit 1; }
# skip REASON: exit 77, which meson counts as a skipped test.
skip () { printf '%s: SKIP: %s\n' "$RAIDSIM_PROG" "$*"; exit 77; }

# show_logs FILE...: each FILE that exists, on stderr, each line headed
# by the script's name and the file's, for a failure's report.
show_logs ()
{
  local f
  for f in "$@"; do
    if [ -f "$f" ]; then
      sed "s|^|$RAIDSIM_PROG:   ${f##*/}: |" "$f" >&2
    fi
  done
}

# wait_line FILE PATTERN SECONDS: until FILE has a line matching PATTERN
# (grep's basic regular expression); status 1 if none came in SECONDS.
wait_line ()
{
  local i
  for (( i = 0; i < $3 * 10; i++ )); do
    grep -q -- "$2" "$1" 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}

# ---- processes ----------------------------------------------------------

# wait_for_file FILE PID SECONDS: wait until FILE is non-empty; fail if PID
# exits first or the time runs out.
wait_for_file ()
{
  local file=$1 pid=$2 tries=$(( $3 * 10 ))
  while [ ! -s "$file" ]; do
    if ! kill -0 "$pid" 2>/dev/null; then
      return 1
    fi
    tries=$(( tries - 1 ))
    if [ "$tries" -le 0 ]; then
      return 1
    fi
    sleep 0.1
  done
}

# stop_pid PID: SIGTERM, then SIGKILL if it is still there after 10 s.
stop_pid ()
{
  local pid=$1 i
  kill "$pid" 2>/dev/null || return 0
  for (( i = 0; i < 100; i++ )); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# serve SOCK LOG NBDKIT-ARGS...: start nbdkit in the foreground (as a
# background job of this shell) listening on the Unix socket SOCK, its
# messages appended to LOG.  Returns once it accepts connections and sets
# SERVE_PID.  nbdkit exits with this shell (--exit-with-parent).
serve ()
{
  local sock=$1 log=$2
  shift 2
  local pidfile="$sock.pid"

  rm -f "$pidfile" "$sock"
  nbdkit --foreground --exit-with-parent -U "$sock" -P "$pidfile" \
         "$@" >>"$log" 2>&1 &
  SERVE_PID=$!
  at_exit stop_pid "$SERVE_PID"
  if ! wait_for_file "$pidfile" "$SERVE_PID" 30; then
    printf '%s: nbdkit did not start; its log (%s):\n' \
           "$RAIDSIM_PROG" "$log" >&2
    cat "$log" >&2
    return 1
  fi
}

# ---- FUSE ---------------------------------------------------------------

# fuse_attach DIR NAME NBDFUSE-MODE-ARGS...: present an NBD export as the
# file DIR/NAME with nbdfuse, e.g. fuse_attach d disk --unix sock.  Sets
# FUSE_PID.  nbdfuse's messages go to DIR.log.
#
# nbdfuse serves the file through the page cache: reads of pages that are
# cached never reach the server.  It has no direct-I/O option (libfuse 3
# rejects -o direct_io), so a test that needs every read to reach the
# server must drop the cache itself: see drop_page_cache.
fuse_attach ()
{
  local dir=$1 name=$2
  shift 2
  local pidfile="$dir.pid"

  mkdir -p "$dir"
  rm -f "$pidfile"
  nbdfuse -P "$pidfile" "$dir/$name" "$@" >>"$dir.log" 2>&1 &
  FUSE_PID=$!
  at_exit fuse_detach "$dir" "$FUSE_PID"
  if ! wait_for_file "$pidfile" "$FUSE_PID" 30; then
    printf '%s: nbdfuse did not start; its log (%s.log):\n' \
           "$RAIDSIM_PROG" "$dir" >&2
    cat "$dir.log" >&2
    return 1
  fi
}

# fuse_detach DIR PID: unmount the nbdfuse mount at DIR and wait for the
# nbdfuse process to exit.  Retries while a loop device still holds the
# file (the loop driver releases it asynchronously).
fuse_detach ()
{
  local dir=$1 pid=$2 i
  if mountpoint -q "$dir" 2>/dev/null; then
    for (( i = 0; i < 50; i++ )); do
      fusermount3 -u "$dir" 2>/dev/null && break
      sleep 0.2
    done
    if mountpoint -q "$dir" 2>/dev/null; then
      fusermount3 -uz "$dir" 2>/dev/null || true
    fi
  fi
  for (( i = 0; i < 100; i++ )); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  stop_pid "$pid"
}

# drop_page_cache FILE: drop FILE's clean pages from the page cache
# (posix_fadvise POSIX_FADV_DONTNEED) so that the next reads reach the
# file system behind it.
drop_page_cache ()
{
  dd if="$1" iflag=nocache count=0 status=none
}

# ---- loop devices and mounts --------------------------------------------

# loop_attach FILE: attach FILE to a free loop device; sets LOOP_DEV.
loop_attach ()
{
  LOOP_DEV=$(losetup --find --show "$1") || return 1
  at_exit loop_detach "$LOOP_DEV"
}

# loop_detach DEV: detach DEV and wait until the kernel has let go of it.
loop_detach ()
{
  local dev=$1 i
  losetup "$dev" >/dev/null 2>&1 || return 0
  losetup -d "$dev" 2>/dev/null || true
  for (( i = 0; i < 100; i++ )); do
    losetup "$dev" >/dev/null 2>&1 || return 0
    sleep 0.1
  done
  printf '%s: warning: %s is still attached\n' "$RAIDSIM_PROG" "$dev" >&2
}

# mount_dev DEV DIR: mount DEV on DIR (created if needed).
mount_dev ()
{
  mkdir -p "$2"
  mount "$1" "$2" || return 1
  at_exit umount_dir "$2"
}

# umount_dir DIR: unmount DIR if something is mounted there.
umount_dir ()
{
  if mountpoint -q "$1" 2>/dev/null; then
    umount "$1" 2>/dev/null || umount -l "$1"
  fi
}

# ---- requirements -------------------------------------------------------

# fuse_problem SCRATCH-DIR: print why nbdfuse cannot present an NBD
# export as a file here, or nothing if it can.  It tries for real, on a
# tiny nbdkit memory disk.
fuse_problem ()
{
  local scratch=$1 probe cmd
  if [ ! -c /dev/fuse ]; then
    echo "/dev/fuse is missing (no FUSE in this kernel or container)"; return
  fi
  for cmd in nbdkit nbdfuse fusermount3 mountpoint; do
    if ! command -v "$cmd" >/dev/null 2>&1; then
      echo "$cmd is not installed (run scripts/install-deps.sh)"; return
    fi
  done
  probe="$scratch/probe"
  mkdir -p "$probe"
  # The probe runs in a subshell with its own clean-up stack, which tears
  # it down again when the subshell exits.
  if ! ( _raidsim_cleanups=(); trap run_cleanups EXIT
         fuse_attach "$probe/fuse" disk \
           --command nbdkit -s --exit-with-parent memory 1M &&
         [ -f "$probe/fuse/disk" ] ) >/dev/null 2>&1; then
    echo "nbdfuse cannot mount here: $(tail -n 1 "$probe/fuse.log" 2>/dev/null)"
    return
  fi
  rm -rf "$probe"
}

# fuse_loop_problem SCRATCH-DIR: print why an export cannot be attached
# here as a block device through nbdfuse and a loop device, or nothing if
# it can.  Tries both for real.
fuse_loop_problem ()
{
  local scratch=$1 problem
  if [ "$(id -u)" -ne 0 ]; then
    echo "not running as root (mount and losetup need root)"; return
  fi
  if ! command -v losetup >/dev/null 2>&1; then
    echo "losetup is not installed (run scripts/install-deps.sh)"; return
  fi
  problem=$(fuse_problem "$scratch")
  if [ -n "$problem" ]; then
    echo "$problem"; return
  fi
  mkdir -p "$scratch/probe"
  if ! ( _raidsim_cleanups=(); trap run_cleanups EXIT
         truncate -s 1M "$scratch/probe/f" && loop_attach "$scratch/probe/f" ) \
       >/dev/null 2>&1; then
    echo "no loop device can be set up (is the loop module loaded?)"
    return
  fi
  rm -rf "$scratch/probe"
}

# ---- test data ----------------------------------------------------------

# make_random_tree DIR NFILES: a tree of NFILES files of random data in
# nested directories, mostly small (up to 48K), every 50th one 1 to 3 MB,
# plus an empty file and a symlink.
make_random_tree ()
{
  local dir=$1 n=$2 i sub size
  mkdir -p "$dir"
  for (( i = 1; i <= n; i++ )); do
    sub="$dir/d$(( i % 12 ))/e$(( i % 5 ))"
    mkdir -p "$sub"
    if (( i % 50 == 0 )); then
      size=$(( (1 + RANDOM % 3) * 1048576 + RANDOM ))
    else
      size=$(( RANDOM % 49152 ))
    fi
    head -c "$size" /dev/urandom > "$sub/file$i.bin"
  done
  : > "$dir/empty"
  ln -s d1/e1/file1.bin "$dir/link"
}

# tree_sums DIR: sha256sums of the regular files under DIR, by relative
# path, in a stable order; check them later with (cd DIR2 && sha256sum -c).
tree_sums ()
{
  (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}
