/*
 * test_log.c - danausd's log lines (fsservice/core/log.h) as a reader of
 * a pool's log relies on them: after log_start every line on stderr,
 * whichever call wrote it and in how many pieces, begins with the time
 * (UTC, ms) and the service's name, and lines of threads writing at once
 * stay whole, also lines that go around stdio (a raw write(2), libcephfs's
 * own) and the last lines before a crash. Each case runs in a child whose
 * descriptor 2 is a pipe, read until every writer has closed it.
 */
#include "fsservice/core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#ifdef DANAUS_WITH_CEPH
#include <cephfs/libcephfs.h>
#endif

#define STAMP "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "

/* Runs body in a child whose descriptor 2 is a pipe; what reaches the
 * pipe until every writer has closed it (the relay too) in out. The child
 * may end by a signal (a crash). */
static void run_logged(void (*body)(void), char *out, size_t size)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(p[0]);
        dup2(p[1], STDERR_FILENO);
        close(p[1]);
        unsetenv("DANAUS_LOG_PIPE");
        body();
        _exit(0);
    }
    close(p[1]);
    size_t used = 0;
    ssize_t n;
    while (used < size - 1 &&
           (n = read(p[0], out + used, size - 1 - used)) > 0)
        used += (size_t)n;
    out[used] = '\0';
    close(p[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
}

/* Each line of text matches the pattern; their number. */
static int lines_matching(char *text, const char *pattern)
{
    regex_t re;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    int n = 0;
    for (char *save, *line = strtok_r(text, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), n++)
        if (regexec(&re, line, 0, NULL, 0) != 0)
            fail_msg("a line without its time and name: [%s]", line);
    regfree(&re);
    return n;
}

static void pieces(void)
{
    fprintf(stderr, "before: no time\n");
    log_start("tenant-a");
    fprintf(stderr, "danausd: one line\n");
    fprintf(stderr, "danausd: two ");
    fputs("pieces", stderr);
    fputc('\n', stderr);
    fprintf(stderr, "a\nb\n");
    errno = ENOENT;
    perror("danausd: perror");
}

static void every_line_has_its_time_and_name(void **state)
{
    char text[4096];
    run_logged(pieces, text, sizeof text);
    assert_non_null(strstr(text, "before: no time\n"));
    char *after = strstr(text, "before: no time\n") + 16;
    assert_non_null(strstr(after, " tenant-a danausd: one line\n"));
    assert_non_null(strstr(after, " tenant-a danausd: two pieces\n"));
    assert_non_null(strstr(after, " tenant-a a\n"));
    assert_non_null(strstr(after, " tenant-a b\n"));
    assert_non_null(
        strstr(after, " tenant-a danausd: perror: No such file or directory\n"));
    assert_int_equal(lines_matching(after, STAMP "tenant-a "), 5);
}

static void stamp_is_now(void)
{
    log_start("s");
    fprintf(stderr, "x\n");
}

static void the_time_is_the_utc_now(void **state)
{
    char text[256], expected[32];
    time_t before = time(NULL);
    run_logged(stamp_is_now, text, sizeof text);
    /* time() reads the clock the kernel updates at its tick, which may
     * still say the last second when the log's CLOCK_REALTIME says the
     * next. */
    time_t after = time(NULL) + 1;
    struct tm tm;
    int seen = 0;
    for (time_t t = before; t <= after; t++) {
        gmtime_r(&t, &tm);
        strftime(expected, sizeof expected, "%Y-%m-%dT%H:%M:%S.", &tm);
        seen |= strncmp(text, expected, strlen(expected)) == 0;
    }
    assert_true(seen);
}

#define THREADS 4
#define LINES 500

static void *writer(void *arg)
{
    for (int i = 0; i < LINES; i++)
        fprintf(stderr, "writer %ld line %d of %s\n", (long)arg, i,
                "a line long enough to be written in more than one piece");
    return NULL;
}

static void threads(void)
{
    log_start("p");
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, writer, (void *)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

static void lines_of_threads_stay_whole(void **state)
{
    static char text[THREADS * LINES * 160];
    run_logged(threads, text, sizeof text);
    assert_int_equal(lines_matching(text, STAMP "p writer [0-9] line [0-9]+ "
                                          "of a line long enough to be "
                                          "written in more than one piece$"),
                     THREADS * LINES);
}

static void raw_then_killed(void)
{
    log_start("r");
    static const char raw[] = "raw: one line\nraw: two ";
    static const char rest[] = "pieces\n";
    if (write(STDERR_FILENO, raw, sizeof raw - 1) < 0 ||
        write(STDERR_FILENO, rest, sizeof rest - 1) < 0)
        _exit(1);
    fprintf(stderr, "stdio: last words\n");
    raise(SIGKILL);
}

static void raw_writes_and_the_last_lines_of_a_crash(void **state)
{
    char text[1024];
    run_logged(raw_then_killed, text, sizeof text);
    assert_non_null(strstr(text, " r raw: one line\n"));
    assert_non_null(strstr(text, " r raw: two pieces\n"));
    assert_non_null(strstr(text, " r stdio: last words\n"));
    assert_int_equal(lines_matching(text, STAMP "r "), 3);
}

#ifdef DANAUS_WITH_CEPH
/* libcephfs says why it cannot start, from its own threads, on
 * descriptor 2 (err_to_stderr, on by default for a client). */
static void ceph_complains(void)
{
    log_start("c");
    struct ceph_mount_info *cm;
    if (ceph_create(&cm, NULL) < 0)
        _exit(1);
    ceph_conf_read_file(cm, "/nonexistent/ceph.conf");
    ceph_init(cm);
    ceph_release(cm);
}

static void libcephfs_lines_have_their_time_and_name(void **state)
{
    char text[8192];
    run_logged(ceph_complains, text, sizeof text);
    assert_non_null(strstr(text, " c unable to get monitor info"));
    lines_matching(text, STAMP "c ");
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_line_has_its_time_and_name),
        cmocka_unit_test(the_time_is_the_utc_now),
        cmocka_unit_test(lines_of_threads_stay_whole),
        cmocka_unit_test(raw_writes_and_the_last_lines_of_a_crash),
#ifdef DANAUS_WITH_CEPH
        cmocka_unit_test(libcephfs_lines_have_their_time_and_name),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
