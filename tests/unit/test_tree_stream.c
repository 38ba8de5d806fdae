/*
 * test_tree_stream.c - the receiving end of danaus cp (engine/
 * tree_stream.h) against a sender that lies: names that climb out or
 * hold a '/', lengths past the limits, unknown kinds, a link the stream
 * then tries to write through. Each is refused with nothing made outside
 * the directory given; an honest tree is made whole.
 */
#include "fail.h"
#include "forged_stream.h"
#include "tree_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

static char top[64];     /* a fresh directory per case */
static char inside[128]; /* top/in: the directory given to the receiver */

static int setup(void **state)
{
    snprintf(top, sizeof top, "/tmp/danaus-tree-test.XXXXXX");
    assert_non_null(mkdtemp(top));
    snprintf(inside, sizeof inside, "%s/in", top);
    assert_int_equal(mkdir(inside, 0700), 0);
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", top);
    return system(cmd);
}

static void put(struct forged *f, enum tree_kind kind, unsigned mode,
                const void *payload, size_t len, size_t claimed)
{
    forged_put(f, kind, mode, payload, len, claimed);
}

#define PUT(f, kind, text) put(f, kind, 0644, text, strlen(text), strlen(text))

/* Feeds the forged stream to tree_receive into inside (named name) with
 * flags; its result, with the failure's message in message. */
static int receive_with(const struct forged *f, const char *name,
                        unsigned flags, char *message, size_t size)
{
    pid_t pid = -1;
    int sock = forged_feed(f, &pid);
    assert_true(sock >= 0);
    int dir = open(inside, O_RDONLY | O_DIRECTORY);
    assert_true(dir >= 0);
    fail_clear();
    int rc = tree_receive(sock, dir, name, flags);
    snprintf(message, size, "%s", rc < 0 ? fail_message() : "");
    close(dir);
    close(sock);
    waitpid(pid, NULL, 0);
    return rc;
}

static int receive(const struct forged *f, const char *name, char *message,
                   size_t size)
{
    return receive_with(f, name, 0, message, size);
}

/* Whether path (under top) exists, without following a link. */
static int exists(const char *path)
{
    char full[256];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", top, path);
    return lstat(full, &st) == 0;
}

static void an_honest_tree_is_made(void **state)
{
    struct forged f = {.len = 0};
    char msg[256];
    put(&f, TREE_DIR, 04755, "d", 1, 1);
    PUT(&f, TREE_FILE, "a");
    PUT(&f, TREE_DATA, "hello");
    put(&f, TREE_DATA, 0, "", 0, 0);
    put(&f, TREE_LINK, 0, "l\0a", 3, 3);
    put(&f, TREE_END, 0, "", 0, 0);
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), 0);
    char path[256], link[16] = "";
    snprintf(path, sizeof path, "%s/d/l", inside);
    assert_int_equal(readlink(path, link, sizeof link - 1), 1);
    assert_string_equal(link, "a");
    struct stat st;
    snprintf(path, sizeof path, "%s/d", inside);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0755); /* setuid dropped */
}

static void names_that_climb_or_hold_a_slash_are_refused(void **state)
{
    static const char *const names[] = {"..", ".", "../out", "a/b",
                                        "/abs"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct forged f = {.len = 0};
        char msg[256];
        PUT(&f, TREE_FILE, names[i]);
        PUT(&f, TREE_DATA, "x");
        put(&f, TREE_DATA, 0, "", 0, 0);
        assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
        assert_non_null(strstr(msg, "refused the name"));
    }
    struct forged f = {.len = 0};
    char msg[256];
    put(&f, TREE_DIR, 0755, "a\0b", 3, 3); /* a NUL inside */
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "refused the name"));
    assert_false(exists("out"));
    assert_false(exists("in/a"));
}

static void lengths_past_the_limits_and_unknown_kinds_are_refused(void **state)
{
    struct forged f = {.len = 0};
    char msg[256];
    put(&f, TREE_FILE, 0644, "f", 1, 1u << 30); /* a name of 1 GiB */
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "a record of"));

    f.len = 0;
    PUT(&f, TREE_FILE, "f");
    put(&f, TREE_DATA, 0, "", 0, 1u << 20); /* data past DATA_MAX */
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "a record of"));

    f.len = 0;
    put(&f, 77, 0644, "f", 1, 1);
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "unknown kind 77"));

    f.len = 0;
    put(&f, TREE_LINK, 0, "l", 1, 1); /* no target */
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "without a target"));
}

/* A link to a directory outside, then a directory and a file by the same
 * name: nothing is written through the link. */
