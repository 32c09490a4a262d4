/* raidsim: config files and fio job files.
 *
 * Bad input must give the documented error, `FILE:LINE: KEY: what is
 * wrong`, naming the right line; unknown keys and fio options outside
 * the subset are errors; fio's number suffixes mean what they mean in
 * fio; [global] applies to the jobs after it.  Also: every file under
 * configs/ loads, and docs/config-reference.md is exactly what
 * `raidsim config --markdown` generates from the parameter tables.
 *
 * Run: meson test -C build --suite unit sim-config
 */

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/embedded.h"
#include "sim-test.h"

#ifndef SRCDIR
#error "SRCDIR must be defined by the build"
#endif

/* Check that loading path fails with "PATH:LINE: REST". */
#define expect_error(load, path, line, rest)                            \
  do {                                                                  \
    char want_[1024];                                                   \
    void *p_ = (void *) load (path);                                    \
    ck_assert_msg (p_ == NULL, "%s loaded, but should not", path);      \
    snprintf (want_, sizeof want_, "%s:%d: %s", path, line, rest);      \
    ck_assert_str_eq (raidsim_error (), want_);                         \
  } while (0)

static const char *
good_device (void)
{
  return sim_test_file ("d.ini", "[device]\nmodel = fixed\n");
}

static const char *
good_controller (void)
{
  return sim_test_file ("c.ini", "[controller]\nmodel = generic\n");
}

START_TEST (device_errors)
{
  const char *p;

  p = sim_test_file ("bad.ini", "; a comment\n[device]\nmodel = fixed\n"
                     "latncy = 5us\n");
  expect_error (raidsim_device_config_load, p, 4,
                "latncy: unknown key in [device] "
                "(see 'raidsim help config')");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\nlatency = 5\n");
  expect_error (raidsim_device_config_load, p, 3,
                "latency: '5' is not a time: a number and a unit, ns, us, "
                "ms or s");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\n\n"
                     "parallelism = 0\n");
  expect_error (raidsim_device_config_load, p, 4,
                "parallelism: 0 is below the minimum, 1");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\nlatency = 11s\n");
  expect_error (raidsim_device_config_load, p, 3,
                "latency: 11s is above the maximum, 10s");

  /* A capacity the array's 64-bit size could not hold (issue 15). */
  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\n"
                     "capacity = 2000000T\n");
  expect_error (raidsim_device_config_load, p, 3,
                "capacity: 2000000T is above the maximum, 1048576T");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\nlatency = 5us\n"
                     "# again\nlatency = 6us\n");
  expect_error (raidsim_device_config_load, p, 5,
                "latency: set twice in [device] (first on line 3)");

  p = sim_test_file ("bad.ini", "[device]\nmodel = ssd\n");
  expect_error (raidsim_device_config_load, p, 2,
                "model: 'ssd' is not a device model");

  p = sim_test_file ("bad.ini", "\n[device]\nlatency = 5us\n");
  expect_error (raidsim_device_config_load, p, 2,
                "model: required key is missing from [device]");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\n[disk]\n");
  expect_error (raidsim_device_config_load, p, 3,
                "[disk]: unknown section (this file should have only "
                "[device])");

  p = sim_test_file ("bad.ini", "[device]\nmodel = fixed\nlatency\n");
  expect_error (raidsim_device_config_load, p, 3,
                "'latency': expected KEY = VALUE");

  p = sim_test_file ("bad.ini", "capacity = 1T\n[device]\nmodel = fixed\n");
  expect_error (raidsim_device_config_load, p, 1,
                "capacity: key outside any [section]");

  p = sim_test_file ("bad.ini", "[device\nmodel = fixed\n");
  expect_error (raidsim_device_config_load, p, 1,
                "'[device': a section header needs a closing ']'");
}
END_TEST

