/* raidsim: fuzzing the spellings of the RAID keys and sizes that the
 * plugin, `raidsim map` and array files share (raidsim/core/raidkeys.c,
 * geometry.c's raid_parse_size and raid_parse_level, readpolicy.c), and
 * the geometry built from what they accept.
 *
 * The input is lines of KEY=VALUE, as `raidsim map` and the plugin take
 * them.  The array keys (level, chunk, copies, read-policy) go to
 * raid_settings_parse; member-size=SIZE adds a member and
 * data-offset=SIZE sets the reserved space; any other line's value is
 * tried as a size, a level, a read policy and a whole number.  If the
 * settings pass raid_settings_check, the geometry is built, and pieces
 * at its start, middle and end must lie on the members it was given.
 *
 * Run: build/tests/fuzz/fuzz-raidkeys tests/fuzz/corpus/raidkeys
 */

#include <limits.h>
#include <string.h>

#include "raidsim/geometry.h"
#include "raidsim/raidkeys.h"
#include "raidsim/readpolicy.h"
#include "fuzz.h"

struct input {
  struct raid_settings s;
  uint64_t member_size[RAID_MAX_MEMBERS];
  unsigned nmembers;
  uint64_t data_offset;
};

static void
one_line (struct input *in, char *line)
{
  char *value = strchr (line, '=');
  uint64_t v;
  enum raid_level level;
  enum raid_read_policy policy;
  unsigned long u;

  if (value == NULL)
    return;
  *value++ = '\0';
  if (raid_settings_parse (&in->s, line, value) != 1)
    return;
  if (strcmp (line, "member-size") == 0) {
    if (raid_parse_size (value, &v) == 0 && in->nmembers < RAID_MAX_MEMBERS)
      in->member_size[in->nmembers++] = v;
    return;
  }
  if (strcmp (line, "data-offset") == 0) {
    if (raid_parse_size (value, &v) == 0)
      in->data_offset = v;
    return;
  }
  if (raid_parse_size (value, &v) == 0)
    FUZZ_ASSERT (value[0] >= '0' && value[0] <= '9');
  if (raid_parse_level (value, &level) == 0)
    FUZZ_ASSERT (strcmp (raid_level_name (level), "?") != 0);
  if (raid_parse_read_policy (value, &policy) == 0)
    FUZZ_ASSERT (raid_read_policy_name (policy) != NULL);
  if (raid_parse_uint (line, value, 0, ULONG_MAX, &u) == 0)
    FUZZ_ASSERT (value[0] != '-');
}

/* The piece at offset lies on members the geometry was given. */
static void
check_piece (const struct raid_geom *g, const struct input *in,
             uint64_t offset, uint64_t len)
{
  struct raid_piece p;
  unsigned c;

  if (raid_geom_map (g, offset, len, &p) == -1)
    return;
  FUZZ_ASSERT (p.offset == offset);
  FUZZ_ASSERT (p.length > 0 && p.length <= len);
  FUZZ_ASSERT (p.ncopies >= 1 && p.ncopies <= in->nmembers);
  for (c = 0; c < p.ncopies; ++c) {
    FUZZ_ASSERT (p.copy[c].member < in->nmembers);
    FUZZ_ASSERT (p.copy[c].offset >= in->data_offset);
    FUZZ_ASSERT (p.copy[c].offset <= in->member_size[p.copy[c].member]);
    FUZZ_ASSERT (p.length <= in->member_size[p.copy[c].member]
                 - p.copy[c].offset);
  }
}

static void
build (const struct input *in)
{
  struct raid_geom_params gp = {
    .level = in->s.level,
    .chunk = in->s.chunk,
    .copies = in->s.copies,
    .data_offset = in->data_offset,
    .nmembers = in->nmembers,
    .member_size = in->member_size,
  };
  struct raid_geom *g;
  uint64_t size, len = 1 << 20;

  if (raid_settings_check (&in->s, in->nmembers) == -1)
    return;
  g = raid_geom_new (&gp);
  if (g == NULL)
    return;
  size = raid_geom_size (g);
  if (size) {
    check_piece (g, in, 0, size < len ? size : len);
    check_piece (g, in, size / 2, size - size / 2 < len ? size - size / 2
                 : len);
    check_piece (g, in, size - 1, 1);
  }
  raid_geom_free (g);
}

void
fuzz_one (const uint8_t *data, size_t size)
{
  char *text = fuzz_text (data, size), *line, *save = NULL;
  struct input in = { .nmembers = 0 };

  raid_settings_init (&in.s);
  for (line = strtok_r (text, "\n", &save); line;
       line = strtok_r (NULL, "\n", &save))
    one_line (&in, line);
  build (&in);
  free (text);
}
