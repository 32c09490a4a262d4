/* raidsim: reading fio job files (see fiojob.h).  The option table below
 * holds the options raidsim models: their names, defaults and help are
 * fio's, so that a job means what fio's HOWTO says it means.  After it,
 * fio's value syntax, and the tables of fio's other options, each noted
 * (accepted, no effect on the model) or refused, with the reason.
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "raidsim/engine.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"
#include "raidsim/trace.h"

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

static const struct raidsim_enum rate_process_enums[] = {
  { "linear", RAIDSIM_RATE_LINEAR },
  { "poisson", RAIDSIM_RATE_POISSON },
  { NULL, 0 },
};

static const struct raidsim_enum dist_enums[] = {
  { "random", RAIDSIM_DIST_RANDOM },
  { "zipf", RAIDSIM_DIST_ZIPF },
  { "pareto", RAIDSIM_DIST_PARETO },
  { "normal", RAIDSIM_DIST_NORMAL },
  { "zoned", RAIDSIM_DIST_ZONED },
  { NULL, 0 },
};

static const struct raidsim_enum zonemode_enums[] = {
  { "none", 0 },
  { "strided", 1 },
  { NULL, 0 },
};

static const struct raidsim_enum exit_what_enums[] = {
  { "group", RAIDSIM_EXIT_GROUP },
  { "stonewall", RAIDSIM_EXIT_STONEWALL },
  { "all", RAIDSIM_EXIT_ALL },
  { NULL, 0 },
};

/* fio's sync= (options.c, str_sync_cb): a number or these names. */
static const struct raidsim_enum sync_enums[] = {
  { "0", 0 }, { "none", 0 }, { "1", 1 }, { "sync", 1 }, { "dsync", 2 },
  { NULL, 0 },
};

static const struct raidsim_enum submit_enums[] = {
  { "inline", RAIDSIM_SUBMIT_INLINE },
  { "offload", RAIDSIM_SUBMIT_OFFLOAD },
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
    .help = "Block size of every I/O.  As in fio, `bs=R,W` gives reads R "
    "and writes W (a third size, for trims, is read and unused), and "
    "`bs=,W` changes the writes' only.  bsrange and bssplit, if given, "
    "take precedence." },
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
    "included, as fio counts them.  0: to the end of the array.  `N%` is "
    "N percent of the array, capped at its end and rounded down to a "
    "multiple of the smallest block size, as in fio.  As in "
    "fio, a job whose size is not a whole number of blocks does one "
    "block more: sequentially it runs past offset + size if the array "
    "has room for it, with norandommap it is one more draw among the "
    "region's whole blocks; with fio's random map a job does the whole "
    "blocks of the region only." },
  { .name = "offset", .type = RAIDSIM_PT_FIO_INT, .offset = J (offset),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "Start of the region in the array.  `N%` is N percent of "
    "the array, rounded up to a multiple of offset_align (default: the "
    "smallest block size), as in fio." },
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
  { .name = "bsrange", .type = RAIDSIM_PT_STRING, .offset = J (bsrange),
    .def = "",
    .help = "`MIN-MAX` (or `MIN:MAX`), and `,MIN-MAX` for writes: each "
    "I/O's size drawn as fio draws it, MIN plus a uniform fraction of MAX, "
    "rounded down to a multiple of MIN and capped at MAX, which is "
    "uniform over the multiples of MIN when MIN divides MAX.  A random "
    "job's offsets are multiples of MIN, and an I/O is drawn again if it "
    "would run past the region." },
  { .name = "bssplit", .type = RAIDSIM_PT_STRING, .offset = J (bssplit),
    .def = "",
    .help = "`BS/PERCENT:BS/PERCENT...`, and `,...` for writes: each I/O's "
    "size is BS with that percentage, as in fio: entries without a "
    "percentage (or with 0) share what the others leave, and if the "
    "percentages add up to less than 100 the rest goes to the entry with "
    "the largest.  A random job's offsets are multiples of the smallest "
    "BS; an I/O that would run past the region takes the next entry that "
    "fits.  Takes precedence over bsrange and bs." },
  { .name = "offset_increment", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (offset_increment), .def = "0", .min = 0, .unit = "bytes",
    .help = "Thread i of a numjobs job (from 0) starts at offset + i x "
    "offset_increment, each over its own region of size.  `N%` is N "
    "percent of the array, and then the start is rounded up as for an "
    "offset in percent." },
  { .name = "offset_align", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (offset_align), .def = "0", .min = 0, .unit = "bytes",
    .help = "What an offset given in percent (or an offset_increment in "
    "percent) is rounded up to.  0: the smallest block size." },
  { .name = "io_size", .type = RAIDSIM_PT_FIO_INT, .offset = J (io_size),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "Bytes each thread does in a pass, going over its region again "
    "if that is smaller, or stopping short of its end.  `N%` is N percent "
    "of the region (at most 100).  0: size." },
  { .name = "loops", .type = RAIDSIM_PT_FIO_INT, .offset = J (loops),
    .def = "1", .min = 1, .unit = "passes",
    .help = "Passes each thread makes, each from the region's start (for "
    "a random job, a new random order), each doing size (or io_size) "
    "bytes; number_ios is multiplied by it, as fio does.  time_based "
    "ignores it." },
  { .name = "startdelay", .type = RAIDSIM_PT_FIO_TIME,
    .offset = J (startdelay), .def = "0", .min = 0,
    .help = "Start each thread this long after its group (the run, or its "
    "stonewall) starts; ramp_time and runtime count from there.  "
    "`LOW-HIGH` draws a time for each thread, uniformly, as fio does." },
  { .name = "thinktime", .type = RAIDSIM_PT_FIO_TIME,
    .offset = J (thinktime), .def = "0", .min = 0, .unit = "us",
    .help = "After every thinktime_blocks I/Os a thread issues, it waits "
    "for all it has in flight to complete and then this long, as fio's "
    "handle_thinktime (which counts completed I/Os by default: the same "
    "at iodepth=1).  A number without a unit is microseconds, as in "
    "fio." },
  { .name = "thinktime_blocks", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (thinktime_blocks), .def = "1", .min = 1, .unit = "I/Os",
    .help = "I/Os between thinks (thinktime)." },
  { .name = "rate", .type = RAIDSIM_PT_FIO_INT, .offset = J (rate),
    .def = "0", .min = 0, .unit = "bytes/s",
    .help = "Each thread issues at most this many bytes per second "
    "(`rate=R,W` for reads and writes apart), on fio's schedule: the "
    "I/O after B bytes at B / rate from the thread's start, or with "
    "rate_process=poisson after exponential gaps.  When a thread is ahead "
    "of its schedule it waits, after first letting all its I/O in flight "
    "complete, as fio does unless io_submit_mode=offload.  0: "
    "unlimited." },
  { .name = "rate_iops", .type = RAIDSIM_PT_FIO_INT, .offset = J (rate_iops),
    .def = "0", .min = 0, .unit = "I/Os per s",
    .help = "As rate, in I/Os of the smallest block size per second "
    "(`rate_iops=R,W`); rate takes precedence." },
  { .name = "rate_process", .type = RAIDSIM_PT_ENUM,
    .offset = J (rate_process), .def = "linear", .enums = rate_process_enums,
    .help = "linear: evenly spaced I/Os; poisson: arrivals of a Poisson "
    "process, each gap exponential with mean bs / rate (in whole "
    "microseconds, as fio rounds it)." },
  { .name = "io_submit_mode", .type = RAIDSIM_PT_ENUM,
    .offset = J (io_submit_mode), .def = "inline", .enums = submit_enums,
    .help = "With rate or rate_iops: inline, fio's default, lets the I/O "
    "in flight complete before waiting for the schedule; offload issues "
    "on schedule whatever is in flight (up to iodepth), which makes "
    "arrivals open-loop.  Without a rate it has no effect." },
  { .name = "random_distribution", .type = RAIDSIM_PT_ENUM,
    .offset = J (random_distribution), .def = "random", .enums = dist_enums,
    .help = "How a random job picks its blocks, as fio's lib/zipf.c and "
    "lib/gauss.c do: `zipf:THETA` (default 1.1, not 1), `pareto:H` (0 < H "
    "< 1, default 0.2: about 80% of I/Os on 20% of the blocks), "
    "`normal:DEV` (the mean of 12 uniform draws, plus a uniform jitter of "
    "DEV percent of the blocks, default 0), each with an optional "
    "`:CENTER` (0 to 1) where the hottest block is.  As in fio, the "
    "ranks are scattered over the region by a multiplicative hash, and "
    "blocks are drawn with replacement (no random map).  "
    "`zoned:A/S:A/S...` (`,...` for writes) sends A percent of the I/Os "
    "to the next S percent of the region, uniformly within it; the "
    "accesses must add up to 100, and a missing S takes what the others "
    "leave, as fio's zone_split_ddir.  zoned_abs is refused." },
  { .name = "zonemode", .type = RAIDSIM_PT_ENUM, .offset = J (zonemode),
    .def = "none", .enums = zonemode_enums,
    .help = "strided: as fio's setup_strided_zone_mode, a thread works in a "
    "zone of zonerange bytes from offset until it has done zonesize bytes "
    "there (going over the zone again if zonesize is larger), then moves "
    "zonerange + zoneskip further, back to offset past the end of the "
    "array; a sequential job restarts at each zone's start, a random one "
    "draws in the zone, with a new map each zonerange bytes.  size (by "
    "default the array) is the bytes of I/O, not the extent.  One block "
    "size only.  fio's zbd is refused." },
  { .name = "zonesize", .type = RAIDSIM_PT_FIO_INT, .offset = J (zonesize),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "For zonemode=strided: bytes done in a zone before the next; "
    "needed." },
  { .name = "zonerange", .type = RAIDSIM_PT_FIO_INT, .offset = J (zonerange),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "For zonemode=strided: the size of a zone.  0: zonesize." },
  { .name = "zoneskip", .type = RAIDSIM_PT_FIO_INT, .offset = J (zoneskip),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "For zonemode=strided: the bytes between one zone and the "
    "next." },
  { .name = "ba", .type = RAIDSIM_PT_FIO_INT, .offset = J (ba), .def = "0",
    .min = 0, .max = UINT64_C (256) << 20, .unit = "bytes",
    .help = "Random offsets are multiples of this (`ba=R,W` apart), fio's "
    "blockalign.  0: each direction's smallest block size." },
  { .name = "fill_device", .type = RAIDSIM_PT_BOOL,
    .offset = J (fill_device), .def = "0",
    .help = "A flag: the job goes on until the device is full, so its "
    "region runs from offset to the end of the array, whatever size "
    "says (fio's fill_device, for which the end is ENOSPC)." },
  { .name = "filesize", .type = RAIDSIM_PT_FIO_INT, .offset = J (filesize),
    .def = "0", .min = 0, .unit = "bytes",
    .help = "The size of the job's one file: its region ends there, from "
    "the start of the array, and size (if given) is capped at it, as in "
    "fio's setup_files.  A range (several files of random sizes) is "
    "refused.  0: not set." },
  { .name = "wait_for", .type = RAIDSIM_PT_STRING, .offset = J (wait_for),
    .def = "",
    .help = "The name of an earlier job: this one starts when every thread "
    "of that one is done, as in fio (which wants the name defined before, "
    "and once)." },
  { .name = "new_group", .type = RAIDSIM_PT_BOOL, .offset = J (new_group),
    .def = "0",
    .help = "A flag: this job starts a new reporting group, as a stonewall "
    "does.  raidsim reports jobs one by one; the groups matter to "
    "exitall." },
  { .name = "exitall", .type = RAIDSIM_PT_BOOL, .offset = J (exitall),
    .def = "0",
    .help = "A flag: when a thread finishes, the others it names by "
    "exit_what stop issuing (their I/O in flight completes).  As in fio "
    "3.33, it holds for the whole file once any section has it, whatever "
    "its value (fio's callback sets it even for exitall=0)." },
  { .name = "exit_what", .type = RAIDSIM_PT_ENUM, .offset = J (exit_what),
    .def = "group", .enums = exit_what_enums,
    .help = "With exitall, what a finishing thread ends: group, the "
    "threads of its reporting group (new_group, stonewall); stonewall, "
    "every thread that has started; all, every thread, those not started "
    "yet too." },
  { .name = "read_iolog", .type = RAIDSIM_PT_STRING, .offset = J (read_iolog),
    .def = "",
    .help = "Replay a trace instead of choosing I/Os: a fio iolog (version 2 "
    "or 3), blkparse's default text output, or blktrace's binary records "
    "(docs/simulator.md, Trace replay).  The job issues the trace's reads "
    "and writes in order at their offsets in the array, at most iodepth "
    "at a time; an I/O is due at its time in the trace (from the first "
    "I/O), waits if iodepth are in flight (the wait is the host-queue "
    "stage), and issues at once if it is late.  rw, bs, size, offset and "
    "the other options that choose I/Os are ignored; ramp_time, runtime, "
    "number_ios, iodepth and numjobs apply (each thread replays the whole "
    "trace).  Syncs and trims are skipped and counted.  A relative path is "
    "taken from the current directory, as fio does." },
  { .name = "replay_no_stall", .type = RAIDSIM_PT_BOOL,
    .offset = J (replay_no_stall), .def = "0",
    .help = "A flag: replay the trace as fast as the array and iodepth "
    "allow, ignoring its times (a closed loop), as fio does." },
  { .name = "replay_time_scale", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (replay_time_scale), .def = "100", .min = 1,
    .max = 1000000, .unit = "%",
    .help = "The trace's rate in percent: 200 replays it twice as fast "
    "(every time halved), 50 at half speed, as fio's option." },
  { .name = "fsync", .type = RAIDSIM_PT_FIO_INT, .offset = J (fsync),
    .def = "0", .min = 0, .unit = "writes",
    .help = "After every fsync writes a thread issues, it issues a flush "
    "of the array (to every live member), as fio 3.33's get_rw_ddir "
    "does: the count is of writes issued (io_issues), the flush comes "
    "right after the write that makes the count a multiple, it takes "
    "one of the thread's iodepth slots, and the thread issues nothing "
    "else until it completes (fio's libaio and sync engines run fsync "
    "synchronously; writes already in flight are not waited for).  "
    "Reported as `flush` lines.  0: none." },
  { .name = "fdatasync", .type = RAIDSIM_PT_FIO_INT,
    .offset = J (fdatasync), .def = "0", .min = 0, .unit = "writes",
    .help = "As fsync: on a block device fdatasync is the same flush.  "
    "With both, a flush comes when either count is reached." },
  { .name = "end_fsync", .type = RAIDSIM_PT_BOOL, .offset = J (end_fsync),
    .def = "0",
    .help = "A flag: a thread of a job that writes issues one flush once "
    "it has stopped and its I/O has completed, and finishes when the "
    "flush has (fio's do_io end).  Like fio, this flush is not in the "
    "job's figures, but the time it takes is in the run's." },
  { .name = "fsync_on_close", .type = RAIDSIM_PT_BOOL,
    .offset = J (fsync_on_close), .def = "0",
    .help = "As end_fsync: the job's one file (the array) is closed once, "
    "at its end.  With end_fsync too, one flush." },
  { .name = "sync", .type = RAIDSIM_PT_ENUM, .offset = J (sync),
    .def = "none", .enums = sync_enums,
    .help = "O_SYNC (1, sync) or O_DSYNC (dsync) writes.  Linux sends a "
    "direct write to a block device opened so with FUA (block/fops.c), "
    "md passes FUA on to the member writes, and each member's write is "
    "timed as the block layer sends FUA to a drive with a volatile cache "
    "and no FUA command (blk-flush.c): the write, then a flush of that "
    "member, the write done when the flush is.  A controller's "
    "write-back cache does not acknowledge such a write.  Reads are "
    "unchanged.  0, none: ordinary writes." },
  { .name = "writefua", .type = RAIDSIM_PT_BOOL, .offset = J (writefua),
    .def = "0",
    .help = "A flag: every write is sent with FUA, timed as sync=1 "
    "(fio's sg and io_uring_cmd engines set the command's FUA bit)." },
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

