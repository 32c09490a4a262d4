/* nbdkit-raid-plugin: software RAID 0, 1 and 10 over files, block devices
 * and NBD exports.
 *
 * The request path is short on purpose:
 *
 *   raid_pread / raid_pwrite / raid_trim / raid_zero / raid_flush
 *     -> io/read.c, io/write.c: on arrays with copies, a write, zero or
 *        trim holds its array range (io/rangelock.h) until its last
 *        member I/O is done, so that overlapping writes take turns and
 *        every copy ends the same
 *     -> plan_build (io/plan.c) cuts the request into pieces with
 *        raid_geom_foreach (raidsim/core/geometry.c), each with the list
 *        of copies that hold it
 *     -> a read picks one copy of every piece by the read policy
 *        (raid_read_choose, raidsim/core/readpolicy.c, the very code the
 *        simulator uses), a write takes every live copy; raid_geom_runs
 *        then groups the pieces that are contiguous on one member into
 *        runs, as Linux's block layer merges md's bios, and each run is
 *        one member_io (scattered over the client's buffer by an
 *        iovec); all are submitted at once, so a request over k members
 *        has k member I/Os in flight together
 *     -> member_submit_all (member/member.c) hands them to the members'
 *        backends (member/member-file.c, member/member-nbd.c), doing the
 *        last one in this thread where it can, and then any other that
 *        no backend thread has started yet; batch_wait sleeps until the
 *        last one is done
 *     -> failed member I/Os are retried on another copy (reads) or fail
 *        their member (writes, md_error), by the rules in the man page
 *
 * Before any of that, at config time, md/assemble.c makes the array
 * from its members: from their md v1.2 superblocks, which
 * md/superblock.c keeps up to date while the array runs, or, for
 * members without metadata, from the parameters alone.
 *
 * The files, one folder a part, each layer looking only down (scripts/
 * include-cycles.py checks it):
 *
 *   raid.c, params.c   the nbdkit callbacks and the parameter table
 *   ctl/     control.c the control socket, verbs.c its verbs (mdadm
 *            --fail, --remove, --add, --replace, sync_action), detail.c
 *            mdadm --detail and /proc/mdstat, stats-json.c stats=
 *   sync/    md's sync actions: walk.c the one walk (regions, window,
 *            copy pool), resync.c the resync and the sync thread,
 *            rebuild.c members rebuilt, replace.c mdadm --replace,
 *            scrub.c check and repair, throttle.c md's speed limits,
 *            recwindow.c the regions in flight, syncio.c their model=
 *            timing
 *   io/      the request path: plan.c pieces, copies and runs; read.c
 *            reads and repair; write.c writes, zeroes, trims, flushes;
 *            extents.c block status; rangelock.c the write ranges
 *   md/      md's own parts: state.c the array's state and md_fail;
 *            superblock.c the superblocks; bitmap.c the write-intent
 *            bitmap; failure.c md_error; assemble.c assembly; safemode.c
 *            clean and dirty, and the bitmap daemon; spares.c spares,
 *            add, re-add, remove
 *   member/  member.c and member-*.c the backends behind one ops table,
 *            batch.c batches of member I/O, stats.c statistics,
 *            probe.c what a member holds (libblkid)
 *   model/   timing.c: model=, the simulator's models on the wall clock
 *
 * md's rules themselves (whom to trust, enough (), re-adds, recovery
 * offsets) are pure functions in raidsim/core/mdrules.c, shared with
 * the simulator and raidsim examine --assembly.
 *
 * The array offset (what the client asked for) and the member offset
 * (where the bytes live) are kept in differently named variables all the
 * way down: nbdkit 1.32's split plugin wrote members at the array offset,
 * and we do not want that bug to be one typo away.
 *
 * Run: nbdkit raid level=0 chunk=128K a.img b.img
 */

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/geometry.h"
#include "params.h"
#include "ctl/control.h"
#include "ctl/stats-json.h"
#include "io/rangelock.h"
#include "io/request.h"
#include "md/assemble.h"
#include "md/spares.h"
#include "md/state.h"
#include "md/superblock.h"
#include "member/member-file.h"
#include "model/modelfile.h"
#include "model/timing.h"
#include "sync/rebuild.h"
#include "sync/replace.h"
#include "sync/resync.h"
#include "sync/scrub.h"

