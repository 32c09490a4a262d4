/* raidsim run --measured FILE: what was measured beside what the run
 * predicts, so that the loop from a prediction to a measurement is one
 * command.
 *
 * FILE is one of:
 *   - fio's JSON (--output-format=json) from running the same job file
 *     against the emulator (or anything else): per job, by jobname, and
 *     direction: IOPS, MB/s, mean, p50 and p99 completion latency;
 *   - nbdkit-raid-plugin's statistics (stats=PATH): the array's
 *     requests per direction and their mean, p50 and p99 latency, as
 *     the plugin saw them (the host's path to the client not included),
 *     against all the run's jobs together; and with model=, its count
 *     of late requests.
 * Each figure is printed measured, predicted and measured / predicted.
 */
#ifndef RAIDSIM_CLI_MEASURED_H
#define RAIDSIM_CLI_MEASURED_H

#include <stdio.h>

#include "raidsim/sim.h"

/* Print the comparison to fp.  Returns 0, or -1 with raidsim_error ()
 * set to "FILE: what is wrong" (unreadable, not JSON, neither kind, a
 * job the run does not have).
 */
extern int measured_compare (FILE *fp, const char *path,
                             const struct raidsim_sim *s);

#endif /* RAIDSIM_CLI_MEASURED_H */
