/* raidsim: loading the simulator's config files (see config.h), and the
 * tables of the keys they hold.  The keys of each model live in the
 * model's own file under devices/ or controllers/; this file has only
 * the keys every device, every controller and every array has.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raidsim/background.h"
#include "raidsim/config.h"
#include "raidsim/datadir.h"
#include "raidsim/raidkeys.h"
#include "raidsim/embedded.h"
#include "raidsim/error.h"
#include "raidsim/fiojob.h"

#define MiB (UINT64_C (1) << 20)

/* The core's levels (geometry.h), and the simulator's own "single". */
static const struct raidsim_enum level_enums[] = {
  { "single", RAIDSIM_LEVEL_SINGLE },
#define LEVEL(id, n, name, alias) { name, id }, { alias, id },
  RAID_LEVELS (LEVEL)
#undef LEVEL
  { NULL, 0 },
};

/* The core's policies (readpolicy.h), and the simulator's own "all". */
static const struct raidsim_enum policy_enums[] = {
#define POLICY(id, name, help) { name, id },
  RAID_READ_POLICIES (POLICY)
#undef POLICY
  { RAIDSIM_POLICY_ALL_NAME, RAIDSIM_POLICY_ALL },
  { RAIDSIM_POLICY_CONTROLLER_NAME, RAIDSIM_POLICY_CONTROLLER },
  { NULL, 0 },
};

/* The same without "controller": what a controller file may name. */
static const struct raidsim_enum mirror_enums[] = {
#define POLICY(id, name, help) { name, id },
  RAID_READ_POLICIES (POLICY)
#undef POLICY
  { RAIDSIM_POLICY_ALL_NAME, RAIDSIM_POLICY_ALL },
  { NULL, 0 },
};

/* Links (link.h; docs/links.md derives each). */
static const struct raidsim_enum port_link_enums[] = {
  { "rate", RAIDSIM_LINK_RATE },
  { "sata-1.5g", RAIDSIM_LINK_SATA1 },
  { "sata-3g", RAIDSIM_LINK_SATA2 },
  { "sata-6g", RAIDSIM_LINK_SATA3 },
  { "pcie1", RAIDSIM_LINK_PCIE1 },
  { "pcie2", RAIDSIM_LINK_PCIE2 },
  { "pcie3", RAIDSIM_LINK_PCIE3 },
  { NULL, 0 },
};

/* The chipsets' uplinks are PCIe-like links of four lanes: DMI 1.0
 * (ICH9R, ICH10R) and AMD's A-Link Express II are 2.5 GT/s, DMI 2.0
 * 5 GT/s, DMI 3.0 (X299) 8 GT/s.  uplink_lanes applies to pcieN only.
 */
static const struct raidsim_enum uplink_link_enums[] = {
  { "rate", RAIDSIM_LINK_RATE },
  { "pcie1", RAIDSIM_LINK_PCIE1 },
  { "pcie2", RAIDSIM_LINK_PCIE2 },
  { "pcie3", RAIDSIM_LINK_PCIE3 },
  { "dmi1", RAIDSIM_LINK_DMI1 },
  { "alink2", RAIDSIM_LINK_ALINK2 },
  { "dmi2", RAIDSIM_LINK_DMI2 },
  { "dmi3", RAIDSIM_LINK_DMI3 },
  { NULL, 0 },
};

static const struct raidsim_enum link_cmds_enums[] = {
  { "none", RAIDSIM_LINK_CMDS_NONE },
  { "nvme", RAIDSIM_LINK_CMDS_NVME },
  { "ahci", RAIDSIM_LINK_CMDS_AHCI },
  { NULL, 0 },
};

static const struct raidsim_enum duplex_enums[] = {
  { "full", RAIDSIM_FULL_DUPLEX },
  { "half", RAIDSIM_HALF_DUPLEX },
  { NULL, 0 },
};

/* Indexes into raidsim_array_keys, for the lines of keys that are
 * checked after parsing.  Keep in the order of the table.
 */
enum {
  ARRAY_LEVEL, ARRAY_MEMBERS, ARRAY_CHUNK, ARRAY_COPIES, ARRAY_READ_POLICY,
  ARRAY_DEVICE, ARRAY_CONTROLLER, ARRAY_FAILED, ARRAY_REBUILD, ARRAY_RESYNC,
  ARRAY_SPEED_LIMIT_MIN, ARRAY_SPEED_LIMIT_MAX, ARRAY_SYNC_THROTTLE,
  ARRAY_SYNC_RUNTIME, ARRAY_NPARAMS
};

