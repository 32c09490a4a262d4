/* raidsim: the background stream of a resync or a rebuild (see
 * background.h; the keys that ask for it are synckeys.c's).
 *
 * The stream walks the array from its start, one sync request (a unit)
 * at a time:
 *
 *   1. the next piece of at most 64 KiB that does not cross a chunk
 *      boundary, from the shared geometry (raid_geom_map), as md's
 *      sync_request takes one; pieces with nothing to do are passed
 *      over at no cost (a RAID 10 chunk with no copy on the member being
 *      rebuilt; a piece with one live copy left, in a resync);
 *   2. its reads: the first live copy that is in sync (rebuild, resync),
 *      or every live copy (check);
 *   3. once they are done, its writes: the member being rebuilt, or
 *      every other live copy (resync);
 *   4. once they are done, the unit is done.
 *
 * A unit is released when fewer than RAIDSIM_SYNC_DEPTH are unfinished
 * and the pacing allows (background.h).  Units are kept in issue order
 * so that the position the stream has reached, which decides where the
 * host's reads may go (array.c), is the start of the oldest unfinished
 * one: everything before it is done.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/background.h"
#include "raidsim/config.h"
#include "raidsim/error.h"

/* ---- the stream ---- */

/* A sync request and its member commands. */
struct unit {
  raidsim_ns issued;
  uint64_t progress;            /* bytes of progress it makes */
  uint64_t start;               /* the position it starts at */
  unsigned nreads, nwrites, pending;
  bool writing, done;
  struct raidsim_member_cmd read[RAID_MAX_MEMBERS];
  struct raidsim_member_cmd write[RAID_MAX_MEMBERS];
};

/* Unfinished units are at most RAIDSIM_SYNC_DEPTH; finished ones stay in
 * the ring behind an older unfinished one until it is done.
 */
#define RING (2 * RAIDSIM_SYNC_DEPTH)

struct raidsim_bg {
  struct raidsim_array *array;
  const struct raid_geom *geom;
  int action;                   /* enum raidsim_sync_action */
  uint32_t failed, target;      /* members */
  unsigned nmembers;
  uint64_t size;                /* the array's */
  uint64_t limit_min, limit_max; /* bytes/s */
  int throttle;
  raidsim_ns runtime;

  /* The walk. */
  uint64_t pos;                 /* the next array offset it looks at */
  uint64_t target_next;         /* rebuild: the member offset after the
                                 * last unit formed */
  bool walked;                  /* it has reached the end of the array */

  /* Units in issue order: ring[head .. head+count). */
  struct unit ring[RING];
  unsigned head, count;
  unsigned unfinished;

  /* Pacing and the idle test. */
  bool started;
  raidsim_ns next_release;
  uint64_t since_check;         /* progress released since the test */
  bool check_now;
  bool busy, draining;
  raidsim_ns busy_since, busy_acc;
  uint64_t fg[RAID_MAX_MEMBERS], mark[RAID_MAX_MEMBERS];

  bool fg_done;
  raidsim_ns stop_at;           /* once fg_done: nothing new from here */
  bool stopped;                 /* stop_at has come */

  struct raidsim_bg_result res;
};

