#!/usr/bin/env python3
# raidsim tests: the guided labs (docs/labs/NN-*.md) never drift from
# the program.  For every lab page this runs the page's own ```sh blocks
# (with R the raidsim under test and OUT a fresh directory), then checks
# what the page quotes, as the page's annotations say:
#
#   <!-- check file=F match=COL[,COL] "Table column"=csv_column[/D] tol=P% -->
#       each row of the next table against the row of $OUT/F whose match
#       columns equal the table's (a match COL is the same name in both,
#       or TABLECOL:CSVCOL), the CSV's figure divided by D if given
#       (1e6 for bytes/s as MB/s, 1000 for ns as us); "where=COL:VALUE"
#       keeps only the rows of F whose COL is VALUE;
#   <!-- closed NAME "Table column" tol=P% -->
#       the column against the closed form NAME, worked in this file from
#       first principles and the config files' numbers, never from the
#       simulator's code (a link's wire time from docs/links.md's closed
#       forms, written out again in tests/lib/linkforms.py);
#   <!-- relate "A" ~ "B" tol=P% -->, <!-- relate "A" <= "B" -->,
#   <!-- relate "A" in "B" "C" -->
#       two columns of the table against each other (a simulated figure
#       against its closed form or its bound; a closed form A inside the
#       interval B +- C of a mean over seeds);
#   <!-- excerpt file=F -->
#       every line of the next fenced block is in $OUT/F (spaces
#       squeezed).
#
# Every page must check at least one simulated figure and one closed
# form, and show a plot under docs/labs/img/ that its commands draw.
# Skips (77) without gnuplot, which the plots need.
#
# Run: meson test -C build labs
#  or: RAIDSIM=build/raidsim/raidsim SRCDIR=. tests/unit/test-labs.py
#  To redraw the committed plots: tests/unit/test-labs.py --update-img
import configparser
import csv
import glob
import math
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

SRCDIR = os.path.abspath(os.environ.get("SRCDIR", os.path.join(
    os.path.dirname(__file__), "..", "..")))
RAIDSIM = os.path.abspath(os.environ.get("RAIDSIM", os.path.join(
    SRCDIR, "build", "raidsim", "raidsim")))
LABS = os.path.join(SRCDIR, "docs", "labs")
sys.path.insert(0, os.path.join(SRCDIR, "tests", "lib"))
import linkforms  # noqa: E402

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg)


# ---------------------------------------------------------------------
# Config files: the numbers the closed forms start from.

UNITS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
SIZES = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}


def ini(path):
    """One section of an INI file of ours, as a dict of strings."""
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",),
                                   comment_prefixes=(";",))
    cp.read(os.path.join(SRCDIR, path))
    return dict(cp[cp.sections()[0]])


def seconds(v):
    m = re.fullmatch(r"([0-9.]+)\s*(ns|us|ms|s)?", v)
    return float(m.group(1)) * UNITS[m.group(2) or "s"] if m.group(2) \
        else float(m.group(1))


def rate(v):
    """Bytes per second of '300MB/s' or '1GB/s' (decimal, as quoted)."""
    m = re.fullmatch(r"([0-9.]+)\s*([KMG])B/s", v)
    return float(m.group(1)) * {"K": 1e3, "M": 1e6, "G": 1e9}[m.group(2)]


def size(v):
    m = re.fullmatch(r"([0-9]+)([KMGT]?)", v)
    return int(m.group(1)) * SIZES[m.group(2)]


def links(c):
    """A controller's links that exist: its port, its uplink."""
    return [s for s in (linkforms.spec(c, "port"), linkforms.spec(c, "uplink"))
            if linkforms.present(s)]


def alone(c, direction, b):
    """The links' time for one command of b bytes on an idle path: it
    occupies each link from the same moment and is done when the last
    is (include/raidsim/link.h), so the longest of their wire times."""
    return max([linkforms.seconds(s, direction, b) for s in links(c)] or [0])


