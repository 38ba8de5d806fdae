/*
 * service.h - the connection to danausd: the door socket, the shared
 * segment and the mount table, set up once per process on first use.
 *
 * After the service is found gone (door hang-up), every call fails with
 * ENOTCONN at once.
 */
#ifndef LIBFS_SERVICE_H
#define LIBFS_SERVICE_H

#include "mounts.h"

#include <ipc/ipc.h>
#include <stdbool.h>
#include <stdint.h>

struct service {
    int door;
    uint32_t client_id;
    struct ipc_segment seg;
    struct mount_table mounts;
};

/* The connected service, connecting on first use; NULL with errno ENOTCONN
 * when it cannot be reached or is gone. */
const struct service *service_get(void);

/* The mount table, connecting on first use; still there after the service
 * is gone (calls on its paths then fail with ENOTCONN rather than reach the
 * kernel). NULL if the service was never reached. Keeps errno. */
const struct mount_table *service_mounts(void);

/* ipc_alive_fn: false once the door has hung up (and from then on). */
bool service_alive(void *arg);

/* One door request and its reply, serialized with other threads'.
 * 0 with *value set, or an errno. */
int service_door(uint32_t op, uint32_t arg, uint32_t *value);

#endif
