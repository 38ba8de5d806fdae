/*
 * test_tar_stream.c - the tar ends of danaus cp (engine/tar_stream.h).
 * Out: what a container's side sends is written as a tar archive only
 * when it is a plain tree; names that climb or hold a '/', unknown
 * kinds, an END without a directory and lengths past the limits fail the
 * copy, and an honest tree reads back whole through tar(1). In: archives
 * an attacker wrote (names and links that climb out, bad checksums,
 * headers that lie about sizes, device nodes) fed to tar_send, with
 * tree_receive making what passes in a fresh directory.
 */
#include "fail.h"
#include "forged_stream.h"
#include "tar_stream.h"
#include "tree_stream.h"

#include <fcntl.h>
#include <stdint.h>
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

/* ---- in ---- */

struct archive {
    unsigned char bytes[65536];
    size_t len;
};

/* A ustar header block (name, type, size, link) with its checksum,
 * then the data padded to a block; lie_size, when not 0, is the size
 * the header claims. */
static void member(struct archive *a, const char *name, char type,
                   const char *data, const char *link, uint64_t lie_size)
{
    unsigned char *h = a->bytes + a->len;
    size_t len = data ? strlen(data) : 0;
    memset(h, 0, 512);
    memcpy(h, name, strlen(name) < 100 ? strlen(name) : 100);
    snprintf((char *)h + 100, 8, "%07o", 0644);
    snprintf((char *)h + 108, 8, "%07o", 0);
    snprintf((char *)h + 116, 8, "%07o", 0);
    snprintf((char *)h + 124, 12, "%011llo",
             (unsigned long long)(lie_size ? lie_size : len) & 077777777777);
    snprintf((char *)h + 136, 12, "%011o", 1000000000);
    h[156] = (unsigned char)type;
    if (link)
        memcpy(h + 157, link, strlen(link));
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += h[i];
    snprintf((char *)h + 148, 8, "%06o", sum);
    a->len += 512;
    memcpy(a->bytes + a->len, data ? data : "", len);
    a->len += (len + 511) / 512 * 512;
}

static void end(struct archive *a)
{
    memset(a->bytes + a->len, 0, 1024);
    a->len += 1024;
}

static char dir[64];

/* tar_send of the archive (in a child) into tree_receive, which makes
 * it in a fresh dir; the receiver's result, its message in message. */
static int unpack(const struct archive *a, char *message, size_t size)
{
    char file[] = "/tmp/danaus-tar-in.XXXXXX";
    int in = mkstemp(file), sock[2];
    assert_true(in >= 0);
    unlink(file);
    assert_int_equal(write(in, a->bytes, a->len), (ssize_t)a->len);
    assert_int_equal(lseek(in, 0, SEEK_SET), 0);
    snprintf(dir, sizeof dir, "/tmp/danaus-tar-dir.XXXXXX");
    assert_non_null(mkdtemp(dir));
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sock), 0);
    fail_clear(); /* (before the fork: the first failure is kept) */
    pid_t pid = fork();
    if (pid == 0) {
        close(sock[1]);
        _exit(tar_send(in, sock[0]) < 0);
    }
    close(sock[0]);
    close(in);
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    int rc = tree_receive(sock[1], fd, NULL, TREE_CONTENTS);
    snprintf(message, size, "%s", rc < 0 ? fail_message() : "");
    close(fd);
    close(sock[1]);
    waitpid(pid, NULL, 0);
    return rc;
}

/* Whether dir/path exists (not following a link), and dir removed when
 * last. */
static int made(const char *path)
{
    char full[192];
    struct stat st;
    snprintf(full, sizeof full, "%s/%s", dir, path);
    return lstat(full, &st) == 0;
}

static void clean(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void an_honest_archive_is_made_in_any_order(void **state)
{
    static struct archive a;
    char msg[256];
    a.len = 0;
    member(&a, "./d/sub/f", '0', "deep\n", NULL, 0);
    member(&a, "top", '0', "top\n", NULL, 0);
    member(&a, "d/", '5', NULL, NULL, 0); /* after what lies in it */
    member(&a, "d/l", '2', NULL, "sub/f", 0);
    member(&a, "/abs", '0', "abs\n", NULL, 0);
    member(&a, "d/sub/h", '1', NULL, "d/sub/f", 0);
    member(&a, "null", '3', NULL, NULL, 0);
    member(&a, "fifo", '6', NULL, NULL, 0);
    end(&a);
    assert_int_equal(unpack(&a, msg, sizeof msg), 0);
    assert_true(made("d/sub/f") && made("top") && made("d/l") &&
                made("abs") && made("d/sub/h"));
    assert_false(made("null") || made("fifo"));
    char path[192];
    struct stat f, h;
    snprintf(path, sizeof path, "%s/d/sub/f", dir);
    assert_int_equal(stat(path, &f), 0);
    snprintf(path, sizeof path, "%s/d/sub/h", dir);
    assert_int_equal(stat(path, &h), 0);
    assert_true(f.st_ino == h.st_ino);
    assert_int_equal(f.st_mtim.tv_sec, 1000000000);
    clean();
}

static void hostile_archives_are_refused(void **state)
{
    static const struct {
        const char *name;
        char type;
        const char *link, *says;
    } cases[] = {
        {"../escape", '0', NULL, "is outside the directory"},
        {"a/../../escape", '0', NULL, "is outside the directory"},
        {"out", '2', "../x", "points outside the directory"},
        {"d/out", '2', "../../x", "points outside the directory"},
        {"h", '1', "../x", "is outside the directory"},
        {"s", 'S', NULL, "of a kind cp does not copy"},
    };
    static struct archive a;
    char msg[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        a.len = 0;
        member(&a, cases[i].name, cases[i].type, NULL, cases[i].link, 0);
        end(&a);
        assert_int_equal(unpack(&a, msg, sizeof msg), -1);
        assert_non_null(strstr(msg, cases[i].says));
        clean();
    }

    /* A link the archive made is not passed through. */
    a.len = 0;
    member(&a, "s", '2', NULL, "/tmp", 0);
    member(&a, "s/planted", '0', "x", NULL, 0);
    end(&a);
    assert_int_equal(unpack(&a, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "cannot enter s"));
    assert_int_equal(access("/tmp/planted", F_OK), -1);
    clean();

    /* A broken checksum; a size past what follows; garbage. */
    a.len = 0;
    member(&a, "f", '0', "x", NULL, 0);
    a.bytes[0] = 'g';
    end(&a);
    assert_int_equal(unpack(&a, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "checksum"));
    clean();
    a.len = 0;
    member(&a, "f", '0', "x", NULL, 1ull << 32);
    assert_int_equal(unpack(&a, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "ends inside"));
    clean();
    a.len = 0;
    member(&a, "p", 'x', "999999 path=x\n", NULL, 0); /* a lying record */
    member(&a, "f", '0', "x", NULL, 0);
    end(&a);
    assert_int_equal(unpack(&a, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "broken pax header"));
    clean();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(an_honest_tree_reads_back),
        cmocka_unit_test(forged_records_fail_the_copy),
        cmocka_unit_test(an_honest_archive_is_made_in_any_order),
        cmocka_unit_test(hostile_archives_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
