/*
 * test_tar_stream.c - the tar end of danaus cp out (engine/
 * tar_stream.h): what a container's side sends is written as a tar
 * archive only when it is a plain tree; names that climb or hold a '/',
 * unknown kinds, an END without a directory and lengths past the limits
 * fail the copy. An honest tree reads back whole through tar(1).
 */
#include "fail.h"
#include "forged_stream.h"
#include "tar_stream.h"
#include "tree_stream.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

static void put(struct forged *f, enum tree_kind kind, const void *payload,
                size_t len)
{
    forged_put(f, kind, 0644, payload, len, len);
}

#define PUT(f, kind, text) put(f, kind, text, strlen(text))

static char archive[64];

/* Feeds the stream to tar_receive, which writes the archive file; its
 * result, with the failure's message in message. */
static int receive(const struct forged *f, char *message, size_t size)
{
    pid_t pid = -1;
    int sock = forged_feed(f, &pid);
    assert_true(sock >= 0);
    snprintf(archive, sizeof archive, "/tmp/danaus-tar-test.XXXXXX");
    int out = mkstemp(archive);
    assert_true(out >= 0);
    fail_clear();
    int rc = tar_receive(sock, out);
    snprintf(message, size, "%s", rc < 0 ? fail_message() : "");
    close(out);
    close(sock);
    waitpid(pid, NULL, 0);
    return rc;
}

static void an_honest_tree_reads_back(void **state)
{
    struct forged f = {.len = 0};
    char msg[256], cmd[256], listing[256] = "";
    PUT(&f, TREE_DIR, "t");
    PUT(&f, TREE_FILE, "a");
    PUT(&f, TREE_DATA, "hello\n");
    put(&f, TREE_DATA, "", 0);
    put(&f, TREE_LINK, "l\0a", 3);
    put(&f, TREE_END, "", 0);
    assert_int_equal(receive(&f, msg, sizeof msg), 0);
    snprintf(cmd, sizeof cmd, "tar -tf %s | xargs; tar -xOf %s t/a", archive,
             archive);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(listing, 1, sizeof listing - 1, p);
    listing[n] = '\0';
    pclose(p);
    unlink(archive);
    assert_string_equal(listing, "t/ t/a t/l\nhello\n");
}

static void forged_records_fail_the_copy(void **state)
{
    static const char *const names[] = {"..", ".", "a/b", "/abs", ""};
    char msg[256];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        struct forged f = {.len = 0};
        PUT(&f, TREE_FILE, names[i]);
        put(&f, TREE_DATA, "", 0);
        assert_int_equal(receive(&f, msg, sizeof msg), -1);
        assert_non_null(strstr(msg, "refused the name"));
        unlink(archive);
    }
    struct forged f = {.len = 0};
    put(&f, TREE_END, "", 0); /* an END with no directory open */
    assert_int_equal(receive(&f, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "a broken end of directory"));
    unlink(archive);

    f.len = 0;
    put(&f, TREE_HARDLINK, "h\0a", 3); /* not a kind it sends */
    assert_int_equal(receive(&f, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "unknown kind"));
    unlink(archive);

    f.len = 0;
    put(&f, TREE_LINK, "l", 1);
    assert_int_equal(receive(&f, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "without a target"));
    unlink(archive);

    f.len = 0;
    struct tree_record h = {.kind = TREE_DIR, .len = 1u << 30};
    memcpy(f.bytes, &h, sizeof h);
    f.len = sizeof h;
    assert_int_equal(receive(&f, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "a record of"));
    unlink(archive);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_honest_tree_reads_back),
        cmocka_unit_test(forged_records_fail_the_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
