/*
 * local.h - the local-directory libservice's own calls, for its tests:
 * the service reaches it only as the registry's "local" (libservice.h).
 */
#ifndef DANAUS_LOCAL_H
#define DANAUS_LOCAL_H

#include "fsservice/libservice/libservice.h"

/* An instance over the host directory root_dir, or NULL with a line for
 * the operator in err. */
struct ls_instance *local_instance_new(const char *root_dir, char *err,
                                       size_t errlen);
/* Lets local files be cached (cache_hold), announcing their changes to
 * sink: read leases (lease.c). Before serving; 0 or -errno. */
int local_backend_enable_cache(const struct ls_change_sink *sink);

#endif
