/*
 * usermem.c - mapped-page checks of callers' pointers (usermem.h).
 *
 * mincore fails with ENOMEM for a range with an unmapped page, and for
 * addresses outside user space; it needs one byte of result per page, so
 * long ranges are asked about a batch of pages at a time.
 *
 * A system call costs as much as the call being routed (two mincore calls
 * per stat tripled the time of a stat that the kernel serves), so each
 * thread remembers the last ranges of
 * pages it found mapped and asks again only about others. Paths and
 * buffers mostly come from the same few places (the stack, a buffer, the
 * program's strings); a buffer that is not page-aligned spans two pages
 * for a 4 KiB read, which is why ranges are remembered and not only single
 * pages (a cached 4 KiB pread into such a buffer would pay a mincore each
 * time, several times the read itself). The price: a page unmapped after it
 * was checked (a pointer used after free) faults here instead of getting
 * EFAULT.
 */
#include "usermem.h"

#include <errno.h>

#include <stdint.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096u
#define BATCH 64 /* pages per mincore call */

#define REMEMBERED 8
#define REMEMBER_MAX_PAGES 16 /* longer ranges: the copy dwarfs the call */

struct page_range {
    uintptr_t first; /* page address; 0: unused */
    size_t pages;
};

static __thread struct page_range seen[REMEMBERED];
static __thread unsigned seen_next;

static bool remembered(uintptr_t first, size_t pages)
{
    for (int i = 0; i < REMEMBERED; i++)
        if (seen[i].first != 0 && first >= seen[i].first &&
            first - seen[i].first + pages * PAGE <= seen[i].pages * PAGE)
            return true;
    return false;
}

static bool pages_mapped(uintptr_t first, size_t pages)
{
    bool short_range = pages <= REMEMBER_MAX_PAGES;
    if (short_range && remembered(first, pages))
        return true;
    unsigned char vec[BATCH];
    for (uintptr_t at = first, left = pages; left > 0;) {
        size_t k = left < BATCH ? left : BATCH;
        if (syscall(SYS_mincore, (void *)at, k * PAGE, vec) != 0)
            return false;
        at += k * PAGE;
        left -= k;
    }
    if (short_range) {
        seen[seen_next] = (struct page_range){first, pages};
        seen_next = (seen_next + 1) % REMEMBERED;
    }
    return true;
}

bool usermem_range(const void *p, size_t n)
{
    if (n == 0)
        return true;
    uintptr_t start = (uintptr_t)p;
    if (start < PAGE || start + n < start)
        return false;
    uintptr_t first = start & ~(uintptr_t)(PAGE - 1);
    uintptr_t last = (start + n - 1) & ~(uintptr_t)(PAGE - 1);
    return pages_mapped(first, (last - first) / PAGE + 1);
}

bool usermem_string(const char *s, size_t max)
{
    uintptr_t p = (uintptr_t)s;
    if (p < PAGE)
        return false;
    size_t seen = 0;
    while (seen <= max) {
        uintptr_t page = p & ~(uintptr_t)(PAGE - 1);
        if (!pages_mapped(page, 1))
            return false;
        size_t left = page + PAGE - p;
        if (memchr((const void *)p, '\0', left))
            return true;
        seen += left;
        p = page + PAGE;
    }
    return false;
}

int usermem_out(void *buf, size_t n)
{
    if (usermem_range(buf, n))
        return 0;
    errno = EFAULT;
    return -1;
}
