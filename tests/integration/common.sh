# shellcheck shell=bash
# tests/integration/common.sh: what every shell test here begins with,
# as nbdkit's tests begin with `source ./functions.sh`.  A test's first
# line of code is
#
#   . "$(dirname "$0")/common.sh"
#
# and then one `requires ...` per thing it needs.  It gives:
#
# - set -euo pipefail;
# - the paths of what the build made, each taken from the environment
#   first (meson test sets them all, tests/integration/meson.build),
#   else from the build tree $BUILD_ROOT (default build/ in the sources),
#   and made absolute so that a test may cd anywhere: SRCDIR, BUILD_ROOT,
#   RAID_PLUGIN, RAIDSIM, NBD_IO, CHECK_MEMBERS (exported, for the
#   scripts a test runs);
# - scripts/lib.sh, which scripts/demo.sh uses too: the clean-up stack
#   (at_exit, run at exit), say, die, skip, show_logs, wait_line, serve,
#   stop_pid, nbdfuse and loop devices;
# - requires CMD [WHY], requires_root, requires_fuse, requires_fuse_loop,
#   requires_nbdkit_plugin, requires_nbdkit_filter, requires_fio_nbd,
#   requires_perl_module: each exits 77 (meson's skip) with a line that
#   says what is missing;  must_be_built: a missing build product is a
#   failure (exit 1), not a skip;
# - ok, and fail, the one way a check fails (fatal, or counted after keep_going),
#   and end_checks;
# - run_scenarios, which tears down each scenario's servers before the
#   next starts;
# - uri, wait_until, wait_log, wait_readable, and the md helpers the
#   tests share: md_field, md_events, md_data_offset and md_same_data
#   (mdadm --examine), md_bitmap_x,
#   md_bitmap_dirty and md_bitmap_field (mdadm -X), ctl and ctl_ok (the
#   control socket's verbs), detail_field (its JSON detail), jget and
#   json_flat (JSON files).
#
# Each test's opening comment says how to run it alone; from the top of
# the sources with a build in build/ that is tests/integration/test-X.sh
# (set BUILD_ROOT=DIR for a build elsewhere).
#
# test-common.sh checks these helpers themselves.

set -euo pipefail

# ---- paths ---------------------------------------------------------------

