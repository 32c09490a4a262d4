/* nbdkit-raid-plugin: model=ARRAY.ini's array file, at config time
 * (modelfile.c): loaded with the simulator's own loader, and held
 * against the array the plugin serves.  The driver (timing.h) takes the
 * models from it when it starts.
 */
#ifndef RAID_MODEL_MODELFILE_H
#define RAID_MODEL_MODELFILE_H

#include "raidsim/config.h"
#include "raidsim/raidkeys.h"

/* model=PATH: load the array file and the files it names.  -1 after
 * nbdkit_error ("model: FILE:LINE: ...").
 */
extern int modelfile_load (const char *path);

/* Before assembly: level=, chunk= and copies= given on the command
 * line must agree with the array file's.  0, or -1 after one
 * nbdkit_error naming the key and both values.
 */
extern int modelfile_settings (const struct raid_settings *s);

/* An array without md metadata (assemble.c): its level, chunk and
 * copies are the array file's.
 */
extern void modelfile_fill (struct raid_settings *s);

/* After assembly: the array served (from md metadata, or as filled in
 * above) must be the file's: level, chunk, copies and member count.
 */
extern int modelfile_check (enum raid_level level, uint64_t chunk,
                            unsigned copies, unsigned nmembers);

/* The array file loaded, or NULL without model=; its path as given. */
extern const struct raidsim_array_config *modelfile_array (void);
extern const char *modelfile_path (void);
/* At unload. */
extern void modelfile_free (void);

#endif /* RAID_MODEL_MODELFILE_H */