#define A(field) offsetof (struct raidsim_array_config, field)
const struct raidsim_param raidsim_array_keys[] = {
  { .name = "level", .type = RAIDSIM_PT_ENUM, .offset = A (level),
    .enums = level_enums,
    .help = RAID_KEY_LEVEL_HELP "  In the simulator, single is one drive "
    "with no RAID layer." },
  { .name = "members", .type = RAIDSIM_PT_UINT, .offset = A (members),
    .min = 1, .max = RAID_MAX_MEMBERS, .unit = "drives",
    .help = "Number of member drives (1 for single; 1 or more for RAID "
    "0 and 1, where 1 is a one-member array, as md runs it; at least "
    "copies for RAID 10)." },
  { .name = "chunk", .type = RAIDSIM_PT_SIZE, .offset = A (chunk),
    .def = "128K", .min = RAID_CHUNK_MIN, .max = RAID_CHUNK_MAX,
    .help = RAID_KEY_CHUNK_HELP },
  { .name = "copies", .type = RAIDSIM_PT_UINT, .offset = A (copies),
    .def = "2", .min = 2, .max = RAID_MAX_MEMBERS, .unit = "copies",
    .help = RAID_KEY_COPIES_HELP },
  { .name = "read-policy", .old_name = "read_policy", .type = RAIDSIM_PT_ENUM,
    .offset = A (read_policy), .def = RAIDSIM_POLICY_CONTROLLER_NAME,
    .enums = policy_enums,
    .help = RAID_KEY_READ_POLICY_HELP "  The plugin's policies, and in the "
    "simulator also all: every copy is read and the read completes when "
    "the last copy has answered, as a driver that reads both halves of "
    "a mirror would; and controller (the default): the controller file's "
    "mirror_reads, the copy choice of the controller or driver modelled." },
  { .name = "device", .type = RAIDSIM_PT_STRING, .offset = A (device),
    .help = "Device file of the members, relative to this file, or a "
    "device's name (raidsim list devices): one for all members, or a "
    "comma-separated list with one per member." },
  { .name = "controller", .type = RAIDSIM_PT_STRING, .offset = A (controller),
    .help = "Controller file, relative to this file, or a controller's "
    "name (raidsim list controllers)." },
  { .name = "failed", .type = RAIDSIM_PT_STRING, .offset = A (failed),
    .def = "none",
    .help = "Members that have failed or are missing, as a comma-separated "
    "list of member indexes from 0 (\"1\", \"0,2\"), or none: the array "
    "runs degraded, and no copy on them is read or written.  An array in "
    "which some chunk would have no live copy is refused." },
  { .name = "rebuild", .type = RAIDSIM_PT_STRING, .offset = A (rebuild),
    .def = "none",
    .help = "The member being rebuilt (a replacement), or none.  A "
    "background stream reads each of its chunks from a live copy and "
    "writes it to the member, from its start, at the speed limits; the "
    "host's writes go to it, and its reads only below the point the "
    "rebuild has reached.  RAID 1 and 10." },
  { .name = "resync", .type = RAIDSIM_PT_ENUM, .offset = A (resync),
    .def = "no", .enums = raidsim_resync_enums,
    .help = "A background resync from the start of the array, at the speed "
    "limits: yes reads the first live copy of each piece and writes it to "
    "the others (md's RAID 1 after an unclean shutdown; until a piece is "
    "in sync, reads of it go to its first copy); check reads every live "
    "copy and writes none (md's sync_action=check, and md's RAID 10 "
    "resync of copies that agree).  RAID 1 and 10." },
  { .name = "speed_limit_min", .type = RAIDSIM_PT_RATE,
    .offset = A (speed_limit_min), .def = "1000KiB/s",
    .help = "md's speed_limit_min: the speed a resync or rebuild keeps "
    "while the array is busy with other I/O (sync_throttle = min), or below "
    "which it stops giving way (drain); 0: it pauses while the array is "
    "busy.  Counted in bytes of the array (resync) or of the member "
    "(rebuild) per second." },
  { .name = "speed_limit_max", .type = RAIDSIM_PT_RATE,
    .offset = A (speed_limit_max), .def = "200000KiB/s",
    .help = "md's speed_limit_max: the speed of a resync or rebuild while "
    "the array is otherwise idle; 0: as fast as the members allow." },
  { .name = "sync_throttle", .type = RAIDSIM_PT_ENUM,
    .offset = A (sync_throttle), .def = "min",
    .enums = raidsim_sync_throttle_enums,
    .help = "What a resync or rebuild does when it finds the array busy: "
    "min goes no faster than speed_limit_min (md before Linux 4.1); drain "
    "waits for its own requests in flight to finish before it issues more "
    "(md since 4.1)." },
  { .name = "sync_runtime", .type = RAIDSIM_PT_TIME,
    .offset = A (sync_runtime), .def = "0", .max = 3600 * RAIDSIM_NS_PER_S,
    .help = "Keep a resync or rebuild going until this time from the start "
    "even when the workload has finished sooner (the array is then idle); "
    "0: it stops when the workload does.  It also stops when it has done "
    "the whole array or member." },
  RAIDSIM_PARAM_END,
};
#undef A

/* The line of the [array] key a message starts with ("KEY: ..."), or
 * dflt if it has none or the key took its default.
 */
static unsigned
key_line (const unsigned *lines, unsigned dflt, const char *msg)
{
  size_t n = strcspn (msg, ":");
  unsigned i;

  for (i = 0; i < ARRAY_NPARAMS; ++i)
    if (strlen (raidsim_array_keys[i].name) == n &&
        strncmp (msg, raidsim_array_keys[i].name, n) == 0)
      return lines[i] ? lines[i] : dflt;
  return dflt;
}

#define D(field) offsetof (struct raidsim_device_config, field)
const struct raidsim_param raidsim_device_common_params[] = {
  { .name = "model", .type = RAIDSIM_PT_STRING, .offset = D (model),
    .help = "Device model; its own keys are listed under it below." },
  { .name = "capacity", .type = RAIDSIM_PT_SIZE, .offset = D (capacity),
    .def = "1T", .min = RAID_CHUNK_MIN, .max = UINT64_C (1) << 60,
    .help = "Usable size of the drive, at most 1 EiB (an array's size, "
    "all its members' capacity added up, must stay below 8 EiB)." },
  RAIDSIM_PARAM_END,
};
#undef D

