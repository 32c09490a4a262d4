/* raidsim: fio's JSON output read as a list of measured jobs
 * (calibrate.h).
 *
 * fio writes each job as jobs[] { "jobname", "error", "job options":
 * { option: "value" as written }, "read": { "iops", "lat_ns": { "mean"
 * } }, "write": { ... } }, and the [global] section's options once, as
 * "global options" at the top; a job's own options override them.
 * `raidsim run --format json` writes the same fields (report.h), with
 * every option under "job options".  Only what a calibration needs is
 * read: the pattern, and the figures of the job's direction.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "raidsim/calibrate.h"
#include "raidsim/engine.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"

static const struct raidsim_param *
fio_param (const char *name)
{
  const struct raidsim_param *p;

  for (p = raidsim_fio_params; p->name; ++p)
    if (strcmp (p->name, name) == 0)
      return p;
  return NULL;
}

/* The value of option name (or its alias) in the job's options, else in
 * the global ones; NULL if neither sets it.
 */
static const char *
option (struct json_object *job_opts, struct json_object *global_opts,
        const char *name, const char *alias)
{
  struct json_object *o;
  struct json_object *from[2] = { job_opts, global_opts };

  for (int i = 0; i < 2; ++i) {
    if (from[i] == NULL)
      continue;
    if (json_object_object_get_ex (from[i], name, &o) ||
        (alias && json_object_object_get_ex (from[i], alias, &o)))
      return json_object_get_string (o);
  }
  return NULL;
}

/* An fio number (bs, size, offset) with fio's suffixes, or a percentage
 * of the drive.  Only the first value of a list ("4k,64k") is read: the
 * direction's own is checked by the caller.
 */
static int
parse_amount (const char *value, const char *key, uint64_t *v, bool *pct)
{
  char buf[64];
  size_t n = strcspn (value, ",:");

  if (n >= sizeof buf)
    n = sizeof buf - 1;
  memcpy (buf, value, n);
  buf[n] = '\0';
  if (pct && n > 0 && buf[n - 1] == '%') {
    char *end;
    unsigned long x;

    buf[n - 1] = '\0';
    errno = 0;
    x = strtoul (buf, &end, 10);
    if (errno || *end || end == buf || x > 100) {
      raidsim_set_error ("%s=%s: not a percentage from 0 to 100", key, value);
      return -1;
    }
    *v = x;
    *pct = true;
    return 0;
  }
  if (pct)
    *pct = false;
  if (raidsim_param_parse (fio_param (key), buf, v) == -1)
    return -1;
  return 0;
}

static const char *const rw_names[] = {
  [RAIDSIM_RW_READ] = "read", [RAIDSIM_RW_WRITE] = "write",
  [RAIDSIM_RW_RANDREAD] = "randread", [RAIDSIM_RW_RANDWRITE] = "randwrite",
};

static int
read_job (const char *path, struct json_object *job,
          struct json_object *global_opts, struct raidsim_cal_job *j)
{
  struct json_object *name_o, *opts = NULL, *err_o, *dir_o, *o, *lat;
  const char *name = "?", *v;
  bool write;
  size_t n;

  memset (j, 0, sizeof *j);
  if (json_object_object_get_ex (job, "jobname", &name_o))
    name = json_object_get_string (name_o);
  snprintf (j->name, sizeof j->name, "%s", name);
  json_object_object_get_ex (job, "job options", &opts);

#define BAD(fmt, ...) \
  do { \
    raidsim_set_error ("%s: job '%s': " fmt, path, name, ##__VA_ARGS__); \
    return -1; \
  } while (0)

  if (json_object_object_get_ex (job, "error", &err_o) &&
      json_object_get_int (err_o) != 0)
    BAD ("fio reported error %d; run it again", json_object_get_int (err_o));

  v = option (opts, global_opts, "rw", "readwrite");
  if (v == NULL)
    v = "read";                 /* fio's default */
  n = strcspn (v, ":");
  j->rw = -1;
  for (int k = 0; k < 4; ++k)
    if (strlen (rw_names[k]) == n && strncmp (v, rw_names[k], n) == 0)
      j->rw = k;
  if (j->rw == -1)
    BAD ("rw=%s: calibrate takes read, write, randread and randwrite jobs "
         "(one direction each)", v);

  v = option (opts, global_opts, "numjobs", NULL);
  if (v && strcmp (v, "1") != 0)
    BAD ("numjobs=%s: calibrate takes one thread per job (numjobs=1)", v);
  v = option (opts, global_opts, "bssplit", NULL);
  if (v == NULL)
    v = option (opts, global_opts, "bsrange", "blocksize_range");
  if (v)
    BAD ("%s: calibrate takes jobs of one block size (bs=)", v);

  v = option (opts, global_opts, "bs", "blocksize");
  if (v && parse_amount (v, "bs", &j->bs, NULL) == -1)
    BAD ("%s", raidsim_error ());
  if (v == NULL)
    j->bs = 4096;
  if (j->bs == 0)
    BAD ("bs=%s: a block size of 0 bytes", v);
  v = option (opts, global_opts, "iodepth", NULL);
  if (v && parse_amount (v, "iodepth", &j->iodepth, NULL) == -1)
    BAD ("%s", raidsim_error ());
  if (v == NULL)
    j->iodepth = 1;
  if (j->iodepth == 0 || j->iodepth > 1024)
    BAD ("iodepth=%s: from 1 to 1024", v);
  v = option (opts, global_opts, "offset", "fileoffset");
  if (v && parse_amount (v, "offset", &j->offset, &j->offset_pct) == -1)
    BAD ("%s", raidsim_error ());
  v = option (opts, global_opts, "size", NULL);
  if (v && parse_amount (v, "size", &j->size, &j->size_pct) == -1)
    BAD ("%s", raidsim_error ());

  v = option (opts, global_opts, "ramp_time", NULL);
  if (v && raidsim_param_parse (fio_param ("ramp_time"), v,
                                &j->ramp_time) == -1)
    BAD ("%s", raidsim_error ());

  write = j->rw == RAIDSIM_RW_WRITE || j->rw == RAIDSIM_RW_RANDWRITE;
  if (!json_object_object_get_ex (job, write ? "write" : "read", &dir_o))
    BAD ("no \"%s\" figures", write ? "write" : "read");
  if (!json_object_object_get_ex (dir_o, "iops", &o))
    BAD ("no %s.iops", write ? "write" : "read");
  j->iops = json_object_get_double (o);
  if (!(j->iops > 0))
    BAD ("%s.iops is %g: the job did no I/O", write ? "write" : "read",
         j->iops);
  /* fio's runtime of a direction is in milliseconds. */
  if (json_object_object_get_ex (dir_o, "runtime", &o))
    j->runtime = (uint64_t) json_object_get_int64 (o) * RAIDSIM_NS_PER_MS;
  if (json_object_object_get_ex (dir_o, "lat_ns", &lat) &&
      json_object_object_get_ex (lat, "mean", &o))
    j->lat_mean = json_object_get_double (o);
#undef BAD
  return 0;
}

int
raidsim_cal_read_text (const char *name, const char *text,
                       struct raidsim_cal_data *d)
{
  struct json_tokener *tok;
  struct json_object *root, *jobs, *global_opts = NULL;
  const char *start = strchr (text, '{');
  size_t n, i;
  int ret = -1;