START_TEST (value_syntax)
{
  const char *p;
  struct raidsim_device_config *d;
  struct raidsim_controller_config *c;

  /* Decimal times are exact; comments after a value are stripped. */
  p = sim_test_file ("d.ini", "[device]\nmodel = fixed\n"
                     "latency = 8.5ms ; average seek\ncapacity = 2T\n"
                     "parallelism = 16 # channels\n");
  d = raidsim_device_config_load (p);
  ck_assert_msg (d != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (*(uint64_t *) d->params, 8500000);
  ck_assert_uint_eq (d->capacity, UINT64_C (2) << 40);
  raidsim_device_config_free (d);

  /* Rates: decimal units for links, binary ones on request. */
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_bandwidth = 3.5GB/s\n"
                     "uplink_bandwidth = 100MiB/s\nport_duplex = half\n");
  c = raidsim_controller_config_load (p);
  ck_assert_msg (c != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (c->port.rate, UINT64_C (3500000000));
  ck_assert_uint_eq (c->uplink.rate, UINT64_C (100) << 20);
  ck_assert_int_eq (c->port.duplex, RAIDSIM_HALF_DUPLEX);
  raidsim_controller_config_free (c);

  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_bandwidth = 300 Mb/s\n");
  expect_error (raidsim_controller_config_load, p, 3,
                "port_bandwidth: '300 Mb/s' is not a rate: a number and a "
                "unit, B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s or GiB/s, or 0 "
                "for unlimited");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_duplex = simplex\n");
  expect_error (raidsim_controller_config_load, p, 3,
                "port_duplex: 'simplex' is not one of full, half");
}
END_TEST

/* The links' keys: each kind takes its own, and refuses the others by
 * name and line; the chipsets' uplinks are four lanes.
 */
START_TEST (link_keys)
{
  struct raidsim_controller_config *c;
  const char *p;

  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_link = sata-3g\nuplink_link = dmi1\n"
                     "uplink_commands = ahci\nsata_turnaround = 12\n");
  c = raidsim_controller_config_load (p);
  ck_assert_msg (c != NULL, "%s", raidsim_error ());
  ck_assert_int_eq (c->port.kind, RAIDSIM_LINK_SATA2);
  ck_assert_uint_eq (c->port.turnaround, 12);
  ck_assert_int_eq (c->uplink.kind, RAIDSIM_LINK_DMI1);
  ck_assert_int_eq (c->uplink.cmds, RAIDSIM_LINK_CMDS_AHCI);
  ck_assert_uint_eq (c->uplink.mps, 128);
  ck_assert_uint_eq (c->uplink.mrrs, 512);
  raidsim_controller_config_free (c);

  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_link = sata-6g\nport_bandwidth = 600MB/s\n");
  expect_error (raidsim_controller_config_load, p, 4,
                "port_bandwidth: means nothing with port_link = sata-6g "
                "(its rate and duplex come from its specification); "
                "remove it");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_link = sata-3g\nport_mps = 256\n");
  expect_error (raidsim_controller_config_load, p, 4,
                "port_mps: means nothing with port_link = sata-3g; "
                "remove it");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "sata_turnaround = 5\n");
  expect_error (raidsim_controller_config_load, p, 3,
                "sata_turnaround: means nothing with port_link = rate; "
                "remove it");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "uplink_link = dmi2\nuplink_lanes = 8\n");
  expect_error (raidsim_controller_config_load, p, 4,
                "uplink_lanes: means nothing with uplink_link = dmi2; "
                "remove it");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "port_link = pcie3\nport_mps = 384\n");
  expect_error (raidsim_controller_config_load, p, 4,
                "port_mps: must be a power of two (128, 256, ... 4096)");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "mirror_reads = first\nmirror_reads_source = a\n"
                     "mirror_reads_assumed = b\n");
  expect_error (raidsim_controller_config_load, p, 5,
                "mirror_reads_assumed: given with mirror_reads_source; a "
                "policy has a source or is assumed, not both");
  p = sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                     "mirror_reads = controller\n");
  expect_error (raidsim_controller_config_load, p, 3,
                "mirror_reads: 'controller' is not one of round-robin, "
                "least-pending, sequential, first, all");
}
END_TEST

/* An array that names no read-policy reads as its controller does;
 * the assumption behind the controller's choice is there to print for
 * mirrors only, and only when no source is given.
 */