const char *
raidsim_job_rw_name (const struct raidsim_job *j)
{
  bool rnd = raidsim_rw_is_random (j->rw);

  switch (j->trim) {
  case RAIDSIM_TRIM_ONLY: return rnd ? "randtrim" : "trim";
  case RAIDSIM_TRIM_THEN_WRITE: return rnd ? "randtrimwrite" : "trimwrite";
  default: return raidsim_rw_name (j->rw);
  }
}

bool
raidsim_rw_is_random (int rw)
{
  return rw == RAIDSIM_RW_RANDREAD || rw == RAIDSIM_RW_RANDWRITE ||
    rw == RAIDSIM_RW_RANDMIXED;
}

void
raidsim_job_bsdist (const struct raidsim_job *j, int dir,
                    struct raidsim_bsdist *d)
{
  unsigned i;

  d->nsplit = 0;
  if (j->nsplit[dir]) {
    d->nsplit = j->nsplit[dir];
    memcpy (d->split, j->split[dir], d->nsplit * sizeof d->split[0]);
    d->min = UINT64_MAX;
    d->max = 0;
    for (i = 0; i < d->nsplit; ++i) {
      if (d->split[i].bs < d->min)
        d->min = d->split[i].bs;
      if (d->split[i].bs > d->max)
        d->max = d->split[i].bs;
    }
    if (d->min == d->max)
      d->nsplit = 0;
  }
  else if (j->range[dir][0]) {
    d->min = j->range[dir][0];
    d->max = j->range[dir][1];
  }
  else
    d->min = d->max = dir == 1 && j->wbs ? j->wbs : j->bs;
}

bool
raidsim_job_timed (const struct raidsim_job *j)
{
  if (j->trace)
    return j->trace->timed && !j->replay_no_stall;
  return j->rate || j->wrate || j->rate_iops || j->wrate_iops ||
    j->thinktime || j->startdelay || j->startdelay_high;
}

bool
raidsim_job_bs_fixed (const struct raidsim_job *j)
{
  struct raidsim_bsdist d;
  int dir;

  /* Offsets aligned otherwise than to bs are the general path's. */
  if ((j->ba && j->ba != j->bs) || (j->wba && j->wba != j->bs))
    return false;

  for (dir = 0; dir < 2; ++dir) {
    raidsim_job_bsdist (j, dir, &d);
    if (d.min != j->bs || d.max != j->bs)
      return false;
  }
  return true;
}

uint64_t
raidsim_job_max_bs (const struct raidsim_job *j)
{
  struct raidsim_bsdist d;
  uint64_t m = 0;
  int dir;

  if (j->trace)
    return j->trace->max_len;
  for (dir = 0; dir < 2; ++dir) {
    raidsim_job_bsdist (j, dir, &d);
    if (d.max > m)
      m = d.max;
  }
  return m;
}

static uint64_t
gcd (uint64_t a, uint64_t b)
{
  while (b) {
    uint64_t t = a % b;

    a = b;
    b = t;
  }
  return a;
}

uint64_t
raidsim_job_bs_gcd (const struct raidsim_job *j)
{
  struct raidsim_bsdist d;
  uint64_t g = 0;
  unsigned i;
  int dir;

  /* A trace's I/Os are neither multiples of bs nor at multiples of it. */
  if (j->trace)
    return j->trace->gcd;
  for (dir = 0; dir < 2; ++dir) {
    raidsim_job_bsdist (j, dir, &d);
    /* bsrange draws multiples of min, and max. */
    g = gcd (g, gcd (d.min, d.max));
    for (i = 0; i < d.nsplit; ++i)
      g = gcd (g, d.split[i].bs);
  }
  return g;
}

static size_t
dist_text (const struct raidsim_bsdist *d, char *buf, size_t len)
{
  char a[32], b[32];
  size_t n = 0;
  unsigned i;

  if (d->nsplit) {
    for (i = 0; i < d->nsplit; ++i) {
      raidsim_param_format_value (RAIDSIM_PT_FIO_INT, d->split[i].bs, a,
                                  sizeof a);
      n += snprintf (buf + n, n < len ? len - n : 0, "%s%s/%u", i ? ":" : "",
                     a, d->split[i].perc);
    }
    return n;
  }
  raidsim_param_format_value (RAIDSIM_PT_FIO_INT, d->min, a, sizeof a);
  if (d->min == d->max)
    return snprintf (buf, len, "%s", a);
  raidsim_param_format_value (RAIDSIM_PT_FIO_INT, d->max, b, sizeof b);
  return snprintf (buf, len, "%s-%s", a, b);
}

void
raidsim_job_bs_text (const struct raidsim_job *j, char *buf, size_t len)
{
  struct raidsim_bsdist r, w;
  size_t n;

  raidsim_job_bsdist (j, 0, &r);
  raidsim_job_bsdist (j, 1, &w);
  n = dist_text (&r, buf, len);
  if (r.min == w.min && r.max == w.max && r.nsplit == w.nsplit &&
      memcmp (r.split, w.split, r.nsplit * sizeof r.split[0]) == 0)
    return;
  if (n < len) {
    buf[n++] = ',';
    dist_text (&w, buf + n, len - n);
  }
}

void
raidsim_job_format_opt (const struct raidsim_job *j, enum raidsim_fio_opt o,
                        char *buf, size_t len)
{
  const struct raidsim_param *p = &raidsim_fio_params[o];
  size_t n;

  if (j->pct[o]) {
    snprintf (buf, len, "%u%%", j->pct[o]);
    return;
  }
  if (o == RAIDSIM_FIO_RW && (j->seq_add || j->seq_nr > 1)) {
    char arg[32];

    raidsim_param_format_value (RAIDSIM_PT_FIO_INT, j->seq_add < 0
                                ? (uint64_t) -j->seq_add
                                : j->seq_add ? (uint64_t) j->seq_add
                                : j->seq_nr, arg, sizeof arg);
    snprintf (buf, len, "%s:%s%s", raidsim_rw_name (j->rw),
              j->seq_add < 0 ? "-" : "", arg);
    return;
  }
  raidsim_param_format (p, (const char *) j + p->offset, buf, len);
  if (o == RAIDSIM_FIO_RANDOM_DISTRIBUTION &&
      j->random_distribution == RAIDSIM_DIST_ZONED) {
    unsigned d, i;

    n = strlen (buf);
    for (d = 0; d < 2; ++d) {
      if (d == 1 && j->nzones[1] == j->nzones[0] &&
          memcmp (j->zones[0], j->zones[1],
                  j->nzones[0] * sizeof j->zones[0][0]) == 0)
        break;
      for (i = 0; i < j->nzones[d] && n < len; ++i)
        n += snprintf (buf + n, len - n, "%s%u/%u", i ? ":" : d ? "," : ":",
                       j->zones[d][i].access, j->zones[d][i].size);
    }
    return;
  }
  if (o == RAIDSIM_FIO_RANDOM_DISTRIBUTION &&
      j->random_distribution != RAIDSIM_DIST_RANDOM) {
    n = strlen (buf);
    if (j->dist_center >= 0)
      snprintf (buf + n, len - n, ":%g:%g", j->dist_param, j->dist_center);
    else
      snprintf (buf + n, len - n, ":%g", j->dist_param);
    return;
  }
  {
    uint64_t second = o == RAIDSIM_FIO_BS ? j->wbs
      : o == RAIDSIM_FIO_RATE ? j->wrate
      : o == RAIDSIM_FIO_RATE_IOPS ? j->wrate_iops
      : o == RAIDSIM_FIO_STARTDELAY ? j->startdelay_high
      : o == RAIDSIM_FIO_BA ? j->wba : 0;

    if (second && (n = strlen (buf)) + 1 < len) {
      buf[n++] = o == RAIDSIM_FIO_STARTDELAY ? '-' : ',';
      raidsim_param_format_value (p->type, second, buf + n, len - n);
    }
  }
}

/* ---- fio's value syntax ----
 *
 * fio reads numbers in parse.c: str_to_decimal takes an integer
 * (strtoll, so 0x hex too) and get_mult_bytes a multiplier suffix,
 * lower-cased, matched by its first letters.  With kb_base=1024, fio's
 * default, "k", "kb" and "ki" are 1024 while "kib" is 1000, the
 * reverse of IEC, which fio keeps for old job files; kb_base=1000 swaps
 * them.  A "b" alone, or nothing, is bytes, and "%" a percentage where
 * an option takes one.  fio silently reads anything else after the
 * digits as a multiplier of 1 ("4kx" is 4096, "1.5g" is 1); we refuse
 * it, since a typo should not change the job.  A number that does not
 * fit in 64 bits is "too large" (fio's strtoll fails on it too).
 */

enum { FV_OK = 0, FV_SYNTAX = -1, FV_TOO_LARGE = -2, FV_PERCENT = -3 };

static int
fio_size (const char *s, unsigned kb_base, bool percent_ok, uint64_t *v,
          bool *percent)
{
  unsigned __int128 r = 0;
  bool big = false;
  const char *p = s;
  char suf[8];
  size_t n, i;
  unsigned pow = 0;
  uint64_t base = kb_base ? kb_base : 1024;

  if (percent)
    *percent = false;
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
    if (!isxdigit ((unsigned char) p[2]))
      return FV_SYNTAX;
    for (p += 2; isxdigit ((unsigned char) *p); ++p) {
      r = r * 16 + (isdigit ((unsigned char) *p) ? *p - '0'
                    : tolower ((unsigned char) *p) - 'a' + 10);
      if (r > UINT64_MAX) {
        big = true;
        r = 0;
      }
    }
    if (*p != '\0')
      return FV_SYNTAX;
    if (big)
      return FV_TOO_LARGE;
    *v = (uint64_t) r;
    return FV_OK;
  }
  if (!isdigit ((unsigned char) *p))
    return FV_SYNTAX;
  for (; isdigit ((unsigned char) *p); ++p) {
    r = r * 10 + (*p - '0');
    if (r > UINT64_MAX) {
      big = true;
      r = 0;
    }
  }
  n = strlen (p);
  if (n >= sizeof suf)
    return FV_SYNTAX;
  for (i = 0; i <= n; ++i)
    suf[i] = tolower ((unsigned char) p[i]);

  if (strcmp (suf, "%") == 0) {
    if (!percent_ok || percent == NULL)
      return FV_PERCENT;
    if (big || r > 100)
      return FV_TOO_LARGE;
    *percent = true;
    *v = (uint64_t) r;
    return FV_OK;
  }
  if (suf[0] != '\0' && strcmp (suf, "b") != 0) {
    static const char letters[] = "kmgtp";
    const char *l = strchr (letters, suf[0]);

    if (l == NULL || suf[0] == '\0')
      return FV_SYNTAX;
    pow = l - letters + 1;
    if (strcmp (suf + 1, "ib") == 0)
      base = base == 1024 ? 1000 : 1024;
    else if (strcmp (suf + 1, "") != 0 && strcmp (suf + 1, "b") != 0 &&
             strcmp (suf + 1, "i") != 0)
      return FV_SYNTAX;
  }
  if (big)
    return FV_TOO_LARGE;
  while (pow--) {
    r *= base;
    if (r > UINT64_MAX)
      return FV_TOO_LARGE;
  }
  *v = (uint64_t) r;
  return FV_OK;
}

