/* raidsim: finding config and workload files by name in the data
 * directories (see datadir.h for the lookup order and why).
 */

#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "raidsim/datadir.h"
#include "raidsim/error.h"

/* datadir-paths.c, made by meson: where the data is installed, the
 * same from the program's directory, and this build's trees.
 */
extern const char raidsim_datadir_installed[], raidsim_datadir_beside[],
  raidsim_datadir_source_root[], raidsim_datadir_build_root[];

const struct raidsim_kind_info raidsim_kinds[RAIDSIM_NKINDS] = {
  [RAIDSIM_KIND_ARRAY] = { "arrays", ".ini", "array file" },
  [RAIDSIM_KIND_DEVICE] = { "devices", ".ini", "device file" },
  [RAIDSIM_KIND_CONTROLLER] = { "controllers", ".ini", "controller file" },
  [RAIDSIM_KIND_WORKLOAD] = { "workloads", ".fio", "fio job file" },
};

static bool
is_file (const char *path)
{
  struct stat st;

  return stat (path, &st) == 0 && !S_ISDIR (st.st_mode);
}

/* Whether the file is path, or under the directory dir (both resolved). */
static bool
under (const char *path, const char *dir)
{
  char rp[PATH_MAX], rd[PATH_MAX];
  size_t n;

  if (realpath (path, rp) == NULL || realpath (dir, rd) == NULL)
    return false;
  n = strlen (rd);
  return strncmp (rp, rd, n) == 0 && rp[n] == '/';
}

/* Whether this code runs from the build tree it was built in: the
 * program itself, or the shared object holding this function (the
 * nbdkit plugin, under nbdkit).
 */
static bool
in_build_tree (void)
{
  Dl_info info;

  if (under ("/proc/self/exe", raidsim_datadir_build_root))
    return true;
  return dladdr ((void *) in_build_tree, &info) != 0 &&
    info.dli_fname != NULL && info.dli_fname[0] == '/' &&
    under (info.dli_fname, raidsim_datadir_build_root);
}

static unsigned
add_root (struct raidsim_datadir_root *roots, unsigned n, unsigned max,
          const char *path, size_t plen, const char *source)
{
  char rp[PATH_MAX], tmp[PATH_MAX];
  unsigned i;

  if (n >= max || plen == 0 || plen >= sizeof tmp)
    return n;
  memcpy (tmp, path, plen);
  tmp[plen] = '\0';
  /* The same directory twice (an install beside the program is the
   * installed one) is looked in once, under its first source.
   */
  if (realpath (tmp, rp) == NULL)
    snprintf (rp, sizeof rp, "%s", tmp);
  for (i = 0; i < n; ++i)
    if (strcmp (roots[i].path, rp) == 0)
      return n;
  snprintf (roots[n].path, sizeof roots[n].path, "%s", rp);
  roots[n].source = source;
  return n + 1;
}

unsigned
raidsim_datadir_roots (struct raidsim_datadir_root *roots, unsigned max)
{
  const char *env = getenv ("RAIDSIM_DATADIR");
  unsigned n = 0;

  while (env && *env) {
    size_t len = strcspn (env, ":");

    n = add_root (roots, n, max, env, len, "$RAIDSIM_DATADIR");
    env += len;
    if (*env == ':')
      env++;
  }
  bool built = in_build_tree ();

  if (built) {
    char dir[PATH_MAX];

    snprintf (dir, sizeof dir, "%s/configs", raidsim_datadir_source_root);
    n = add_root (roots, n, max, dir, strlen (dir), "build tree");
  }
  n = add_root (roots, n, max, raidsim_datadir_installed,
                strlen (raidsim_datadir_installed), "installed");
  /* (Not for a program in the build tree: that is no install.) */
  if (!built && raidsim_datadir_beside[0] != '\0') {
    char exe[PATH_MAX], dir[PATH_MAX * 2];
    char *slash;

    if (realpath ("/proc/self/exe", exe) != NULL &&
        (slash = strrchr (exe, '/')) != NULL) {
      *slash = '\0';
      snprintf (dir, sizeof dir, "%s/%s", exe, raidsim_datadir_beside);
      n = add_root (roots, n, max, dir, strlen (dir), "beside the program");
    }
  }
  return n;
}

/* Join dir and name into out; false if it does not fit. */
static bool
join (char *out, size_t len, const char *dir, size_t dlen, const char *name,
      const char *ext)
{
  int w = snprintf (out, len, "%.*s%s%s%s", (int) dlen, dir,
                    dlen && dir[dlen - 1] != '/' ? "/" : "", name, ext);

  return w >= 0 && (size_t) w < len;
}

/* dir/name, then dir/name.ext: into out if either is a file. */
static bool
try_dir (char *out, size_t len, const char *dir, size_t dlen,
         const char *name, const char *ext)
{
  if (join (out, len, dir, dlen, name, "") && is_file (out))
    return true;
  return ext && join (out, len, dir, dlen, name, ext) && is_file (out);
}

