/* raidsim: the `flash` device model, an SSD built from its parts.
 *
 * A command passes through these stages, each a resource with its own
 * timeline that the command reserves when it arrives:
 *
 *   1. The controller.  `cores` processors each take `overhead` per
 *      command, so the drive can never do more than cores / overhead
 *      commands per second, and at queue depth 1 every command pays
 *      overhead once.
 *   2. The flash array: `channels` buses, each with `dies` dies.  A page
 *      read takes `read_time` on its die, then the bytes wanted cross
 *      the die's channel at `channel_rate`; the die is busy until its
 *      data has left it.  A page program first moves the data across
 *      the channel, then takes the die for the program time.
 *   3. The host interface: every byte in or out crosses it at
 *      `interface_rate` (one timeline for both directions, as SATA has;
 *      0 is unlimited).  A read's pages go out as each comes off its
 *      channel, so large reads pipeline.  Write data may be taken in
 *      more slowly, at `write_rate`: drives whose data sheets give a
 *      lower sequential write than read figure, with no flash
 *      program bound to explain it (an Optane drive writes in place),
 *      have a slower write path in the controller, and the write's
 *      bytes hold the interface while they cross it.
 *
 * Dies serve their commands in arrival order.  A channel or the
 * interface, though, may be free while an earlier command still waits
 * for its die: a transfer takes the first gap long enough for it from
 * the moment its data is ready, even if an earlier command has reserved
 * a later slot.  Reserving in arrival order alone would make every
 * command on a channel wait for the slowest one ahead of it, which
 * throttles random reads well below what the dies allow.
 *
 * Where the data is.  Logical page p of a read lives on die p mod
 * (channels x dies), and the dies are numbered across the channels
 * first, so consecutive pages use every channel before a second die on
 * any channel: sequential reads spread over the whole array, random
 * ones land uniformly.  Writes go where the drive chooses, as in any
 * log-structured flash translation layer: to the next die in turn,
 * whatever their address, so random and sequential writes see the same
 * parallelism.  The mapping itself is not kept (memory would grow with
 * the drive), so a read after a write goes to the die its address
 * gives, not to the die the write went to; both are uniform, which is
 * what the timing depends on.
 *
 * The DRAM cache.  With `cache_size` > 0, writes are collected in a
 * write buffer of cache_size / page_size page slots: a write is
 * acknowledged as soon as its data is in the buffer, and each full page
 * is programmed in the background and frees its slot when the program
 * ends.  A write that finds the buffer full waits for the slot its data
 * needs (slots are reused in the order they were filled: programs finish
 * nearly in that order, since pages go to the dies in turn).  Small
 * writes are combined into pages.  Without a cache a write completes
 * when its last page is programmed, and a partial page costs a whole
 * program.  Reads are not served from the buffer.
 *
 * Fresh and used.  A fresh (new or secure-erased) drive programs each
 * page once.  A used drive is in steady state: every page the host
 * writes makes garbage collection move write_amplification - 1 valid
 * pages (a read and a program each) to free the block it erases, so
 * each host page costs its die
 *
 *     W x program_time + (W - 1) x read_time,    W = write_amplification.
 *
 * The erase itself is folded into program_time.  This is the mechanism
 * that makes used drives write slower than fresh ones.
 *
 * Random and sequential writes.  Drives of the SATA II era write small
 * random blocks far slower than their dies allow for sequential data,
 * fresh or not: Intel's X25-M G2 (34 nm) is specified at 70 MB/s
 * sequential but 6,600 random 4 KiB writes a second (27 MB/s) on the
 * 80 GB model, 8,600 on the 160 GB one, over the same dies.  The
 * translation layer pays for scattering: mapping updates and the
 * partly valid blocks a scattered stream leaves behind.  With
 * `random_write_amplification` Wr > 1, the pages of a write that does
 * not continue the drive's previous write (its offset is not where that
 * one ended) cost their die as if W were max (W, Wr) above; a write
 * that continues the previous one costs what the state gives.  Over a
 * queue of random writes the drive then writes pages / (Wr x
 * program_time + (Wr - 1) x read_time) per die.
 *
 * Collection in bursts.  A drive does not reclaim a block for every
 * page it writes: it writes into its pool of free blocks until the pool
 * runs low, and then reclaims several blocks at once, moving their
 * valid pages before it programs more host data.  With `gc_interval` >
 * 0 a used drive does that: each host page costs program_time alone,
 * and after each interval of host pages the drive moves the pages it
 * owes for them, (W - 1) per host page, each a read and a program
 * (read_time + program_time, an on-die copy with no channel transfer)
 * on the same dies and program slots as host pages, which wait behind
 * them.  The mean cost per host page is the formula above; only its
 * timing changes.  A single drive at queue depth 1 loses the same time
 * either way, but members of an array each stop on their own, and a
 * request that needs both waits for whichever is collecting.  The
 * intervals are drawn uniformly between half and one and a half times
 * gc_interval (victim blocks hold more or fewer valid pages), the pause
 * after each moving the debt of exactly its interval, and the first
 * ends anywhere in its length (the pool was part used before the run):
 * from the run's seed and the member's index, so the members of an
 * array do not stop together.
 *
 * Unwritten data.  Many drives answer a read of a range that was never
 * written (or was trimmed) without touching the flash.  With
 * `unwritten_read` > 0 a fresh drive remembers which ranges have been
 * written (a bitmap of at most 2^23 bits, so memory is bounded by the
 * drive's capacity, not by the number of I/Os) and serves reads of
 * ranges never written in that time, after the controller stage.  Off
 * by default, because benchmarks either write their test file first or
 * are expected to measure the flash.  A used drive has been written
 * everywhere.
 *
 * Trims.  A trim costs the controller stage and nothing on the flash.
 * On a fresh drive that remembers what was written (unwritten_read)
 * it forgets the range, whose reads are then served without the
 * flash.  On a used drive, the trimmed pages hold no valid data, so
 * garbage collection has fewer to move: the drive has more spare room.
 * With a share f of the drive's capacity trimmed (and not written
 * since), the write amplification is Agarwal and Marrow's closed form
 * for greedy collection under uniform random writes (GLOBECOM 2010),
 * W = (1 + r) / (2 r), r the spare share of the valid data: the used
 * state's W0 gives the drive's own r0 = 1 / (2 W0 - 1), and f raises
 * it to r = (r0 + f) / (1 - f), W never below 1.  The trimmed ranges
 * are kept in a bitmap of at most 2^23 bits made at the first trim (a
 * range counts when it covers whole bits; a write to any part of one
 * makes it valid again), so memory stays bounded.
 *
 * Programs at once.  A drive need not program on every die at the same
 * time: its power budget and its controller's write path (buffers, ECC
 * encoders) can allow fewer.  With `max_programs` > 0 at most that many
 * page programs run at once, each starting on the earliest program slot
 * to come free; the drive's sustained write rate is then about
 * max_programs x page_size / (program cost), whatever the queue depth.
 * Without it a deep queue of writes keeps every die programming.
 *
 * Programs are queued on their die like reads, in arrival order: a read
 * that arrives behind buffered writes waits for them (drives that
 * suspend programs for reads are faster than this).
 *
 * An Optane (3D XPoint) drive is this model with its own numbers: small
 * pages, short and nearly equal read and program times, state fresh
 * (writes in place, no garbage collection), no DRAM cache.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/device.h"
#include "raidsim/error.h"
#include "raidsim/rng.h"
#include "doneq.h"

enum { STATE_FRESH, STATE_USED };

static const struct raidsim_enum state_enums[] = {
  { "fresh", STATE_FRESH },
  { "used", STATE_USED },
  { NULL, 0 },
};

struct flash_params {
  uint64_t channels;
  uint64_t dies;
  uint64_t page_size;
  uint64_t read_time;
  uint64_t program_time;
  uint64_t channel_rate;
  uint64_t overhead;
  uint64_t cores;
  uint64_t interface_rate;
  uint64_t cache_size;
  int state;
  uint64_t write_amplification; /* thousandths */
  uint64_t unwritten_read;
  uint64_t max_programs;
  uint64_t write_rate;
  uint64_t gc_interval;
  uint64_t random_write_amplification; /* thousandths */
  bool power_loss_protection;
};

