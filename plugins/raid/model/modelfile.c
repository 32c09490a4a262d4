/* nbdkit-raid-plugin: model=ARRAY.ini's array file, at config time (see
 * modelfile.h): loaded, and held against the array the plugin serves.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/config.h"
#include "raidsim/error.h"
#include "modelfile.h"

static struct {
  char *path;
  struct raidsim_array_config *ac;
} mf;

const struct raidsim_array_config *
modelfile_array (void)
{
  return mf.ac;
}

const char *
modelfile_path (void)
{
  return mf.path;
}

void
modelfile_free (void)
{
  if (mf.ac)
    raidsim_array_config_free (mf.ac);
  mf.ac = NULL;
  free (mf.path);
  mf.path = NULL;
}

int
modelfile_load (const char *path)
{
  mf.ac = raidsim_array_config_load (path);
  if (mf.ac == NULL) {
    nbdkit_error ("model: %s", raidsim_error ());
    return -1;
  }
  mf.path = strdup (path);
  if (mf.path == NULL) {
    nbdkit_error ("model: strdup: %m");
    return -1;
  }
  if (mf.ac->failed_mask || mf.ac->rebuild_mask || mf.ac->resync) {
    nbdkit_error ("model: %s: failed, rebuild and resync describe the "
                  "simulator's background stream; the plugin takes the "
                  "members' state from the members", path);
    return -1;
  }
  return 0;
}

/* A single drive (level = single) is served as a one-member array: a
 * RAID 1 by default (modelfile_fill), or a RAID 0 if level=0 or the
 * member's md metadata says so.  Both map array byte x to byte x of the
 * one member (past md's data offset, as for every level: the models
 * see array offsets), which is where the drive model puts it, so the
 * model times the very offsets the member is read and written at.
 */
static bool
model_single (void)
{
  return mf.ac->level == RAIDSIM_LEVEL_SINGLE;
}

/* Whether the plugin's level serves the file's. */
static bool
level_serves (enum raid_level level)
{
  if (model_single ())
    return level == RAID_LEVEL_1 || level == RAID_LEVEL_0;
  return (int) level == mf.ac->level;
}

/* The file's level in words, for messages. */
static const char *
model_level (void)
{
  return model_single () ? "single (a one-member RAID 1 or 0)"
    : raid_level_name (mf.ac->level);
}

/* Whether the file has a chunk the array's must match: RAID 0 and 10
 * (a single drive's one member is not striped).
 */
static bool
model_has_chunk (void)
{
  return mf.ac->level == RAID_LEVEL_0 || mf.ac->level == RAID_LEVEL_10;
}

/* The array file's copies, with its default. */
static unsigned
model_copies (void)
{
  return mf.ac->copies ? mf.ac->copies : RAID10_COPIES_DEFAULT;
}

int
modelfile_settings (const struct raid_settings *s)
{
  const struct raidsim_array_config *ac = mf.ac;

  if (ac == NULL)
    return 0;
  if (s->set[RAID_KEY_LEVEL] && !level_serves (s->level)) {
    nbdkit_error ("level: level=%s conflicts with model=%s, whose level "
                  "is %s", raid_level_name (s->level), mf.path,
                  model_level ());
    return -1;
  }
  if (s->set[RAID_KEY_CHUNK] && model_has_chunk () &&
      s->chunk != ac->chunk) {
    nbdkit_error ("chunk: chunk=%" PRIu64 "K conflicts with model=%s, "
                  "whose chunk is %" PRIu64 "K", s->chunk >> 10, mf.path,
                  ac->chunk >> 10);
    return -1;
  }
  if (s->set[RAID_KEY_COPIES] && ac->level == RAID_LEVEL_10 &&
      s->copies != model_copies ()) {
    nbdkit_error ("copies: copies=%u conflicts with model=%s, whose copies "
                  "is %u", s->copies, mf.path, model_copies ());
    return -1;
  }
  return 0;
}

void
modelfile_fill (struct raid_settings *s)
{
  const struct raidsim_array_config *ac = mf.ac;

  if (ac == NULL)
    return;
  if (model_single ()) {
    if (!s->set[RAID_KEY_LEVEL])
      s->level = RAID_LEVEL_1;
    s->set[RAID_KEY_LEVEL] = true;
    return;
  }
  s->level = ac->level;
  s->set[RAID_KEY_LEVEL] = true;
  if (ac->level != RAID_LEVEL_1) {
    s->chunk = ac->chunk;
    s->set[RAID_KEY_CHUNK] = true;
  }
  if (ac->level == RAID_LEVEL_10) {
    s->copies = model_copies ();
    s->set[RAID_KEY_COPIES] = true;
  }
}

int
modelfile_check (enum raid_level level, uint64_t chunk, unsigned copies,
                 unsigned nmembers)
{
  const struct raidsim_array_config *ac = mf.ac;

  if (ac == NULL)
    return 0;
  if (!level_serves (level)) {
    nbdkit_error ("level: model=%s has level %s, but the members' md "
                  "superblocks say RAID %s", mf.path, model_level (),
                  raid_level_name (level));
    return -1;
  }
  if (model_has_chunk () && chunk != ac->chunk) {
    nbdkit_error ("chunk: model=%s has chunk %" PRIu64 "K, but the "
                  "members' md superblocks say %" PRIu64 "K", mf.path,
                  ac->chunk >> 10, chunk >> 10);
    return -1;
  }
  if (level == RAID_LEVEL_10 && copies != model_copies ()) {
    nbdkit_error ("copies: model=%s has copies %u, but the members' md "
                  "superblocks say %u", mf.path, model_copies (), copies);
    return -1;
  }
  if (nmembers != ac->members) {
    nbdkit_error ("member: the array has %u members, but model=%s has "
                  "members = %" PRIu64, nmembers, mf.path, ac->members);
    return -1;
  }
  return 0;
}