  memset (d, 0, sizeof *d);
  snprintf (d->path, sizeof d->path, "%s", name);
  if (start == NULL) {
    raidsim_set_error ("%s: no JSON object (run fio with "
                       "--output-format=json)", name);
    return -1;
  }
  tok = json_tokener_new ();
  if (tok == NULL) {
    raidsim_set_error ("%s: out of memory", name);
    return -1;
  }
  root = json_tokener_parse_ex (tok, start, strlen (start));
  if (root == NULL) {
    raidsim_set_error ("%s: not JSON: %s", name,
                       json_tokener_error_desc (json_tokener_get_error (tok)));
    json_tokener_free (tok);
    return -1;
  }
  json_tokener_free (tok);
  if (!json_object_object_get_ex (root, "jobs", &jobs) ||
      !json_object_is_type (jobs, json_type_array)) {
    raidsim_set_error ("%s: no \"jobs\" array: not fio's JSON output", name);
    goto out;
  }
  json_object_object_get_ex (root, "global options", &global_opts);
  n = json_object_array_length (jobs);
  if (n == 0) {
    raidsim_set_error ("%s: no jobs", name);
    goto out;
  }
  if (n > RAIDSIM_CAL_MAX_JOBS) {
    raidsim_set_error ("%s: %zu jobs; calibrate reads %d at most", name, n,
                       RAIDSIM_CAL_MAX_JOBS);
    goto out;
  }
  for (i = 0; i < n; ++i)
    if (read_job (name, json_object_array_get_idx (jobs, i), global_opts,
                  &d->jobs[i]) == -1)
      goto out;
  d->njobs = n;
  ret = 0;
 out:
  json_object_put (root);
  return ret;
}

int
raidsim_cal_read (const char *path, struct raidsim_cal_data *d)
{
  FILE *fp = fopen (path, "r");
  char *text = NULL;
  size_t len = 0;
  int ret;

  if (fp == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (errno));
    return -1;
  }
  {
    FILE *mem = open_memstream (&text, &len);
    char buf[65536];
    size_t n;

    if (mem == NULL) {
      fclose (fp);
      raidsim_set_error ("%s: %s", path, strerror (errno));
      return -1;
    }
    while ((n = fread (buf, 1, sizeof buf, fp)) > 0)
      fwrite (buf, 1, n, mem);
    if (ferror (fp)) {
      raidsim_set_error ("%s: %s", path, strerror (errno));
      fclose (fp);
      fclose (mem);
      free (text);
      return -1;
    }
    fclose (fp);
    fclose (mem);
  }
  ret = raidsim_cal_read_text (path, text, d);
  free (text);
  return ret;
}

void
raidsim_cal_region (const struct raidsim_cal_job *j, uint64_t capacity,
                    uint64_t *offset, uint64_t *size)
{
  /* As fio (and fiojob.c): a percentage of the size, an offset rounded
   * up to the block size.
   */
  uint64_t off = j->offset_pct
    ? (uint64_t) ((unsigned __int128) capacity * j->offset / 100)
    : j->offset;
  uint64_t len = j->size_pct
    ? (uint64_t) ((unsigned __int128) capacity * j->size / 100) : j->size;

  if (j->offset_pct && off % j->bs)
    off += j->bs - off % j->bs;

  if (off > capacity)
    off = capacity;
  if (len == 0 || len > capacity - off)
    len = capacity - off;
  *offset = off;
  *size = len;
}