/* fio's times (parse.c, get_mult_time): an integer and an optional
 * case-insensitive unit, us/usec, ms/msec, s, m, h or d; without one
 * the option's own unit (seconds for runtime, microseconds for
 * thinktime).  Stored in nanoseconds.
 */
static int
fio_time (const char *s, uint64_t unit_ns, uint64_t *v)
{
  static const struct { const char *name; uint64_t ns; } units[] = {
    { "us", 1000 }, { "usec", 1000 },
    { "ms", 1000000 }, { "msec", 1000000 },
    { "s", 1000000000 },
    { "m", UINT64_C (60) * 1000000000 },
    { "h", UINT64_C (3600) * 1000000000 },
    { "d", UINT64_C (86400) * 1000000000 },
  };
  unsigned __int128 r = 0;
  bool big = false;
  const char *p = s;
  uint64_t mult = unit_ns;
  size_t i;

  if (!isdigit ((unsigned char) *p))
    return FV_SYNTAX;
  for (; isdigit ((unsigned char) *p); ++p) {
    r = r * 10 + (*p - '0');
    if (r > UINT64_MAX) {
      big = true;
      r = 0;
    }
  }
  if (*p != '\0') {
    for (i = 0; i < sizeof units / sizeof units[0]; ++i)
      if (strcasecmp (p, units[i].name) == 0)
        break;
    if (i == sizeof units / sizeof units[0])
      return FV_SYNTAX;
    mult = units[i].ns;
  }
  if (big)
    return FV_TOO_LARGE;
  r *= mult;
  if (r > UINT64_MAX)
    return FV_TOO_LARGE;
  *v = (uint64_t) r;
  return FV_OK;
}

/* fio replaces ${VAR} in an option by the environment variable VAR,
 * or by nothing if it is not set (options.c, fio_option_dup_subs).
 * Returns a new string, or NULL if out of memory.
 */
static char *
env_subst (const char *s)
{
  size_t cap = strlen (s) + 1, len = 0;
  char *out = malloc (cap);

  if (out == NULL)
    return NULL;
  while (*s) {
    const char *end;

    if (s[0] == '$' && s[1] == '{' && (end = strchr (s + 2, '}')) != NULL &&
        end > s + 2) {
      char name[256];
      const char *val;
      size_t vl;

      snprintf (name, sizeof name, "%.*s", (int) (end - s - 2), s + 2);
      val = getenv (name);
      vl = val ? strlen (val) : 0;
      if (len + vl + strlen (end + 1) + 1 > cap) {
        char *o;

        cap = len + vl + strlen (end + 1) + 1;
        o = realloc (out, cap);
        if (o == NULL) {
          free (out);
          return NULL;
        }
        out = o;
      }
      memcpy (out + len, val ? val : "", vl);
      len += vl;
      s = end + 1;
      continue;
    }
    out[len++] = *s++;
  }
  out[len] = '\0';
  return out;
}

/* The first ${VAR} in s that names no environment variable, as
 * written ("${FIO_BS}"), or NULL; in a static buffer.
 */
static const char *
unset_var (const char *s)
{
  static char buf[260];
  const char *p, *end;

  for (p = s; p && (p = strstr (p, "${")) != NULL; p = end) {
    char name[256];

    end = strchr (p + 2, '}');
    if (end == NULL)
      return NULL;
    snprintf (name, sizeof name, "%.*s", (int) (end - p - 2), p + 2);
    if (getenv (name) == NULL) {
      snprintf (buf, sizeof buf, "${%s}", name);
      return buf;
    }
  }
  return NULL;
}

/* ---- fio's options that are not in the table ----
 *
 * Every option of fio 3.33 (options.c, the engines' and the profiles'
 * option tables) that raidsim_fio_params does not hold is here, with
 * the reason raidsim notes it (accepts it and ignores it: it has no
 * timing meaning for a model) or refuses it.  Some are refused only
 * for values that ask for something: fsync=0 asks for no flush, so it
 * is noted; `harmless` lists those values.
 */

enum why {
  /* Noted: accepted, no effect on the model. */
  W_NAME, W_TARGET, W_HOST, W_ENGINE, W_DATA, W_RANDOM, W_REPORT,
  W_PROCESS, W_CHECK, W_PROFILE_OPT, W_IGNORED,
  /* Refused. */
  W_FLUSH, W_SCSI, W_ZONED, W_FILES, W_NOIO, W_TRACE, W_FEEDBACK,
  W_PROFILE, W_DEPRECATED, W_NOTYET,
  W_NWHY
};
#define W_FIRST_REFUSED W_FLUSH

static const struct {
  const char *title;            /* for the docs */
  const char *why;              /* after "noted: " or "refused: " */
} whys[W_NWHY] = {
  [W_NAME] = { "Names", "a name or a description" },
  [W_TARGET] = { "The file or device",
    "where fio does its I/O and how it lays out files; the array takes "
    "the place of the file or device" },
  [W_HOST] = { "How the host issues I/O",
    "how the host issues I/O (engine, page cache, memory, batching, "
    "threads); the model starts where requests reach the array and "
    "treats every job as direct I/O" },
  [W_ENGINE] = { "I/O engine settings",
    "a setting of one I/O engine; the model starts where requests reach "
    "the array" },
  [W_DATA] = { "Data and verification",
    "data contents or verification; the models time I/O and do not "
    "look at data, and fio's verify pass after writing is not "
    "simulated" },
  [W_RANDOM] = { "Random generators",
    "fio's random generator or seed; raidsim draws its own sequence "
    "from --seed" },
  [W_REPORT] = { "Output, logs and statistics",
    "output, logs or statistics" },
  [W_PROCESS] = { "Processes, CPUs and errors",
    "processes, CPUs, priorities, credentials or error handling on the "
    "host" },
  [W_CHECK] = { "Checks on the results",
    "a limit fio checks the results against (the job fails if it is "
    "missed); raidsim reports the figures instead" },
  [W_PROFILE_OPT] = { "Options of fio's profiles",
    "an option of a fio profile (act, tiobench), which has an effect only "
    "with profile=, and that is refused" },
  [W_IGNORED] = { "Deprecated and ignored by fio",
    "deprecated; fio 3.33 ignores it too" },
  [W_FLUSH] = { "Reads with FUA, sync_file_range",
    "reads with forced unit access (which skip a drive's read cache) or "
    "sync_file_range (which needs a page cache), and the models have "
    "neither (sync=1 and writefua are modelled)" },
  [W_SCSI] = { "Other commands",
    "commands other than read and write (SCSI WRITE AND VERIFY, WRITE "
    "SAME), and the device models have only those two" },
  [W_ZONED] = { "Zoned block devices",
    "zoned block devices, and the device models are conventional "
    "drives" },
  [W_FILES] = { "Several files",
    "several files, and raidsim runs each job over one region of the "
    "array" },
  [W_NOIO] = { "Engines that do no block I/O",
    "an I/O engine that does no reads or writes at offsets of a block "
    "device or file, which is what the array model takes" },
  [W_TRACE] = { "Trace replay",
    "a trace replay option raidsim does not model (it models read_iolog, "
    "replay_no_stall and replay_time_scale)" },
  [W_FEEDBACK] = { "Feedback from measurements",
    "behaviour that fio adjusts from its measurements as it runs (latency "
    "targets, steady state, flows between jobs), which raidsim does not "
    "model" },
  [W_PROFILE] = { "Profiles", "a built-in fio profile" },
  [W_DEPRECATED] = { "Deprecated", "deprecated; fio 3.33 refuses it too" },
  [W_NOTYET] = { "Timing raidsim does not model yet",
    "timing raidsim does not model yet" },
};

struct fio_other {
  const char *name;
  enum why why;
  /* For a refused option, the values ('|' between them) that ask for
   * nothing, under which it is noted instead; numbers compare as
   * numbers.  NULL: refused whatever its value.
   */
  const char *harmless;
};

/* fio's second names for options (options.c, .alias). */
static const struct { const char *alias, *name; } aliases[] = {
  { "readwrite", "rw" }, { "blocksize", "bs" }, { "fileoffset", "offset" },
  { "timeout", "runtime" }, { "wait_for_previous", "stonewall" },
  { "blockalign", "ba" }, { "blocksize_range", "bsrange" },
  { "blocksize_unaligned", "bs_unaligned" }, { "io_limit", "io_size" },
  { "fill_fs", "fill_device" }, { "nr_files", "nrfiles" },
  { "iomem", "mem" }, { "mem_align", "iomem_align" },
  { "iodepth_batch_submit", "iodepth_batch" },
  { "iodepth_batch_complete", "iodepth_batch_complete_min" },
  { "disable_bw", "disable_bw_measurement" }, { "ratecycle", "rate_cycle" },
  { "ratemin", "rate_min" }, { "ss", "steadystate" },
  { "ss_dur", "steadystate_duration" }, { "ss_ramp", "steadystate_ramp_time" },
  { NULL, NULL },
};