#define C(field) offsetof (struct raidsim_controller_config, field)
const struct raidsim_param raidsim_controller_common_params[] = {
  { .name = "model", .type = RAIDSIM_PT_STRING, .offset = C (model),
    .help = "Controller model; its own keys are listed under it below." },
  { .name = "port_link", .type = RAIDSIM_PT_ENUM, .offset = C (port.kind),
    .def = "rate", .enums = port_link_enums,
    .help = "Each member's own link, whose wire time comes from its "
    "specification (docs/links.md): sata-1.5g, sata-3g, sata-6g (NCQ "
    "frames, 8b/10b, half duplex), pcie1, pcie2, pcie3 (TLPs, full "
    "duplex; port_lanes, port_mps, port_mrrs, port_commands); or rate, a "
    "bare port_bandwidth (illustrative configs and tests)." },
  { .name = "port_bandwidth", .type = RAIDSIM_PT_RATE,
    .offset = C (port.rate), .def = "0",
    .help = "port_link = rate only: the payload rate of each member's "
    "link; 0 is unlimited." },
  { .name = "port_duplex", .type = RAIDSIM_PT_ENUM, .offset = C (port.duplex),
    .def = "full", .enums = duplex_enums,
    .help = "port_link = rate only: whether a port carries reads and "
    "writes at the same time (full) or takes turns (half)." },
  { .name = "port_lanes", .type = RAIDSIM_PT_UINT, .offset = C (port.lanes),
    .def = "4", .min = 1, .max = 32, .unit = "lanes",
    .help = "PCIe ports: the link's width." },
  { .name = "port_mps", .type = RAIDSIM_PT_SIZE, .offset = C (port.mps),
    .def = "128", .min = 128, .max = 4096,
    .help = "PCIe ports: Max Payload Size, the most data one TLP carries "
    "(128 is the specification's default; a power of two to 4096)." },
  { .name = "port_mrrs", .type = RAIDSIM_PT_SIZE, .offset = C (port.mrrs),
    .def = "512", .min = 128, .max = 4096,
    .help = "PCIe ports: Max Read Request Size, the most data one read "
    "request asks for (512 is the specification's default)." },
  { .name = "port_commands", .type = RAIDSIM_PT_ENUM, .offset = C (port.cmds),
    .def = "nvme", .enums = link_cmds_enums,
    .help = "PCIe ports: the per-command traffic beside the data: nvme "
    "(doorbells, command fetch, completion entry, interrupt), ahci, or "
    "none." },
  { .name = "sata_turnaround", .type = RAIDSIM_PT_UINT,
    .offset = C (port.turnaround), .def = "20", .max = 10000,
    .unit = "dwords",
    .help = "SATA ports: the dword times each frame spends in its two "
    "handshakes (X_RDY to R_RDY before it, WTRM to R_OK after it); "
    "docs/links.md says where 20 comes from." },
  { .name = "uplink_link", .type = RAIDSIM_PT_ENUM, .offset = C (uplink.kind),
    .def = "rate", .enums = uplink_link_enums,
    .help = "The link all members share to reach the host: dmi1 (ICH9R, "
    "ICH10R), alink2 (AMD A-Link Express II), dmi2, dmi3 (x4 at 2.5, "
    "2.5, 5 and 8 GT/s), pcie1, pcie2, pcie3 (uplink_lanes wide); or "
    "rate, a bare uplink_bandwidth (0: no uplink)." },
  { .name = "uplink_bandwidth", .type = RAIDSIM_PT_RATE,
    .offset = C (uplink.rate), .def = "0",
    .help = "uplink_link = rate only: the payload rate of the shared "
    "link; 0 is unlimited (no uplink)." },
  { .name = "uplink_duplex", .type = RAIDSIM_PT_ENUM,
    .offset = C (uplink.duplex), .def = "full", .enums = duplex_enums,
    .help = "uplink_link = rate only: whether the uplink carries both "
    "directions at once." },
  { .name = "uplink_lanes", .type = RAIDSIM_PT_UINT,
    .offset = C (uplink.lanes), .def = "4", .min = 1, .max = 32,
    .unit = "lanes",
    .help = "uplink_link = pcieN: the link's width (DMI and A-Link are "
    "four lanes)." },
  { .name = "uplink_mps", .type = RAIDSIM_PT_SIZE, .offset = C (uplink.mps),
    .def = "128", .min = 128, .max = 4096,
    .help = "PCIe-like uplinks: Max Payload Size." },
  { .name = "uplink_mrrs", .type = RAIDSIM_PT_SIZE, .offset = C (uplink.mrrs),
    .def = "512", .min = 128, .max = 4096,
    .help = "PCIe-like uplinks: Max Read Request Size." },
  { .name = "uplink_commands", .type = RAIDSIM_PT_ENUM,
    .offset = C (uplink.cmds), .def = "none", .enums = link_cmds_enums,
    .help = "PCIe-like uplinks: the per-command traffic beside the data: "
    "ahci (an AHCI controller behind the uplink: command lists, received "
    "FISes, interrupt, register accesses), nvme, or none." },
  { .name = "merge_pieces", .type = RAIDSIM_PT_BOOL,
    .offset = C (merge_pieces), .def = "no",
    .help = "Whether the pieces of one request that are contiguous on a "
    "member go to it as one command (a run), as Linux's block layer "
    "merges md's per-chunk requests and the nbdkit raid plugin issues "
    "them; no: one command per piece (see raidsim map --runs)." },
  { .name = "mirror_reads", .type = RAIDSIM_PT_ENUM,
    .offset = C (mirror_reads), .def = "least-pending", .enums = mirror_enums,
    .help = "Which copy of a RAID 1 or RAID 10 piece this controller or "
    "driver reads, as a read policy (read-policy's values but "
    "controller), for array files that name none.  The file cites its "
    "source, or says it is assumed in mirror_reads_assumed." },
  { .name = "mirror_reads_source", .type = RAIDSIM_PT_STRING,
    .offset = C (mirror_reads_source), .def = "",
    .help = "The document mirror_reads comes from (a vendor document, "
    "driver documentation or source).  Without it mirror_reads is an "
    "assumption, and raidsim run says so." },
  { .name = "mirror_reads_assumed", .type = RAIDSIM_PT_STRING,
    .offset = C (mirror_reads_assumed), .def = "",
    .help = "When no document says how the controller reads a mirror: "
    "what mirror_reads assumes and why, printed by raidsim run on its "
    "own line for every RAID 1 or RAID 10 array that reads as the "
    "controller does.  Not with mirror_reads_source." },
  RAIDSIM_PARAM_END,
};
#undef C

