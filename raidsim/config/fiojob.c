/* raidsim: reading fio job files (see fiojob.h).  The option table below
 * is the whole subset: its names, defaults and help are fio's, so that
 * a job means what fio's HOWTO says it means.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/engine.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"

static const struct raidsim_enum rw_enums[] = {
  { "read", RAIDSIM_RW_READ },
  { "write", RAIDSIM_RW_WRITE },
  { "randread", RAIDSIM_RW_RANDREAD },
  { "randwrite", RAIDSIM_RW_RANDWRITE },
  { "rw", RAIDSIM_RW_MIXED },
  { "readwrite", RAIDSIM_RW_MIXED },
  { "randrw", RAIDSIM_RW_RANDMIXED },
  { NULL, 0 },
};

#define J(field) offsetof (struct raidsim_job, field)
/* In the order of enum raidsim_fio_opt. */
const struct raidsim_param raidsim_fio_params[] = {
  { .name = "rw", .type = RAIDSIM_PT_ENUM, .offset = J (rw), .def = "read",
    .enums = rw_enums,
    .help = "Access pattern: sequential or random, reads, writes or a mix "
    "(rw and randrw mix by rwmixread).  fio's `rw=randread:8` suffix is "
    "not supported." },
  { .name = "bs", .type = RAIDSIM_PT_FIO_INT, .offset = J (bs), .def = "4k",
    .min = 1, .max = UINT64_C (256) << 20, .unit = "bytes",
    .help = "Block size of every I/O; one size for reads and writes "
    "(fio's `bs=4k,64k` is not supported)." },
  { .name = "iodepth", .type = RAIDSIM_PT_FIO_INT, .offset = J (iodepth),
    .def = "1", .min = 1, .max = 65536, .unit = "I/Os",
    .help = "I/Os each thread keeps in flight; a new one is issued as soon "
    "as one completes." },
  { .name = "numjobs", .type = RAIDSIM_PT_FIO_INT, .offset = J (numjobs),
    .def = "1", .min = 1, .max = 4096, .unit = "threads",
    .help = "Clones of the job, each with its own iodepth, position and "
    "random sequence, all over the same region." },
  { .name = "size", .type = RAIDSIM_PT_FIO_INT, .offset = J (size),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "Region each thread works in, from offset, and the bytes of "
    "I/O each thread does (one pass), those issued during ramp_time "
    "included, as fio counts them.  0: to the end of the array.  As in "
    "fio, a job whose size is not a whole number of blocks does one "
    "block more: sequentially it runs past offset + size if the array "
    "has room for it, with norandommap it is one more draw among the "
    "region's whole blocks; with fio's random map a job does the whole "
    "blocks of the region only." },
  { .name = "offset", .type = RAIDSIM_PT_FIO_INT, .offset = J (offset),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "Start of the region in the array." },
  { .name = "rwmixread", .type = RAIDSIM_PT_FIO_INT, .offset = J (rwmixread),
    .def = "50", .min = 0, .max = 100, .unit = "%",
    .help = "For rw and randrw: the percentage of I/Os that are reads, "
    "drawn at random for each I/O." },
  { .name = "number_ios", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (number_ios), .def = "0", .min = 0, .unit = "I/Os",
    .help = "Stop each thread after issuing this many I/Os after "
    "ramp_time, if size or runtime has not stopped it first.  0: no "
    "limit." },
  { .name = "runtime", .type = RAIDSIM_PT_FIO_TIME, .offset = J (runtime),
    .def = "0", .min = 0,
    .help = "Stop issuing this long after ramp_time, if size or "
    "number_ios has not stopped the thread first (without time_based, "
    "as in fio, a thread that has done size bytes stops).  0: no "
    "limit." },
  { .name = "ramp_time", .type = RAIDSIM_PT_FIO_TIME, .offset = J (ramp_time),
    .def = "0", .min = 0,
    .help = "Run this long before counting: I/Os issued earlier are left "
    "out of every figure and of the number_ios and runtime limits, but "
    "are part of size, as in fio." },
  { .name = "time_based", .type = RAIDSIM_PT_BOOL, .offset = J (time_based),
    .def = "0",
    .help = "A flag (a bare `time_based` sets it): run for the whole "
    "runtime, going over the region again as often as it takes, instead "
    "of stopping after size bytes.  Needs runtime." },
  { .name = "stonewall", .type = RAIDSIM_PT_BOOL, .offset = J (stonewall),
    .def = "0",
    .help = "A flag: start this job only when every job before it has "
    "finished, as fio does; the drives keep their state (caches, flash "
    "wear) from one job to the next.  Times (ramp_time, runtime) count "
    "from the job's own start.  In [global] it separates every job." },
  { .name = "norandommap", .type = RAIDSIM_PT_BOOL,
    .offset = J (norandommap), .def = "0",
    .help = "A flag: random jobs draw every offset afresh, uniformly over "
    "the region, without regard to the blocks already done, so some "
    "blocks are done twice in a pass and some not at all (fio's "
    "norandommap).  Without it a random job does every block once per "
    "pass." },
  RAIDSIM_PARAM_END,
};
#undef J

static const char *const rw_names[] = {
  [RAIDSIM_RW_READ] = "read",
  [RAIDSIM_RW_WRITE] = "write",
  [RAIDSIM_RW_RANDREAD] = "randread",
  [RAIDSIM_RW_RANDWRITE] = "randwrite",
  [RAIDSIM_RW_MIXED] = "rw",
  [RAIDSIM_RW_RANDMIXED] = "randrw",
};

const char *
raidsim_rw_name (int rw)
{
  return rw_names[rw];
}

