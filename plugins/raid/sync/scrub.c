/* nbdkit-raid-plugin: scrub, md's check and repair.  See scrub.h for
 * what they do; here, how.
 *
 * The scrub runs in a thread of its own, not in sync.c's: that one
 * keeps marking the array clean after idle times meanwhile (a long
 * check must not leave the superblocks saying dirty), and the two
 * share nothing but the array's range lock and sync.c's action, which
 * says whether a resync runs.  Repair's writes do not mark the array
 * dirty, as md's sync writes do not: a crash in the middle of one
 * leaves a block that differed still differing, and nothing else.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "scrub.h"
#include "syncio.h"
#include "throttle.h"
#include "walk.h"
#include "io/plan.h"
#include "io/rangelock.h"
#include "md/failure.h"
#include "md/state.h"

/* The check or repair (there is one array). */
static struct raid_scrub {
  pthread_mutex_t lock;         /* everything below */
  pthread_cond_t cond;          /* stop */
  bool stop;
  bool thread_started;
  pthread_t thread;
  struct scrub_view v;
} scrub = {
  .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER,
};

const char *
scrub_action_name (enum scrub_action a)
{
  switch (a) {
  case SCRUB_CHECK: return "check";
  case SCRUB_REPAIR: return "repair";
  default: return "idle";
  }
}

/* md's unit: a resync block is SCRUB_BLOCK of the array, aligned to it,
 * and (pieces never cross a chunk) cut at the piece's end.  Returns the
 * length of the block that starts at array offset off, within a piece
 * that ends at end.
 */
static uint64_t
block_len (uint64_t off, uint64_t end)
{
  uint64_t next = (off / SCRUB_BLOCK + 1) * SCRUB_BLOCK;

  return (next < end ? next : end) - off;
}

/* Check (and on repair, mend) one piece; bufs[k] holds room for copy
 * k.  Returns the mismatched sectors found.
 */
static uint64_t
scrub_piece (struct raid_array *a, const struct piece *p, char **bufs,
             bool repair)
{
  struct member_io ios[RAID_MAX_MEMBERS], w[RAID_MAX_MEMBERS * 16];
  unsigned k, src, n = 0, nw = 0, i;
  int slot[RAID_MAX_MEMBERS];
  uint64_t mismatch = 0;

  for (k = 0; k < p->ncopies; ++k) {
    struct member *m = &a->members[p->copy[k].member];

    slot[k] = -1;
    /* A member being rebuilt holds nothing to compare yet (rebuild.h). */
    if (atomic_load (&m->failed) ||
        !md_readable (a, p->copy[k].member, p->offset, p->length))
      continue;
    slot[k] = n;
    ios[n++] = (struct member_io) {
      .op = MOP_READ, .pieces = 1, .buf = bufs[k],
      .offset = p->copy[k].offset, .length = p->length, .member = m,
    };
  }
  syncio_run (a, ios, n);
  /* The first copy that read is the good one, as md's. */
  for (src = 0; src < p->ncopies; ++src)
    if (slot[src] >= 0 && ios[slot[src]].err == 0)
      break;
  for (k = 0; k < p->ncopies; ++k)
    if (slot[k] >= 0 && ios[slot[k]].err)
      nbdkit_error ("%s: member %u (%s) at offset %" PRIu64 ": %s",
                    repair ? "repair" : "check", ios[slot[k]].member->index,
                    ios[slot[k]].member->name, ios[slot[k]].offset,
                    strerror (ios[slot[k]].err));
  if (src == p->ncopies)
    return 0;

  for (k = 0; k < p->ncopies; ++k) {
    uint64_t off;

    if (k == src || slot[k] < 0)
      continue;
    for (off = 0; off < p->length;) {
      uint64_t len = block_len (p->offset + off, p->offset + p->length);
      bool differs = ios[slot[k]].err != 0 ||
        memcmp (bufs[src] + off, bufs[k] + off, len) != 0;

      if (differs && ios[slot[k]].err == 0)
        mismatch += len / 512;
      if (differs && repair && nw < sizeof w / sizeof w[0]) {
        w[nw++] = (struct member_io) {
          .op = MOP_WRITE, .flags = MIO_NO_GROW, .pieces = 1,
          .buf = bufs[src] + off, .offset = p->copy[k].offset + off,
          .length = len, .member = ios[slot[k]].member,
        };
      }
      off += len;
    }
  }
  syncio_run (a, w, nw);
  for (i = 0; i < nw; ++i)
    if (w[i].err)
      md_error (a, w[i].member->index, "repair write", w[i].err);
  return mismatch;
}

