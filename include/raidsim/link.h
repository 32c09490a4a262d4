/* raidsim: links, the bandwidth ceilings between host and devices.
 *
 * A link is a pipe with a rate in bytes per second: a SATA II port
 * (about 300 MB/s), a chipset uplink such as DMI (about 1 GB/s, shared by
 * every member behind it), a PCIe 3.0 x4 link (about 3.5 GB/s).  Moving
 * a request's data across a link occupies it for len / rate, and
 * transfers on one link take turns in the order they start.  A
 * full-duplex link has one such timeline per direction; a half-duplex
 * one (SATA) shares one between reads and writes.
 *
 * A transfer crosses a path of links (a member's port, then the shared
 * uplink).  It occupies every link on the path for that link's own
 * transfer time, each from the moment that link is free, and is done
 * when the last of them is.  This is not how packets interleave on a
 * real bus, so one transfer's latency is an approximation; but each link
 * is kept exactly as busy as its bytes require, so the throughput ceiling
 * of every link, shared or not, is exact, which is what the figures
 * depend on.
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

struct raidsim_link {
  char name[32];
  uint64_t rate;                /* bytes/s; 0: unlimited */
  bool full_duplex;
  raidsim_ns free_at[RAIDSIM_NDIRS]; /* half duplex uses [0] only */
  /* Statistics from raidsim_link_reset_stats on. */
  uint64_t bytes[RAIDSIM_NDIRS];
  raidsim_ns busy[RAIDSIM_NDIRS];
  /* The last transfer time worked out: runs move one size over and
   * over, and a division per transfer is a measurable part of a run.
   */
  uint64_t memo_len;
  raidsim_ns memo_time;
};

extern void raidsim_link_init (struct raidsim_link *l, const char *name,
                               uint64_t rate, bool full_duplex);
extern void raidsim_link_reset_stats (struct raidsim_link *l);

/* Time to move len bytes at the link's rate, rounded up to whole
 * nanoseconds so that a link is never faster than its rate.
 */
extern raidsim_ns raidsim_link_time (const struct raidsim_link *l,
                                     uint64_t len);

/* Move len bytes in direction dir across the n links of path, starting
 * no earlier than now.  Returns when the last byte has crossed every
 * link.  Links with rate 0 and NULL entries are skipped; with none left
 * the answer is now.
 */
extern raidsim_ns raidsim_links_transfer (struct raidsim_link *const *path,
                                          unsigned n, enum raidsim_dir dir,
                                          uint64_t len, raidsim_ns now);

#endif /* RAIDSIM_LINK_H */