def ceiling(c, n, direction, b):
    """Payload bytes/s of n members' commands of b bytes back to back:
    n ports side by side, then the uplink they share."""
    port, uplink = linkforms.spec(c, "port"), linkforms.spec(c, "uplink")
    r = n * linkforms.rate(port, direction, b)
    if linkforms.present(uplink):
        r = min(r, linkforms.rate(uplink, direction, b))
    return r


# ---------------------------------------------------------------------
# Closed forms.  Each takes a table row (column name -> cell text) and
# returns the figure the page must quote, in the table's unit.

def num(cell):
    return float(cell.replace(",", "").replace(" ", "").strip())


def chunk_of(row):
    return size(row["chunk"].strip())


SERIAL = "docs/labs/configs/devices/fixed-100us-serial.ini"
PORTS = "docs/labs/configs/controllers/ports-1gbs.ini"


# Lab 1: a request of B bytes over N members with chunk C, aligned:
# k = min (N, B / C) members, each sent B / k contiguous bytes as one
# command (merge_pieces), which takes L and then the port's time for
# B / k bytes (PCIe 2.0 x2, docs/links.md).
def lab1_k(b, c, n=4):
    return min(n, max(1, b // c))


def lab1_time(b, c):
    lat = seconds(ini(SERIAL)["latency"])
    return lat + alone(ini(PORTS), "read", b // lab1_k(b, c))


def lab1_seq_mbps(row):
    b = 1 << 20
    return b / lab1_time(b, chunk_of(row)) / 1e6


def lab1_rand_qd1(row):
    return 1 / lab1_time(64 << 10, chunk_of(row))


def lab1_rand_bound(row):
    # Every member busy all the time, each request costing k commands
    # of L (the device, not the port, is the slower stage).
    lat = seconds(ini(SERIAL)["latency"])
    return 4 / lat / lab1_k(64 << 10, chunk_of(row))


# Lab 2: N one-at-a-time drives of fixed latency L, N requests in
# flight, each landing on a member uniformly at random.  All start
# together and all take L, so every L the busy members each finish one
# request and those requests land again at random: a Markov chain on
# the sorted occupancy vector.  IOPS = E[busy members] / L.
def compositions(total, parts):
    if parts == 1:
        yield (total,)
        return
    for i in range(total + 1):
        for rest in compositions(total - i, parts - 1):
            yield (i,) + rest


def collision_chain(n, q, par=1):
    states = sorted({tuple(sorted(s, reverse=True))
                     for s in compositions(q, n)})
    trans = {}
    for s in states:
        served = [min(x, par) for x in s]
        c = sum(served)
        base = [x - d for x, d in zip(s, served)]
        row = {}
        for dist in compositions(c, n):
            w = math.factorial(c)
            for d in dist:
                w //= math.factorial(d)
            t = tuple(sorted((b + d for b, d in zip(base, dist)),
                             reverse=True))
            row[t] = row.get(t, 0.0) + w / n ** c
        trans[s] = (c, row)
    pi = {s: 1.0 / len(states) for s in states}
    for _ in range(100000):
        new = dict.fromkeys(states, 0.0)
        for s, (_, row) in trans.items():
            for t, w in row.items():
                new[t] += pi[s] * w
        delta = sum(abs(new[s] - pi[s]) for s in states)
        pi = new
        if delta < 1e-14:
            break
    return sum(pi[s] * trans[s][0] for s in states)


def lab2_iops(row, f):
    n = int(num(row["members"]))
    return f(n) / seconds(ini(SERIAL)["latency"])


def lab2_chain(row):
    return lab2_iops(row, lambda n: collision_chain(n, n))


def lab2_naive(row):
    return lab2_iops(row, lambda n: n)


def lab2_exponential(row):
    # Exponential service: the closed network's stationary law is
    # uniform over the C(2N-1, N) placements, a member is idle with
    # probability (N-1)/(2N-1), so N busy-fractions N/(2N-1).
    return lab2_iops(row, lambda n: n * n / (2 * n - 1))


def lab2_fresh(row):
    # N balls thrown afresh every L: expected occupied bins.
    return lab2_iops(row, lambda n: n * (1 - (1 - 1 / n) ** n))


FIXED4 = "configs/devices/fixed-100us.ini"


# Lab 3: two fixed drives serving p at once, ideal controller.
def lab3_par():
    d = ini(FIXED4)
    return int(d["parallelism"]), seconds(d["latency"])


def lab3_first(row):
    p, lat = lab3_par()
    return min(int(num(row["QD"])), p) / lat


def lab3_balanced(row):
    p, lat = lab3_par()
    return min(int(num(row["QD"])), 2 * p) / lat


def lab3_coin(row):
    # Each read goes to either member with probability 1/2, on its own:
    # the chain of lab 2 with two members serving p each.
    p, lat = lab3_par()
    q = int(num(row["QD"]))
    n = q + 1
    pi = [1.0 / n] * n
    for _ in range(100000):
        new = [0.0] * n
        for k in range(n):
            s0, s1 = min(k, p), min(q - k, p)
            c = s0 + s1
            for j in range(c + 1):
                new[k - s0 + j] += pi[k] * math.comb(c, j) / 2 ** c
        delta = sum(abs(a - b) for a, b in zip(new, pi))
        pi = new
        if delta < 1e-15:
            break
    return sum(pi[k] * (min(k, p) + min(q - k, p)) for k in range(n)) / lat


# Lab 4: a 4 KiB read at QD 1 on the optane-900p-like drive: the
# controller's overhead, then the drive (its overhead, the die's read,
# the page across the channel and across the interface), then the port
# (PCIe 3.0 x4: TLPs and the NVMe command's traffic); VROC's coalescing
# adds its whole timer, as a completion at QD 1 is always alone.
def lab4_latency_us(vroc):
    d = ini("configs/devices/optane-900p-like.ini")
    c = ini("configs/controllers/vroc-like.ini" if vroc
            else "configs/controllers/nvme-direct-like.ini")
    b = 4096
    t = (seconds(c["overhead"]) + seconds(d["overhead"])
         + seconds(d["read_time"]) + b / rate(d["channel_rate"])
         + b / rate(d["interface_rate"]) + alone(c, "read", b))
    if vroc:
        t += seconds(c["coalesce_timer"])
    return t * 1e6


def lab4_lat(row):
    return lab4_latency_us("vroc" in row["array"])


def lab4_iops(row):
    return 1e6 / lab4_latency_us("vroc" in row["array"])


def lab4_util(row):
    # Each of the two drives is busy its service time per request it
    # gets, half of them.
    d = ini("configs/devices/optane-900p-like.ini")
    b = 4096
    service = (seconds(d["overhead"]) + seconds(d["read_time"])
               + b / rate(d["channel_rate"]) + b / rate(d["interface_rate"]))
    return 100 * service * 1e6 / lab4_latency_us(True) / 2


# Lab 5: the hdd model as docs/simulator.md describes it: media rate
# linear in radius, constant areal density, Lee's three-point seek
# curve, rotation half a turn on average.
HDD = "configs/devices/hdd-7200-generic.ini"


def hdd():
    d = ini(HDD)
    cap = int(d["capacity"])
    rpm = float(d["rpm"])
    turn = 60 / rpm
    ro, ri = rate(d["rate_outer"]), rate(d["rate_inner"])
    rho = ri / ro
    tracks = cap / (turn * (ro + ri) / 2)
    cyls = tracks / int(d["heads"])
    single, avg, full = (seconds(d["seek_single"]), seconds(d["seek_avg"]),
                         seconds(d["seek_full"]))
    a = (15 * avg - 10 * single - 5 * full) / (3 * math.sqrt(cyls))
    b = (8 * full + 7 * single - 15 * avg) / (3 * cyls)

    def cyl(u):
        return (1 - math.sqrt(1 - u * (1 - rho * rho))) / (1 - rho) * cyls

    def seek(dist):
        return 0.0 if dist < 1 else a * math.sqrt(dist - 1) \
            + b * (dist - 1) + single

    return dict(d=d, turn=turn, ro=ro, rho=rho, cyl=cyl, seek=seek)


def lab5_qd1(row):
    """4 KiB random reads at QD 1 over the first `span` of the disk:
    mean seek between two random bytes of the span (midpoint rule),
    half a turn, the drive's overhead, the media transfer at the mean
    rate of the span, the controller's overhead and the SATA port's
    frames (longer than the uplink's packets)."""
    h = hdd()
    c = ini("configs/controllers/ahci-like.ini")
    cap = int(h["d"]["capacity"])
    span = row["span"].strip()
    frac = 1.0 if span == "whole disk" else size(span.split()[0]) / cap
    k = 400
    us = [(i + 0.5) / k * frac for i in range(k)]
    cyls = [h["cyl"](u) for u in us]
    mean_seek = sum(h["seek"](abs(x - y)) for x in cyls for y in cyls) / k / k
    mean_xfer = sum(4096 / (h["ro"] * math.sqrt(1 - u * (1 - h["rho"] ** 2)))
                    for u in us) / k
    t = (mean_seek + h["turn"] / 2 + seconds(h["d"]["overhead"]) + mean_xfer
         + seconds(c["overhead"]) + alone(c, "read", 4096))
    return 1 / t


def lab5_media(row):
    """The media rate (MB/s) at the surface's start, end, and its mean
    over the surface: rate_outer x r(u), r(u) = sqrt (1 - u (1 - rho^2)),
    whose mean over u in [0, 1] is 2 (1 - rho^3) / (3 (1 - rho^2))."""
    h = hdd()
    rho, ro = h["rho"], h["ro"] / 1e6
    what = row["figure"].strip()
    if what == "max":
        return ro
    if what == "min":
        return ro * rho
    return ro * 2 * (1 - rho ** 3) / (3 * (1 - rho * rho))


# Lab 6: p commands at once per member, latency L, every member busy:
# N p / L member commands a second; a read costs one, a write one per
# copy (1 on RAID 0, N on RAID 1, 2 on RAID 10), 70% reads.
def lab6_total(row):
    p, lat = lab3_par()
    n = int(num(row["members"]))
    level = row["level"].strip()
    copies = {"0": 1, "1": n, "10": 2}[level]
    return n * p / lat / (0.7 + 0.3 * copies)


def lab6_usable(row):
    n = int(num(row["members"]))
    return {"0": n, "1": 1, "10": n / 2}[row["level"].strip()]


# Lab 7: the 4x SATA array's links (configs/controllers/ahci-like.ini):
# N SATA 3 Gb/s ports side by side, then the DMI 2.0 uplink, each at
# its payload rate for the command's length (docs/links.md).
AHCI = "configs/controllers/ahci-like.ini"


def lab7_seq(row):
    n = int(num(row["members"]))
    return ceiling(ini(AHCI), n, "read", 128 << 10) / 1e6


def lab7_rand(row):
    n = int(num(row["members"]))
    return ceiling(ini(AHCI), n, "read", 4096) / 4096


def lab7_raw(row):
    # The same links at their raw rates (after 8b/10b, no framing).
    c = ini(AHCI)
    n = int(num(row["members"]))
    return min(n * linkforms.raw(linkforms.spec(c, "port")),
               linkforms.raw(linkforms.spec(c, "uplink"))) / 1e6


# Lab 8: RAID 1 of two fixed-100us drives on the AHCI-like controller.
def lab8(row):
    d, c = ini(FIXED4), ini(AHCI)
    lat, par = seconds(d["latency"]), int(d["parallelism"])
    o = seconds(c["overhead"])
    what = row["run"].strip()
    if what == "healthy":
        # 8 requests, 4 a member, no one waits: Little's law.
        return 8 / (o + lat + alone(c, "read", 4096))
    if what in ("degraded", "rebuild-min"):
        # All reads on member 0, its p slots always full.
        return par / lat
    raise KeyError(what)


def lab8_min_hours(row):
    # md's default speed_limit_min, 1000 KiB/s, over the whole member.
    d = ini(FIXED4)
    return size(d["capacity"]) / (1000 * 1024) / 3600


def lab8_idle_minutes(row):
    d = ini(FIXED4)
    return size(d["capacity"]) / (200000 * 1024) / 60


def lab8_sync_latency(row):
    # A sync request: 64 KiB read from member 0 (overhead, service, then
    # the links), then written to member 1 (overhead, the links, service);
    # a write's frames carry a DMA Activate before each data FIS.
    d, c = ini(FIXED4), ini(AHCI)
    o, lat = seconds(c["overhead"]), seconds(d["latency"])
    return (2 * (o + lat) + alone(c, "read", 65536)
            + alone(c, "write", 65536)) * 1e6


CLOSED = {name: f for name, f in globals().items()
          if name.startswith("lab") and callable(f)}


# ---------------------------------------------------------------------
# Pages.

def fenced_blocks(lines, start):
    """The fenced block starting at or after line start: (lang, lines)."""
    i = start
    while i < len(lines) and not lines[i].startswith("```"):
        i += 1
    lang = lines[i][3:].strip()
    j = i + 1
    body = []
    while not lines[j].startswith("```"):
        body.append(lines[j])
        j += 1
    return lang, body


def next_table(lines, start):
    i = start
    while i < len(lines) and not lines[i].startswith("|"):
        i += 1
    if i == len(lines):
        raise ValueError("no table after line %d" % start)
    rows = []
    while i < len(lines) and lines[i].startswith("|"):
        cells = [c.strip() for c in lines[i].strip().strip("|").split("|")]
        rows.append(cells)
        i += 1
    header = rows[0]
    return [dict(zip(header, r)) for r in rows[2:]], header


def within(got, want, tol):
    if want == 0:
        return abs(got) <= tol
    return abs(got - want) <= tol * abs(want)


def tolerance(words):
    for w in words:
        if w.startswith("tol="):
            return float(w[4:].rstrip("%")) / 100
    return 0.0


def run_page(page, out):
    lines = open(page).read().split("\n")
    script = []
    for i, l in enumerate(lines):
        if l.startswith("```sh"):
            script += fenced_blocks(lines, i)[1]
    env = dict(os.environ, R=RAIDSIM, OUT=out)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", "\n".join(script)],
                       cwd=SRCDIR, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fail("%s: its commands exit %d:\n%s" % (page, r.returncode,
                                               r.stderr[-2000:]))
        return None
    return lines


def check_page(page, out):
    name = os.path.basename(page)
    lines = run_page(page, out)
    if lines is None:
        return
    checked = closed = 0
    for i, l in enumerate(lines):
        m = re.match(r"<!-- (check|closed|relate|excerpt) (.*) -->$", l)
        if not m:
            continue
        kind, words = m.group(1), shlex.split(m.group(2))
        where = "%s:%d" % (name, i + 1)
        if kind == "excerpt":
            f = words[0].split("=", 1)[1]
            text = " ".join(open(os.path.join(out, f)).read().split())
            for want in fenced_blocks(lines, i + 1)[1]:
                if " ".join(want.split()) not in text:
                    fail("%s: not in %s: %s" % (where, f, want))
            checked += 1
            continue
        rows, header = next_table(lines, i + 1)
        tol = tolerance(words)
        if kind == "check":
            opts = dict(w.split("=", 1) for w in words if "=" in w)
            f = opts.pop("file")
            opts.pop("tol", None)
            match = [c.split(":") if ":" in c else (c, c)
                     for c in opts.pop("match").split(",")]
            data = list(csv.DictReader(open(os.path.join(out, f))))
            if "where" in opts:
                wcol, _, wval = opts.pop("where").partition(":")
                data = [d for d in data if d[wcol] == wval]
            for row in rows:
                hits = [d for d in data
                        if all(d[cc].strip() == row[tc].strip() or
                               (re.fullmatch(r"[0-9.,]+", row[tc]) and
                                num(row[tc]) == num(d[cc])
                                if d[cc] else False)
                               for tc, cc in match)]
                if len(hits) != 1:
                    fail("%s: %d rows of %s match %s" %
                         (where, len(hits), f,
                          [row[tc] for tc, _ in match]))
                    continue
                for tc, spec in opts.items():
                    cc, _, div = spec.partition("/")
                    got = num(row[tc])
                    want = float(hits[0][cc]) / float(div or 1)
                    if not within(got, want, tol):
                        fail("%s: %s %s: page says %s, %s gives %.6g" %
                             (where, [row[t] for t, _ in match], tc,
                              row[tc], f, want))
                    checked += 1
        elif kind == "closed":
            fn, col = CLOSED[words[0]], words[1]
            for row in rows:
                want = fn(row)
                if not within(num(row[col]), want, tol):
                    fail("%s: %s: page says %s, the closed form %s gives "
                         "%.6g" % (where, col, row[col], words[0], want))
                closed += 1
        elif kind == "relate":
            a, op, b = words[0], words[1], words[2]
            for row in rows:
                x, y = num(row[a]), num(row[b])
                if op == "in":          # A in B +- C: inside the interval
                    ok = abs(x - y) <= num(row[words[3]])
                elif op == "~":
                    ok = within(x, y, tol)
                else:
                    ok = x <= y * (1 + tol)
                if not ok:
                    fail("%s: %s %s %s fails: %s, %s" % (where, a, op, b,
                                                         x, y))
    if checked == 0 or closed == 0:
        fail("%s: checks %d figures and %d closed forms; a lab needs both" %
             (name, checked, closed))
    imgs = re.findall(r"!\[[^]]*\]\(img/([^)]+)\)", "\n".join(lines))
    if not imgs:
        fail("%s: shows no plot from img/" % name)
    for img in imgs:
        if not os.path.exists(os.path.join(LABS, "img", img)):
            fail("%s: img/%s is not committed" % (name, img))
        if not os.path.exists(os.path.join(out, img)):
            fail("%s: its commands do not draw %s in $OUT" % (name, img))
    print("ok: %s: %d figures against the program, %d closed forms" %
          (name, checked, closed))
    return imgs


def main():
    if not os.access(RAIDSIM, os.X_OK):
        print("test-labs.py: %s is not built" % RAIDSIM)
        return 1
    if shutil.which("gnuplot") is None:
        print("SKIP: gnuplot is not installed (Debian: gnuplot-nox)")
        return 77
    update = "--update-img" in sys.argv[1:]
    pages = sorted(glob.glob(os.path.join(LABS, "[0-9][0-9]-*.md")))
    if len(pages) < 8:
        fail("%d lab pages, fewer than 8" % len(pages))
    # Lab 5's disk without NCQ is the generic disk with ncq off, no more.
    a, b = ini(HDD), ini("docs/labs/configs/devices/hdd-7200-no-ncq.ini")
    if a.pop("ncq") != "true" or b.pop("ncq") != "false" or a != b:
        fail("hdd-7200-no-ncq.ini is not hdd-7200-generic.ini with ncq off")
    index = open(os.path.join(LABS, "README.md")).read()
    with tempfile.TemporaryDirectory() as tmp:
        for page in pages:
            if os.path.basename(page) not in index:
                fail("README.md does not list %s" % os.path.basename(page))
            out = os.path.join(tmp, os.path.basename(page)[:2])
            os.mkdir(out)
            imgs = check_page(page, out)
            if update and imgs:
                for img in imgs:
                    shutil.copy(os.path.join(out, img),
                                os.path.join(LABS, "img", img))
    print("%d failures" % failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
