/* raidsim: sweeps (see sweep.h).
 *
 * Why processes and not threads: a run is a few megabytes of state that
 * no other run shares, the simulator library keeps no locks, and a
 * crashed or failing run must not take the others with it.  fork gives
 * each worker a private copy of everything for free.  The parent hands
 * out run numbers over one pipe per worker and reads the results back
 * over another, as fixed-size records (parent and child are the same
 * program on the same machine, so the records need no encoding).
 */

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <json-c/json.h>

#include "raidsim/background.h"
#include "raidsim/config.h"
#include "raidsim/csv.h"
#include "raidsim/error.h"
#include "raidsim/preset.h"
#include "raidsim/sim.h"
#include "raidsim/sweep.h"

#define MAX_WORKERS RAIDSIM_SWEEP_MAX_WORKERS

static const char *const vary_names[] = {
  [RAIDSIM_VARY_NONE] = "",
  [RAIDSIM_VARY_QD] = "qd",
  [RAIDSIM_VARY_CHUNK] = "chunk",
  [RAIDSIM_VARY_MEMBERS] = "members",
  [RAIDSIM_VARY_LEVEL] = "level",
};

const char *
raidsim_vary_name (int vary)
{
  return vary_names[vary];
}

static int
parse_value (int vary, const char *s, uint64_t *v)
{
  char *end;

  switch (vary) {
  case RAIDSIM_VARY_CHUNK:
    return raid_parse_size (s, v);
  case RAIDSIM_VARY_LEVEL: {
    int level;

    if (raidsim_param_parse (&raidsim_array_keys[0], s, &level) == -1)
      return -1;
    *v = (uint64_t) (int64_t) level;
    return 0;
  }
  default:
    if (*s < '0' || *s > '9')
      return -1;
    errno = 0;
    *v = strtoull (s, &end, 10);
    return errno || *end || *v == 0 ? -1 : 0;
  }
}

int
raidsim_sweep_parse_vary (struct raidsim_sweep *sw, const char *spec)
{
  const char *eq = strchr (spec, '=');
  char list[1024], *tok, *save = NULL;
  struct raidsim_vary_axis ax = { 0 };
  size_t n;
  unsigned i;
  int v;

  n = eq ? (size_t) (eq - spec) : strlen (spec);
  for (v = RAIDSIM_VARY_QD; v <= RAIDSIM_VARY_LEVEL; ++v)
    if (strlen (vary_names[v]) == n && strncmp (spec, vary_names[v], n) == 0)
      break;
  if (v > RAIDSIM_VARY_LEVEL || eq == NULL) {
    raidsim_set_error ("--vary: '%s': expected qd=, chunk=, members= or "
                       "level= and a comma-separated list", spec);
    return -1;
  }
  /* A second list for the same key would silently replace the first,
   * or make a grid of a key against itself: neither is meant.
   */
  for (i = 0; i < sw->nvary; ++i)
    if (sw->vary[i].key == v) {
      raidsim_set_error ("--vary: %s: given twice; put all its values in "
                         "one list (%s=A,B,C)", vary_names[v],
                         vary_names[v]);
      return -1;
    }
  if (sw->nvary == RAIDSIM_SWEEP_MAX_KEYS) {
    raidsim_set_error ("--vary: more than %d keys", RAIDSIM_SWEEP_MAX_KEYS);
    return -1;
  }
  ax.key = v;
  snprintf (list, sizeof list, "%s", eq + 1);
  for (tok = strtok_r (list, ",", &save); tok;
       tok = strtok_r (NULL, ",", &save)) {
    if (ax.nvalues == RAIDSIM_SWEEP_MAX_VALUES) {
      raidsim_set_error ("--vary: more than %d values",
                         RAIDSIM_SWEEP_MAX_VALUES);
      return -1;
    }
    if (parse_value (v, tok, &ax.values[ax.nvalues]) == -1) {
      raidsim_set_error ("--vary: %s: '%s' is not %s", vary_names[v], tok,
                         v == RAIDSIM_VARY_CHUNK ? "a size (4K, 128K, 1M)"
                         : v == RAIDSIM_VARY_LEVEL
                         ? "a level (single, 0, 1, 10)"
                         : "a whole number above 0");
      return -1;
    }
    ax.nvalues++;
  }
  if (ax.nvalues == 0) {
    raidsim_set_error ("--vary: %s: no values", vary_names[v]);
    return -1;
  }
  sw->vary[sw->nvary++] = ax;
  return 0;
}

/* Runs per array: the product of the axes' lengths (1 with none). */
static unsigned
ncombos (const struct raidsim_sweep *sw)
{
  unsigned i, n = 1;

  for (i = 0; i < sw->nvary; ++i)
    n *= sw->vary[i].nvalues;
  return n;
}

static unsigned
nruns (const struct raidsim_sweep *sw)
{
  return sw->narrays * ncombos (sw);
}

/* Run number run's array and values: arrays change slowest, then the
 * axes in the order given, the last fastest (as nested loops would).
 */
static unsigned
run_values (const struct raidsim_sweep *sw, unsigned run, uint64_t *value)
{
  unsigned per = ncombos (sw), combo = run % per, i;

  for (i = sw->nvary; i-- > 0;) {
    value[i] = sw->vary[i].values[combo % sw->vary[i].nvalues];
    combo /= sw->vary[i].nvalues;
  }
  return run / per;
}