/* -D raid.io=1 logs every member I/O: which member, member offset and
 * length, so a user can watch a request fan out.  It is logged with
 * nbdkit_debug, so it shows only with nbdkit -v.
 */
NBDKIT_DLL_PUBLIC int raid_debug_io = 0;

/* The array: shared by every connection; see md/state.h. */
static struct raid_array array;
static struct range_lock write_ranges;

static int
raid_config (const char *key, const char *value)
{
  return params_config (key, value);
}

/* The same file, device or export given twice would be written twice
 * over itself: refuse it however it is spelled, and that includes a
 * loop device over another member's file (or over the same file as
 * another loop device).
 */
static int
check_duplicates (void)
{
  unsigned i, j;

  for (i = 0; i < array.nmembers; ++i) {
    const struct member *mi = &array.members[i];

    for (j = 0; j < array.nmembers; ++j) {
      const struct member *mj = &array.members[j];

      if (j < i && strcmp (mi->identity, mj->identity) == 0) {
        nbdkit_error ("member: %s and %s are the same %s",
                      mj->name, mi->name,
                      mi->ops == &nbd_ops ? "export" :
                      strncmp (mi->identity, "block:", 6) == 0
                      ? "device" : "file");
        return -1;
      }
      if (j != i && mi->backing && strcmp (mi->backing, mj->identity) == 0) {
        nbdkit_error ("member: %s is a loop device over %s, which is "
                      "also a member", mi->name, mj->name);
        return -1;
      }
      if (j < i && mi->backing && mj->backing &&
          strcmp (mi->backing, mj->backing) == 0) {
        nbdkit_error ("member: %s and %s are loop devices over the same "
                      "file", mj->name, mi->name);
        return -1;
      }
    }
  }
  return 0;
}

/* Every member I/O stays aligned if the chunk and the array's size are
 * multiples of every member's minimum block size; check both before
 * anything is served.
 */
static int
check_alignment (void)
{
  unsigned i, big = 0;

  for (i = 0; i < array.nmembers; ++i)
    if (array.members[i].min_block > array.align) {
      array.align = array.members[i].min_block;
      big = i;
    }
  if (array.align == 1)
    return 0;
  if (params.raid.level != RAID_LEVEL_1 && params.raid.chunk % array.align != 0) {
    nbdkit_error ("chunk: %" PRIu64 " is not a multiple of %" PRIu32
                  ", the minimum block size of member %s",
                  params.raid.chunk, array.align, array.members[big].name);
    return -1;
  }
  if (raid_geom_size (array.geom) % array.align != 0) {
    nbdkit_error ("member: %s: the array's size %" PRIu64 " is not a "
                  "multiple of this member's minimum block size %" PRIu32,
                  array.members[big].name, raid_geom_size (array.geom), array.align);
    return -1;
  }
  return 0;
}

/* A member much larger than the array needs is probably a mistake (a
 * RAID 1 of 8M and 64M is 8M): say so when more than 1% of a member
 * is left unused, as mdadm --create does.  Not for an array assembled
 * from md superblocks, whose sizes mdadm chose (and warned about) when
 * it created them, nor for a missing member, which has no size.
 */
static void
warn_unused (void)
{
  uint64_t data_offset = raid_geom_data_offset (array.geom);
  unsigned i;

  if (array.meta.on)
    return;
  for (i = 0; i < array.nmembers; ++i) {
    const struct member *m = &array.members[i];
    uint64_t used = data_offset + raid_geom_member_used (array.geom, i);
    uint64_t unused;

    if (m->ops == &missing_ops || m->size <= used)
      continue;
    unused = m->size - used;
    if (unused > m->size / 100)
      member_warning (m, "%" PRIu64 " of its %" PRIu64 " bytes (%.1f%%) "
                      "are not used: the array uses %" PRIu64 " bytes of "
                      "it", unused, m->size, 100.0 * unused / m->size,
                      used);
  }
}