static const struct fio_other others[] = {
  { "name", W_NAME, NULL }, { "description", W_NAME, NULL },

  { "filename", W_TARGET, NULL }, { "directory", W_TARGET, NULL },
  { "filename_format", W_TARGET, NULL }, { "unique_filename", W_TARGET, NULL },
  { "lockfile", W_TARGET, NULL }, { "allow_file_create", W_TARGET, NULL },
  { "allow_mounted_write", W_TARGET, NULL },
  { "create_serialize", W_TARGET, NULL }, { "create_fsync", W_TARGET, NULL },
  { "create_on_open", W_TARGET, NULL }, { "pre_read", W_TARGET, NULL },
  { "unlink", W_TARGET, NULL }, { "unlink_each_loop", W_TARGET, NULL },
  { "overwrite", W_TARGET, NULL }, { "fallocate", W_TARGET, NULL },
  { "fadvise_hint", W_TARGET, NULL }, { "invalidate", W_TARGET, NULL },
  { "file_service_type", W_TARGET, NULL }, { "openfiles", W_TARGET, NULL },

  { "ioengine", W_HOST, NULL }, /* by engine: see engines[] */
  { "direct", W_HOST, NULL }, { "buffered", W_HOST, NULL },
  { "atomic", W_HOST, NULL }, { "thread", W_HOST, NULL },
  { "mem", W_HOST, NULL }, { "iomem_align", W_HOST, NULL },
  { "hugepage-size", W_HOST, NULL }, { "iodepth_batch", W_HOST, NULL },
  { "iodepth_batch_complete_min", W_HOST, NULL },
  { "iodepth_batch_complete_max", W_HOST, NULL },
  { "serialize_overlap", W_HOST, NULL },
  { "ioscheduler", W_HOST, NULL }, { "write_hint", W_HOST, NULL },
  { "clocksource", W_HOST, NULL }, { "gtod_cpu", W_HOST, NULL },
  { "lockmem", W_HOST, NULL },

  /* The engines' own options (engines/ *.c).  Those of engines that are
   * refused (cpuio's cpuload ...) are noted too: the engine's line is
   * refused.
   */
  { "hipri", W_ENGINE, NULL }, { "hipri_percentage", W_ENGINE, NULL },
  { "cmdprio_percentage", W_ENGINE, NULL }, { "cmdprio_class", W_ENGINE, NULL },
  { "cmdprio", W_ENGINE, NULL }, { "cmdprio_bssplit", W_ENGINE, NULL },
  { "fixedbufs", W_ENGINE, NULL }, { "registerfiles", W_ENGINE, NULL },
  { "sqthread_poll", W_ENGINE, NULL }, { "sqthread_poll_cpu", W_ENGINE, NULL },
  { "nonvectored", W_ENGINE, NULL }, { "uncached", W_ENGINE, NULL },
  { "nowait", W_ENGINE, NULL }, { "force_async", W_ENGINE, NULL },
  { "cmd_type", W_ENGINE, NULL }, { "userspace_reap", W_ENGINE, NULL },
  { "gpu_dev_ids", W_ENGINE, NULL }, { "cuda_io", W_ENGINE, NULL },
  { "thp", W_ENGINE, NULL }, { "stream_id", W_ENGINE, NULL },
  { "no_completion_thread", W_ENGINE, NULL },
  { "xnvme_be", W_ENGINE, NULL }, { "xnvme_async", W_ENGINE, NULL },
  { "xnvme_sync", W_ENGINE, NULL }, { "xnvme_admin", W_ENGINE, NULL },
  { "xnvme_dev_nsid", W_ENGINE, NULL }, { "xnvme_iovec", W_ENGINE, NULL },
  { "initiator", W_ENGINE, NULL }, { "uri", W_ENGINE, NULL },
  { "nfs_url", W_ENGINE, NULL }, { "namenode", W_ENGINE, NULL },
  { "hdfsdirectory", W_ENGINE, NULL }, { "chunk_size", W_ENGINE, NULL },
  { "single_instance", W_ENGINE, NULL }, { "hdfs_use_direct", W_ENGINE, NULL },
  { "volume", W_ENGINE, NULL }, { "brick", W_ENGINE, NULL },
  { "single-instance", W_ENGINE, NULL }, { "pool", W_ENGINE, NULL },
  { "cont", W_ENGINE, NULL }, { "object_class", W_ENGINE, NULL },
  { "svcl", W_ENGINE, NULL }, { "clustername", W_ENGINE, NULL },
  { "rbdname", W_ENGINE, NULL }, { "clientname", W_ENGINE, NULL },
  { "busy_poll", W_ENGINE, NULL }, { "conf", W_ENGINE, NULL },
  { "touch_objects", W_ENGINE, NULL }, { "skip_bad", W_ENGINE, NULL },
  { "hostname", W_ENGINE, NULL }, { "port", W_ENGINE, NULL },
  { "protocol", W_ENGINE, NULL }, { "nodelay", W_ENGINE, NULL },
  { "listen", W_ENGINE, NULL }, { "pingpong", W_ENGINE, NULL },
  { "interface", W_ENGINE, NULL }, { "ttl", W_ENGINE, NULL },
  { "window_size", W_ENGINE, NULL }, { "mss", W_ENGINE, NULL },
  { "bindname", W_ENGINE, NULL }, { "verb", W_ENGINE, NULL },
  { "serverip", W_ENGINE, NULL }, { "direct_write_to_pmem", W_ENGINE, NULL },
  { "busy_wait_polling", W_ENGINE, NULL }, { "https", W_ENGINE, NULL },
  { "http_host", W_ENGINE, NULL }, { "http_user", W_ENGINE, NULL },
  { "http_pass", W_ENGINE, NULL }, { "http_s3_key", W_ENGINE, NULL },
  { "http_s3_keyid", W_ENGINE, NULL },
  { "http_swift_auth_token", W_ENGINE, NULL },
  { "http_s3_region", W_ENGINE, NULL },
  { "http_s3_sse_customer_key", W_ENGINE, NULL },
  { "http_s3_sse_customer_algorithm", W_ENGINE, NULL },
  { "http_s3_storage_class", W_ENGINE, NULL },
  { "http_mode", W_ENGINE, NULL }, { "http_verbose", W_ENGINE, NULL },
  { "donorname", W_ENGINE, NULL }, { "inplace", W_ENGINE, NULL },
  { "stat_type", W_ENGINE, NULL }, { "cpuload", W_ENGINE, NULL },
  { "cpumode", W_ENGINE, NULL }, { "cpuchunks", W_ENGINE, NULL },
  { "exit_on_io_done", W_ENGINE, NULL }, { "program", W_ENGINE, NULL },
  { "arguments", W_ENGINE, NULL }, { "grace_time", W_ENGINE, NULL },
  { "std_redirect", W_ENGINE, NULL },
  /* Engines and options newer than fio 3.33 (fio 3.42's HOWTO). */
  { "libblkio_driver", W_ENGINE, NULL }, { "libblkio_path", W_ENGINE, NULL },
  { "libblkio_pre_connect_props", W_ENGINE, NULL },
  { "libblkio_num_entries", W_ENGINE, NULL },
  { "libblkio_queue_size", W_ENGINE, NULL },
  { "libblkio_pre_start_props", W_ENGINE, NULL },
  { "libblkio_vectored", W_ENGINE, NULL },
  { "libblkio_write_zeroes_on_trim", W_ENGINE, NULL },
  { "libblkio_wait_mode", W_ENGINE, NULL },
  { "libblkio_force_enable_completion_eventfd", W_ENGINE, NULL },
  { "rocm_io", W_ENGINE, NULL },
  /* io_uring_cmd's other NVMe commands (write zeroes, uncorrectable,
   * verify): plain writes only.
   */
  { "write_mode", W_SCSI, "write" },
  /* NVMe data placement: a hint where the drive puts data, which the
   * flash model does not model (writes go to the next die in turn).
   */
  { "fdp", W_HOST, NULL }, { "fdp_pli", W_HOST, NULL },
  { "fdp_pli_select", W_HOST, NULL }, { "dataplacement", W_HOST, NULL },
  { "plids", W_HOST, NULL }, { "plid_select", W_HOST, NULL },
  /* sg: plain WRITE commands only; FUA is a write through the cache. */
  { "sg_write_mode", W_SCSI, "write" },
  { "readfua", W_FLUSH, "0" },

  { "verify", W_DATA, NULL }, { "do_verify", W_DATA, NULL },
  { "verify_interval", W_DATA, NULL }, { "verify_offset", W_DATA, NULL },
  { "verify_pattern", W_DATA, NULL }, { "verify_fatal", W_DATA, NULL },
  { "verify_dump", W_DATA, NULL }, { "verify_async", W_DATA, NULL },
  { "verify_async_cpus", W_DATA, NULL }, { "verify_backlog", W_DATA, NULL },
  { "verify_backlog_batch", W_DATA, NULL },
  { "experimental_verify", W_DATA, NULL },
  { "verify_state_load", W_DATA, NULL }, { "verify_state_save", W_DATA, NULL },
  { "trim_percentage", W_DATA, NULL }, { "trim_verify_zero", W_DATA, NULL },
  { "trim_backlog", W_DATA, NULL }, { "trim_backlog_batch", W_DATA, NULL },
  { "zero_buffers", W_DATA, NULL }, { "refill_buffers", W_DATA, NULL },
  { "scramble_buffers", W_DATA, NULL }, { "buffer_pattern", W_DATA, NULL },
  { "buffer_compress_percentage", W_DATA, NULL },
  { "buffer_compress_chunk", W_DATA, NULL },
  { "dedupe_percentage", W_DATA, NULL }, { "dedupe_global", W_DATA, NULL },
  { "dedupe_mode", W_DATA, NULL },
  { "dedupe_working_set_percentage", W_DATA, NULL },
  /* NVMe protection information and metadata: the models' drives are
   * formatted without metadata, so none is moved or checked.
   */
  { "pi_act", W_DATA, NULL }, { "pi_chk", W_DATA, NULL },
  { "apptag", W_DATA, NULL }, { "apptag_mask", W_DATA, NULL },
  { "md_per_io_size", W_DATA, NULL },
  { "verify_write_sequence", W_DATA, NULL },

  { "randrepeat", W_RANDOM, NULL }, { "randseed", W_RANDOM, NULL },
  { "allrandrepeat", W_RANDOM, NULL }, { "random_generator", W_RANDOM, NULL },
  { "softrandommap", W_RANDOM, NULL },

  { "group_reporting", W_REPORT, NULL },
  { "stats", W_REPORT, NULL }, { "per_job_logs", W_REPORT, NULL },
  { "write_bw_log", W_REPORT, NULL }, { "write_lat_log", W_REPORT, NULL },
  { "write_iops_log", W_REPORT, NULL }, { "write_hist_log", W_REPORT, NULL },
  { "log_entries", W_REPORT, NULL }, { "log_avg_msec", W_REPORT, NULL },
  { "log_hist_msec", W_REPORT, NULL },
  { "log_hist_coarseness", W_REPORT, NULL },
  { "log_max_value", W_REPORT, NULL }, { "log_offset", W_REPORT, NULL },
  { "log_prio", W_REPORT, NULL }, { "log_compression", W_REPORT, NULL },
  { "log_compression_cpus", W_REPORT, NULL },
  { "log_store_compressed", W_REPORT, NULL },
  { "log_unix_epoch", W_REPORT, NULL },
  { "log_alternate_epoch", W_REPORT, NULL },
  { "log_alternate_epoch_clock_id", W_REPORT, NULL },
  { "block_error_percentiles", W_REPORT, NULL },
  { "bwavgtime", W_REPORT, NULL }, { "iopsavgtime", W_REPORT, NULL },
  { "clat_percentiles", W_REPORT, NULL }, { "lat_percentiles", W_REPORT, NULL },
  { "slat_percentiles", W_REPORT, NULL }, { "percentile_list", W_REPORT, NULL },
  { "significant_figures", W_REPORT, NULL }, { "disk_util", W_REPORT, NULL },
  { "gtod_reduce", W_REPORT, NULL }, { "disable_lat", W_REPORT, NULL },
  { "disable_clat", W_REPORT, NULL }, { "disable_slat", W_REPORT, NULL },
  { "disable_bw_measurement", W_REPORT, NULL },
  { "unified_rw_reporting", W_REPORT, NULL }, { "unit_base", W_REPORT, NULL },
  { "write_iolog", W_REPORT, NULL },

  { "nice", W_PROCESS, NULL }, { "prio", W_PROCESS, NULL },
  { "prioclass", W_PROCESS, NULL }, { "cpumask", W_PROCESS, NULL },
  { "cpus_allowed", W_PROCESS, NULL },
  { "cpus_allowed_policy", W_PROCESS, NULL },
  { "numa_cpu_nodes", W_PROCESS, NULL }, { "numa_mem_policy", W_PROCESS, NULL },
  { "gpu_dev_id", W_PROCESS, NULL }, { "uid", W_PROCESS, NULL },
  { "gid", W_PROCESS, NULL }, { "cgroup", W_PROCESS, NULL },
  { "cgroup_nodelete", W_PROCESS, NULL }, { "cgroup_weight", W_PROCESS, NULL },
  { "exec_prerun", W_PROCESS, NULL }, { "exec_postrun", W_PROCESS, NULL },
  { "continue_on_error", W_PROCESS, NULL }, { "ignore_error", W_PROCESS, NULL },
  { "error_dump", W_PROCESS, NULL },
  { "exitall_on_error", W_PROCESS, NULL },

  { "rate_min", W_CHECK, NULL }, { "rate_iops_min", W_CHECK, NULL },
  { "rate_cycle", W_CHECK, NULL }, { "max_latency", W_CHECK, NULL },

  { "verifysort", W_IGNORED, NULL }, { "verifysort_nr", W_IGNORED, NULL },
  { "flow_watermark", W_IGNORED, NULL },

  /* fio makes a barrier write only with an engine flagged FIO_BARRIER
   * (libpmem alone in 3.33, io_u.c set_rw_ddir), so for the engines
   * that do block I/O it changes nothing.
   */
  { "write_barrier", W_ENGINE, NULL }, { "sync_file_range", W_FLUSH, NULL },

  { "zonecapacity", W_ZONED, NULL }, { "max_open_zones", W_ZONED, NULL },
  { "job_max_open_zones", W_ZONED, NULL },
  { "ignore_zone_limits", W_ZONED, NULL },
  { "zone_reset_threshold", W_ZONED, NULL },
  { "zone_reset_frequency", W_ZONED, NULL },
  { "read_beyond_wp", W_ZONED, NULL },

  { "nrfiles", W_FILES, "1" }, { "opendir", W_FILES, NULL },
  { "file_append", W_FILES, "0" },
  { "create_only", W_FILES, "0" },

  { "read_iolog_chunked", W_HOST, NULL },
  { "replay_redirect", W_TARGET, NULL },
  { "replay_scale", W_TRACE, "1" }, { "replay_align", W_TRACE, "0" },
  { "replay_skip", W_TRACE, NULL },
  { "merge_blktrace_file", W_TRACE, NULL },
  { "merge_blktrace_scalars", W_TRACE, NULL },
  { "merge_blktrace_iters", W_TRACE, NULL },

  { "latency_target", W_FEEDBACK, NULL }, { "latency_window", W_FEEDBACK, NULL },
  { "latency_percentile", W_FEEDBACK, NULL },
  { "latency_run", W_FEEDBACK, NULL }, { "steadystate", W_FEEDBACK, NULL },
  { "steadystate_duration", W_FEEDBACK, NULL },
  { "steadystate_ramp_time", W_FEEDBACK, NULL },
  { "flow_id", W_FEEDBACK, NULL }, { "flow", W_FEEDBACK, "0" },
  { "flow_sleep", W_FEEDBACK, NULL },

  /* fio's profiles (profiles/act.c, tiobench.c) and their options. */
  { "profile", W_PROFILE, NULL }, { "device-names", W_PROFILE_OPT, NULL },
  { "load", W_PROFILE_OPT, NULL }, { "prep", W_PROFILE_OPT, NULL },
  { "threads-per-queue", W_PROFILE_OPT, NULL },
  { "read-req-num-512-blocks", W_PROFILE_OPT, NULL },
  { "large-block-op-kbytes", W_PROFILE_OPT, NULL },
  { "test-duration", W_PROFILE_OPT, NULL }, { "block", W_PROFILE_OPT, NULL },
  { "numruns", W_PROFILE_OPT, NULL }, { "dir", W_PROFILE_OPT, NULL },
  { "threads", W_PROFILE_OPT, NULL },

  { "rwmixcycle", W_DEPRECATED, NULL },
  { "percentage_sequential", W_DEPRECATED, NULL },

  { "thinktime_spin", W_NOTYET, "0" },
  { "thinktime_blocks_type", W_NOTYET, "complete" },
  { "thinktime_iotime", W_NOTYET, "0" },
  { "rate_ignore_thinktime", W_NOTYET, "0" },
  { "bs_unaligned", W_NOTYET, "0" },
  { "bs_is_seq_rand", W_NOTYET, "0" },
  { "percentage_random", W_NOTYET, "100" },
  { "rw_sequencer", W_NOTYET, "sequential" },
  { "iodepth_low", W_NOTYET, NULL },
  { "verify_only", W_NOTYET, "0" },
  { "num_range", W_NOTYET, "1" },
  { "sprandom", W_NOTYET, "0" }, { "spr_op", W_NOTYET, NULL },
  { "spr_num_regions", W_NOTYET, NULL },
  { NULL, 0, NULL },
};

/* fio 3.33's I/O engines (HOWTO, ioengine).  Those that read and write
 * at offsets of a block device or file are noted: the array takes the
 * place of the device.  The others are refused.
 */
