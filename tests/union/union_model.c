/*
 * union_model.c - the randomized model test's client (tests/union/model.sh):
 * a long sequence of random writes, appends, truncates and reads on one
 * file of a union, checked against the same sequence on a model in memory.
 * Plain POSIX calls: model.sh runs it under LD_PRELOAD of libdanaus.so on
 * a Danaus union whose lower branch holds the file, and kills danausd in
 * the middle.
 *
 *   union_model prepare FILE SEED        the file's lower content
 *   union_model run FILE SEED OPS LOG [sync]
 *   union_model check FILE SEED LOG
 *   union_model state UPPER_FILE         "partial" or "whole" (by the
 *                                        union's record on the host file)
 *
 * run does the ops in order and appends the index of each to LOG (a host
 * file, outside Danaus) once it returned: LOG is the list of acknowledged
 * ops. Reads compare with the model as they go, and the file's st_ino
 * after each op with the lower file's before the copy-up. "sync" fsyncs the file
 * after each change before acknowledging it (for backends whose client
 * caches writes: an acknowledged write then survives the service's death
 * on every backend). check rebuilds the model from LOG's last index: the
 * file must hold every acknowledged op, and the one that was under way
 * may show, byte by byte, either its old or its new contents (a write
 * under way may also have grown the file by part of its length).
 *
 * Exit status: 0 when the file matches, 1 on a mismatch or an error
 * (printed), 2 for bad arguments.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#define LOWER_SIZE (4u << 20)
#define MAX_SIZE (12u << 20)
#define MAX_WRITE (64u << 10)

enum kind { WRITE, APPEND, TRUNCATE, READ, SYNC };

struct op {
    enum kind kind;
    uint64_t off, len;
    uint8_t seed;
};

struct model {
    uint8_t *data;
    uint64_t size;
};

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Op i of the sequence of seed, on a file of `size` bytes. Writes are
 * small and scattered, so the copy stays partial for a while, with some
 * large ones. */
static struct op make_op(uint64_t seed, int i, uint64_t size)
{
    uint64_t s = seed * 1000003u + (uint64_t)i * 7919u + 1;
    for (int k = 0; k < 4; k++)
        next(&s);
    struct op op = {.seed = (uint8_t)next(&s)};
    unsigned r = (unsigned)(next(&s) % 100);
    uint64_t len = next(&s) % 4 == 0 ? 1 + next(&s) % MAX_WRITE
                                     : 1 + next(&s) % 64;
    if (r < 50) {
        op.kind = WRITE;
        op.off = next(&s) % (size + 8192);
        op.len = len;
        if (op.off + op.len > MAX_SIZE)
            op.kind = READ;
    } else if (r < 60) {
        op.kind = size + len > MAX_SIZE ? READ : APPEND;
        op.len = len;
    } else if (r < 70) {
        op.kind = TRUNCATE;
        /* Mostly near the end, so the lower bytes stay a while. */
        unsigned how = (unsigned)(next(&s) % 6);
        uint64_t cut = next(&s) % 65536;
        op.len = how < 2   ? size + cut
                 : how < 5 ? (size > cut ? size - cut : 0)
                           : next(&s) % (size + 1);
        if (op.len > MAX_SIZE)
            op.len = MAX_SIZE;
    } else if (r < 95) {
        op.kind = READ;
        op.off = size ? next(&s) % size : 0;
        op.len = 1 + next(&s) % (2 * MAX_WRITE);
    } else {
        op.kind = SYNC;
    }
    return op;
}

static void fill(uint8_t *buf, uint64_t len, uint8_t seed)
{
    for (uint64_t i = 0; i < len; i++)
        buf[i] = (uint8_t)(seed + i * 131 + (i >> 9));
}

/* Applies op to the model; for APPEND, op->off gets where it went. */
static void apply(struct model *m, struct op *op)
{
    switch (op->kind) {
    case APPEND:
        op->off = m->size;
        /* fall through */
    case WRITE:
        if (op->off > m->size)
            memset(m->data + m->size, 0, op->off - m->size);
        fill(m->data + op->off, op->len, op->seed);
        if (op->off + op->len > m->size)
            m->size = op->off + op->len;
        break;
    case TRUNCATE:
        if (op->len > m->size)
            memset(m->data + m->size, 0, op->len - m->size);
        m->size = op->len;
        break;
    case READ:
    case SYNC:
        break;
    }
}

static int fail(const char *what, const char *file)
{
    fprintf(stderr, "union_model: %s %s: %s\n", what, file, strerror(errno));
    return 1;
}

static struct model model_new(uint64_t seed)
{
    struct model m = {.data = malloc(MAX_SIZE), .size = LOWER_SIZE};
    if (!m.data) {
        perror("union_model");
        exit(1);
    }
    fill(m.data, LOWER_SIZE, (uint8_t)seed);
    return m;
}

static int prepare(const char *file, uint64_t seed)
{
    struct model m = model_new(seed);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, m.data, m.size) != (ssize_t)m.size ||
        fsync(fd) < 0 || close(fd) < 0)
        return fail("prepare", file);
    return 0;
}

/* Reads [off, off + len) and compares it with the model. */
static int read_check(int fd, const char *file, const struct model *m,
                      uint64_t off, uint64_t len, uint8_t *buf)
{
    ssize_t n = pread(fd, buf, len, (off_t)off);
    if (n < 0)
        return fail("pread", file);
    uint64_t want = off >= m->size ? 0
                    : m->size - off < len ? m->size - off
                                          : len;
    if ((uint64_t)n != want || memcmp(buf, m->data + off, want) != 0) {
        fprintf(stderr, "union_model: %s: read of %llu at %llu differs "
                        "from the model (got %zd bytes)\n", file,
                (unsigned long long)len, (unsigned long long)off, n);
        return 1;
    }
    return 0;
}