/* Change the array as the sweep's parameters say.  The geometry then
 * judges the result, and so do the checks of failed members and of a
 * rebuild or resync, as they judge array files.
 */
static int
apply_vary (struct raidsim_array_config *ac, int vary, uint64_t v)
{
  unsigned i;

  switch (vary) {
  case RAIDSIM_VARY_CHUNK:
    ac->chunk = v;
    break;
  case RAIDSIM_VARY_LEVEL:
    ac->level = (int) (int64_t) v;
    break;
  case RAIDSIM_VARY_MEMBERS:
    if (v > RAID_MAX_MEMBERS) {
      raidsim_set_error ("members: %" PRIu64 " is more than %d", v,
                         RAID_MAX_MEMBERS);
      return -1;
    }
    /* New members are copies of the first member's device. */
    for (i = ac->members; i < v; ++i)
      if (ac->devices[i] == NULL &&
          (ac->devices[i] =
           raidsim_device_config_load_from (ac->files,
                                            ac->devices[0]->path)) == NULL)
        return -1;
    for (i = v; i < ac->members; ++i) {
      raidsim_device_config_free (ac->devices[i]);
      ac->devices[i] = NULL;
    }
    ac->members = v;
    break;
  default:
    break;
  }
  return 0;
}

static int
check_varied (struct raidsim_array_config *ac)
{
  uint64_t sizes[RAID_MAX_MEMBERS];
  struct raidsim_array_params ap;
  struct raidsim_array *a;

  raidsim_array_config_params (ac, sizes, &ap);
  if ((a = raidsim_array_new (&ap)) == NULL)
    return -1;
  raidsim_array_free (a);
  return raidsim_sync_config_check (ac);
}

static void format_value (int vary, uint64_t v, char *buf, size_t len);

/* Copy a name, cut to fit: the points keep short names. */
static void
set_str (char *dst, size_t size, const char *src)
{
  size_t n = strlen (src);

  if (n >= size)
    n = size - 1;
  memcpy (dst, src, n);
  dst[n] = '\0';
}

/* A job's name at another queue depth: the queue depth a name carries,
 * "qd32" (fio's and cdm3's "4k-qd32-read") or "Q32T1" (cdm8's), at the
 * start of a word, becomes depth, so a run at QD 2 is not reported as
 * "4k-qd32-read".  A name that carries none is kept.
 */
void
raidsim_sweep_job_name (const char *name, uint64_t depth, char *buf,
                        size_t len)
{
  const char *s = name, *digits = NULL, *end = NULL;

  for (; *s && digits == NULL; ++s) {
    const char *d;

    if (s != name && (isalnum ((unsigned char) s[-1])))
      continue;
    if (s[0] != 'q' && s[0] != 'Q')
      continue;
    d = s + 1;
    if (*d == 'd' || *d == 'D')
      d++;
    if (!isdigit ((unsigned char) *d))
      continue;
    end = d;
    while (isdigit ((unsigned char) *end))
      end++;
    /* qd32 ends the word; cdm8's Q32 is followed by T1. */
    if (*end == '\0' || !isalnum ((unsigned char) *end) ||
        ((*end == 'T' || *end == 't') && d == s + 1))
      digits = d;
  }
  if (digits == NULL)
    snprintf (buf, len, "%s", name);
  else
    snprintf (buf, len, "%.*s%" PRIu64 "%s", (int) (digits - name), name,
              depth, end);
}

/* One run: its points in *pts (malloc'd).  Returns 0 or -1 with
 * raidsim_error () set.
 */
static int
run_one (const struct raidsim_sweep *sw, unsigned run,
         struct raidsim_point **pts, unsigned *npts)
{
  uint64_t value[RAIDSIM_SWEEP_MAX_KEYS] = { 0 };
  const char *path = sw->arrays[run_values (sw, run, value)];
  uint64_t qd = 0;
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf = NULL;
  struct raidsim_sim *s = NULL;
  unsigned i, d, k;
  int ret = -1;

  *pts = NULL;
  *npts = 0;
  ac = raidsim_array_config_load_from (sw->files, path);
  if (ac == NULL)
    return -1;
  for (k = 0; k < sw->nvary; ++k) {
    if (sw->vary[k].key == RAIDSIM_VARY_QD)
      qd = value[k];
    if (apply_vary (ac, sw->vary[k].key, value[k]) == -1)
      break;
  }
  if (k < sw->nvary || check_varied (ac) == -1) {
    char with[256] = "";
    size_t len = 0;

    for (k = 0; k < sw->nvary; ++k) {
      char v[32];

      format_value (sw->vary[k].key, value[k], v, sizeof v);
      len += snprintf (with + len, sizeof with - len, "%s%s=%s",
                       k ? " " : "", vary_names[sw->vary[k].key], v);
      if (len >= sizeof with)
        len = sizeof with - 1;
    }
    raidsim_set_error ("%s%s%s: %s", path, sw->nvary ? " with " : "", with,
                       raidsim_error ());
    goto out;
  }
  jf = raidsim_workload_load (sw->workload, raidsim_array_config_size (ac));
  if (jf == NULL)
    goto out;
  if (qd || sw->qd_per_member)
    for (i = 0; i < jf->njobs; ++i) {
      uint64_t depth = qd ? qd : jf->jobs[i].iodepth;

      if (sw->qd_per_member)
        depth *= ac->members;
      jf->jobs[i].iodepth = depth;
      jf->jobs[i].opt_line[RAIDSIM_FIO_IODEPTH] = jf->jobs[i].line;
    }
  if ((s = raidsim_sim_new (ac, jf, sw->seed)) == NULL ||
      raidsim_sim_run (s) == -1) {
    raidsim_set_error ("%s: %s", path, raidsim_error ());
    goto out;
  }