int
raidsim_datadir_find_in (enum raidsim_kind kind, const char *spec,
                         const char *referrer,
                         const struct raidsim_datadir_root *roots,
                         unsigned n, char *out, size_t len)
{
  const struct raidsim_kind_info *k = &raidsim_kinds[kind];
  const char *base = strrchr (spec, '/');
  const char *ext;
  const char *slash = referrer ? strrchr (referrer, '/') : NULL;
  /* The referring file's directory: "" for the current one, "/" for
   * the root.
   */
  size_t dlen = slash == NULL ? 0 : slash == referrer ? 1
    : (size_t) (slash - referrer);
  char msg[4096];
  size_t m = 0;
  unsigned i;

  base = base ? base + 1 : spec;
  /* A name with no extension may leave it off: "four-corners.fio" or
   * "four-corners".
   */
  ext = strchr (base, '.') ? NULL : k->ext;

  if (spec[0] == '\0') {
    raidsim_set_error ("an empty name is no %s", k->what);
    return -1;
  }
  if (spec[0] == '/') {
    if ((size_t) snprintf (out, len, "%s", spec) >= len)
      goto too_long;
    return 0;
  }
  /* 1. Beside the referring file, or from the current directory. */
  if (try_dir (out, len, referrer ? referrer : "", dlen, spec, ext))
    return 0;
  /* A path on the command line is only itself: left as given, it is
   * reported as the file that cannot be opened.
   */
  if (referrer == NULL && base != spec) {
    if ((size_t) snprintf (out, len, "%s", spec) >= len)
      goto too_long;
    return 0;
  }
  /* 2. By name in the data directories. */
  for (i = 0; i < n; ++i) {
    char dir[PATH_MAX + 32];

    if (!join (dir, sizeof dir, roots[i].path, strlen (roots[i].path),
               k->dir, ""))
      continue;
    if (try_dir (out, len, dir, strlen (dir), base, ext))
      return 0;
  }

#define ADD(...) \
  do { \
    if (m < sizeof msg) \
      m += snprintf (msg + m, sizeof msg - m, __VA_ARGS__); \
  } while (0)
  ADD ("%s: no %s of that name: looked for %s", spec, k->what, spec);
  if (ext)
    ADD (" and %s%s", spec, ext);
  if (referrer)
    ADD (" in %.*s", (int) (dlen ? dlen : 1), dlen ? referrer : ".");
  else
    ADD (" in the current directory");
  ADD (", then for %s", base);
  if (ext)
    ADD (" and %s%s", base, ext);
  ADD (" in");
  for (i = 0; i < n; ++i)
    ADD ("%s %s/%s (%s)", i ? "," : "", roots[i].path, k->dir,
         roots[i].source);
  if (n == 0)
    ADD (" no data directory");
  if (getenv ("RAIDSIM_DATADIR") == NULL)
    ADD ("; $RAIDSIM_DATADIR is not set");
#undef ADD
  raidsim_set_error ("%s", msg);
  return -1;

 too_long:
  raidsim_set_error ("%s: %s", spec, strerror (ENAMETOOLONG));
  return -1;
}

int
raidsim_datadir_find (enum raidsim_kind kind, const char *spec,
                      const char *referrer, char *out, size_t len)
{
  struct raidsim_datadir_root roots[RAIDSIM_DATADIR_MAX_ROOTS];
  unsigned n = 0;

  /* The directories matter only for a name not found beside: don't
   * look for the program's own place unless it is needed.
   */
  if (spec[0] != '/' && spec[0] != '\0')
    n = raidsim_datadir_roots (roots, RAIDSIM_DATADIR_MAX_ROOTS);
  return raidsim_datadir_find_in (kind, spec, referrer, roots, n, out, len);
}

void
raidsim_datadir_describe (const char *path, char *out, size_t len)
{
  char line[1024], text[2048];
  size_t t = 0, end, cut;
  FILE *fp;

  if (len == 0)
    return;
  out[0] = '\0';
  text[0] = '\0';
  if ((fp = fopen (path, "r")) == NULL)
    return;
  /* The opening comment's first paragraph, its lines joined. */
  while (fgets (line, sizeof line, fp) != NULL) {
    char *s = line;
    size_t n;

    if (*s != ';' && *s != '#')
      break;
    s++;
    s += strspn (s, " \t");
    n = strcspn (s, "\r\n");
    if (n == 0) {
      if (t > 0)
        break;
      continue;
    }
    if (t + 1 + n >= sizeof text)
      break;
    if (t > 0)
      text[t++] = ' ';
    memcpy (text + t, s, n);
    t += n;
    text[t] = '\0';
  }
  fclose (fp);

  /* Its first sentence: up to a '.' that ends the text or is followed
   * by a blank, and does not end a word with a '.' inside ("3.0",
   * "e.g." and "i.e." stay whole).
   */
  for (end = 0; end < t; ++end)
    if (text[end] == '.' && (end + 1 == t || text[end + 1] == ' ')) {
      size_t w = end;

      while (w > 0 && text[w - 1] != ' ' && text[w - 1] != '.')
        w--;
      if (w > 0 && text[w - 1] == '.')
        continue;
      end++;
      break;
    }
  text[end] = '\0';
  if (end < len) {
    memcpy (out, text, end + 1);
    return;
  }
  /* Too long: cut at the last blank that leaves room for "...". */
  if (len < 4) {
    out[0] = '\0';
    return;
  }
  cut = len - 4;
  while (cut > 0 && text[cut] != ' ')
    cut--;
  if (cut == 0)
    cut = len - 4;
  memcpy (out, text, cut);
  memcpy (out + cut, "...", 4);
}
