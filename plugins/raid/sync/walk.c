/* nbdkit-raid-plugin: the one walk of md's sync actions.  See walk.h
 * for what it does; here, how.
 *
 * The copy pool: copiers - 1 threads, started once per walk, and the
 * walk's own thread, which copies too while it waits for the window's
 * head.  Regions go in in ascending order (recwindow.h); each copier
 * takes the lowest one not taken.  No barrier between regions and no
 * thread started per region: a copier that finishes one takes the next
 * at once, so that the reads of one region overlap the writes of
 * another.
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "walk.h"
#include "md/state.h"

struct walk_pool {
  struct walk *w;
  pthread_mutex_t lock;
  pthread_cond_t work;          /* a region to take, or quit */
  pthread_cond_t done;          /* a region done */
  struct rec_window win;
  bool quit;
  unsigned nthreads;
  pthread_t thread[WALK_MAX_COPIERS];
  char *buf[WALK_MAX_COPIERS];  /* buf[0] is the walk's own */
};

/* Copy region r (taken, under no lock) with buf; then mark it done. */
static void
pool_copy (struct walk_pool *p, struct rec_region *r, char *buf)
{
  struct rec_region work = *r;

  p->w->ops->region (p->w, &work, buf);
  pthread_mutex_lock (&p->lock);
  r->copied = work.copied;
  r->ok = work.ok;
  r->done = true;
  pthread_cond_broadcast (&p->done);
  pthread_mutex_unlock (&p->lock);
}

struct copier {
  struct walk_pool *p;
  char *buf;
};

static void *
copier_thread (void *arg)
{
  struct walk_pool *p = ((struct copier *) arg)->p;
  char *buf = ((struct copier *) arg)->buf;
  struct rec_region *r;

  free (arg);
  pthread_mutex_lock (&p->lock);
  for (;;) {
    while (!p->quit && (r = recwindow_take (&p->win)) == NULL)
      pthread_cond_wait (&p->work, &p->lock);
    if (p->quit)
      break;
    pthread_mutex_unlock (&p->lock);
    pool_copy (p, r, buf);
    pthread_mutex_lock (&p->lock);
  }
  pthread_mutex_unlock (&p->lock);
  return NULL;
}

static char *
buffer (uint64_t size)
{
  void *b;

  return posix_memalign (&b, 4096, size) == 0 ? b : NULL;
}

int
walk_start (struct walk *w)
{
  struct walk_pool *p = calloc (1, sizeof *p);
  unsigned i;

  if (p == NULL)
    return -1;
  w->pool = p;
  p->w = w;
  recwindow_init (&p->win);
  p->buf[0] = buffer (w->bufsize);
  if (p->buf[0] == NULL) {
    free (p);
    w->pool = NULL;
    errno = ENOMEM;
    return -1;
  }
  pthread_mutex_init (&p->lock, NULL);
  pthread_cond_init (&p->work, NULL);
  pthread_cond_init (&p->done, NULL);
  for (i = 1; i < w->copiers && i < WALK_MAX_COPIERS; ++i) {
    struct copier *c = malloc (sizeof *c);
    char *buf = buffer (w->bufsize);

    if (c == NULL || buf == NULL) {
      free (c);
      free (buf);
      break;
    }
    *c = (struct copier) { .p = p, .buf = buf };
    if (pthread_create (&p->thread[p->nthreads], NULL, copier_thread, c)) {
      free (c);
      free (buf);
      break;
    }
    p->buf[++p->nthreads] = buf;
  }
  return 0;
}

void
walk_end (struct walk *w)
{
  struct walk_pool *p = w->pool;
  unsigned i;

  pthread_mutex_lock (&p->lock);
  p->quit = true;
  pthread_cond_broadcast (&p->work);
  pthread_mutex_unlock (&p->lock);
  for (i = 0; i < p->nthreads; ++i)
    pthread_join (p->thread[i], NULL);
  for (i = 0; i <= p->nthreads; ++i)
    free (p->buf[i]);
  pthread_cond_destroy (&p->done);
  pthread_cond_destroy (&p->work);
  pthread_mutex_destroy (&p->lock);
  free (p);
  w->pool = NULL;
}

/* Wait for the window's head (the walk's thread copies any region not
 * yet taken meanwhile) and pop it into *out.
 */
static void
pool_pop (struct walk_pool *p, struct rec_region *out)
{
  struct rec_region *r;

  pthread_mutex_lock (&p->lock);
  while (!recwindow_pop (&p->win, out)) {
    if ((r = recwindow_take (&p->win)) != NULL) {
      pthread_mutex_unlock (&p->lock);
      pool_copy (p, r, p->buf[0]);
      pthread_mutex_lock (&p->lock);
    }
    else
      pthread_cond_wait (&p->done, &p->lock);
  }
  pthread_mutex_unlock (&p->lock);
}

static void
pool_push (struct walk_pool *p, uint64_t offset, uint64_t len)
{
  pthread_mutex_lock (&p->lock);
  recwindow_push (&p->win, offset, len);
  pthread_cond_signal (&p->work);
  pthread_mutex_unlock (&p->lock);
}

void
walk_run (struct walk *w, uint64_t pos)
{
  struct walk_pool *pool = w->pool;
  bool more = true;
  unsigned window = w->window < RECWINDOW_MAX ? w->window : RECWINDOW_MAX;

  w->cursor = pos;
  for (;;) {
    struct rec_region done;

    while (more && pool->win.count < window && w->cursor < w->size) {
      uint64_t len = w->size - w->cursor < MD_SYNC_REGION
        ? w->size - w->cursor : MD_SYNC_REGION;

      if (w->ops->next) {
        uint64_t next = w->ops->next (w, w->cursor, &len);

        w->cursor = next < w->size ? next : w->size;
        if (w->cursor >= w->size)
          break;
      }
      pool_push (pool, w->cursor, len);
      w->cursor += len;
    }
    if (pool->win.count == 0)
      break;
    pool_pop (pool, &done);
    w->inflight = pool->win.count;
    if (!w->ops->passed (w, &done))
      more = false;
  }
}

unsigned
walk_first_tenth (uint64_t pos, uint64_t size)
{
  return pos * 10 / size + 1;
}

void
walk_log_tenths (const char *what, unsigned *next_tenth, uint64_t pos,
                 uint64_t size)
{
  if (pos * 10 / size >= *next_tenth && pos < size) {
    nbdkit_error ("%s: %u%% done (%" PRIu64 " of %" PRIu64 " bytes)",
                  what, (unsigned) (pos * 100 / size), pos, size);
    *next_tenth = pos * 10 / size + 1;
  }
}
