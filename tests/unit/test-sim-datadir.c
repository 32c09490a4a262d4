/* raidsim tests: finding files by name in the data directories
 * (raidsim/config/datadir.c, include/raidsim/datadir.h): the lookup
 * order over directories made here, what a path on the command line
 * and a path inside a file each may resolve to, the directories
 * themselves ($RAIDSIM_DATADIR first, then this build tree, since the
 * test runs from it), the message that names every place looked in,
 * the loaders taking names, and the one-line descriptions of
 * `raidsim list`.
 *
 * Run: meson test -C build sim-datadir
 */

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "raidsim/config.h"
#include "raidsim/datadir.h"
#include "raidsim/error.h"
#include "raidsim/preset.h"
#include "sim-test.h"

/* dir under the scratch directory, made. */
static const char *
mkdir_in (const char *dir)
{
  static char paths[8][PATH_MAX];
  static unsigned next;
  char *p = paths[next++ % 8];

  snprintf (p, PATH_MAX, "%s/%s", sim_test_tmpdir (), dir);
  ck_assert_int_eq (mkdir (p, 0755) == 0 || errno == EEXIST, 1);
  return p;
}

static void
touch (const char *path)
{
  FILE *fp = fopen (path, "w");

  ck_assert_ptr_nonnull (fp);
  fputs ("; a test file.\n", fp);
  ck_assert_int_eq (fclose (fp), 0);
}

/* Two data directories, A and B, each with arrays/. */
static struct raidsim_datadir_root roots[2];

static void
make_roots (void)
{
  mkdir_in ("A");
  mkdir_in ("A/arrays");
  mkdir_in ("B");
  mkdir_in ("B/arrays");
  mkdir_in ("B/devices");
  mkdir_in ("cwd");
  snprintf (roots[0].path, PATH_MAX, "%s/A", sim_test_tmpdir ());
  roots[0].source = "first";
  snprintf (roots[1].path, PATH_MAX, "%s/B", sim_test_tmpdir ());
  roots[1].source = "second";
}

static const char *
find (enum raidsim_kind kind, const char *spec, const char *referrer)
{
  static char out[PATH_MAX];

  if (raidsim_datadir_find_in (kind, spec, referrer, roots, 2, out,
                               sizeof out) == -1)
    return NULL;
  return out;
}

#define T(rel) (snprintf (want, sizeof want, "%s/%s", sim_test_tmpdir (), \
                          (rel)), want)

START_TEST (lookup_order)
{
  char want[PATH_MAX], file[PATH_MAX];
  const char *got;

  make_roots ();
  ck_assert_int_eq (chdir (mkdir_in ("cwd")), 0);

  /* Only in B: found there, with or without its extension. */
  touch (T ("B/arrays/only-b.ini"));
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "only-b", NULL), want);
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "only-b.ini", NULL), want);

  /* In both: A, the first. */
  touch (T ("B/arrays/both.ini"));
  touch (T ("A/arrays/both.ini"));
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "both", NULL), want);

  /* In the current directory too: that one, as given. */
  touch (T ("cwd/both.ini"));
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "both", NULL), "both.ini");
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "both.ini", NULL), "both.ini");

  /* Another kind is another folder: no device "only-b". */
  ck_assert_ptr_null (find (RAIDSIM_KIND_DEVICE, "only-b", NULL));

  /* A path with a '/' on the command line is only itself, even when a
   * data directory has a file of its last name.
   */
  ck_assert_str_eq (find (RAIDSIM_KIND_ARRAY, "sub/only-b.ini", NULL),
                    "sub/only-b.ini");

  /* Inside a file: beside that file first, then by its last name in
   * the data directories, so a copied array file finds
   * "../devices/x.ini" there.
   */
  snprintf (file, sizeof file, "%s", T ("cwd/array.ini"));
  touch (T ("B/devices/dev.ini"));
  ck_assert_str_eq (find (RAIDSIM_KIND_DEVICE, "../devices/dev.ini", file),
                    T ("B/devices/dev.ini"));
  ck_assert_str_eq (find (RAIDSIM_KIND_DEVICE, "dev", file),
                    T ("B/devices/dev.ini"));
  touch (T ("cwd/dev.ini"));
  got = find (RAIDSIM_KIND_DEVICE, "dev", file);
  ck_assert_str_eq (got, T ("cwd/dev.ini"));
  got = find (RAIDSIM_KIND_DEVICE, "dev.ini", file);
  ck_assert_str_eq (got, T ("cwd/dev.ini"));

  /* An absolute path is only itself. */
  got = find (RAIDSIM_KIND_ARRAY, "/nowhere/only-b.ini", NULL);
  ck_assert_str_eq (got, "/nowhere/only-b.ini");

  /* A workload's extension is .fio. */
  mkdir_in ("B/workloads");
  touch (T ("B/workloads/job.fio"));
  ck_assert_str_eq (find (RAIDSIM_KIND_WORKLOAD, "job", NULL), want);
}
END_TEST