  *pts = calloc (jf->njobs, sizeof **pts);
  if (*pts == NULL) {
    raidsim_set_error ("sweep: %s", strerror (ENOMEM));
    goto out;
  }
  for (i = 0; i < jf->njobs; ++i) {
    const struct raidsim_job_result *r = raidsim_sim_job (s, i);
    struct raidsim_point *p = &(*pts)[*npts];

    if (r->job->hidden)
      continue;
    set_str (p->array, sizeof p->array, ac->name);
    if (qd || sw->qd_per_member) {
      char name[sizeof p->job + 32];

      raidsim_sweep_job_name (r->job->name, r->job->iodepth, name,
                              sizeof name);
      set_str (p->job, sizeof p->job, name);
    }
    else
      set_str (p->job, sizeof p->job, r->job->name);
    p->nvary = sw->nvary;
    for (k = 0; k < sw->nvary; ++k) {
      p->vary[k] = sw->vary[k].key;
      p->value[k] = value[k];
    }
    p->rw = r->job->rw;
    p->bs = r->job->bs;
    p->iodepth = r->job->iodepth;
    p->numjobs = r->job->numjobs;
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      p->ios[d] = r->dir[d].ios;
      p->iops[d] = raidsim_result_iops (r, d);
      p->bw[d] = raidsim_result_bw (r, d);
      p->lat_mean[d] = raid_hist_mean (&r->dir[d].lat);
      p->lat_p99[d] = raid_hist_percentile (&r->dir[d].lat, 99);
    }
    p->bottleneck_util = raidsim_sim_bottleneck (s, p->bottleneck,
                                                 sizeof p->bottleneck);
    (*npts)++;
  }
  ret = 0;

 out:
  raidsim_sim_free (s);
  raidsim_jobfile_free (jf);
  raidsim_array_config_free (ac);
  return ret;
}

/* ---- workers ---- */

struct reply {
  uint32_t run;
  int32_t status;
  uint32_t npoints;
  char error[1024];
};

static int
write_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;

  while (len) {
    ssize_t r = write (fd, p, len);

    if (r == -1 && errno == EINTR)
      continue;
    if (r <= 0)
      return -1;
    p += r;
    len -= r;
  }
  return 0;
}

/* 1 on success, 0 at end of file, -1 on error. */
static int
read_all (int fd, void *buf, size_t len)
{
  char *p = buf;
  size_t got = 0;

  while (got < len) {
    ssize_t r = read (fd, p + got, len - got);

    if (r == -1 && errno == EINTR)
      continue;
    if (r == 0 && got == 0)
      return 0;
    if (r <= 0)
      return -1;
    got += r;
  }
  return 1;
}

static void __attribute__ ((noreturn))
worker_main (const struct raidsim_sweep *sw, int in, int out)
{
  uint32_t run;

  while (read_all (in, &run, sizeof run) == 1) {
    struct reply rep = { .run = run };
    struct raidsim_point *pts;
    unsigned n;

    rep.status = run_one (sw, run, &pts, &n);
    rep.npoints = rep.status == 0 ? n : 0;
    if (rep.status)
      snprintf (rep.error, sizeof rep.error, "%s", raidsim_error ());
    if (write_all (out, &rep, sizeof rep) == -1 ||
        write_all (out, pts, rep.npoints * sizeof *pts) == -1)
      _exit (1);
    free (pts);
  }
  _exit (0);
}

struct worker {
  pid_t pid;
  int to, from;                 /* pipes: run numbers out, replies in */
  bool busy;
};

static void
progress (const struct raidsim_sweep *sw, unsigned done, unsigned total)
{
  const int width = 40;
  int filled = total ? (int) ((uint64_t) done * width / total) : width;

  if (!sw->progress)
    return;
  fprintf (stderr, "\rraidsim sweep [%.*s%*s] %u/%u runs", filled,
           "########################################", width - filled, "",
           done, total);
  if (done == total)
    fprintf (stderr, "\r%*s\r", width + 40, "");
  fflush (stderr);
}

static unsigned
default_workers (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n < 1 ? 1 : n > MAX_WORKERS ? MAX_WORKERS : (unsigned) n;
}

/* Results as they arrive, by run number. */
struct slot {
  bool done;
  struct raidsim_point *pts;
  unsigned n;
};

static int
run_parallel (const struct raidsim_sweep *sw, unsigned workers,
              struct slot *slots)
{
  struct worker w[MAX_WORKERS];
  struct pollfd pfd[MAX_WORKERS];
  unsigned total = nruns (sw), next = 0, done = 0, i, k;
  int ret = 0;
  char first_error[1024] = "";

