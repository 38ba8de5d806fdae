/*
 * stuck_shim.c - the blocking mkdir of danausd_stuck (stuck_shim.h).
 *
 * Built without the forced include, so local_instance_new here is the real
 * local backend.
 */
#include "fsservice/libservice/libservice.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ls_instance *stuck_local_instance_new(const char *root, char *err,
                                             size_t errlen);

static struct ls_ops stuck_ops;

static _Noreturn void block_forever(void)
{
    for (;;)
        pause();
}

static int mkdir_forever(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *path, mode_t mode)
{
    (void)inst, (void)cred, (void)path, (void)mode;
    block_forever();
}

struct ls_instance *stuck_local_instance_new(const char *root, char *err,
                                             size_t errlen)
{
    struct ls_instance *inst = local_instance_new(root, err, errlen);
    const char *stuck = getenv("DANAUS_STUCK_ROOT");
    if (inst && stuck && strcmp(stuck, root) == 0) {
        /* The same instance with one operation swapped: its own
         * operations still get the instance they expect. */
        stuck_ops = *inst->ops;
        stuck_ops.mkdir = mkdir_forever;
        inst->ops = &stuck_ops;
    }
    return inst;
}
