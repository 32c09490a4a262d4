/* raidsim: workloads read from fio job files.
 *
 * The simulator reads the same job file that fio runs against the
 * emulated array, so that both mean the same thing by it.  Every option
 * of fio 3.33 falls in one of three kinds (docs/fio-jobs.md lists them
 * all, from the tables in fiojob.c):
 *
 *   - modelled: the table raidsim_fio_params below, read with fio's own
 *     spellings and aliases (readwrite for rw, blocksize for bs,
 *     rwmixwrite as 100 - rwmixread, ...);
 *   - noted: options with no timing meaning for a model (ioengine,
 *     filename, direct, logging, verification ...).  They are accepted,
 *     have no effect, and are listed once in jf->noted so that `raidsim
 *     run` can say so;
 *   - refused: options whose timing a block-device model cannot honour
 *     (sync=1: the models have no durable write), or that raidsim does not model
 *     yet.  Loading fails with "FILE:LINE: OPTION: why".
 *
 * An option that is neither is an error too, never silently ignored,
 * because an ignored option would make the two runs differ.
 *
 * As in fio, [global] sets defaults for the job sections that follow
 * it, every other section is a job, and all jobs run at the same time.
 * Numbers take fio's suffixes with fio's meaning (bs=4k is 4096 bytes,
 * 4kib 4000 unless kb_base=1000; see fio_size in fiojob.c), and times
 * fio's units (runtime=10 is ten seconds); ${VAR} is replaced by the
 * environment variable, as fio does.
 */
#ifndef RAIDSIM_FIOJOB_H
#define RAIDSIM_FIOJOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "raidsim/param.h"

struct raidsim_trace;

enum raidsim_rw {
  RAIDSIM_RW_READ,
  RAIDSIM_RW_WRITE,
  RAIDSIM_RW_RANDREAD,
  RAIDSIM_RW_RANDWRITE,
  RAIDSIM_RW_MIXED,             /* rw, readwrite */
  RAIDSIM_RW_RANDMIXED,         /* randrw */
};

/* The fio options, in the order of the table. */
enum raidsim_fio_opt {
  RAIDSIM_FIO_RW, RAIDSIM_FIO_BS, RAIDSIM_FIO_IODEPTH, RAIDSIM_FIO_NUMJOBS,
  RAIDSIM_FIO_SIZE, RAIDSIM_FIO_OFFSET, RAIDSIM_FIO_RWMIXREAD,
  RAIDSIM_FIO_NUMBER_IOS, RAIDSIM_FIO_RUNTIME, RAIDSIM_FIO_RAMP_TIME,
  RAIDSIM_FIO_TIME_BASED, RAIDSIM_FIO_STONEWALL, RAIDSIM_FIO_NORANDOMMAP,
  RAIDSIM_FIO_BSRANGE, RAIDSIM_FIO_BSSPLIT, RAIDSIM_FIO_OFFSET_INCREMENT,
  RAIDSIM_FIO_OFFSET_ALIGN, RAIDSIM_FIO_IO_SIZE, RAIDSIM_FIO_LOOPS,
  RAIDSIM_FIO_STARTDELAY, RAIDSIM_FIO_THINKTIME, RAIDSIM_FIO_THINKTIME_BLOCKS,
  RAIDSIM_FIO_RATE, RAIDSIM_FIO_RATE_IOPS, RAIDSIM_FIO_RATE_PROCESS,
  RAIDSIM_FIO_IO_SUBMIT_MODE, RAIDSIM_FIO_RANDOM_DISTRIBUTION,
  RAIDSIM_FIO_ZONEMODE, RAIDSIM_FIO_ZONESIZE, RAIDSIM_FIO_ZONERANGE,
  RAIDSIM_FIO_ZONESKIP, RAIDSIM_FIO_BA, RAIDSIM_FIO_FILL_DEVICE,
  RAIDSIM_FIO_FILESIZE, RAIDSIM_FIO_WAIT_FOR, RAIDSIM_FIO_NEW_GROUP,
  RAIDSIM_FIO_EXITALL, RAIDSIM_FIO_EXIT_WHAT,
  RAIDSIM_FIO_READ_IOLOG, RAIDSIM_FIO_REPLAY_NO_STALL,
  RAIDSIM_FIO_REPLAY_TIME_SCALE,
  RAIDSIM_FIO_FSYNC, RAIDSIM_FIO_FDATASYNC, RAIDSIM_FIO_END_FSYNC,
  RAIDSIM_FIO_FSYNC_ON_CLOSE,
  RAIDSIM_FIO_SYNC, RAIDSIM_FIO_WRITEFUA,
  RAIDSIM_FIO_NOPTS
};