/* The file path names on the command line, by path or by name in the
 * data directories (datadir.h), into buf; among built-in files, path
 * itself.  NULL with raidsim_error () set.
 */
static const char *
locate (const struct raidsim_embedded *files, enum raidsim_kind kind,
        const char *path, char *buf, size_t len)
{
  if (files == NULL && raidsim_datadir_find (kind, path, NULL, buf, len) == -1)
    return NULL;
  return files ? path : buf;
}

/* A config file from the file system, or with files, from that table
 * of files built into the program.
 */
static struct raidsim_ini *
open_ini (const struct raidsim_embedded *files, const char *path)
{
  const char *text;

  if (files == NULL)
    return raidsim_ini_load (path, RAIDSIM_INI_CONFIG);
  if ((text = raidsim_embedded_find (files, path)) == NULL)
    return NULL;
  return raidsim_ini_load_text (path, text, RAIDSIM_INI_CONFIG);
}

/* The one section of a device or controller file: present once, and no
 * other section beside it.
 */
static int
only_section (const struct raidsim_ini *ini, const char *name)
{
  unsigned i;
  int sec = -1;

  for (i = 0; i < ini->nsections; ++i) {
    if (strcmp (ini->sections[i].name, name) != 0) {
      raidsim_set_error ("%s:%u: [%s]: unknown section (this file should "
                         "have only [%s])", ini->path, ini->sections[i].line,
                         ini->sections[i].name, name);
      return -1;
    }
    if (sec >= 0) {
      raidsim_set_error ("%s:%u: [%s]: section given twice (first on line "
                         "%u)", ini->path, ini->sections[i].line, name,
                         ini->sections[sec].line);
      return -1;
    }
    sec = i;
  }
  if (sec < 0)
    raidsim_set_error ("%s: no [%s] section", ini->path, name);
  return sec;
}

/* The model named by `model =`, looked up before the other keys are
 * parsed because it decides which keys exist.
 */
static const void *
find_model (struct raidsim_ini *ini, unsigned sec, bool device)
{
  struct raidsim_ini_entry *e = raidsim_ini_get (ini, sec, "model");
  const void *ops;

  if (e == NULL || e->value == NULL) {
    raidsim_set_error ("%s:%u: model: required key is missing from [%s]",
                       ini->path, ini->sections[sec].line,
                       ini->sections[sec].name);
    return NULL;
  }
  ops = device ? (const void *) raidsim_device_find (e->value)
    : (const void *) raidsim_controller_find (e->value);
  if (ops == NULL)
    raidsim_set_error ("%s:%u: %s", ini->path, e->line, raidsim_error ());
  return ops;
}

/* Put the file and the line of the key a model's message starts with
 * ("KEY: what is wrong") on the message; the section's line if the key
 * has its default.
 */
static void
blame_key (struct raidsim_ini *ini, unsigned sec)
{
  char key[64];
  struct raidsim_ini_entry *e;
  size_t n;

  n = strcspn (raidsim_error (), ":");
  snprintf (key, sizeof key, "%.*s", (int) n, raidsim_error ());
  e = raidsim_ini_get (ini, sec, key);
  raidsim_set_error ("%s:%u: %s", ini->path,
                     e ? e->line : ini->sections[sec].line, raidsim_error ());
}

/* Run a model's check () and put the key's line on its message. */
static int
model_check (struct raidsim_ini *ini, unsigned sec,
             int (*check) (const void *), const void *params)
{
  if (check == NULL || check (params) == 0)
    return 0;
  blame_key (ini, sec);
  return -1;
}

/* The part of a [device] or [controller] file that is the same for
 * both: the common parameters into base, the model's own into a new
 * *params of size bytes, then the model's cross-checks.  Returns 0, or
 * -1 with raidsim_error () set.
 */
static int
apply_model_params (struct raidsim_ini *ini, int sec, const char *path,
                    const struct raidsim_param *common, void *base,
                    const struct raidsim_param *own, size_t size,
                    int (*check) (const void *), void **params)
{
  const struct raidsim_param *tables[] = { common, own };
  void *bases[2];

  *params = calloc (1, size);
  if (*params == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    return -1;
  }
  bases[0] = base;
  bases[1] = *params;
  if (raidsim_params_apply (ini, sec, 2, tables, bases, NULL, true) == -1)
    return -1;
  return model_check (ini, sec, check, *params);
}

void
raidsim_device_config_free (struct raidsim_device_config *c)
{
  if (c) {
    free (c->params);
    free (c);
  }
}

struct raidsim_device_config *
raidsim_device_config_load (const char *path)
{
  return raidsim_device_config_load_from (NULL, path);
}

struct raidsim_device_config *
raidsim_device_config_load_from (const struct raidsim_embedded *files,
                                 const char *path)
{
  struct raidsim_ini *ini;
  struct raidsim_device_config *c = NULL;
  char found[RAIDSIM_STR_MAX];
  int sec;

  if ((path = locate (files, RAIDSIM_KIND_DEVICE, path, found,
                      sizeof found)) == NULL)
    return NULL;
  ini = open_ini (files, path);
  if (ini == NULL)
    return NULL;
  if ((sec = only_section (ini, "device")) < 0)
    goto err;
  c = calloc (1, sizeof *c);
  if (c == NULL)
    goto nomem;
  snprintf (c->path, sizeof c->path, "%s", path);
  c->ops = find_model (ini, sec, true);
  if (c->ops == NULL)
    goto err;
  if (apply_model_params (ini, sec, path, raidsim_device_common_params, c,
                          c->ops->params, c->ops->params_size,
                          c->ops->check, &c->params) == -1)
    goto err;
  /* Some checks need the capacity too (a disk must hold two
   * cylinders): build the device once, so that they are reported here,
   * with the file and line, rather than when a run starts.
   */
  {
    void *dev = c->ops->create (c->params, c->capacity);

    if (dev == NULL) {
      blame_key (ini, sec);
      goto err;
    }
    c->ops->destroy (dev);
  }
  raidsim_ini_free (ini);
  return c;

 nomem:
  raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
 err:
  raidsim_ini_free (ini);
  raidsim_device_config_free (c);
  return NULL;
}