static int
raid_config_complete (void)
{
  unsigned i;

  if (modelfile_settings (&params.raid) == -1)     /* model= (timing.h) */
    return -1;
  raid_read_state_init (&array.reads);
  array.policy = params.raid.policy;
  array.nmembers = params.nmembers;
  for (i = 0; i < array.nmembers; ++i) {
    struct member *m = &array.members[i];
    m->index = i;
    m->name = params.member[i];
    m->load = &array.reads.member[i];
    m->io_mode = params.io_mode;
    m->timeout_ms = params.timeout_ms;
    m->max_inflight = params.max_inflight;
    if (member_open (m) == -1)
      return -1;
  }
  if (check_duplicates () == -1)
    return -1;
  md_state_init (&array);
  array.conf = (struct raid_conf) {
    .force = params.force, .io_mode = params.io_mode,
    .timeout_ms = params.timeout_ms, .max_inflight = params.max_inflight,
    .speed_min = params.sync_speed_min, .speed_max = params.sync_speed_max,
  };
  /* From the members to the geometry: md metadata or none (assemble.c);
   * with metadata the members are now in the places of their roles.
   */
  if (assemble (&array, &params.raid, params.metadata) == -1)
    return -1;
  if (check_alignment () == -1)
    return -1;
  /* Hot spares (spare=), once the array's shape is known. */
  if (spares_config (&array, params.spare, params.nspares) == -1)
    return -1;
  if (modelfile_check (params.raid.level, params.raid.chunk,
                          raid_geom_copies (array.geom),
                          array.nmembers) == -1)
    return -1;
  warn_unused ();
  if (stats_init (&array.stats) == -1) {
    nbdkit_error ("stats: %m");
    return -1;
  }
  range_lock_init (&write_ranges);
  array.write_ranges = &write_ranges;
  /* The control socket is made now, so that a bad path fails the start
   * while the user is looking; its thread starts after the fork.
   */
  if (params.control_path &&
      control_open (params.control_path, &array) == -1)
    return -1;
  nbdkit_debug ("raid: level %s, %u members, chunk %" PRIu64
                ", %u copies, size %" PRIu64 ", %u zones, read-policy %s",
                raid_level_name (params.raid.level), array.nmembers,
                params.raid.chunk, raid_geom_copies (array.geom),
                raid_geom_size (array.geom), raid_geom_nzones (array.geom),
                raid_read_policy_name (array.policy));
  return 0;
}

static void stats_source (struct stats_source *src);

/* model= (timing.h): the members' state as the models must see it,
 * read as a request arrives (the same atomics the request path reads).
 */
static void
model_state (struct timing_state *st)
{
  uint64_t in_sync = md_in_sync (&array);

  st->failed = md_failed (&array);
  st->rebuild = md_unsynced (&array) & ~st->failed;
  st->resync = st->rebuild == 0 && array.resync_on && in_sync != UINT64_MAX;
  st->sync_pos = st->rebuild ? md_rebuilt_below (&array, st->rebuild)
    : st->resync ? in_sync : 0;
}

/* Threads and rings do not survive nbdkit's fork into the background,
 * so the backends start them here.
 */
static int
raid_after_fork (void)
{
  unsigned i;

  for (i = 0; i < array.nmembers; ++i) {
    if (array.members[i].ops->start (&array.members[i]) == -1)
      return -1;
    nbdkit_debug ("raid: member %u (%s) does I/O with %s", i,
                  array.members[i].name, array.members[i].engine);
  }
  if (spares_after_fork (&array) == -1)
    return -1;
  if (control_start () == -1)
    return -1;
  if (timing_start (model_state) == -1)
    return -1;
  if (params.stats_path)
    return stats_json_start (params.stats_path, stats_source);
  return 0;
}

/* nbdkit -r.  nbdkit 1.32 tells a plugin that it runs read-only only
 * when a client connects (the readonly argument of .preconnect and
 * .open; there is no call for it at config time), and by then the
 * members are open.  -r holds for the whole run, so the first
 * connection settles it, before any member I/O: every member refuses
 * writes from then on (member.c), a regular file is reopened read-only
 * (member-file.c), and read repair is off (io/read.c), which the log
 * says once.  A member that cannot be reopened keeps its descriptor
 * (the backend says why) and still refuses writes.  Connections are
 * made in parallel, hence the lock.
 */