START_TEST (mirror_reads_of_the_controller)
{
  struct raidsim_array_config *a;
  const char *p;

  sim_test_file ("d.ini", "[device]\nmodel = fixed\n");
  sim_test_file ("c.ini", "[controller]\nmodel = generic\n"
                 "mirror_reads = sequential\n"
                 "mirror_reads_assumed = nearest head, assumed\n");
  sim_test_file ("s.ini", "[controller]\nmodel = generic\n"
                 "mirror_reads = first\nmirror_reads_source = a manual\n");
  sim_test_file ("n.ini", "[controller]\nmodel = generic\n");

  p = sim_test_file ("a.ini", "[array]\nlevel = 10\nmembers = 4\n"
                     "device = d.ini\ncontroller = c.ini\n");
  a = raidsim_array_config_load (p);
  ck_assert_msg (a != NULL, "%s", raidsim_error ());
  ck_assert_int_eq (a->read_policy, RAIDSIM_POLICY_CONTROLLER);
  ck_assert_int_eq (raidsim_array_config_read_policy (a), RAID_READ_SEQUENTIAL);
  ck_assert_str_eq (raidsim_array_config_read_assumed (a),
                    "nearest head, assumed");
  raidsim_array_config_free (a);

  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "read-policy = round-robin\n"
                     "device = d.ini\ncontroller = c.ini\n");
  a = raidsim_array_config_load (p);
  ck_assert_int_eq (raidsim_array_config_read_policy (a),
                    RAID_READ_ROUND_ROBIN);
  ck_assert_ptr_null (raidsim_array_config_read_assumed (a));
  raidsim_array_config_free (a);

  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "device = d.ini\ncontroller = s.ini\n");
  a = raidsim_array_config_load (p);
  ck_assert_int_eq (raidsim_array_config_read_policy (a), RAID_READ_FIRST);
  ck_assert_ptr_null (raidsim_array_config_read_assumed (a));
  raidsim_array_config_free (a);

  /* No word from the controller file: the default, said to be assumed. */
  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "device = d.ini\ncontroller = n.ini\n");
  a = raidsim_array_config_load (p);
  ck_assert_int_eq (raidsim_array_config_read_policy (a),
                    RAID_READ_LEAST_PENDING);
  ck_assert_str_eq (raidsim_array_config_read_assumed (a),
                    "the controller file gives no source for mirror_reads");
  raidsim_array_config_free (a);

  /* RAID 0 has no copy to choose. */
  p = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "device = d.ini\ncontroller = c.ini\n");
  a = raidsim_array_config_load (p);
  ck_assert_ptr_null (raidsim_array_config_read_assumed (a));
  raidsim_array_config_free (a);
}
END_TEST

START_TEST (array_errors)
{
  const char *p;

  good_device ();
  good_controller ();
  p = sim_test_file ("a.ini", "[array]\nmembers = 2\ndevice = d.ini\n"
                     "controller = c.ini\n");
  expect_error (raidsim_array_config_load, p, 1,
                "level: required key is missing from [array]");

  /* The geometry's own verdict, on the line of the key it names. */
  p = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "chunk = 12K\ndevice = d.ini\ncontroller = c.ini\n");
  expect_error (raidsim_array_config_load, p, 4,
                "chunk: 12288 bytes is not a power of two from 4K to 64M");
  p = sim_test_file ("a.ini", "[array]\nlevel = 10\nmembers = 2\n"
                     "copies = 3\ndevice = d.ini\ncontroller = c.ini\n");
  expect_error (raidsim_array_config_load, p, 4,
                "copies: 3 copies need at least 3 members, got 2");
  /* One member is a drive for RAID 0 and 1 (md runs both), not for
   * RAID 10's two copies.
   */
  p = sim_test_file ("a.ini", "[array]\nlevel = 10\nmembers = 1\n"
                     "copies = 2\ndevice = d.ini\ncontroller = c.ini\n");
  expect_error (raidsim_array_config_load, p, 4,
                "copies: 2 copies need at least 2 members, got 1");
  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 1\n"
                     "device = d.ini\ncontroller = c.ini\n");
  {
    struct raidsim_array_config *ac = raidsim_array_config_load (p);
    ck_assert_msg (ac != NULL, "one-member RAID 1: %s", raidsim_error ());
    ck_assert_uint_eq (ac->members, 1);
    raidsim_array_config_free (ac);
  }
  p = sim_test_file ("a.ini", "[array]\nlevel = 5\n");
  expect_error (raidsim_array_config_load, p, 2,
                "level: '5' is not one of single, 0, raid0, 1, raid1, 10, "
                "raid10");
  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "read_policy = fastest\n");
  expect_error (raidsim_array_config_load, p, 4,
                "read_policy: 'fastest' is not one of round-robin, "
                "least-pending, sequential, first, all, controller");
  p = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 3\n"
                     "device = d.ini, d.ini\ncontroller = c.ini\n");
  expect_error (raidsim_array_config_load, p, 4,
                "device: 2 files for 3 members; give one for all, or one "
                "per member");

  /* An error in a named file is reported in that file, with the line
   * of the array file that named it.
   */
  sim_test_file ("bad-d.ini", "[device]\nmodel = fixed\nspeed = 1\n");
  p = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "device = bad-d.ini\ncontroller = c.ini\n");
  {
    char want[1024];

    ck_assert_ptr_null (raidsim_array_config_load (p));
    snprintf (want, sizeof want, "%s/bad-d.ini:3: speed: unknown key in "
              "[device] (see 'raidsim help config') (from %s:4)",
              sim_test_tmpdir (), p);
    ck_assert_str_eq (raidsim_error (), want);
  }
  p = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "device = d.ini\ncontroller = missing.ini\n");
  {
    char want[1024];

    const char *e, *from;

    /* Looked for beside the array file, then by name in the data
     * directories (datadir.h); the line of the array file that named it.
     */
    ck_assert_ptr_null (raidsim_array_config_load (p));
    e = raidsim_error ();
    snprintf (want, sizeof want, "missing.ini: no controller file of that "
              "name: looked for missing.ini in %s, then for missing.ini in ",
              sim_test_tmpdir ());
    ck_assert_msg (strncmp (e, want, strlen (want)) == 0, "got: %s", e);
    snprintf (want, sizeof want, " (from %s:5)", p);
    from = strstr (e, want);
    ck_assert_msg (from != NULL && from[strlen (want)] == '\0', "got: %s", e);
  }
}
END_TEST

