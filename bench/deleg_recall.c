/*
 * deleg_recall.c - can the holder of a libcephfs write delegation still
 * write the file between the recall and giving the delegation back?
 * Write-back on Ceph (docs/cache.md, "Not done yet: Ceph") needs that:
 * the service would write a client's kept pages there. One process, two
 * Ceph clients of one cluster (two mounts): A creates a file, writes page
 * 0, takes a write delegation (ceph_ll_delegation), writes page 1 under
 * it; then a conflicting open comes, and A's returner thread, woken by
 * the recall, does what MODE says:
 *
 *   return           give the delegation back at once
 *   written-before   the same, page 2 written by A just before the open
 *                    (what a service that wrote pages into libcephfs
 *                    while holding the delegation would have done)
 *   write-at-recall  write page 2, then give it back
 *   local-open       as write-at-recall, but the conflicting open comes
 *                    through A itself (another client of the same service)
 *
 * The conflicting open (O_RDONLY, then a read of three pages) is timed;
 * it and the returner are given WAIT_S seconds. Prints what each step did
 * and when, the caps A holds when the returner runs
 * (ceph_debug_get_file_caps), and which pages the other open read.
 * Exit status 0 when every step finished, 1 when one was still waiting
 * (the process then leaves without cleaning up: the cluster is a test one).
 *
 *   deleg-recall CEPH_CONF MODE [DELEG_TIMEOUT_S]
 */
#include <cephfs/libcephfs.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define WAIT_S 20

/* Ceph's file cap bits (ceph_fs.h, not in libcephfs's public headers):
 * shared, exclusive, cache, read, write, buffer. */
static const struct {
    int bit;
    char letter;
} file_caps[] = {{0x100, 's'}, {0x200, 'x'}, {0x400, 'c'},
                 {0x800, 'r'}, {0x1000, 'w'}, {0x2000, 'b'}};

static struct ceph_mount_info *mount_a, *mount_b;
static Inode *inode_a;
static Fh *fh_a;
static char name[64];
static const char *mode;
static struct timespec start;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool recalled, returned, other_done;

static double seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(ts.tv_sec - start.tv_sec) +
           (double)(ts.tv_nsec - start.tv_nsec) / 1e9;
}

static void say(const char *what, long result)
{
    printf("%7.3f s  %-52s %ld\n", seconds(), what, result);
    fflush(stdout);
}

static void set_flag(bool *flag)
{
    pthread_mutex_lock(&lock);
    *flag = true;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
}

/* Waits up to WAIT_S seconds for *flag; false if it did not come. */
static bool wait_flag(bool *flag)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += WAIT_S;
    pthread_mutex_lock(&lock);
    while (!*flag &&
           pthread_cond_timedwait(&cond, &lock, &until) != ETIMEDOUT)
        ;
    bool done = *flag;
    pthread_mutex_unlock(&lock);
    return done;
}

/* libcephfs calls it with its client lock held: nothing but a flag. */
static void on_recall(Fh *fh, void *priv)
{
    (void)fh;
    (void)priv;
    say("A: recall callback", 0);
    set_flag(&recalled);
}

static void *returner(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    while (!recalled)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    char path[80];
    snprintf(path, sizeof path, "/%s", name);
    int caps = ceph_debug_get_file_caps(mount_a, path);
    char issued[8] = "F", *p = issued + 1;
    for (size_t i = 0; i < sizeof file_caps / sizeof file_caps[0]; i++)
        if (caps >= 0 && (caps & file_caps[i].bit))
            *p++ = file_caps[i].letter;
    printf("%7.3f s  A: file caps issued when the returner runs: %s\n",
           seconds(), issued);
    if (strcmp(mode, "write-at-recall") == 0 ||
        strcmp(mode, "local-open") == 0) {
        char page[PAGE];
        memset(page, 'R', sizeof page);
        say("A: returner writes page 2 (ceph_ll_write)...", 0);
        say("A: returner's write returned",
            ceph_ll_write(mount_a, fh_a, 2 * PAGE, PAGE, page));
    }
    say("A: delegation given back",
        ceph_ll_delegation(mount_a, fh_a, CEPH_DELEGATION_NONE, NULL, NULL));
    set_flag(&returned);
    return NULL;
}

static void report_pages(const char *who, const char *buf, long n)
{
    printf("%7.3f s  %s read %ld bytes: pages [%c %c %c]\n", seconds(), who,
           n, n > 0 ? buf[0] : '-', n > PAGE ? buf[PAGE] : '-',
           n > 2 * PAGE ? buf[2 * PAGE] : '-');
    fflush(stdout);
}

