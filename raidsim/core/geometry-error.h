/* raidsim/core: the per-thread error message that raid_geom_error ()
 * returns, set by every function of the core that can fail.  Private to
 * raidsim/core.
 */
#ifndef RAIDSIM_CORE_GEOMETRY_ERROR_H
#define RAIDSIM_CORE_GEOMETRY_ERROR_H

extern void raid_set_error (const char *fs, ...)
  __attribute__ ((format (printf, 1, 2)));

#endif