/* Write-buffer slots at most (32 MiB of timestamps). */
#define MAX_SLOTS (UINT64_C (1) << 22)
/* Bits in the map of written ranges at most (1 MiB). */
#define MAP_BITS (UINT64_C (1) << 23)

#define P(field) offsetof (struct flash_params, field)
static const struct raidsim_param flash_params[] = {
  { .name = "channels", .type = RAIDSIM_PT_UINT, .offset = P (channels),
    .def = "8", .min = 1, .max = 256, .unit = "channels",
    .help = "Flash channels (buses) of the controller." },
  { .name = "dies", .type = RAIDSIM_PT_UINT, .offset = P (dies),
    .def = "4", .min = 1, .max = 256, .unit = "dies per channel",
    .help = "Dies on each channel (count planes that work independently "
    "as dies).  channels x dies pages can be read at once." },
  { .name = "page_size", .type = RAIDSIM_PT_SIZE, .offset = P (page_size),
    .def = "16K", .min = 512, .max = UINT64_C (1) << 20,
    .help = "Flash page: the unit of a read and of a program." },
  { .name = "read_time", .type = RAIDSIM_PT_TIME, .offset = P (read_time),
    .def = "60us", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Time a die takes to read a page into its register (tR)." },
  { .name = "program_time", .type = RAIDSIM_PT_TIME,
    .offset = P (program_time), .def = "600us", .min = 0,
    .max = RAIDSIM_NS_PER_S,
    .help = "Time a die takes to program a page (tPROG), block erases "
    "folded in." },
  { .name = "channel_rate", .type = RAIDSIM_PT_RATE,
    .offset = P (channel_rate), .def = "400MB/s",
    .help = "Rate of each channel bus between the controller and its "
    "dies; 0 is unlimited." },
  { .name = "overhead", .type = RAIDSIM_PT_TIME, .offset = P (overhead),
    .def = "5us", .min = 0, .max = RAIDSIM_NS_PER_S,
    .help = "Controller (firmware) time per command, on one of `cores`." },
  { .name = "cores", .type = RAIDSIM_PT_UINT, .offset = P (cores),
    .def = "1", .min = 1, .max = 64, .unit = "processors",
    .help = "Commands the controller works on at once: it completes at "
    "most cores / overhead commands per second." },
  { .name = "interface_rate", .type = RAIDSIM_PT_RATE,
    .offset = P (interface_rate), .def = "0",
    .help = "Ceiling of the drive's host interface, reads and writes "
    "together; 0 is unlimited.  The controller's port adds its own "
    "ceiling." },
  { .name = "cache_size", .type = RAIDSIM_PT_SIZE, .offset = P (cache_size),
    .def = "64M", .min = 0, .max = UINT64_C (64) << 30,
    .help = "DRAM write buffer: writes are acknowledged once their data "
    "is in it and programmed in the background; a write waits when it is "
    "full.  0: every write waits for its program." },
  { .name = "state", .type = RAIDSIM_PT_ENUM, .offset = P (state),
    .def = "fresh", .enums = state_enums,
    .help = "fresh (new or secure-erased: each page written once) or used "
    "(steady state: writes pay garbage collection, write_amplification)." },
  { .name = "write_amplification", .type = RAIDSIM_PT_RATIO,
    .offset = P (write_amplification), .def = "3", .min = RAIDSIM_RATIO_ONE,
    .max = 100 * RAIDSIM_RATIO_ONE, .unit = "x",
    .help = "state = used: pages programmed per page the host writes; "
    "each host page costs its die write_amplification program times "
    "plus write_amplification - 1 read times, with every page or in "
    "pauses (gc_interval)." },
  { .name = "unwritten_read", .type = RAIDSIM_PT_TIME,
    .offset = P (unwritten_read), .def = "0", .min = 0,
    .max = RAIDSIM_NS_PER_S,
    .help = "state = fresh: time to answer a read of data never written "
    "since the start of the run, without the flash (after the controller "
    "stage); 0: such reads go to the flash like any other." },
  { .name = "max_programs", .type = RAIDSIM_PT_UINT,
    .offset = P (max_programs), .def = "0", .min = 0, .max = 65536,
    .unit = "pages",
    .help = "Page programs the drive runs at once at most (power budget, "
    "write path); bounds the sustained write rate at any queue depth.  "
    "0: every die may program at once." },
  { .name = "write_rate", .type = RAIDSIM_PT_RATE,
    .offset = P (write_rate), .def = "0",
    .help = "Rate at which the drive takes in write data, when below "
    "interface_rate (a write path slower than the link: the data "
    "sheet's sequential write figure); the bytes still hold the "
    "interface while they cross.  0: writes cross at interface_rate." },
  { .name = "gc_interval", .type = RAIDSIM_PT_SIZE,
    .offset = P (gc_interval), .def = "0", .min = 0,
    .max = UINT64_C (1) << 40,
    .help = "state = used: host bytes written between garbage-collection "
    "pauses, on average (the free-block pool the drive writes into "
    "before it reclaims).  Host pages then cost program_time alone, and "
    "at each pause the drive moves the pages it owes for them, "
    "write_amplification - 1 per host page, each a read and a program, "
    "before more host data.  0: collection is spread over every page." },
  { .name = "random_write_amplification", .type = RAIDSIM_PT_RATIO,
    .offset = P (random_write_amplification), .def = "1",
    .min = RAIDSIM_RATIO_ONE, .max = 100 * RAIDSIM_RATIO_ONE, .unit = "x",
    .help = "Pages programmed per page of a random write (one that does "
    "not start where the drive's previous write ended), in any state: "
    "such a page costs its die this many program times plus one read "
    "time fewer, or the used state's cost if that is higher.  1: random "
    "and sequential writes cost the same." },
  { .name = "power_loss_protection", .type = RAIDSIM_PT_BOOL,
    .offset = P (power_loss_protection), .def = "false",
    .help = "The write buffer is protected against power loss "
    "(capacitors), as data sheets say of enterprise drives: a flush has "
    "nothing to write back and completes after the controller's "
    "overhead.  false: the buffer is volatile and a flush waits for "
    "every buffered page's program." },
  RAIDSIM_PARAM_END,
};
#undef P

/* A resource's reserved intervals, sorted and disjoint (and some that
 * have ended, see reserve).
 */
struct busy {
  raidsim_ns start, end;
};

struct timeline {
  struct busy *b;
  unsigned n, cap;
};

struct flash {
  struct flash_params p;
  uint64_t capacity;
  unsigned ndies;
  /* Where a page is, with masks and a shift when the sizes are powers
   * of two (they nearly always are): a division takes tens of cycles,
   * and these are on every command.
   */
  unsigned page_shift;          /* 0: page_size is not a power of two */
  unsigned die_mask, ch_mask;   /* 0: not a power of two */
  raidsim_ns program_cost;      /* die time per page the host writes */
  raidsim_ns random_cost;       /* the same, for a random write's pages */
  raidsim_ns partial_cost;      /* the cost of the last write with bytes
                                 * in the buffer's partial page */
  uint64_t next_write;          /* where the previous write ended */
  raidsim_ns *die_free;         /* [ndies] */
  raidsim_ns *prog_free;        /* [nprog]: when each program slot frees */
  unsigned nprog;               /* 0: no limit below the dies */
  struct timeline *ch;          /* [channels] */
  raidsim_ns *core_free;        /* min-heap [cores] */
  struct timeline iface;

  /* Write buffer: slot k of nslots is free again at slot[k]. */
  raidsim_ns *slot;
  uint64_t nslots;
  uint64_t pages_written;       /* host pages handed to the dies so far */
  uint64_t programs;            /* pages placed, moves too: the next die */

  /* Collection in bursts (gc_interval > 0, used): host pages to go
   * before the next pause, the length of the interval it ends, and the
   * moves owed beyond whole pages (thousandths).
   */
  uint64_t gc_pages;            /* mean interval in pages; 0: spread */
  uint64_t gc_left, gc_len, gc_frac;
  raidsim_ns move_cost;         /* one page moved: read and program */
  struct raidsim_rng rng;
  uint64_t partial;             /* bytes collected towards the next page */

  /* The last transfer times worked out, per rate: a run moves one size
   * over and over, and a division per transfer shows in the speed.
   */
  struct memo { uint64_t len; raidsim_ns t; } memo_ch, memo_if;

  /* Ranges written (unwritten_read), one bit per map_unit bytes. */
  uint64_t *map;
  uint64_t map_unit;
  /* Used drives: ranges trimmed and not written since, one bit per
   * trim_unit bytes, made at the first trim; and the write
   * amplification that follows (see the top), thousandths.
   */
  uint64_t *trim_map;
  uint64_t trim_unit, trim_bits, trimmed;
  uint64_t waf;

  struct doneq done;
};

static int
flash_check (const void *params)
{
  const struct flash_params *p = params;

  if (p->cache_size && p->cache_size < p->page_size) {
    raidsim_set_error ("cache_size: must be 0 or at least one page "
                       "(page_size)");
    return -1;
  }
  if (p->cache_size / p->page_size > MAX_SLOTS) {
    raidsim_set_error ("cache_size: more than %" PRIu64 " pages of "
                       "page_size; use larger pages or a smaller cache",
                       MAX_SLOTS);
    return -1;
  }
  if (p->gc_interval && p->gc_interval < p->page_size) {
    raidsim_set_error ("gc_interval: must be 0 or at least one page "
                       "(page_size)");
    return -1;
  }
  return 0;
}

/* The next interval between pauses, in pages: uniform in [L - h, L + h],
 * h = floor (L / 2), so its mean is L and it is never empty.
 */
static uint64_t
gc_draw (struct flash *d)
{
  uint64_t h = d->gc_pages / 2;

  return d->gc_pages - h + raidsim_rng_below (&d->rng, 2 * h + 1);
}

/* Seed the pause schedule; the first interval ends anywhere in it. */
static void
gc_start (struct flash *d, unsigned member, uint64_t seed)
{
  uint64_t sm = seed;

  raidsim_rng_seed (&d->rng, raidsim_splitmix64 (&sm) + member);
  d->gc_len = gc_draw (d);
  d->gc_left = 1 + raidsim_rng_below (&d->rng, d->gc_len);
  d->gc_frac = 0;
}

static void
flash_destroy (void *dev)
{
  struct flash *d = dev;

  if (d == NULL)
    return;
  free (d->die_free);
  free (d->prog_free);
  if (d->ch)
    for (unsigned c = 0; c < d->p.channels; ++c)
      free (d->ch[c].b);
  free (d->ch);
  free (d->iface.b);
  free (d->core_free);
  free (d->slot);
  free (d->map);
  free (d->trim_map);
  doneq_free (&d->done);
  free (d);
}

/* The die time of a host page at write amplification w (thousandths):
 * w programs and w - 1 reads.
 */
static raidsim_ns
page_cost (const struct flash_params *p, uint64_t w)
{
  return (p->program_time * w + p->read_time * (w - RAIDSIM_RATIO_ONE) +
          RAIDSIM_RATIO_ONE / 2) / RAIDSIM_RATIO_ONE;
}

/* The drive's write amplification is now w: what host pages cost, or
 * with collection in bursts, what each pause moves.
 */
static void
set_waf (struct flash *d, uint64_t w)
{
  uint64_t per_page = d->gc_pages ? RAIDSIM_RATIO_ONE : w;

  d->waf = w;
  d->program_cost = page_cost (&d->p, per_page);
  d->random_cost = page_cost (&d->p, d->p.random_write_amplification >
                              per_page ? d->p.random_write_amplification
                              : per_page);
}

static void *
flash_create (const void *params, uint64_t capacity)
{
  const struct flash_params *p = params;
  struct flash *d;

  if (flash_check (params) == -1)
    return NULL;
  d = calloc (1, sizeof *d);
  if (d == NULL)
    goto nomem;
  d->p = *p;
  d->capacity = capacity;
  d->ndies = p->channels * p->dies;
  if ((p->page_size & (p->page_size - 1)) == 0)
    d->page_shift = __builtin_ctzll (p->page_size);
  if ((d->ndies & (d->ndies - 1)) == 0)
    d->die_mask = d->ndies - 1;
  if ((p->channels & (p->channels - 1)) == 0)
    d->ch_mask = p->channels - 1;
  d->die_free = calloc (d->ndies, sizeof d->die_free[0]);
  if (p->max_programs && p->max_programs < d->ndies) {
    d->nprog = p->max_programs;
    d->prog_free = calloc (d->nprog, sizeof d->prog_free[0]);
    if (d->prog_free == NULL)
      goto nomem;
  }
  d->ch = calloc (p->channels, sizeof d->ch[0]);
  d->core_free = calloc (p->cores, sizeof d->core_free[0]);
  d->nslots = p->cache_size / p->page_size;
  if (d->nslots)
    d->slot = calloc (d->nslots, sizeof d->slot[0]);
  if (!d->die_free || !d->ch || !d->core_free ||
      (d->nslots && !d->slot) || doneq_init (&d->done) == -1)
    goto nomem;

  /* Garbage collection's cost, in whole nanoseconds per host page,
   * unless it comes in bursts.
   */
  if (p->state == STATE_USED && p->gc_interval) {
    d->gc_pages = p->gc_interval / p->page_size;
    d->move_cost = p->read_time + p->program_time;
    gc_start (d, 0, 0);
  }
  set_waf (d, p->state == STATE_USED ? p->write_amplification
           : RAIDSIM_RATIO_ONE);
  /* The map of trimmed ranges: calloc's pages are not touched (nor
   * resident) until a trim reaches them.
   */
  if (p->state == STATE_USED && p->write_amplification > RAIDSIM_RATIO_ONE) {
    d->trim_unit = p->page_size;
    while (capacity / d->trim_unit >= MAP_BITS)
      d->trim_unit *= 2;
    d->trim_bits = capacity / d->trim_unit;
    if (d->trim_bits &&
        (d->trim_map = calloc ((d->trim_bits + 63) / 64,
                               sizeof d->trim_map[0])) == NULL)
      goto nomem;
  }

  if (p->unwritten_read && p->state == STATE_FRESH) {
    uint64_t bits;

    d->map_unit = p->page_size;
    while (capacity / d->map_unit >= MAP_BITS)
      d->map_unit *= 2;
    bits = capacity / d->map_unit + 1;
    d->map = calloc ((bits + 63) / 64, sizeof d->map[0]);
    if (d->map == NULL)
      goto nomem;
  }
  return d;

 nomem:
  raidsim_set_error ("flash: out of memory");
  flash_destroy (d);
  return NULL;
}

/* Time to move len bytes at rate, rounded up (never faster than the
 * rate); 0 for an unlimited rate.
 */
static raidsim_ns
xfer (uint64_t len, uint64_t rate)
{
  if (rate == 0)
    return 0;
  /* 64-bit division when it cannot overflow (see link.c). */
  if (len <= (UINT64_MAX - rate) / RAIDSIM_NS_PER_S)
    return (len * RAIDSIM_NS_PER_S + rate - 1) / rate;
  return (raidsim_ns) (((unsigned __int128) len * RAIDSIM_NS_PER_S + rate - 1)
                       / rate);
}

static raidsim_ns
xfer_memo (struct memo *m, uint64_t len, uint64_t rate)
{
  if (len != m->len) {
    m->len = len;
    m->t = xfer (len, rate);
  }
  return m->t;
}

static raidsim_ns
max_ns (raidsim_ns a, raidsim_ns b)
{
  return a > b ? a : b;
}

/* Reserve len ns of tl, starting no earlier than ready, in the first gap
 * that fits.  Callers never ask for a start before now, the submission
 * time.
 *
 * This is on every page of every command, so it avoids loops whose
 * length varies from call to call (the branches that end them are
 * mispredicted).  The intervals ending by ready, nearly all of them
 * when the resource is busy, are skipped counting back from the end.
 * Those that have ended by now end by ready too, so they can stay
 * until the array is full: only then are they dropped, and the array
 * grows only if more than half of it is still to end.  Memory follows
 * the queue depth.
 */
static raidsim_ns
reserve (struct timeline *tl, raidsim_ns ready, raidsim_ns len,
         raidsim_ns now)
{
  struct busy *b = tl->b;
  unsigned n = tl->n, i, k;
  raidsim_ns t = ready;

  if (len == 0)
    return ready;
  /* Ends are in order: the first interval ending after ready... */
  for (i = n; i > 0 && b[i - 1].end > t; --i)
    ;
  /* ...and from there, the first gap long enough. */
  for (; i < n; ++i) {
    if (t + len <= b[i].start)
      break;
    t = b[i].end;
  }
  if (n == tl->cap) {
    for (k = 0; k < n && b[k].end <= now; ++k)
      ;
    for (unsigned j = k; j < n; ++j)
      b[j - k] = b[j];
    n -= k;
    i -= k;
    if (n > tl->cap / 2 || tl->cap == 0) {
      unsigned cap = tl->cap ? 2 * tl->cap : 8;

      b = realloc (tl->b, cap * sizeof *b);
      if (b == NULL) {
        fprintf (stderr, "raidsim: out of memory in the flash model\n");
        abort ();
      }
      tl->b = b;
      tl->cap = cap;
    }
  }
  for (k = n; k > i; --k)
    b[k] = b[k - 1];
  b[i] = (struct busy) { t, t + len };
  tl->n = n + 1;
  return t;
}

/* Stage 1: the earliest-free core takes the command. */
static raidsim_ns
controller_stage (struct flash *d, raidsim_ns now)
{
  raidsim_ns *heap = d->core_free, t;
  size_t n = d->p.cores, i = 0;

  t = max_ns (now, heap[0]) + d->p.overhead;
  for (;;) {
    size_t c = 2 * i + 1;

    if (c >= n)
      break;
    if (c + 1 < n && heap[c + 1] < heap[c])
      c++;
    if (heap[c] >= t)
      break;
    heap[i] = heap[c];
    i = c;
  }
  heap[i] = t;
  return t;
}

static bool
map_test_range (const struct flash *d, uint64_t off, uint64_t len)
{
  uint64_t b, last = (off + len - 1) / d->map_unit;

  for (b = off / d->map_unit; b <= last; ++b)
    if (d->map[b / 64] & (UINT64_C (1) << (b % 64)))
      return true;
  return false;
}

static void
map_set_range (struct flash *d, uint64_t off, uint64_t len)
{
  uint64_t b, last = (off + len - 1) / d->map_unit;

  for (b = off / d->map_unit; b <= last; ++b)
    d->map[b / 64] |= UINT64_C (1) << (b % 64);
}

/* A used drive's write amplification with a share of its capacity
 * trimmed (see the top): Agarwal and Marrow's W = (1 + r) / (2 r).
 */
static void
trimmed_changed (struct flash *d)
{
  double w0 = (double) d->p.write_amplification / RAIDSIM_RATIO_ONE;
  double f = (double) d->trimmed / d->trim_bits;
  double r0 = 1.0 / (2.0 * w0 - 1.0), r, w;

  if (f >= 1.0)
    w = 1.0;
  else {
    r = (r0 + f) / (1.0 - f);
    w = (1.0 + r) / (2.0 * r);
  }
  if (w < 1.0)
    w = 1.0;
  if (w > w0)
    w = w0;
  set_waf (d, (uint64_t) (w * RAIDSIM_RATIO_ONE + 0.5));
}

/* A write to [off, off+len): any trimmed bit it touches is valid data
 * again.
 */
static void
untrim (struct flash *d, uint64_t off, uint64_t len)
{
  uint64_t b, last = (off + len - 1) / d->trim_unit;
  uint64_t before = d->trimmed;

  for (b = off / d->trim_unit; b <= last && b < d->trim_bits; ++b)
    if (d->trim_map[b / 64] & (UINT64_C (1) << (b % 64))) {
      d->trim_map[b / 64] &= ~(UINT64_C (1) << (b % 64));
      d->trimmed--;
    }
  if (d->trimmed != before)
    trimmed_changed (d);
}

/* A trim of [off, off+len): the drive forgets the range. */
static void
do_trim (struct flash *d, uint64_t off, uint64_t len)
{
  uint64_t b, first, end;

  if (d->map) {
    /* Only whole bits are forgotten: a bit partly written stays. */
    first = (off + d->map_unit - 1) / d->map_unit;
    end = (off + len) / d->map_unit;
    for (b = first; b < end; ++b)
      d->map[b / 64] &= ~(UINT64_C (1) << (b % 64));
  }
  if (d->trim_map == NULL)
    return;
  first = (off + d->trim_unit - 1) / d->trim_unit;
  end = (off + len) / d->trim_unit;
  if (end > d->trim_bits)
    end = d->trim_bits;
  for (b = first; b < end; ++b)
    if (!(d->trim_map[b / 64] & (UINT64_C (1) << (b % 64)))) {
      d->trim_map[b / 64] |= UINT64_C (1) << (b % 64);
      d->trimmed++;
    }
  trimmed_changed (d);
}

static inline uint64_t
page_of (const struct flash *d, uint64_t off)
{
  return d->page_shift ? off >> d->page_shift : off / d->p.page_size;
}

/* The die of page (or write) number n, and the channel of a die. */
static inline unsigned
die_of (const struct flash *d, uint64_t n)
{
  return d->die_mask || d->ndies == 1 ? n & d->die_mask : n % d->ndies;
}

static inline unsigned
channel_of (const struct flash *d, unsigned die)
{
  return d->ch_mask || d->p.channels == 1 ? die & d->ch_mask
    : die % d->p.channels;
}

/* Take the earliest program slot to come free for a program of cost
 * ns that could start at t; returns when it starts.
 */
static raidsim_ns
program_slot (struct flash *d, raidsim_ns t, raidsim_ns cost)
{
  unsigned k, first = 0;

  if (d->nprog == 0)
    return t;
  for (k = 1; k < d->nprog; ++k)
    if (d->prog_free[k] < d->prog_free[first])
      first = k;
  t = max_ns (t, d->prog_free[first]);
  d->prog_free[first] = t + cost;
  return t;
}

/* A pause of garbage collection, decided at t: the moves owed for the
 * interval that has just ended, on the dies in turn, then the next
 * interval.
 */
static void
collect (struct flash *d, raidsim_ns t)
{
  uint64_t owed = d->gc_len * (d->waf - RAIDSIM_RATIO_ONE) + d->gc_frac;
  uint64_t moves = owed / RAIDSIM_RATIO_ONE;

  d->gc_frac = owed % RAIDSIM_RATIO_ONE;
  while (moves--) {
    unsigned die = die_of (d, d->programs++);
    raidsim_ns start = program_slot (d, max_ns (t, d->die_free[die]),
                                     d->move_cost);

    d->die_free[die] = start + d->move_cost;
  }
  d->gc_len = gc_draw (d);
  d->gc_left = d->gc_len;
}

/* Program one host page on the next die in turn, its data ready at t,
 * costing its die `cost`; returns when the program ends.
 */
static raidsim_ns
program_page (struct flash *d, uint64_t bytes, raidsim_ns t, raidsim_ns now,
              raidsim_ns cost)
{
  unsigned die = die_of (d, d->programs++);
  unsigned ch = channel_of (d, die);
  raidsim_ns x = xfer_memo (&d->memo_ch, bytes, d->p.channel_rate), moved;

  d->pages_written++;
  moved = reserve (&d->ch[ch], max_ns (t, d->die_free[die]), x, now) + x;
  moved = program_slot (d, moved, cost);
  d->die_free[die] = moved + cost;
  if (d->gc_pages && --d->gc_left == 0)
    collect (d, moved);
  return moved + cost;
}

static raidsim_ns
do_read (struct flash *d, const struct raidsim_io *io, raidsim_ns t,
         raidsim_ns now)
{
  uint64_t ps = d->p.page_size;
  uint64_t off = io->offset, end = io->offset + io->len;
  raidsim_ns out = t;

  if (d->map && !map_test_range (d, off, io->len)) {
    raidsim_ns x = xfer (io->len, d->p.interface_rate);

    return reserve (&d->iface, t + d->p.unwritten_read, x, now) + x;
  }
  while (off < end) {
    uint64_t page = page_of (d, off);
    uint64_t bytes = (page + 1) * ps < end ? (page + 1) * ps - off : end - off;
    unsigned die = die_of (d, page);
    unsigned ch = channel_of (d, die);
    raidsim_ns ready, moved, xc, xi;

    xc = xfer_memo (&d->memo_ch, bytes, d->p.channel_rate);
    xi = xfer_memo (&d->memo_if, bytes, d->p.interface_rate);
    ready = max_ns (t, d->die_free[die]) + d->p.read_time;
    moved = reserve (&d->ch[ch], ready, xc, now) + xc;
    d->die_free[die] = moved;
    out = max_ns (out, reserve (&d->iface, moved, xi, now) + xi);
    off += bytes;
  }
  return out;
}

static raidsim_ns
do_write (struct flash *d, const struct raidsim_io *io, raidsim_ns t,
          raidsim_ns now)
{
  uint64_t ps = d->p.page_size;
  uint64_t rate = d->p.interface_rate;
  raidsim_ns in, done, xi, cost;

  /* A write that does not continue the previous one is random. */
  cost = io->offset == d->next_write ? d->program_cost : d->random_cost;
  d->next_write = io->offset + io->len;
  if (d->p.write_rate && (rate == 0 || d->p.write_rate < rate))
    rate = d->p.write_rate;
  xi = xfer (io->len, rate);

  if (d->map)
    map_set_range (d, io->offset, io->len);
  in = reserve (&d->iface, t, xi, now) + xi;

  if (d->nslots == 0) {
    /* Write-through: every page the write touches is programmed, a
     * partial one costing a whole program.
     */
    uint64_t first = io->offset / ps, last = (io->offset + io->len - 1) / ps;
    uint64_t page;

    done = in;
    for (page = first; page <= last; ++page) {
      uint64_t lo = page == first ? io->offset : page * ps;
      uint64_t hi = page == last ? io->offset + io->len : (page + 1) * ps;

      done = max_ns (done, program_page (d, hi - lo, in, now, cost));
    }
    return done;
  }

  /* Write-back: each page the buffer fills takes a slot when the slot's
   * previous page has been programmed, and is programmed from there.
   * The write is done when all its data has a slot.
   */
  done = in;
  d->partial += io->len;
  while (d->partial >= ps) {
    uint64_t k = d->pages_written % d->nslots;
    raidsim_ns enter = max_ns (in, d->slot[k]);

    done = max_ns (done, enter);
    d->slot[k] = program_page (d, ps, enter, now, cost);
    d->partial -= ps;
  }
  if (d->partial) {
    d->partial_cost = cost;
    done = max_ns (done, d->slot[d->pages_written % d->nslots]);
  }
  return done;
}

/* A flush (device.h), after the controller stage.  A write buffer
 * protected against power loss holds nothing that could be lost, and
 * the flush is done.  A volatile one's every page must be programmed
 * first.  A
 * partial page (small writes not yet making a page) is programmed as it
 * is, a whole program for the bytes there are, and the buffer starts a
 * new page after it.  The flush completes when the last buffered page's
 * program ends, or at once (the controller's overhead) with no buffer:
 * without one a write completes only once programmed.  No parameter
 * beyond the drive's own: the cost is the programs the buffer owes.
 */
static raidsim_ns
do_flush (struct flash *d, raidsim_ns t, raidsim_ns now)
{
  raidsim_ns done = t;
  uint64_t k;

  if (d->nslots == 0 || d->p.power_loss_protection)
    return t;
  if (d->partial) {
    k = d->pages_written % d->nslots;
    /* Programmed at the cost of the write that left it there: a
     * random write's partial page costs what its whole pages did.
     */
    d->slot[k] = program_page (d, d->partial, max_ns (t, d->slot[k]), now,
                               d->partial_cost);
    d->partial = 0;
  }
  for (k = 0; k < d->nslots; ++k)
    done = max_ns (done, d->slot[k]);
  return done;
}

static void
flash_place (void *dev, unsigned member, uint64_t seed)
{
  struct flash *d = dev;

  if (d->gc_pages)
    gc_start (d, member, seed);
}

static raidsim_ns
flash_submit (void *dev, struct raidsim_io *io, raidsim_ns now)
{
  struct flash *d = dev;
  /* Service begins when one of the controller's cores takes the
   * command (the driver's device-queue stage is the wait for a core);
   * waits for dies, channels and buffer slots after that are service,
   * the drive's internal contention.  Without this the driver would
   * take the previous completion as the start, which on a drive serving
   * several commands at once counts service as queue.
   */
  raidsim_ns start = max_ns (now, d->core_free[0]);
  raidsim_ns t = controller_stage (d, now), done;

  io->started = start;
  if (io->trim) {
    do_trim (d, io->offset, io->len);
    doneq_push (&d->done, io, t);
    return t;
  }
  if (d->trimmed && io->dir == RAIDSIM_WRITE && !io->flush)
    untrim (d, io->offset, io->len);
  done = io->flush ? do_flush (d, t, now)
    : io->dir == RAIDSIM_READ ? do_read (d, io, t, now)
    : do_write (d, io, t, now);
  doneq_push (&d->done, io, done);
  return done;
}

static raidsim_ns
flash_next (const void *dev)
{
  return doneq_next (&((const struct flash *) dev)->done);
}

static struct raidsim_io *
flash_reap (void *dev, raidsim_ns now)
{
  return doneq_pop (&((struct flash *) dev)->done, now);
}

const struct raidsim_device_ops raidsim_device_flash = {
  .version = RAIDSIM_DEVICE_OPS_VERSION,
  .name = "flash",
  .summary = "SSD: controller cores, channels x dies with page read and "
  "program times, interface ceiling, DRAM write buffer, fresh or used "
  "(garbage collection)",
  .params = flash_params,
  .params_size = sizeof (struct flash_params),
  .check = flash_check,
  .create = flash_create,
  .destroy = flash_destroy,
  .place = flash_place,
  .submit = flash_submit,
  .next = flash_next,
  .reap = flash_reap,
};
