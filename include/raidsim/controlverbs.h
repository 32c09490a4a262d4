/* raidsim: the verbs of the raid plugin's control socket (control=PATH),
 * described once, for the server (plugins/raid/ctl/verbs.c), which
 * checks each request against them, and for `raidsim control`
 * (raidsim/cli/cmd-control.c), whose help lists them.  Header-only, as
 * the table is all there is.
 *
 * The protocol: the client connects to the Unix socket, sends one line,
 * "VERB [ARG...]" (at most CONTROL_LINE_MAX bytes with its newline), and
 * reads one line back, a JSON object: on failure {"error": "..."}, on
 * success the array's detail (ctl/detail.c) with a "message" member.
 */
#ifndef RAIDSIM_CONTROLVERBS_H
#define RAIDSIM_CONTROLVERBS_H

#define CONTROL_LINE_MAX 1024

enum control_verb {
  CV_DETAIL, CV_STATUS, CV_FAIL, CV_REMOVE, CV_ADD,
  CV_CHECK, CV_REPAIR, CV_IDLE,
};

struct control_verb_desc {
  const char *name;
  unsigned min_args, max_args;
  const char *syntax;           /* the arguments, for help */
  const char *mdadm;            /* what an md user would type */
  const char *help;
};

static const struct control_verb_desc control_verbs[] = {
  [CV_DETAIL] = { "detail", 0, 0, "", "mdadm --detail; cat /proc/mdstat",
                  "the array, its members and its sync action" },
  [CV_STATUS] = { "status", 0, 0, "", "cat /proc/mdstat",
                  "the same as detail" },
  [CV_FAIL] = { "fail", 1, 1, "MEMBER", "mdadm --fail",
                "mark it faulty, as an I/O error would; never the last "
                "copy" },
  [CV_REMOVE] = { "remove", 1, 1, "MEMBER", "mdadm --remove",
                  "close a faulty member and empty its role" },
  [CV_ADD] = { "add", 1, 3, "MEMBER [--replace [OLD]]",
               "mdadm --add / --re-add; --replace OLD --with MEMBER",
               "add a spare (re-add a member from the bitmap); --replace: "
               "take a failed role now, or rebuild it as OLD's "
               "replacement while OLD serves" },
  [CV_CHECK] = { "check", 0, 0, "",
                 "echo check > /sys/block/mdX/md/sync_action",
                 "compare every copy; count mismatch_cnt" },
  [CV_REPAIR] = { "repair", 0, 0, "",
                  "echo repair > /sys/block/mdX/md/sync_action",
                  "as check, and rewrite differing copies from the first" },
  [CV_IDLE] = { "idle", 0, 0, "",
                "echo idle > /sys/block/mdX/md/sync_action",
                "stop a running check or repair" },
};

#define CONTROL_NVERBS (sizeof control_verbs / sizeof control_verbs[0])

#endif /* RAIDSIM_CONTROLVERBS_H */