bool
raidsim_rw_is_random (int rw)
{
  return rw == RAIDSIM_RW_RANDREAD || rw == RAIDSIM_RW_RANDWRITE ||
    rw == RAIDSIM_RW_RANDMIXED;
}

void
raidsim_jobfile_free (struct raidsim_jobfile *jf)
{
  if (jf) {
    free (jf->jobs);
    free (jf);
  }
}

struct raidsim_jobfile *
raidsim_jobfile_load (const char *path)
{
  struct raidsim_ini *ini;
  struct raidsim_jobfile *jf;
  struct raidsim_job global;
  unsigned i;

  ini = raidsim_ini_load (path, RAIDSIM_INI_FIO);
  if (ini == NULL)
    return NULL;
  jf = calloc (1, sizeof *jf);
  if (jf == NULL ||
      (ini->nsections && (jf->jobs = calloc (ini->nsections,
                                             sizeof *jf->jobs)) == NULL)) {
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    goto err;
  }
  snprintf (jf->path, sizeof jf->path, "%s", path);

  memset (&global, 0, sizeof global);
  raidsim_params_defaults (raidsim_fio_params, &global);

  /* Sections in file order, as fio reads them: [global] changes the
   * defaults of the jobs after it, not of those before.
   */
  for (i = 0; i < ini->nsections; ++i) {
    const struct raidsim_param *tables[] = { raidsim_fio_params };
    struct raidsim_job *j;
    void *bases[1];
    unsigned *lines[1];

    if (strcmp (ini->sections[i].name, "global") == 0) {
      bases[0] = &global;
      lines[0] = global.opt_line;
      if (raidsim_params_apply (ini, i, 1, tables, bases, lines,
                                false) == -1)
        goto err;
      continue;
    }
    j = &jf->jobs[jf->njobs++];
    *j = global;
    snprintf (j->name, sizeof j->name, "%s", ini->sections[i].name);
    j->line = ini->sections[i].line;
    bases[0] = j;
    lines[0] = j->opt_line;
    if (raidsim_params_apply (ini, i, 1, tables, bases, lines, false) == -1)
      goto err;
  }
  if (jf->njobs == 0) {
    raidsim_set_error ("%s: no job sections (only [global], or empty)",
                       path);
    goto err;
  }
  for (i = 0; i < jf->njobs; ++i) {
    const struct raidsim_job *j = &jf->jobs[i];

    if (j->time_based && j->runtime == 0) {
      raidsim_set_error ("%s:%u: time_based: needs runtime (fio would run "
                         "forever)", path, j->opt_line[RAIDSIM_FIO_TIME_BASED]
                         ? j->opt_line[RAIDSIM_FIO_TIME_BASED] : j->line);
      goto err;
    }
  }
  raidsim_jobfile_groups (jf);
  raidsim_ini_free (ini);
  return jf;

 err:
  raidsim_ini_free (ini);
  raidsim_jobfile_free (jf);
  return NULL;
}

void
raidsim_jobfile_groups (struct raidsim_jobfile *jf)
{
  unsigned i, g = 0;

  for (i = 0; i < jf->njobs; ++i) {
    if (i > 0 && jf->jobs[i].stonewall)
      g++;
    jf->jobs[i].group = g;
  }
  jf->ngroups = jf->njobs ? g + 1 : 0;
}

/* The line to blame for an option: where it was set, or the job's
 * header if it has its default.
 */
static unsigned
blame (const struct raidsim_job *j, enum raidsim_fio_opt o)
{
  return j->opt_line[o] ? j->opt_line[o] : j->line;
}

int
raidsim_job_region (const struct raidsim_jobfile *jf,
                    const struct raidsim_job *j, uint64_t array_size,
                    uint64_t *start, uint64_t *nblocks,
                    uint64_t *size_ios)
{
  uint64_t size;

  if (j->offset >= array_size) {
    raidsim_set_error ("%s:%u: offset: %" PRIu64 " is not inside the array "
                       "(%" PRIu64 " bytes)", jf->path,
                       blame (j, RAIDSIM_FIO_OFFSET), j->offset, array_size);
    return -1;
  }
  size = j->size ? j->size : array_size - j->offset;
  if (size > array_size - j->offset) {
    raidsim_set_error ("%s:%u: size: %" PRIu64 " bytes from offset %" PRIu64
                       " run past the end of the array (%" PRIu64 " bytes)",
                       jf->path, blame (j, RAIDSIM_FIO_SIZE), size,
                       j->offset, array_size);
    return -1;
  }
  if (size < j->bs) {
    raidsim_set_error ("%s:%u: size: %" PRIu64 " bytes is less than one "
                       "block (bs = %" PRIu64 ")", jf->path,
                       blame (j, RAIDSIM_FIO_SIZE), size, j->bs);
    return -1;
  }
  *start = j->offset;
  /* fio issues I/O until it has done size bytes: sequentially that is
   * every block that starts inside the region, as long as the block
   * ends inside the file (the array); a random job's map holds the
   * region's whole blocks only, and the job ends when it is full.
   * With norandommap there is no map to run out of: fio still draws
   * among the whole blocks, but goes on until it has done size bytes.
   */
  if (raidsim_rw_is_random (j->rw)) {
    *nblocks = size / j->bs;
    *size_ios = j->norandommap ? (size + j->bs - 1) / j->bs : *nblocks;
  }
  else {
    *nblocks = (size + j->bs - 1) / j->bs;
    if (*nblocks > (array_size - j->offset) / j->bs)
      *nblocks = (array_size - j->offset) / j->bs;
    *size_ios = *nblocks;
  }
  return 0;
}
