#!/bin/sh
# configs/validation/published-map.csv: every informed row cites, in its
# `why` column, at least one sentence of the docs or a config file that
# says it was consulted, and each sentence is there verbatim (up to line
# breaks, and a config comment's leading ';').  A row that cites no
# sentence first says why it is marked in doubt.  A fitted row names
# what it set.  So a citation cannot drift from the text it quotes.
#
# Run: meson test -C build --suite unit validation-why
set -e
: "${SRCDIR:?set SRCDIR to the source tree}"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }

python3 - "$SRCDIR" <<'EOF'
import csv, re, sys

top = sys.argv[1]
name = "configs/validation/published-map.csv"
files = {"V": "docs/validation.md", "H": "docs/history/validation.md"}
cite = re.compile(r"(V|H|configs/[A-Za-z0-9_./-]+): “([^”]+)”")
texts = {}


def text(path):
    """The file's text with its line breaks (and a config comment's
    leading ';') folded into single spaces."""
    if path not in texts:
        t = open("%s/%s" % (top, path), encoding="utf-8").read()
        if path.endswith(".ini"):
            t = "\n".join(re.sub(r"^;\s?", "", l) for l in t.split("\n"))
        texts[path] = re.sub(r"\s+", " ", t)
    return texts[path]


lines = open("%s/%s" % (top, name), encoding="utf-8").read().split("\n")
rows = [(n, l) for n, l in enumerate(lines, 1)
        if l.strip() and not l.startswith("#")]
header = next(csv.reader([rows[0][1]]))
bad = 0
counts = {"fitted": 0, "informed": 0, "untouched": 0}
for n, l in rows[1:]:
    r = dict(zip(header, next(csv.reader([l]))))
    where = "%s:%d: %s" % (name, n, r["id"])
    why = r["why"]
    if r["fitted"] == "yes":
        counts["fitted"] += 1
        if not r["sets"]:
            print("%s: fitted, but sets is empty" % where)
            bad = 1
    elif r["informed"] == "yes":
        counts["informed"] += 1
    else:
        counts["untouched"] += 1
    if r["informed"] != "yes":
        if why:
            print("%s: a why, but informed is not yes" % where)
            bad = 1
        continue
    found = cite.findall(why)
    if not found:
        print("%s: informed, but why cites no sentence" % where)
        bad = 1
    lead = why[:cite.search(why).start()] if found else why
    if lead and not lead.startswith("in doubt, marked: "):
        print("%s: why starts with neither a citation nor "
              "'in doubt, marked: '" % where)
        bad = 1
    for f, quote in found:
        path = files.get(f, f)
        try:
            body = text(path)
        except OSError as e:
            print("%s: %s: %s" % (where, path, e.strerror))
            bad = 1
            continue
        if re.sub(r"\s+", " ", quote) not in body:
            print("%s: not in %s: “%s”" % (where, path, quote))
            bad = 1
print("validation-why: %(fitted)d fitted, %(informed)d informed, "
      "%(untouched)d untouched" % counts)
sys.exit(bad)
EOF