/* read-policy is the key's spelling, as in the plugin and raidsim map;
 * the old read_policy is still read.  Both name one key, so a section
 * with both sets it twice, and a message names the key as the file
 * spells it.
 */
START_TEST (read_policy_spellings)
{
  static const char *const spellings[] = { "read-policy", "read_policy" };
  struct raidsim_array_config *ac;
  const char *p;
  unsigned i;

  good_device ();
  good_controller ();
  for (i = 0; i < 2; ++i) {
    p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                       "%s = first\ndevice = d.ini\ncontroller = c.ini\n",
                       spellings[i]);
    ac = raidsim_array_config_load (p);
    ck_assert_msg (ac != NULL, "%s: %s", spellings[i], raidsim_error ());
    ck_assert_int_eq (ac->read_policy, RAID_READ_FIRST);
    raidsim_array_config_free (ac);
  }
  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "read_policy = first\nread-policy = sequential\n");
  expect_error (raidsim_array_config_load, p, 5,
                "read-policy: set twice in [array] (first on line 4)");
  p = sim_test_file ("a.ini", "[array]\nlevel = 1\nmembers = 2\n"
                     "read-policy = fastest\n");
  expect_error (raidsim_array_config_load, p, 4,
                "read-policy: 'fastest' is not one of round-robin, "
                "least-pending, sequential, first, all, controller");
}
END_TEST

/* Files built into the program, looked up by their path from the
 * source tree's top, none of them on disk: an array names its device
 * and controller relative to itself, as on disk, and every message
 * names the built-in file and its line.
 */
static const struct raidsim_embedded built_in[] = {
  { "configs/arrays/a.ini", "[array]\nlevel = 1\nmembers = 2\n"
    "device = ./../devices/d.ini, ../devices/../devices/d.ini\n"
    "controller = ../controllers/c.ini\n" },
  { "configs/arrays/bad-device.ini", "[array]\nlevel = 0\nmembers = 2\n"
    "device = ../devices/bad.ini\ncontroller = ../controllers/c.ini\n" },
  { "configs/arrays/no-controller.ini", "[array]\nlevel = 0\n"
    "members = 2\ndevice = ../devices/d.ini\ncontroller = none.ini\n" },
  { "configs/arrays/above.ini", "[array]\nlevel = 0\nmembers = 2\n"
    "device = ../../../d.ini\ncontroller = ../controllers/c.ini\n" },
  { "configs/devices/d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n" },
  { "configs/devices/bad.ini", "; a comment\n[device]\nmodel = fixed\n"
    "speed = 1\n" },
  { "configs/controllers/c.ini", "[controller]\nmodel = generic\n" },
  { NULL, NULL },
};