static const struct { const char *name; enum why why; } engines[] = {
  { "sync", W_HOST }, { "psync", W_HOST }, { "vsync", W_HOST },
  { "pvsync", W_HOST }, { "pvsync2", W_HOST }, { "io_uring", W_HOST },
  { "io_uring_cmd", W_HOST }, { "libaio", W_HOST }, { "posixaio", W_HOST },
  { "solarisaio", W_HOST }, { "windowsaio", W_HOST }, { "mmap", W_HOST },
  { "splice", W_HOST }, { "sg", W_HOST }, { "rbd", W_HOST },
  { "gfapi", W_HOST }, { "gfapi_async", W_HOST }, { "libhdfs", W_HOST },
  { "mtd", W_HOST }, { "pmemblk", W_HOST }, { "dev-dax", W_HOST },
  { "libpmem", W_HOST }, { "ime_psync", W_HOST }, { "ime_psyncv", W_HOST },
  { "ime_aio", W_HOST }, { "libiscsi", W_HOST }, { "nbd", W_HOST },
  { "libcufile", W_HOST }, { "dfs", W_HOST }, { "nfs", W_HOST },
  { "xnvme", W_HOST },
  /* Newer than fio 3.33 (fio 3.42). */
  { "libblkio", W_HOST }, { "libhipfile", W_HOST },
  { "dircreate", W_NOIO }, { "dirstat", W_NOIO }, { "dirdelete", W_NOIO },
  { "page_fault", W_NOIO },
  { "libzbc", W_ZONED },
  { "null", W_NOIO }, { "net", W_NOIO }, { "netsplice", W_NOIO },
  { "cpuio", W_NOIO }, { "rdma", W_NOIO }, { "falloc", W_NOIO },
  { "ftruncate", W_NOIO }, { "e4defrag", W_NOIO }, { "rados", W_NOIO },
  { "http", W_NOIO }, { "filecreate", W_NOIO }, { "filestat", W_NOIO },
  { "filedelete", W_NOIO }, { "exec", W_NOIO },
  { "librpma_apm_client", W_NOIO }, { "librpma_apm_server", W_NOIO },
  { "librpma_gpspm_client", W_NOIO }, { "librpma_gpspm_server", W_NOIO },
  { NULL, 0 },
};

static const struct fio_other *
find_other (const char *name)
{
  const struct fio_other *o;

  for (o = others; o->name; ++o)
    if (strcmp (o->name, name) == 0)
      return o;
  return NULL;
}

static const char *
canonical (const char *key)
{
  unsigned i;

  for (i = 0; aliases[i].alias; ++i)
    if (strcmp (aliases[i].alias, key) == 0)
      return aliases[i].name;
  return key;
}

/* Whether value is one of the '|'-separated values of spec. */
static bool
is_harmless (const char *spec, const char *value, unsigned kb_base)
{
  const char *p = spec;

  if (spec == NULL)
    return false;
  if (value == NULL)
    value = "1";                /* a bare flag sets it */
  while (*p) {
    size_t n = strcspn (p, "|");
    char alt[32];
    uint64_t a, v;

    snprintf (alt, sizeof alt, "%.*s", (int) n, p);
    if (strcmp (alt, value) == 0)
      return true;
    if (isdigit ((unsigned char) alt[0]) &&
        fio_size (alt, kb_base, false, &a, NULL) == FV_OK &&
        fio_size (value, kb_base, false, &v, NULL) == FV_OK && a == v)
      return true;
    p += n;
    if (*p == '|')
      p++;
  }
  return false;
}

/* ---- applying a section ---- */

struct loader {
  struct raidsim_ini *ini;
  struct raidsim_jobfile *jf;
  size_t noted_len, noted_cap;
  char **noted_keys;            /* canonical names noted so far */
  unsigned nnoted;
};

/* Add an option to the noted list, once. */
static int
note (struct loader *ld, const char *as_written, const char *name)
{
  struct raidsim_jobfile *jf = ld->jf;
  size_t need;
  unsigned i;
  char **keys;

  for (i = 0; i < ld->nnoted; ++i)
    if (strcmp (ld->noted_keys[i], name) == 0)
      return 0;
  keys = realloc (ld->noted_keys, (ld->nnoted + 1) * sizeof *keys);
  if (keys == NULL)
    return -1;
  ld->noted_keys = keys;
  if ((keys[ld->nnoted] = strdup (name)) == NULL)
    return -1;
  ld->nnoted++;
  need = ld->noted_len + strlen (as_written) + 3;
  if (need > ld->noted_cap) {
    char *n = realloc (jf->noted, need * 2);

    if (n == NULL)
      return -1;
    jf->noted = n;
    ld->noted_cap = need * 2;
  }
  ld->noted_len += sprintf (jf->noted + ld->noted_len, "%s%s",
                            ld->noted_len ? ", " : "", as_written);
  return 0;
}

static const char *
size_hint (void)
{
  return "an integer with an optional fio suffix (k, m, g, t, p)";
}

static const char *
time_hint (void)
{
  return "an integer with an optional fio time unit (us, ms, s, m, h, d)";
}

/* Set error "FILE:LINE: KEY: ..." for a value fio_size or fio_time did
 * not take.
 */
static void
value_error (struct loader *ld, const struct raidsim_ini_entry *e,
             const char *key, const char *value, int r, bool time)
{
  const char *path = ld->ini->path;

  switch (r) {
  case FV_TOO_LARGE:
    raidsim_set_error ("%s:%u: %s: %s is too large", path, e->line, key,
                       value);
    break;
  case FV_PERCENT:
    raidsim_set_error ("%s:%u: %s: '%s': fio takes a percentage for size, "
                       "io_size, offset and offset_increment only",
                       path, e->line, key, value);
    break;
  default:
    if (value[0] == '(')
      raidsim_set_error ("%s:%u: %s: '%s': fio's arithmetic expressions "
                         "are not supported", path, e->line, key, value);
    else if (value[0] && value[strlen (value) - 1] == 'z')
      raidsim_set_error ("%s:%u: %s: '%s': sizes in zones ('z') are for "
                         "zonemode=zbd, which raidsim does not model",
                         path, e->line, key, value);
    else
      raidsim_set_error ("%s:%u: %s: '%s' is not %s", path, e->line, key,
                         value, time ? time_hint () : size_hint ());
  }
}

/* Check a number against p's range. */
static int
range_check (struct loader *ld, const struct raidsim_ini_entry *e,
             const struct raidsim_param *p, const char *key,
             const char *value, uint64_t v)
{
  char lim[64];

  if (v < p->min) {
    raidsim_param_format_value (p->type, p->min, lim, sizeof lim);
    raidsim_set_error ("%s:%u: %s: %s is below the minimum, %s",
                       ld->ini->path, e->line, key, value, lim);
    return -1;
  }
  if (p->max != 0 && v > p->max) {
    raidsim_param_format_value (p->type, p->max, lim, sizeof lim);
    raidsim_set_error ("%s:%u: %s: %s is above the maximum, %s",
                       ld->ini->path, e->line, key, value, lim);
    return -1;
  }
  return 0;
}

/* rw: one of the table's names, as fio matches them (options.c: the
 * name up to a ':' or ','); fio's trims are refused, and so is a
 * ":N" suffix (a random offset every N I/Os, or holes between
 * sequential ones), which raidsim does not model.
 */
static int
parse_rw (struct loader *ld, const struct raidsim_ini_entry *e,
          const char *value, struct raidsim_job *j)
{
  /* fio's trim directions: writes that are trims, or writes each
   * trimmed first (the simulator sends them as trims, sim.c).
   */
  static const struct { const char *name; int rw, trim; } trims[] = {
    { "trim", RAIDSIM_RW_WRITE, RAIDSIM_TRIM_ONLY },
    { "randtrim", RAIDSIM_RW_RANDWRITE, RAIDSIM_TRIM_ONLY },
    { "trimwrite", RAIDSIM_RW_WRITE, RAIDSIM_TRIM_THEN_WRITE },
    { "randtrimwrite", RAIDSIM_RW_RANDWRITE, RAIDSIM_TRIM_THEN_WRITE },
    { NULL, 0, 0 },
  };
  const struct raidsim_param *p = &raidsim_fio_params[RAIDSIM_FIO_RW];
  size_t n = strcspn (value, ":,");
  char name[32];
  unsigned i;

  snprintf (name, sizeof name, "%.*s", (int) (n < 31 ? n : 31), value);
  j->trim = RAIDSIM_TRIM_NONE;
  for (i = 0; trims[i].name; ++i)
    if (strcmp (name, trims[i].name) == 0)
      break;
  if (trims[i].name) {
    j->rw = trims[i].rw;
    j->trim = trims[i].trim;
  }
  else if (raidsim_param_parse (p, name, &j->rw) == -1) {
    raidsim_set_error ("%s:%u: %s%s", ld->ini->path, e->line, e->key,
                       raidsim_error () + strlen (p->name));
    return -1;
  }
  /* fio's str_rw_cb: rw=randread:8 takes a new random offset every 8
   * I/Os; rw=read:4k leaves 4k between sequential I/Os, and
   * rw=read:-8k goes back 8k from the end of each.
   */
  j->seq_add = 0;
  j->seq_nr = 0;
  if (value[n] == ':') {
    const char *arg = value + n + 1;
    bool neg = *arg == '-';
    uint64_t v;
    int r;

    if (raidsim_rw_is_random (j->rw))
      r = fio_size (arg, j->kb_base, false, &v, NULL);
    else
      r = fio_size (arg + neg, j->kb_base, false, &v, NULL);
    if (r == FV_OK && v > INT64_MAX)
      r = FV_TOO_LARGE;
    if (r != FV_OK) {
      value_error (ld, e, "rw", arg, r, false);
      return -1;
    }
    if (raidsim_rw_is_random (j->rw))
      j->seq_nr = v;
    else
      j->seq_add = neg ? -(int64_t) v : (int64_t) v;
  }
  else if (value[n] != '\0') {
    raidsim_set_error ("%s:%u: %s: '%s' is not one of read, write, "
                       "randread, randwrite, rw, readwrite, randrw",
                       ld->ini->path, e->line, e->key, value);
    return -1;
  }
  return 0;
}

/* A per-direction value, as fio splits one (parse.c, handle_option):
 * at commas, or if there is none at ':', or if none at '-'.  Up to
 * three pieces (reads, writes, trims); a trailing comma is dropped.
 * Returns the number of pieces, or -1 if there are more than three.
 */
static int
split_dirs (const char *value, char piece[3][RAIDSIM_STR_MAX], bool range)
{
  char sep = strchr (value, ',') ? ','
    : range ? 0 : strchr (value, ':') ? ':' : strchr (value, '-') ? '-' : 0;
  size_t len = strlen (value);
  int n = 0;

  if (sep == ',' && len > 0 && value[len - 1] == ',')
    len--;
  while (n < 3) {
    size_t k = sep ? strcspn (value, (char[]) { sep, 0 }) : strlen (value);

    if (k > len)
      k = len;
    snprintf (piece[n++], RAIDSIM_STR_MAX, "%.*s", (int) k, value);
    if (k == len)
      return n;
    value += k + 1;
    len -= k + 1;
  }
  return -1;
}

static int
parse_one_size (struct loader *ld, const struct raidsim_ini_entry *e,
                const char *key, const char *text, const struct raidsim_job *j,
                uint64_t *v)
{
  const struct raidsim_param *p = &raidsim_fio_params[RAIDSIM_FIO_BS];
  int r = fio_size (text, j->kb_base, false, v, NULL);

  if (r != FV_OK) {
    value_error (ld, e, key, text, r, false);
    return -1;
  }
  return range_check (ld, e, p, key, text, *v);
}

/* bs=SIZE, bs=R,W (and a third size, for trims), and rate and
 * rate_iops alike: *rd holds the reads' value and *wr the writes' if it
 * differs (0 if not).
 */
static int
parse_perdir (struct loader *ld, const struct raidsim_ini_entry *e,
              const char *key, const char *value, struct raidsim_job *j,
              const struct raidsim_param *p, uint64_t *rd, uint64_t *wr)
{
  char piece[3][RAIDSIM_STR_MAX];
  int n = split_dirs (value, piece, false), i, r;
  uint64_t v[3] = { *rd, *wr ? *wr : *rd, 0 };

  if (n == -1) {
    raidsim_set_error ("%s:%u: %s: '%s': more than three values (reads, "
                       "writes, trims)", ld->ini->path, e->line, key, value);
    return -1;
  }
  for (i = 0; i < n; ++i) {
    /* fio keeps the earlier value where a piece is empty ("bs=,8k"). */
    if (i > 0 && piece[i][0] == '\0')
      continue;
    if (i == 0 && piece[i][0] == '\0' && n > 1)
      continue;
    r = fio_size (piece[i], j->kb_base, false, &v[i], NULL);
    if (r != FV_OK) {
      value_error (ld, e, key, piece[i], r, false);
      return -1;
    }
    if (range_check (ld, e, p, key, piece[i], v[i]) == -1)
      return -1;
  }
  *rd = v[0];
  *wr = n == 1 ? 0 : v[1] == v[0] ? 0 : v[1];
  /* The trims' value: the third, or as fio fills a missing one, the
   * last given (parse.c, handle_option).
   */
  if (p == &raidsim_fio_params[RAIDSIM_FIO_BS])
    j->tbs = n == 3 && piece[2][0] ? v[2] : n == 1 ? v[0] : v[1];
  return 0;
}

/* bsrange=MIN-MAX[,MIN-MAX[,MIN-MAX]]: fio swaps MIN and MAX if they
 * are the wrong way round (parse.c, FIO_OPT_RANGE).
 */