static int run(const char *file, uint64_t seed, int ops, const char *log,
               int sync)
{
    struct model m = model_new(seed);
    uint8_t *buf = malloc(2 * MAX_WRITE);
    struct stat st;
    if (stat(file, &st) < 0)
        return fail("stat", file);
    ino_t ino = st.st_ino; /* the lower file's, before its copy-up */
    int fd = open(file, O_RDWR);
    int afd = open(file, O_WRONLY | O_APPEND);
    int lfd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (!buf || fd < 0 || afd < 0 || lfd < 0)
        return fail("open", file);
    for (int i = 0; i < ops; i++) {
        struct op op = make_op(seed, i, m.size);
        int rc = 0;
        switch (op.kind) {
        case WRITE:
        case APPEND:
            fill(buf, op.len, op.seed);
            if ((op.kind == WRITE
                     ? pwrite(fd, buf, op.len, (off_t)op.off)
                     : write(afd, buf, op.len)) != (ssize_t)op.len)
                rc = fail("write", file);
            break;
        case TRUNCATE:
            if (ftruncate(fd, (off_t)op.len) < 0)
                rc = fail("ftruncate", file);
            break;
        case READ:
            rc = read_check(fd, file, &m, op.off, op.len, buf);
            break;
        case SYNC:
            if (fsync(fd) < 0)
                rc = fail("fsync", file);
            break;
        }
        if (rc == 0 && sync && op.kind != READ && fsync(fd) < 0)
            rc = fail("fsync", file);
        if (rc == 0 && fstat(fd, &st) < 0)
            rc = fail("fstat", file);
        if (rc == 0 && st.st_ino != ino) {
            fprintf(stderr, "union_model: %s: st_ino %llu after op %d, "
                            "%llu before the copy-up\n", file,
                    (unsigned long long)st.st_ino, i,
                    (unsigned long long)ino);
            rc = 1;
        }
        if (rc)
            return rc;
        apply(&m, &op);
        char line[16];
        int len = snprintf(line, sizeof line, "%d\n", i);
        if (write(lfd, line, (size_t)len) != len)
            return fail("write", log);
    }
    if (read_check(fd, file, &m, 0, m.size, realloc(buf, m.size + 1)))
        return 1;
    return 0;
}

/* The index of the last acknowledged op in log; -1 if none. */
static int last_acked(const char *log)
{
    FILE *f = fopen(log, "r");
    int last = -1, i;
    if (!f)
        return -1;
    while (fscanf(f, "%d", &i) == 1)
        last = i;
    fclose(f);
    return last;
}

static int check(const char *file, uint64_t seed, const char *log)
{
    int last = last_acked(log);
    struct model old = model_new(seed), new;
    for (int i = 0; i <= last; i++) {
        struct op op = make_op(seed, i, old.size);
        apply(&old, &op);
    }
    new.data = malloc(MAX_SIZE);
    memcpy(new.data, old.data, MAX_SIZE);
    new.size = old.size;
    struct op pending = make_op(seed, last + 1, old.size);
    apply(&new, &pending);

    uint8_t *buf = malloc(MAX_SIZE + 1);
    int fd = open(file, O_RDONLY);
    if (!buf || fd < 0)
        return fail("open", file);
    ssize_t n = 0, got;
    while ((got = pread(fd, buf + n, MAX_SIZE + 1 - (size_t)n, n)) > 0)
        n += got;
    if (got < 0)
        return fail("pread", file);
    /* A write that grows the file and was cut short by the service's
     * SIGKILL may have grown it by part of its bytes: the kernel stops a
     * write between pages once its writer has a fatal signal pending (seen
     * here: 229376 bytes, a page boundary, between 172497 and 230101). */
    uint64_t lo = old.size < new.size ? old.size : new.size;
    uint64_t hi = old.size < new.size ? new.size : old.size;
    int grows = pending.kind == WRITE || pending.kind == APPEND;
    if ((uint64_t)n != old.size && (uint64_t)n != new.size &&
        !(grows && (uint64_t)n > lo && (uint64_t)n < hi)) {
        fprintf(stderr, "union_model: %s: %zd bytes after op %d, expected "
                        "%llu or %llu\n", file, n, last,
                (unsigned long long)old.size, (unsigned long long)new.size);
        return 1;
    }
    for (ssize_t i = 0; i < n; i++) {
        int in_old = (uint64_t)i < old.size && buf[i] == old.data[i];
        int in_new = (uint64_t)i < new.size && buf[i] == new.data[i];
        if (!in_old && !in_new) {
            fprintf(stderr, "union_model: %s: byte %zd is %u after op %d "
                            "(acknowledged ops: %d), not the model's\n",
                    file, i, buf[i], last, last + 1);
            return 1;
        }
    }
    printf("%s: %zd bytes match the model after %d acknowledged ops\n",
           file, n, last + 1);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "prepare") == 0)
        return prepare(argv[2], strtoull(argv[3], NULL, 10));
    if ((argc == 6 || argc == 7) && strcmp(argv[1], "run") == 0)
        return run(argv[2], strtoull(argv[3], NULL, 10), atoi(argv[4]),
                   argv[5], argc == 7 && strcmp(argv[6], "sync") == 0);
    if (argc == 3 && strcmp(argv[1], "state") == 0) {
        ssize_t n = lgetxattr(argv[2], "trusted.danaus.copyup", NULL, 0);
        puts(n >= 0 ? "partial" : "whole");
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "check") == 0)
        return check(argv[2], strtoull(argv[3], NULL, 10), argv[4]);
    fprintf(stderr, "usage: union_model prepare FILE SEED | run FILE SEED "
                    "OPS LOG [sync] | check FILE SEED LOG | state FILE\n");
    return 2;
}
