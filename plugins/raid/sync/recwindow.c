/* nbdkit-raid-plugin: the recovery's window of regions in flight.  See
 * recwindow.h.
 */

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "recwindow.h"

void
recwindow_init (struct rec_window *w)
{
  memset (w, 0, sizeof *w);
}

struct rec_region *
recwindow_push (struct rec_window *w, uint64_t offset, uint64_t len)
{
  struct rec_region *r = &w->r[(w->head + w->count) % RECWINDOW_MAX];

  *r = (struct rec_region) { .offset = offset, .len = len };
  w->count++;
  return r;
}

struct rec_region *
recwindow_take (struct rec_window *w)
{
  unsigned i;

  for (i = 0; i < w->count; ++i) {
    struct rec_region *r = &w->r[(w->head + i) % RECWINDOW_MAX];
    if (!r->taken) {
      r->taken = true;
      return r;
    }
  }
  return NULL;
}

bool
recwindow_pop (struct rec_window *w, struct rec_region *out)
{
  struct rec_region *r = &w->r[w->head];

  if (w->count == 0 || !r->done)
    return false;
  *out = *r;
  w->head = (w->head + 1) % RECWINDOW_MAX;
  w->count--;
  return true;
}
