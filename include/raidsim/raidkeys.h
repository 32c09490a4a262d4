/* raidsim: the keys that describe a RAID array, shared by the nbdkit
 * plugin's parameters, `raidsim map` and the simulator's array files:
 * each key's name, syntax, help and enumerated values, its parsing, and
 * the checks across keys.  Each is described here once, and --help, the
 * man-page check (tests/integration/test-pod-params.sh) and the error
 * messages all come from this table.
 */
#ifndef RAIDSIM_RAIDKEYS_H
#define RAIDSIM_RAIDKEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "raidsim/geometry.h"
#include "raidsim/readpolicy.h"

/* A key's description, for help and documentation.  The plugin
 * describes its own keys (io=, stats=, ...) with the same struct.
 */
struct raid_key {
  const char *name;             /* "read-policy" */
  const char *syntax;           /* "0|1|10", "SIZE", "POLICY": key=SYNTAX */
  const char *help;
  const char *const *values;    /* enumerated values, NULL-terminated, or
                                 * NULL if the value is not one of a list */
};

/* The keys' help, as macros so that tables built at compile time (the
 * simulator's array-file keys, raidsim/config/config.c) can use the very
 * same words.
 */
#define RAID_KEY_LEVEL_HELP                                             \
  "(required) RAID level: 0 stripes, 1 mirrors every member, 10 is "   \
  "md's near layout (also raid0, raid1, raid10)."
#define RAID_KEY_CHUNK_HELP                                             \
  "Chunk (stripe unit) of RAID 0 and 10, a power of two from 4K to "   \
  "64M; default 128K."
#define RAID_KEY_COPIES_HELP                                            \
  "RAID 10 near copies of every chunk, 2 to the member count; default 2."
#define RAID_KEY_READ_POLICY_HELP                                       \
  "Which copy a RAID 1 or 10 read goes to; default least-pending."

enum raid_key_id {
  RAID_KEY_LEVEL,
  RAID_KEY_CHUNK,
  RAID_KEY_COPIES,
  RAID_KEY_READ_POLICY,
  RAID_KEY_COUNT
};

extern const struct raid_key raid_keys[RAID_KEY_COUNT];

/* An array's shape and read policy, as given. */
struct raid_settings {
  enum raid_level level;
  uint64_t chunk;               /* default RAID_CHUNK_DEFAULT */
  unsigned copies;              /* RAID 10; default RAID10_COPIES_DEFAULT */
  enum raid_read_policy policy; /* default RAID_READ_POLICY_DEFAULT */
  bool set[RAID_KEY_COUNT];     /* which were given */
};

extern void raid_settings_init (struct raid_settings *s);

/* Parse key=value into s.  Returns 1 if key is not one of raid_keys[]
 * (so the caller can try its own keys), 0 if parsed, -1 with
 * raid_geom_error () set to one line starting with the key's name if
 * the value is bad or the key was already given.
 */
extern int raid_settings_parse (struct raid_settings *s,
                                const char *key, const char *value);

/* The rules across keys, once every key and the member count are known:
 * level is required, copies belongs to RAID 10 only and needs as many
 * members, and every level needs a member (one is a single drive, which
 * md runs as RAID 0 or 1, and RAID 10's copies need more).  Returns 0, or -1 with
 * raid_geom_error () naming the key at fault.
 */
extern int raid_settings_check (const struct raid_settings *s,
                                unsigned nmembers);

/* A whole decimal number from min to max.  Returns 0, or -1 with
 * raid_geom_error () set to "KEY: 'VALUE' is not a whole number from
 * MIN to MAX".  Shared by the keys here and the plugin's own.
 */
extern int raid_parse_uint (const char *key, const char *value,
                            unsigned long min, unsigned long max,
                            unsigned long *out);

/* "  key=SYNTAX     help..." for --help: the key and syntax, then the
 * help wrapped to width columns and indented by indent, with the
 * enumerated values listed if help does not list them.  Returns a
 * malloc'd string, or NULL if out of memory.
 */
extern char *raid_key_help (const struct raid_key *k, unsigned indent,
                            unsigned width);

#endif /* RAIDSIM_RAIDKEYS_H */