void
raidsim_controller_config_free (struct raidsim_controller_config *c)
{
  if (c) {
    free (c->params);
    free (c);
  }
}

/* The keys of one link that mean something for its kind: a bare rate
 * has a bandwidth and a duplex, a SATA link its turnaround, a PCIe link
 * its lanes (not DMI's or A-Link's, which have four), payload sizes and
 * per-command traffic.  A key given for another kind is refused, naming
 * it and its line, rather than ignored.
 */
static int
link_keys_check (struct raidsim_ini *ini, unsigned sec, const char *which,
                 const struct raidsim_link_spec *l, const char *kind_name)
{
  static const char *const keys[] = {
    "bandwidth", "duplex", "lanes", "mps", "mrrs", "commands",
  };
  bool rate = l->kind == RAIDSIM_LINK_RATE;
  bool sata = l->kind >= RAIDSIM_LINK_SATA1 && l->kind <= RAIDSIM_LINK_SATA3;
  bool x4 = l->kind >= RAIDSIM_LINK_DMI1;
  unsigned i;

  for (i = 0; i < sizeof keys / sizeof keys[0]; ++i) {
    char key[64];
    struct raidsim_ini_entry *e;
    bool means = i < 2 ? rate : !rate && !sata && !(i == 2 && x4);

    snprintf (key, sizeof key, "%s_%s", which, keys[i]);
    e = raidsim_ini_get (ini, sec, key);
    if (e && !means) {
      raidsim_set_error ("%s:%u: %s: means nothing with %s_link = %s%s; "
                         "remove it", ini->path, e->line, key, which,
                         kind_name, i < 2 ? " (its rate and duplex come "
                         "from its specification)" : "");
      return -1;
    }
  }
  {
    struct raidsim_ini_entry *e = raidsim_ini_get (ini, sec,
                                                   "sata_turnaround");

    if (e && strcmp (which, "port") == 0 && !sata) {
      raidsim_set_error ("%s:%u: sata_turnaround: means nothing with "
                         "port_link = %s; remove it", ini->path, e->line,
                         kind_name);
      return -1;
    }
  }
  if (!rate && !sata && ((l->mps & (l->mps - 1)) || (l->mrrs & (l->mrrs - 1)))) {
    struct raidsim_ini_entry *e;
    char key[64];

    snprintf (key, sizeof key, "%s_%s", which,
              l->mps & (l->mps - 1) ? "mps" : "mrrs");
    e = raidsim_ini_get (ini, sec, key);
    raidsim_set_error ("%s:%u: %s: must be a power of two (128, 256, ... "
                       "4096)", ini->path, e ? e->line : ini->sections[sec].line,
                       key);
    return -1;
  }
  return 0;
}

static const char *
enum_name (const struct raidsim_enum *e, int v)
{
  for (; e->name; ++e)
    if (e->value == v)
      return e->name;
  return "?";
}

static struct raidsim_controller_config *
load_controller (const struct raidsim_embedded *files, const char *path)
{
  struct raidsim_ini *ini;
  struct raidsim_controller_config *c = NULL;
  char found[RAIDSIM_STR_MAX];
  int sec;

  if ((path = locate (files, RAIDSIM_KIND_CONTROLLER, path, found,
                      sizeof found)) == NULL)
    return NULL;
  ini = open_ini (files, path);
  if (ini == NULL)
    return NULL;
  if ((sec = only_section (ini, "controller")) < 0)
    goto err;
  c = calloc (1, sizeof *c);
  if (c == NULL)
    goto nomem;
  snprintf (c->path, sizeof c->path, "%s", path);
  c->ops = find_model (ini, sec, false);
  if (c->ops == NULL)
    goto err;
  if (apply_model_params (ini, sec, path, raidsim_controller_common_params,
                          c, c->ops->params, c->ops->params_size,
                          c->ops->check, &c->params) == -1)
    goto err;
  if (c->mirror_reads_source[0] && c->mirror_reads_assumed[0]) {
    struct raidsim_ini_entry *e = raidsim_ini_get (ini, sec,
                                                   "mirror_reads_assumed");

    raidsim_set_error ("%s:%u: mirror_reads_assumed: given with "
                       "mirror_reads_source; a policy has a source or is "
                       "assumed, not both", path, e->line);
    goto err;
  }
  if (link_keys_check (ini, sec, "port", &c->port,
                       enum_name (port_link_enums, c->port.kind)) == -1 ||
      link_keys_check (ini, sec, "uplink", &c->uplink,
                       enum_name (uplink_link_enums, c->uplink.kind)) == -1)
    goto err;
  raidsim_ini_free (ini);
  return c;

 nomem:
  raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
 err:
  raidsim_ini_free (ini);
  raidsim_controller_config_free (c);
  return NULL;
}

struct raidsim_controller_config *
raidsim_controller_config_load (const char *path)
{
  return load_controller (NULL, path);
}

void
raidsim_array_config_free (struct raidsim_array_config *c)
{
  unsigned i;

  if (c == NULL)
    return;
  for (i = 0; i < RAID_MAX_MEMBERS; ++i)
    raidsim_device_config_free (c->devices[i]);
  raidsim_controller_config_free (c->ctl);
  free (c);
}

