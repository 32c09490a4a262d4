/* raidsim: links, the wires between host and devices.
 *
 * A link is what a member's data crosses: its own port (a SATA link, a
 * PCIe link to an NVMe drive) and the uplink every member behind a
 * chipset shares (DMI, A-Link: PCIe-like links).  Moving a command's
 * data across a link occupies it for the time its bits take on the
 * wire, and commands take turns on it in the order they start.  A
 * full-duplex link (PCIe) has one such timeline per direction; a
 * half-duplex one (SATA: frames go one way at a time) shares one.
 *
 * The time on the wire is a closed form in the command's direction and
 * length, worked out from the link's specification (docs/links.md has
 * the derivations with their numbers and sources):
 *
 *   rate   len / rate: a bare payload rate, for illustrative configs
 *          and tests only; no real link moves its raw rate;
 *   sata   an NCQ command's frames: the command (Register H2D), the
 *          release (Register D2H), DMA Setup, data FISes of at most
 *          8 KiB each (a write's each after a DMA Activate), the status
 *          (Set Device Bits); each frame with SOF, CRC and EOF and the
 *          handshakes before and after it; ALIGN pairs; 8b/10b;
 *   pcie   TLPs of at most the Max Payload Size with their framing,
 *          header and LCRC, the ACK and UpdateFC DLLPs that answer the
 *          other direction's TLPs, SKP ordered sets, 8b/10b (gen 1, 2)
 *          or 128b/130b (gen 3), and per command the protocol's own
 *          traffic (NVMe: doorbells, command fetch, completion entry,
 *          interrupt; AHCI behind an uplink: command header and table,
 *          received FISes, interrupt, the driver's register accesses).
 *
 * A command crosses a path of links (a member's port, then the shared
 * uplink).  It occupies every link on the path for that link's own
 * time, each from the moment that link is free, and is done when the
 * last of them is.  This is not how packets interleave on a real bus,
 * so one command's latency is an approximation; but each link is kept
 * exactly as busy as its wire time requires, so every link's ceiling,
 * shared or not, is exact.  Only the data direction's lane is charged:
 * the few packets a command sends the other way (a read's doorbells on
 * PCIe, the DLLPs that acknowledge the data) are not.
 *
 * Like the device models, a link never reads a clock: it is told the
 * time and answers when the transfer completes.  Calls must come with
 * non-decreasing now.
 */
#ifndef RAIDSIM_LINK_H
#define RAIDSIM_LINK_H

#include <stdbool.h>
#include <stdint.h>

#include "raidsim/engine.h"
#include "raidsim/io.h"

enum raidsim_duplex {
  RAIDSIM_HALF_DUPLEX,
  RAIDSIM_FULL_DUPLEX,
};

/* What a link is (the config keys port_link and uplink_link). */
enum raidsim_link_kind {
  RAIDSIM_LINK_RATE,            /* a bare rate: rate, duplex */
  RAIDSIM_LINK_SATA1,           /* SATA 1.5 Gb/s */
  RAIDSIM_LINK_SATA2,           /* SATA 3 Gb/s */
  RAIDSIM_LINK_SATA3,           /* SATA 6 Gb/s */
  RAIDSIM_LINK_PCIE1,           /* PCIe 2.5 GT/s, 8b/10b: gen 1, DMI 1.0, A-Link */
  RAIDSIM_LINK_PCIE2,           /* PCIe 5 GT/s, 8b/10b: gen 2, DMI 2.0 */
  RAIDSIM_LINK_PCIE3,           /* PCIe 8 GT/s, 128b/130b: gen 3 */
  /* The chipsets' uplinks: PCIe-like links of four lanes. */
  RAIDSIM_LINK_DMI1,            /* DMI 1.0 (ICH9R, ICH10R): as PCIE1 x4 */
  RAIDSIM_LINK_ALINK2,          /* AMD A-Link Express II: as PCIE1 x4 */
  RAIDSIM_LINK_DMI2,            /* DMI 2.0: as PCIE2 x4 */
  RAIDSIM_LINK_DMI3,            /* DMI 3.0 (X299): as PCIE3 x4 */
};