START_TEST (not_found_says_where)
{
  char want[2 * PATH_MAX + 512], file[PATH_MAX];

  make_roots ();
  ck_assert_int_eq (chdir (mkdir_in ("cwd")), 0);
  unsetenv ("RAIDSIM_DATADIR");
  ck_assert_ptr_null (find (RAIDSIM_KIND_ARRAY, "nope", NULL));
  snprintf (want, sizeof want, "nope: no array file of that name: looked for "
            "nope and nope.ini in the current directory, then for nope and "
            "nope.ini in %s/arrays (first), %s/arrays (second); "
            "$RAIDSIM_DATADIR is not set", roots[0].path, roots[1].path);
  ck_assert_str_eq (raidsim_error (), want);

  setenv ("RAIDSIM_DATADIR", "/x", 1);
  snprintf (file, sizeof file, "%s/cwd/a.ini", sim_test_tmpdir ());
  ck_assert_ptr_null (find (RAIDSIM_KIND_CONTROLLER, "../c/ctl.ini", file));
  snprintf (want, sizeof want, "../c/ctl.ini: no controller file of that "
            "name: looked for ../c/ctl.ini in %s/cwd, then for ctl.ini in "
            "%s/controllers (first), %s/controllers (second)",
            sim_test_tmpdir (), roots[0].path, roots[1].path);
  ck_assert_str_eq (raidsim_error (), want);
}
END_TEST

/* $RAIDSIM_DATADIR's directories come first, in order; then this
 * build tree's configs/, since the test program is in it; then the
 * installed directory.  Nothing "beside the program" in a build tree.
 */
START_TEST (the_directories)
{
  struct raidsim_datadir_root r[RAIDSIM_DATADIR_MAX_ROOTS];
  char configs[PATH_MAX];
  unsigned n, i;

  ck_assert_ptr_nonnull (realpath (SRCDIR "/configs", configs));
  setenv ("RAIDSIM_DATADIR", "/nonexistent/one:/nonexistent/two", 1);
  n = raidsim_datadir_roots (r, RAIDSIM_DATADIR_MAX_ROOTS);
  ck_assert_uint_ge (n, 4);
  ck_assert_str_eq (r[0].path, "/nonexistent/one");
  ck_assert_str_eq (r[0].source, "$RAIDSIM_DATADIR");
  ck_assert_str_eq (r[1].path, "/nonexistent/two");
  ck_assert_str_eq (r[1].source, "$RAIDSIM_DATADIR");
  ck_assert_str_eq (r[2].path, configs);
  ck_assert_str_eq (r[2].source, "build tree");
  ck_assert_str_eq (r[3].source, "installed");
  ck_assert_msg (strcmp (r[3].path + strlen (r[3].path) - 8, "/raidsim") == 0,
                 "installed: %s", r[3].path);
  for (i = 0; i < n; ++i)
    ck_assert_str_ne (r[i].source, "beside the program");

  unsetenv ("RAIDSIM_DATADIR");
  n = raidsim_datadir_roots (r, RAIDSIM_DATADIR_MAX_ROOTS);
  ck_assert_str_eq (r[0].path, configs);
}
END_TEST

/* The loaders take names: an array of configs/ from a directory with
 * no configs, and a copy of it, whose "../devices/..." and
 * "../controllers/..." are found by name.  A workload by name.
 */
START_TEST (loaders_take_names)
{
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf;
  char src[PATH_MAX], cmd[3 * PATH_MAX];

  unsetenv ("RAIDSIM_DATADIR");
  ck_assert_int_eq (chdir (mkdir_in ("cwd")), 0);
  ac = raidsim_array_config_load ("raid0-2x-optane-900p-vroc");
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (ac->members, 2);
  ck_assert_str_eq (ac->name, "raid0-2x-optane-900p-vroc");
  ck_assert_ptr_nonnull (strstr (ac->devices[0]->path,
                                 "intel-optane-900p-480gb.ini"));
  raidsim_array_config_free (ac);

  snprintf (src, sizeof src, "%s/configs/arrays/raid0-2x-optane-900p-vroc.ini",
            SRCDIR);
  snprintf (cmd, sizeof cmd, "cp '%s' mine.ini", src);
  ck_assert_int_eq (system (cmd), 0);
  ac = raidsim_array_config_load ("mine.ini");
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());
  ck_assert_ptr_nonnull (strstr (ac->ctl->path, "/controllers/intel-vroc.ini"));
  raidsim_array_config_free (ac);

  jf = raidsim_workload_load ("randread-4k-qd1", UINT64_C (1) << 40);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (jf->njobs, 1);
  raidsim_jobfile_free (jf);
}
END_TEST

START_TEST (descriptions)
{
  char out[64];
  const char *p;

  p = sim_test_file ("d.ini", "; Two drives, PCIe 3.0 x4 (e.g. this one).  "
                     "More words.\n; And more.\n[array]\n");
  raidsim_datadir_describe (p, out, sizeof out);
  ck_assert_str_eq (out, "Two drives, PCIe 3.0 x4 (e.g. this one).");

  /* The first paragraph only, lines joined; a sentence to the end. */
  p = sim_test_file ("e.ini", "# One line\n# and the next\n#\n# Not this.\n");
  raidsim_datadir_describe (p, out, sizeof out);
  ck_assert_str_eq (out, "One line and the next");

  /* Too long: cut at a word, with "...", within the room given. */
  p = sim_test_file ("f.ini", "; A description that is much longer than "
                     "the room that it is given.\n");
  raidsim_datadir_describe (p, out, 24);
  ck_assert_str_eq (out, "A description that...");

  /* No opening comment: nothing. */
  p = sim_test_file ("g.ini", "[array]\n; late\n");
  raidsim_datadir_describe (p, out, sizeof out);
  ck_assert_str_eq (out, "");
}
END_TEST

int
main (void)
{
  Suite *s = suite_create ("sim-datadir");
  TCase *tc = tcase_create ("datadir");
  SRunner *sr;
  int failed;

  tcase_add_test (tc, lookup_order);
  tcase_add_test (tc, not_found_says_where);
  tcase_add_test (tc, the_directories);
  tcase_add_test (tc, loaders_take_names);
  tcase_add_test (tc, descriptions);
  suite_add_tcase (s, tc);
  sr = srunner_create (s);
  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