static void nothing_is_written_through_a_sent_link(void **state)
{
    char target[128], msg[256];
    snprintf(target, sizeof target, "%s/outside", top);
    assert_int_equal(mkdir(target, 0700), 0);
    struct forged f = {.len = 0};
    char link[160];
    int n = snprintf(link, sizeof link, "d%c%s", '\0', target);
    put(&f, TREE_DIR, 0755, "t", 1, 1);
    put(&f, TREE_LINK, 0, link, (size_t)n, (size_t)n);
    PUT(&f, TREE_DIR, "d");
    PUT(&f, TREE_FILE, "x");
    put(&f, TREE_DATA, 0, "", 0, 0);
    put(&f, TREE_END, 0, "", 0, 0);
    put(&f, TREE_END, 0, "", 0, 0);
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_false(exists("outside/x"));

    /* A file by the link's name replaces the link, not its target. */
    f.len = 0;
    n = snprintf(link, sizeof link, "f%c%s/victim", '\0', top);
    put(&f, TREE_DIR, 0755, "u", 1, 1);
    put(&f, TREE_LINK, 0, link, (size_t)n, (size_t)n);
    PUT(&f, TREE_FILE, "f");
    PUT(&f, TREE_DATA, "pwned");
    put(&f, TREE_DATA, 0, "", 0, 0);
    put(&f, TREE_END, 0, "", 0, 0);
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), 0);
    assert_false(exists("victim"));
    assert_true(exists("in/u/f"));
}

/* Hard links name entries below the receiver's directory only: no
 * climbing out, no way through a link. */
static void hard_links_stay_inside(void **state)
{
    char msg[256], path[256], other[256];
    struct forged f = {.len = 0};
    put(&f, TREE_DIR, 0755, "t", 1, 1);
    PUT(&f, TREE_FILE, "a");
    PUT(&f, TREE_DATA, "same");
    put(&f, TREE_DATA, 0, "", 0, 0);
    put(&f, TREE_HARDLINK, 0, "h\0t/a", 6, 6);
    put(&f, TREE_END, 0, "", 0, 0);
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), 0);
    struct stat a, h;
    snprintf(path, sizeof path, "%s/t/a", inside);
    snprintf(other, sizeof other, "%s/t/h", inside);
    assert_int_equal(stat(path, &a), 0);
    assert_int_equal(stat(other, &h), 0);
    assert_true(a.st_ino == h.st_ino);

    snprintf(path, sizeof path, "%s/victim", top);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    assert_true(fd >= 0);
    close(fd);
    static const char *const paths[] = {"../victim", "t/../../victim",
                                        "/victim", "", "u/l/victim"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char link[64], body[160];
        f.len = 0;
        int n = snprintf(link, sizeof link, "l%c%s", '\0', top);
        put(&f, TREE_DIR, 0755, "u", 1, 1);
        put(&f, TREE_LINK, 0, link, (size_t)n, (size_t)n);
        put(&f, TREE_END, 0, "", 0, 0);
        assert_int_equal(receive(&f, NULL, msg, sizeof msg), 0);
        f.len = 0;
        n = snprintf(body, sizeof body, "x%c%s", '\0', paths[i]);
        put(&f, TREE_DIR, 0755, "v", 1, 1);
        put(&f, TREE_HARDLINK, 0, body, (size_t)n, (size_t)n);
        put(&f, TREE_END, 0, "", 0, 0);
        assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
        assert_false(exists("in/v/x"));
    }
    assert_int_equal(stat(path, &a), 0);
    assert_int_equal(a.st_nlink, 1);
}

/* TREE_CONTENTS: the top directory's entries land in the directory
 * given, which keeps its mode; TREE_ARCHIVE: owners as sent (as root),
 * else the receiver's; times as sent. */
static void contents_owners_and_times(void **state)
{
    char msg[256], path[256];
    struct forged f = {.len = 0};
    put(&f, TREE_DIR, 0777, "ignored", 7, 7);
    PUT(&f, TREE_FILE, "f");
    put(&f, TREE_DATA, 0, "", 0, 0);
    put(&f, TREE_END, 0, "", 0, 0);
    assert_int_equal(receive_with(&f, NULL, TREE_CONTENTS, msg, sizeof msg),
                     0);
    struct stat st;
    snprintf(path, sizeof path, "%s/f", inside);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mtim.tv_sec, 1000000000);
    assert_int_equal(st.st_uid, getuid());
    assert_int_equal(stat(inside, &st), 0);
    assert_int_equal(st.st_mode & 07777, 0700);
    assert_false(exists("in/ignored"));
    if (getuid() != 0)
        return; /* (owners can be given by root only) */
    assert_int_equal(receive_with(&f, NULL, TREE_CONTENTS | TREE_ARCHIVE, msg,
                                  sizeof msg),
                     0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_uid, 1234);
    assert_int_equal(st.st_gid, 4321);
}

/* The sender's failure is the message told. */
static void the_senders_failure_is_told(void **state)
{
    struct forged f = {.len = 0};
    char msg[256];
    PUT(&f, TREE_FAIL, "cp: cannot open x: Permission denied");
    assert_int_equal(receive(&f, NULL, msg, sizeof msg), -1);
    assert_string_equal(msg, "cp: cannot open x: Permission denied");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(an_honest_tree_is_made, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            names_that_climb_or_hold_a_slash_are_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(
            lengths_past_the_limits_and_unknown_kinds_are_refused, setup,
            teardown),
        cmocka_unit_test_setup_teardown(nothing_is_written_through_a_sent_link,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_senders_failure_is_told, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(hard_links_stay_inside, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(contents_owners_and_times, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
