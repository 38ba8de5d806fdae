/*
 * journal_tx.c - the system calls of one sqlite rollback-journal
 * transaction (journal_mode delete), as sqlite makes them, each kind timed:
 * where a container's database time goes. Plain POSIX calls, so one binary
 * measures ext4, overlayfs and, under LD_PRELOAD of libdanaus.so, Danaus.
 * Per transaction: 8 record locks on the database, access of the journal,
 * fstat and a 16-byte pread of the database, the journal's O_CREAT open,
 * 2 pwrite and an fdatasync of it, an open, fsync and close of the
 * directory, the journal's header pwrite and fdatasync, a page written and
 * fdatasync'd in the database, the journal's close and unlink.
 *
 *   journal-tx DIR [N]     N transactions (default 2000) on DIR/t.db
 *
 * Prints microseconds per transaction, then per kind: calls per
 * transaction, microseconds each and per transaction.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum kind { LOCK, ACCESS, FSTAT, PREAD, OPEN_CREAT, PWRITE, FSYNC, OPEN_DIR,
            CLOSE, UNLINK, KINDS };
static const char *const names[KINDS] = {
    "fcntl-lock", "access", "fstat", "pread", "open-creat",
    "pwrite", "fsync", "open-dir", "close", "unlink"};
static double total_us[KINDS];
static long calls[KINDS];

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Times one call of kind k and yields its result. */
#define TIMED(k, expr)                                                      \
    ({                                                                      \
        double t0_ = now_us();                                              \
        long r_ = (long)(expr);                                             \
        total_us[k] += now_us() - t0_;                                      \
        calls[k]++;                                                         \
        r_;                                                                 \
    })

/* A failed step ends the run: its timings would describe another path. */
static void must(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

static void lock(int fd, short type, off_t start, off_t len)
{
    struct flock f = {.l_type = type, .l_whence = SEEK_SET,
                      .l_start = start, .l_len = len};
    must(TIMED(LOCK, fcntl(fd, F_SETLK, &f)) == 0, "fcntl F_SETLK");
}

/* sqlite's lock bytes: PENDING, RESERVED, SHARED's range. */
#define PENDING 1073741824
#define RESERVED (PENDING + 1)
#define SHARED_AT (PENDING + 2)
#define SHARED_LEN 510

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: journal-tx DIR [N]\n");
        return 2;
    }
    const char *dir = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 2000;
    char db[4096], journal[4096];
    snprintf(db, sizeof db, "%s/t.db", dir);
    snprintf(journal, sizeof journal, "%s/t.db-journal", dir);
    static char page[8192];
    memset(page, 'x', sizeof page);
    int fd = open(db, O_RDWR | O_CREAT, 0644);
    if (fd < 0 || pwrite(fd, page, 8192, 0) != 8192) {
        perror(db);
        return 1;
    }
    double start = now_us();
    for (int i = 0; i < n; i++) {
        struct stat st;
        int jfd, dfd;
        lock(fd, F_RDLCK, PENDING, 1);
        lock(fd, F_RDLCK, SHARED_AT, SHARED_LEN);
        lock(fd, F_UNLCK, PENDING, 1);
        TIMED(ACCESS, access(journal, F_OK));
        must(TIMED(FSTAT, fstat(fd, &st)) == 0, "fstat");
        must(TIMED(PREAD, pread(fd, page, 16, 24)) == 16, "pread");
        lock(fd, F_WRLCK, RESERVED, 1);
        TIMED(OPEN_CREAT, jfd = open(journal, O_RDWR | O_CREAT | O_NOFOLLOW |
                                                  O_CLOEXEC, 0644));
        must(jfd >= 0, journal);
        must(TIMED(PWRITE, pwrite(jfd, page, 512, 0)) == 512, "journal head");
        must(TIMED(PWRITE, pwrite(jfd, page, 4100, 512)) == 4100,
             "journal pages");
        must(TIMED(FSYNC, fdatasync(jfd)) == 0, "journal fdatasync");
        TIMED(OPEN_DIR, dfd = open(dir, O_RDONLY));
        must(dfd >= 0, dir);
        must(TIMED(FSYNC, fsync(dfd)) == 0, "fsync directory");
        must(TIMED(CLOSE, close(dfd)) == 0, "close directory");
        must(TIMED(PWRITE, pwrite(jfd, page, 12, 0)) == 12, "journal count");
        must(TIMED(FSYNC, fdatasync(jfd)) == 0, "journal fdatasync");
        lock(fd, F_WRLCK, PENDING, 1);
        lock(fd, F_WRLCK, SHARED_AT, SHARED_LEN);
        must(TIMED(PWRITE, pwrite(fd, page, 4096, 0)) == 4096, "db page");
        must(TIMED(FSYNC, fdatasync(fd)) == 0, "database fdatasync");
        must(TIMED(CLOSE, close(jfd)) == 0, "close journal");
        must(TIMED(UNLINK, unlink(journal)) == 0, "unlink journal");
        lock(fd, F_RDLCK, SHARED_AT, SHARED_LEN);
        lock(fd, F_UNLCK, 0, 0);
    }
    printf("%.1f us per transaction\n", (now_us() - start) / n);
    for (int k = 0; k < KINDS; k++)
        printf("%-11s %4.1f per transaction %7.2f us each %7.1f us\n",
               names[k], (double)calls[k] / n, total_us[k] / calls[k],
               total_us[k] / n);
    close(fd);
    unlink(db);
    return 0;
}