enum raidsim_rate_process {
  RAIDSIM_RATE_LINEAR,          /* I/O k at k x bs / rate */
  RAIDSIM_RATE_POISSON,         /* exponential gaps of mean bs / rate */
};

enum raidsim_random_dist {
  RAIDSIM_DIST_RANDOM,          /* uniform */
  RAIDSIM_DIST_ZIPF,            /* fio's zipf:THETA */
  RAIDSIM_DIST_PARETO,          /* fio's pareto:H */
  RAIDSIM_DIST_NORMAL,          /* fio's normal:DEV (percent) */
  RAIDSIM_DIST_ZONED,           /* fio's zoned:ACCESS/SIZE:... */
};

/* zoned: at most this many zones per direction (fio allows 256). */
#define RAIDSIM_ZONESPLIT_MAX 64

struct raidsim_zone_split {
  unsigned access;              /* percent of the I/Os */
  unsigned size;                /* percent of the region, after the
                                 * zones before */
};

/* With exitall, what a thread that finishes ends (fio's exit_what). */
enum raidsim_exit_what {
  RAIDSIM_EXIT_GROUP,           /* the threads of its reporting group */
  RAIDSIM_EXIT_STONEWALL,       /* every thread that has started */
  RAIDSIM_EXIT_ALL,             /* every thread, started or not */
};

enum raidsim_trim_mode {
  RAIDSIM_TRIM_NONE,
  RAIDSIM_TRIM_ONLY,            /* rw=trim, randtrim */
  RAIDSIM_TRIM_THEN_WRITE,      /* rw=trimwrite, randtrimwrite */
};

enum raidsim_submit_mode {
  RAIDSIM_SUBMIT_INLINE,        /* fio's default: drain before a wait */
  RAIDSIM_SUBMIT_OFFLOAD,       /* open loop */
};

/* fio's limit on bssplit entries per direction (BSSPLIT_MAX). */
#define RAIDSIM_BSSPLIT_MAX 64

struct raidsim_bssplit {
  uint64_t bs;                  /* bytes */
  unsigned perc;                /* percent of I/Os */
};

/* How the sizes of one direction's I/Os are drawn, from bs, bsrange and
 * bssplit as fio combines them (raidsim_job_bsdist).
 */
struct raidsim_bsdist {
  uint64_t min, max;            /* bytes; min == max: every I/O is min */
  /* bssplit's entries in the order fio draws them (by percentage, the
   * smallest first); none: uniform over min..max as bsrange draws.
   */
  unsigned nsplit;
  struct raidsim_bssplit split[RAIDSIM_BSSPLIT_MAX];
};

