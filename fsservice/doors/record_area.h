/*
 * record_area.h - an array of fixed-size records in a memfd, which outlives
 * the danausd that wrote it: the FUSE door keeps its node and handle tables
 * in two of them, so that its keeper (fuse_keeper.h) can hand both to the
 * next danausd with the kernel's FUSE connection.
 *
 * Record 0 is the area's header (a magic number and the record size, which
 * adopting checks). The array grows by ftruncate inside one mapping reserved
 * for `max` records at creation, so a record never moves.
 */
#ifndef DANAUS_RECORD_AREA_H
#define DANAUS_RECORD_AREA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record_area {
    int fd;
    char *base;
    size_t rec_size;
    uint64_t count; /* records the file holds now, header included */
    uint64_t max;   /* records the mapping has room for */
};

/* A new area named name (in /proc/PID/fd), of records of rec_size bytes
 * (at least 16), room for max, holding only its header. 0 or -errno. */
int record_area_create(struct record_area *a, const char *name,
                       size_t rec_size, uint64_t max);

/* The area in fd (a previous service's, taken over: fd now belongs to a).
 * 0, or -EINVAL when it is not an area of rec_size records. */
int record_area_adopt(struct record_area *a, int fd, size_t rec_size,
                      uint64_t max);

/* Makes the area hold at least count records (new ones are zeros): 0,
 * -ENOSPC past max, -errno. */
int record_area_grow(struct record_area *a, uint64_t count);

/* Makes the area hold at least count records, doubling it at least, and
 * grows *beside alike: the caller's per-record array (in this process
 * only) of elem-byte entries, new ones zero. 0, -ENOMEM, -ENOSPC past
 * max. */
int record_area_make_room(struct record_area *a, uint64_t count,
                          void **beside, size_t elem);

static inline void *record_area_at(const struct record_area *a, uint64_t i)
{
    return a->base + i * a->rec_size;
}

void record_area_free(struct record_area *a);

/* Indices of records not in use, to be given out again: what a table
 * keeps beside its area, rebuilt when it adopts one. */
struct free_ids {
    uint64_t *ids;
    size_t n, room;
};

/* Out of memory, the index is simply not given out again. */
void free_ids_push(struct free_ids *f, uint64_t id);
/* The index last pushed into *id: false when there is none. */
bool free_ids_pop(struct free_ids *f, uint64_t *id);
void free_ids_clear(struct free_ids *f);

#endif
