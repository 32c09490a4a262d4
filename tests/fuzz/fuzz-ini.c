/* raidsim: fuzzing the config loader (raidsim/config: param.c's INI
 * reader over libinih, config.c's array, device and controller files).
 *
 * The input is one config file.  It is read as plain INI, then loaded as
 * a device file, and as an array file, from a table of files in memory
 * (embedded.h) that holds the input under three names and the real
 * configs `raidsim validate` carries.  So an array file given as input
 * can name real device and controller files ("../devices/x.ini") or
 * itself ("../devices/fuzz.ini", "../controllers/fuzz.ini"), and every
 * parameter table, the models' included, is reached.  What loads is
 * sized through the shared geometry and printed back.
 *
 * Run: build/tests/fuzz/fuzz-ini tests/fuzz/corpus/ini
 */

#include <string.h>

#include "raidsim/config.h"
#include "raidsim/embedded.h"
#include "raidsim/param.h"
#include "builtin.h"
#include "fuzz.h"

#define ARRAY_NAME "configs/arrays/fuzz.ini"
#define DEVICE_NAME "configs/devices/fuzz.ini"
#define CONTROLLER_NAME "configs/controllers/fuzz.ini"

/* The input under its three names, then the real files. */
static struct raidsim_embedded *
table (const char *text)
{
  static struct raidsim_embedded *t;
  size_t n;

  if (t == NULL) {
    for (n = 0; raidsim_validation_files[n].name; ++n)
      ;
    t = calloc (n + 4, sizeof *t);
    if (t == NULL)
      abort ();
    t[0].name = ARRAY_NAME;
    t[1].name = DEVICE_NAME;
    t[2].name = CONTROLLER_NAME;
    memcpy (t + 3, raidsim_validation_files, (n + 1) * sizeof *t);
  }
  t[0].text = t[1].text = t[2].text = text;
  return t;
}

static void
plain_ini (const char *text)
{
  struct raidsim_ini *ini;
  unsigned i;

  ini = raidsim_ini_load_text ("fuzz.ini", text, RAIDSIM_INI_CONFIG);
  if (ini == NULL)
    return;
  for (i = 0; i < ini->nentries; ++i) {
    const struct raidsim_ini_entry *e = &ini->entries[i];

    FUZZ_ASSERT (e->section < ini->nsections);
    FUZZ_ASSERT (e->key != NULL);
    FUZZ_ASSERT (raidsim_ini_find_section
                 (ini, ini->sections[e->section].name) >= 0);
    /* The first entry of a key in a section is the one get finds. */
    FUZZ_ASSERT (raidsim_ini_get (ini, e->section, e->key) != NULL);
  }
  raidsim_ini_free (ini);
}

void
fuzz_one (const uint8_t *data, size_t size)
{
  char *text = fuzz_text (data, size);
  const struct raidsim_embedded *files = table (text);
  struct raidsim_device_config *dc;
  struct raidsim_array_config *ac;

  plain_ini (text);

  dc = raidsim_device_config_load_from (files, DEVICE_NAME);
  raidsim_device_config_free (dc);

  ac = raidsim_array_config_load_from (files, ARRAY_NAME);
  if (ac) {
    raidsim_array_config_size (ac);
    raidsim_array_config_print (fuzz_null (), ac);
    raidsim_array_config_free (ac);
  }
  free (text);
}