struct raidsim_job {
  char name[RAIDSIM_STR_MAX];   /* the section name */
  unsigned line;                /* of the section header */
  int rw;                       /* enum raidsim_rw */
  uint64_t bs;                  /* bytes */
  uint64_t iodepth;
  uint64_t numjobs;
  uint64_t size;                /* bytes; 0: to the end of the array */
  uint64_t offset;              /* bytes */
  uint64_t rwmixread;           /* percent */
  uint64_t number_ios;          /* per thread; 0: no limit */
  uint64_t runtime;             /* ns after ramp_time; 0: no limit */
  uint64_t ramp_time;           /* ns */
  bool time_based;              /* keep going until runtime, over and over */
  bool stonewall;               /* wait for the jobs before to finish */
  bool norandommap;             /* random offsets drawn with replacement */
  char bsrange[RAIDSIM_STR_MAX]; /* as written; parsed into range */
  char bssplit[RAIDSIM_STR_MAX]; /* as written; parsed into split */
  uint64_t offset_increment;    /* bytes: thread i starts i times further */
  uint64_t offset_align;        /* bytes; 0: the smallest block size */
  uint64_t io_size;             /* bytes a thread does; 0: size */
  uint64_t loops;               /* passes */
  uint64_t startdelay;          /* ns */
  uint64_t thinktime;           /* ns */
  uint64_t thinktime_blocks;    /* I/Os between thinks */
  uint64_t rate;                /* bytes/s of reads (and of writes unless
                                 * wrate); 0: unlimited */
  uint64_t rate_iops;           /* I/Os per second, likewise */
  int rate_process;             /* enum raidsim_rate_process */
  int io_submit_mode;           /* enum raidsim_submit_mode */
  int random_distribution;      /* enum raidsim_random_dist */
  double dist_param;            /* zipf's theta, pareto's h, normal's
                                 * deviation in percent */
  double dist_center;           /* where the hottest block is, 0 to 1;
                                 * -1: at random */
  unsigned nzones[2];           /* zoned, per direction (0 read, 1 write) */
  struct raidsim_zone_split zones[2][RAIDSIM_ZONESPLIT_MAX];
  int zonemode;                 /* 0 none, 1 strided */
  uint64_t zonesize;            /* bytes done in a zone before the next */
  uint64_t zonerange;           /* bytes of a zone; 0: zonesize */
  uint64_t zoneskip;            /* bytes between zones */
  uint64_t ba;                  /* random offsets' multiple, reads (and
                                 * writes unless wba); 0: smallest bs */
  bool fill_device;             /* region to the end of the array */
  uint64_t filesize;            /* the file's size: the region's end, from
                                 * the array's start; 0: not set */
  bool new_group;               /* starts a new reporting group */
  bool exitall;                 /* this section had exitall */
  int exit_what;                /* enum raidsim_exit_what */
  uint64_t fsync, fdatasync;    /* a flush after every N writes; 0: none */
  bool end_fsync, fsync_on_close; /* a flush when the thread ends */
  unsigned report_group;        /* fio's groupid: new at each new_group or
                                 * stonewall (raidsim_jobfile_load) */
  char wait_for[RAIDSIM_STR_MAX]; /* start when that job is done */
  unsigned waitee;              /* 1 + its index in the file's jobs; 0:
                                 * none (raidsim_jobfile_load sets it) */
  /* Trace replay (trace.h): the job issues the trace's I/Os in order,
   * instead of choosing them.
   */
  char read_iolog[RAIDSIM_STR_MAX]; /* the trace's path; "": none */
  bool replay_no_stall;         /* as fast as iodepth allows */
  uint64_t replay_time_scale;   /* percent of the trace's rate; 0: 100 */
  const struct raidsim_trace *trace; /* loaded by raidsim_jobfile_load,
                                 * freed with the jobfile; NULL: none */
  int64_t seq_add;              /* rw=read:N: N bytes between sequential
                                 * I/Os (negative: backwards) */
  uint64_t seq_nr;              /* rw=randread:N: a new random offset
                                 * every N I/Os; 0 or 1: every one */
  unsigned opt_line[RAIDSIM_FIO_NOPTS]; /* line that set each; 0: default */
  /* For size, offset, offset_increment and io_size: a percentage
   * (1 to 100) instead of the field's bytes; 0: bytes.
   */
  unsigned char pct[RAIDSIM_FIO_NOPTS];
  unsigned kb_base;             /* fio's kb_base, 1024 or 1000; 0: 1024.
                                 * Only parsing uses it. */
  /* Block sizes beyond bs, per direction (0 read, 1 write); all 0
   * unless set, which is what a job built by hand (a preset) has.  Use
   * raidsim_job_bsdist rather than these.
   */
  uint64_t wbs;                 /* bs=R,W: W; 0: as bs */
  uint64_t wrate, wrate_iops;   /* rate=R,W: W; 0: as rate */
  uint64_t startdelay_high;     /* startdelay=LOW-HIGH: HIGH; 0: none */
  uint64_t wba;                 /* ba=R,W: W; 0: as ba */
  uint64_t range[2][2];         /* bsrange: min, max; 0: not set */
  unsigned nsplit[2];           /* bssplit */
  struct raidsim_bssplit split[2][RAIDSIM_BSSPLIT_MAX];

