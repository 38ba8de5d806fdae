/*
 * test_log.c - danausd's log lines (fsservice/core/log.h) as a reader of
 * a pool's log relies on them: after log_start every line on stderr,
 * whichever call wrote it and in how many pieces, begins with the time
 * (UTC, ms) and the service's name, and lines of threads writing at once
 * stay whole. Each case runs in a child whose descriptor 2 is a file.
 */
#include "fsservice/core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <regex.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#define STAMP "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z "

/* Runs body in a child with stderr going to a fresh file; the file's text
 * in out. */
static void run_logged(void (*body)(void), char *out, size_t size)
{
    char path[] = "/tmp/danaus-test-log.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    unlink(path);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fd, STDERR_FILENO);
        body();
        _exit(0);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ssize_t n = pread(fd, out, size - 1, 0);
    assert_true(n >= 0);
    out[n] = '\0';
    close(fd);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_line_has_its_time_and_name),
        cmocka_unit_test(the_time_is_the_utc_now),
        cmocka_unit_test(lines_of_threads_stay_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