  memset (w, 0, sizeof w);
  /* Results stream back while runs are handed out; a write to a worker
   * that died must not kill the parent.
   */
  signal (SIGPIPE, SIG_IGN);
  fflush (NULL);
  for (i = 0; i < workers; ++i) {
    int to[2], from[2];

    if (pipe (to) == -1 || pipe (from) == -1) {
      raidsim_set_error ("sweep: pipe: %s", strerror (errno));
      workers = i;
      ret = -1;
      break;
    }
    w[i].pid = fork ();
    if (w[i].pid == -1) {
      raidsim_set_error ("sweep: fork: %s", strerror (errno));
      close (to[0]); close (to[1]); close (from[0]); close (from[1]);
      workers = i;
      ret = -1;
      break;
    }
    if (w[i].pid == 0) {
      /* Only this worker's own ends stay open. */
      for (k = 0; k < i; ++k) {
        close (w[k].to);
        close (w[k].from);
      }
      close (to[1]);
      close (from[0]);
      worker_main (sw, to[0], from[1]);
    }
    close (to[0]);
    close (from[1]);
    w[i].to = to[1];
    w[i].from = from[0];
  }

  /* Give every worker a run, then another each time one reports. */
  for (i = 0; i < workers && next < total && ret == 0; ++i) {
    uint32_t run = next++;

    if (write_all (w[i].to, &run, sizeof run) == -1) {
      raidsim_set_error ("sweep: worker %u: %s", i, strerror (errno));
      ret = -1;
    }
    w[i].busy = true;
  }
  progress (sw, 0, total);
  while (ret == 0 && done < total) {
    unsigned n = 0;

    for (i = 0; i < workers; ++i) {
      pfd[i].fd = w[i].busy ? w[i].from : -1;
      pfd[i].events = POLLIN;
      pfd[i].revents = 0;
      n += w[i].busy;
    }
    if (n == 0)
      break;
    if (poll (pfd, workers, -1) == -1) {
      if (errno == EINTR)
        continue;
      raidsim_set_error ("sweep: poll: %s", strerror (errno));
      ret = -1;
      break;
    }
    for (i = 0; i < workers && ret == 0; ++i) {
      struct reply rep;
      struct slot *sl;

      if (!w[i].busy || !(pfd[i].revents & (POLLIN | POLLHUP)))
        continue;
      if (read_all (w[i].from, &rep, sizeof rep) != 1 || rep.run >= total) {
        raidsim_set_error ("sweep: worker %u stopped without a result", i);
        ret = -1;
        break;
      }
      sl = &slots[rep.run];
      sl->n = rep.npoints;
      sl->pts = calloc (rep.npoints ? rep.npoints : 1, sizeof *sl->pts);
      if (sl->pts == NULL ||
          read_all (w[i].from, sl->pts,
                    rep.npoints * sizeof *sl->pts) == -1) {
        raidsim_set_error ("sweep: worker %u: short result", i);
        ret = -1;
        break;
      }
      sl->done = true;
      done++;
      if (rep.status != 0 && first_error[0] == '\0')
        snprintf (first_error, sizeof first_error, "%s", rep.error);
      w[i].busy = false;
      if (next < total && first_error[0] == '\0') {
        uint32_t run = next++;

        if (write_all (w[i].to, &run, sizeof run) == -1) {
          raidsim_set_error ("sweep: worker %u: %s", i, strerror (errno));
          ret = -1;
          break;
        }
        w[i].busy = true;
      }
      progress (sw, done, total);
    }
    if (first_error[0]) {
      /* Let the busy workers finish their runs, then stop. */
      bool any = false;

      for (i = 0; i < workers; ++i)
        any |= w[i].busy;
      if (!any)
        break;
    }
  }

  for (i = 0; i < workers; ++i) {
    int status;

    close (w[i].to);
    close (w[i].from);
    while (waitpid (w[i].pid, &status, 0) == -1 && errno == EINTR)
      ;
  }
  if (ret == 0 && first_error[0]) {
    raidsim_set_error ("%s", first_error);
    ret = -1;
  }
  return ret;
}

/* A varied key that means nothing for every level an array runs at
 * (its own, or the varied levels) would print identical rows: refused
 * before any run.  With level varied too, the key need only mean
 * something for one of the levels (chunk against level=0,1).
 */
static int
check_meaningful (const struct raidsim_sweep *sw)
{
  const struct raidsim_vary_axis *levels = NULL;
  unsigned a, k, i;

  for (k = 0; k < sw->nvary; ++k)
    if (sw->vary[k].key == RAIDSIM_VARY_LEVEL)
      levels = &sw->vary[k];
  for (a = 0; a < sw->narrays; ++a)
    for (k = 0; k < sw->nvary; ++k) {
      const char *key = vary_names[sw->vary[k].key], *why = NULL;
      struct raidsim_array_config *ac;
      char level[32];
      int lv = 0;

      if (sw->vary[k].key != RAIDSIM_VARY_CHUNK)
        continue;
      if (levels == NULL) {
        if ((ac = raidsim_array_config_load_from (sw->files, sw->arrays[a]))
            == NULL)
          return -1;
        lv = ac->level;
        raidsim_array_config_free (ac);
        why = raidsim_array_key_unused (lv, key);
      }
      else
        for (i = 0, why = ""; i < levels->nvalues && why; ++i) {
          lv = (int) (int64_t) levels->values[i];
          why = raidsim_array_key_unused (lv, key);
        }
      if (why == NULL)
        continue;
      if (levels && levels->nvalues > 1) {
        raidsim_set_error ("%s: --vary %s: means nothing for any of the "
                           "levels varied", sw->arrays[a], key);
        return -1;
      }
      format_value (RAIDSIM_VARY_LEVEL, (uint64_t) (int64_t) lv, level,
                    sizeof level);
      raidsim_set_error ("%s: --vary %s: means nothing for level %s (%s)",
                         sw->arrays[a], key, level, why);
      return -1;
    }
  return 0;
}

