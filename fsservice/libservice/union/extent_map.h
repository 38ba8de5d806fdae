/*
 * extent_map.h - which byte ranges of a partially copied-up file live in
 * the writable branch (see partial.c, which keeps one per such file).
 *
 * A partial copy is an upper file of the union file's size, sparse where
 * nothing was written, over its origin in a lower branch. Byte x of the
 * union file comes from the lower file when x < lower_len and no extent
 * covers x; from the upper file otherwise. Everything at or past lower_len
 * is the upper file's (appends and extensions need no extent), and a
 * truncate below lower_len lowers it, so the lower bytes it cut off never
 * come back on a later extension.
 *
 * Extents are kept sorted, disjoint and never touching (adjacent ones are
 * merged), inside [0, lower_len).
 */
#ifndef DANAUS_UNION_EXTENT_MAP_H
#define DANAUS_UNION_EXTENT_MAP_H

#include <stddef.h>
#include <stdint.h>

/* Past this many extents the file is copied up whole (partial.c): the
 * encoded map (1 KiB at most) and the origin's path stay within one xattr
 * on both backends - CephFS allows 64 KiB of xattrs per file
 * (mds_max_xattr_pairs_size, checked on the test cluster), ext4 one 4 KiB
 * block (a 4041-byte value gets ENOSPC, 3800 bytes fit); where a record
 * does not fit, the data is copied instead. */
#define EXTENT_MAP_MAX 64

struct extent {
    uint64_t off, len;
};

struct extent_map {
    uint64_t lower_len;
    int n;
    struct extent ext[EXTENT_MAP_MAX];
};

void extent_map_init(struct extent_map *m, uint64_t lower_len);
/* Records [off, off + len) as upper (the part below lower_len). 1 if the
 * map changed, 0 if it already covered the range, -ENOSPC if the result
 * would need more than EXTENT_MAP_MAX extents (the map is then unchanged). */
int extent_map_add(struct extent_map *m, uint64_t off, uint64_t len);
/* The file was cut to len: lower_len becomes at most len. 1 if changed. */
int extent_map_truncate(struct extent_map *m, uint64_t len);
/* Whether no byte comes from the lower file any more. */
int extent_map_complete(const struct extent_map *m);
/* Where byte off comes from: 1 the upper file, 0 the lower; *run gets how
 * many bytes from off on come from the same place (UINT64_MAX - off past
 * lower_len). */
int extent_map_where(const struct extent_map *m, uint64_t off, uint64_t *run);

/* The map as bytes (little-endian u64s: lower_len, n, then off and len of
 * each extent) and back. encode returns the length, at most
 * EXTENT_MAP_BYTES; decode returns 0 or -EINVAL for a value that is not a
 * well-formed map. */
#define EXTENT_MAP_BYTES (16 + 16 * EXTENT_MAP_MAX)
size_t extent_map_encode(const struct extent_map *m,
                         uint8_t out[EXTENT_MAP_BYTES]);
int extent_map_decode(struct extent_map *m, const void *buf, size_t len);

#endif