static int
raid_preconnect (int readonly)
{
  static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  static bool decided = false;
  unsigned i;

  pthread_mutex_lock (&lock);
  if (!decided && readonly) {
    for (i = 0; i < array.nmembers; ++i) {
      struct member *m = &array.members[i];
      atomic_store (&m->no_writes, true);
      if (m->ops->drop_write)
        m->ops->drop_write (m);
    }
    atomic_store (&array.no_writes, true);
    nbdkit_error ("nbdkit -r: the array is served read-only: no member is "
                  "written, and read repair is off (a copy that fails a "
                  "read is not rewritten)");
  }
  if (!decided)
    spares_preconnect (&array, readonly);
  decided = true;
  /* md metadata: the superblocks say the array has started (events one
   * more, and the members left out at assembly out of the role table)
   * before anything else is written (md/superblock.c); not under -r.
   * Then safe mode and the resync, then the rebuilds.
   */
  if (superblock_start (&array) == -1 || resync_start (&array) == -1 ||
      rebuild_start (&array) == -1) {
    pthread_mutex_unlock (&lock);
    return -1;
  }
  atomic_store (&array.running, true);  /* ctl/'s verbs may act */
  pthread_mutex_unlock (&lock);
  return 0;
}

/* The engine of the file and device members: "uring", "threads" or
 * "inline" if they all use one, "mixed" if not, "none" if there are
 * none.
 */
static const char *
file_engine (void)
{
  const char *e = NULL;
  unsigned i;

  for (i = 0; i < array.nmembers; ++i) {
    if (array.members[i].ops != &file_ops || array.members[i].engine == NULL)
      continue;
    if (e && strcmp (e, array.members[i].engine) != 0)
      return "mixed";
    e = array.members[i].engine;
  }
  return e ? e : "none";
}

static void
stats_source (struct stats_source *src)
{
  *src = (struct stats_source) {
    .geom = array.geom, .members = array.members,
    .nmembers = array.nmembers, .array = &array.stats,
    .io = file_engine (),
    .sync_on = array.resync_on,
  };
  if (array.resync_on) {
    pthread_mutex_lock (&array.meta.lock);
    src->sync = array.status;
    pthread_mutex_unlock (&array.meta.lock);
  }
  scrub_view (&array, &src->scrub);
}

static void
raid_unload (void)
{
  unsigned i;

  control_stop ();              /* no more verbs (control.c) */
  if (array.geom) {
    struct stats_source src;
    replace_stop (&array);      /* mdadm --replace (sync/replace.c) */
    rebuild_stop (&array);      /* rebuilds (sync/rebuild.c) */
    scrub_stop (&array);        /* check and repair (sync/scrub.c) */
    resync_stop (&array);       /* resync and safe mode (sync/resync.c) */
    superblock_stop (&array);   /* a clean shutdown, in the superblocks */
    stats_source (&src);
    stats_json_stop ();
    /* The summary is for those who asked for statistics (stats=) or
     * for everything (-v, through nbdkit_debug): a plain run exits
     * quietly.
     */
    if (params.stats_path)
      stats_json_write (params.stats_path, &src);
    stats_log_summary (&src, params.stats_path != NULL);
    /* model=: its limits are never silent (timing.h). */
    timing_log_summary (true);
    range_lock_destroy (&write_ranges);
  }
  for (i = 0; i < array.nmembers; ++i) {
    if (array.members[i].ops)
      array.members[i].ops->close (&array.members[i]);
    free (array.members[i].identity);
    free (array.members[i].backing);
    stats_destroy (&array.members[i].stats);
  }
  stats_destroy (&array.stats);
  timing_stop ();
  spares_close (&array);
  params_free ();
  raid_geom_free (array.geom);
}

static void
raid_dump_plugin (void)
{
  unsigned i;

  printf ("raid_levels=0,1,10\n");
  printf ("raid_max_members=%d\n", RAID_MAX_MEMBERS);
  printf ("raid_chunk_default=%" PRIu64 "\n", RAID_CHUNK_DEFAULT);
  printf ("raid_read_policies=");
  for (i = 0; i < RAID_READ_POLICY_COUNT; ++i)
    printf ("%s%s", i ? "," : "", raid_read_policy_name (i));
  printf ("\n");
  printf ("raid_member_backends=file,nbd\n");
  params_dump ();
  /* Whether this kernel lets us use io_uring, so users know which path
   * io=auto will take for file and device members.
   */
  printf ("raid_io=%s\n", file_probe_uring () ? "uring" : "threads");
}

