# raidsim tests: the links' closed forms of docs/links.md, written out
# again from that page (never from raidsim/models/link.c), for the tests
# that work a figure out by hand: the labs (tests/unit/test-labs.py) and
# the ceilings of the shipped arrays (tests/unit/test-sim-ceilings.py).
#
#   wire(spec, direction, length)   what a command puts on its link's
#                                   data lane: SATA dwords, PCIe bytes
#                                   over all lanes, a bare rate's bytes
#   seconds(spec, direction, length)   its time on the wire
#   raw(spec)                       the link's raw rate, bytes/s: the line
#                                   rate after its code, with no framing
#
# A spec is a dict of the controller file's keys for one link, without
# their port_/uplink_ prefix: link, bandwidth (bytes/s), lanes, mps,
# mrrs (bytes), commands, turnaround; spec(section, "port") makes one
# from a [controller] section as a dict of strings (a file's own keys,
# or all of them as `raidsim config` prints them), with the defaults of
# docs/config-reference.md for the keys it leaves out.
#
# Run: imported (python3 -c 'import linkforms' from tests/lib prints
# nothing); tests/unit/test-sim-ceilings.py and test-labs.py use it.
import re

SATA_GBPS = {"sata-1.5g": 1.5, "sata-3g": 3.0, "sata-6g": 6.0}
# PCIe generation of each PCIe-like link, and the chipsets' fixed width.
PCIE_GEN = {"pcie1": 1, "pcie2": 2, "pcie3": 3,
            "dmi1": 1, "alink2": 1, "dmi2": 2, "dmi3": 3}
FOUR_LANES = ("dmi1", "alink2", "dmi2", "dmi3")


# docs/config-reference.md: the defaults of the link keys.
DEFAULTS = {"port": {"link": "rate", "bandwidth": "0", "lanes": "4",
                     "mps": "128", "mrrs": "512", "commands": "nvme"},
            "uplink": {"link": "rate", "bandwidth": "0", "lanes": "4",
                       "mps": "128", "mrrs": "512", "commands": "none"}}
SIZE = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}
RATE = {"B/s": 1, "KB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9,
        "KiB/s": 1024, "MiB/s": 1024 ** 2, "GiB/s": 1024 ** 3}


def bytes_per_s(v):
    """'300MB/s', '1GB/s', '0' as bytes/s."""
    num = re.match(r"[0-9.]+", v.strip())
    unit = v.strip()[num.end():].strip()
    return float(num.group(0)) * (RATE[unit] if unit else 1)


def spec(section, side):
    """The link `side` ("port" or "uplink") of a [controller] section."""
    d = dict(DEFAULTS[side])
    for k in list(d):
        if side + "_" + k in section:
            d[k] = section[side + "_" + k].strip()
    out = {"link": d["link"], "bandwidth": bytes_per_s(d["bandwidth"]),
           "lanes": int(d["lanes"]), "commands": d["commands"],
           "turnaround": int(section.get("sata_turnaround", "20"))}
    for k in ("mps", "mrrs"):
        m = re.fullmatch(r"([0-9]+)([KMG]?)", d[k])
        out[k] = int(m.group(1)) * SIZE[m.group(2)]
    return out


def present(s):
    """Whether the link exists: a bare rate of 0 is no link."""
    return s["link"] != "rate" or s["bandwidth"] > 0


