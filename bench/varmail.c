/*
 * varmail.c - varmail: a mail server's file traffic, the workload of
 * issue 41's "flushing by many threads" (bench/run-flushers.sh).
 *
 * THREADS threads of one process each deliver messages into a directory
 * of their own: open a message file (O_CREAT, of FILES per thread, reused
 * round robin), WRITES pwrites of SIZE bytes one after the other, fsync,
 * close. One process, so that under the preload its threads share one
 * client and one write-back area, as a mail server's workers share one
 * page cache: every fsync makes the service write back what all of them
 * kept. Plain POSIX; the Danaus rows run it with libdanaus preloaded.
 *
 *   varmail DIR [THREADS [SECONDS [WRITES [SIZE [FILES]]]]]
 *
 * Prints one line: threads, messages per second, and the mean time of
 * each step (the open, the pwrites together, the fsync with its
 * write-back, the close) and of a whole message, in microseconds.
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
#include <time.h>
#include <unistd.h>

struct worker {
    pthread_t thread;
    const char *dir;
    int index;
    long messages;
    double open_ns, write_ns, fsync_ns, close_ns, message_ns;
};

static int writes = 4, size = 4096, files = 16;
static atomic_bool stop;

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static void *deliver(void *arg)
{
    struct worker *w = arg;
    char dir[4096], path[4200];
    snprintf(dir, sizeof dir, "%s/t%d", w->dir, w->index);
    if (mkdir(dir, 0755) < 0 && errno != EEXIST)
        die("mkdir");
    char *buf = malloc((size_t)size);
    if (!buf)
        die("malloc");
    memset(buf, 'a' + w->index % 26, (size_t)size);
    for (long m = 0; !atomic_load(&stop); m++) {
        snprintf(path, sizeof path, "%s/msg%ld", dir, m % files);
        double t0 = now_ns();
        int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("open");
        double topen = now_ns();
        for (int k = 0; k < writes; k++)
            if (pwrite(fd, buf, (size_t)size, (off_t)k * size) != size)
                die("pwrite");
        double t1 = now_ns();
        if (fsync(fd) < 0)
            die("fsync");
        double t2 = now_ns();
        if (close(fd) < 0)
            die("close");
        double t3 = now_ns();
        w->open_ns += topen - t0;
        w->write_ns += t1 - topen;
        w->fsync_ns += t2 - t1;
        w->close_ns += t3 - t2;
        w->message_ns += t3 - t0;
        w->messages++;
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: varmail DIR [THREADS [SECONDS [WRITES [SIZE [FILES]]]]]\n");
        return 2;
    }
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    double seconds = argc > 3 ? atof(argv[3]) : 5;
    writes = argc > 4 ? atoi(argv[4]) : writes;
    size = argc > 5 ? atoi(argv[5]) : size;
    files = argc > 6 ? atoi(argv[6]) : files;
    if (threads < 1 || seconds <= 0 || writes < 1 || size < 1 || files < 1) {
        fprintf(stderr, "varmail: bad arguments\n");
        return 2;
    }
    if (mkdir(argv[1], 0755) < 0 && errno != EEXIST)
        die("mkdir");
    struct worker *w = calloc((size_t)threads, sizeof *w);
    if (!w)
        die("calloc");
    double t0 = now_ns();
    for (int i = 0; i < threads; i++) {
        w[i].dir = argv[1];
        w[i].index = i;
        if (pthread_create(&w[i].thread, NULL, deliver, &w[i]))
            die("pthread_create");
    }
    struct timespec nap = {(time_t)seconds,
                           (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&nap, NULL);
    atomic_store(&stop, true);
    long messages = 0;
    double open_ns = 0, write_ns = 0, fsync_ns = 0, close_ns = 0;
    double message_ns = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(w[i].thread, NULL);
        messages += w[i].messages;
        open_ns += w[i].open_ns;
        write_ns += w[i].write_ns;
        fsync_ns += w[i].fsync_ns;
        close_ns += w[i].close_ns;
        message_ns += w[i].message_ns;
    }
    double elapsed = (now_ns() - t0) / 1e9;
    double per = messages ? 1e3 * (double)messages : 1;
    printf("threads %d messages/s %.0f open_us %.1f pwrites_us %.1f "
           "fsync_us %.1f close_us %.1f message_us %.1f\n",
           threads, (double)messages / elapsed, open_ns / per, write_ns / per,
           fsync_ns / per, close_ns / per, message_ns / per);
    free(w);
    return 0;
}