static void *
raid_open (int readonly)
{
  return NBDKIT_HANDLE_NOT_NEEDED;
}

static int64_t
raid_get_size (void *handle)
{
  return raid_geom_size (array.geom);
}

static int
raid_block_size (void *handle,
                 uint32_t *minimum, uint32_t *preferred, uint32_t *maximum)
{
  /* Any byte range works unless a member wants aligned requests; the
   * chunk is the natural unit to send since a request inside one chunk
   * touches one member (per copy).
   */
  *minimum = array.align;
  *preferred = raid_geom_level (array.geom) == RAID_LEVEL_1 ? 4096
    : raid_geom_chunk (array.geom) > (32 << 20) ? (32 << 20) : raid_geom_chunk (array.geom);
  if (*preferred < array.align)
    *preferred = array.align;
  *maximum = 0xffffffff;
  return 0;
}

static int
raid_can_write (void *handle)
{
  unsigned i;

  for (i = 0; i < array.nmembers; ++i)
    if (array.members[i].read_only)
      return 0;
  return 1;
}

/* Every operation works on every member: backends that lack one fall
 * back (zero becomes a write of zeroes, a trim does nothing, FUA becomes
 * a flush), so the array can always offer it.
 */
static int raid_can_flush (void *handle) { return 1; }
static int raid_can_trim (void *handle) { return 1; }
static int raid_can_zero (void *handle) { return 1; }

/* A fast zero is refused before anything changes if any member would
 * refuse it; members known to refuse from the start (NBD servers without
 * fast zero) mean the array should not offer it at all.
 */
static int
raid_can_fast_zero (void *handle)
{
  unsigned i;

  for (i = 0; i < array.nmembers; ++i)
    if (atomic_load (&array.members[i].no_fast_zero))
      return 0;
  return 1;
}
static int raid_can_fua (void *handle) { return NBDKIT_FUA_NATIVE; }
static int raid_can_extents (void *handle) { return 1; }

/* Every connection shares the members and a flush syncs all of them,
 * so what one connection flushed is what all see.
 */
static int raid_can_multi_conn (void *handle) { return 1; }

/* The errno a client gets for err.  NBD carries only a few error
 * codes, and nbdkit turns every other errno into EINVAL, which tells
 * the client its request was bad: a member that timed out (ETIMEDOUT)
 * or any other failure of a member is an I/O error to the client.
 */
static int
client_errno (int err)
{
  switch (err) {
  case EPERM: case EROFS: case EIO: case ENOMEM: case EINVAL:
  case ENOSPC: case EDQUOT: case EFBIG: case EOVERFLOW:
  case ENOTSUP: case ESHUTDOWN:
    return err;
  default:
    return EIO;
  }
}

/* Every client request is counted in the array's statistics once
 * do_* has returned r, with errno set if r is -1, with the pieces the
 * geometry cut it into.
 */
static int
counted (int op, uint64_t count, size_t pieces, uint64_t start_ns, int r)
{
  int err = r == -1 ? errno : 0;

  stats_done (&array.stats, op, count, pieces, start_ns, err);
  if (r == -1)
    errno = client_errno (err);
  return r;
}

/* nbdkit 1.32 does not hold clients to the minimum block size we
 * advertise, and a member would refuse the unaligned I/O, failing it:
 * refuse the request instead, as the NBD protocol allows.
 */
static int
aligned (const char *op, uint64_t count, uint64_t offset)
{
  if (((offset | count) & (array.align - 1)) == 0)
    return 1;
  nbdkit_error ("%s: offset %" PRIu64 " count %" PRIu64 " is not aligned "
                "to the array's minimum block size %" PRIu32,
                op, offset, count, array.align);
  errno = EINVAL;
  return 0;
}

static int
raid_pread (void *handle, void *buf, uint32_t count, uint64_t offset,
            uint32_t flags)
{
  struct timing_req tr;
  uint64_t t;
  size_t pieces = 0;
  int r;

  if (!aligned ("pread", count, offset))
    return -1;
  t = stats_start (&array.stats);
  timing_begin (&tr, false, offset, count);     /* model= (timing.h) */
  r = request_read (&array, buf, count, offset, &pieces);
  timing_end (&tr);
  return counted (MOP_READ, count, pieces, t, r);
}