static int
sweep_once (const struct raidsim_sweep *sw, struct raidsim_sweep_result *res)
{
  unsigned total = nruns (sw), workers = sw->workers, i, k;
  struct slot *slots;
  int ret = 0;

  res->npoints = 0;
  res->points = NULL;
  res->nseeds = 0;
  res->ci = NULL;
  if (total == 0) {
    raidsim_set_error ("sweep: no array");
    return -1;
  }
  if (check_meaningful (sw) == -1)
    return -1;
  slots = calloc (total, sizeof *slots);
  if (slots == NULL) {
    raidsim_set_error ("sweep: %s", strerror (ENOMEM));
    return -1;
  }
  if (workers == 0)
    workers = default_workers ();
  if (workers > total)
    workers = total;
  if (workers > MAX_WORKERS)
    workers = MAX_WORKERS;

  if (workers <= 1) {
    progress (sw, 0, total);
    for (i = 0; i < total && ret == 0; ++i) {
      ret = run_one (sw, i, &slots[i].pts, &slots[i].n);
      slots[i].done = ret == 0;
      progress (sw, i + 1, total);
    }
  }
  else
    ret = run_parallel (sw, workers, slots);

  if (ret == 0) {
    for (i = 0; i < total; ++i)
      res->npoints += slots[i].n;
    res->points = calloc (res->npoints ? res->npoints : 1,
                          sizeof *res->points);
    if (res->points == NULL) {
      raidsim_set_error ("sweep: %s", strerror (ENOMEM));
      ret = -1;
    }
    else
      for (i = 0, k = 0; i < total; ++i) {
        memcpy (&res->points[k], slots[i].pts,
                slots[i].n * sizeof *slots[i].pts);
        k += slots[i].n;
      }
  }
  for (i = 0; i < total; ++i)
    free (slots[i].pts);
  free (slots);
  if (ret == -1) {
    free (res->points);
    res->points = NULL;
    res->npoints = 0;
  }
  return ret;
}

/* Point i's figure over the seeds' results, by its offset in a point. */
static struct raidsim_interval
point_iv (const struct raidsim_sweep_result *per, unsigned n, unsigned i,
          size_t off)
{
  double v[RAIDSIM_SEEDS_MAX];
  unsigned k;

  for (k = 0; k < n; ++k)
    v[k] = *(const double *) ((const char *) &per[k].points[i] + off);
  return raidsim_interval95 (v, n);
}

int
raidsim_sweep_run (const struct raidsim_sweep *sw,
                   struct raidsim_sweep_result *res)
{
  const struct raidsim_seed_list *seeds = sw->seeds;
  struct raidsim_sweep_result *per;
  struct raidsim_sweep one;
  unsigned n, k, i, d, a, b;
  int ret = 0;

  if (seeds == NULL)
    return sweep_once (sw, res);
  memset (res, 0, sizeof *res);
  n = seeds->n;
  per = calloc (n, sizeof *per);
  if (per == NULL) {
    raidsim_set_error ("sweep: %s", strerror (ENOMEM));
    return -1;
  }
  /* The whole sweep once per seed: the same runs in the same order, so
   * point i of each is the same job of the same run.
   */
  one = *sw;
  one.seeds = NULL;
  for (k = 0; k < n && ret == 0; ++k) {
    one.seed = seeds->seed[k];
    ret = sweep_once (&one, &per[k]);
    if (ret == 0 && k > 0 && per[k].npoints != per[0].npoints) {
      raidsim_set_error ("sweep: seed %" PRIu64 " gave %u points, seed %"
                         PRIu64 " %u", seeds->seed[k], per[k].npoints,
                         seeds->seed[0], per[0].npoints);
      ret = -1;
    }
  }
  if (ret == 0) {
    res->npoints = per[0].npoints;
    res->nseeds = n;
    res->points = calloc (res->npoints ? res->npoints : 1,
                          sizeof *res->points);
    res->ci = calloc (res->npoints ? res->npoints : 1, sizeof *res->ci);
    if (res->points == NULL || res->ci == NULL) {
      raidsim_set_error ("sweep: %s", strerror (ENOMEM));
      ret = -1;
    }
    else
      memcpy (res->points, per[0].points,
              res->npoints * sizeof *res->points);
  }
  for (i = 0; ret == 0 && i < res->npoints; ++i) {
    struct raidsim_point *p = &res->points[i];
    struct raidsim_point_ci *c = &res->ci[i];
    struct raidsim_interval iv;
    unsigned best = 0, besta = 0;

#define COMBINE(field, out)                                             \
    iv = point_iv (per, n, i, offsetof (struct raidsim_point, field));  \
    p->field = iv.mean;                                                 \
    out = iv.half
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      double v[RAIDSIM_SEEDS_MAX];
      uint64_t ios = 0;

      COMBINE (iops[d], c->iops[d]);
      COMBINE (bw[d], c->bw[d]);
      COMBINE (lat_mean[d], c->lat_mean[d]);
      for (k = 0; k < n; ++k) {
        ios += per[k].points[i].ios[d];
        v[k] = per[k].points[i].lat_p99[d];
      }
      p->ios[d] = ios / n;
      iv = raidsim_interval95 (v, n);
      p->lat_p99[d] = (uint64_t) (iv.mean + 0.5);
      c->lat_p99[d] = iv.half;
    }
    COMBINE (bottleneck_util, c->bottleneck_util);
#undef COMBINE
    for (a = 0; a < n; ++a) {
      unsigned cnt = 0;

      for (b = 0; b < n; ++b)
        cnt += strcmp (per[a].points[i].bottleneck,
                       per[b].points[i].bottleneck) == 0;
      if (cnt > best) {
        best = cnt;
        besta = a;
      }
    }
    memcpy (p->bottleneck, per[besta].points[i].bottleneck,
            sizeof p->bottleneck);
    c->bottleneck_seeds = best;
  }
  for (k = 0; k < n; ++k)
    raidsim_sweep_result_free (&per[k]);
  free (per);
  if (ret == -1)
    raidsim_sweep_result_free (res);
  return ret;
}