def up(a, b):
    return -(-a // b)


def sata_dwords(direction, length, turnaround=20):
    """docs/links.md, "SATA": an NCQ command's frames (Register H2D 5,
    Register D2H 5, DMA Setup 7, Set Device Bits 2 dwords, data FISes of
    one header dword and at most 8 KiB, a write's DMA Activate before
    each), each with SOF, CRC, EOF and its handshakes, then an ALIGN
    pair before every 254 other dwords."""
    t = turnaround
    n = up(length, 8192)
    d = (5 + 5 + 7 + 2) + 4 * (3 + t) + up(length, 4) + n * (1 + 3 + t)
    if direction == "write":
        d += n * (1 + 3 + t)
    return d + 2 * up(d, 254)


def nvme_bytes(direction, length, mps, mrrs):
    """docs/links.md, "NVMe": a command's own traffic on its data lane.
    Past two 4 KiB pages the command points at a list of 8-byte entries,
    one per page but the first."""
    pages = up(length, 4096)
    prp = 8 * (pages - 1) if pages > 2 else 0
    if direction == "read":
        # fetches of the command and the list, the completion entry, the
        # MSI-X write, and the DLLPs answering the two doorbells, the
        # command and the list's completions
        return (24 + 24 * up(prp, mrrs) + (24 + 16) + (24 + 4)
                + 16 * (3 + up(prp, mps)))
    # the doorbells (20 + 4 each), the command (a completion: 20 + 64),
    # the list (its entries and a completion header per mps), and the
    # DLLPs answering the fetches, the completion entry and the MSI-X
    return (2 * (20 + 4) + (20 + 64) + prp + 20 * up(prp, mps)
            + 16 * (3 + up(prp, mrrs)))


def ahci_bytes(direction, length, mps, mrrs):
    """docs/links.md, "AHCI behind an uplink": the controller fetches
    the command header (32 bytes), the command FIS (20) and one 16-byte
    PRD entry per 4 KiB page, writes the received FISes (20 + 28 + 8)
    and the MSI (4); the driver writes PxSACT and PxCI and reads four
    registers.  Each memory request 24 bytes of header and framing, a
    register access 20 (a 32-bit address), a completion 20; two DLLPs
    (16 bytes) answer each TLP of the other direction."""
    prdt = 16 * up(length, 4096)
    fetches = 2 + up(prdt, mrrs)
    if direction == "read":
        # up: the fetches, the three FIS writes, the MSI, the register
        # reads' completions; the DLLPs of what comes down: the fetches'
        # completions, two register writes, four register reads
        down = 2 + up(prdt, mps) + 2 + 4
        return (24 * fetches + 3 * 24 + (20 + 28 + 8) + (24 + 4)
                + 4 * (20 + 4) + 16 * down)
    upward = fetches + 3 + 1 + 4
    return (2 * 20 + 32 + 20 + prdt + 20 * up(prdt, mps)
            + 2 * (20 + 4) + 4 * 20 + 16 * upward)


def pcie_bytes(spec, direction, length):
    """docs/links.md, "PCIe": data in TLPs of at most mps bytes (a read's
    as memory writes, 24 bytes each beside the data; a write's as
    completions, 20 each, of read requests of at most mrrs bytes, each
    answered by two DLLPs on the data's lane), and the commands'."""
    mps, mrrs = spec["mps"], spec["mrrs"]
    if direction == "read":
        b = length + 24 * up(length, mps)
    else:
        b = length + 20 * up(length, mps) + 16 * up(length, mrrs)
    cmds = spec.get("commands", "none")
    if cmds == "nvme":
        b += nvme_bytes(direction, length, mps, mrrs)
    elif cmds == "ahci":
        b += ahci_bytes(direction, length, mps, mrrs)
    return b


def lanes(spec):
    return 4 if spec["link"] in FOUR_LANES else spec["lanes"]


def wire(spec, direction, length):
    link = spec["link"]
    if link in SATA_GBPS:
        return sata_dwords(direction, length, spec.get("turnaround", 20))
    if link in PCIE_GEN:
        return pcie_bytes(spec, direction, length)
    return length


def seconds(spec, direction, length):
    """Time on the wire: SATA 40 bits a dword after 8b/10b; PCIe a byte
    a lane in 4 or 2 ns (8b/10b at 2.5 or 5 GT/s) with a 4-symbol SKP
    ordered set every 1180 symbols, or in 65/64 ns (128b/130b at 8 GT/s)
    with one SKP block every 370."""
    link = spec["link"]
    w = wire(spec, direction, length)
    if link in SATA_GBPS:
        return w * 40 / (SATA_GBPS[link] * 1e9)
    if link in PCIE_GEN:
        gen = PCIE_GEN[link]
        per = {1: 4e-9 * 1184 / 1180, 2: 2e-9 * 1184 / 1180,
               3: 65 / 64 * 1e-9 * 371 / 370}[gen]
        return w / lanes(spec) * per
    return length / spec["bandwidth"]


def rate(spec, direction, length):
    """Payload bytes/s of back-to-back commands of this length."""
    return length / seconds(spec, direction, length)


def raw(spec):
    """The raw rate: the line rate after 8b/10b or 128b/130b, before any
    framing (SATA 1.5, 3, 6 Gb/s: 150, 300, 600 MB/s; a PCIe 1.x, 2.0,
    3.0 lane 250, 500, 984.6 MB/s); a bare rate is its own."""
    link = spec["link"]
    if link in SATA_GBPS:
        return SATA_GBPS[link] * 1e9 / 10
    if link in PCIE_GEN:
        per_lane = {1: 2.5e9 / 10, 2: 5e9 / 10, 3: 8e9 * 128 / 130 / 8}
        return per_lane[PCIE_GEN[link]] * lanes(spec)
    return spec["bandwidth"]
