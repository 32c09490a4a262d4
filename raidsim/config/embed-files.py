#!/usr/bin/env python3
# raidsim: turn files of the source tree into a C table, so that the
# raidsim binary carries the demo's configs and what `raidsim validate`
# needs, and runs them from any directory, installed or not, reading
# them from memory (include/raidsim/embedded.h).
#
# The list is worked out here, not kept by hand: the files given, every
# array file that a --map file (configs/validation/published-map.csv)
# names in its `array` column, and, from every array file, the device
# and controller files it names, as the loader finds them (relative to
# the array file).  A file named but missing fails the build with one
# line naming the file and line that named it.  The depfile lists every
# file read, so that changing one of them rebuilds the table.
#
# Usage: embed-files.py --name SYMBOL --top TOPDIR --output OUT.c
#                       [--depfile OUT.d] [--map CSV] FILE...
# (CSV and FILEs relative to TOPDIR, e.g. configs/arrays/x.ini; a name
# in the table is its path from TOPDIR.)  raidsim/cli/meson.build runs
# it.

import argparse
import csv
import os
import posixpath
import sys

PROG = "embed-files.py"


def fail(where, message):
    sys.exit("%s: %s: %s" % (PROG, where, message))


def read(top, name, where):
    """The bytes of name (relative to top); where named it, for errors."""
    path = os.path.join(top, name)
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        fail(where, "%s: %s" % (name, e.strerror))


def strip_comment(line):
    """Cut a config line at ';' or '#' that starts it or follows a blank,
    as raidsim's INI reader does (param.c, strip_comment)."""
    for i, ch in enumerate(line):
        if ch in ";#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def named_files(name, text):
    """The (line, key, path) of the files an array file names: its
    device (one, or a comma-separated list) and its controller, as
    config.c reads them.  Files of other kinds name none."""
    refs = []
    section = None
    for lineno, line in enumerate(text.decode("utf-8").splitlines(), 1):
        line = strip_comment(line).strip()
        if line.startswith("["):
            section = line.strip("[] \t")
            continue
        if section != "array" or "=" not in line:
            continue
        key, value = (s.strip() for s in line.split("=", 1))
        if key == "device":
            refs += [(lineno, key, v.strip()) for v in value.split(",")
                     if v.strip()]
        elif key == "controller" and value:
            refs.append((lineno, key, value))
    return refs


def map_arrays(name, text):
    """The array files a published-map.csv names, as (line, path from the
    top); its arrays are relative to configs/ (cmd-validate.c)."""
    lines = text.decode("utf-8").splitlines()
    rows = [(n, l) for n, l in enumerate(lines, 1)
            if l.strip() and not l.startswith("#")]
    if not rows:
        fail(name, "empty: no header")
    header = next(csv.reader([rows[0][1]]))
    for column in ("array", "workload"):
        if column not in header:
            fail("%s:%d" % (name, rows[0][0]), "no '%s' column" % column)
    arrays = []
    for lineno, line in rows[1:]:
        row = dict(zip(header, next(csv.reader([line]))))
        where = "%s:%d" % (name, lineno)
        if not row.get("array"):
            fail(where, "array: missing")
        # validate runs presets; a job file would have to be built in
        # and read from memory too (fiojob.c reads files only).
        workload = row.get("workload", "")
        if "/" in workload or workload.endswith((".fio", ".job")):
            fail(where, "workload: %s: a job file; raidsim validate runs "
                 "presets only" % workload)
        arrays.append((where, posixpath.normpath(
            posixpath.join("configs", row["array"]))))
    return arrays


def c_string(data):
    """data as C string literals, one a line, escaped."""
    out = []
    for line in data.splitlines(keepends=True):
        s = ""
        for b in line:
            ch = chr(b)
            if ch in '\\"?':
                s += "\\" + ch
            elif ch == "\n":
                s += "\\n"
            elif ch == "\t":
                s += "\\t"
            elif 32 <= b < 127:
                s += ch
            else:
                s += "\\%03o" % b
        out.append('    "%s"' % s)
    return "\n".join(out) if out else '    ""'


def main():
    ap = argparse.ArgumentParser(prog=PROG)
    ap.add_argument("--name", required=True)
    ap.add_argument("--top", required=True)
    ap.add_argument("--output", required=True)
    ap.add_argument("--depfile")
    ap.add_argument("--map")
    ap.add_argument("files", nargs="*")
    args = ap.parse_args()

    # (name, who named it), in the order found: the files given, the
    # map and its arrays, then what each array names, breadth first.
    queue = [(f, "command line") for f in args.files]
    if args.map:
        queue.append((args.map, "--map"))
    table = {}
    order = []
    while queue:
        name, where = queue.pop(0)
        if name in table:
            continue
        text = read(args.top, name, where)
        table[name] = text
        order.append(name)
        if name == args.map:
            queue += [(a, w) for w, a in map_arrays(name, text)]
        elif name.endswith(".ini"):
            base = posixpath.dirname(name)
            for lineno, key, ref in named_files(name, text):
                target = posixpath.normpath(posixpath.join(base, ref))
                if not os.path.isfile(os.path.join(args.top, target)):
                    fail("%s:%d" % (name, lineno),
                         "%s: %s: no such file (%s)" % (key, ref, target))
                queue.append((target, "%s:%d" % (name, lineno)))

    out = ["/* Generated by raidsim/config/embed-files.py; do not edit. */",
           '#include "raidsim/embedded.h"',
           "extern const struct raidsim_embedded %s[];" % args.name,
           "const struct raidsim_embedded %s[] = {" % args.name]
    for name in order:
        out.append('  { "%s",\n%s\n  },' % (name, c_string(table[name])))
    out += ["  { 0, 0 },", "};", ""]
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(out))
    os.replace(tmp, args.output)

    if args.depfile:
        deps = [os.path.abspath(__file__)]
        deps += [os.path.abspath(os.path.join(args.top, n)) for n in order]
        with open(args.depfile, "w") as f:
            f.write("%s: %s\n" % (args.output, " \\\n  ".join(deps)))


if __name__ == "__main__":
    main()