static int
parse_bsrange (struct loader *ld, const struct raidsim_ini_entry *e,
               const char *key, const char *value, struct raidsim_job *j)
{
  char piece[3][RAIDSIM_STR_MAX];
  int n = split_dirs (value, piece, true), i;
  uint64_t r[3][2] = { { 0 } };

  if (n == -1) {
    raidsim_set_error ("%s:%u: %s: '%s': more than three ranges (reads, "
                       "writes, trims)", ld->ini->path, e->line, key, value);
    return -1;
  }
  for (i = 0; i < n; ++i) {
    char *dash = strpbrk (piece[i], "-:");

    if (dash == NULL) {
      raidsim_set_error ("%s:%u: %s: '%s' is not a range MIN-MAX",
                         ld->ini->path, e->line, key, piece[i]);
      return -1;
    }
    *dash = '\0';
    if (parse_one_size (ld, e, key, piece[i], j, &r[i][0]) == -1 ||
        parse_one_size (ld, e, key, dash + 1, j, &r[i][1]) == -1)
      return -1;
    if (r[i][0] > r[i][1]) {
      uint64_t t = r[i][0];

      r[i][0] = r[i][1];
      r[i][1] = t;
    }
  }
  for (i = 0; i < 2; ++i) {
    j->range[i][0] = r[i < n ? i : 0][0];
    j->range[i][1] = r[i < n ? i : 0][1];
  }
  return 0;
}

/* One direction of bssplit: "BS/PERC:BS/PERC...", as options.c reads
 * it (split_parse_ddir, bssplit_ddir).
 */
static int
parse_split_dir (struct loader *ld, const struct raidsim_ini_entry *e,
                 const char *key, char *text, struct raidsim_job *j,
                 unsigned *nsplit, struct raidsim_bssplit *split)
{
  unsigned n = 0, missing = 0, sum = 0, i, k;
  char *entry, *save = NULL;

  for (entry = strtok_r (text, ":", &save); entry;
       entry = strtok_r (NULL, ":", &save)) {
    char *slash = strchr (entry, '/');
    unsigned perc = 0;

    if (n == RAIDSIM_BSSPLIT_MAX) {
      raidsim_set_error ("%s:%u: %s: more than %d entries", ld->ini->path,
                         e->line, key, RAIDSIM_BSSPLIT_MAX);
      return -1;
    }
    if (slash) {
      char *end;
      unsigned long p;

      *slash = '\0';
      errno = 0;
      p = strtoul (slash + 1, &end, 10);
      if (slash[1] != '\0' && (*end != '\0' || !isdigit ((unsigned char)
                                                          slash[1]))) {
        raidsim_set_error ("%s:%u: %s: '%s' is not a percentage",
                           ld->ini->path, e->line, key, slash + 1);
        return -1;
      }
      if (errno || p > 100) {
        raidsim_set_error ("%s:%u: %s: %s%% is more than 100%%",
                           ld->ini->path, e->line, key, slash + 1);
        return -1;
      }
      perc = p;
    }
    if (parse_one_size (ld, e, key, entry, j, &split[n].bs) == -1)
      return -1;
    /* fio reads a missing percentage, and 0, as "a share of the rest". */
    split[n].perc = perc;
    if (perc == 0)
      missing++;
    sum += perc;
    n++;
  }
  if (n == 0) {
    raidsim_set_error ("%s:%u: %s: no block sizes", ld->ini->path, e->line,
                       key);
    return -1;
  }
  if (sum > 100) {
    raidsim_set_error ("%s:%u: %s: the percentages add up to %u, more than "
                       "100", ld->ini->path, e->line, key, sum);
    return -1;
  }
  for (i = 0; i < n; ++i)
    if (split[i].perc == 0)
      split[i].perc = n == 1 ? 100 : (100 - sum) / missing;
  /* By percentage, smallest first, as fio sorts them; ties keep the
   * order of the file.
   */
  for (i = 1; i < n; ++i)
    for (k = i; k > 0 && split[k - 1].perc > split[k].perc; --k) {
      struct raidsim_bssplit t = split[k];

      split[k] = split[k - 1];
      split[k - 1] = t;
    }
  *nsplit = n;
  return 0;
}

static int
parse_bssplit (struct loader *ld, const struct raidsim_ini_entry *e,
               const char *key, const char *value, struct raidsim_job *j)
{
  char piece[3][RAIDSIM_STR_MAX];
  int n = split_dirs (value, piece, true), i;
  unsigned nsplit[3];
  struct raidsim_bssplit split[3][RAIDSIM_BSSPLIT_MAX];

  if (n == -1) {
    raidsim_set_error ("%s:%u: %s: '%s': more than three lists (reads, "
                       "writes, trims)", ld->ini->path, e->line, key, value);
    return -1;
  }
  for (i = 0; i < n; ++i)
    if (parse_split_dir (ld, e, key, piece[i], j, &nsplit[i],
                         split[i]) == -1)
      return -1;
  for (i = 0; i < 2; ++i) {
    int from = i < n ? i : 0;

    j->nsplit[i] = nsplit[from];
    memcpy (j->split[i], split[from], nsplit[from] * sizeof split[0][0]);
  }
  return 0;
}

/* One direction of zoned: "A/S:A/S...", as options.c's zone_split_ddir
 * reads it: a missing or 0 size percentage is missing; the accesses
 * given must add up to 100 and neither sum may pass 100; the missing
 * take an equal share of what is left.
 */
static int
parse_zone_dir (struct loader *ld, const struct raidsim_ini_entry *e,
                const char *key, char *text, unsigned *nzones,
                struct raidsim_zone_split *z)
{
  unsigned n = 0, asum = 0, ssum = 0, smiss = 0, i;
  char *entry, *save = NULL;

  for (entry = strtok_r (text, ":", &save); entry;
       entry = strtok_r (NULL, ":", &save)) {
    char *slash = strchr (entry, '/'), *end;
    unsigned long a, sz = 0;

    if (n == RAIDSIM_ZONESPLIT_MAX) {
      raidsim_set_error ("%s:%u: %s: more than %d zones", ld->ini->path,
                         e->line, key, RAIDSIM_ZONESPLIT_MAX);
      return -1;
    }
    if (slash)
      *slash = '\0';
    a = strtoul (entry, &end, 10);
    if (end == entry || *end || a > 100) {
      raidsim_set_error ("%s:%u: %s: '%s' is not a percentage of accesses",
                         ld->ini->path, e->line, key, entry);
      return -1;
    }
    if (slash && slash[1]) {
      sz = strtoul (slash + 1, &end, 10);
      if (*end || sz > 100) {
        raidsim_set_error ("%s:%u: %s: '%s' is not a percentage of the "
                           "region", ld->ini->path, e->line, key, slash + 1);
        return -1;
      }
    }
    z[n].access = a;
    z[n].size = sz;
    asum += a;
    ssum += sz;
    smiss += sz == 0;
    n++;
  }
  if (asum != 100 || ssum > 100) {
    raidsim_set_error ("%s:%u: %s: the %s percentages add up to %u, %s 100",
                       ld->ini->path, e->line, key,
                       asum != 100 ? "access" : "size",
                       asum != 100 ? asum : ssum,
                       asum != 100 ? "not" : "more than");
    return -1;
  }
  for (i = 0; i < n; ++i)
    if (z[i].size == 0)
      z[i].size = n == 1 ? 100 : (100 - ssum) / smiss;
  *nzones = n;
  return 0;
}

static int
parse_zoned (struct loader *ld, const struct raidsim_ini_entry *e,
             const char *key, const char *value, const char *rest,
             struct raidsim_job *j)
{
  char piece[3][RAIDSIM_STR_MAX];
  unsigned nz[3];
  struct raidsim_zone_split z[3][RAIDSIM_ZONESPLIT_MAX];
  int n, i;

  if (rest == NULL || *rest == '\0') {
    raidsim_set_error ("%s:%u: %s: '%s': zoned needs its zones "
                       "(zoned:A/S:A/S...)", ld->ini->path, e->line, key,
                       value);
    return -1;
  }
  n = split_dirs (rest, piece, true);
  if (n == -1) {
    raidsim_set_error ("%s:%u: %s: '%s': more than three lists (reads, "
                       "writes, trims)", ld->ini->path, e->line, key, value);
    return -1;
  }
  for (i = 0; i < n; ++i)
    if (parse_zone_dir (ld, e, key, piece[i], &nz[i], z[i]) == -1)
      return -1;
  for (i = 0; i < 2; ++i) {
    int from = i < n ? i : 0;

    j->nzones[i] = nz[from];
    memcpy (j->zones[i], z[from], nz[from] * sizeof z[0][0]);
  }
  j->random_distribution = RAIDSIM_DIST_ZONED;
  j->dist_param = 0;
  j->dist_center = -1;
  return 0;
}

/* random_distribution=NAME[:PARAM[:CENTER]], as options.c
 * (str_random_distribution_cb) reads it.
 */
static int
parse_distribution (struct loader *ld, const struct raidsim_ini_entry *e,
                    const char *key, const char *value, struct raidsim_job *j)
{
  const struct raidsim_param *p =
    &raidsim_fio_params[RAIDSIM_FIO_RANDOM_DISTRIBUTION];
  size_t n = strcspn (value, ":");
  char name[32], *end;
  const char *rest = value[n] ? value + n + 1 : NULL;
  double v, center = -1;

  snprintf (name, sizeof name, "%.*s", (int) (n < 31 ? n : 31), value);
  if (strcmp (name, "zoned") == 0)
    return parse_zoned (ld, e, key, value, rest, j);
  if (strcmp (name, "zoned_abs") == 0) {
    raidsim_set_error ("%s:%u: %s=%s: refused: fio's %s distribution is %s",
                       ld->ini->path, e->line, key, value, name,
                       whys[W_NOTYET].why);
    return -1;
  }
  if (raidsim_param_parse (p, name, &j->random_distribution) == -1) {
    raidsim_set_error ("%s:%u: %s%s", ld->ini->path, e->line, key,
                       raidsim_error () + strlen (p->name));
    return -1;
  }
  switch (j->random_distribution) {
  case RAIDSIM_DIST_ZIPF: v = 1.1; break;
  case RAIDSIM_DIST_PARETO: v = 0.2; break;
  default: v = 0;
  }
  if (rest && j->random_distribution == RAIDSIM_DIST_RANDOM) {
    raidsim_set_error ("%s:%u: %s: '%s': random takes no parameter",
                       ld->ini->path, e->line, key, value);
    return -1;
  }
  if (rest) {
    errno = 0;
    v = strtod (rest, &end);
    if (end == rest || errno || (*end != '\0' && *end != ':')) {
      raidsim_set_error ("%s:%u: %s: '%s' is not a number", ld->ini->path,
                         e->line, key, rest);
      return -1;
    }
    if (*end == ':') {
      const char *c = end + 1;

      center = strtod (c, &end);
      if (end == c || *end != '\0' || center < 0 || center > 1) {
        raidsim_set_error ("%s:%u: %s: center '%s' is not a number from 0 "
                           "to 1", ld->ini->path, e->line, key, c);
        return -1;
      }
    }
  }
  if ((j->random_distribution == RAIDSIM_DIST_ZIPF && (v == 1.0 || v <= 0)) ||
      (j->random_distribution == RAIDSIM_DIST_PARETO &&
       (v <= 0 || v >= 1)) ||
      (j->random_distribution == RAIDSIM_DIST_NORMAL &&
       (v < 0 || v >= 100))) {
    raidsim_set_error ("%s:%u: %s: '%s': %s", ld->ini->path, e->line, key,
                       value, j->random_distribution == RAIDSIM_DIST_ZIPF
                       ? "zipf's theta must be above 0 and not 1"
                       : j->random_distribution == RAIDSIM_DIST_PARETO
                       ? "pareto's H must be between 0 and 1"
                       : "normal's deviation must be from 0 to less than 100");
    return -1;
  }
  j->dist_param = v;
  j->dist_center = center;
  return 0;
}

/* One option of the table.  o is its index. */
static int
apply_modelled (struct loader *ld, const struct raidsim_ini_entry *e,
                const char *key, const char *value, struct raidsim_job *j,
                enum raidsim_fio_opt o)
{
  const struct raidsim_param *p = &raidsim_fio_params[o];
  void *field = (char *) j + p->offset;
  uint64_t v;
  int r;

