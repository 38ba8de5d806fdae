/*
 * stuck_shim.c - a fault for tests: a shim registered as "local" in
 * danausd_stuck, a test build of fsservice/main.c (faults.cmake), over the
 * real local backend. Every local instance the service makes comes
 * through it (configured mounts, mounts added through the door, union
 * branches); for the root named by the environment variable
 * DANAUS_STUCK_ROOT it swaps the instance's mkdir, its open of names
 * beginning "stuck-open" and its writes of bytes beginning "stuck-before"
 * (blocked before writing) or "stuck-after" (after), for ones that block
 * their thread until the process ends, as a libcephfs call to an MDS that
 * never answers does (so its name space is not the kernel's:
 * libservice.h). The production danausd has no trace of it.
 */
#include "fsservice/libservice/libservice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct ls_ops stuck_ops;
static int (*local_ops_open)(struct ls_instance *, const struct ls_cred *,
                             const char *, int, mode_t, struct ls_file **);
static ssize_t (*local_ops_pwrite)(struct ls_file *, const struct ls_cred *,
                                   const void *, size_t, off_t, off_t *);

/* Says so on stderr first (the service's log), so that a test knows
 * when a request has reached the backend. */
static _Noreturn void block_forever(const char *what)
{
    fprintf(stderr, "danausd_stuck: %s blocks for good\n", what);
    for (;;)
        pause();
}

static int mkdir_forever(struct ls_instance *inst, const struct ls_cred *cred,
                         const char *path, mode_t mode)
{
    (void)inst, (void)cred, (void)path, (void)mode;
    block_forever("a mkdir");
}

/* Opens of "stuck-open..." never return either; other opens do. */
static int open_stuck_or_real(struct ls_instance *inst,
                              const struct ls_cred *cred, const char *path,
                              int flags, mode_t mode, struct ls_file **out)
{
    if (strncmp(path, "stuck-open", 10) == 0)
        block_forever("an open");
    return local_ops_open(inst, cred, path, flags, mode, out);
}

/* Writes of bytes that begin "stuck-before" never return and write
 * nothing; of "stuck-after", never return once written; others do. */
static ssize_t pwrite_stuck_or_real(struct ls_file *f,
                                    const struct ls_cred *cred,
                                    const void *buf, size_t n, off_t off,
                                    off_t *end)
{
    if (n >= 12 && memcmp(buf, "stuck-before", 12) == 0)
        block_forever("a write, before writing");
    ssize_t r = local_ops_pwrite(f, cred, buf, n, off, end);
    if (n >= 11 && memcmp(buf, "stuck-after", 11) == 0)
        block_forever("a write, after writing");
    return r;
}

/* The real local backend's instance, swapped for DANAUS_STUCK_ROOT. */
static struct ls_instance *stuck_instance_new(struct ls_backend *b,
                                              const char *root, char *err,
                                              size_t errlen)
{
    struct ls_backend *local = b->arg;
    struct ls_instance *inst = local->instance_new(local, root, err, errlen);
    const char *stuck = getenv("DANAUS_STUCK_ROOT");
    if (inst && stuck && strcmp(stuck, root) == 0) {
        /* The same instance with one operation swapped: its own
         * operations still get the instance they expect. */
        stuck_ops = *inst->ops;
        local_ops_open = inst->ops->open;
        local_ops_pwrite = inst->ops->pwrite;
        stuck_ops.mkdir = mkdir_forever;
        stuck_ops.open = open_stuck_or_real;
        stuck_ops.pwrite = pwrite_stuck_or_real;
        inst->ops = &stuck_ops;
        /* It stands for a server that never answers, whose calls the
         * service hands its queue on for (blocking.h). */
        inst->kernel_name_space = false;
    }
    return inst;
}

static struct ls_backend stuck_backend = {
    .name = "local",
    .instance_new = stuck_instance_new,
};

/* Before main: the shim hides the local backend it wraps. */
__attribute__((constructor)) static void stuck_register(void)
{
    stuck_backend.arg = ls_backend_find("local");
    ls_backend_register(&stuck_backend);
}
