/*
 * kmounts.c - the kernel's mount points, from its mount table
 * (kmounts.h).
 *
 * listmount(2) (Linux 6.8) lists the IDs of the mount namespace's mounts;
 * an ID is unique for the boot and never reused, so the same list means
 * that no mount came or went, and the mount points kept from the last
 * read of /proc/self/mountinfo still hold. A changed list reads it again.
 * A mount made between the listing and the read is in the table and, at
 * the next call, not in the kept list: that call reads again, so nothing
 * is missed for longer than the race statx had too.
 *
 * Where the answer cannot be had this way (no listmount: an older kernel
 * or a seccomp filter; more mounts or a longer table than the fixed
 * storage holds; another thread reading the table at the moment), the
 * kernel is asked by path, as before. No allocation: the storage is
 * static, touched only by a process that removes directories.
 */
#include "kmounts.h"

#include "sys.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#ifndef SYS_listmount
#define SYS_listmount 458
#endif

#define MAX_MOUNTS 1024
#define TABLE_BYTES (256 * 1024) /* /proc/self/mountinfo, read whole */
#define POINTS_BYTES (64 * 1024) /* the mount points, NUL-separated */

/* listmount's request (linux/mount.h, MNT_ID_REQ_SIZE_VER0): from the
 * namespace's root mount (LSMT_ROOT), after ID param (0: from the
 * start), in the caller's namespace. */
struct mnt_id_req {
    uint32_t size;
    uint32_t spare;
    uint64_t mnt_id;
    uint64_t param;
};
#define LSMT_ROOT UINT64_MAX

static atomic_flag busy = ATOMIC_FLAG_INIT;
static bool known;
static uint64_t ids[MAX_MOUNTS], listed[MAX_MOUNTS];
static long nids;
static char table[TABLE_BYTES];
static char points[POINTS_BYTES];
static size_t points_used;

/* The namespace's mount IDs into out: how many, or -1. */
static long list_mounts(uint64_t *out)
{
    struct mnt_id_req req = {.size = sizeof req, .mnt_id = LSMT_ROOT};
    long n = syscall(SYS_listmount, &req, out, (size_t)MAX_MOUNTS, 0);
    return n >= MAX_MOUNTS ? -1 : n;
}

/* The mount point field at *p (escaped as mountinfo escapes: \ooo), into
 * points; false when it does not fit. */
static bool keep_point(const char *p, const char *end)
{
    while (p < end && *p != ' ' && *p != '\n') {
        if (points_used + 2 > sizeof points)
            return false;
        char c = *p++;
        if (c == '\\' && end - p >= 3) {
            c = (char)(((p[0] - '0') << 6) | ((p[1] - '0') << 3) |
                       (p[2] - '0'));
            p += 3;
        }
        points[points_used++] = c;
    }
    points[points_used++] = '\0';
    return true;
}

/* Reads /proc/self/mountinfo and keeps each line's mount point, its fifth
 * field. */
static bool read_points(void)
{
    int fd = sys_open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t len = 0;
    ssize_t got;
    while ((got = sys_read(fd, table + len, sizeof table - len)) > 0)
        len += (size_t)got;
    sys_close(fd);
    if (got < 0 || len == sizeof table)
        return false;
    points_used = 0;
    const char *end = table + len;
    for (const char *line = table; line < end;) {
        const char *p = line;
        for (int field = 0; field < 4 && p < end; p++)
            field += *p == ' ';
        if (p < end && !keep_point(p, end))
            return false;
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        line = nl ? nl + 1 : end;
    }
    return true;
}

/* 1 or 0 from the kept table, -1 when it cannot tell. */
static int from_table(const char *abs)
{
    long n = list_mounts(listed);
    if (n < 0)
        return -1;
    if (!known || n != nids ||
        memcmp(listed, ids, (size_t)n * sizeof *ids) != 0) {
        known = read_points();
        if (!known)
            return -1;
        memcpy(ids, listed, (size_t)n * sizeof *ids);
        nids = n;
    }
    for (size_t at = 0; at < points_used; at += strlen(points + at) + 1)
        if (strcmp(points + at, abs) == 0)
            return 1;
    return 0;
}

bool kmounts_mount_point(const char *abs)
{
    int answer = -1;
    if (!atomic_flag_test_and_set_explicit(&busy, memory_order_acquire)) {
        answer = from_table(abs);
        atomic_flag_clear_explicit(&busy, memory_order_release);
    }
    return answer < 0 ? sys_mount_root(abs) : answer == 1;
}