static uint64_t
gcd64 (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

struct raidsim_bg *
raidsim_bg_new (const struct raidsim_array_config *ac, struct raidsim_array *a,
                unsigned nmembers)
{
  struct raidsim_bg *bg;

  bg = calloc (1, sizeof *bg);
  if (bg == NULL) {
    raidsim_set_error ("background stream: %s", strerror (ENOMEM));
    return NULL;
  }
  bg->array = a;
  bg->geom = raidsim_array_geom (a);
  bg->action = raidsim_sync_config_action (ac);
  bg->failed = ac->failed_mask;
  bg->target = ac->rebuild_mask;
  bg->nmembers = nmembers;
  bg->size = raidsim_array_size (a);
  bg->limit_min = ac->speed_limit_min;
  bg->limit_max = ac->speed_limit_max;
  bg->throttle = ac->sync_throttle;
  bg->runtime = ac->sync_runtime;
  if (bg->geom == NULL || bg->action == RAIDSIM_SYNC_NONE) {
    raidsim_set_error ("background stream: nothing to do for this array");
    free (bg);
    return NULL;
  }

  bg->res.action = bg->action;
  bg->res.member = -1;
  if (bg->action == RAIDSIM_SYNC_REBUILD) {
    bg->res.member = __builtin_ctz (bg->target);
    /* The member's bytes that hold array data (exact for RAID 10's
     * last, incomplete row too).
     */
    bg->res.total = raid_geom_member_used (bg->geom, bg->res.member);
  }
  else
    bg->res.total = bg->size;
  raid_hist_init (&bg->res.lat);
  return bg;
}

void
raidsim_bg_free (struct raidsim_bg *bg)
{
  free (bg);
}

uint64_t
raidsim_bg_max_cmds (const struct raidsim_bg *bg)
{
  /* A unit has at most one command per member in flight: a check reads
   * every live copy at once; the others read one, then write.
   */
  return (uint64_t) RAIDSIM_SYNC_DEPTH * bg->nmembers;
}

uint64_t
raidsim_bg_min_len (const struct raidsim_bg *bg)
{
  /* Units start at multiples of 64 KiB, or of the chunk if smaller, and
   * end there or at the end of the array.
   */
  uint64_t g = gcd64 (RAIDSIM_SYNC_BLOCK, bg->size);

  if (raid_geom_level (bg->geom) == RAID_LEVEL_10)
    g = gcd64 (g, raid_geom_chunk (bg->geom));
  return g;
}

/* The position the stream has reached (array.h's sync progress): the
 * start of the oldest unfinished unit, or where the walk is if none is
 * in flight; UINT64_MAX once the whole array has been done.
 */
static void
update_position (struct raidsim_bg *bg)
{
  uint64_t pos;

  if (bg->count > 0)
    pos = bg->ring[bg->head].start;
  else if (bg->walked)
    pos = UINT64_MAX;
  else
    pos = bg->action == RAIDSIM_SYNC_REBUILD ? bg->target_next : bg->pos;
  raidsim_array_sync_progress (bg->array, pos);
}

void
raidsim_bg_start (struct raidsim_bg *bg, raidsim_ns now)
{
  bg->started = true;
  bg->res.start = bg->res.end = now;
  bg->next_release = now;
  /* md's is_mddev_idle (mddev, 1): the marks start where the members'
   * counts are now.
   */
  memcpy (bg->mark, bg->fg, sizeof bg->mark);
  update_position (bg);
}

static void
add_cmd (struct raidsim_member_cmd *list, unsigned *n,
         const struct raid_copy *c, uint64_t len)
{
  list[*n] = (struct raidsim_member_cmd) { c->member, c->offset, len };
  (*n)++;
}

/* Form the next unit at the walk's position into u; false at the end of
 * the array.
 */
static bool
next_unit (struct raidsim_bg *bg, struct unit *u)
{
  while (bg->pos < bg->size) {
    uint64_t len = bg->size - bg->pos;
    struct raid_piece p;
    unsigned k, live = 0;
    int src = -1, tgt = -1;

    if (len > RAIDSIM_SYNC_BLOCK)
      len = RAIDSIM_SYNC_BLOCK;
    raid_geom_map (bg->geom, bg->pos, len, &p);
    bg->pos += p.length;
    for (k = 0; k < p.ncopies; ++k) {
      uint32_t bit = UINT32_C (1) << p.copy[k].member;

      if (bg->failed & bit)
        continue;
      if (bg->target & bit) {
        tgt = k;
        continue;
      }
      if (src < 0)
        src = k;
      live++;
    }

    u->nreads = u->nwrites = 0;
    u->progress = p.length;
    u->start = p.offset;
    switch (bg->action) {
    case RAIDSIM_SYNC_REBUILD:
      if (tgt < 0)
        continue;               /* no copy on the member rebuilt */
      add_cmd (u->read, &u->nreads, &p.copy[src], p.length);
      add_cmd (u->write, &u->nwrites, &p.copy[tgt], p.length);
      u->start = p.copy[tgt].offset;
      bg->target_next = p.copy[tgt].offset + p.length;
      return true;

    case RAIDSIM_SYNC_RESYNC:
    case RAIDSIM_SYNC_CHECK:
      if (live < 2) {
        bg->res.done += p.length;       /* one copy: nothing to do */
        continue;
      }
      for (k = 0; k < p.ncopies; ++k) {
        if (bg->failed & (UINT32_C (1) << p.copy[k].member))
          continue;
        if (bg->action == RAIDSIM_SYNC_CHECK || (int) k == src)
          add_cmd (u->read, &u->nreads, &p.copy[k], p.length);
        else
          add_cmd (u->write, &u->nwrites, &p.copy[k], p.length);
      }
      return true;
    }
    abort ();
  }
  return false;
}

static void
send_cmds (struct raidsim_bg *bg, struct unit *u, enum raidsim_dir dir,
           raidsim_bg_send_fn send, void *opaque)
{
  const struct raidsim_member_cmd *list =
    dir == RAIDSIM_READ ? u->read : u->write;
  unsigned i, n = dir == RAIDSIM_READ ? u->nreads : u->nwrites;

  u->pending = n;
  for (i = 0; i < n; ++i) {
    bg->res.ios[dir]++;
    bg->res.bytes[dir] += list[i].len;
    send (opaque, dir, &list[i], u);
  }
}

static void
set_busy (struct raidsim_bg *bg, bool busy, raidsim_ns now)
{
  if (busy == bg->busy)
    return;
  if (busy)
    bg->busy_since = now;
  else
    bg->busy_acc += now - bg->busy_since;
  bg->busy = busy;
}

/* md's is_mddev_idle: a member that has had more than 32 KiB of other
 * I/O since its mark makes the array busy, and its mark moves up.
 */
static void
idle_check (struct raidsim_bg *bg, raidsim_ns now)
{
  bool busy = false;
  unsigned i;

  for (i = 0; i < bg->nmembers; ++i)
    if (bg->fg[i] - bg->mark[i] > RAIDSIM_SYNC_IDLE) {
      bg->mark[i] = bg->fg[i];
      busy = true;
    }
  set_busy (bg, busy, now);
}

/* The speed md compares with its limits: progress done so far over the
 * time since the start, bytes/s.
 */
static double
speed (const struct raidsim_bg *bg, raidsim_ns now)
{
  return now > bg->res.start
    ? (double) bg->res.done * 1e9 / (now - bg->res.start) : 0;
}

static bool
may_release (struct raidsim_bg *bg, raidsim_ns now)
{
  if (bg->fg_done && now >= bg->stop_at)
    bg->stopped = true;
  return bg->started && !bg->walked && !bg->draining && !bg->stopped &&
    bg->unfinished < RAIDSIM_SYNC_DEPTH && bg->count < RING &&
    now >= bg->next_release;
}

raidsim_ns
raidsim_bg_next (const struct raidsim_bg *bg)
{
  /* A time already past (next_release before now) is fine: the run
   * that follows either releases a request or finds it stopped.
   */
  if (!bg->started || bg->walked || bg->draining || bg->stopped ||
      bg->unfinished >= RAIDSIM_SYNC_DEPTH || bg->count >= RING ||
      (bg->fg_done && bg->next_release >= bg->stop_at))
    return RAIDSIM_NEVER;
  return bg->next_release;
}

void
raidsim_bg_run (struct raidsim_bg *bg, raidsim_ns now,
                raidsim_bg_send_fn send, void *opaque)
{
  while (may_release (bg, now)) {
    uint64_t rate;
    struct unit *u;

    /* The idle test, every window of progress (md_do_sync's). */
    if (bg->check_now || bg->since_check >= RAIDSIM_SYNC_WINDOW) {
      idle_check (bg, now);
      bg->since_check = 0;
      bg->check_now = false;
      if (bg->busy && bg->throttle == RAIDSIM_THROTTLE_DRAIN &&
          bg->unfinished > 0 && speed (bg, now) > bg->limit_min) {
        bg->draining = true;    /* until every unit in flight is done */
        break;
      }
    }
    rate = bg->limit_max;
    if (bg->busy && bg->throttle == RAIDSIM_THROTTLE_MIN) {
      rate = bg->limit_min;
      if (rate == 0) {
        /* No minimum: wait while the array is busy, looking again
         * every 500 ms as md's sleep does.
         */
        bg->next_release = now + RAIDSIM_SYNC_PAUSE;
        bg->check_now = true;
        break;
      }
    }

    u = &bg->ring[(bg->head + bg->count) % RING];
    if (!next_unit (bg, u)) {
      bg->walked = true;
      if (bg->count == 0)
        bg->res.complete = true;
      update_position (bg);
      break;
    }
    u->issued = now;
    u->writing = u->done = false;
    bg->count++;
    bg->unfinished++;
    bg->since_check += u->progress;
    /* The next unit no sooner than this one's bytes at the rate. */
    bg->next_release = now;
    if (rate != 0)
      bg->next_release += ((unsigned __int128) u->progress * RAIDSIM_NS_PER_S
                           + rate - 1) / rate;
    send_cmds (bg, u, RAIDSIM_READ, send, opaque);
  }
}

void
raidsim_bg_cmd_done (struct raidsim_bg *bg, void *tag, raidsim_ns now,
                     raidsim_bg_send_fn send, void *opaque)
{
  struct unit *u = tag;

  if (--u->pending > 0)
    return;
  if (!u->writing && u->nwrites > 0) {
    u->writing = true;
    send_cmds (bg, u, RAIDSIM_WRITE, send, opaque);
    return;
  }

  u->done = true;
  bg->unfinished--;
  bg->res.units++;
  bg->res.done += u->progress;
  bg->res.end = now;
  bg->res.busy = bg->busy_acc + (bg->busy ? now - bg->busy_since : 0);
  raid_hist_record (&bg->res.lat, now - u->issued);
  while (bg->count > 0 && bg->ring[bg->head].done) {
    bg->head = (bg->head + 1) % RING;
    bg->count--;
  }
  if (bg->walked && bg->count == 0)
    bg->res.complete = true;
  if (bg->draining && bg->unfinished == 0)
    bg->draining = false;
  update_position (bg);
}

void
raidsim_bg_finish (struct raidsim_bg *bg)
{
  /* A stream that did not complete ran until it was stopped, or until
   * its last request finished if that was later.
   */
  if (!bg->res.complete && bg->fg_done && bg->stop_at > bg->res.end)
    bg->res.end = bg->stop_at;
  bg->res.busy = bg->busy_acc + (bg->busy && bg->res.end > bg->busy_since
                                 ? bg->res.end - bg->busy_since : 0);
}

void
raidsim_bg_fg_io (struct raidsim_bg *bg, unsigned member, uint64_t len)
{
  bg->fg[member] += len;
}

void
raidsim_bg_fg_done (struct raidsim_bg *bg, raidsim_ns now)
{
  bg->fg_done = true;
  bg->stop_at = now > bg->runtime ? now : bg->runtime;
}

const struct raidsim_bg_result *
raidsim_bg_result (const struct raidsim_bg *bg)
{
  return &bg->res;
}

double
raidsim_bg_rate (const struct raidsim_bg_result *r)
{
  return r->end > r->start ? (double) r->done * 1e9 / (r->end - r->start) : 0;
}

raidsim_ns
raidsim_bg_eta (const struct raidsim_bg_result *r)
{
  double rate = raidsim_bg_rate (r);

  if (r->done >= r->total)
    return 0;
  if (rate <= 0)
    return RAIDSIM_NEVER;
  return (raidsim_ns) ((double) (r->total - r->done) * 1e9 / rate);
}
