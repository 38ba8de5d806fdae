/*
 * userns.c - a pool's user namespace (userns.h): allocating its host id
 * range, and entering it at the end of a container's setup.
 */
#include "userns.h"
#include "fail.h"
#include "query.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define FIRST_BASE (USERNS_SIZE * 16)
#define LAST_BASE 0x7fff0000u /* ids past 2^31 confuse too many tools */

/* Whether [a, a + n) meets [base, base + USERNS_SIZE). */
static int overlaps(unsigned long long a, unsigned long long n, uint32_t base)
{
    return a < (unsigned long long)base + USERNS_SIZE && base < a + n;
}

/* The number after the field-th ':' of line (0 is the name), in *id: 1,
 * or 0 when that field is missing or not a number. */
static int field_id(const char *line, int field, unsigned long long *id)
{
    for (int i = 0; i < field && line; i++) {
        line = strchr(line, ':');
        line = line ? line + 1 : NULL;
    }
    char *end;
    if (!line || *line < '0' || *line > '9')
        return 0;
    *id = strtoull(line, &end, 10);
    return *end == ':' || *end == '\n' || *end == '\0';
}

/* A subuid(5) or subgid(5) line "NAME:FIRST:COUNT". */
static int subordinate_meets(const char *line, uint32_t base)
{
    unsigned long long a, n;
    return field_id(line, 1, &a) && field_id(line, 2, &n) &&
           overlaps(a, n, base);
}

/* A passwd(5) line "NAME:PASSWORD:UID:GID:..." or group(5) line
 * "NAME:PASSWORD:GID:MEMBERS": its ids. */
static int account_meets(const char *line, uint32_t base)
{
    unsigned long long id;
    return (field_id(line, 2, &id) && overlaps(id, 1, base)) ||
           (field_id(line, 3, &id) && overlaps(id, 1, base));
}

/* The first line of the host's file name (in /etc, or in DANAUS_ETC: the
 * tests' own) that meets the range, by test, into who ("NAME in FILE");
 * 0 when none does or the file is missing. */
static int file_meets(const char *name, uint32_t base,
                      int (*meets)(const char *line, uint32_t base),
                      char *who, size_t size)
{
    const char *etc = getenv("DANAUS_ETC");
    char path[STATE_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", etc && *etc ? etc : "/etc", name);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char line[1024];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        if ((found = meets(line, base)))
            snprintf(who, size, "%.*s in %s", (int)strcspn(line, ":\n"),
                     line, path);
    fclose(f);
    return found;
}

/* Whether a host user, group or subordinate range holds an id of the
 * range; who names the first. */
static int meets_host(uint32_t base, char *who, size_t size)
{
    return file_meets("passwd", base, account_meets, who, size) ||
           file_meets("group", base, account_meets, who, size) ||
           file_meets("subuid", base, subordinate_meets, who, size) ||
           file_meets("subgid", base, subordinate_meets, who, size);
}

static int meets_pool(uint32_t base, char **pools, int n)
{
    for (int i = 0; i < n; i++) {
        struct record rec;
        if (query_pool(pools[i], &rec) < 0) {
            fail_clear();
            continue;
        }
        uint32_t other = userns_base(&rec);
        record_free(&rec);
        if (other && other < base + USERNS_SIZE && base < other + USERNS_SIZE)
            return 1;
    }
    return 0;
}

int userns_allocate(const char *name, struct record *pool)
{
    int n;
    char **pools = state_list("pools", &n);
    uint32_t base = FIRST_BASE;
    char who[STATE_PATH_MAX + 64];
    while (base <= LAST_BASE && (meets_host(base, who, sizeof who) ||
                                 meets_pool(base, pools, n)))
        base += USERNS_SIZE;
    state_list_free(pools, n);
    if (base > LAST_BASE)
        return fail("pool %s: no free range of %u host ids for its user "
                    "namespace", name, USERNS_SIZE);
    record_set(pool, "userns_base", "%u", base);
    return 0;
}

int userns_check(const char *name, uint32_t base)
{
    char who[STATE_PATH_MAX + 64];
    if (!base || !meets_host(base, who, sizeof who))
        return 0;
    return fail("pool %s: its host ids %u-%u are no longer its own: %s "
                "holds one (make the pool again)", name, base,
                base + USERNS_SIZE - 1, who);
}

uint32_t userns_base(const struct record *pool)
{
    long long base = record_num(pool, "userns_base", 0);
    return base > 0 && base <= LAST_BASE ? (uint32_t)base : 0;
}

static int write_map(pid_t pid, const char *which, uint32_t base)
{
    char path[64], map[64];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, which);
    int len = snprintf(map, sizeof map, "0 %u %u\n", base, USERNS_SIZE);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    /* One write: the kernel takes a map whole, once. */
    int rc = fd < 0 || write(fd, map, (size_t)len) != len ? -1 : 0;
    if (rc < 0)
        fail_errno("cannot write the container's %s", which);
    if (fd >= 0)
        close(fd);
    return rc;
}

int userns_map_child(pid_t pid, int sync, uint32_t base)
{
    char asked;
    ssize_t n;
    while ((n = read(sync, &asked, 1)) < 0 && errno == EINTR)
        ;
    if (n != 1)
        return 0; /* it failed before: its report says why */
    if (write_map(pid, "uid_map", base) < 0 ||
        write_map(pid, "gid_map", base) < 0)
        return -1;
    return write(sync, "m", 1) == 1 ? 0
                                    : fail_errno("cannot answer the container");
}

/* Root of the user namespace just entered, with no host groups. */
static int become_root(void)
{
    if (setgroups(0, NULL) < 0 || setresgid(0, 0, 0) < 0 ||
        setresuid(0, 0, 0) < 0)
        return fail_errno("cannot become root of the pool's user namespace");
    return 0;
}

int userns_enter(int sync)
{
    char done;
    if (unshare(CLONE_NEWUSER) < 0)
        return fail_errno("cannot create the container's user namespace");
    if (write(sync, "u", 1) != 1 || read(sync, &done, 1) != 1)
        return fail("the engine did not map the container's user namespace");
    return become_root();
}

int userns_open_mapped(uint32_t base)
{
    int hold[2];
    if (pipe2(hold, O_CLOEXEC) < 0)
        return fail_errno("pipe");
    /* Born in the new namespace (fork's form of clone: no new stack), it
     * waits for the end of the pipe while the maps are written. */
    pid_t pid = (pid_t)syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL,
                               NULL, NULL, 0);
    if (pid == 0) {
        char byte;
        close(hold[1]);
        _exit(read(hold[0], &byte, 1) < 0);
    }
    close(hold[0]);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/user", (int)pid);
    int fd = pid < 0 ? fail_errno("cannot make a user namespace for idmap")
             : write_map(pid, "uid_map", base) < 0 ||
                     write_map(pid, "gid_map", base) < 0
                 ? -1
                 : open(path, O_RDONLY | O_CLOEXEC);
    if (pid > 0 && fd < 0 && !fail_message())
        fail_errno("cannot open %s", path);
    close(hold[1]);
    if (pid > 0)
        waitpid(pid, NULL, 0);
    return fd;
}

int userns_join(int fd)
{
    if (setns(fd, CLONE_NEWUSER) < 0)
        return fail_errno("cannot join the container's user namespace");
    return become_root();
}