/* A path in an array file is relative to the array file's directory,
 * so that configs/ can be used from anywhere, and then a name in the
 * data directories (datadir.h); among built-in files, it is the name of
 * one in the same table.  Returns 0 or -1.
 */
static int
relative_to (const struct raidsim_array_config *ac, enum raidsim_kind kind,
             const char *path, char *out, size_t len)
{
  if (ac->files)
    return raidsim_embedded_path (ac->path, path, out, len);
  return raidsim_datadir_find (kind, path, ac->path, out, len);
}

static char *
trim_blanks (char *s)
{
  char *end;

  while (*s == ' ' || *s == '\t')
    s++;
  end = s + strlen (s);
  while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
    *--end = '\0';
  return s;
}

void
raidsim_array_config_params (const struct raidsim_array_config *ac,
                             uint64_t *member_size,
                             struct raidsim_array_params *p)
{
  unsigned i;

  /* Fields not set below (no failed members, no rebuild) are 0. */
  memset (p, 0, sizeof *p);
  for (i = 0; i < ac->members; ++i)
    member_size[i] = ac->devices[i]->capacity;
  p->level = ac->level;
  p->chunk = ac->chunk;
  p->copies = ac->copies;
  p->nmembers = ac->members;
  p->member_size = member_size;
  p->policy = raidsim_array_config_read_policy (ac);
  p->merge = ac->ctl ? ac->ctl->merge_pieces : false;
  p->failed = ac->failed_mask;
  p->rebuild = ac->rebuild_mask;
  p->resync = ac->resync == RAIDSIM_RESYNC_YES;
}

int
raidsim_array_config_read_policy (const struct raidsim_array_config *ac)
{
  if (ac->read_policy == RAIDSIM_POLICY_CONTROLLER)
    return ac->ctl ? ac->ctl->mirror_reads : RAID_READ_POLICY_DEFAULT;
  return ac->read_policy;
}

const char *
raidsim_array_config_read_assumed (const struct raidsim_array_config *ac)
{
  if ((ac->level != RAID_LEVEL_1 && ac->level != RAID_LEVEL_10) ||
      ac->read_policy != RAIDSIM_POLICY_CONTROLLER || ac->ctl == NULL ||
      ac->ctl->mirror_reads_source[0] != '\0')
    return NULL;
  if (ac->ctl->mirror_reads_assumed[0] == '\0')
    return "the controller file gives no source for mirror_reads";
  return ac->ctl->mirror_reads_assumed;
}

uint64_t
raidsim_array_config_size (const struct raidsim_array_config *ac)
{
  uint64_t sizes[RAID_MAX_MEMBERS], size;
  struct raidsim_array_params ap;
  struct raidsim_array *a;

  raidsim_array_config_params (ac, sizes, &ap);
  a = raidsim_array_new (&ap);
  /* A loaded config has been checked by the same call. */
  if (a == NULL)
    return 0;
  size = raidsim_array_size (a);
  raidsim_array_free (a);
  return size;
}

struct raidsim_array_config *
raidsim_array_config_load (const char *path)
{
  return raidsim_array_config_load_from (NULL, path);
}

