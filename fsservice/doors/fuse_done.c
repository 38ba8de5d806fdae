/*
 * fuse_done.c - the log of done name-changing FUSE requests
 * (fuse_done.h).
 *
 * A note's slot follows from its id (the kernel's ids count up by two);
 * the id is written last, so a note the service was killed in the middle
 * of writing keeps the id of an older request, never resent again.
 */
#include "fuse_done.h"

#include <errno.h>
#include <string.h>

struct done_rec {
    uint64_t unique;
    int64_t result;
    int64_t at;
    uint32_t op;
};

static struct done_rec *slot(const struct fuse_done *d, uint64_t unique)
{
    return record_area_at(&d->area, 1 + (unique >> 1) % FUSE_DONE_NOTES);
}

int fuse_done_init(struct fuse_done *d)
{
    int rc = record_area_create(&d->area, "danaus-fuse-done",
                                sizeof(struct done_rec), 1 + FUSE_DONE_NOTES);
    if (rc == 0)
        rc = record_area_grow(&d->area, 1 + FUSE_DONE_NOTES);
    if (rc < 0)
        record_area_free(&d->area);
    return rc;
}

int fuse_done_adopt(struct fuse_done *d, int fd)
{
    int rc = record_area_adopt(&d->area, fd, sizeof(struct done_rec),
                               1 + FUSE_DONE_NOTES);
    if (rc == 0 && d->area.count != 1 + FUSE_DONE_NOTES) {
        record_area_free(&d->area);
        rc = -EINVAL;
    }
    return rc;
}

int fuse_done_fd(const struct fuse_done *d)
{
    return d->area.fd;
}

void fuse_done_free(struct fuse_done *d)
{
    record_area_free(&d->area);
}

void fuse_done_note(struct fuse_done *d, uint64_t unique,
                    enum fuse_done_op op, int64_t result, int64_t at)
{
    struct done_rec *r = slot(d, unique);
    r->op = op;
    r->result = result;
    r->at = at;
    __atomic_store_n(&r->unique, unique, __ATOMIC_RELEASE);
}

bool fuse_done_find(const struct fuse_done *d, uint64_t unique,
                    enum fuse_done_op op, int64_t *result, int64_t *at)
{
    const struct done_rec *r = slot(d, unique);
    if (__atomic_load_n(&r->unique, __ATOMIC_ACQUIRE) != unique ||
        r->op != op)
        return false;
    *result = r->result;
    *at = r->at;
    return true;
}
