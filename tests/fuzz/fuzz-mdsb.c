/* raidsim: fuzzing the md v1.2 superblock decoder (raidsim/core/mdsb.c),
 * which reads what is on a member, as `raidsim examine`, the simulator's
 * members and the plugin's assembly do.
 *
 * The input is the 4K at MDSB_OFFSET of a member.  It is decoded as it
 * is, and again with its checksum put right, so that the checks past
 * the checksum are reached by inputs that a fuzzer could never give a
 * good checksum by chance.  A superblock that decodes must encode back
 * to what decodes the same, and the helpers that read a decoded one
 * (checks against a member's size, unused space, role, level name) run
 * on it; mdsb_unpack, which tools use on damaged superblocks, runs on
 * every input.
 *
 * Run: build/tests/fuzz/fuzz-mdsb tests/fuzz/corpus/mdsb
 */

#include <string.h>

#include "raidsim/mdsb.h"
#include "fuzz.h"

/* Where md_p.h puts sb_csum. */
#define OFF_SB_CSUM 216

static void
use (const struct mdsb *sb)
{
  uint64_t before, after, used, sectors[3];
  char uuid[40];
  unsigned i;

  mdsb_role (sb);
  mdsb_level_name (sb->level);
  mdsb_format_uuid (sb->set_uuid, uuid);
  FUZZ_ASSERT (strlen (uuid) == 35);
  used = mdsb_used_sectors (sb);
  sectors[0] = 0;
  sectors[1] = sb->data_offset + used;
  sectors[2] = sectors[1] < UINT64_MAX / 2 ? sectors[1] * 2 : UINT64_MAX;
  for (i = 0; i < 3; ++i) {
    if (mdsb_check_member (sb, sectors[i]) == 0)
      FUZZ_ASSERT (sb->data_offset <= sectors[i]);
    mdsb_unused_space (sb, sectors[i], 0, &before, &after);
  }
}

static void
decode (const uint8_t *buf, size_t len)
{
  struct mdsb sb, again;
  uint8_t enc[MDSB_SIZE];

  if (mdsb_decode (buf, len, &sb) == -1)
    return;
  use (&sb);
  FUZZ_ASSERT (sb.max_dev <= MDSB_MAX_DEV_LIMIT);
  mdsb_encode (&sb, enc);
  FUZZ_ASSERT (mdsb_decode (enc, sizeof enc, &again) == 0);
  again.sb_csum = sb.sb_csum;
  FUZZ_ASSERT (memcmp (&sb, &again, sizeof sb) == 0);
}

void
fuzz_one (const uint8_t *data, size_t size)
{
  struct mdsb sb;
  uint32_t csum;
  char *text;

  decode (data, size);
  if (mdsb_checksum (data, size, &csum) == 0) {
    uint8_t *fixed = malloc (size);

    if (fixed == NULL)
      abort ();
    memcpy (fixed, data, size);
    fixed[OFF_SB_CSUM] = csum;
    fixed[OFF_SB_CSUM + 1] = csum >> 8;
    fixed[OFF_SB_CSUM + 2] = csum >> 16;
    fixed[OFF_SB_CSUM + 3] = csum >> 24;
    decode (fixed, size);
    free (fixed);
  }
  if (mdsb_unpack (data, size, &sb) == 0)
    use (&sb);

  /* The UUID spellings mdadm and raidsim create take. */
  text = fuzz_text (data, size < 80 ? size : 80);
  {
    uint8_t uuid[16];
    mdsb_parse_uuid (text, uuid);
  }
  free (text);
}