START_TEST (built_in_files)
{
  struct raidsim_array_config *ac;

  ck_assert_int_eq (chdir (sim_test_tmpdir ()), 0);
  ac = raidsim_array_config_load_from (built_in, "configs/arrays/a.ini");
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());
  ck_assert_ptr_eq (ac->files, built_in);
  ck_assert_str_eq (ac->devices[0]->path, "configs/devices/d.ini");
  ck_assert_str_eq (ac->devices[1]->path, "configs/devices/d.ini");
  ck_assert_uint_eq (ac->devices[1]->capacity, UINT64_C (1) << 30);
  ck_assert_str_eq (ac->ctl->path, "configs/controllers/c.ini");
  raidsim_array_config_free (ac);

  ck_assert_ptr_null (raidsim_array_config_load_from
                      (built_in, "configs/arrays/bad-device.ini"));
  ck_assert_str_eq (raidsim_error (), "configs/devices/bad.ini:4: speed: "
                    "unknown key in [device] (see 'raidsim help config') "
                    "(from configs/arrays/bad-device.ini:4)");
  ck_assert_ptr_null (raidsim_array_config_load_from
                      (built_in, "configs/arrays/no-controller.ini"));
  ck_assert_str_eq (raidsim_error (), "configs/arrays/none.ini: not among "
                    "the files built into the program "
                    "(from configs/arrays/no-controller.ini:5)");
  ck_assert_ptr_null (raidsim_array_config_load_from
                      (built_in, "configs/arrays/above.ini"));
  ck_assert_str_eq (raidsim_error (), "../../../d.ini: from "
                    "configs/arrays/above.ini: climbs above the source tree "
                    "(from configs/arrays/above.ini:4)");
  /* Not read from the file system, even where it has the name. */
  sim_test_file ("configs-x.ini", "[array]\n");
  ck_assert_ptr_null (raidsim_array_config_load_from (built_in,
                                                      "configs-x.ini"));
  ck_assert_str_eq (raidsim_error (), "configs-x.ini: not among the files "
                    "built into the program");
}
END_TEST

