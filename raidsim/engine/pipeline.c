/* raidsim: a member's stages made from an array file, for both drivers
 * of the models (see pipeline.h).
 */

#include <stdio.h>

#include "raidsim/pipeline.h"

int
raidsim_pipe_member_init (struct raidsim_pipe_member *m,
                          const struct raidsim_array_config *ac,
                          unsigned index, uint64_t seed)
{
  const struct raidsim_device_config *dc = ac->devices[index];
  char name[32];

  m->ops = dc->ops;
  m->dev = dc->ops->create (dc->params, dc->capacity);
  if (m->dev == NULL)
    return -1;
  if (dc->ops->place)
    dc->ops->place (m->dev, index, seed);
  m->dev_next = dc->ops->next (m->dev);
  snprintf (name, sizeof name, "port%u", index);
  raidsim_link_init_spec (&m->port, name, &ac->ctl->port);
  return 0;
}

void
raidsim_pipe_member_path (struct raidsim_pipe_member *m,
                          struct raidsim_link *uplink)
{
  m->npath = 0;
  if (m->port.rate)
    m->path[m->npath++] = &m->port;
  if (uplink->rate)
    m->path[m->npath++] = uplink;
}

void
raidsim_pipe_member_free (struct raidsim_pipe_member *m)
{
  if (m->dev)
    m->ops->destroy (m->dev);
  m->dev = NULL;
}