/* The conflicting open: through B (another Ceph client), or through A. */
static void *other_open(void *arg)
{
    (void)arg;
    char buf[3 * PAGE];
    memset(buf, 0, sizeof buf);
    if (strcmp(mode, "local-open") == 0) {
        Fh *fh;
        say("A: second open O_RDONLY through the same client...", 0);
        int r = ceph_ll_open(mount_a, inode_a, O_RDONLY, &fh,
                             ceph_mount_perms(mount_a));
        say("A: second open returned", r);
        if (r == 0) {
            report_pages("A's second open", buf,
                         ceph_ll_read(mount_a, fh, 0, sizeof buf, buf));
            ceph_ll_close(mount_a, fh);
        }
    } else {
        say("B: open O_RDONLY (another Ceph client)...", 0);
        int fd = ceph_open(mount_b, name, O_RDONLY, 0);
        say("B: open returned", fd);
        if (fd >= 0) {
            report_pages("B", buf, ceph_read(mount_b, fd, buf, sizeof buf, 0));
            ceph_close(mount_b, fd);
        }
    }
    set_flag(&other_done);
    return NULL;
}

static struct ceph_mount_info *mount_cluster(const char *conf)
{
    struct ceph_mount_info *m;
    int r = ceph_create(&m, NULL);
    if (r == 0)
        r = ceph_conf_read_file(m, conf);
    if (r == 0)
        r = ceph_mount(m, "/");
    if (r != 0) {
        fprintf(stderr, "deleg-recall: mount: %s\n", strerror(-r));
        exit(2);
    }
    return m;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: deleg-recall CEPH_CONF MODE [DELEG_TIMEOUT_S]\n");
        return 2;
    }
    mode = argv[2];
    unsigned timeout = argc > 3 ? (unsigned)atoi(argv[3]) : 10;
    clock_gettime(CLOCK_MONOTONIC, &start);
    mount_a = mount_cluster(argv[1]);
    mount_b = mount_cluster(argv[1]);
    ceph_set_deleg_timeout(mount_a, timeout);
    printf("mode %s, client_deleg_timeout %u s\n", mode, timeout);

    snprintf(name, sizeof name, "deleg-recall-%d", (int)getpid());
    Inode *root;
    struct ceph_statx stx;
    char page[PAGE];
    ceph_ll_lookup_root(mount_a, &root);
    int r = ceph_ll_create(mount_a, root, name, 0644, O_RDWR | O_CREAT,
                           &inode_a, &fh_a, &stx, 0, 0,
                           ceph_mount_perms(mount_a));
    if (r != 0) {
        fprintf(stderr, "deleg-recall: create: %s\n", strerror(-r));
        return 2;
    }
    memset(page, 'A', sizeof page);
    say("A: write page 0", ceph_ll_write(mount_a, fh_a, 0, PAGE, page));
    say("A: write delegation",
        ceph_ll_delegation(mount_a, fh_a, CEPH_DELEGATION_WR, on_recall,
                           NULL));
    memset(page, 'D', sizeof page);
    say("A: write page 1 under the delegation",
        ceph_ll_write(mount_a, fh_a, PAGE, PAGE, page));

    pthread_t returner_thread, other_thread;
    pthread_create(&returner_thread, NULL, returner, NULL);
    /* Past libcephfs's periodic flush of dirty data (5 s), so what the
     * other open reads of page 1 came through the recall's path. */
    sleep(7);
    if (strcmp(mode, "written-before") == 0) {
        memset(page, 'W', sizeof page);
        say("A: write page 2 under the delegation",
            ceph_ll_write(mount_a, fh_a, 2 * PAGE, PAGE, page));
    }
    pthread_create(&other_thread, NULL, other_open, NULL);

    bool done = wait_flag(&other_done) && wait_flag(&returned);
    if (!done) {
        printf("%7.3f s  still waiting after %d s: the other open %s, the "
               "returner %s\n", seconds(), WAIT_S,
               other_done ? "finished" : "waits", returned ? "finished"
                                                           : "waits");
        fflush(stdout);
        _exit(1);
    }
    pthread_join(returner_thread, NULL);
    pthread_join(other_thread, NULL);
    ceph_ll_close(mount_a, fh_a);
    ceph_unlink(mount_a, name);
    ceph_unmount(mount_b);
    ceph_release(mount_b);
    ceph_unmount(mount_a);
    ceph_release(mount_a);
    return 0;
}
