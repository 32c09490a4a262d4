#!/bin/bash
# raidsim tests: raidsim/config/embed-files.py, which makes the tables of
# files built into raidsim.  From a small tree: the files given, the
# arrays a map names and the device and controller files each array
# names are all in the table, in that order, each once, with their text
# byte for byte (quotes, backslashes, tabs, '?', UTF-8, no final
# newline); the depfile lists them; and a name that is missing fails
# with one line naming the file and line that named it.
#
# Run: meson test -C build embed-files
#  or: SRCDIR=. CC=cc tests/unit/test-embed-files.sh
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SRCDIR=${SRCDIR:-$here/../..}
SRCDIR=$(cd "$SRCDIR" && pwd)
CC=${CC:-cc}
embed=$SRCDIR/raidsim/config/embed-files.py

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

top=$tmp/top
mkdir -p "$top/configs/arrays" "$top/configs/devices" \
  "$top/configs/controllers" "$top/configs/validation" "$top/data"
cat > "$top/configs/arrays/a.ini" <<'EOF'
; an array naming one device file twice, and a controller; a comment
; that names device = ../devices/not-named.ini is no reference
[array]
level = 0
members = 2
device = ../devices/d.ini , ./../devices/d.ini
controller = ../controllers/c.ini ; the controller
EOF
cat > "$top/configs/arrays/b.ini" <<'EOF'
[array]
level = single
members = 1
device = ../devices/e.ini
controller = ../controllers/c.ini
EOF
printf '[device]\nmodel = fixed\n; "quoted" \\back\\slash\ttab ??= caf\xc3\xa9\n' \
  > "$top/configs/devices/d.ini"
printf '[device]\nmodel = fixed\n; no final newline' \
  > "$top/configs/devices/e.ini"
printf '[controller]\nmodel = generic\n' > "$top/configs/controllers/c.ini"
cat > "$top/configs/validation/map.csv" <<'EOF'
# which array each row runs
id,array,workload,job
r1,arrays/b.ini,cdm3:50MB,x
r2,arrays/a.ini,four-corners,y
r3,arrays/../arrays/b.ini,four-corners,y
EOF
printf 'id,value\nr1,"1,000"\n' > "$top/data/figures.csv"

names () { grep -o '^  { "[^"]*"' "$1" | sed 's/^  { "//; s/"$//'; }

# The table: the file given, the map, its arrays, then what they name.
if ! "$embed" --name tbl --top "$top" --output "$tmp/t.c" \
     --depfile "$tmp/t.d" --map configs/validation/map.csv \
     data/figures.csv 2> "$tmp/err"; then
  fail "embed-files.py failed: $(cat "$tmp/err")"
else
  want='data/figures.csv
configs/validation/map.csv
configs/arrays/b.ini
configs/arrays/a.ini
configs/devices/e.ini
configs/controllers/c.ini
configs/devices/d.ini'
  if [ "$(names "$tmp/t.c")" = "$want" ]; then
    ok "table: given files, map, its arrays, what they name, once each"
  else
    fail "table: got: $(names "$tmp/t.c" | tr '\n' ' ')"
  fi
  deps=$(tr -d '\\\n' < "$tmp/t.d")
  missing=
  for n in $want; do
    case $deps in *" $top/$n"*) ;; *) missing="$missing $n" ;; esac
  done
  case $deps in "$tmp/t.c: $embed "*) ;; *) missing="$missing (the script)" ;; esac
  if [ -z "$missing" ]; then
    ok "depfile: every file read, and the script"
  else
    fail "depfile lacks$missing: $deps"
  fi

  # The text of every entry, compiled and written back, is the file's.
  if ! command -v "${CC%% *}" > /dev/null; then
    echo "SKIP: no C compiler ($CC) to check the text"
  else
    cat > "$tmp/dump.c" <<'EOF'
#include <stdio.h>
#include <string.h>
#include "raidsim/embedded.h"
extern const struct raidsim_embedded tbl[];
int
main (int argc, char **argv)
{
  const struct raidsim_embedded *e;

  for (e = tbl; e->name; ++e) {
    char path[4096];
    FILE *fp;

    snprintf (path, sizeof path, "%s/%s", argv[1], e->name);
    for (char *p = path + strlen (argv[1]) + 1; *p; ++p)
      if (*p == '/')
        *p = '_';
    if ((fp = fopen (path, "w")) == NULL)
      return 1;
    fputs (e->text, fp);
    fclose (fp);
  }
  return argc != 2;
}
EOF
    mkdir "$tmp/out"
    # shellcheck disable=SC2086
    $CC -std=gnu11 -Wall -Werror -I"$SRCDIR/include" -o "$tmp/dump" \
      "$tmp/dump.c" "$tmp/t.c"
    "$tmp/dump" "$tmp/out"
    same=0
    for n in $want; do
      if cmp -s "$top/$n" "$tmp/out/${n//\//_}"; then
        same=$(( same + 1 ))
      else
        fail "text of $n differs from the file"
      fi
    done
    [ "$same" = 7 ] && ok "text: every file byte for byte"
  fi
fi

# A name that is missing: one line naming who named it, exit 1.
expect_error ()
{
  local what=$1 want=$2
  shift 2
  if "$embed" --name tbl --top "$top" --output "$tmp/bad.c" "$@" \
       > /dev/null 2> "$tmp/err"; then
    fail "$what: succeeded"
  elif [ "$(cat "$tmp/err")" = "$want" ]; then
    ok "$what"
  else
    fail "$what: got: $(cat "$tmp/err")"
  fi
}
printf '[array]\nlevel = 0\nmembers = 2\ndevice = ../devices/d.ini, ../devices/none.ini\n' \
  > "$top/configs/arrays/c.ini"
expect_error "a device file missing" \
  "embed-files.py: configs/arrays/c.ini:4: device: ../devices/none.ini: no such file (configs/devices/none.ini)" \
  configs/arrays/c.ini
printf 'id,array,workload\nr1,arrays/a.ini,cdm3\nr2,arrays/gone.ini,cdm3\n' \
  > "$top/configs/validation/bad.csv"
expect_error "an array the map names missing" \
  "embed-files.py: configs/validation/bad.csv:3: configs/arrays/gone.ini: No such file or directory" \
  --map configs/validation/bad.csv
printf 'id,array,workload\nr1,arrays/a.ini,workloads/x.fio\n' \
  > "$top/configs/validation/job.csv"
expect_error "a job file as the map's workload" \
  "embed-files.py: configs/validation/job.csv:2: workload: workloads/x.fio: a job file; raidsim validate runs presets only" \
  --map configs/validation/job.csv
expect_error "a file given missing" \
  "embed-files.py: command line: data/none.csv: No such file or directory" \
  data/none.csv
[ ! -e "$tmp/bad.c" ] && ok "no table is left behind by a failure" ||
  fail "a failed run left $tmp/bad.c"

[ "$failures" = 0 ] || { echo "$failures failure(s)"; exit 1; }