  /* rw=trim, randtrim, trimwrite, randtrimwrite: the job is rw=write
   * (or randwrite) whose requests are trims (RAIDSIM_TRIM_ONLY), or
   * whose every write is first trimmed (RAIDSIM_TRIM_THEN_WRITE).
   */
  int trim;                     /* enum raidsim_trim_mode */
  uint64_t tbs;                 /* bs=R,W,T: T; 0: as the writes' */
  int sync;                     /* sync=: 0 none, 1 sync, 2 dsync */
  bool writefua;                /* writefua=1 */
  bool fua;                     /* either: the writes are FUA writes */

  /* Not fio options: set by the preset expander (preset.c). */
  bool hidden;                  /* run it, leave it out of the reports */
  unsigned group;               /* stonewall group, from 0, in file order */
};

/* How a report sums up the jobs of a workload, beyond one entry per
 * job: set by presets that are reported as one figure (HD Tune's
 * surface scan reports min, max and average over its sample points).
 */
enum raidsim_summary {
  RAIDSIM_SUMMARY_NONE,
  RAIDSIM_SUMMARY_SURFACE,
};

struct raidsim_jobfile {
  char path[RAIDSIM_STR_MAX];   /* or "preset:NAME" */
  unsigned njobs;
  struct raidsim_job *jobs;
  unsigned ngroups;             /* stonewall groups: jobs[].group < ngroups */
  int summary;                  /* enum raidsim_summary */
  bool exitall;                 /* any section has exitall: fio then ends
                                 * other threads as each one finishes */
  /* The options noted and ignored (no timing meaning for a model), each
   * once, in the order they first appear, as written ("ioengine, direct,
   * group_reporting"); NULL if there were none.
   */
  char *noted;
  /* A preset's assumptions where its sources are silent ("queue depth
   * 16 (the default: an estimate ...) in every test; ..."), printed by
   * every report of a run; NULL for job files and presets with none.
   */
  char *assumed;
};

extern const struct raidsim_param raidsim_fio_params[];

/* NULL with raidsim_error () set ("FILE:LINE: OPTION: what is wrong"). */
extern struct raidsim_jobfile *raidsim_jobfile_load (const char *path);
/* The same from text in memory, which messages call name (the fuzzing
 * harness, tests/fuzz/fuzz-fiojob.c).
 */
extern struct raidsim_jobfile *raidsim_jobfile_load_text (const char *name,
                                                          const char *text);
extern void raidsim_jobfile_free (struct raidsim_jobfile *jf);

/* A job file of one job that replays the trace at path (read_iolog),
 * iodepth I/Os in flight at most, timed or (no_stall) as fast as it
 * can: what `raidsim run --trace` runs.  NULL with raidsim_error () set
 * (the trace's "FILE:LINE: ..." message).
 */
extern struct raidsim_jobfile *raidsim_jobfile_trace (const char *path,
                                                      uint64_t iodepth,
                                                      bool no_stall);

/* If jf noted options, print "PREFIX: PATH: noted, no effect on the
 * model: A, B, C" and a newline to fp (raidsim run: on stderr); and for
 * a replayed trace with syncs or trims, how many were skipped.
 */
extern void raidsim_jobfile_print_noted (FILE *fp, const char *prefix,
                                         const struct raidsim_jobfile *jf);