/* One region, holding its range against client writes. */
static uint64_t
scrub_region (struct raid_array *a, uint64_t offset, uint64_t length,
              char **bufs, bool repair)
{
  struct range_hold hold;
  struct plan pl;
  uint64_t mismatch = 0;
  size_t i;

  range_acquire (a->write_ranges, &hold, offset, length);
  if (plan_build (&pl, a->geom, offset, length) == -1)
    nbdkit_error ("%s: array offset %" PRIu64 ": %m",
                  repair ? "repair" : "check", offset);
  else {
    for (i = 0; i < pl.npieces; ++i)
      mismatch += scrub_piece (a, &pl.piece[i], bufs, repair);
    plan_free (&pl);
  }
  range_release (a->write_ranges, &hold);
  return mismatch;
}

/* Wait ns, with s->lock held, or until stop. */
static void
wait_locked (struct raid_scrub *s, uint64_t ns)
{
  struct timespec ts;

  stats_deadline (&ts, ns);
  while (!s->stop)
    if (pthread_cond_timedwait (&s->cond, &s->lock, &ts) == ETIMEDOUT)
      break;
}

/* The throttle's wait (throttle.h), with s->lock held: true to stop. */
static bool
throttle_sleep (void *opaque, uint64_t ns)
{
  struct raid_scrub *s = opaque;

  wait_locked (s, ns);
  return s->stop;
}

/* The check's or repair's walk (walk.h), one region at a time. */
struct scrub_walk {
  struct raid_array *a;
  bool repair;
  const char *what;
  uint64_t size;
  uint64_t mismatch;            /* the region's, until passed */
  struct throttle t;
  unsigned next_tenth;
  bool stopped;
};

static void
scrub_walk_region (struct walk *w, struct rec_region *r, char *buf)
{
  struct scrub_walk *sw = w->opaque;
  char *bufs[RAID_MAX_MEMBERS];
  unsigned k;

  for (k = 0; k < raid_geom_copies (sw->a->geom); ++k)
    bufs[k] = buf + k * MD_SYNC_REGION;
  sw->mismatch = scrub_region (sw->a, r->offset, r->len, bufs, sw->repair);
  r->copied = r->len;
  r->ok = true;
}

static bool
scrub_walk_passed (struct walk *w, const struct rec_region *r)
{
  struct scrub_walk *sw = w->opaque;
  struct raid_scrub *s = &scrub;
  uint64_t pos = r->offset + r->len;

  pthread_mutex_lock (&s->lock);
  s->v.done = pos;
  s->v.mismatch_cnt += sw->mismatch;
  /* md's throttle (throttle.h). */
  s->v.rate = throttle_rate_now (&sw->t, pos);
  throttle_pace (&sw->t, pos, throttle_sleep, s);
  sw->stopped = s->stop;
  pthread_mutex_unlock (&s->lock);
  if (sw->stopped)
    return false;
  walk_log_tenths (sw->what, &sw->next_tenth, pos, sw->size);
  return true;
}

static const struct walk_ops scrub_ops = {
  .region = scrub_walk_region, .passed = scrub_walk_passed,
};