/* Writes, zeroes and trims take the same path: request_write with
 * their op.
 */
static int
write_op (enum member_op op, const void *buf, uint32_t count,
          uint64_t offset, uint32_t flags)
{
  struct timing_req tr;
  uint64_t t;
  size_t pieces = 0;
  uint32_t mflags = 0;
  int r;

  if (flags & NBDKIT_FLAG_FUA) mflags |= MIO_FUA;
  if (flags & NBDKIT_FLAG_MAY_TRIM) mflags |= MIO_MAY_TRIM;
  if (flags & NBDKIT_FLAG_FAST_ZERO) mflags |= MIO_FAST;
  if (!aligned (op_names[op], count, offset))
    return -1;
  t = stats_start (&array.stats);
  /* model= (timing.h): a zero is timed as the write it is on the
   * members; a trim moves no data and is not.
   */
  if (op != MOP_TRIM)
    timing_begin (&tr, true, offset, count);
  else
    tr.timed = false;
  r = request_write (&array, op, buf, count, offset, mflags, &pieces);
  timing_end (&tr);
  return counted (op, count, pieces, t, r);
}

static int
raid_pwrite (void *handle, const void *buf, uint32_t count, uint64_t offset,
             uint32_t flags)
{
  return write_op (MOP_WRITE, buf, count, offset, flags);
}

static int
raid_zero (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return write_op (MOP_ZERO, NULL, count, offset, flags);
}

static int
raid_trim (void *handle, uint32_t count, uint64_t offset, uint32_t flags)
{
  return write_op (MOP_TRIM, NULL, count, offset, flags);
}

static int
raid_extents (void *handle, uint32_t count, uint64_t offset, uint32_t flags,
              struct nbdkit_extents *extents)
{
  if (flags & NBDKIT_FLAG_REQ_ONE)
    count = 1;
  return request_extents (&array, count, offset, extents);
}

static int
raid_flush (void *handle, uint32_t flags)
{
  struct timing_req tr;
  uint64_t t = stats_start (&array.stats);
  int r;

  timing_begin_flush (&tr);     /* model= (timing.h) */
  r = request_flush (&array);
  timing_end (&tr);
  return counted (MOP_FLUSH, 0, 0, t, r);
}

static struct nbdkit_plugin plugin = {
  .name               = "raid",
  .longname           = "nbdkit software RAID 0, 1 and 10 plugin",
  .version            = PACKAGE_VERSION,
  .config             = raid_config,
  .config_complete    = raid_config_complete,
  .config_help        = NULL,       /* set by raid_help_init */
  .magic_config_key   = "member",
  .dump_plugin        = raid_dump_plugin,
  .after_fork         = raid_after_fork,
  .preconnect         = raid_preconnect,
  .unload             = raid_unload,
  .open               = raid_open,
  .get_size           = raid_get_size,
  .block_size         = raid_block_size,
  .can_write          = raid_can_write,
  .can_flush          = raid_can_flush,
  .can_trim           = raid_can_trim,
  .can_zero           = raid_can_zero,
  .can_fast_zero      = raid_can_fast_zero,
  .can_fua            = raid_can_fua,
  .can_extents        = raid_can_extents,
  .can_multi_conn     = raid_can_multi_conn,
  .pread              = raid_pread,
  .pwrite             = raid_pwrite,
  .flush              = raid_flush,
  .trim               = raid_trim,
  .zero               = raid_zero,
  .extents            = raid_extents,
  .errno_is_preserved = 1,
};

/* --help comes from the parameter tables (params.c), built when the
 * shared object is loaded, before nbdkit reads this struct.
 */
static void __attribute__ ((constructor))
raid_help_init (void)
{
  plugin.config_help = params_help_text ();
}

/* Members are shared by all connections and all requests; member.c and
 * the backends do their own locking.
 */
#define THREAD_MODEL NBDKIT_THREAD_MODEL_PARALLEL
NBDKIT_REGISTER_PLUGIN (plugin)
