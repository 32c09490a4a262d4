/* raidsim: the `hdd` device model, a hard disk's mechanism, cache and
 * command queue, after the disk model of DiskSim.
 *
 * Layout.  The platters turn at `rpm`; one revolution takes T.  The
 * surface is read as a sequence of tracks, `heads` per cylinder, evenly
 * spaced in radius from the outer edge (radius 1) inwards.  Areal
 * density is constant, so a track holds bytes in proportion to its
 * radius, and the media rate, bytes per revolution over T, falls
 * linearly with radius from `rate_outer` at the first byte to
 * `rate_inner` at the last: the inner radius is rho = rate_inner /
 * rate_outer.  Real drives have a dozen or so zones of constant rate
 * instead of this continuum; the difference in any figure averaged over
 * more than a zone is small, and the continuum needs no zone table.
 * The bytes outside radius r are proportional to 1 - r^2, so byte
 * offset o lies at
 *
 *     r(o) = sqrt (1 - (o / capacity) (1 - rho^2)),
 *     cylinder(o) = (1 - r) / (1 - rho) x cylinders,
 *
 * and the number of tracks follows from the capacity and the mean track
 * size: tracks = capacity / (T x (rate_outer + rate_inner) / 2).  The
 * track coordinate x = cylinder x heads is what the head sweeps through
 * while it reads: one unit of x per revolution, whatever the radius, so
 * moving from x0 to x1 takes (x1 - x0) T, and the angle under the head
 * is frac (x).  That folds head and track switches into the media
 * rates, which is how data sheets and HD Tune quote them.
 *
 * Seeks.  A seek of d cylinders takes DiskSim's three-point curve
 * (Lee's equation):
 *
 *     seek (d) = a sqrt (d - 1) + b (d - 1) + c     for d > 0, 0 for d = 0,
 *
 * with c = seek_single (one cylinder), and a, b such that a full-stroke
 * seek takes seek_full and the mean over random pairs of cylinders,
 * where d has density 2 (N - d) / N^2, is seek_avg:
 *
 *     a = (15 avg - 10 single - 5 full) / (3 sqrt N),
 *     b = (8 full + 7 single - 15 avg) / (3 N).
 *
 * Writes add `write_settle` after a seek.
 *
 * Short seeks from a measured table.  Lee's curve through three data
 * sheet points is good for seeks of a few per cent of the stroke and
 * more, but not for short ones on a drive of many cylinders: on the
 * Maxtor Atlas 10K V of DiskSim 4.0's validated models (valid/
 * dualseek_example/maxtor300g.seek, 80,512 cylinders, measured) the
 * curve through that table's own track-to-track, mean and full-stroke
 * times gives seeks of 0.01% to 1% of the stroke 1.3 to 1.8 times too
 * short (0.65 ms for 32 cylinders, measured 1.13 ms), because a short
 * seek is mostly the settling of the head, which grows with the
 * distance faster than the square root the curve gives it; on
 * DiskSim's drives of 5,000 to 11,000 cylinders the curve is within
 * 0.8 to 1.35 times there.  With `seek_table` ("CYL:TIME ..."), seeks
 * of d cylinders up to the table's last point D are interpolated
 * linearly through (1, seek_single) and the points, as DiskSim's own
 * seek curves are; beyond it Lee's form is anchored at the last point,
 *
 *     seek (d) = t_D + a sqrt (d - D) + b (d - D)     for d > D,
 *
 * with a and b such that a full stroke still takes seek_full and the
 * mean over random pairs of cylinders, the table's part included, is
 * still seek_avg (the sums are in hdd_create: the same continuous
 * density over u = d - 1 as the three-point curve's, integrated exactly
 * over each linear piece).  Without a table the three-point curve is
 * used alone, as before.
 *
 * Rotation is not drawn at random: the angle under the head is
 * frac ((t + phase) / T) at time t, so a request waits for its sector
 * to come round, and a request that continues where the last one ended
 * at the moment it ended waits nothing, while one that comes a little
 * late waits almost a whole turn, as on a real drive.  The disks of an
 * array do not synchronise their spindles, so the same sector of two
 * members passes under their heads at different moments, and a request
 * split over several members waits for the worst placed of them.  Each
 * member's phase is drawn from the run's seed, uniformly over a turn
 * (member 0's is 0, the reference): the mean over seeds of the largest
 * of n waits is then n / (n + 1) of a turn, as for independent phases,
 * and a run is the same on every machine for the same seed.  (Until
 * issue 15 they were fixed at frac (member x 0.618) of a turn, the same
 * for every seed, which more seeds could not average out.)
 *
 * Command overhead.  Every command spends `overhead` in the drive's
 * firmware before it can be served (in parallel with the mechanism).
 * A read the cache cannot answer spends `read_miss_overhead` more
 * before its seek starts: drive specifications give a read "cache not
 * hit" a longer command overhead than a hit, measured to the start of
 * the seek (IBM's Deskstar 120GXP: 0.3 against 0.1 ms; Hitachi's
 * Deskstar 7K3000: 0.5 against 0.2 ms for NCQ commands).  A read that
 * continues the stream being read ahead, or that read-ahead has
 * brought in by the time the mechanism comes to it, does not pay it.
 *
 * Cache.  `cache_size` bytes, cut into segments of `segment_size`.  A
 * read wholly inside a segment is a hit and completes after the
 * overhead alone.  A read miss takes the least recently used segment;
 * once the mechanism has read the request, it goes on reading ahead
 * into the same segment until it is needed elsewhere or has read one
 * segment beyond the request (the segment keeps the latest
 * segment_size bytes); a read served from that segment moves the limit
 * on, as the host frees room in the ring.  A read that starts inside
 * the segment being read ahead continues the stream without a seek or
 * a lost revolution: that is what makes sequential reads run at the
 * media rate.  A read that continues the host's run of contiguous
 * reads but is answered by another segment, ahead of the head, moves
 * the read-ahead on to the blocks beyond it (prefetch follows the
 * host's addresses, not the segments).  With `pre_read` on, a read miss also keeps the sectors
 * of its track that pass under the head while it waits for the first
 * requested one (from where the head lands, or from the start of the
 * track if it lands past the target): the segment then starts there.
 * Firmware that documents "pre and post read sectors" (Western
 * Digital's CacheFlow) does this; without it a miss caches from the
 * requested sector on.
 *
 * Write cache.  With `write_cache` on, a write is acknowledged once it
 * is in the cache and written to the platters later ("destaged").  Only
 * `write_cache_size` bytes of the cache hold writes (a few segments, as
 * drive firmware of the SATA II era allots them; never more than all
 * but one segment), and they leave that much less room for reads.
 * Drives of the SATA II era keep write data in segments as they keep
 * read data (Seagate's product manuals: "the same buffer space and
 * segmentation is used as set up for read functions"): a run of
 * contiguous writes fills a segment, but a write that continues no
 * cached range takes a segment of its own, however small it is.  With
 * `write_segments` set, the cache holds at most that many separate
 * writes: a few 4 KiB random writes fill it, and the drive chooses
 * among those few when it destages, which is what keeps such drives to
 * a few hundred random writes a second even over a span of a few
 * cylinders.  Without it (adaptive caches) writes are packed and the
 * bytes count, and `write_commands`, if set, bounds the separate
 * writes the firmware keeps track of (one entry each, however small):
 * the number the drive chooses among when it destages.  A
 * write is acknowledged at once only while that room lasts; a write
 * that finds none waits until a destage frees it, so a long write
 * stream is acknowledged at the pace the mechanism destages.  Destaging
 * starts once the mechanism has had no host command to serve for
 * `destage_delay`, or at once if the cached writes fill half their
 * room, in whatever bounds it (bytes, segments or entries: a few 4 KiB
 * writes fill every write segment or entry with a sliver of the bytes,
 * and waiting for the bytes would leave the mechanism idle while writes
 * queue for room); it goes in pieces of at most one segment (so a
 * read that arrives meanwhile waits for one piece at most), and it
 * competes with host reads when writes are waiting.  Writes that touch
 * or overlap merge (a rewrite of cached data costs nothing more).  The
 * next range to destage is the one of shortest positioning time (seek,
 * settle and rotational wait) among the DESTAGE_WINDOW cached ranges
 * nearest the head on each side, which is where the shortest one nearly
 * always is, at a bounded cost per choice, as drives order their
 * destaging by rotational position: sequential writes destage at close
 * to the media rate, and random writes faster than random QD1 writes by
 * as much as the choice among the cached ranges shortens positioning
 * (with tens of them over a few cylinders, several go per revolution).
 * A read wholly inside a cached write is a hit (the write drops any
 * read segment it overlaps).
 *
 * Queueing.  With `ncq` on the drive holds up to `queue_depth` commands
 * and serves next the one with the shortest positioning time (seek plus
 * rotational wait, computed exactly from the model: SPTF), ties in
 * arrival order; with ncq off it serves them in arrival order.  A drive
 * that reorders cannot say when a command will finish until it starts
 * it, so submit returns RAIDSIM_NEVER and next () also reports the
 * moments the mechanism comes free (device.h).
 *
 * Flushes (device.h).  A flush pays `overhead` like any command and
 * then waits, as ATA's FLUSH CACHE EXT does: it is not a queued
 * command, so the host's libata issues it only once the drive's queue
 * has drained (ata_std_qc_defer), and the drive completes it once its
 * cached writes are on the platters.  So a flush completes when the
 * mechanism is idle with no command waiting for it, no write waiting
 * for cache room and nothing cached.  While one waits the cached writes
 * are destaged at once, without destage_delay, in competition with the
 * host commands queued, by the usual choice of shortest positioning
 * time.  Commands that arrive while it waits are served too and delay
 * it (libata would hold them back until the flush is done; the threads
 * of a fio job issue none while their flush is in flight).  Its cost is
 * thus the drive's own: its overhead,
 * plus with write_cache on the media time of what the cache held; with
 * the write cache off, the overhead and the wait for the queue.
 *
 * Arithmetic is in double nanoseconds for positions and angles (IEEE
 * arithmetic with sqrt is exact to the last bit on every machine), and
 * every completion is rounded up to whole nanoseconds.
 */

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/device.h"
#include "raidsim/error.h"
#include "raidsim/rng.h"
#include "doneq.h"