static void *
scrub_thread (void *arg)
{
  struct raid_array *a = arg;
  struct raid_scrub *s = &scrub;
  bool repair = s->v.action == SCRUB_REPAIR;
  uint64_t size = raid_geom_size (a->geom), pos = 0, ns, mm;
  uint64_t t0 = stats_now_ns ();
  struct scrub_walk sw = {
    .a = a, .repair = repair, .what = repair ? "repair" : "check",
    .size = size, .next_tenth = 1,
  };
  struct walk w = {
    .ops = &scrub_ops, .opaque = &sw, .size = size, .window = 1,
    .copiers = 1, .bufsize = raid_geom_copies (a->geom) * MD_SYNC_REGION,
  };

  if (walk_start (&w) == -1) {
    nbdkit_error ("%s: %m", sw.what);
    sw.stopped = true;
  }
  else {
    nbdkit_error ("%s: started over the array's %" PRIu64 " bytes "
                  "(sync-speed-min=%" PRIu64 " sync-speed-max=%" PRIu64
                  " KiB/s)", sw.what, size, a->conf.speed_min,
                  a->conf.speed_max);
    throttle_start (&sw.t, &a->stats, a->conf.speed_min, a->conf.speed_max,
                    pos);
    walk_run (&w, pos);
    walk_end (&w);
    pos = w.cursor;
  }

  pthread_mutex_lock (&s->lock);
  s->v.last = sw.what;
  s->v.last_complete = !sw.stopped;
  s->v.action = SCRUB_IDLE;
  ns = stats_now_ns () - t0;
  mm = s->v.mismatch_cnt;
  pthread_mutex_unlock (&s->lock);
  if (sw.stopped)
    nbdkit_error ("%s: stopped at array offset %" PRIu64 " of %" PRIu64
                  "; mismatch_cnt %" PRIu64 " so far", sw.what, pos, size,
                  mm);
  else
    nbdkit_error ("%s: done: %" PRIu64 " bytes in %.3f s; mismatch_cnt "
                  "%" PRIu64 " (sectors in blocks whose copies %s)", sw.what,
                  size, ns / 1e9, mm,
                  repair ? "differed, now rewritten from the first copy"
                  : "differ");
  return NULL;
}

/* Reap a thread that has ended on its own, with s->lock held. */
static void
reap_locked (struct raid_scrub *s)
{
  if (s->thread_started && s->v.action == SCRUB_IDLE) {
    pthread_join (s->thread, NULL);
    s->thread_started = false;
  }
}

int
scrub_start (struct raid_array *a, enum scrub_action act, const char **why)
{
  struct raid_scrub *s = &scrub;
  const char *sync_action = "idle";
  int err;

  if (!md_redundant (a)) {
    *why = "the array has no copies to compare (RAID 0)";
    return -1;
  }
  if (act == SCRUB_REPAIR && atomic_load (&a->no_writes)) {
    *why = "the array is served read-only (nbdkit -r): nothing may be "
      "written";
    return -1;
  }
  if (a->resync_on) {
    pthread_mutex_lock (&a->meta.lock);
    sync_action = a->status.action;
    pthread_mutex_unlock (&a->meta.lock);
  }
  pthread_mutex_lock (&s->lock);
  reap_locked (s);
  if (s->v.action != SCRUB_IDLE) {
    pthread_mutex_unlock (&s->lock);
    *why = s->v.action == SCRUB_CHECK ? "a check is running (idle stops it)"
      : "a repair is running (idle stops it)";
    return -1;
  }
  if (strcmp (sync_action, "idle") != 0) {
    pthread_mutex_unlock (&s->lock);
    *why = "another sync action is running (md refuses a check then too)";
    return -1;
  }
  s->v.action = act;
  s->stop = false;
  s->v.done = 0;
  s->v.total = raid_geom_size (a->geom);
  s->v.rate = 0;
  s->v.mismatch_cnt = 0;
  err = pthread_create (&s->thread, NULL, scrub_thread, a);
  if (err) {
    s->v.action = SCRUB_IDLE;
    pthread_mutex_unlock (&s->lock);
    *why = "its thread could not be started";
    return -1;
  }
  s->thread_started = true;
  pthread_mutex_unlock (&s->lock);
  return 0;
}

bool
scrub_stop (struct raid_array *a)
{
  struct raid_scrub *s = &scrub;
  bool running;
  pthread_t t;

  pthread_mutex_lock (&s->lock);
  if (!s->thread_started) {
    pthread_mutex_unlock (&s->lock);
    return false;
  }
  running = s->v.action != SCRUB_IDLE;
  s->stop = true;
  pthread_cond_broadcast (&s->cond);
  t = s->thread;
  s->thread_started = false;
  pthread_mutex_unlock (&s->lock);
  pthread_join (t, NULL);
  return running;
}

void
scrub_view (struct raid_array *a, struct scrub_view *v)
{
  pthread_mutex_lock (&scrub.lock);
  *v = scrub.v;
  pthread_mutex_unlock (&scrub.lock);
}
