/*
 * record_area.c - fixed-size records in a memfd that a later service adopts
 * (record_area.h).
 */
#include "record_area.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define AREA_MAGIC 0x6172656153414e44ull /* "DNASarea" */

struct area_header {
    uint64_t magic;
    uint64_t rec_size;
};

/* Reserves the mapping for max records over a->fd. */
static int map(struct record_area *a, size_t rec_size, uint64_t max)
{
    a->rec_size = rec_size;
    a->max = max;
    a->base = mmap(NULL, rec_size * max, PROT_READ | PROT_WRITE, MAP_SHARED,
                   a->fd, 0);
    if (a->base == MAP_FAILED) {
        a->base = NULL;
        return -errno;
    }
    return 0;
}

int record_area_create(struct record_area *a, const char *name,
                       size_t rec_size, uint64_t max)
{
    memset(a, 0, sizeof *a);
    if (rec_size < sizeof(struct area_header) || max < 1)
        return -EINVAL;
    a->fd = memfd_create(name, MFD_CLOEXEC);
    if (a->fd < 0)
        return -errno;
    int rc = map(a, rec_size, max);
    if (rc == 0)
        rc = record_area_grow(a, 1);
    if (rc < 0) {
        record_area_free(a);
        return rc;
    }
    struct area_header *h = record_area_at(a, 0);
    h->magic = AREA_MAGIC;
    h->rec_size = rec_size;
    return 0;
}

int record_area_adopt(struct record_area *a, int fd, size_t rec_size,
                      uint64_t max)
{
    memset(a, 0, sizeof *a);
    a->fd = fd;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size <= 0 ||
        (uint64_t)st.st_size % rec_size != 0 ||
        (uint64_t)st.st_size / rec_size > max) {
        record_area_free(a);
        return -EINVAL;
    }
    int rc = map(a, rec_size, max);
    if (rc < 0) {
        record_area_free(a);
        return rc;
    }
    a->count = (uint64_t)st.st_size / rec_size;
    const struct area_header *h = record_area_at(a, 0);
    if (h->magic != AREA_MAGIC || h->rec_size != rec_size) {
        record_area_free(a);
        return -EINVAL;
    }
    return 0;
}

int record_area_grow(struct record_area *a, uint64_t count)
{
    if (count <= a->count)
        return 0;
    if (count > a->max)
        return -ENOSPC;
    if (ftruncate(a->fd, (off_t)(count * a->rec_size)) < 0)
        return -errno;
    a->count = count;
    return 0;
}

int record_area_make_room(struct record_area *a, uint64_t count,
                          void **beside, size_t elem)
{
    if (count <= a->count)
        return 0;
    uint64_t want = a->count * 2 > count ? a->count * 2 : count;
    if (want > a->max)
        want = count;
    char *more = realloc(*beside, want * elem);
    if (!more)
        return -ENOMEM;
    memset(more + a->count * elem, 0, (want - a->count) * elem);
    *beside = more;
    return record_area_grow(a, want);
}

void record_area_free(struct record_area *a)
{
    if (a->base)
        munmap(a->base, a->rec_size * a->max);
    if (a->fd >= 0)
        close(a->fd);
    memset(a, 0, sizeof *a);
    a->fd = -1;
}

void free_ids_push(struct free_ids *f, uint64_t id)
{
    if (f->n == f->room) {
        size_t room = f->room ? 2 * f->room : 64;
        uint64_t *ids = realloc(f->ids, room * sizeof *ids);
        if (!ids)
            return;
        f->ids = ids;
        f->room = room;
    }
    f->ids[f->n++] = id;
}

bool free_ids_pop(struct free_ids *f, uint64_t *id)
{
    if (f->n == 0)
        return false;
    *id = f->ids[--f->n];
    return true;
}

void free_ids_clear(struct free_ids *f)
{
    free(f->ids);
    *f = (struct free_ids){0};
}