struct raidsim_array_config *
raidsim_array_config_load_from (const struct raidsim_embedded *files,
                                const char *path)
{
  struct raidsim_ini *ini;
  struct raidsim_array_config *c = NULL;
  unsigned lines[ARRAY_NPARAMS] = { 0 };
  unsigned *linesp[] = { lines };
  char found[RAIDSIM_STR_MAX];
  int sec;
  unsigned i;

  if ((path = locate (files, RAIDSIM_KIND_ARRAY, path, found,
                      sizeof found)) == NULL)
    return NULL;
  ini = open_ini (files, path);
  if (ini == NULL)
    return NULL;
  if ((sec = only_section (ini, "array")) < 0)
    goto err;
  c = calloc (1, sizeof *c);
  if (c == NULL) {
    raidsim_set_error ("%s: %s", path, strerror (ENOMEM));
    goto err;
  }
  c->files = files;
  snprintf (c->path, sizeof c->path, "%s", path);
  {
    const char *base = strrchr (path, '/');
    size_t n;

    base = base ? base + 1 : path;
    n = strlen (base);
    if (n > 4 && strcmp (base + n - 4, ".ini") == 0)
      n -= 4;
    snprintf (c->name, sizeof c->name, "%.*s", (int) n, base);
  }
  {
    const struct raidsim_param *tables[] = { raidsim_array_keys };
    void *bases[] = { c };

    if (raidsim_params_apply (ini, sec, 1, tables, bases, linesp, true) == -1)
      goto err;
  }

  /* A key that means nothing for the level is a mistake to point at,
   * not a setting to ignore without a word.
   */
  {
    static const unsigned idx[] = {
      ARRAY_CHUNK, ARRAY_COPIES, ARRAY_READ_POLICY,
    };

    for (i = 0; i < sizeof idx / sizeof idx[0]; ++i) {
      const char *why = raidsim_array_key_unused
        (c->level, raidsim_array_keys[idx[i]].name);
      char level[32];

      if (lines[idx[i]] == 0 || why == NULL)
        continue;
      raidsim_param_format (&raidsim_array_keys[ARRAY_LEVEL], &c->level,
                            level, sizeof level);
      raidsim_set_error ("%s:%u: %s: means nothing for level %s (%s); "
                         "remove it", path, lines[idx[i]],
                         raidsim_array_keys[idx[i]].name, level, why);
      goto err;
    }
  }

  /* Members' device files: one for all, or one each. */
  {
    char list[RAIDSIM_STR_MAX], *tok, *save = NULL;
    unsigned n = 0;
    unsigned dev_line = lines[ARRAY_DEVICE];

    snprintf (list, sizeof list, "%s", c->device);
    for (tok = strtok_r (list, ",", &save); tok;
         tok = strtok_r (NULL, ",", &save)) {
      char file[RAIDSIM_STR_MAX * 2];

      tok = trim_blanks (tok);
      if (*tok == '\0' || n >= c->members) {
        raidsim_set_error ("%s:%u: device: give one device file, or one "
                           "per member (%u)", path, dev_line,
                           (unsigned) c->members);
        goto err;
      }
      if (relative_to (c, RAIDSIM_KIND_DEVICE, tok, file, sizeof file) == -1
          || (c->devices[n] = raidsim_device_config_load_from (files, file))
          == NULL) {
        raidsim_set_error ("%s (from %s:%u)", raidsim_error (), path,
                           dev_line);
        goto err;
      }
      n++;
    }
    if (n != 1 && n != c->members) {
      raidsim_set_error ("%s:%u: device: %u files for %u members; give one "
                         "for all, or one per member", path, dev_line, n,
                         (unsigned) c->members);
      goto err;
    }
    /* One file for all: every member gets its own copy of the config,
     * so that freeing is simple and members can never share state.
     */
    for (i = 1; n == 1 && i < c->members; ++i) {
      char file[RAIDSIM_STR_MAX * 2];

      if (relative_to (c, RAIDSIM_KIND_DEVICE, trim_blanks (c->device),
                       file, sizeof file) == -1
          || (c->devices[i] = raidsim_device_config_load_from (files, file))
          == NULL)
        goto err;
    }
  }

  {
    char file[RAIDSIM_STR_MAX * 2];

    if (relative_to (c, RAIDSIM_KIND_CONTROLLER, c->controller, file,
                     sizeof file) == -1
        || (c->ctl = load_controller (files, file)) == NULL) {
      raidsim_set_error ("%s (from %s:%u)", raidsim_error (), path,
                         lines[ARRAY_CONTROLLER]);
      goto err;
    }
  }

  /* Let the geometry judge level, members, chunk and copies, so that
   * the simulator accepts exactly the arrays the plugin accepts; its
   * message starts with the key's name, and we add the key's line.
   */
  {
    uint64_t sizes[RAID_MAX_MEMBERS];
    struct raidsim_array_params ap;
    struct raidsim_array *a;

    raidsim_array_config_params (c, sizes, &ap);
    a = raidsim_array_new (&ap);
    if (a == NULL) {
      const char *msg = raidsim_error ();
      unsigned line = ini->sections[sec].line;
      static const struct { const char *prefix; unsigned idx; } keys[] = {
        { "level", ARRAY_LEVEL }, { "member", ARRAY_MEMBERS },
        { "chunk", ARRAY_CHUNK }, { "copies", ARRAY_COPIES },
      };

      for (i = 0; i < sizeof keys / sizeof keys[0]; ++i)
        if (strncmp (msg, keys[i].prefix, strlen (keys[i].prefix)) == 0 &&
            lines[keys[i].idx] != 0) {
          line = lines[keys[i].idx];
          break;
        }
      raidsim_set_error ("%s:%u: %s", path, line, msg);
      goto err;
    }
    raidsim_array_free (a);
  }

  /* Failed members and the background stream, once the shape is known;
   * the message starts with the key's name.
   */
  if (raidsim_sync_config_check (c) == -1) {
    raidsim_set_error ("%s:%u: %s", path,
                       key_line (lines, ini->sections[sec].line,
                                 raidsim_error ()), raidsim_error ());
    goto err;
  }

  raidsim_ini_free (ini);
  return c;

 err:
  raidsim_ini_free (ini);
  raidsim_array_config_free (c);
  return NULL;
}

const char *
raidsim_array_key_unused (int level, const char *key)
{
  bool single = level == RAIDSIM_LEVEL_SINGLE;

  if (strcmp (key, "chunk") == 0 && (single || level == RAID_LEVEL_1))
    return single ? "one drive has no stripes"
      : "a mirror has no stripes; every member holds the whole array";
  if (strcmp (key, "copies") == 0 && level != RAID_LEVEL_10)
    return level == RAID_LEVEL_1 ? "a mirror has one copy per member"
      : single ? "one drive has one copy" : "RAID 0 keeps one copy";
  if ((strcmp (key, "read-policy") == 0 ||
       strcmp (key, "read_policy") == 0) &&
      (single || level == RAID_LEVEL_0))
    return "there is one copy to read";
  return NULL;
}

int
raidsim_array_config_set (struct raidsim_array_config *ac,
                          const char *key_value)
{
  const char *eq = strchr (key_value, '=');
  const struct raidsim_param *p;
  struct raidsim_array_config *saved;
  char key[64];
  int r = -1;

  if (eq == NULL || eq == key_value || (size_t) (eq - key_value) >= sizeof key) {
    raidsim_set_error ("'%s' is not KEY=VALUE", key_value);
    return -1;
  }
  snprintf (key, sizeof key, "%.*s", (int) (eq - key_value), key_value);
  for (p = raidsim_array_keys; p->name; ++p)
    if (strcmp (p->name, key) == 0)
      break;
  if (p->name == NULL) {
    raidsim_set_error ("%s: not a key of an array file (see "
                       "'raidsim help config')", key);
    return -1;
  }
  if (p->offset == offsetof (struct raidsim_array_config, device) ||
      p->offset == offsetof (struct raidsim_array_config, controller) ||
      p->offset == offsetof (struct raidsim_array_config, members)) {
    raidsim_set_error ("%s: cannot be set here, since it changes which "
                       "files are loaded; edit the array file", key);
    return -1;
  }

  /* Parse into the config, then check it as a loaded file is checked;
   * put everything back if it fails.
   */
  saved = malloc (sizeof *saved);
  if (saved == NULL) {
    raidsim_set_error ("%s: %s", key, strerror (ENOMEM));
    return -1;
  }
  *saved = *ac;
  if (raidsim_param_parse (p, eq + 1, (char *) ac + p->offset) == 0) {
    uint64_t sizes[RAID_MAX_MEMBERS];
    struct raidsim_array_params ap;
    struct raidsim_array *a;

    raidsim_array_config_params (ac, sizes, &ap);
    a = raidsim_array_new (&ap);
    if (a != NULL) {
      raidsim_array_free (a);
      r = raidsim_sync_config_check (ac);
    }
  }
  if (r == -1)
    *ac = *saved;
  free (saved);
  return r;
}