/* The per-command traffic a PCIe link carries besides the data. */
enum raidsim_link_cmds {
  RAIDSIM_LINK_CMDS_NONE,       /* data TLPs only */
  RAIDSIM_LINK_CMDS_NVME,       /* an NVMe drive's queues */
  RAIDSIM_LINK_CMDS_AHCI,       /* an AHCI HBA's command lists */
};

/* A link's specification, as the controller file gives it.  The field
 * types are the parameter table's (uint64_t numbers, int enums).
 */
struct raidsim_link_spec {
  int kind;                     /* enum raidsim_link_kind */
  uint64_t rate;                /* RATE: payload bytes/s; 0: unlimited */
  int duplex;                   /* RATE: enum raidsim_duplex */
  uint64_t lanes;               /* PCIe: 1 to 32 (DMI, A-Link: 4) */
  uint64_t mps;                 /* PCIe: Max Payload Size, bytes */
  uint64_t mrrs;                /* PCIe: Max Read Request Size, bytes */
  int cmds;                     /* PCIe: enum raidsim_link_cmds */
  uint64_t turnaround;          /* SATA: dwords per frame's handshakes */
};

/* The constants of the specifications (docs/links.md cites each). */
#define RAIDSIM_SATA_FIS_MAX_DATA 8192  /* bytes in one data FIS */
#define RAIDSIM_SATA_ALIGN_EVERY 254    /* dwords between ALIGN pairs */
#define RAIDSIM_NVME_PAGE 4096          /* a PRP entry's page */

struct raidsim_link {
  char name[32];
  /* The payload rate of long reads (bytes/s, from the spec; 0 for an
   * unlimited link): for reports and for the callers' "is there a
   * link" test.  The time of a transfer is raidsim_link_time's.
   */
  uint64_t rate;
  bool full_duplex;
  struct raidsim_link_spec spec;
  uint64_t num, den;            /* ns per wire unit: num / den */
  raidsim_ns free_at[RAIDSIM_NDIRS]; /* half duplex uses [0] only */
  /* Statistics from raidsim_link_reset_stats on. */
  uint64_t bytes[RAIDSIM_NDIRS];
  raidsim_ns busy[RAIDSIM_NDIRS];
  /* The last transfer time worked out, per direction: runs move one
   * size over and over, and working it out is a few divisions.
   */
  uint64_t memo_len[RAIDSIM_NDIRS];
  raidsim_ns memo_time[RAIDSIM_NDIRS];
};

/* A link with a bare payload rate (bytes/s, 0: unlimited). */
extern void raidsim_link_init (struct raidsim_link *l, const char *name,
                               uint64_t rate, bool full_duplex);
/* A link from its specification (spec->kind RATE is the same as
 * raidsim_link_init).
 */
extern void raidsim_link_init_spec (struct raidsim_link *l, const char *name,
                                    const struct raidsim_link_spec *spec);
extern void raidsim_link_reset_stats (struct raidsim_link *l);

/* What a transfer of len bytes in direction dir puts on the wire: for
 * SATA in dwords (before 8b/10b), for PCIe in bytes (summed over the
 * lanes, before coding and SKP ordered sets), for a bare rate the
 * payload bytes.  0 for len 0.  A pure function of the spec.
 */
extern uint64_t raidsim_link_wire (const struct raidsim_link_spec *spec,
                                   enum raidsim_dir dir, uint64_t len);

/* Time to move len bytes in direction dir, rounded up to whole
 * nanoseconds so that a link is never faster than its specification.
 */
extern raidsim_ns raidsim_link_time (const struct raidsim_link *l,
                                     enum raidsim_dir dir, uint64_t len);

/* Move len bytes in direction dir across the n links of path, starting
 * no earlier than now.  Returns when the last byte has crossed every
 * link.  Links with rate 0 and NULL entries are skipped; with none left
 * the answer is now.
 */
extern raidsim_ns raidsim_links_transfer (struct raidsim_link *const *path,
                                          unsigned n, enum raidsim_dir dir,
                                          uint64_t len, raidsim_ns now);

#endif /* RAIDSIM_LINK_H */