struct hdd_params {
  uint64_t rpm;
  uint64_t seek_single;
  uint64_t seek_avg;
  uint64_t seek_full;
  char seek_table[RAIDSIM_STR_MAX];
  uint64_t write_settle;
  uint64_t heads;
  uint64_t rate_outer;
  uint64_t rate_inner;
  uint64_t overhead;
  uint64_t read_miss_overhead;
  uint64_t cache_size;
  uint64_t segment_size;
  bool pre_read;
  bool write_cache;
  uint64_t write_cache_size;
  uint64_t write_segments;
  uint64_t write_commands;
  uint64_t destage_delay;
  bool ncq;
  uint64_t queue_depth;
};

#define P(field) offsetof (struct hdd_params, field)
static const struct raidsim_param hdd_params[] = {
  { .name = "rpm", .type = RAIDSIM_PT_UINT, .offset = P (rpm),
    .def = "7200", .min = 1000, .max = 30000, .unit = "rev/min",
    .help = "Spindle speed: one revolution takes 60 / rpm seconds, half of "
    "it the mean rotational wait of a random request." },
  { .name = "seek_single", .type = RAIDSIM_PT_TIME, .offset = P (seek_single),
    .def = "0.8ms", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Track-to-track seek (one cylinder), from the data sheet." },
  { .name = "seek_avg", .type = RAIDSIM_PT_TIME, .offset = P (seek_avg),
    .def = "8.5ms", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Average seek over random pairs of cylinders, from the data "
    "sheet (reads)." },
  { .name = "seek_full", .type = RAIDSIM_PT_TIME, .offset = P (seek_full),
    .def = "18ms", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Full-stroke seek, from the data sheet." },
  { .name = "seek_table", .type = RAIDSIM_PT_STRING,
    .offset = P (seek_table), .def = "",
    .help = "Measured short seeks, \"CYL:TIME CYL:TIME ...\" (distance in "
    "cylinders, 2 or more, rising; a time with its unit), as DiskSim's "
    "seek curves give them: seeks up to the last point are interpolated "
    "through (1, seek_single) and the points, longer ones follow Lee's "
    "curve from the last point, keeping seek_avg and seek_full.  Empty: "
    "Lee's three-point curve for every distance." },
  { .name = "write_settle", .type = RAIDSIM_PT_TIME,
    .offset = P (write_settle), .def = "0", .min = 0,
    .max = RAIDSIM_NS_PER_S,
    .help = "Extra settling time of a write after a seek (data sheets "
    "quote write seeks about this much longer than reads)." },
  { .name = "heads", .type = RAIDSIM_PT_UINT, .offset = P (heads),
    .def = "4", .min = 1, .max = 64, .unit = "surfaces",
    .help = "Recording surfaces: tracks per cylinder.  With the capacity "
    "and the rates it gives the number of cylinders." },
  { .name = "rate_outer", .type = RAIDSIM_PT_RATE, .offset = P (rate_outer),
    .def = "150MB/s", .min = 1000000,
    .help = "Sustained media rate at the start of the disk (outer zone), "
    "as HD Tune's maximum shows it." },
  { .name = "rate_inner", .type = RAIDSIM_PT_RATE, .offset = P (rate_inner),
    .def = "75MB/s", .min = 1000000,
    .help = "Sustained media rate at the end of the disk (inner zone); "
    "the rate falls linearly with radius in between." },
  { .name = "overhead", .type = RAIDSIM_PT_TIME, .offset = P (overhead),
    .def = "50us", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Firmware time per command before it is served." },
  { .name = "read_miss_overhead", .type = RAIDSIM_PT_TIME,
    .offset = P (read_miss_overhead), .def = "0", .min = 0,
    .max = RAIDSIM_NS_PER_S,
    .help = "More firmware time, on top of overhead, for a read the cache "
    "cannot answer, before its seek starts (data sheets' command overhead "
    "for a read \"cache not hit\" less that for a hit)." },
  { .name = "cache_size", .type = RAIDSIM_PT_SIZE, .offset = P (cache_size),
    .def = "16M", .min = 0, .max = UINT64_C (1) << 30,
    .help = "On-drive cache (read segments and cached writes); 0: none, "
    "no read-ahead and no write cache." },
  { .name = "segment_size", .type = RAIDSIM_PT_SIZE,
    .offset = P (segment_size), .def = "1M", .min = 4096,
    .max = UINT64_C (1) << 30,
    .help = "Cache segment: what one read stream keeps, and how far the "
    "drive reads ahead beyond a request." },
  { .name = "pre_read", .type = RAIDSIM_PT_BOOL, .offset = P (pre_read),
    .def = "false",
    .help = "A read miss also keeps the sectors of its track that pass "
    "under the head while it waits for the requested one (\"pre and post "
    "read sectors\", as Western Digital documents its CacheFlow); off: "
    "a miss caches from the requested sector on." },
  { .name = "write_cache", .type = RAIDSIM_PT_BOOL, .offset = P (write_cache),
    .def = "true",
    .help = "Acknowledge writes once cached and write them to the "
    "platters later (the drive's write cache setting)." },
  { .name = "write_cache_size", .type = RAIDSIM_PT_SIZE,
    .offset = P (write_cache_size), .def = "2M", .min = 4096,
    .max = UINT64_C (1) << 30,
    .help = "Room for cached writes not yet on the platters: the few "
    "segments of the cache the firmware gives to write data (at most "
    "all but one segment).  Writes are acknowledged at once while there "
    "is room, and at the pace of destaging once it is full." },
  { .name = "write_segments", .type = RAIDSIM_PT_UINT,
    .offset = P (write_segments), .def = "0", .min = 0, .max = 65536,
    .unit = "segments",
    .help = "Firmware that keeps write data in its read segments holds "
    "each write that continues no cached range in a segment of its own, "
    "however small: at most this many separate writes wait, and "
    "destaging chooses among those few (drives of the SATA II era: "
    "write_cache_size / segment_size).  0: writes are packed into "
    "write_cache_size, as in adaptive caches." },
  { .name = "write_commands", .type = RAIDSIM_PT_UINT,
    .offset = P (write_commands), .def = "0", .min = 0, .max = 65536,
    .unit = "writes",
    .help = "Firmware that packs write data (adaptive caches) still "
    "keeps one entry per separate cached write (a write that continues "
    "a cached range joins it): at most this many wait, and destaging "
    "chooses among them.  0: only the bytes (and write_segments) "
    "count." },
  { .name = "destage_delay", .type = RAIDSIM_PT_TIME,
    .offset = P (destage_delay), .def = "2ms", .min = 0,
    .max = 10 * RAIDSIM_NS_PER_S,
    .help = "How long the mechanism must be idle before it writes cached "
    "writes to the platters (sooner when writes wait for room)." },
  { .name = "ncq", .type = RAIDSIM_PT_BOOL, .offset = P (ncq),
    .def = "true",
    .help = "Reorder queued commands, shortest positioning time first; "
    "off: serve them in arrival order." },
  { .name = "queue_depth", .type = RAIDSIM_PT_UINT, .offset = P (queue_depth),
    .def = "32", .min = 1, .max = 256, .unit = "commands",
    .help = "Commands the drive considers when it chooses (NCQ: 32)." },
  RAIDSIM_PARAM_END,
};
#undef P

struct seg {
  uint64_t lo, hi;              /* cached bytes [lo, hi); empty if equal */
  uint64_t used;                /* LRU stamp */
};

struct extent {
  uint64_t off, len;
};

/* Points a seek_table may have. */
#define HDD_SEEK_POINTS 64

/* Cached ranges considered on each side of the head when destaging. */
#define DESTAGE_WINDOW 16

enum op_kind { OP_NONE, OP_READ, OP_WRITE, OP_DESTAGE };

/* What serving a command (or a destage) would take, from now. */
struct plan {
  enum op_kind kind;
  struct raidsim_io *io;        /* OP_READ, OP_WRITE */
  unsigned ext;                 /* OP_DESTAGE: index into dirty */
  int seg;                      /* OP_READ: segment it fills, or -1 */
  uint64_t from, to;            /* bytes the mechanism moves */
  uint64_t pre;                 /* OP_READ: a new segment starts here */
  double start, end;            /* ns */
};

struct hdd {
  struct hdd_params p;
  uint64_t capacity;
  double T;                     /* ns per revolution */
  double phase;                 /* ns: this spindle's lead over member 0 */
  double rho;                   /* inner radius / outer radius */
  double ncyl;                  /* cylinders */
  double sa, sb, sc;            /* seek curve, ns */
  /* seek_table: u = cylinders - 1 and ns at each point (su[0] = 0, st[0]
   * = seek_single), and the tail beyond the last, t_D + ta sqrt (u - uD)
   * + tb (u - uD).
   */
  unsigned nseek;               /* points, 0 if no table */
  double su[HDD_SEEK_POINTS + 1], st[HDD_SEEK_POINTS + 1];
  double ta, tb;

  /* The mechanism: busy with op until busy_until, or idle at head_cyl. */
  struct plan op;
  bool busy;
  raidsim_ns busy_until;
  int64_t head_cyl;
  uint64_t head_off;            /* the byte after the last one moved */
  raidsim_ns free_at;           /* when the last operation ended */

  /* Read-ahead into segment ra_seg: the head is at x = ra_x0 at time
   * ra_t0 and moves one track unit per revolution until ra_xlim
   * (byte ra_limit).
   */
  bool ra;
  int ra_seg;
  double ra_t0, ra_x0, ra_xlim;
  uint64_t ra_limit;

  struct raidsim_ioq arrivals;  /* in overhead; io->done: when ready */
  struct raidsim_ioq media;     /* waiting for the mechanism */
  struct raidsim_ioq wwait;     /* writes waiting for cache room */
  struct raidsim_ioq flushq;    /* flushes waiting (see the top) */
  struct doneq done;

  struct seg *segs;
  unsigned nseg;
  uint64_t stamp;
  struct extent *dirty;         /* cached writes, sorted, disjoint */
  unsigned ndirty, dirty_cap;
  uint64_t dirty_bytes, dirty_max;
  uint64_t write_segs;          /* segments cached writes may hold */
  uint64_t dirty_segs;          /* segments the cached ranges hold */
  uint64_t write_cmds;          /* separate cached writes allowed */
  uint64_t destaging;           /* bytes being written out now */

  /* The host's reads as they arrive: the run of contiguous ones that
   * the latest belongs to is [stream_lo, host_end).
   */
  uint64_t stream_lo, host_end;
};

/* The seek curve's a sqrt N and b N (see the top of the file). */
static void
lee_terms (const struct hdd_params *p, double *A, double *B)
{
  double c = p->seek_single, avg = p->seek_avg, full = p->seek_full;

  *A = (15 * avg - 10 * c - 5 * full) / 3;
  *B = (8 * full + 7 * c - 15 * avg) / 3;
}

/* Parse seek_table into u = d - 1 (cylinders beyond one) and ns; u[0],
 * t[0] are (0, seek_single).  Returns the number of points after the
 * first, or -1 with the error set.
 */
static int
seek_table_parse (const struct hdd_params *p, double *u, double *t)
{
  static const struct raidsim_param time_param = {
    .name = "seek_table", .type = RAIDSIM_PT_TIME,
  };
  const char *c = p->seek_table;
  int n = 0;

  u[0] = 0;
  t[0] = p->seek_single;
  for (;;) {
    char word[64], *colon, *end;
    size_t len;
    unsigned long long cyl;
    uint64_t ns;

    while (*c == ' ' || *c == '\t' || *c == ',')
      c++;
    if (*c == '\0')
      return n;
    len = strcspn (c, " \t,");
    if (len >= sizeof word) {
      raidsim_set_error ("seek_table: point %d is too long", n + 1);
      return -1;
    }
    memcpy (word, c, len);
    word[len] = '\0';
    c += len;
    colon = strchr (word, ':');
    if (colon == NULL) {
      raidsim_set_error ("seek_table: \"%s\": expected CYLINDERS:TIME",
                         word);
      return -1;
    }
    *colon = '\0';
    errno = 0;
    cyl = strtoull (word, &end, 10);
    if (end == word || *end != '\0' || errno != 0 || cyl < 2 ||
        cyl > UINT64_C (1) << 40) {
      raidsim_set_error ("seek_table: \"%s\": the distance must be a whole "
                         "number of cylinders, 2 or more", word);
      return -1;
    }
    if (raidsim_param_parse (&time_param, colon + 1, &ns) == -1)
      return -1;
    if (n == HDD_SEEK_POINTS) {
      raidsim_set_error ("seek_table: more than %d points",
                         HDD_SEEK_POINTS);
      return -1;
    }
    n++;
    u[n] = (double) (cyl - 1);
    t[n] = (double) ns;
    if (u[n] <= u[n - 1] || t[n] < t[n - 1]) {
      raidsim_set_error ("seek_table: point %llu:%s: distances must rise and "
                         "times must not fall (after %.0f cylinders, %.3f ms)",
                         cyl, colon + 1, u[n - 1] + 1, t[n - 1] / 1e6);
      return -1;
    }
  }
}

/* The tail of a seek table (see the top of the file): a and b with
 *
 *   t_D + a sqrt L + b L = full,
 *   table + t_D L^2 / N^2 + a (8/15) L^(5/2) / N^2 + b L^3 / (3 N^2) = avg,
 *
 * where L = N - u_D, and table is the integral of the density 2 (N - u)
 * / N^2 times the linear pieces over [0, u_D].  Returns -1 (error set)
 * if the table reaches past N or leaves a tail that does not rise.
 */
static int
seek_table_fit (const struct hdd_params *p, double ncyl, const double *u,
                const double *t, unsigned n, double *a, double *b)
{
  double N = ncyl, L, tab = 0, r1, r2, a11, a12, a21, a22, det;
  unsigned i;

  if (u[n] >= N) {
    raidsim_set_error ("seek_table: its last point (%.0f cylinders) lies "
                       "beyond the drive's %.0f cylinders", u[n] + 1, N);
    return -1;
  }
  for (i = 1; i <= n; ++i) {
    /* t (u) = al + be u on [u[i-1], u[i]]; the integral of 2 (N - u)
     * (al + be u) / N^2 is 2 / N^2 (al N u + (be N - al) u^2 / 2 -
     * be u^3 / 3).
     */
    double be = (t[i] - t[i - 1]) / (u[i] - u[i - 1]);
    double al = t[i - 1] - be * u[i - 1];
#define F(x) (al * N * (x) + (be * N - al) * (x) * (x) / 2 - \
              be * (x) * (x) * (x) / 3)
    tab += 2 / (N * N) * (F (u[i]) - F (u[i - 1]));
#undef F
  }
  L = N - u[n];
  a11 = sqrt (L);
  a12 = L;
  r1 = p->seek_full - t[n];
  a21 = 8.0 / 15 * L * L * sqrt (L) / (N * N);
  a22 = L * L * L / (3 * N * N);
  r2 = p->seek_avg - tab - t[n] * L * L / (N * N);
  det = a11 * a22 - a12 * a21;
  *a = (r1 * a22 - a12 * r2) / det;
  *b = (a11 * r2 - a21 * r1) / det;
  /* Rising: a >= 0 and the slope at full stroke, a / (2 sqrt L) + b,
   * >= 0.
   */
  if (*a < 0 || *a / (2 * sqrt (L)) + *b < 0) {
    raidsim_set_error ("seek_table: with these points, seek_avg (%.3fms) "
                       "and seek_full (%.3fms) leave a seek curve beyond "
                       "%.0f cylinders that does not rise with distance",
                       p->seek_avg / 1e6, p->seek_full / 1e6, u[n] + 1);
    return -1;
  }
  return 0;
}

static int
hdd_check (const void *params)
{
  const struct hdd_params *p = params;
  double A, B;

  if (p->seek_single > p->seek_avg || p->seek_avg > p->seek_full) {
    raidsim_set_error ("seek_avg: must lie between seek_single and "
                       "seek_full");
    return -1;
  }
  /* The curve must rise with distance: a >= 0, and its slope at full
   * stroke, a / (2 sqrt N) + b, >= 0.
   */
  lee_terms (p, &A, &B);
  if (A < 0 || A / 2 + B < 0) {
    raidsim_set_error ("seek_avg: with these seek_single and seek_full, "
                       "Lee's seek curve only rises with distance for "
                       "seek_avg from %.3fms to %.3fms",
                       (2.0 * p->seek_single + p->seek_full) / 3e6,
                       (4.0 * p->seek_single + 11.0 * p->seek_full) / 15e6);
    return -1;
  }
  if (p->rate_inner > p->rate_outer) {
    raidsim_set_error ("rate_inner: must not exceed rate_outer (the outer "
                       "tracks are the longest)");
    return -1;
  }
  if (p->cache_size && p->segment_size > p->cache_size) {
    raidsim_set_error ("segment_size: larger than cache_size");
    return -1;
  }
  {
    double u[HDD_SEEK_POINTS + 1], t[HDD_SEEK_POINTS + 1];
    int n = seek_table_parse (p, u, t);

    if (n == -1)
      return -1;
    if (n > 0 && t[n] > p->seek_full) {
      raidsim_set_error ("seek_table: its last point (%.3fms) is longer "
                         "than seek_full", t[n] / 1e6);
      return -1;
    }
  }
  return 0;
}

static void
hdd_destroy (void *dev)
{
  struct hdd *d = dev;

  if (d == NULL)
    return;
  free (d->segs);
  free (d->dirty);
  doneq_free (&d->done);
  free (d);
}

static void *
hdd_create (const void *params, uint64_t capacity)
{
  const struct hdd_params *p = params;
  struct hdd *d;
  double A, B, tracks;

  if (hdd_check (params) == -1)
    return NULL;
  d = calloc (1, sizeof *d);
  if (d == NULL)
    goto nomem;
  d->p = *p;
  d->capacity = capacity;
  d->T = 60e9 / p->rpm;
  d->rho = (double) p->rate_inner / p->rate_outer;
  tracks = capacity / (d->T / 1e9 * (p->rate_outer + p->rate_inner) / 2);
  d->ncyl = tracks / p->heads;
  if (d->ncyl < 2) {
    raidsim_set_error ("capacity: %" PRIu64 " bytes fill fewer than two "
                       "cylinders at these rates and heads", capacity);
    hdd_destroy (d);
    return NULL;
  }
  lee_terms (p, &A, &B);
  d->sa = A / sqrt (d->ncyl);
  d->sb = B / d->ncyl;
  d->sc = p->seek_single;
  {
    int n = seek_table_parse (p, d->su, d->st);

    if (n == -1 ||
        (n > 0 && seek_table_fit (p, d->ncyl, d->su, d->st, n,
                                  &d->ta, &d->tb) == -1)) {
      hdd_destroy (d);
      return NULL;
    }
    d->nseek = n;
  }
  raidsim_ioq_init (&d->arrivals);
  raidsim_ioq_init (&d->media);
  raidsim_ioq_init (&d->wwait);
  raidsim_ioq_init (&d->flushq);
  if (doneq_init (&d->done) == -1)
    goto nomem;

  if (p->cache_size) {
    d->nseg = p->cache_size / p->segment_size;
    d->segs = calloc (d->nseg, sizeof d->segs[0]);
    /* Cached writes may take write_cache_size, and never more than all
     * but one segment; they are 4 KiB or more apart unless they merge,
     * which bounds the table.
     */
    d->dirty_max = p->write_cache ? p->cache_size - p->segment_size : 0;
    if (d->dirty_max > p->write_cache_size)
      d->dirty_max = p->write_cache_size;
    d->write_segs = p->write_segments ? p->write_segments : UINT64_MAX;
    d->write_cmds = p->write_commands ? p->write_commands : UINT64_MAX;
    d->dirty_cap = d->dirty_max / 4096 + 64;
    d->dirty = calloc (d->dirty_cap, sizeof d->dirty[0]);
    if (d->segs == NULL || d->dirty == NULL)
      goto nomem;
  }
  return d;

 nomem:
  raidsim_set_error ("hdd: out of memory");
  hdd_destroy (d);
  return NULL;
}

/* The spindle of member m leads member 0's by a fraction of a turn
 * drawn uniformly from the seed (see the top of the file): independent
 * phases, as unsynchronised spindles have, that more seeds average
 * over.  Member 0 is the reference, at phase 0, so that a single
 * drive's run is the same whatever the seed's draws here.  The stream
 * is the seed's and the member's alone, apart from the workload's
 * (workload.c mixes in other constants).
 */
static void
hdd_place (void *dev, unsigned member, uint64_t seed)
{
  struct hdd *d = dev;
  uint64_t sm = seed ^ UINT64_C (0x6864642d70686173); /* "hdd-phas" */

  d->phase = 0;
  if (member == 0)
    return;
  raidsim_splitmix64 (&sm);
  sm ^= (uint64_t) member * UINT64_C (0xd6e8feb86659fd93);
  d->phase = (double) (raidsim_splitmix64 (&sm) >> 11) * 0x1p-53 * d->T;
}

/* ---- geometry ---- */

/* Track coordinate of byte offset o (see the top of the file). */
static double
x_of (const struct hdd *d, uint64_t o)
{
  double f = (double) o / d->capacity, c;

  if (d->rho >= 1)
    c = f;
  else
    c = (1 - sqrt (1 - f * (1 - d->rho * d->rho))) / (1 - d->rho);
  return c * d->ncyl * d->p.heads;
}

/* The byte offset at track coordinate x, rounded down. */
static uint64_t
off_of_x (const struct hdd *d, double x)
{
  double c = x / (d->ncyl * d->p.heads), f, o;

  if (d->rho >= 1)
    f = c;
  else {
    double r = 1 - c * (1 - d->rho);

    f = (1 - r * r) / (1 - d->rho * d->rho);
  }
  o = floor (f * d->capacity);
  if (o <= 0)
    return 0;
  return o >= (double) d->capacity ? d->capacity : (uint64_t) o;
}

static int64_t
cyl_of_x (const struct hdd *d, double x)
{
  double c = floor (x / d->p.heads);

  return c >= d->ncyl ? (int64_t) d->ncyl - 1 : (int64_t) c;
}

static double
seek_time (const struct hdd *d, int64_t from, int64_t to)
{
  int64_t n = from > to ? from - to : to - from;

  if (n == 0)
    return 0;
  if (d->nseek) {
    double u = (double) (n - 1);
    unsigned i;

    if (u >= d->su[d->nseek]) {
      double v = u - d->su[d->nseek];

      return d->st[d->nseek] + d->ta * sqrt (v) + d->tb * v;
    }
    for (i = 1; d->su[i] < u; ++i)
      ;
    return d->st[i - 1] + (d->st[i] - d->st[i - 1]) * (u - d->su[i - 1]) /
      (d->su[i] - d->su[i - 1]);
  }
  return d->sa * sqrt ((double) (n - 1)) + d->sb * (n - 1) + d->sc;
}

/* When the mechanism, free at time t on cylinder cyl, is on the track
 * of x: seek, and settle for a write.
 */
static double
arrival (const struct hdd *d, int64_t cyl, double t, double x, bool write)
{
  int64_t to = cyl_of_x (d, x);
  double arrive = t + seek_time (d, cyl, to);

  if (write && to != cyl)
    arrive += d->p.write_settle;
  return arrive;
}

/* When the mechanism, free at time t on cylinder cyl, can start moving
 * data at x: seek, settle for a write, then wait for the sector.
 */
static double
position (const struct hdd *d, int64_t cyl, double t, double x, bool write)
{
  double arrive = arrival (d, cyl, t, x, write), wait;

  /* frac (x) - frac (arrive / T); x - floor (x) is exact and cheaper
   * than fmod.
   */
  {
    double turns = (arrive + d->phase) / d->T;

    wait = (x - floor (x)) - (turns - floor (turns));
  }
  if (wait < 0)
    wait += 1;
  wait *= d->T;
  /* Completions are rounded up to whole nanoseconds, so a request that
   * continues exactly where the last one ended finds its sector a
   * fraction of a nanosecond gone: that is not a lost revolution.
   */
  if (wait > d->T - 2.0)
    wait = 0;
  return arrive + wait;
}

/* ---- cache ---- */

/* The head's position during read-ahead at time t, and the bytes the
 * read-ahead segment holds by then.
 */
static double
ra_x (const struct hdd *d, double t)
{
  double x = d->ra_x0 + (t > d->ra_t0 ? t - d->ra_t0 : 0) / d->T;

  return x < d->ra_xlim ? x : d->ra_xlim;
}

static uint64_t
seg_hi (const struct hdd *d, int s, double t)
{
  uint64_t hi = d->segs[s].hi;

  if (d->ra && s == d->ra_seg) {
    double x = ra_x (d, t);
    /* At the limit, the limit itself: off_of_x rounds down, and a
     * byte short would cost a read that ends there a whole turn.
     */
    uint64_t h = x >= d->ra_xlim ? d->ra_limit : off_of_x (d, x);

    if (h > d->ra_limit)
      h = d->ra_limit;
    if (h > hi)
      hi = h;
  }
  return hi;
}

/* The first byte segment s still holds at t.  A segment holds at most
 * segment_size bytes: while it is being read ahead into, it is a ring,
 * and what the head adds overwrites the oldest bytes, so the range
 * behind the latest segment_size bytes is gone (Seagate's product
 * manuals: "each cache segment is actually a self-contained circular
 * buffer", Enterprise Performance 10K HDD v8, section 4.5).  Without
 * this a stream read ahead pass after pass over a span smaller than the
 * cache kept all of it "cached" in one 1 MB segment.
 */
static uint64_t
seg_lo (const struct hdd *d, int s, double t)
{
  uint64_t lo = d->segs[s].lo;

  if (d->ra && s == d->ra_seg) {
    uint64_t hi = seg_hi (d, s, t);

    if (hi - lo > d->p.segment_size)
      lo = hi - d->p.segment_size;
  }
  return lo;
}

static void
seg_fill (struct hdd *d, int s, uint64_t hi)
{
  struct seg *g = &d->segs[s];

  g->hi = hi;
  if (g->hi - g->lo > d->p.segment_size)
    g->lo = g->hi - d->p.segment_size;
  g->used = ++d->stamp;
}

/* The cylinder the head is on at t, as seen from a transfer that would
 * start at byte from: one that continues where the last transfer ended
 * needs no seek even if that crosses into the next cylinder, because
 * the sustained media rates already include such switches (track skew).
 */
static int64_t
head_at (const struct hdd *d, double t, uint64_t from, double x_from)
{
  if (d->ra)
    return cyl_of_x (d, ra_x (d, t));
  if (from == d->head_off)
    return cyl_of_x (d, x_from);
  return d->head_cyl;
}

/* The mechanism is needed at t: read-ahead stops where it has got to. */
static void
ra_stop (struct hdd *d, double t)
{
  if (!d->ra)
    return;
  seg_fill (d, d->ra_seg, seg_hi (d, d->ra_seg, t));
  d->head_cyl = cyl_of_x (d, ra_x (d, t));
  d->ra = false;
}

static unsigned dirty_find (const struct hdd *d, uint64_t off);

/* The host has read up to byte end of the segment being read ahead:
 * the segment is a ring, so read-ahead may go on to one segment beyond
 * that.  Without this a stream served from the cache would stop the
 * read-ahead one segment past the last read that missed, and the next
 * miss would wait for its sector to come round again.  If the
 * read-ahead had already stopped, it starts again where it stopped,
 * once that sector comes under the head.
 */
static void
ra_extend (struct hdd *d, uint64_t end, double t)
{
  uint64_t limit = end + d->p.segment_size;
  double x = ra_x (d, t);

  if (limit > d->capacity)
    limit = d->capacity;
  if (limit <= d->ra_limit)
    return;
  if (x >= d->ra_xlim) {
    seg_fill (d, d->ra_seg, d->ra_limit);
    d->ra_t0 = position (d, cyl_of_x (d, x), t, x, false);
    d->ra_x0 = x;
  }
  d->ra_limit = limit;
  d->ra_xlim = x_of (d, limit);
}

/* Whether read io continues the host's current run of contiguous
 * reads (and is not its first).
 */
static bool
in_stream (const struct hdd *d, const struct raidsim_io *io)
{
  return d->stream_lo < io->offset && io->offset < d->host_end;
}

/* The host's stream has run ahead of the head on data another segment
 * held, up to byte end: read-ahead moves there.  Prefetch fetches "data
 * in contiguous logical blocks on the disc immediately beyond that which
 * was requested by a Read command", and stays on "as long as sequential
 * read operations request contiguous blocks of data" (Seagate's product
 * manuals, Prefetch operation and ARLA), whichever segment answered the
 * read.  The read-ahead segment starts again, empty, at end (what it
 * held is behind the host), once the head has got there.  Without this
 * a stream that read through data older segments held (CrystalDiskMark
 * going over its 50 MB file pass after pass) left its read-ahead
 * behind, started a new segment further on, and the segments piled up
 * copies of the file's tail.
 */
static void
ra_jump (struct hdd *d, uint64_t end, double t)
{
  double x = ra_x (d, t), xe = x_of (d, end);
  struct seg *g = &d->segs[d->ra_seg];

  g->lo = g->hi = end;
  g->used = ++d->stamp;
  d->ra_x0 = xe;
  d->ra_t0 = position (d, cyl_of_x (d, x), t, xe, false);
  d->ra_limit = end + d->p.segment_size;
  if (d->ra_limit > d->capacity)
    d->ra_limit = d->capacity;
  d->ra_xlim = x_of (d, d->ra_limit);
}

static bool
read_hit (struct hdd *d, const struct raidsim_io *io, double t)
{
  unsigned s, e;

  /* Wholly inside a cached write (ranges that touch are merged, so one
   * range holds it if any does).
   */
  e = dirty_find (d, io->offset);
  if (e < d->ndirty && d->dirty[e].off <= io->offset &&
      io->offset + io->len <= d->dirty[e].off + d->dirty[e].len &&
      io->len > 0)
    return true;

  for (s = 0; s < d->nseg; ++s) {
    struct seg *g = &d->segs[s];

    if (seg_lo (d, s, t) <= io->offset &&
        io->offset + io->len <= seg_hi (d, s, t) &&
        io->len > 0) {
      g->used = ++d->stamp;
      if (d->ra && (int) s == d->ra_seg)
        ra_extend (d, io->offset + io->len, t);
      else if (d->ra && in_stream (d, io) &&
               io->offset + io->len > seg_hi (d, d->ra_seg, t) &&
               io->offset <= d->ra_limit)
        ra_jump (d, io->offset + io->len, t);
      return true;
    }
  }
  return false;
}

/* Empty segment s.  A read under way into it then fills no segment:
 * what it would add to would no longer be there.
 */
static void
seg_drop (struct hdd *d, unsigned s)
{
  d->segs[s].lo = d->segs[s].hi = 0;
  if (d->busy && d->op.kind == OP_READ && d->op.seg == (int) s)
    d->op.seg = -1;
}

/* A write makes cached copies of its range stale. */
static void
segs_drop_range (struct hdd *d, uint64_t off, uint64_t len, double t)
{
  unsigned s;

  for (s = 0; s < d->nseg; ++s) {
    struct seg *g = &d->segs[s];

    if (g->lo < off + len && off < seg_hi (d, s, t)) {
      if (d->ra && (int) s == d->ra_seg)
        ra_stop (d, t);
      seg_drop (d, s);
    }
  }
}

/* Cached writes leave (cache_size - dirty_bytes) / segment_size
 * segments for reads: drop the least recently used beyond that.
 */
static void
segs_trim (struct hdd *d)
{
  uint64_t room = (d->p.cache_size - d->dirty_bytes - d->destaging)
    / d->p.segment_size;
  unsigned s, valid = 0;

  for (s = 0; s < d->nseg; ++s)
    if (d->segs[s].hi > d->segs[s].lo || (d->ra && (int) s == d->ra_seg))
      valid++;
  while (valid > room && valid > 1) {
    int lru = -1;

    for (s = 0; s < d->nseg; ++s)
      if (d->segs[s].hi > d->segs[s].lo && !(d->ra && (int) s == d->ra_seg) &&
          (lru < 0 || d->segs[s].used < d->segs[lru].used))
        lru = s;
    if (lru < 0)
      break;
    seg_drop (d, lru);
    valid--;
  }
}

/* The segment a read miss fills: an empty one, or the least recently
 * used.
 */
static int
seg_take (struct hdd *d, uint64_t off)
{
  unsigned s;
  int pick = -1;

  for (s = 0; s < d->nseg; ++s) {
    if (d->segs[s].hi == d->segs[s].lo) {
      pick = s;
      break;
    }
    if (pick < 0 || d->segs[s].used < d->segs[pick].used)
      pick = s;
  }
  if (pick >= 0) {
    d->segs[pick].lo = d->segs[pick].hi = off;
    d->segs[pick].used = ++d->stamp;
  }
  return pick;
}

/* Segments a cached range of len bytes holds. */
static uint64_t
segs_for (const struct hdd *d, uint64_t len)
{
  return (len + d->p.segment_size - 1) / d->p.segment_size;
}

/* Room for a write of len bytes at off (counted whole, even if it
 * overlaps cached data): bytes, and, with write_segments, segments.
 * There cached write data lives in segments as read data does, a range
 * of them per run of contiguous writes, so a drive with few write
 * segments holds few separate writes, however small: that, not the
 * bytes, is what bounds random writes.
 */
static bool
dirty_room (const struct hdd *d, uint64_t off, uint64_t len)
{
  unsigned i, j;
  uint64_t used = segs_for (d, d->destaging), lo = off, hi = off + len;
  uint64_t old = 0;

  if (d->dirty_bytes + d->destaging + len > d->dirty_max ||
      d->ndirty >= d->dirty_cap)
    return false;
  if (d->write_cmds != UINT64_MAX) {
    /* The piece being destaged keeps its entry until it is written;
     * the ranges the write touches become one.
     */
    uint64_t n = d->ndirty + (d->destaging > 0) + 1;

    for (j = dirty_find (d, off); j < d->ndirty && d->dirty[j].off <= hi;
         ++j)
      n--;
    if (n > d->write_cmds)
      return false;
  }
  if (d->write_segs == UINT64_MAX)
    return true;
  used += d->dirty_segs;
  /* The ranges it touches become one. */
  for (j = i = dirty_find (d, off); j < d->ndirty && d->dirty[j].off <= hi;
       ++j) {
    if (d->dirty[j].off < lo)
      lo = d->dirty[j].off;
    if (d->dirty[j].off + d->dirty[j].len > hi)
      hi = d->dirty[j].off + d->dirty[j].len;
    old += segs_for (d, d->dirty[j].len);
  }
  return used - old + segs_for (d, hi - lo) <= d->write_segs;
}

/* The first cached range that ends at or after off. */
static unsigned
dirty_find (const struct hdd *d, uint64_t off)
{
  unsigned lo = 0, hi = d->ndirty;

  while (lo < hi) {
    unsigned mid = lo + (hi - lo) / 2;

    if (d->dirty[mid].off + d->dirty[mid].len < off)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Cache a write: its range and every cached range it touches or
 * overlaps become one.
 */
static void
dirty_add (struct hdd *d, uint64_t off, uint64_t len)
{
  unsigned i = dirty_find (d, off), j = i;
  uint64_t lo = off, hi = off + len, old = 0, oldsegs = 0;

  while (j < d->ndirty && d->dirty[j].off <= hi) {
    if (d->dirty[j].off < lo)
      lo = d->dirty[j].off;
    if (d->dirty[j].off + d->dirty[j].len > hi)
      hi = d->dirty[j].off + d->dirty[j].len;
    old += d->dirty[j].len;
    oldsegs += segs_for (d, d->dirty[j].len);
    j++;
  }
  if (j == i) {
    memmove (&d->dirty[i + 1], &d->dirty[i],
             (d->ndirty - i) * sizeof d->dirty[0]);
    d->ndirty++;
  }
  else if (j > i + 1) {
    memmove (&d->dirty[i + 1], &d->dirty[j],
             (d->ndirty - j) * sizeof d->dirty[0]);
    d->ndirty -= j - i - 1;
  }
  d->dirty[i] = (struct extent) { lo, hi - lo };
  d->dirty_bytes += (hi - lo) - old;
  d->dirty_segs += segs_for (d, hi - lo) - oldsegs;
  segs_trim (d);
}

/* ---- planning and serving ---- */

/* Whether the cached writes fill half their room, counted in what
 * bounds it: bytes, and with write_segments or write_commands, segments
 * or entries too (a few 4 KiB writes can fill every write segment or
 * entry while using a sliver of the bytes).
 */
static bool
dirty_half_full (const struct hdd *d)
{
  if (d->dirty_bytes + d->destaging >= d->dirty_max / 2)
    return true;
  if (d->write_cmds != UINT64_MAX &&
      2 * (d->ndirty + (d->destaging > 0)) >= d->write_cmds)
    return true;
  return d->write_segs != UINT64_MAX &&
    2 * (d->dirty_segs + segs_for (d, d->destaging)) >= d->write_segs;
}

/* When an idle mechanism starts destaging, if nothing comes first: after
 * destage_delay, or at once when the cached writes fill half their
 * room.
 */
static raidsim_ns
destage_at (const struct hdd *d)
{
  if (d->busy || d->ndirty == 0 || d->media.head)
    return RAIDSIM_NEVER;
  if (d->flushq.head || dirty_half_full (d))
    return d->free_at;
  return d->free_at + d->p.destage_delay;
}

/* A transfer that starts where the last one ended, at the moment it
 * ended, goes on without a seek or a rotational wait.  Saying so
 * outright, rather than working it out from the angle, keeps the
 * nanosecond rounding of completions from adding up over a long stream
 * into a lost revolution.
 */
static bool
streaming (const struct hdd *d, uint64_t from, raidsim_ns t)
{
  return !d->ra && !d->busy && from == d->head_off && t == d->free_at &&
    d->free_at > 0;
}

static void
plan_read (struct hdd *d, struct raidsim_io *io, double t, struct plan *pl)
{
  uint64_t end = io->offset + io->len;
  unsigned s;

  pl->kind = OP_READ;
  pl->io = io;
  pl->to = end;

  /* Continuing the stream being read ahead: no seek, no wait. */
  if (d->ra) {
    uint64_t hi = seg_hi (d, d->ra_seg, t);
    double x = ra_x (d, t);

    if (seg_lo (d, d->ra_seg, t) <= io->offset && io->offset <= hi) {
      pl->seg = d->ra_seg;
      pl->from = hi;
      pl->pre = hi;
      if (x < d->ra_xlim) {
        pl->start = t;
        pl->end = t + (x_of (d, end) - x) * d->T;
      }
      else {
        pl->start = position (d, cyl_of_x (d, x), t, x, false);
        pl->end = pl->start + (x_of (d, end) - x) * d->T;
      }
      return;
    }
  }
  /* A read that starts inside (or right after) a cached segment reads
   * only what is missing, into that segment.
   */
  pl->seg = -1;
  pl->from = io->offset;
  for (s = 0; s < d->nseg; ++s) {
    struct seg *g = &d->segs[s];

    if (g->hi > g->lo && g->lo <= io->offset && io->offset <= g->hi &&
        !(d->ra && (int) s == d->ra_seg)) {
      pl->seg = s;
      pl->from = g->hi;
      break;
    }
  }
  pl->pre = pl->from;
  {
    double x0 = x_of (d, pl->from);

    if (streaming (d, pl->from, t))
      pl->start = t;
    else {
      int64_t cyl = head_at (d, t, pl->from, x0);
      /* A miss's seek starts once the firmware has spent
       * read_miss_overhead on it (io->done is when it arrived).
       */
      double t0 = (double) io->done + d->p.read_miss_overhead;

      if (t0 < t)
        t0 = t;
      pl->start = position (d, cyl, t0, x0, false);
      /* Pre-read: what passes under the head on the target's track
       * between landing and the target (see the top of the file).
       */
      if (d->p.pre_read && pl->seg < 0) {
        double xp = x0 - (pl->start - arrival (d, cyl, t0, x0, false)) /
          d->T;
        uint64_t pre;

        if (xp < floor (x0))
          xp = floor (x0);
        pre = off_of_x (d, xp);
        if (pre < pl->from)
          pl->pre = pre;
      }
    }
    pl->end = pl->start + (x_of (d, end) - x0) * d->T;
  }
}

static void
plan_write (struct hdd *d, enum op_kind kind, uint64_t off, uint64_t len,
            double t, struct plan *pl)
{
  double x0 = x_of (d, off);

  pl->kind = kind;
  pl->seg = -1;
  pl->from = off;
  pl->pre = off;
  pl->to = off + len;
  pl->start = streaming (d, off, t) ? t
    : position (d, head_at (d, t, off, x0), t, x0, true);
  pl->end = pl->start + (x_of (d, off + len) - x0) * d->T;
}

static void
plan_destage (struct hdd *d, unsigned e, double t, struct plan *pl)
{
  uint64_t len = d->dirty[e].len;

  if (len > d->p.segment_size)
    len = d->p.segment_size;
  plan_write (d, OP_DESTAGE, d->dirty[e].off, len, t, pl);
  pl->io = NULL;
  pl->ext = e;
}

static void
complete (struct hdd *d, struct raidsim_io *io, raidsim_ns t)
{
  doneq_push (&d->done, io, t);
}

static raidsim_ns
ceil_ns (double t)
{
  return (raidsim_ns) ceil (t);
}

/* Writes waiting for room, in order, as far as there is room now. */
static void
admit_waiting_writes (struct hdd *d, raidsim_ns t)
{
  struct raidsim_io *io;

  while ((io = d->wwait.head) != NULL && dirty_room (d, io->offset, io->len)) {
    raidsim_ioq_pop (&d->wwait);
    dirty_add (d, io->offset, io->len);
    complete (d, io, t);
  }
}

/* The mechanism finishes its operation at t. */
static void
finish_op (struct hdd *d, raidsim_ns t)
{
  struct plan *op = &d->op;

  d->busy = false;
  d->head_cyl = cyl_of_x (d, x_of (d, op->to > 0 ? op->to - 1 : 0));
  d->head_off = op->to;
  d->free_at = t;
  switch (op->kind) {
  case OP_READ:
    complete (d, op->io, t);
    if (op->seg >= 0) {
      seg_fill (d, op->seg, op->to);
      /* Read ahead one segment beyond the request. */
      d->ra = true;
      d->ra_seg = op->seg;
      d->ra_t0 = op->end;
      d->ra_x0 = x_of (d, op->to);
      d->ra_limit = op->to + d->p.segment_size;
      if (d->ra_limit > d->capacity)
        d->ra_limit = d->capacity;
      d->ra_xlim = x_of (d, d->ra_limit);
    }
    break;
  case OP_WRITE:
    complete (d, op->io, t);
    break;
  case OP_DESTAGE:
    d->destaging = 0;
    admit_waiting_writes (d, t);
    break;
  case OP_NONE:
    break;
  }
  op->kind = OP_NONE;
}

static void
start_op (struct hdd *d, const struct plan *pl, raidsim_ns t)
{
  ra_stop (d, t);
  d->op = *pl;
  if (pl->kind == OP_READ && pl->seg < 0 && d->nseg)
    d->op.seg = seg_take (d, pl->pre);
  if (pl->kind == OP_WRITE)
    segs_drop_range (d, pl->from, pl->to - pl->from, t);
  /* The piece being destaged leaves the cached ranges now, so that
   * writes arriving meanwhile cannot move it; its room is freed when it
   * is on the platters.
   */
  if (pl->kind == OP_DESTAGE) {
    struct extent *e = &d->dirty[pl->ext];
    uint64_t n = pl->to - pl->from;

    d->dirty_segs -= segs_for (d, e->len);
    e->off += n;
    e->len -= n;
    d->dirty_segs += segs_for (d, e->len);
    d->dirty_bytes -= n;
    d->destaging = n;
    if (e->len == 0) {
      d->ndirty--;
      memmove (e, e + 1, (d->ndirty - pl->ext) * sizeof *e);
    }
  }
  d->busy = true;
  d->busy_until = ceil_ns (pl->end);
  if (d->busy_until < t)
    d->busy_until = t;
}

/* The mechanism is free at t: choose what it does next. */
static void
dispatch (struct hdd *d, raidsim_ns t)
{
  struct raidsim_io **pp;
  struct plan best, pl;
  unsigned n = 0, e;
  bool have = false, host = false;

  if (d->busy)
    return;
  memset (&best, 0, sizeof best);
  for (pp = &d->media.head; *pp && n < d->p.queue_depth; ) {
    struct raidsim_io *io = *pp;

    /* Read-ahead may have brought a queued read in by now. */
    if (io->dir == RAIDSIM_READ && read_hit (d, io, t)) {
      *pp = io->next;
      if (d->media.tail == io) {
        d->media.tail = NULL;
        for (struct raidsim_io *q = d->media.head; q; q = q->next)
          d->media.tail = q;
      }
      d->media.count--;
      complete (d, io, t);
      continue;
    }
    n++;
    host = true;
    if (io->dir == RAIDSIM_READ)
      plan_read (d, io, t, &pl);
    else {
      plan_write (d, OP_WRITE, io->offset, io->len, t, &pl);
      pl.io = io;
    }
    if (!have || pl.start < best.start) {
      best = pl;
      have = true;
    }
    if (!d->p.ncq)
      break;
    pp = &io->next;
  }
  /* Destage when there has been nothing else to do for destage_delay,
   * or in competition with host commands when writes are waiting for
   * room.
   */
  if (d->ndirty && (d->wwait.head || d->flushq.head ||
                    (!host && t >= destage_at (d)))) {
    unsigned mid = dirty_find (d, d->ra ? off_of_x (d, ra_x (d, t))
                               : d->head_off);
    unsigned first = mid > DESTAGE_WINDOW ? mid - DESTAGE_WINDOW : 0;
    unsigned last = mid + DESTAGE_WINDOW < d->ndirty
      ? mid + DESTAGE_WINDOW : d->ndirty;

    for (e = first; e < last; ++e) {
      plan_destage (d, e, t, &pl);
      if (!have || pl.start < best.start) {
        best = pl;
        have = true;
      }
    }
  }
  if (!have)
    return;
  if (best.io) {
    /* Take it out of the media queue. */
    for (pp = &d->media.head; *pp != best.io; pp = &(*pp)->next)
      ;
    *pp = best.io->next;
    if (d->media.tail == best.io) {
      d->media.tail = NULL;
      for (struct raidsim_io *q = d->media.head; q; q = q->next)
        d->media.tail = q;
    }
    d->media.count--;
  }
  start_op (d, &best, t);
}

/* The flushes waiting complete at t if everything before them is on
 * the platters (see the top).
 */
static void
flushes_done (struct hdd *d, raidsim_ns t)
{
  struct raidsim_io *io;

  if (d->busy || d->media.head || d->wwait.head || d->ndirty ||
      d->destaging)
    return;
  while ((io = raidsim_ioq_pop (&d->flushq)) != NULL)
    complete (d, io, t);
}

/* A command has paid its overhead at t. */
static void
arrive (struct hdd *d, struct raidsim_io *io, raidsim_ns t)
{
  if (io->flush) {
    raidsim_ioq_push (&d->flushq, io);
    return;
  }
  /* A trim (device.h): a disk has no mapping to change, so it is done
   * once it has paid its command overhead, touching neither the media
   * nor the cache.
   */
  if (io->trim) {
    complete (d, io, t);
    return;
  }
  if (io->dir == RAIDSIM_READ) {
    if (io->offset != d->host_end)
      d->stream_lo = io->offset;
    d->host_end = io->offset + io->len;
    if (read_hit (d, io, t))
      complete (d, io, t);
    else
      raidsim_ioq_push (&d->media, io);
    return;
  }
  if (d->dirty_max && io->len <= d->dirty_max) {
    segs_drop_range (d, io->offset, io->len, t);
    if (d->wwait.head == NULL && dirty_room (d, io->offset, io->len)) {
      dirty_add (d, io->offset, io->len);
      complete (d, io, t);
    }
    else
      raidsim_ioq_push (&d->wwait, io);
    return;
  }
  raidsim_ioq_push (&d->media, io);
}


/* Play the drive's own events (commands ready, operations ending, the
 * idle timer) up to now, in time order, choosing at each moment the
 * mechanism is free.
 */
static void
advance (struct hdd *d, raidsim_ns now)
{
  for (;;) {
    raidsim_ns ta = d->arrivals.head ? d->arrivals.head->done : RAIDSIM_NEVER;
    raidsim_ns tm = d->busy ? d->busy_until : RAIDSIM_NEVER;
    raidsim_ns td = destage_at (d);
    raidsim_ns t = ta < tm ? ta : tm;

    if (td < t)
      t = td;
    if (t > now || t == RAIDSIM_NEVER)
      break;
    if (tm == t)
      finish_op (d, t);
    while (d->arrivals.head && d->arrivals.head->done == t)
      arrive (d, raidsim_ioq_pop (&d->arrivals), t);
    dispatch (d, t);
    if (d->flushq.head)
      flushes_done (d, t);
  }
}

static raidsim_ns
hdd_submit (void *dev, struct raidsim_io *io, raidsim_ns now)
{
  struct hdd *d = dev;

  advance (d, now);
  io->done = now + d->p.overhead;
  raidsim_ioq_push (&d->arrivals, io);
  advance (d, now);
  return RAIDSIM_NEVER;
}

static raidsim_ns
hdd_next (const void *dev)
{
  const struct hdd *d = dev;
  raidsim_ns t = doneq_next (&d->done);

  if (d->arrivals.head && d->arrivals.head->done < t)
    t = d->arrivals.head->done;
  if (d->busy && d->busy_until < t)
    t = d->busy_until;
  if (destage_at (d) < t)
    t = destage_at (d);
  return t;
}

static struct raidsim_io *
hdd_reap (void *dev, raidsim_ns now)
{
  struct hdd *d = dev;

  advance (d, now);
  return doneq_pop (&d->done, now);
}

const struct raidsim_device_ops raidsim_device_hdd = {
  .version = RAIDSIM_DEVICE_OPS_VERSION,
  .name = "hdd",
  .summary = "hard disk: seek curve, rotation, zoned media rate, "
  "segmented cache with read-ahead and write-back, NCQ (SPTF)",
  .params = hdd_params,
  .params_size = sizeof (struct hdd_params),
  .check = hdd_check,
  .create = hdd_create,
  .destroy = hdd_destroy,
  .place = hdd_place,
  .submit = hdd_submit,
  .next = hdd_next,
  .reap = hdd_reap,
};
