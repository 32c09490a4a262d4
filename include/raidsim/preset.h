/* raidsim: built-in benchmark presets, `--workload PRESET[:ARG]`, ARG a
 * span (cdm3:50MB) or, for winsat-disk, a queue depth (qd=N).
 *
 * A preset is the job set of a benchmark tool (CrystalDiskMark, winsat
 * disk, HD Tune, a review's four-corner sweep), written down as a table
 * of fio-like jobs in preset.c, and expanded into the same struct
 * raidsim_jobfile that a fio job file gives.  The tests run one after
 * another (stonewall), on drives that keep their state from one test to
 * the next, as the tools do.  The definitions, and where each number
 * comes from, are in docs/presets.md.
 */
#ifndef RAIDSIM_PRESET_H
#define RAIDSIM_PRESET_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "raidsim/fiojob.h"

/* Whether spec ("cdm3", "cdm3:50MB") names a preset: its part before
 * any ':' is a preset's name.
 */
extern bool raidsim_preset_is (const char *spec);

/* The jobs of spec for an array of array_size bytes (the surface scans
 * spread their sample points over it), with jf->assumed set to what the
 * preset assumed where its tool's sources are silent.  NULL with
 * raidsim_error () set ("preset: 'x' is not a preset ...",
 * "cdm3:50XB: ...", "winsat-disk:qd=0: ...").
 */
extern struct raidsim_jobfile *raidsim_preset_expand (const char *spec,
                                                      uint64_t array_size);

/* What --workload names: a preset (spec is one by raidsim_preset_is)
 * or a fio job file.  NULL with raidsim_error () set; a name that is
 * neither says so and lists the presets.
 */
extern struct raidsim_jobfile *raidsim_workload_load (const char *spec,
                                                      uint64_t array_size);

/* Every preset with its summary, one a line, or as Markdown. */
extern void raidsim_preset_list (FILE *fp, bool markdown);

/* The preset names, for error messages: "cdm3, cdm8, ...". */
extern const char *raidsim_preset_names (void);

/* Write jf as a fio job file (the options raidsim reads), so that fio
 * can run the same jobs against an emulated array.
 */
extern void raidsim_jobfile_write (FILE *fp, const struct raidsim_jobfile *jf);

#endif /* RAIDSIM_PRESET_H */
