/*
 * extent_map.c - the map of a partial copy's upper ranges (extent_map.h):
 * a small sorted array, changed by insertion with merging, and its
 * encoding for the xattr partial.c keeps it in.
 */
#include "extent_map.h"
#include "le.h"

#include <errno.h>
#include <string.h>

void extent_map_init(struct extent_map *m, uint64_t lower_len)
{
    m->lower_len = lower_len;
    m->n = 0;
}

int extent_map_add(struct extent_map *m, uint64_t off, uint64_t len)
{
    if (off >= m->lower_len || len == 0)
        return 0;
    uint64_t end = len > m->lower_len - off ? m->lower_len : off + len;
    /* Extents [first, last) touch or overlap [off, end): they merge. */
    int first = 0;
    while (first < m->n && m->ext[first].off + m->ext[first].len < off)
        first++;
    int last = first;
    while (last < m->n && m->ext[last].off <= end)
        last++;
    if (last - first == 1 && m->ext[first].off <= off &&
        m->ext[first].off + m->ext[first].len >= end)
        return 0;
    if (last > first) {
        if (m->ext[first].off < off)
            off = m->ext[first].off;
        uint64_t last_end = m->ext[last - 1].off + m->ext[last - 1].len;
        if (last_end > end)
            end = last_end;
    }
    int n = m->n - (last - first) + 1;
    if (n > EXTENT_MAP_MAX)
        return -ENOSPC;
    memmove(&m->ext[first + 1], &m->ext[last],
            (size_t)(m->n - last) * sizeof m->ext[0]);
    m->ext[first].off = off;
    m->ext[first].len = end - off;
    m->n = n;
    return 1;
}

int extent_map_truncate(struct extent_map *m, uint64_t len)
{
    if (len >= m->lower_len)
        return 0;
    m->lower_len = len;
    while (m->n > 0 && m->ext[m->n - 1].off >= len)
        m->n--;
    if (m->n > 0 && m->ext[m->n - 1].off + m->ext[m->n - 1].len > len)
        m->ext[m->n - 1].len = len - m->ext[m->n - 1].off;
    return 1;
}

int extent_map_complete(const struct extent_map *m)
{
    return m->lower_len == 0 ||
           (m->n == 1 && m->ext[0].off == 0 && m->ext[0].len == m->lower_len);
}

int extent_map_where(const struct extent_map *m, uint64_t off, uint64_t *run)
{
    if (off >= m->lower_len) {
        *run = UINT64_MAX - off;
        return 1;
    }
    for (int i = 0; i < m->n; i++) {
        const struct extent *e = &m->ext[i];
        if (off < e->off) {
            *run = e->off - off;
            return 0;
        }
        if (off < e->off + e->len) {
            *run = e->off + e->len - off;
            return 1;
        }
    }
    *run = m->lower_len - off;
    return 0;
}

size_t extent_map_encode(const struct extent_map *m,
                         uint8_t out[EXTENT_MAP_BYTES])
{
    le_put64(out, m->lower_len);
    le_put64(out + 8, (uint64_t)m->n);
    for (int i = 0; i < m->n; i++) {
        le_put64(out + 16 + 16 * i, m->ext[i].off);
        le_put64(out + 24 + 16 * i, m->ext[i].len);
    }
    return 16 + 16 * (size_t)m->n;
}

/* What extent_map_add keeps true: sorted, disjoint, not touching, not
 * empty, below lower_len. */
static int well_formed(const struct extent_map *m)
{
    uint64_t prev_end = 0;
    for (int i = 0; i < m->n; i++) {
        const struct extent *e = &m->ext[i];
        if (e->len == 0 || e->off > m->lower_len ||
            e->len > m->lower_len - e->off || (i > 0 && e->off <= prev_end))
            return 0;
        prev_end = e->off + e->len;
    }
    return 1;
}

int extent_map_decode(struct extent_map *m, const void *buf, size_t len)
{
    const uint8_t *p = buf;
    if (len < 16)
        return -EINVAL;
    uint64_t n = le_get64(p + 8);
    if (n > EXTENT_MAP_MAX || len != 16 + 16 * n)
        return -EINVAL;
    m->lower_len = le_get64(p);
    m->n = (int)n;
    for (int i = 0; i < m->n; i++) {
        m->ext[i].off = le_get64(p + 16 + 16 * i);
        m->ext[i].len = le_get64(p + 24 + 16 * i);
    }
    return well_formed(m) ? 0 : -EINVAL;
}
