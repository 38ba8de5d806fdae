/*
 * fuse_handles.h - the files and directories the kernel holds open through
 * one FUSE export.
 *
 * The handle the kernel is given (libfuse's fh) is the index of a record
 * in a record area (record_area.h) saying what it stands for: the node,
 * the inode and the open flags. The backend's open file lives in this
 * process only, beside the record. A danausd that adopts the area of a
 * dead one (fuse_keeper.h) has the records without the files: fuse_ops.c
 * opens each again by its node's path the first time the kernel uses the
 * handle, and checks that the path still names the same inode.
 *
 * Open files are also found by inode (a program running from the door,
 * fuse_door_exec_busy) and by node (the attributes of an unlinked file).
 */
#ifndef DANAUS_FUSE_HANDLES_H
#define DANAUS_FUSE_HANDLES_H

#include "record_area.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct ls_file;

/* What a handle stands for. */
struct fuse_handle {
    uint64_t node;
    uint64_t ino;
    int flags; /* as the backend was given them */
    bool dir;
    bool exec; /* opened by execve: a running program's text */
};

struct fuse_handles {
    pthread_mutex_t lock;
    struct record_area area;
    struct ls_file **files; /* per handle, NULL until opened here */
    uint64_t top;           /* one past the highest handle in use */
    struct free_ids free;
    /* Files (not directories) held, and of them, by execve; read without
     * the lock so the preload path pays nothing while none is held. */
    atomic_int nopen;
    atomic_int nexec;
};

/* A new, empty table in an area of its own: 0 or -errno. */
int fuse_handles_init(struct fuse_handles *h);

/* The table in area fd, written by a previous service (fd now belongs to
 * h): every handle without its file. writes_lost: the backend kept writes
 * in the dead service's memory (a Ceph client's object cache), so a file
 * handle written since its last fsync may have lost those writes: its
 * next fsync fails with EIO. 0, or -EINVAL. */
int fuse_handles_adopt(struct fuse_handles *h, int fd, bool writes_lost);

int fuse_handles_fd(const struct fuse_handles *h);

/* Closes the files still held (the kernel never released them) with
 * close_file and frees the table. */
void fuse_handles_free(struct fuse_handles *h,
                       void (*close_file)(struct ls_file *));

/* A handle for file, open as what says: the handle, or 0 when out of
 * handles or memory. */
uint64_t fuse_handles_add(struct fuse_handles *h,
                          const struct fuse_handle *what,
                          struct ls_file *file);

/* What handle fh stands for into *what and its file into *file (NULL when
 * not opened in this process yet): 0, or -EBADF for a handle not given. */
int fuse_handles_get(struct fuse_handles *h, uint64_t fh,
                     struct fuse_handle *what, struct ls_file **file);

/* Gives handle fh the file just opened for it, unless a concurrent call
 * did first: returns the handle's file, which the caller uses (and closes
 * its own if that is not it). */
struct ls_file *fuse_handles_set(struct fuse_handles *h, uint64_t fh,
                                 struct ls_file *file);

/* Ends handle fh: returns its file (NULL if none) for the caller to
 * close. */
struct ls_file *fuse_handles_remove(struct fuse_handles *h, uint64_t fh);

/* A write through handle fh begins: it counts as not synced until an fsync
 * through fh that began after it succeeds. Kept in the area, so that the
 * next service knows (fuse_handles_adopt). */
void fuse_handles_writing(struct fuse_handles *h, uint64_t fh);

/* Before an fsync through fh: -EIO, once, when a dead service may have
 * lost writes to its file (through any handle of the inode); else 0, with
 * *mark for fuse_handles_synced. */
int fuse_handles_sync_begin(struct fuse_handles *h, uint64_t fh,
                            uint32_t *mark);

/* The fsync that began with mark succeeded: unless fh wrote again since,
 * nothing of it is left to lose. */
void fuse_handles_synced(struct fuse_handles *h, uint64_t fh, uint32_t mark);

/* Whether a file of inode ino is held (by execve, when exec_only); its
 * node goes to *node unless NULL. */
bool fuse_handles_find(struct fuse_handles *h, uint64_t ino, bool exec_only,
                       uint64_t *node);

/* Calls fn on a file open here on node, under the table's lock: fn's
 * result, or -ESTALE when there is none. */
int fuse_handles_on_node(struct fuse_handles *h, uint64_t node,
                         int (*fn)(struct ls_file *, void *), void *arg);

#endif
