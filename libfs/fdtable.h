/*
 * fdtable.h - the library's descriptor table: which descriptor numbers are
 * Danaus files, and the service handle, mount and path behind each.
 *
 * Every Danaus descriptor number is held in the kernel's descriptor table by
 * a placeholder (a dup of /dev/null opened O_PATH, or the file itself where
 * the service passed it: fd_info.direct), so the process never
 * gets the same number from the kernel for something else, and read/write
 * on it through the kernel fail with EBADF instead of silently succeeding.
 * The Danaus descriptor number is the placeholder's number; its
 * close-on-exec flag is the placeholder's too.
 *
 * Lookups are lock-free (they sit on every read and write); changes take a
 * mutex. No service calls are made here: callers open and close handles.
 */
#ifndef LIBFS_FDTABLE_H
#define LIBFS_FDTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Descriptor numbers the table can hold: 0 .. FDTABLE_MAX - 1. */
#define FDTABLE_PAGE_BITS 10
#define FDTABLE_PAGES 1024
#define FDTABLE_MAX (FDTABLE_PAGES << FDTABLE_PAGE_BITS)

struct fd_info {
    uint64_t handle;
    uint32_t mount;
    uint32_t epoch; /* the service the handle belongs to (service.h) */
    /* The descriptor is the file itself, passed by the service (wire.h
     * danaus_pass) in place of a placeholder: reads and seeks go to the
     * kernel, everything else to the handle. */
    bool direct;
};

/* The handle of a descriptor whose file could not be opened again after a
 * service restart (resume.c): calls on it fail with EIO; close works.
 * Never a service handle (their generations stay below 2^31). */
#define FDTABLE_LOST UINT64_MAX

/* Opens a placeholder and returns its number, or -1 with errno. */
int fdtable_reserve(bool cloexec);

/* Closes a placeholder that was reserved but never inserted. */
void fdtable_unreserve(int fd);

/* Records a Danaus file at the reserved number fd; path is the absolute
 * normalized path it was opened with, flags the open flags (O_CLOEXEC
 * aside), ino its inode number as the open answered it (0: not known).
 * 0 or -1 with errno (EBADF, ENOMEM). */
int fdtable_insert(int fd, const struct fd_info *info, const char *path,
                   int flags, uint64_t ino);

/* Lock-free: true and *out filled when fd is a Danaus descriptor. */
bool fdtable_lookup(int fd, struct fd_info *out);

/* Copies the path fd was opened with. 0, or -1 with errno EBADF (not a
 * Danaus descriptor) or ENAMETOOLONG. */
int fdtable_path(int fd, char *out, size_t size);

/* After this process renamed from to to (absolute, normalized): the
 * descriptors opened by a path at or below from now have it at or below
 * to, as the kernel's descriptors follow their file. */
void fdtable_renamed(const char *from, const char *to);

/* Forgets fd and closes its placeholder; *old gets what fd held. 1 when
 * fd was the last descriptor of its handle (the caller closes it on the
 * service), 0 when a dup still holds it, -1 with errno EBADF. */
int fdtable_remove(int fd, struct fd_info *old);

/* Makes a Danaus descriptor that shares oldfd's handle, path and open-file
 * record (a dup is the same open file, so no service call is needed), at
 * the lowest free number (dup), the lowest at or above minfd (F_DUPFD),
 * or at newfd (dup2, dup3: whatever the kernel had at newfd is closed).
 * cloexec sets close-on-exec. When newfd held the last descriptor of
 * another handle, *replaced gets it and *close_replaced is true, for the
 * caller to close it on the service. Returns the new number or -1 with
 * errno. */
int fdtable_dup(int oldfd);
int fdtable_dupfd(int oldfd, int minfd, bool cloexec);
int fdtable_dup3(int oldfd, int newfd, bool cloexec, struct fd_info *replaced,
                 bool *close_replaced);

/* dup3(oldfd, newfd, flags) for a kernel oldfd: newfd gets the kernel's
 * copy and stops being a Danaus descriptor; when it held the last
 * descriptor of a handle, *replaced gets it and *close_replaced is true,
 * for the caller to close it. Returns newfd, or -1 with the kernel's errno
 * (newfd unchanged). */
int fdtable_kernel_dup3(int oldfd, int newfd, int flags,
                        struct fd_info *replaced, bool *close_replaced);

/* Whether any descriptor holds a service handle (a lost one does not). */
bool fdtable_holds_handles(void);

/* Around fork (proc.c): a child must not inherit the table's lock held by
 * one of the parent's other threads, nor an entry half written. */
void fdtable_hold(void);
void fdtable_release(void);

/*
 * What a restarted service needs to open a descriptor again (resume.c).
 * The service keeps each open file's offset; the library keeps a copy of
 * it per descriptor, from the answers that move it (ipc.h), and whether
 * data was written since the last fsync. Descriptors made by dup share an
 * origin and a handle: one open file, opened once again for all of them.
 */
void fdtable_note_pos(int fd, int64_t pos);
void fdtable_note_flags(int fd, int status_flags); /* F_SETFL's */
void fdtable_note_written(int fd);
void fdtable_note_synced(int fd);
/* The open flags fd was opened with, with its F_SETFL changes. */
int fdtable_flags(int fd);

/* Every descriptor open now may share its offset with another process
 * from now on: before a fork, a spawn, and after descriptors came through
 * an exec. */
void fdtable_offsets_shared(void);

/* fd's offset, when this process alone moves it and knows where it is: fd
 * was opened here, since the last fdtable_offsets_shared, and never dup'ed
 * (the copy kept is then the service's offset, as every answer that moves
 * it is noted). False otherwise, for the caller to ask the service. */
bool fdtable_own_pos(int fd, int64_t *pos);

/* fd's offset may have moved without an answer saying where (a call that
 * failed, as one timed out at its deadline may still land): it is the
 * service's to tell from now on. */
void fdtable_offset_unknown(int fd);
/* True once after a restart that may have lost fd's unsynced writes. */
bool fdtable_take_lost_writes(int fd);

struct fd_stale {
    int fd;
    struct fd_info info;
    uint64_t origin;
    int flags;
    uint64_t ino; /* 0: not known */
    int64_t pos;
    uint64_t pos_stamp; /* which copy of a shared offset is the latest */
    bool unsynced;
    char *path;
};

/* The descriptors whose handles belong to a service before epoch: a
 * malloc'ed array (each path too) in *out; their number, or -1 with errno
 * ENOMEM. */
int fdtable_stale(uint32_t epoch, struct fd_stale **out);
void fdtable_stale_free(struct fd_stale *v, int n);

/* What owns fd's record locks (heldlocks.h): its open file's origin and
 * its path. False when fd is not a Danaus descriptor or the path does not
 * fit. */
bool fdtable_owner(int fd, uint64_t *origin, char *path, size_t size);

/* A descriptor of the open file origin (by_path NULL), or of the file
 * by_path names, that is not lost; -1 when none. *count (if not NULL)
 * gets how many. */
int fdtable_find(uint64_t origin, const char *by_path, int *count);

/* Makes fd's file lost (FDTABLE_LOST): calls on it fail with EIO. */
void fdtable_mark_lost(int fd);

/* Gives fd the handle now, unless fd no longer holds was's handle; marks
 * its unsynced writes lost when lost_writes. False when fd changed, or
 * with ENOMEM. */
bool fdtable_replace(const struct fd_stale *was, const struct fd_info *now,
                     bool lost_writes);

#endif
