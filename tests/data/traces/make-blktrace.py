#!/usr/bin/env python3
# Writes five.blktrace.0: blktrace's binary records (struct blk_io_trace,
# blktrace_api.h: 48 bytes, little-endian here, then pdu_len bytes) for
# the same workload as five.iolog3, made by hand as blktrace would write
# it for device 8,16 on CPU 0.  Every I/O has its queue (Q), get-request
# (G), dispatch (D) and completion (C) events; the replay must take the
# Q times only.  Also a flush (Q with BLK_TC_FLUSH, 0 bytes), a discard
# (BLK_TC_DISCARD), and a notify event with a payload (the process
# name, which blkparse prints in brackets).
#
# five.blkparse is `blkparse -i five` of it (blktrace 1.2.0, Debian).
#
# Run: python3 tests/data/traces/make-blktrace.py tests/data/traces
import struct
import sys

MAGIC = 0x65617400 | 7
TC = lambda bit: (1 << bit) << 16
READ, WRITE, FLUSH, SYNC, QUEUE, ISSUE, COMPLETE, FS, NOTIFY, DISCARD = (
    TC(0), TC(1), TC(2), TC(3), TC(4), TC(6), TC(7), TC(8), TC(10), TC(13))
Q, G, D, C = 1, 4, 7, 8
DEV = (8 << 20) | 16            # the kernel's dev_t: major << 20 | minor

out = []


def ev(t_ns, sector, nbytes, action, pdu=b"", pid=4242):
    out.append((t_ns, len(out), sector, nbytes, action, pid, pdu))


def io(t_us, rw, offset, nbytes, d_us=2):
    """An I/O queued at t_us, dispatched d_us later, done 900 us after."""
    t = t_us * 1000
    sector = offset // 512
    cat = (READ if rw == "r" else WRITE) | FS
    ev(t, sector, nbytes, Q | QUEUE | cat)
    ev(t + 500, sector, nbytes, G | QUEUE | cat)
    ev(t + d_us * 1000, sector, nbytes, D | ISSUE | cat)
    ev(t + d_us * 1000 + 900000, sector, nbytes, C | COMPLETE | cat)


# A notify event (process name) with a 16-byte payload, first.
ev(0, 0, 0, 0 | NOTIFY, pdu=b"fio\0".ljust(16, b"\0"))
io(10000, "r", 0, 4096)
io(11000, "w", 8192, 4096)
io(12000, "r", 1048576, 65536)
ev(12100 * 1000, 0, 0, Q | QUEUE | FLUSH | WRITE | SYNC)          # flush
io(20000, "r", 4096, 4096)
ev(20000 * 1000, 0, 4096, Q | QUEUE | DISCARD | WRITE)            # discard
# Held in the traced device's queue: dispatched 1.5 ms after its Q, so
# a replay of D events instead of Q would differ.
io(20000, "r", 12288, 4096, d_us=1500)

# blktrace writes each CPU's events in time order, numbered from 1.
recs = []
for seq, (t, _, sector, nbytes, action, pid, pdu) in enumerate(sorted(out), 1):
    recs.append(struct.pack("<IIQQIIIIIHH", MAGIC, seq, t, sector, nbytes,
                            action, pid, DEV, 0, 0, len(pdu)) + pdu)
with open(sys.argv[1] + "/five.blktrace.0", "wb") as f:
    f.write(b"".join(recs))
