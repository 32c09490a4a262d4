/* nbdkit-raid-plugin: what model= could not keep (limits.c).  The
 * emulator can only add latency: a request whose real I/O ends after
 * the model's time is late, returns at once, and is counted with by how
 * much; the others are counted with how far after the model's time they
 * returned.  The member I/O of the sync actions counts its commands and
 * its late batches.  All of it goes in the statistics JSON ("timing")
 * and the log summary, through timing.h's timing_json and
 * timing_log_summary.
 */
#ifndef RAID_MODEL_LIMITS_H
#define RAID_MODEL_LIMITS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>

extern void limits_init (void);
/* A request returned: late (its real I/O ended ns after the model's
 * time), or ns after the model's time.
 */
extern void limits_request (bool late, uint64_t ns);
/* A background batch: cmds commands timed; its real I/O found late. */
extern void limits_background (uint64_t cmds);
extern void limits_background_late (void);

/* The driver's settings, shown beside the figures. */
struct limits_knobs {
  uint64_t lookahead_ns, spin_ns, host_ns;
};
/* The "timing" object: the model file, the knobs, the members' state the
 * models last took (failed, rebuild: bit i for member i; resync), the
 * figures.  NULL if out of memory.
 */
extern json_object *limits_json (const char *path,
                                 const struct limits_knobs *k,
                                 uint32_t failed, uint32_t rebuild,
                                 bool resync);
/* One summary line, to stderr or as a debug message. */
extern void limits_log_summary (const char *path, bool to_stderr);

#endif /* RAID_MODEL_LIMITS_H */