static void
print_section (FILE *fp, const struct raidsim_param *table, const void *base)
{
  const struct raidsim_param *p;
  char buf[RAIDSIM_STR_MAX + 64];

  for (p = table; p->name; ++p) {
    raidsim_param_format (p, (const char *) base + p->offset, buf, sizeof buf);
    fprintf (fp, "%s = %s\n", p->name, buf);
  }
}

void
raidsim_array_config_print (FILE *fp, const struct raidsim_array_config *ac)
{
  unsigned i;

  fprintf (fp, "; %s\n[array]\n", ac->path);
  /* The read policy in effect: for "controller", the controller's. */
  {
    struct raidsim_array_config *eff = malloc (sizeof *eff);

    if (eff) {
      *eff = *ac;
      eff->read_policy = raidsim_array_config_read_policy (ac);
      print_section (fp, raidsim_array_keys, eff);
      free (eff);
    }
    else
      print_section (fp, raidsim_array_keys, ac);
  }
  for (i = 0; i < ac->members; ++i) {
    const struct raidsim_device_config *d = ac->devices[i];

    fprintf (fp, "\n; member %u: %s\n[device]\n", i, d->path);
    print_section (fp, raidsim_device_common_params, d);
    print_section (fp, d->ops->params, d->params);
  }
  fprintf (fp, "\n; %s\n[controller]\n", ac->ctl->path);
  print_section (fp, raidsim_controller_common_params, ac->ctl);
  print_section (fp, ac->ctl->ops->params, ac->ctl->params);
}

static void
heading (FILE *fp, bool markdown, int level, const char *fs, const char *arg)
{
  if (markdown) {
    fprintf (fp, "\n%.*s ", level, "####");
    fprintf (fp, fs, arg);
    fprintf (fp, "\n\n");
  }
  else {
    fprintf (fp, "\n");
    fprintf (fp, fs, arg);
    fprintf (fp, "\n");
  }
}

void
raidsim_config_reference (FILE *fp, bool markdown)
{
  const struct raidsim_device_ops *const *d;
  const struct raidsim_controller_ops *const *c;

  if (markdown)
    fprintf (fp,
             "<!-- Generated by `raidsim config --markdown`; do not edit.\n"
             "     Regenerate: build/raidsim/raidsim config --markdown "
             "> docs/config-reference.md -->\n"
             "# raidsim configuration reference\n"
             "\n"
             "Every key of every simulator config file, and the fio options "
             "that `raidsim run` reads from a job file.  An unknown key, a "
             "key given twice in a section, and a value out of range are "
             "errors reported as `FILE:LINE: KEY: what is wrong`.  Paths in "
             "an array file are relative to that file; a file not found "
             "there is looked for by name in the data directories "
             "(`raidsim list`).\n"
             "\n"
             "Config files are INI: `[section]` headers, `key = value` lines, "
             "and comments that start with `;` or `#` at the start of a line "
             "or after a blank.\n");
  else
    fprintf (fp,
             "raidsim config files: every key, its type, default and range.\n"
             "Also in docs/config-reference.md.\n");

  heading (fp, markdown, 2, "%s", markdown ? "Array files: `[array]`"
           : "[array]  (configs/arrays/)");
  raidsim_params_doc (fp, raidsim_array_keys, markdown);

  heading (fp, markdown, 2, "%s", markdown ? "Device files: `[device]`"
           : "[device]  (configs/devices/)");
  raidsim_params_doc (fp, raidsim_device_common_params, markdown);
  for (d = raidsim_device_models; *d; ++d) {
    char title[256];

    snprintf (title, sizeof title,
              markdown ? "`model = %s`: %s" : "model = %s: %s",
              (*d)->name, (*d)->summary);
    heading (fp, markdown, 3, "%s", title);
    raidsim_params_doc (fp, (*d)->params, markdown);
  }

  heading (fp, markdown, 2, "%s", markdown ? "Controller files: `[controller]`"
           : "[controller]  (configs/controllers/)");
  raidsim_params_doc (fp, raidsim_controller_common_params, markdown);
  for (c = raidsim_controller_models; *c; ++c) {
    char title[256];

    snprintf (title, sizeof title,
              markdown ? "`model = %s`: %s" : "model = %s: %s",
              (*c)->name, (*c)->summary);
    heading (fp, markdown, 3, "%s", title);
    raidsim_params_doc (fp, (*c)->params, markdown);
  }

  heading (fp, markdown, 2, "%s", markdown ? "fio job files (the subset)"
           : "fio job files (configs/workloads/): the subset raidsim reads");
  if (markdown)
    fprintf (fp,
             "`[global]` sets defaults for the job sections after it; every "
             "other section is a job, and all jobs run at once.  fio's other "
             "options are noted (accepted, with no effect on the model) or "
             "refused: docs/fio-jobs.md lists which, and why.  Numbers take "
             "fio's "
             "suffixes with fio's default meaning (`kb_base=1024`): `4k` and "
             "`4kb` are 4096, while `4kib` is 4000, the reverse of IEC, "
             "which fio keeps for old job files.  A `numjobs` job is reported "
             "as one job, as with fio's `group_reporting`.\n\n");
  raidsim_params_doc (fp, raidsim_fio_params, markdown);
}
