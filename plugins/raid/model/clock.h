/* nbdkit-raid-plugin: how model='s threads keep time (clock.c): the
 * clock, and the waits of the timing thread and of the request threads
 * that wait for a completion time: 1 ns of timer slack, SCHED_FIFO where
 * it is allowed, a sleep to just before the time and a spin to it.
 */
#ifndef RAID_MODEL_CLOCK_H
#define RAID_MODEL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC, in ns. */
extern uint64_t clock_ns (void);

/* The calling thread keeps time from now on (who names it in the debug
 * log if SCHED_FIFO is refused).
 */
extern void clock_realtime_thread (const char *who);

/* Sleep to just before abs (CLOCK_MONOTONIC ns), then spin the last
 * spin ns to it; returns the clock then.  A request thread's first
 * call makes it keep time (clock_realtime_thread).
 */
extern uint64_t clock_wait_until (uint64_t abs, uint64_t spin);

/* -D raid.timing_rt=0 (clock.c). */
extern int raid_debug_timing_rt;

#endif /* RAID_MODEL_CLOCK_H */
