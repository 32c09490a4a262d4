#!/bin/bash
# raidsim tests: the raidsim(1) man page and the bash completion
# (raidsim/man/gen-man.py) against the command's own tables: main.c's
# table of commands, as `raidsim help` lists it, and each command's
# getopt_long tables, as cli-tables (raidsim/cli/cli-tables.c) reads
# them from the command itself.
#
#   1. The man page has a section for every command and for nothing
#      else, and under each, every option of the command's tables and
#      nothing else.
#   2. Every option is described by the command's --help (the man page
#      takes its words from there; an option --help forgets is named).
#   3. The completion, driven in bash with COMP_WORDS and COMP_CWORD,
#      offers every command (and main's --help and --version) at the
#      first word, every command after `help`, and for each command
#      exactly the long options of its tables.
#   4. `meson install --destdir` puts the man page in share/man/man1
#      and the completion in bash-completion's directory.
#
# Run: meson test -C build sim-man
set -euo pipefail

: "${RAIDSIM:?}" "${CLI_TABLES:?}" "${MAN_PAGE:?}" "${COMPLETION:?}"
: "${BUILD_ROOT:?}"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail () { echo "FAIL: $*"; failures=$(( failures + 1 )); }
ok () { echo "ok: $*"; }

# same WHAT FILE-EXPECTED FILE-GOT: one line per item, order aside.
same () {
  sort "$2" >"$tmp/want"; sort "$3" >"$tmp/got"
  if cmp -s "$tmp/want" "$tmp/got"; then
    ok "$1"
  else
    fail "$1: missing (<) and extra (>):"
    diff "$tmp/want" "$tmp/got" | grep '^[<>]' || true
  fi
}

# The tables.
"$RAIDSIM" help >"$tmp/help"
sed -n '/^Commands:/,$p' "$tmp/help" | awk 'NR > 1 && NF { print $1 }' \
  >"$tmp/commands"
[ -s "$tmp/commands" ] || { echo "FAIL: raidsim help lists no commands"; exit 1; }
# table_options CMD: --LONG, or -S for a letter with no long name.
table_options () {
  "$CLI_TABLES" "$1" </dev/null | awk -F '\t' '$1 == "option" {
    print ($2 != "-" ? "--" $2 : "-" $4) }'
}

# 1. The man page against the tables.
sed -n 's/^\.SS "raidsim \([^"]*\)"$/\1/p' "$MAN_PAGE" >"$tmp/man-commands"
same "man page: the commands of the table" "$tmp/commands" \
  "$tmp/man-commands"
# man_options CMD: the options listed under CMD's section, as above.
man_options () {
  awk -v cmd="$1" '
    /^\.SH / { in_cmd = 0 }
    /^\.SS / { in_cmd = ($0 == ".SS \"raidsim " cmd "\"") }
    /^\.S[SH] / { next }
    in_cmd && prev == ".TP" {
      line = $0; gsub(/\\-/, "-", line)
      if (match(line, /\\fB--[A-Za-z0-9-]+\\fR/))
        print substr(line, RSTART + 3, RLENGTH - 6)
      else if (match(line, /\\fB-[A-Za-z0-9]\\fR/))
        print substr(line, RSTART + 3, RLENGTH - 6)
    }
    { prev = $0 }' "$MAN_PAGE"
}
while read -r cmd; do
  table_options "$cmd" >"$tmp/opts-$cmd"
  man_options "$cmd" >"$tmp/man-opts-$cmd"
  same "man page: the options of raidsim $cmd" "$tmp/opts-$cmd" \
    "$tmp/man-opts-$cmd"
done <"$tmp/commands"

# 2. Every option has words from --help.
if grep -q 'not described by --help' "$MAN_PAGE"; then
  fail "options that --help does not describe:"
  grep -B1 'not described by --help' "$MAN_PAGE" | grep -v '^--$' || true
else
  ok "every option is described by its command's --help"
fi

# ... and, the other way, every option a command's --help lists (a line
# that starts with it) is in the tables: this reads the tables apart
# from cli-tables, which the man page and part 1 both rely on.
while read -r cmd; do
  "$RAIDSIM" help "$cmd" | sed -n 's/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[A-Za-z0-9-]*\).*/\2/p' \
    | sort -u >"$tmp/help-opts-$cmd"
  missing=$(comm -23 "$tmp/help-opts-$cmd" <(sort -u "$tmp/opts-$cmd"))
  if [ -n "$missing" ]; then
    fail "raidsim $cmd --help lists options its tables lack: $missing"
  fi
done <"$tmp/commands"
ok "every option the --help texts list is in the tables"

# 3. The completion.  complete_words CWORD WORD...: what it offers.
complete_words () {
  local cword=$1
  shift
  bash -c '
    set -u
    source "$1"; shift
    COMP_CWORD=$1; shift
    COMP_WORDS=("$@")
    _raidsim
    printf "%s\n" "${COMPREPLY[@]}"' complete "$COMPLETION" "$cword" "$@"
}
complete_words 1 raidsim "" >"$tmp/c-first"
{ cat "$tmp/commands"; echo --help; echo --version; } >"$tmp/c-first-want"
same "completion: the commands at the first word" "$tmp/c-first-want" \
  "$tmp/c-first"
complete_words 2 raidsim help "" >"$tmp/c-help"
same "completion: the commands after help" "$tmp/commands" "$tmp/c-help"
complete_words 1 raidsim "s" >"$tmp/c-s"
grep '^s' "$tmp/commands" >"$tmp/c-s-want" || true
same "completion: the commands starting with s" "$tmp/c-s-want" "$tmp/c-s"
while read -r cmd; do
  [ "$cmd" = help ] && continue
  grep '^--' "$tmp/opts-$cmd" >"$tmp/want-long-$cmd" || true
  complete_words 2 raidsim "$cmd" -- >"$tmp/c-$cmd"
  # An option whose value is optional is also offered as --NAME=.
  grep -v '=$' "$tmp/c-$cmd" >"$tmp/c-long-$cmd" || true
  same "completion: the options of raidsim $cmd" "$tmp/want-long-$cmd" \
    "$tmp/c-long-$cmd"
done <"$tmp/commands"

# 4. meson install --destdir.
if ! command -v meson >/dev/null; then
  echo "SKIP part 4: meson is not in PATH"
else
  dest=$tmp/dest
  meson install -C "$BUILD_ROOT" --no-rebuild --destdir "$dest" \
    >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; fail "meson install"; }
  man=$(find "$dest" -path '*/man1/raidsim.1')
  comp=$(find "$dest" -path '*/bash-completion/completions/raidsim')
  if [ -n "$man" ] && cmp -s "$man" "$MAN_PAGE"; then
    ok "installed: ${man#"$dest"}"
  else
    fail "no man1/raidsim.1 under the destdir"
  fi
  if [ -n "$comp" ] && cmp -s "$comp" "$COMPLETION"; then
    ok "installed: ${comp#"$dest"}"
  else
    fail "no bash-completion/completions/raidsim under the destdir"
  fi
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all passed"
