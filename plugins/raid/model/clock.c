/* nbdkit-raid-plugin: how model='s threads keep time (see clock.h). */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

#define NBDKIT_API_VERSION 2
#include <nbdkit-plugin.h>

#include "raidsim/engine.h"
#include "clock.h"

/* -D raid.timing_rt=0: leave the scheduling policy alone (see
 * realtime_thread).
 */
NBDKIT_DLL_PUBLIC int raid_debug_timing_rt = 1;
uint64_t
clock_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t) ts.tv_sec * RAIDSIM_NS_PER_S + ts.tv_nsec;
}

/* The threads that keep time: the timing thread, and each of nbdkit's
 * threads that waits for a completion time, from its first wait on (a
 * policy switched back and forth would cost two system calls a
 * request; these threads only ever serve the array).  On a busy machine a
 * thread woken at its time under the normal policy runs when the
 * scheduler gets round to it, milliseconds later under load; SCHED_FIFO
 * (priority 1, the lowest real-time one) runs it at once.  They sleep
 * almost all the time and spin at most raid.timing_spin_us at a time
 * (clock_wait_until),
 * and the kernel's real-time throttling (sched_rt_runtime_us) still
 * leaves the rest of the machine its share.  Where the policy is not
 * allowed (no CAP_SYS_NICE, RLIMIT_RTPRIO 0) the thread stays as it
 * was, and the precision is what the normal policy gives; the debug log
 * says which.  1 ns of timer slack in both cases, where the default is
 * 50 us.
 */
void
clock_realtime_thread (const char *who)
{
  struct sched_param sp = { .sched_priority = 1 };
  int err = 0;

  prctl (PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  if (raid_debug_timing_rt)
    err = pthread_setschedparam (pthread_self (), SCHED_FIFO, &sp);
  if (err)
    nbdkit_debug ("raid: model=: %s keeps the normal scheduling policy: "
                  "SCHED_FIFO: %s", who, strerror (err));
}

uint64_t
clock_wait_until (uint64_t abs, uint64_t spin)
{
  static __thread bool slack_set;
  uint64_t now;

  if (!slack_set) {
    clock_realtime_thread ("a request thread");
    slack_set = true;
  }
  now = clock_ns ();
  if (now + spin < abs) {
    struct timespec ts = {
      .tv_sec = (abs - spin) / RAIDSIM_NS_PER_S,
      .tv_nsec = (abs - spin) % RAIDSIM_NS_PER_S,
    };
    while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)
           == EINTR)
      ;
  }
  /* Spinning, let the others that spin or wait for a CPU (request
   * threads of other completions, under the same SCHED_FIFO priority)
   * have it, but for the last microseconds.
   */
  while ((now = clock_ns ()) < abs) {
    if (abs - now > 3 * RAIDSIM_NS_PER_US)
      sched_yield ();
    else
      __builtin_ia32_pause ();
  }
  return now;
}