void
raidsim_sweep_result_free (struct raidsim_sweep_result *res)
{
  free (res->points);
  free (res->ci);
  res->points = NULL;
  res->ci = NULL;
  res->npoints = 0;
  res->nseeds = 0;
}

/* ---- output ---- */

static const char *const dir_names[] = { "read", "write" };

static bool
point_has (const struct raidsim_point *p, int d)
{
  if (p->ios[d])
    return true;
  if (d == RAIDSIM_READ)
    return p->rw != RAIDSIM_RW_WRITE && p->rw != RAIDSIM_RW_RANDWRITE;
  return p->rw != RAIDSIM_RW_READ && p->rw != RAIDSIM_RW_RANDREAD;
}

static void
format_value (int vary, uint64_t v, char *buf, size_t len)
{
  switch (vary) {
  case RAIDSIM_VARY_CHUNK:
    raidsim_param_format_value (RAIDSIM_PT_SIZE, v, buf, len);
    break;
  case RAIDSIM_VARY_LEVEL: {
    int level = (int) (int64_t) v;

    raidsim_param_format (&raidsim_array_keys[0], &level, buf, len);
    break;
  }
  case RAIDSIM_VARY_NONE:
    snprintf (buf, len, "%s", "");
    break;
  default:
    snprintf (buf, len, "%" PRIu64, v);
  }
}

/* One column per varied key, named by the key, after the array. */
static void
report_csv (FILE *fp, const struct raidsim_sweep *sw,
            const struct raidsim_sweep_result *res)
{
  unsigned i, d, k;

  fprintf (fp, "array");
  for (k = 0; k < sw->nvary; ++k)
    fprintf (fp, ",%s", vary_names[sw->vary[k].key]);
  fprintf (fp, ",job,rw,bs,iodepth,numjobs");
  for (d = 0; d < RAIDSIM_NDIRS; ++d)
    fprintf (fp, ",%s_ios,%s_iops,%s_bw_bytes,%s_lat_mean_ns,%s_lat_p99_ns",
             dir_names[d], dir_names[d], dir_names[d], dir_names[d],
             dir_names[d]);
  fprintf (fp, ",bottleneck,bottleneck_util");
  /* Over several seeds: the seeds, and each figure's 95% half-width. */
  if (res->ci) {
    fprintf (fp, ",seeds");
    for (d = 0; d < RAIDSIM_NDIRS; ++d)
      fprintf (fp, ",%s_iops_ci95,%s_bw_bytes_ci95,%s_lat_mean_ns_ci95,"
               "%s_lat_p99_ns_ci95", dir_names[d], dir_names[d],
               dir_names[d], dir_names[d]);
    fprintf (fp, ",bottleneck_util_ci95,bottleneck_seeds");
  }
  fprintf (fp, "\n");
  for (i = 0; i < res->npoints; ++i) {
    const struct raidsim_point *p = &res->points[i];
    char value[32];

    raidsim_csv_field (fp, p->array);
    for (k = 0; k < p->nvary; ++k) {
      format_value (p->vary[k], p->value[k], value, sizeof value);
      fprintf (fp, ",%s", value);
    }
    fputc (',', fp);
    raidsim_csv_field (fp, p->job);
    fprintf (fp, ",%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64,
             raidsim_rw_name (p->rw), p->bs, p->iodepth, p->numjobs);
    for (d = 0; d < RAIDSIM_NDIRS; ++d)
      fprintf (fp, ",%" PRIu64 ",%.6f,%.6f,%.6f,%" PRIu64, p->ios[d],
               p->iops[d], p->bw[d], p->lat_mean[d], p->lat_p99[d]);
    fprintf (fp, ",%s,%.6f", p->bottleneck, p->bottleneck_util);
    if (res->ci) {
      const struct raidsim_point_ci *c = &res->ci[i];

      fprintf (fp, ",%u", res->nseeds);
      for (d = 0; d < RAIDSIM_NDIRS; ++d)
        fprintf (fp, ",%.6f,%.6f,%.6f,%.6f", c->iops[d], c->bw[d],
                 c->lat_mean[d], c->lat_p99[d]);
      fprintf (fp, ",%.6f,%u", c->bottleneck_util, c->bottleneck_seeds);
    }
    fprintf (fp, "\n");
  }
}

static json_object *
jdouble (double v)
{
  char buf[64];

  snprintf (buf, sizeof buf, "%.6f", v);
  return json_object_new_double_s (v, buf);
}