  if (value == NULL && p->type != RAIDSIM_PT_BOOL) {
    raidsim_set_error ("%s:%u: %s: needs a value (%s = VALUE)",
                       ld->ini->path, e->line, key, key);
    return -1;
  }
  if (value && value[0] == '\0') {
    const char *unset = unset_var (e->value);

    if (unset)
      raidsim_set_error ("%s:%u: %s: empty value: %s is not set in the "
                         "environment (fio replaces it with nothing)",
                         ld->ini->path, e->line, key, unset);
    else
      raidsim_set_error ("%s:%u: %s: empty value", ld->ini->path, e->line,
                         key);
    return -1;
  }
  switch (o) {
  case RAIDSIM_FIO_BS:
    return parse_perdir (ld, e, key, value, j, p, &j->bs, &j->wbs);
  case RAIDSIM_FIO_RATE:
    return parse_perdir (ld, e, key, value, j, p, &j->rate, &j->wrate);
  case RAIDSIM_FIO_BA:
    return parse_perdir (ld, e, key, value, j, p, &j->ba, &j->wba);
  case RAIDSIM_FIO_FILESIZE:
    if (strpbrk (value, "-:,")) {
      raidsim_set_error ("%s:%u: %s=%s: refused: files of random sizes "
                         "are %s", ld->ini->path, e->line, key, value,
                         whys[W_FILES].why);
      return -1;
    }
    break;
  case RAIDSIM_FIO_RATE_IOPS:
    return parse_perdir (ld, e, key, value, j, p, &j->rate_iops,
                         &j->wrate_iops);
  case RAIDSIM_FIO_RANDOM_DISTRIBUTION:
    return parse_distribution (ld, e, key, value, j);
  case RAIDSIM_FIO_EXITALL:
    /* fio's str_exitall_cb sets it whatever the value. */
    j->exitall = true;
    ld->jf->exitall = true;
    return 0;
  case RAIDSIM_FIO_ZONEMODE:
    if (strcmp (value, "zbd") == 0) {
      raidsim_set_error ("%s:%u: %s=%s: refused: %s", ld->ini->path, e->line,
                         key, value, whys[W_ZONED].why);
      return -1;
    }
    break;
  case RAIDSIM_FIO_STARTDELAY: {
    /* A time, or LOW-HIGH (fio's start_delay_high). */
    const char *dash = strchr (value, '-');
    char low[RAIDSIM_STR_MAX];

    snprintf (low, sizeof low, "%.*s",
              (int) (dash ? dash - value : (ptrdiff_t) strlen (value)), value);
    j->startdelay_high = 0;
    r = fio_time (low, RAIDSIM_NS_PER_S, &j->startdelay);
    if (r == FV_OK && dash)
      r = fio_time (dash + 1, RAIDSIM_NS_PER_S, &j->startdelay_high);
    if (r != FV_OK) {
      value_error (ld, e, key, value, r, true);
      return -1;
    }
    if (j->startdelay_high && j->startdelay_high < j->startdelay) {
      uint64_t t = j->startdelay;

      j->startdelay = j->startdelay_high;
      j->startdelay_high = t;
    }
    return 0;
  }
  case RAIDSIM_FIO_BSRANGE: case RAIDSIM_FIO_BSSPLIT:
    if (strlen (value) >= RAIDSIM_STR_MAX) {
      raidsim_set_error ("%s:%u: %s: value is longer than %d characters",
                         ld->ini->path, e->line, key, RAIDSIM_STR_MAX - 1);
      return -1;
    }
    if ((o == RAIDSIM_FIO_BSRANGE ? parse_bsrange : parse_bssplit)
        (ld, e, key, value, j) == -1)
      return -1;
    strcpy (field, value);
    return 0;
  default:
    break;
  }
  switch (p->type) {
  case RAIDSIM_PT_FIO_INT: {
    /* fio takes a percentage for these (options.c, str_size_cb ...). */
    bool pct_ok = o == RAIDSIM_FIO_SIZE || o == RAIDSIM_FIO_OFFSET ||
      o == RAIDSIM_FIO_OFFSET_INCREMENT || o == RAIDSIM_FIO_IO_SIZE;
    bool pct;

    r = fio_size (value, j->kb_base, pct_ok, &v, &pct);
    if (r == FV_TOO_LARGE && pct_ok && value[strlen (value) - 1] == '%') {
      raidsim_set_error ("%s:%u: %s: %s is more than 100%%", ld->ini->path,
                         e->line, key, value);
      return -1;
    }
    if (r != FV_OK) {
      value_error (ld, e, key, value, r, false);
      return -1;
    }
    j->pct[o] = pct ? v : 0;
    if (pct)
      v = 0;
    else if (range_check (ld, e, p, key, value, v) == -1)
      return -1;
    *(uint64_t *) field = v;
    break;
  }
  case RAIDSIM_PT_FIO_TIME:
    /* fio's thinktime is in microseconds when it has no unit. */
    r = fio_time (value, o == RAIDSIM_FIO_THINKTIME ? RAIDSIM_NS_PER_US
                  : RAIDSIM_NS_PER_S, &v);
    if (r != FV_OK) {
      value_error (ld, e, key, value, r, true);
      return -1;
    }
    if (range_check (ld, e, p, key, value, v) == -1)
      return -1;
    *(uint64_t *) field = v;
    break;
  case RAIDSIM_PT_ENUM:
    if (o == RAIDSIM_FIO_RW)
      return parse_rw (ld, e, value, j);
    /* fall through */
  default:
    /* A bare flag (fio's `time_based`) means true. */
    if (raidsim_param_parse (p, value ? value : "1", field) == -1) {
      /* "NAME: what" as written: the key may be an alias. */
      const char *what = raidsim_error () + strlen (p->name);

      raidsim_set_error ("%s:%u: %s%s", ld->ini->path, e->line, key, what);
      return -1;
    }
  }
  return 0;
}

/* An option outside the table: note it, or refuse it. */
static int
apply_other (struct loader *ld, const struct raidsim_ini_entry *e,
             const char *key, const char *value, const char *name,
             const struct raidsim_job *j)
{
  const struct fio_other *o = find_other (name);
  enum why why;

  if (o == NULL) {
    if (strncmp (key, "include ", 8) == 0)
      raidsim_set_error ("%s:%u: include: fio's include files are not "
                         "supported", ld->ini->path, e->line);
    else
      raidsim_set_error ("%s:%u: %s: fio option not in raidsim's subset "
                         "(see 'raidsim help config')",
                         ld->ini->path, e->line, key);
    return -1;
  }
  why = o->why;
  if (strcmp (name, "ioengine") == 0) {
    unsigned i;

    if (value == NULL || value[0] == '\0') {
      raidsim_set_error ("%s:%u: %s: needs a value (%s = VALUE)",
                         ld->ini->path, e->line, key, key);
      return -1;
    }
    for (i = 0; engines[i].name; ++i)
      if (strcmp (engines[i].name, value) == 0)
        break;
    if (engines[i].name)
      why = engines[i].why;
    else if (strncmp (value, "external:", 9) != 0) {
      raidsim_set_error ("%s:%u: ioengine=%s: not an I/O engine of fio "
                         "3.33", ld->ini->path, e->line, value);
      return -1;
    }
  }
  if (why >= W_FIRST_REFUSED && !is_harmless (o->harmless, value, j->kb_base)) {
    raidsim_set_error ("%s:%u: %s%s%s: refused: %s", ld->ini->path, e->line,
                       key, value ? "=" : "", value ? value : "",
                       whys[why].why);
    return -1;
  }
  if (note (ld, key, name) == -1) {
    raidsim_set_error ("%s: %s", ld->ini->path, strerror (ENOMEM));
    return -1;
  }
  return 0;
}

/* fio reads kb_base before the other options of a section (options.c
 * gives it priority), so that it applies to all of them.
 */
static int
apply_kb_base (struct loader *ld, unsigned sec, struct raidsim_job *j)
{
  unsigned i;

  for (i = 0; i < ld->ini->nentries; ++i) {
    const struct raidsim_ini_entry *e = &ld->ini->entries[i];

    if (e->section != sec || strcmp (e->key, "kb_base") != 0)
      continue;
    if (e->value && strcmp (e->value, "1024") == 0)
      j->kb_base = 1024;
    else if (e->value && strcmp (e->value, "1000") == 0)
      j->kb_base = 1000;
    else {
      raidsim_set_error ("%s:%u: kb_base: '%s' is not one of 1024, 1000",
                         ld->ini->path, e->line, e->value ? e->value : "");
      return -1;
    }
  }
  return 0;
}

static int
apply_section (struct loader *ld, unsigned sec, struct raidsim_job *j)
{
  unsigned i, k;

  if (apply_kb_base (ld, sec, j) == -1)
    return -1;
  for (i = 0; i < ld->ini->nentries; ++i) {
    const struct raidsim_ini_entry *e = &ld->ini->entries[i];
    const char *name;
    char *value = NULL;
    int r;

    if (e->section != sec || strcmp (e->key, "kb_base") == 0)
      continue;
    if (e->value && (value = env_subst (e->value)) == NULL) {
      raidsim_set_error ("%s: %s", ld->ini->path, strerror (ENOMEM));
      return -1;
    }
    name = canonical (e->key);
    if (strcmp (name, "rwmixwrite") == 0) {
      /* fio keeps one mix: rwmixwrite=W is rwmixread=100-W. */
      uint64_t w = 0;

      r = apply_modelled (ld, e, e->key, value, j, RAIDSIM_FIO_RWMIXREAD);
      if (r == 0) {
        w = j->rwmixread;
        j->rwmixread = 100 - w;
        j->opt_line[RAIDSIM_FIO_RWMIXREAD] = e->line;
      }
      free (value);
      if (r == -1)
        return -1;
      continue;
    }
    for (k = 0; k < RAIDSIM_FIO_NOPTS; ++k)
      if (strcmp (raidsim_fio_params[k].name, name) == 0)
        break;
    if (k < RAIDSIM_FIO_NOPTS) {
      r = apply_modelled (ld, e, e->key, value, j, k);
      if (r == 0)
        j->opt_line[k] = e->line;
    }
    else
      r = apply_other (ld, e, e->key, value, name, j);
    free (value);
    if (r == -1)
      return -1;
  }
  return 0;
}

void
raidsim_jobfile_free (struct raidsim_jobfile *jf)
{
  unsigned i;

  if (jf) {
    for (i = 0; i < jf->njobs; ++i)
      raidsim_trace_free ((struct raidsim_trace *) jf->jobs[i].trace);
    free (jf->jobs);
    free (jf->noted);
    free (jf->assumed);
    free (jf);
  }
}

void
raidsim_jobfile_print_noted (FILE *fp, const char *prefix,
                             const struct raidsim_jobfile *jf)
{
  unsigned i;

  if (jf->noted)
    fprintf (fp, "%s: %s: noted, no effect on the model: %s\n", prefix,
             jf->path, jf->noted);
  /* What a replayed trace held that is not replayed (trace.h). */
  for (i = 0; i < jf->njobs; ++i) {
    const struct raidsim_trace *t = jf->jobs[i].trace;

    if (t && (t->syncs || t->trims))
      fprintf (fp, "%s: %s: skipped %" PRIu64 " syncs and %" PRIu64
               " trims (the models have neither flush nor trim)\n",
               prefix, t->name, t->syncs, t->trims);
    if (t && t->ndevices > 1)
      fprintf (fp, "%s: %s: %u devices, all replayed onto the array (as "
               "fio's replay_redirect)\n", prefix, t->name, t->ndevices);
  }
}

/* The line to blame for an option: where it was set, or the job's
 * header if it has its default.
 */
static unsigned
blame (const struct raidsim_job *j, enum raidsim_fio_opt o)
{
  return j->opt_line[o] ? j->opt_line[o] : j->line;
}

/* The job file read into ini (which this frees), named path. */
static struct raidsim_jobfile *
jobfile_from_ini (const char *path, struct raidsim_ini *ini)
{
  struct loader ld = { 0 };
  struct raidsim_jobfile *jf;
  struct raidsim_job global;
  unsigned i;

  ld.ini = ini;
  if (ld.ini == NULL)
    return NULL;
  jf = ld.jf = calloc (1, sizeof *jf);
  if (jf == NULL ||
      (ld.ini->nsections && (jf->jobs = calloc (ld.ini->nsections,
                                                sizeof *jf->jobs)) == NULL)) {
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    goto err;
  }
  snprintf (jf->path, sizeof jf->path, "%s", path);

  memset (&global, 0, sizeof global);
  raidsim_params_defaults (raidsim_fio_params, &global);
  global.kb_base = 1024;
  global.dist_center = -1;

  /* Sections in file order, as fio reads them: [global] changes the
   * defaults of the jobs after it, not of those before.
   */
  for (i = 0; i < ld.ini->nsections; ++i) {
    struct raidsim_job *j;

    if (strcmp (ld.ini->sections[i].name, "global") == 0) {
      if (apply_section (&ld, i, &global) == -1)
        goto err;
      continue;
    }
    j = &jf->jobs[jf->njobs++];
    *j = global;
    snprintf (j->name, sizeof j->name, "%s", ld.ini->sections[i].name);
    j->line = ld.ini->sections[i].line;
    if (apply_section (&ld, i, j) == -1)
      goto err;
  }
  if (jf->njobs == 0) {
    raidsim_set_error ("%s: no job sections (only [global], or empty)",
                       path);
    goto err;
  }
  for (i = 0; i < jf->njobs; ++i) {
    struct raidsim_job *j = &jf->jobs[i];

    /* A trim job's requests take the trims' size (bs=R,W,T). */
    if (j->trim == RAIDSIM_TRIM_ONLY && j->tbs &&
        j->range[1][0] == 0 && j->nsplit[1] == 0)
      j->wbs = j->tbs == j->bs ? 0 : j->tbs;
    j->fua = j->sync != 0 || j->writefua;
    if (j->time_based && j->runtime == 0) {
      raidsim_set_error ("%s:%u: time_based: needs runtime (fio would run "
                         "forever)", path, j->opt_line[RAIDSIM_FIO_TIME_BASED]
                         ? j->opt_line[RAIDSIM_FIO_TIME_BASED] : j->line);
      goto err;
    }
    /* fio's fixup_options: zonesize and zonemode go together. */
    if (j->zonemode == 0 && j->zonesize) {
      raidsim_set_error ("%s:%u: zonesize: needs zonemode=strided (fio: "
                         "zonemode=none and zonesize are not compatible)",
                         path, blame (j, RAIDSIM_FIO_ZONESIZE));
      goto err;
    }
    if (j->zonemode == 1 && !j->zonesize) {
      raidsim_set_error ("%s:%u: zonemode: strided needs zonesize", path,
                         blame (j, RAIDSIM_FIO_ZONEMODE));
      goto err;
    }
    if (j->zonemode == 1 && j->random_distribution != RAIDSIM_DIST_RANDOM) {
      raidsim_set_error ("%s:%u: zonemode: refused: strided zones with a "
                         "random_distribution are %s", path,
                         blame (j, RAIDSIM_FIO_ZONEMODE), whys[W_NOTYET].why);
      goto err;
    }
    if (j->zonemode == 1 && !raidsim_job_bs_fixed (j)) {
      raidsim_set_error ("%s:%u: zonemode: refused: strided zones with "
                         "several block sizes are %s", path,
                         blame (j, RAIDSIM_FIO_ZONEMODE), whys[W_NOTYET].why);
      goto err;
    }
  }
  /* Each job that replays a trace reads it now, so that a bad trace is
   * refused before anything runs.
   */
  for (i = 0; i < jf->njobs; ++i) {
    struct raidsim_job *j = &jf->jobs[i];

    if (j->read_iolog[0] && (j->trace = raidsim_trace_load (j->read_iolog))
        == NULL) {
      /* The trace's own message names its file and line. */
      char msg[1024];

      snprintf (msg, sizeof msg, "%s", raidsim_error ());
      raidsim_set_error ("%s:%u: read_iolog: %s", path,
                         blame (j, RAIDSIM_FIO_READ_IOLOG), msg);
      goto err;
    }
  }
  /* wait_for names an earlier job, once (fio's limits). */
  for (i = 0; i < jf->njobs; ++i) {
    struct raidsim_job *j = &jf->jobs[i];
    unsigned k, found = 0;

    j->waitee = 0;
    if (!j->wait_for[0])
      continue;
    for (k = 0; k < jf->njobs; ++k)
      if (strcmp (jf->jobs[k].name, j->wait_for) == 0) {
        if (k < i && j->waitee == 0)
          j->waitee = k + 1;
        found++;
      }
    if (j->waitee == 0 || found > 1) {
      raidsim_set_error ("%s:%u: wait_for: '%s' is not %s", path,
                         blame (j, RAIDSIM_FIO_WAIT_FOR), j->wait_for,
                         found > 1 ? "the name of one job only"
                         : "the name of a job before this one");
      goto err;
    }
  }
  /* fio's groupid (init.c, add_job): a new group at a job with
   * stonewall or new_group, once the group before has a job.
   */
  {
    unsigned g = 0;

    for (i = 0; i < jf->njobs; ++i) {
      if (i > 0 && (jf->jobs[i].stonewall || jf->jobs[i].new_group))
        g++;
      jf->jobs[i].report_group = g;
    }
  }
  raidsim_jobfile_groups (jf);
  goto out;

 err:
  raidsim_jobfile_free (jf);
  jf = NULL;
 out:
  for (i = 0; i < ld.nnoted; ++i)
    free (ld.noted_keys[i]);
  free (ld.noted_keys);
  raidsim_ini_free (ld.ini);
  return jf;
}

