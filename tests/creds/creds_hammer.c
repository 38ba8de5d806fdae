/*
 * creds_hammer.c - one identity's share of the credential test (creds.sh):
 * threads of this process open, create and look up files of DIR in bursts,
 * each call checked against exactly this process's uid and groups.
 *
 *   creds_hammer DIR THREADS ROUNDS
 *
 * DIR holds (made by creds.sh): for each user U of 2001, 2002, 2003 a file
 * own-U (U:U, 0600) and a directory d-U (U:U, 0700); grp (0:7000, 0640);
 * pub (0:0, 0644). Expected, as the kernel decides: root may do everything;
 * a user reads and writes own-U and creates in d-U only for its own U,
 * reads grp only as a member of group 7000, reads pub, writes neither,
 * and finds a missing name in d-U (ENOENT) only for its own U; every
 * refusal is EACCES. Bursts of THREADS threads alternate with idle
 * pauses longer than the service's idle-thread timeout, so that the
 * service's and libfuse's thread pools grow and shrink meanwhile. Prints
 * each wrong answer; exit 0 when there was none.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define GROUP 7000
#define OPS_PER_BURST 40
#define PAUSE_US 300000 /* above the service's 200 ms idle timeout */

static const char *dir;
static uid_t uid;
static bool in_group;
static _Atomic int wrong;
static _Atomic int checked;

/* Compares one call's result (rc >= 0 success, else errno err) with the
 * expected answer. */
static void expect(const char *what, const char *name, bool allowed, int rc,
                   int err)
{
    atomic_fetch_add(&checked, 1);
    if (allowed ? rc >= 0 : (rc < 0 && err == EACCES))
        return;
    if (atomic_fetch_add(&wrong, 1) < 20)
        printf("uid %u: %s %s: %s, expected %s\n", (unsigned)uid, what,
               name, rc >= 0 ? "allowed" : strerror(err),
               allowed ? "allowed" : strerror(EACCES));
}

static void try_open(const char *name, int flags, bool allowed)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, flags);
    int err = errno;
    expect(flags == O_RDONLY ? "read" : "write", name, allowed, fd, err);
    if (fd >= 0)
        close(fd);
}

static void try_create(unsigned owner, unsigned long tag)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/d-%u/t-%d-%lu", dir, owner,
             (int)getpid(), tag);
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0600);
    int err = errno;
    bool allowed = uid == 0 || uid == owner;
    char name[32];
    snprintf(name, sizeof name, "d-%u/", owner);
    expect("create in", name, allowed, fd, err);
    if (fd >= 0) {
        close(fd);
        unlink(path);
    }
    /* A missing name: ENOENT when the directory may be searched. */
    struct stat st;
    snprintf(path, sizeof path, "%s/d-%u/none", dir, owner);
    int rc = stat(path, &st);
    err = errno;
    expect("lookup in", name, allowed, rc < 0 && err == ENOENT ? 0 : -1,
           rc < 0 ? err : 0);
}

static void *burst(void *arg)
{
    unsigned long tag = (unsigned long)arg;
    static const unsigned users[] = {2001, 2002, 2003};
    for (int i = 0; i < OPS_PER_BURST; i++) {
        unsigned u = users[(unsigned long)i % 3];
        char name[32];
        snprintf(name, sizeof name, "own-%u", u);
        try_open(name, i % 2 ? O_RDONLY : O_WRONLY, uid == 0 || uid == u);
        try_open("grp", O_RDONLY, uid == 0 || in_group);
        try_open("grp", O_WRONLY, uid == 0);
        try_open("pub", O_RDONLY, true);
        try_open("pub", O_WRONLY, uid == 0);
        try_create(u, tag * 1000 + (unsigned long)i);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    dir = argv[1];
    int threads = atoi(argv[2]), rounds = atoi(argv[3]);
    if (threads < 1 || threads > 256 || rounds < 1)
        return 2;
    uid = getuid();
    in_group = getgid() == GROUP;
    gid_t groups[64];
    int n = getgroups(64, groups);
    for (int i = 0; i < n; i++)
        in_group |= groups[i] == GROUP;

    pthread_t t[256];
    for (int r = 0; r < rounds; r++) {
        /* Growing bursts: 1 thread, then more, so the pool grows from one
         * busy thread and shrinks in the pause. */
        int now = 1 + (threads - 1) * r / (rounds > 1 ? rounds - 1 : 1);
        for (int i = 0; i < now; i++)
            if (pthread_create(&t[i], NULL, burst,
                               (void *)(unsigned long)(r * 256 + i)) != 0)
                return 1;
        for (int i = 0; i < now; i++)
            pthread_join(t[i], NULL);
        usleep(PAUSE_US);
    }
    printf("uid %u: %d checks, %d wrong\n", (unsigned)uid,
           atomic_load(&checked), atomic_load(&wrong));
    return atomic_load(&wrong) ? 1 : 0;
}
