/*
 * fuse_keeper.h - FUSE mounts that outlive their service.
 *
 * The kernel keeps a FUSE connection, with every request waiting on it,
 * for as long as one descriptor of its /dev/fuse stays open. So each
 * danausd with a FUSE door starts a keeper: a small process (danausd
 * --keeper, one per service) that it hands every mount it serves: the
 * /dev/fuse descriptor, the areas holding the node and handle tables
 * (fuse_nodes.h, fuse_handles.h), the kernel's INIT request, and, for a
 * mount the engine added at run time, the request that added it. A clean
 * stop says goodbye and the keeper leaves. When the service dies instead,
 * its mounts stay; programs using them wait. The next danausd of the same
 * service (same rundir and name), started by an operator, a supervisor or
 * the keeper itself (config restart on), claims them from the keeper's
 * socket, <rundir>/<service>.keeper, before it mounts anything: it adopts
 * the tables, replays INIT to its own libfuse session, and asks the kernel
 * to send again the requests the dead service had read but not answered
 * (FUSE_NOTIFY_RESEND, Linux 6.9). Those requests run a second time: a
 * mkdir, an exclusive create or an unlink the dead service had done
 * answers EEXIST or ENOENT. Mounts nobody claims within fuse_keep seconds
 * are closed and detached, as they were before keepers: their programs
 * get ENOTCONN.
 *
 * The keeper also holds what a kill must not lose of the writes the
 * preload's clients keep back (core/kept.h): each such client's area and a
 * descriptor of each file it keeps writes of. The claimer gets them with
 * the mounts and writes the pages before it lets a client in
 * (writeback_recover); nobody claiming them within fuse_keep seconds, they
 * are lost with the keeper, as the mounts are.
 *
 * The keeper's socket is open only to the service's own user (and root):
 * whoever claims the mounts serves them.
 */
#ifndef DANAUS_FUSE_KEEPER_H
#define DANAUS_FUSE_KEEPER_H

#include "fuse_export.h"
#include "fsservice/core/config.h"
#include "fsservice/core/kept.h"

#include <limits.h>
#include <stddef.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define KEEPER_SPEC_MAX 16384
#define KEEPER_VIEW_MAX 8192

enum keeper_op {
    KEEPER_KEEP = 1, /* service -> keeper, keeper -> claimer: one mount */
    KEEPER_DROP,     /* service -> keeper: mount `index` is gone */
    KEEPER_BYE,      /* service -> keeper: a clean stop */
    KEEPER_CLAIM,    /* claimer -> keeper */
    KEEPER_END,      /* keeper -> claimer: no more mounts */
    KEEPER_WRITE,    /* service -> keeper, keeper -> claimer: kept.h */
};

/* One message; KEEP carries four descriptors (/dev/fuse, the node, handle
 * and done-request areas), and a fifth, the container's mount namespace,
 * when the mount is a container's root with a view (views.h). WRITE is
 * the message up to `write` included (KEEPER_WRITE_LEN bytes), with the
 * area's or the file's descriptor for KEPT_AREA and KEPT_FILE. */
struct keeper_msg {
    uint32_t op;
    uint32_t index;
    uint32_t init_len;
    uint32_t spec_len;
    uint32_t view_len;
    uint32_t flags; /* KEEP: KEPT_UNTIL_DEATH */
    struct kept_write write;
    char mountpoint[PATH_MAX];
    unsigned char init[FUSE_EXPORT_INIT_MAX];
    char spec[KEEPER_SPEC_MAX]; /* the engine's MOUNT_ADD message */
    char view[KEEPER_VIEW_MAX]; /* its VIEW message of this root */
};

#define KEEPER_WRITE_LEN offsetof(struct keeper_msg, mountpoint)

enum { KEPT_FUSE, KEPT_NODES, KEPT_HANDLES, KEPT_DONE, KEPT_NS, KEPT_FDS };

/* A mount no successor can take (its requests come over io_uring,
 * fuse_uring.h): the keeper lets go of it and detaches it when the
 * service dies, as with fuse_keep 0. */
#define KEPT_UNTIL_DEATH 1u

/* A mount claimed from a dead service's keeper. */
struct kept_mount {
    struct keeper_msg msg;
    int fds[KEPT_FDS]; /* -1 once taken, or when not sent */
};

/* The keeper of this service. A keeper that dies (killed) is replaced at
 * once by a watching thread, which has every mount handed to the new one
 * (rekeep), so that a later crash of the service still loses nothing. */
struct keeper_link {
    pthread_mutex_t lock; /* the channel's messages and its replacing */
    int fd;               /* the channel; -1 when there is no keeper */
    pid_t pid;
    const struct config *cfg;
    char *const *argv;
    void (*rekeep)(void *arg);
    void *arg;
    pthread_t watcher;
    bool watching, stopping;
    /* What the keeper holds of kept writes (keeper_write), to hand a new
     * keeper: descriptors owned by their client or file, which forget
     * them here before they close. */
    struct kept_list writes;
};

/* What a dead service of the same rundir and name left with its keeper:
 * its mounts, *kept (malloc'd, *nkept entries), and its kept writes,
 * *writes (owned), both empty when there is no keeper or it refused
 * (its service still runs; said on stderr). 0, or -1 when out of memory. */
int keeper_claim(const struct config *cfg, struct kept_mount **kept,
                 int *nkept, struct kept_list *writes);

/* Starts this service's keeper, which restarts argv (this program's)
 * when cfg says restart on, and the thread that replaces it should it die
 * and then calls rekeep(arg). 0 or -1 (errno; said on stderr). */
int keeper_start(struct keeper_link *k, const struct config *cfg,
                 char *const argv[], void (*rekeep)(void *arg), void *arg);

/* Hands mount `index`, served through ex, to the keeper. */
void keeper_keep(struct keeper_link *k, const struct fuse_export *ex,
                 uint32_t index);
void keeper_drop(struct keeper_link *k, uint32_t index);
/* Hands the keeper a change of what it holds of kept writes (kept.h). */
void keeper_write(struct keeper_link *k, const struct kept_write *w, int fd);
/* A clean stop: the keeper lets go of everything and leaves. */
void keeper_bye(struct keeper_link *k);

/* Closes what kept still holds of a mount nobody took. */
void kept_mount_release(struct kept_mount *m);

/* The keeper process: danausd --keeper ... (started by keeper_start). */
int keeper_main(int argc, char **argv);

#endif
