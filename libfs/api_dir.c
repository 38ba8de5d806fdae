/*
 * api_dir.c - the danaus_* directory stream calls over GETDENTS.
 *
 * A Danaus DIR is our own struct, handed out cast to DIR*: a directory
 * descriptor, a buffer of danaus_dirent records (linux_dirent64 layout)
 * copied out of the slot buffer, and the struct dirent readdir returns.
 * The read position lives in the service's open file, so rewinddir is an
 * LSEEK to 0, which resets the service's directory cookie.
 */
#include "call.h"
#include "export.h"
#include "fdtable.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DIR_BUF_MAX 32768

struct danaus_dir {
    int fd;
    size_t pos, len, cap; /* records in buf[pos, len) are not yet returned */
    struct dirent entry;
    unsigned char buf[];
};

DANAUS_EXPORT DIR *danaus_fdopendir(int fd)
{
    struct stat st;
    if (danaus_fstat(fd, &st) < 0)
        return NULL;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return NULL;
    }
    const struct service *svc = service_get();
    if (!svc)
        return NULL;
    size_t cap = svc->seg.slot_buf < DIR_BUF_MAX ? svc->seg.slot_buf
                                                 : DIR_BUF_MAX;
    struct danaus_dir *d = malloc(sizeof *d + cap);
    if (!d)
        return NULL;
    d->fd = fd;
    d->pos = d->len = 0;
    d->cap = cap;
    return (DIR *)d;
}

DANAUS_EXPORT DIR *danaus_opendir(const char *name)
{
    int fd = danaus_open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    DIR *dir = danaus_fdopendir(fd);
    if (!dir) {
        int saved = errno;
        danaus_close(fd);
        errno = saved;
    }
    return dir;
}

/* Refills the buffer; the number of bytes, 0 at the end, -1 with errno. */
static ssize_t fill(struct danaus_dir *d)
{
    struct call c;
    if (call_begin_fd(&c, DANAUS_CALL_GETDENTS, d->fd, false) < 0)
        return -1;
    c.desc.arg[0] = (int64_t)d->cap;
    int64_t n = call_send(&c);
    if (n < 0)
        return -1;
    if ((uint64_t)n > d->cap) {
        errno = EIO;
        return -1;
    }
    memcpy(d->buf, call_out(&c), (size_t)n);
    d->pos = 0;
    d->len = (size_t)n;
    return n;
}

DANAUS_EXPORT struct dirent *danaus_readdir(DIR *dirp)
{
    struct danaus_dir *d = (struct danaus_dir *)dirp;
    if (d->pos >= d->len) {
        int saved = errno;
        ssize_t n = fill(d);
        if (n <= 0) {
            if (n == 0)
                errno = saved; /* end of directory leaves errno alone */
            return NULL;
        }
    }
    /* The records come from the service: check each fits before use. */
    const size_t head = offsetof(struct danaus_dirent, d_name);
    struct danaus_dirent rec;
    size_t left = d->len - d->pos;
    if (left < head)
        goto bad;
    memcpy(&rec, d->buf + d->pos, head);
    if (rec.d_reclen <= head || rec.d_reclen > left)
        goto bad;
    const char *name = (const char *)d->buf + d->pos + head;
    size_t name_len = strnlen(name, rec.d_reclen - head);
    if (name_len == rec.d_reclen - head || name_len >= sizeof d->entry.d_name)
        goto bad;
    d->entry.d_ino = rec.d_ino;
    d->entry.d_off = rec.d_off;
    d->entry.d_reclen = sizeof d->entry;
    d->entry.d_type = rec.d_type;
    memcpy(d->entry.d_name, name, name_len + 1);
    d->pos += rec.d_reclen;
    return &d->entry;
bad:
    d->pos = d->len;
    errno = EIO;
    return NULL;
}

DANAUS_EXPORT void danaus_rewinddir(DIR *dirp)
{
    struct danaus_dir *d = (struct danaus_dir *)dirp;
    d->pos = d->len = 0;
    danaus_lseek(d->fd, 0, SEEK_SET);
}

DANAUS_EXPORT int danaus_closedir(DIR *dirp)
{
    struct danaus_dir *d = (struct danaus_dir *)dirp;
    int rc = danaus_close(d->fd);
    free(d);
    return rc;
}
