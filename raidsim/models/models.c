/* raidsim: the registry of device and controller models.  Adding a
 * model is one file under devices/ or controllers/ and one line here;
 * the config parser, `raidsim help config` and the config reference all
 * find it through these lists.
 */

#include <stddef.h>
#include <string.h>

#include "raidsim/controller.h"
#include "raidsim/device.h"
#include "raidsim/error.h"

const struct raidsim_device_ops *const raidsim_device_models[] = {
  &raidsim_device_fixed,
  &raidsim_device_hdd,
  &raidsim_device_flash,
  NULL,
};

const struct raidsim_controller_ops *const raidsim_controller_models[] = {
  &raidsim_controller_generic,
  NULL,
};

/* A model built for another version of the interface is refused by
 * name, the way fio refuses an ioengine with the wrong version.
 */
const struct raidsim_device_ops *
raidsim_device_find (const char *name)
{
  const struct raidsim_device_ops *const *m;

  for (m = raidsim_device_models; *m; ++m) {
    if (strcmp ((*m)->name, name) != 0)
      continue;
    if ((*m)->version != RAIDSIM_DEVICE_OPS_VERSION) {
      raidsim_set_error ("model: device model '%s' has interface version "
                         "%d, raidsim needs %d", name, (*m)->version,
                         RAIDSIM_DEVICE_OPS_VERSION);
      return NULL;
    }
    return *m;
  }
  raidsim_set_error ("model: '%s' is not a device model", name);
  return NULL;
}

const struct raidsim_controller_ops *
raidsim_controller_find (const char *name)
{
  const struct raidsim_controller_ops *const *m;

  for (m = raidsim_controller_models; *m; ++m) {
    if (strcmp ((*m)->name, name) != 0)
      continue;
    if ((*m)->version != RAIDSIM_CONTROLLER_OPS_VERSION) {
      raidsim_set_error ("model: controller model '%s' has interface "
                         "version %d, raidsim needs %d", name,
                         (*m)->version, RAIDSIM_CONTROLLER_OPS_VERSION);
      return NULL;
    }
    return *m;
  }
  raidsim_set_error ("model: '%s' is not a controller model", name);
  return NULL;
}