# _common_abs PATH: PATH made absolute against the current directory.
_common_abs ()
{
  case $1 in
    /*) printf '%s\n' "$1" ;;
    *)  printf '%s/%s\n' "$PWD" "$1" ;;
  esac
}

SRCDIR=$(_common_abs "${SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}")
BUILD_ROOT=$(_common_abs "${BUILD_ROOT:-$SRCDIR/build}")
RAID_PLUGIN=$(_common_abs "${RAID_PLUGIN:-$BUILD_ROOT/plugins/raid/nbdkit-raid-plugin.so}")
RAIDSIM=$(_common_abs "${RAIDSIM:-$BUILD_ROOT/raidsim/raidsim}")
NBD_IO=$(_common_abs "${NBD_IO:-$BUILD_ROOT/tests/lib/nbd-io}")
CHECK_MEMBERS=$(_common_abs "${CHECK_MEMBERS:-$BUILD_ROOT/tests/lib/check-members}")
export SRCDIR BUILD_ROOT RAID_PLUGIN RAIDSIM NBD_IO CHECK_MEMBERS

# The test's name, for messages (scripts/lib.sh's say, die and skip).
RAIDSIM_PROG=$(basename "$0")
# shellcheck source-path=SCRIPTDIR/../.. source=scripts/lib.sh
. "$SRCDIR/scripts/lib.sh"

# ---- what a test needs ------------------------------------------------------

# must_be_built VAR...: each VAR (RAID_PLUGIN, RAIDSIM, ...) names a file
# the build makes; one that is not there fails the test (exit 1): a test
# of a build that did not happen must not pass as skipped.
must_be_built ()
{
  local var
  for var in "$@"; do
    [ -f "${!var}" ] || die "$var: ${!var} is not built (meson compile -C build)"
    case $var in
      RAID_PLUGIN) ;;
      *) [ -x "${!var}" ] || die "$var: ${!var} is not executable" ;;
    esac
  done
}

# requires CMD [WHY]: skip (77) unless the program CMD is installed; WHY
# says what the test needs it for.
requires ()
{
  command -v "$1" >/dev/null 2>&1 ||
    skip "$1 is not installed${2:+ ($2)}"
}

# requires_root WHY: skip unless running as root; WHY says what for.
requires_root ()
{
  [ "$(id -u)" -eq 0 ] || skip "not running as root (${1:-needed})"
}

# requires_nbdkit_plugin NAME: skip unless nbdkit and its plugin NAME
# load.
requires_nbdkit_plugin ()
{
  requires nbdkit
  nbdkit "$1" --version >/dev/null 2>&1 ||
    skip "nbdkit's $1 plugin is not installed"
}

# requires_nbdkit_filter NAME: skip unless nbdkit loads its filter NAME.
requires_nbdkit_filter ()
{
  requires nbdkit
  nbdkit --filter="$1" null --version >/dev/null 2>&1 ||
    skip "nbdkit's $1 filter is not installed"
}

# requires_fio_nbd: skip unless fio is installed with its nbd ioengine.
requires_fio_nbd ()
{
  requires fio
  fio --enghelp=nbd >/dev/null 2>&1 || skip "this fio has no nbd ioengine"
}

# requires_perl_module MODULE: skip unless perl loads MODULE.
requires_perl_module ()
{
  requires perl
  perl -M"$1" -e 1 >/dev/null 2>&1 || skip "perl's $1 is not installed"
}

# requires_fuse SCRATCH-DIR: skip unless nbdfuse can present an NBD
# export as a file here (tried for real in SCRATCH-DIR; no root needed).
requires_fuse ()
{
  local problem
  problem=$(fuse_problem "$1")
  [ -z "$problem" ] || skip "$problem"
}

# requires_fuse_loop SCRATCH-DIR: skip unless an export can be attached as
# a block device through nbdfuse and a loop device (root, tried for real).
requires_fuse_loop ()
{
  local problem
  problem=$(fuse_loop_problem "$1")
  [ -z "$problem" ] || skip "$problem"
}

# ---- failing ------------------------------------------------------------

# The files a failure's report shows (show_logs), such as the server's
# log: a test sets FAIL_LOGS=("$dir/nbdkit.log") once it knows them.
FAIL_LOGS=()
failures=0
_common_keep_going=

# keep_going: from here on fail counts a failure and returns, so that one
# run reports every check that fails; the test ends with end_checks.
keep_going () { _common_keep_going=1; }

# fail MESSAGE: a check failed.  Shows FAIL_LOGS, then "PROG: FAIL:
# MESSAGE" (on stderr, as die); exits 1.  After keep_going it counts the
# failure and returns 0, so that `check || fail ...` goes on under set -e,
# and says it on stdout, among the test's ok lines.  However a test ends,
# it exits non-zero once anything has failed (see _common_on_exit).
fail ()
{
  failures=$(( failures + 1 ))
  if [ ${#FAIL_LOGS[@]} -gt 0 ]; then
    show_logs "${FAIL_LOGS[@]}"
  fi
  if [ -n "$_common_keep_going" ]; then
    printf '%s: FAIL: %s\n' "$RAIDSIM_PROG" "$*"
    return 0
  fi
  printf '%s: FAIL: %s\n' "$RAIDSIM_PROG" "$*" >&2
  exit 1
}

# ok MESSAGE: a check passed.
ok () { say "ok: $*"; }

# end_checks [MESSAGE]: the end of a test that went on after failures: "N
# failures" and exit 1, or MESSAGE (default "all passed") and exit 0.
end_checks ()
{
  if [ "$failures" -ne 0 ]; then
    say "$failures failures"
    exit 1
  fi
  say "${1:-all passed}"
  exit 0
}

# At exit: the clean-up stack, and status 1 if a counted failure would
# otherwise end in success.
_common_on_exit ()
{
  local rc=$?
  trap - EXIT
  if [ "$rc" -eq 0 ] && [ "$failures" -ne 0 ]; then
    printf '%s: %s failures\n' "$RAIDSIM_PROG" "$failures" >&2
    rc=1
  fi
  run_cleanups
  exit "$rc"
}
trap _common_on_exit EXIT

# ---- scenarios ------------------------------------------------------------

# run_scenarios NAME...: scenario_NAME for each NAME in turn; what each
# registered with at_exit (its servers, its loop devices) is torn down
# before the next starts, and what was registered before stays.
run_scenarios ()
{
  local s mark
  for s in "$@"; do
    mark=${#_raidsim_cleanups[@]}
    "scenario_$s"
    run_cleanups_since "$mark"
  done
}

# ---- waiting ------------------------------------------------------------

# wait_until SECONDS WHAT COMMAND...: run COMMAND every 0.1 s until it
# succeeds; after SECONDS, fail "after N ms: WHAT".
wait_until ()
{
  local t=$(( $1 * 10 )) what=$2 i
  shift 2
  for (( i = 0; i < t; i++ )); do
    "$@" && return 0
    sleep 0.1
  done
  fail "after ${t}00 ms: $what"
}

# wait_log LOG PATTERN SECONDS: until LOG has a line matching PATTERN
# (grep's basic regular expression); fail if none came in SECONDS.
wait_log ()
{
  wait_line "$1" "$2" "$3" || fail "no \"$2\" in the log after $3 s"
}

# uri SOCK: the NBD URI of a Unix socket.
uri () { echo "nbd+unix:///?socket=$1"; }

# wait_readable URI SECONDS: until one 4K read of the export at URI
# succeeds (nbd-io), which also means the array has started.
wait_readable ()
{
  wait_until "$2" "the array cannot be read" \
    sh -c "echo 'r 0 4096' | '$NBD_IO' '$1' >/dev/null 2>&1"
}

# ---- md metadata, as mdadm reads it -----------------------------------------

# md_field MEMBER FIELD: FIELD of mdadm --examine MEMBER ("Events",
# "Array State", ...), empty if it has none.
md_field () { mdadm --examine "$1" | sed -n "s/^ *$2 : //p"; }
md_events () { md_field "$1" Events; }

# md_data_offset MEMBER: the bytes before MEMBER's data (Data Offset).
md_data_offset ()
{
  local s
  s=$(mdadm --examine "$1" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
  echo $(( s * 512 ))
}

# md_same_data M1 M2: fail unless the data areas of M1 and M2 (from M1's
# Data Offset on) are byte-identical.
md_same_data ()
{
  local off out
  off=$(md_data_offset "$1")
  out=$(cmp <(tail -c +$(( off + 1 )) "$1") <(tail -c +$(( off + 1 )) "$2") 2>&1) ||
    fail "copies $1 and $2 differ: $out"
}

# md_bitmap_x MEMBER: mdadm -X of MEMBER's internal bitmap, cut out where
# mdadm --examine says it is (mdadm -X reads regular files from 0).
# Leaves examine.out and bm.img in the working directory.
md_bitmap_x ()
{
  local soff boff
  mdadm --examine "$1" >examine.out 2>&1 || fail "mdadm --examine $1: $(cat examine.out)"
  soff=$(sed -n 's/^ *Super Offset : \([0-9]*\) sectors.*/\1/p' examine.out)
  boff=$(sed -n 's/^ *Internal Bitmap : \([0-9]*\) sectors from superblock/\1/p' examine.out)
  [ -n "$boff" ] || fail "mdadm --examine $1 shows no internal bitmap"
  dd if="$1" of=bm.img bs=512 skip=$(( soff + boff )) count=256 status=none
  mdadm -X bm.img 2>&1
}
# md_bitmap_dirty MEMBER: how many bits mdadm -X counts dirty.
md_bitmap_dirty () { md_bitmap_x "$1" | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p'; }
# md_bitmap_field MEMBER FIELD: FIELD of mdadm -X ("Events Cleared", ...).
md_bitmap_field () { md_bitmap_x "$1" | sed -n "s/^ *$2 : //p"; }

# ---- the control socket and JSON -------------------------------------------

# The control socket that ctl, ctl_ok and detail_field talk to: a test
# sets CTL=PATH (the plugin's control=PATH).
CTL=

# ctl ARGS...: raidsim control $CTL ARGS, as it is (its output and
# status are the caller's).
ctl () { "$RAIDSIM" control "$CTL" "$@"; }

# ctl_ok ARGS...: the same, its output in ctl.out in the working
# directory; fail if it fails.
ctl_ok () { ctl "$@" >ctl.out 2>&1 || fail "control $*: $(cat ctl.out)"; }

# detail_field PERL-EXPR: a field of the control socket's JSON detail,
# the expression over $d, as '$d->{bitmap}{dirty}'.
detail_field ()
{
  ctl --json detail >detail.json 2>detail.err || fail "detail: $(cat detail.err)"
  perl -MJSON::PP -0777 -ne "my \$d = decode_json (\$_); print $1" detail.json
}

# jget FILE PATH: a field of a JSON file, PATH as members.1.state ("null"
# if there is none).
jget ()
{
  perl -MJSON::PP -0777 -e '
    open my $f, "<", $ARGV[0] or die "$ARGV[0]: $!";
    my $v = decode_json (<$f>);
    for my $k (split /\./, $ARGV[1]) {
      $v = ref $v eq "ARRAY" ? $v->[$k] : $v->{$k};
    }
    print defined $v ? $v : "null";
  ' "$1" "$2"
}

# json_flat FILE: one "KEY VALUE" line per leaf of the JSON in FILE, KEY a
# dotted path such as members.2.ops.read or disk_util.0.write_ios;
# booleans print as true and false.
json_flat ()
{
  perl -MJSON::PP -e '
    local $/;
    my $j = decode_json (<STDIN>);
    sub walk {
      my ($p, $v) = @_;
      my $k = $p eq "" ? "" : "$p.";
      if (ref $v eq "HASH") { walk ("$k$_", $v->{$_}) for sort keys %$v }
      elsif (ref $v eq "ARRAY") { walk ("$k$_", $v->[$_]) for 0 .. $#$v }
      elsif (JSON::PP::is_bool ($v)) { print "$p ", ($v ? "true" : "false"), "\n" }
      else { print "$p $v\n" }
    }
    walk ("", $j);' <"$1"
}
