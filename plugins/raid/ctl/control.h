/* nbdkit-raid-plugin: the control socket, control=PATH (control.c): an
 * md user's mdadm --detail, --fail, --remove, --add and sync_action,
 * over a Unix socket, one request line and one JSON reply per
 * connection (verbs.h; include/raidsim/controlverbs.h for the verbs and
 * the protocol).
 *
 * Who may use it: the socket is made with mode 0600 (under a umask of
 * 0177, so it is never wider, not even between bind and chmod), and a
 * peer whose uid (SO_PEERCRED) is neither the server's effective uid
 * nor root is refused before its request is read.  Root is let in since
 * it can read and write the member images, and signal or trace the
 * server, anyway: refusing it protects nothing, and root is who runs
 * mdadm.
 *
 * A request that is malformed, too long (CONTROL_LINE_MAX), of an
 * unknown verb or of the wrong arguments gets {"error": ...} and changes
 * nothing.  The verbs that change the array (fail, remove, check,
 * repair) wait for the array to be running (the first client
 * connection has started it, raid_preconnect), as md's only act on a
 * running array.
 */
#ifndef RAID_CTL_CONTROL_H
#define RAID_CTL_CONTROL_H

#include "md/state.h"

/* At config time: make the socket at path (replacing a stale socket
 * left by a server that is gone, refusing anything else).  Returns 0,
 * or -1 after nbdkit_error ("control: ...").
 */
extern int control_open (const char *path, struct raid_array *a);
/* After nbdkit's fork: start the listener thread. */
extern int control_start (void);
/* At unload: stop the thread, close and unlink the socket. */
extern void control_stop (void);


#endif /* RAID_CTL_CONTROL_H */