struct raidsim_jobfile *
raidsim_jobfile_load (const char *path)
{
  return jobfile_from_ini (path, raidsim_ini_load (path, RAIDSIM_INI_FIO));
}

struct raidsim_jobfile *
raidsim_jobfile_load_text (const char *name, const char *text)
{
  return jobfile_from_ini (name, raidsim_ini_load_text (name, text,
                                                        RAIDSIM_INI_FIO));
}

struct raidsim_jobfile *
raidsim_jobfile_trace (const char *path, uint64_t iodepth, bool no_stall)
{
  struct raidsim_jobfile *jf = calloc (1, sizeof *jf);
  struct raidsim_job *j;
  const char *base = strrchr (path, '/');

  if (jf == NULL || (jf->jobs = calloc (1, sizeof *jf->jobs)) == NULL) {
    free (jf);
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    return NULL;
  }
  snprintf (jf->path, sizeof jf->path, "%s", path);
  jf->njobs = 1;
  j = &jf->jobs[0];
  raidsim_params_defaults (raidsim_fio_params, j);
  j->kb_base = 1024;
  j->dist_center = -1;
  snprintf (j->name, sizeof j->name, "%s", base ? base + 1 : path);
  snprintf (j->read_iolog, sizeof j->read_iolog, "%s", path);
  j->opt_line[RAIDSIM_FIO_READ_IOLOG] = 1;
  j->replay_no_stall = no_stall;
  if (no_stall)
    j->opt_line[RAIDSIM_FIO_REPLAY_NO_STALL] = 1;
  j->iodepth = iodepth;
  j->opt_line[RAIDSIM_FIO_IODEPTH] = 1;
  if ((j->trace = raidsim_trace_load (path)) == NULL) {
    raidsim_jobfile_free (jf);
    return NULL;
  }
  raidsim_jobfile_groups (jf);
  return jf;
}

/* ---- the reference (docs/fio-jobs.md) ---- */

/* Values of modelled options that are refused or noted, for the docs. */
static const struct { enum why why; const char *text; } doc_extras[] = {
  { W_HOST, "`ioengine=external:...`" },
  { W_ZONED, "`zonemode=zbd`, sizes in zones (`size=10z`)" },
  { W_NOTYET, "`random_distribution=zoned_abs`, `zonemode=strided` with "
    "several block sizes or a random_distribution" },
  { W_FILES, "`filesize=LOW-HIGH`" },
  { 0, NULL },
};

void
raidsim_fio_options_doc (FILE *fp)
{
  unsigned w, i;

  fprintf (fp, "### Modelled\n\n");
  for (i = 0; raidsim_fio_params[i].name; ++i)
    fprintf (fp, "%s`%s`", i ? ", " : "", raidsim_fio_params[i].name);
  fprintf (fp, ", `rwmixwrite` (read as `rwmixread` = 100 - it) and "
           "`kb_base`.  docs/config-reference.md gives their meaning.\n\n"
           "fio's other names for options, read as the option they name:"
           "\n\n| alias | option |\n| --- | --- |\n");
  for (i = 0; aliases[i].alias; ++i)
    fprintf (fp, "| `%s` | `%s` |\n", aliases[i].alias, aliases[i].name);

  for (w = 0; w < W_NWHY; ++w) {
    const char *sep = "";

    if (w == 0)
      fprintf (fp, "\n### Noted: accepted, no effect on the model\n");
    if (w == W_FIRST_REFUSED)
      fprintf (fp, "\n### Refused\n\n"
               "Some are refused only for values that ask for something: "
               "with a value in brackets they ask for nothing, and are "
               "noted instead.\n");
    fprintf (fp, "\n**%s**: %s.\n", whys[w].title, whys[w].why);
    for (i = 0; others[i].name; ++i)
      if (others[i].why == w) {
        fprintf (fp, "%s`%s`", sep, others[i].name);
        if (others[i].harmless)
          fprintf (fp, " (%s)", others[i].harmless);
        sep = ", ";
      }
    for (i = 0; engines[i].name; ++i)
      if (engines[i].why == w) {
        fprintf (fp, "%s`ioengine=%s`", sep, engines[i].name);
        sep = ", ";
      }
    for (i = 0; doc_extras[i].text; ++i)
      if (doc_extras[i].why == w) {
        fprintf (fp, "%s%s", sep, doc_extras[i].text);
        sep = ", ";
      }
    fprintf (fp, "\n");
  }
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


/* pct percent of n, rounded down. */
static uint64_t
percent_of (uint64_t n, unsigned pct)
{
  return (uint64_t) ((unsigned __int128) n * pct / 100);
}

int
raidsim_job_thread_region (const struct raidsim_jobfile *jf,
                           const struct raidsim_job *j, uint64_t array_size,
                           unsigned thread, struct raidsim_region *r)
{
  struct raidsim_bsdist d[2];
  uint64_t size, minbs, tdmin, incr;
  unsigned __int128 off;
  bool align;

  memset (r, 0, sizeof *r);
  raidsim_job_bsdist (j, 0, &d[0]);
  raidsim_job_bsdist (j, 1, &d[1]);
  /* fio's td_min_bs: the smaller of the two directions' smallest. */
  tdmin = d[0].min < d[1].min ? d[0].min : d[1].min;

  /* Where the thread starts, as fio's get_start_offset: an offset or an
   * increment in percent is rounded up to offset_align, or to the
   * smallest block size.
   */
  align = j->pct[RAIDSIM_FIO_OFFSET_INCREMENT] != 0;
  incr = align ? percent_of (array_size, j->pct[RAIDSIM_FIO_OFFSET_INCREMENT])
    : j->offset_increment;
  if (j->pct[RAIDSIM_FIO_OFFSET]) {
    off = percent_of (array_size, j->pct[RAIDSIM_FIO_OFFSET]);
    align = true;
  }
  else
    off = j->offset;
  off += (unsigned __int128) thread * incr;
  if (align) {
    uint64_t a = j->offset_align ? j->offset_align : tdmin;

    off = (off + a - 1) / a * a;
  }
  if (off >= array_size) {
    if (thread == 0 || incr == 0)
      raidsim_set_error ("%s:%u: offset: %" PRIu64 " is not inside the "
                         "array (%" PRIu64 " bytes)", jf->path,
                         blame (j, RAIDSIM_FIO_OFFSET),
                         off > UINT64_MAX ? UINT64_MAX : (uint64_t) off,
                         array_size);
    else
      raidsim_set_error ("%s:%u: offset_increment: thread %u of %" PRIu64
                         " would start at %" PRIu64 ", not inside the array "
                         "(%" PRIu64 " bytes)", jf->path,
                         blame (j, RAIDSIM_FIO_OFFSET_INCREMENT), thread,
                         j->numjobs,
                         off > UINT64_MAX ? UINT64_MAX : (uint64_t) off,
                         array_size);
    return -1;
  }
  if (j->fill_device)
    size = array_size - off;
  else if (j->filesize) {
    /* fio's setup_files with one file of filesize bytes: the file from
     * offset to its end, and size capped at that.
     */
    if (j->filesize > array_size) {
      raidsim_set_error ("%s:%u: filesize: %" PRIu64 " bytes is larger than "
                         "the array (%" PRIu64 " bytes)", jf->path,
                         blame (j, RAIDSIM_FIO_FILESIZE), j->filesize,
                         array_size);
      return -1;
    }
    if (off >= j->filesize) {
      raidsim_set_error ("%s:%u: offset: %" PRIu64 " is not inside the file "
                         "(filesize %" PRIu64 ")", jf->path,
                         blame (j, RAIDSIM_FIO_OFFSET), (uint64_t) off,
                         j->filesize);
      return -1;
    }
    size = j->filesize - off;
  }
  else if (j->pct[RAIDSIM_FIO_SIZE]) {
    /* fio's setup_files: a percentage of the whole device, capped at
     * its end, rounded down to the smallest block size.
     */
    size = percent_of (array_size, j->pct[RAIDSIM_FIO_SIZE]);
    if (size > array_size - off)
      size = array_size - off;
    size -= size % tdmin;
  }
  else
    size = j->size ? j->size : array_size - off;
  if (size > array_size - off) {
    raidsim_set_error ("%s:%u: size: %" PRIu64 " bytes from offset %" PRIu64
                       " run past the end of the array (%" PRIu64 " bytes)",
                       jf->path, blame (j, RAIDSIM_FIO_SIZE), size,
                       (uint64_t) off, array_size);
    return -1;
  }
  minbs = d[0].min > d[1].min ? d[0].min : d[1].min;
  if (j->rw == RAIDSIM_RW_READ || j->rw == RAIDSIM_RW_RANDREAD)
    minbs = d[0].min;
  else if (j->rw == RAIDSIM_RW_WRITE || j->rw == RAIDSIM_RW_RANDWRITE)
    minbs = d[1].min;
  if (size < minbs) {
    raidsim_set_error ("%s:%u: size: %" PRIu64 " bytes is less than one "
                       "block (bs = %" PRIu64 ")", jf->path,
                       blame (j, RAIDSIM_FIO_SIZE), size, minbs);
    return -1;
  }
  r->start = off;
  r->len = size;
  r->room = array_size - off;
  r->bytes = j->pct[RAIDSIM_FIO_IO_SIZE]
    ? percent_of (size, j->pct[RAIDSIM_FIO_IO_SIZE])
    : j->io_size ? j->io_size
    : j->filesize && j->size && j->size < size ? j->size : size;
  r->loops = j->loops ? j->loops : 1;
  if (r->bytes == 0) {
    raidsim_set_error ("%s:%u: io_size: 0 bytes", jf->path,
                       blame (j, RAIDSIM_FIO_IO_SIZE));
    return -1;
  }
  if (!raidsim_job_bs_fixed (j))
    return 0;
  /* fio issues I/O until it has done size bytes: sequentially that is
   * every block that starts inside the region, as long as the block
   * ends inside the file (the array); a random job's map holds the
   * region's whole blocks only, and the job ends when it is full.
   * With norandommap there is no map to run out of: fio still draws
   * among the whole blocks, but goes on until it has done size bytes.
   * With io_size, fio goes over the region again until it has done
   * io_size bytes.
   */
  if (raidsim_rw_is_random (j->rw)) {
    /* A distribution other than random has no map (fio's
     * fixup_options sets norandommap).
     */
    bool nomap = j->norandommap ||
      j->random_distribution != RAIDSIM_DIST_RANDOM;

    r->nblocks = size / j->bs;
    r->size_ios = nomap ? (size + j->bs - 1) / j->bs : r->nblocks;
  }
  else {
    r->nblocks = (size + j->bs - 1) / j->bs;
    if (r->nblocks > (array_size - off) / j->bs)
      r->nblocks = (array_size - off) / j->bs;
    r->size_ios = r->nblocks;
  }
  /* With strided zones, size is the bytes of I/O, not its extent. */
  if (j->io_size || j->pct[RAIDSIM_FIO_IO_SIZE] || j->zonemode ||
      r->bytes != size)
    r->size_ios = (r->bytes + j->bs - 1) / j->bs;
  return 0;
}

int
raidsim_job_region (const struct raidsim_jobfile *jf,
                    const struct raidsim_job *j, uint64_t array_size,
                    uint64_t *start, uint64_t *nblocks,
                    uint64_t *size_ios)
{
  struct raidsim_region r;

  if (raidsim_job_thread_region (jf, j, array_size, 0, &r) == -1)
    return -1;
  *start = r.start;
  *nblocks = r.nblocks;
  *size_ios = r.size_ios;
  return 0;
}