static void
report_json (FILE *fp, const struct raidsim_sweep *sw,
             const struct raidsim_sweep_result *res)
{
  json_object *root = json_object_new_object ();
  json_object *arr = json_object_new_array ();
  json_object *keys = json_object_new_array ();
  json_object *vals = json_object_new_object ();
  unsigned i, d, k;

  json_object_object_add (root, "workload",
                          json_object_new_string (sw->workload));
  /* "vary": the keys in order; "values": each key's list.  Every
   * point then has one member per key, as the CSV has a column.
   */
  for (k = 0; k < sw->nvary; ++k) {
    json_object *list = json_object_new_array ();

    json_object_array_add (keys, json_object_new_string
                           (vary_names[sw->vary[k].key]));
    for (i = 0; i < sw->vary[k].nvalues; ++i) {
      char v[32];

      format_value (sw->vary[k].key, sw->vary[k].values[i], v, sizeof v);
      json_object_array_add (list, json_object_new_string (v));
    }
    json_object_object_add (vals, vary_names[sw->vary[k].key], list);
  }
  json_object_object_add (root, "vary", keys);
  json_object_object_add (root, "values", vals);
  json_object_object_add (root, "seed", json_object_new_uint64 (sw->seed));
  if (res->ci) {
    json_object *sl = json_object_new_array ();

    for (k = 0; k < sw->seeds->n; ++k)
      json_object_array_add (sl, json_object_new_uint64 (sw->seeds->seed[k]));
    json_object_object_add (root, "seeds", sl);
  }
  for (i = 0; i < res->npoints; ++i) {
    const struct raidsim_point *p = &res->points[i];
    json_object *o = json_object_new_object ();

    json_object_object_add (o, "array", json_object_new_string (p->array));
    for (k = 0; k < p->nvary; ++k) {
      char v[32];

      format_value (p->vary[k], p->value[k], v, sizeof v);
      json_object_object_add (o, vary_names[p->vary[k]],
                              json_object_new_string (v));
    }
    json_object_object_add (o, "jobname", json_object_new_string (p->job));
    json_object_object_add (o, "rw",
                            json_object_new_string (raidsim_rw_name (p->rw)));
    json_object_object_add (o, "bs", json_object_new_uint64 (p->bs));
    json_object_object_add (o, "iodepth", json_object_new_uint64 (p->iodepth));
    json_object_object_add (o, "numjobs", json_object_new_uint64 (p->numjobs));
    /* fio's names inside each direction. */
    for (d = 0; d < RAIDSIM_NDIRS; ++d) {
      json_object *dd = json_object_new_object ();
      json_object *lat = json_object_new_object ();
      json_object *clat = json_object_new_object ();
      json_object *pct = json_object_new_object ();

      json_object_object_add (dd, "total_ios",
                              json_object_new_uint64 (p->ios[d]));
      json_object_object_add (dd, "iops", jdouble (p->iops[d]));
      json_object_object_add (dd, "bw_bytes",
                              json_object_new_uint64 ((uint64_t) p->bw[d]));
      json_object_object_add (lat, "mean", jdouble (p->lat_mean[d]));
      json_object_object_add (dd, "lat_ns", lat);
      json_object_object_add (pct, "99.000000",
                              json_object_new_uint64 (p->lat_p99[d]));
      json_object_object_add (clat, "percentile", pct);
      json_object_object_add (dd, "clat_ns", clat);
      json_object_object_add (o, dir_names[d], dd);
    }
    {
      json_object *b = json_object_new_object ();

      json_object_object_add (b, "name",
                              json_object_new_string (p->bottleneck));
      json_object_object_add (b, "util", jdouble (p->bottleneck_util));
      json_object_object_add (o, "bottleneck", b);
    }
    /* Over several seeds: each figure's 95% half-width, by fio's names. */
    if (res->ci) {
      const struct raidsim_point_ci *c = &res->ci[i];
      json_object *ci = json_object_new_object ();

      for (d = 0; d < RAIDSIM_NDIRS; ++d) {
        json_object *dd = json_object_new_object ();

        json_object_object_add (dd, "iops", jdouble (c->iops[d]));
        json_object_object_add (dd, "bw_bytes", jdouble (c->bw[d]));
        json_object_object_add (dd, "lat_mean_ns", jdouble (c->lat_mean[d]));
        json_object_object_add (dd, "lat_p99_ns", jdouble (c->lat_p99[d]));
        json_object_object_add (ci, dir_names[d], dd);
      }
      json_object_object_add (ci, "bottleneck_util",
                              jdouble (c->bottleneck_util));
      json_object_object_add (ci, "bottleneck_seeds",
                              json_object_new_uint64 (c->bottleneck_seeds));
      json_object_object_add (o, "ci95", ci);
    }
    json_object_array_add (arr, o);
  }
  json_object_object_add (root, "points", arr);
  fprintf (fp, "%s\n",
           json_object_to_json_string_ext (root, JSON_C_TO_STRING_PRETTY |
                                           JSON_C_TO_STRING_SPACED |
                                           JSON_C_TO_STRING_NOSLASHESCAPE));
  json_object_put (root);
}

/* The figure a person reads for a job: MB/s for sequential jobs, IOPS
 * for random ones, in the direction the job moves data (reads for a
 * mix).
 */
