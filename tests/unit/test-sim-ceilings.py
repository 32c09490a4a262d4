#!/usr/bin/env python3
# raidsim tests: no prediction of a shipped array sits on a link's raw
# rate (issue 23).  For every array in configs/arrays/ and
# docs/labs/configs/arrays/, four-corners' seq-read-128k-qd32 job (its
# settings written out below) must stay within the ceiling of the
# array's links worked out here from docs/links.md's closed forms
# (tests/lib/linkforms.py, never the simulator's code): N ports side by
# side, then the uplink they share, each at the best payload rate any
# read command of at most 128 KiB gets from it.  That ceiling is below
# the links' raw rates (SATA's 300 MB/s a port at 3 Gb/s, DMI 2.0's
# 2,000 MB/s) by the framing's share, so a prediction within it is below
# them by at least that share.
#
# A link given as a bare rate (port_link = rate) has no framing to hold
# it below, so no shipped array may have one: `rate` is for the tests
# that need an engine's closed form and for users who want it.
#
# The figures are printed only for an array that fails.
#
# Run: meson test -C build sim-ceilings
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-sim-ceilings.py
import csv
import glob
import io
import os
import subprocess
import sys
import tempfile

SRCDIR = os.path.abspath(os.environ.get("SRCDIR", os.path.join(
    os.path.dirname(__file__), "..", "..")))
RAIDSIM = os.path.abspath(os.environ.get("RAIDSIM", os.path.join(
    SRCDIR, "build", "raidsim", "raidsim")))
sys.path.insert(0, os.path.join(SRCDIR, "tests", "lib"))
import linkforms  # noqa: E402

# docs/presets.md, four-corners: 128 KiB sequential reads at QD 32, 1 s
# after 100 ms of ramp or 100,000 I/Os, whichever ends first.
JOB = """[seq-read-128k-qd32]
rw=read
bs=128k
iodepth=32
ramp_time=100ms
runtime=1s
number_ios=100000
"""

# A measured window may count a few bytes that crossed before it began.
SLACK = 1e-3

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


def config(array):
    """`raidsim config ARRAY`: its [array] section, its members' count,
    its controller file's path and [controller] section."""
    out = subprocess.run([RAIDSIM, "config", array], cwd=SRCDIR, check=True,
                         capture_output=True, text=True).stdout
    sections, name, path, ctl_path = [], None, None, None
    for line in out.splitlines():
        line = line.strip()
        if line.startswith(";"):
            path = line[1:].strip()
        elif line.startswith("[") and line.endswith("]"):
            name = line[1:-1]
            sections.append((name, {}))
            if name == "controller":
                ctl_path = path
        elif "=" in line and sections:
            k, _, v = line.partition("=")
            sections[-1][1][k.strip()] = v.strip()
    arr = [s for n, s in sections if n == "array"][0]
    ctl = [s for n, s in sections if n == "controller"][0]
    return arr, ctl, os.path.relpath(os.path.normpath(
        os.path.join(SRCDIR, ctl_path)), SRCDIR)


def best(spec):
    """The best payload rate a read of 4 KiB to 128 KiB (whole 4 KiB
    pages) gets on this link: the most any member command of a 128 KiB
    request can cross it at."""
    return max(linkforms.rate(spec, "read", k * 4096) for k in range(1, 33))


def ceilings(ctl, n):
    """(by specification, raw, bare) for n members: the framed ceiling,
    the raw rates', and whether a bare rate is among the links."""
    framed, raw, bare = float("inf"), float("inf"), False
    port, uplink = linkforms.spec(ctl, "port"), linkforms.spec(ctl, "uplink")
    for s, k in ((port, n), (uplink, 1)):
        if not linkforms.present(s):
            continue
        bare = bare or s["link"] == "rate"
        framed = min(framed, k * best(s))
        raw = min(raw, k * linkforms.raw(s))
    return framed, raw, bare


def predict(array, job):
    out = subprocess.run([RAIDSIM, "run", array, "--workload", job,
                          "--seed", "1", "--format", "csv"], cwd=SRCDIR,
                         check=True, capture_output=True, text=True).stdout
    rows = [r for r in csv.DictReader(io.StringIO(out))
            if r["direction"] == "read"]
    return float(rows[0]["bw_bytes"])


def main():
    if not os.access(RAIDSIM, os.X_OK):
        print("test-sim-ceilings.py: %s is not built" % RAIDSIM)
        return 1
    arrays = sorted(glob.glob(os.path.join(SRCDIR, "configs", "arrays",
                                           "*.ini")))
    arrays += sorted(glob.glob(os.path.join(SRCDIR, "docs", "labs",
                                            "configs", "arrays", "*.ini")))
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        job = os.path.join(tmp, "seq.fio")
        with open(job, "w") as f:
            f.write(JOB)
        for path in arrays:
            a = os.path.relpath(path, SRCDIR)
            arr, ctl, ctl_path = config(a)
            framed, raw, bare = ceilings(ctl, int(arr["members"]))
            if raw == float("inf"):
                print("ok: %s: no link" % a)
                continue
            if bare:
                fail("%s: %s gives a link as a bare rate; the shipped "
                     "controllers give theirs by specification "
                     "(docs/links.md)" % (a, ctl_path))
                continue
            got = predict(a, job)
            if got > framed * (1 + SLACK):
                fail("%s: %.2f MB/s, above its links' ceiling %.2f MB/s "
                     "(raw %.2f)" % (a, got / 1e6, framed / 1e6, raw / 1e6))
            elif not framed < raw:
                fail("%s: the links' ceiling %.2f MB/s is not below their "
                     "raw %.2f" % (a, framed / 1e6, raw / 1e6))
            else:
                print("ok: %s: within its links' ceiling, below their raw "
                      "rates by %.1f%% or more" % (a, 100 * (1 - framed / raw)))
            checked += 1
    if checked < 30:
        fail("only %d arrays with links checked" % checked)
    print("%d arrays checked, %d failures" % (checked, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