/* The reference of fio's options as raidsim reads them, in Markdown:
 * the aliases, the noted options and the refused ones by reason, from
 * the same tables the loader uses (docs/fio-jobs.md includes it).
 */
extern void raidsim_fio_options_doc (FILE *fp);

/* The part of the array one thread of a job works in. */
struct raidsim_region {
  uint64_t start;               /* array byte where it begins */
  uint64_t len;                 /* its bytes */
  uint64_t room;                /* bytes from start to the end of the array */
  uint64_t bytes;               /* bytes a thread does in a pass (size, or
                                 * io_size) */
  uint64_t loops;               /* passes, unless time_based */
  /* Jobs whose every I/O is bs (raidsim_job_bs_fixed): */
  uint64_t nblocks;             /* blocks of bs the thread can use */
  uint64_t size_ios;            /* I/Os that do bytes */
};

/* Check job j against an array of array_size bytes and work out the
 * region of its thread number `thread` (from 0).  Returns 0, or -1 with
 * raidsim_error () set to "FILE:LINE: OPTION: what is wrong".
 */
extern int raidsim_job_thread_region (const struct raidsim_jobfile *jf,
                                      const struct raidsim_job *j,
                                      uint64_t array_size, unsigned thread,
                                      struct raidsim_region *r);

/* Check job j against an array of array_size bytes, and work out the
 * region it covers (nblocks blocks of bs from start) and how many I/Os
 * a thread issues before it has done size bytes (size_ios).  Returns 0,
 * or -1 with raidsim_error () set to "FILE:LINE: OPTION: what is wrong".
 */
extern int raidsim_job_region (const struct raidsim_jobfile *jf,
                               const struct raidsim_job *j,
                               uint64_t array_size,
                               uint64_t *start, uint64_t *nblocks,
                               uint64_t *size_ios);

/* Number the stonewall groups of jf's jobs (jobs[].group, ngroups), as
 * fio does: a job with stonewall starts a new group.  The loader calls
 * it; so must whoever builds a jobfile by hand.
 */
extern void raidsim_jobfile_groups (struct raidsim_jobfile *jf);

/* The block sizes of direction dir (0 read, 1 write) of job j, as fio
 * draws them: bssplit if given, else bsrange, else bs (bs=R,W).
 */
extern void raidsim_job_bsdist (const struct raidsim_job *j, int dir,
                                struct raidsim_bsdist *d);
/* Whether j paces itself (rate, rate_iops, thinktime, startdelay): the
 * simulator then keeps a wake-up for each of its threads.
 */
extern bool raidsim_job_timed (const struct raidsim_job *j);
/* Whether every I/O of j, read or write, is j->bs bytes. */
extern bool raidsim_job_bs_fixed (const struct raidsim_job *j);
/* The largest I/O of j, and a size that divides every I/O size it
 * can draw (for the simulator's pools and its smallest member command).
 */
extern uint64_t raidsim_job_max_bs (const struct raidsim_job *j);
extern uint64_t raidsim_job_bs_gcd (const struct raidsim_job *j);
/* j's block sizes in file syntax: "4k" as before, "4k,64k" for bs=R,W,
 * "4k-16k" or "4k/60:64k/40" (bsrange, bssplit; reads and writes
 * separated by a comma when they differ).
 */
extern void raidsim_job_bs_text (const struct raidsim_job *j, char *buf,
                                 size_t len);

/* Option o of job j in file syntax (bs=R,W as "4k,64k"), for
 * `raidsim config` and the job-file writer.
 */
extern void raidsim_job_format_opt (const struct raidsim_job *j,
                                    enum raidsim_fio_opt o, char *buf,
                                    size_t len);

extern bool raidsim_rw_is_random (int rw);
/* The job's rw as fio spells it: raidsim_rw_name, or trim, randtrim,
 * trimwrite, randtrimwrite for a job that trims.
 */
extern const char *raidsim_job_rw_name (const struct raidsim_job *j);
extern const char *raidsim_rw_name (int rw);

#endif /* RAIDSIM_FIOJOB_H */