START_TEST (fio_errors)
{
  const char *p;

  /* An option fio does not have (a typo) is an error. */
  p = sim_test_file ("j.fio", "[global]\nbs=4k\n\n[job1]\nrw=randread\n"
                     "dierct=1\n");
  expect_error (raidsim_jobfile_load, p, 6,
                "dierct: fio option not in raidsim's subset "
                "(see 'raidsim help config')");
  /* A fio flag without a value is an option too. */
  p = sim_test_file ("j.fio", "[job1]\nruntime=10\ngroup_reportin\n");
  expect_error (raidsim_jobfile_load, p, 3,
                "group_reportin: fio option not in raidsim's subset "
                "(see 'raidsim help config')");
  p = sim_test_file ("j.fio", "[job1]\ntime_based\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "time_based: needs runtime (fio would run forever)");
  p = sim_test_file ("j.fio", "[job1]\nbs\n");
  expect_error (raidsim_jobfile_load, p, 2, "bs: needs a value (bs = VALUE)");
  p = sim_test_file ("j.fio", "rw=read\n[job1]\n");
  expect_error (raidsim_jobfile_load, p, 1, "rw: option outside a job section");
  p = sim_test_file ("j.fio", "[job1]\nrw=randread:eight\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "rw: 'eight' is not an integer with an optional fio suffix "
                "(k, m, g, t, p)");
  p = sim_test_file ("j.fio", "[job1]\nrw=randred\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "rw: 'randred' is not one of read, write, randread, "
                "randwrite, rw, readwrite, randrw");
  p = sim_test_file ("j.fio", "[job1]\nbs=4k,64k,4k,1k\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "bs: '4k,64k,4k,1k': more than three values (reads, writes, "
                "trims)");
  p = sim_test_file ("j.fio", "[job1]\nbs=4k,64q\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "bs: '64q' is not an integer with an optional fio suffix "
                "(k, m, g, t, p)");
  p = sim_test_file ("j.fio", "[job1]\nruntime=1min\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "runtime: '1min' is not an integer with an optional fio time "
                "unit (us, ms, s, m, h, d)");
  p = sim_test_file ("j.fio", "[job1]\nrwmixread=101\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "rwmixread: 101 is above the maximum, 100");
  p = sim_test_file ("j.fio", "[job1]\niodepth=0\n");
  expect_error (raidsim_jobfile_load, p, 2,
                "iodepth: 0 is below the minimum, 1");
  p = sim_test_file ("j.fio", "; nothing but\n[global]\nbs=4k\n");
  {
    char want[1024];

    ck_assert_ptr_null (raidsim_jobfile_load (p));
    snprintf (want, sizeof want, "%s: no job sections (only [global], or "
              "empty)", p);
    ck_assert_str_eq (raidsim_error (), want);
  }
}
END_TEST

/* A job that does not fit the array is refused with the line of the
 * option at fault, even when [global] set it.
 */
START_TEST (fio_job_against_array)
{
  struct raidsim_array_config *ac;
  struct raidsim_jobfile *jf;
  const char *a, *p;
  char want[1024];

  sim_test_file ("d.ini", "[device]\nmodel = fixed\ncapacity = 1G\n");
  good_controller ();
  a = sim_test_file ("a.ini", "[array]\nlevel = 0\nmembers = 2\n"
                     "device = d.ini\ncontroller = c.ini\n");
  ac = raidsim_array_config_load (a);
  ck_assert_msg (ac != NULL, "%s", raidsim_error ());

  p = sim_test_file ("j.fio", "[global]\nsize=3g\n[big]\nrw=read\n");
  jf = raidsim_jobfile_load (p);
  ck_assert_ptr_nonnull (jf);
  ck_assert_ptr_null (raidsim_sim_new (ac, jf, 1));
  snprintf (want, sizeof want, "%s:2: size: 3221225472 bytes from offset 0 "
            "run past the end of the array (2147483648 bytes)", p);
  ck_assert_str_eq (raidsim_error (), want);
  raidsim_jobfile_free (jf);

  p = sim_test_file ("j.fio", "[far]\nrw=read\noffset=2g\n");
  jf = raidsim_jobfile_load (p);
  ck_assert_ptr_null (raidsim_sim_new (ac, jf, 1));
  snprintf (want, sizeof want, "%s:3: offset: 2147483648 is not inside the "
            "array (2147483648 bytes)", p);
  ck_assert_str_eq (raidsim_error (), want);
  raidsim_jobfile_free (jf);

  raidsim_array_config_free (ac);
}
END_TEST

/* fio's own number syntax (parse.c): k = 1024 and, with the default
 * kb_base=1024, kib = 1000; times in seconds unless a unit is given.
 */
START_TEST (fio_numbers_as_fio)
{
  static const struct { const char *text; uint64_t v; } sizes[] = {
    { "4k", 4096 }, { "4K", 4096 }, { "4kb", 4096 }, { "4KB", 4096 },
    { "4kib", 4000 }, { "4KiB", 4000 }, { "1m", 1048576 },
    { "1mib", 1000000 }, { "2g", UINT64_C (2) << 30 }, { "512", 512 },
    { "0x1000", 4096 }, { "1t", UINT64_C (1) << 40 },
  };
  static const struct { const char *text; uint64_t ns; } times[] = {
    { "10", UINT64_C (10000000000) }, { "10s", UINT64_C (10000000000) },
    { "500ms", 500000000 }, { "500msec", 500000000 }, { "250us", 250000 },
    { "2m", UINT64_C (120000000000) }, { "1h", UINT64_C (3600000000000) },
    { "1d", UINT64_C (86400000000000) },
  };
  unsigned i;

  for (i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
    const char *p = sim_test_file ("j.fio", "[j]\nsize=%s\n",
                                   sizes[i].text);
    struct raidsim_jobfile *jf = raidsim_jobfile_load (p);

    ck_assert_msg (jf != NULL, "%s", raidsim_error ());
    ck_assert_msg (jf->jobs[0].size == sizes[i].v, "size=%s gave %lu",
                   sizes[i].text, (unsigned long) jf->jobs[0].size);
    raidsim_jobfile_free (jf);
  }
  for (i = 0; i < sizeof times / sizeof times[0]; ++i) {
    const char *p = sim_test_file ("j.fio", "[j]\nruntime=%s\n",
                                   times[i].text);
    struct raidsim_jobfile *jf = raidsim_jobfile_load (p);

    ck_assert_msg (jf != NULL, "%s", raidsim_error ());
    ck_assert_msg (jf->jobs[0].runtime == times[i].ns, "runtime=%s gave %lu",
                   times[i].text, (unsigned long) jf->jobs[0].runtime);
    raidsim_jobfile_free (jf);
  }
}
END_TEST

START_TEST (fio_global_and_jobs)
{
  const char *p;
  struct raidsim_jobfile *jf;

  /* fio's semantics: [global] applies to the jobs after it only; a job
   * overrides it; a later line overrides an earlier one; an empty job
   * section is a job with the defaults; ';' and '#' start comments.
   */
  p = sim_test_file ("j.fio",
                     "; header\n"
                     "[first]\n"
                     "rw=write   # trailing comment\n"
                     "[global]\n"
                     "bs=64k\n"
                     "iodepth = 4\n"
                     "[second]\n"
                     "iodepth=16\n"
                     "iodepth=32\n"
                     "[third]\n"
                     "[global]\n"
                     "numjobs=2\n"
                     "[fourth]\n"
                     "norandommap\n");
  jf = raidsim_jobfile_load (p);
  ck_assert_msg (jf != NULL, "%s", raidsim_error ());
  ck_assert_uint_eq (jf->njobs, 4);
  ck_assert_str_eq (jf->jobs[0].name, "first");
  ck_assert_int_eq (jf->jobs[0].rw, RAIDSIM_RW_WRITE);
  ck_assert_uint_eq (jf->jobs[0].bs, 4096);
  ck_assert_uint_eq (jf->jobs[0].iodepth, 1);
  ck_assert_str_eq (jf->jobs[1].name, "second");
  ck_assert_uint_eq (jf->jobs[1].bs, 65536);
  ck_assert_uint_eq (jf->jobs[1].iodepth, 32);
  ck_assert_uint_eq (jf->jobs[1].opt_line[RAIDSIM_FIO_BS], 5);
  ck_assert_str_eq (jf->jobs[2].name, "third");
  ck_assert_int_eq (jf->jobs[2].rw, RAIDSIM_RW_READ);
  ck_assert_uint_eq (jf->jobs[2].iodepth, 4);
  ck_assert_uint_eq (jf->jobs[2].numjobs, 1);
  ck_assert_uint_eq (jf->jobs[2].line, 10);
  ck_assert_uint_eq (jf->jobs[3].numjobs, 2);
  ck_assert_uint_eq (jf->jobs[3].bs, 65536);
  /* A bare flag sets it, as fio's norandommap. */
  ck_assert (jf->jobs[3].norandommap);
  ck_assert (!jf->jobs[2].norandommap);
  raidsim_jobfile_free (jf);
}
END_TEST

/* Every example under configs/ loads, and every array runs with every
 * workload long enough to show the files fit together.
 */
static unsigned
list_dir (const char *dir, const char *suffix, char names[][512], unsigned max)
{
  DIR *d = opendir (dir);
  struct dirent *e;
  unsigned n = 0;

  ck_assert_msg (d != NULL, "%s", dir);
  while ((e = readdir (d)) != NULL && n < max) {
    size_t len = strlen (e->d_name), sl = strlen (suffix);
    if (len > sl && strcmp (e->d_name + len - sl, suffix) == 0)
      snprintf (names[n++], 512, "%s/%s", dir, e->d_name);
  }
  closedir (d);
  /* Full means some were left out: raise the limit. */
  ck_assert_msg (n < max, "%s: more than %u files", dir, max - 1);
  return n;
}

START_TEST (configs_examples_load)
{
  static char arrays[64][512], jobs[64][512], devs[64][512], ctls[64][512];
  unsigned na, nj, nd, nc, i, k;

  na = list_dir (SRCDIR "/configs/arrays", ".ini", arrays, 64);
  nj = list_dir (SRCDIR "/configs/workloads", ".fio", jobs, 64);
  nd = list_dir (SRCDIR "/configs/devices", ".ini", devs, 64);
  nc = list_dir (SRCDIR "/configs/controllers", ".ini", ctls, 64);
  ck_assert_uint_ge (na, 1);
  ck_assert_uint_ge (nj, 1);
  for (i = 0; i < nd; ++i) {
    struct raidsim_device_config *d = raidsim_device_config_load (devs[i]);
    ck_assert_msg (d != NULL, "%s", raidsim_error ());
    raidsim_device_config_free (d);
  }
  for (i = 0; i < nc; ++i) {
    struct raidsim_controller_config *c =
      raidsim_controller_config_load (ctls[i]);
    ck_assert_msg (c != NULL, "%s", raidsim_error ());
    raidsim_controller_config_free (c);
  }
  for (i = 0; i < na; ++i)
    for (k = 0; k < nj; ++k) {
      struct sim_test_run r;

      sim_test_run (&r, arrays[i], jobs[k], 1);
      ck_assert_uint_gt (raidsim_sim_job (r.s, 0)->dir[0].ios +
                         raidsim_sim_job (r.s, 0)->dir[1].ios, 0);
      sim_test_done (&r);
    }
}
END_TEST

/* Every config file's opening comment gives the command that runs it. */
START_TEST (configs_examples_say_how_to_run)
{
  static const char *const dirs[] = {
    SRCDIR "/configs/arrays", SRCDIR "/configs/devices",
    SRCDIR "/configs/controllers", SRCDIR "/configs/workloads",
  };
  static char files[64][512];
  unsigned d, i, n;

  for (d = 0; d < 4; ++d) {
    n = list_dir (dirs[d], d == 3 ? ".fio" : ".ini", files, 64);
    for (i = 0; i < n; ++i) {
      FILE *fp = fopen (files[i], "r");
      char line[512];
      bool seen_run = false;

      ck_assert_ptr_nonnull (fp);
      ck_assert (fgets (line, sizeof line, fp) != NULL);
      ck_assert_msg (line[0] == ';', "%s does not open with a comment",
                     files[i]);
      while (fgets (line, sizeof line, fp) && line[0] == ';')
        if (strstr (line, "build/raidsim/raidsim "))
          seen_run = true;
      ck_assert_msg (seen_run, "%s: no 'build/raidsim/raidsim' command in "
                     "its opening comment", files[i]);
      fclose (fp);
    }
  }
}
END_TEST

/* docs/config-reference.md is generated; it must not drift from the
 * tables.  Regenerate: build/raidsim/raidsim config --markdown >
 * docs/config-reference.md
 */
START_TEST (reference_doc_is_current)
{
  char *gen = NULL, *doc;
  size_t genlen = 0;
  FILE *fp = open_memstream (&gen, &genlen);
  long n;

  raidsim_config_reference (fp, true);
  fclose (fp);

  fp = fopen (SRCDIR "/docs/config-reference.md", "r");
  ck_assert_msg (fp != NULL, "docs/config-reference.md is missing");
  fseek (fp, 0, SEEK_END);
  n = ftell (fp);
  rewind (fp);
  doc = calloc (1, n + 1);
  ck_assert_uint_eq (fread (doc, 1, n, fp), (size_t) n);
  fclose (fp);
  ck_assert_msg (strcmp (doc, gen) == 0,
                 "docs/config-reference.md differs from the tables; run "
                 "build/raidsim/raidsim config --markdown > "
                 "docs/config-reference.md");
  free (doc);
  free (gen);
}
END_TEST

/* Every default in every table is valid by its own table's rules (a bad
 * one would abort at load time), and every parameter has help.
 */
START_TEST (tables_are_consistent)
{
  const struct raidsim_param *const tables[] = {
    raidsim_array_keys, raidsim_device_common_params,
    raidsim_controller_common_params, raidsim_fio_params,
  };
  const struct raidsim_device_ops *const *d;
  const struct raidsim_controller_ops *const *c;
  unsigned i;

  for (i = 0; i < 4; ++i) {
    const struct raidsim_param *p;
    static char scratch[4096];

    for (p = tables[i]; p->name; ++p) {
      ck_assert_msg (p->help && *p->help, "%s has no help", p->name);
      /* An empty string default is "not set" (fio's bssplit). */
      if (p->def && !(p->type == RAIDSIM_PT_STRING && !*p->def))
        ck_assert_msg (raidsim_param_parse (p, p->def, scratch) == 0,
                       "%s", raidsim_error ());
    }
  }
  for (d = raidsim_device_models; *d; ++d) {
    void *params = calloc (1, (*d)->params_size);
    ck_assert_int_eq ((*d)->version, RAIDSIM_DEVICE_OPS_VERSION);
    raidsim_params_defaults ((*d)->params, params);
    free (params);
  }
  for (c = raidsim_controller_models; *c; ++c) {
    void *params = calloc (1, (*c)->params_size);
    ck_assert_int_eq ((*c)->version, RAIDSIM_CONTROLLER_OPS_VERSION);
    raidsim_params_defaults ((*c)->params, params);
    free (params);
  }
}
END_TEST

static Suite *
config_suite (void)
{
  Suite *s = suite_create ("sim-config");
  TCase *tc = tcase_create ("errors");

  tcase_add_test (tc, device_errors);
  tcase_add_test (tc, value_syntax);
  tcase_add_test (tc, array_errors);
  tcase_add_test (tc, link_keys);
  tcase_add_test (tc, mirror_reads_of_the_controller);
  tcase_add_test (tc, read_policy_spellings);
  tcase_add_test (tc, built_in_files);
  tcase_add_test (tc, fio_errors);
  tcase_add_test (tc, fio_job_against_array);
  suite_add_tcase (s, tc);
  tc = tcase_create ("fio");
  tcase_add_test (tc, fio_numbers_as_fio);
  tcase_add_test (tc, fio_global_and_jobs);
  suite_add_tcase (s, tc);
  tc = tcase_create ("files");
  tcase_set_timeout (tc, 120);
  tcase_add_test (tc, configs_examples_load);
  tcase_add_test (tc, configs_examples_say_how_to_run);
  tcase_add_test (tc, reference_doc_is_current);
  tcase_add_test (tc, tables_are_consistent);
  suite_add_tcase (s, tc);
  return s;
}

int
main (void)
{
  SRunner *sr = srunner_create (config_suite ());
  int failed;

  srunner_run_all (sr, CK_NORMAL);
  failed = srunner_ntests_failed (sr);
  srunner_free (sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
