/* raidsim: fuzzing the config loader (raidsim/config: param.c's INI
 * reader over libinih, config.c's array, device and controller files).
 *
 * The input is one config file, or up to three separated by form feeds
 * (an array file, a device file, a controller file).  The first is read
 * as plain INI, then loaded as a device file and as an array file, from
 * a table of files in memory (embedded.h) that holds the parts as
 * configs/arrays/fuzz.ini, configs/devices/fuzz.ini and
 * configs/controllers/fuzz.ini (a part not given is the first) beside
 * every array file of configs/ and the files they name.  So an array file can
 * name real device and controller files ("../devices/x.ini") or the
 * other parts ("../devices/fuzz.ini", "../controllers/fuzz.ini"), and
 * every parameter table, the models' included, is reached.  What loads
 * is sized through the shared geometry and printed back.
 *
 * Run: build/tests/fuzz/fuzz-ini tests/fuzz/corpus/ini
 */

#include <string.h>

#include "raidsim/config.h"
#include "raidsim/embedded.h"
#include "raidsim/error.h"
#include "raidsim/param.h"
#include "fuzz.h"

/* Every array file of configs/ and the files they name (meson.build). */
extern const struct raidsim_embedded raidsim_fuzz_files[];

#define ARRAY_NAME "configs/arrays/fuzz.ini"
#define DEVICE_NAME "configs/devices/fuzz.ini"
#define CONTROLLER_NAME "configs/controllers/fuzz.ini"

/* The input's parts under their three names, then the real files.
 * text is cut at its first two form feeds.
 */
static struct raidsim_embedded *
table (char *text)
{
  char *part[3] = { text, NULL, NULL }, *ff;
  unsigned i;

  static struct raidsim_embedded *t;
  size_t n;

  if (t == NULL) {
    for (n = 0; raidsim_fuzz_files[n].name; ++n)
      ;
    t = calloc (n + 4, sizeof *t);
    if (t == NULL)
      abort ();
    t[0].name = ARRAY_NAME;
    t[1].name = DEVICE_NAME;
    t[2].name = CONTROLLER_NAME;
    memcpy (t + 3, raidsim_fuzz_files, (n + 1) * sizeof *t);
  }
  for (i = 1; i < 3 && (ff = strchr (part[i - 1], '\f')) != NULL; ++i) {
    *ff = '\0';
    part[i] = ff + 1;
  }
  for (i = 0; i < 3; ++i)
    t[i].text = part[i] ? part[i] : part[0];
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
  /* FUZZ_VERBOSE=1: say what became of the input, to see what a corpus
   * reaches.
   */
  if (getenv ("FUZZ_VERBOSE"))
    fprintf (stderr, "  array: %s\n", ac ? "loaded" : raidsim_error ());
  if (ac) {
    raidsim_array_config_size (ac);
    raidsim_array_config_print (fuzz_null (), ac);
    raidsim_array_config_free (ac);
  }
  free (text);
}