static double
headline (const struct raidsim_point *p, const char **unit)
{
  int d = point_has (p, RAIDSIM_READ) ? RAIDSIM_READ : RAIDSIM_WRITE;

  if (raidsim_rw_is_random (p->rw)) {
    *unit = "IOPS";
    return p->iops[d];
  }
  *unit = "MB/s";
  return p->bw[d] / 1e6;
}

/* Several arrays, nothing varied: one row per job, one column per
 * array, and with two arrays the second's ratio to the first.
 */
static void
report_side_by_side (FILE *fp, const struct raidsim_sweep *sw,
                     const struct raidsim_sweep_result *res)
{
  unsigned per = res->npoints / sw->narrays, a, j;

  fprintf (fp, "%-24s %5s", "job", "unit");
  for (a = 0; a < sw->narrays; ++a)
    fprintf (fp, " %22.22s", res->points[a * per].array);
  if (sw->narrays == 2)
    fprintf (fp, " %8s", "ratio");
  fprintf (fp, "\n");
  for (j = 0; j < per; ++j) {
    const char *unit = "";
    double first = 0, v = 0;

    for (a = 0; a < sw->narrays; ++a) {
      v = headline (&res->points[a * per + j], &unit);
      if (a == 0) {
        fprintf (fp, "%-24.24s %5s", res->points[j].job, unit);
        first = v;
      }
      if (res->ci) {
        const struct raidsim_point_ci *c = &res->ci[a * per + j];
        const struct raidsim_point *p = &res->points[a * per + j];
        int d = point_has (p, RAIDSIM_READ) ? RAIDSIM_READ : RAIDSIM_WRITE;
        double h = raidsim_rw_is_random (p->rw) ? c->iops[d] : c->bw[d] / 1e6;

        fprintf (fp, " %12.1f +- %-7.1f", v, h);
      }
      else
        fprintf (fp, " %22.1f", v);
    }
    if (sw->narrays == 2)
      fprintf (fp, " %8.2f", first > 0 ? v / first : 0);
    fprintf (fp, "\n");
  }
}

int
raidsim_sweep_report (FILE *fp, const struct raidsim_sweep *sw,
                      const struct raidsim_sweep_result *res,
                      enum raidsim_format format)
{
  unsigned i, d, k;

  switch (format) {
  case RAIDSIM_FORMAT_CSV:
    report_csv (fp, sw, res);
    break;
  case RAIDSIM_FORMAT_JSON:
    report_json (fp, sw, res);
    break;
  default:
    if (res->ci) {
      char list[RAIDSIM_SEEDS_MAX * 21 + 1];
      size_t n = 0;

      list[0] = '\0';
      for (k = 0; k < sw->seeds->n && n < sizeof list; ++k)
        n += snprintf (list + n, sizeof list - n, "%s%" PRIu64,
                       k ? "," : "", sw->seeds->seed[k]);
      fprintf (fp, "mean of %u seeds (%s); +-: the 95%% interval's "
               "half-width\n", res->nseeds, list);
    }
    /* Side by side only when every array ran the same jobs. */
    if (sw->nvary == 0 && sw->narrays > 1 &&
        res->npoints % sw->narrays == 0) {
      report_side_by_side (fp, sw, res);
      break;
    }
    /* One column per varied key (an empty one with none). */
    fprintf (fp, "%-22s", "array");
    for (k = 0; k < sw->nvary || k == 0; ++k)
      fprintf (fp, " %8s", sw->nvary ? vary_names[sw->vary[k].key] : "");
    fprintf (fp, " %-24s %-9s %8s %5s %12s %10s %12s %10s %11s",
             "job", "rw", "bs", "qd", "read-IOPS", "read-MB/s", "write-IOPS",
             "write-MB/s", "mean-lat-us");
    if (res->ci)
      fprintf (fp, " %10s %10s", "+-r-IOPS", "+-w-IOPS");
    fprintf (fp, "  %s\n", "bottleneck");
    for (i = 0; i < res->npoints; ++i) {
      const struct raidsim_point *p = &res->points[i];
      char value[32], bs[32];
      double lat = 0;
      uint64_t n = 0;

      fprintf (fp, "%-22.22s", p->array);
      for (k = 0; k < p->nvary || k == 0; ++k) {
        format_value (p->nvary ? p->vary[k] : RAIDSIM_VARY_NONE,
                      p->value[k], value, sizeof value);
        fprintf (fp, " %8s", value);
      }
      raidsim_param_format_value (RAIDSIM_PT_SIZE, p->bs, bs, sizeof bs);
      for (d = 0; d < RAIDSIM_NDIRS; ++d) {
        lat += p->lat_mean[d] * p->ios[d];
        n += p->ios[d];
      }
      fprintf (fp, " %-24.24s %-9s %8s %5" PRIu64
               " %12.1f %10.2f %12.1f %10.2f %11.1f",
               p->job, raidsim_rw_name (p->rw), bs,
               p->iodepth, p->iops[0], p->bw[0] / 1e6, p->iops[1],
               p->bw[1] / 1e6, n ? lat / n / 1e3 : 0);
      if (res->ci)
        fprintf (fp, " %10.1f %10.1f", res->ci[i].iops[0],
                 res->ci[i].iops[1]);
      fprintf (fp, "  %s %.0f%%\n", p->bottleneck, p->bottleneck_util);
    }
  }
  if (ferror (fp)) {
    raidsim_set_error ("sweep: write error");
    return -1;
  }
  return 0;
}
