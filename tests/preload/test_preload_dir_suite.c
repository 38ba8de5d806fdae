/*
 * test_preload_dir_suite.c - the directory calls an application makes, as
 * a program that knows nothing of Danaus.
 *
 *   test_preload_dir_suite DIR
 *
 * builds trees in DIR and prints a transcript of what opendir, readdir,
 * readdir_r, readdir64, rewinddir, telldir/seekdir, dirfd, fdopendir,
 * scandir(at)(64), getdents64, ftw and nftw report: sorted listings, d_type,
 * results and errno names. test_preload_dir_compare runs it on a plain
 * directory and on a Danaus mount and compares. Listings are sorted and
 * walk orders are checked here (a directory before its entries, or after
 * them with FTW_DEPTH), so the transcript does not depend on the order a
 * backend lists a directory in.
 *
 * Built twice: with _FILE_OFFSET_BITS=64 (readdir, scandir, nftw are then
 * readdir64, scandir64, nftw64 by asm label) and without it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

extern char **environ;

static const char *root;
static int failures;

static char *at(const char *name)
{
    static char paths[4][4096];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, sizeof paths[0], "%s/%s", root, name);
    return p;
}

static void say(const char *what, long rc)
{
    if (rc < 0)
        printf("%s = -1 %s\n", what, strerrorname_np(errno));
    else
        printf("%s = %ld\n", what, rc);
}

static void check(int ok, const char *what)
{
    printf("%s: %s\n", what, ok ? "ok" : "FAILED");
    failures += !ok;
}

static void touch(const char *path, const char *text)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, text, strlen(text)) < 0 || close(fd) < 0) {
        printf("cannot create %s: %s\n", path, strerror(errno));
        exit(1);
    }
}

static char type_letter(unsigned char t)
{
    switch (t) {
    case DT_REG: return 'f';
    case DT_DIR: return 'd';
    case DT_LNK: return 'l';
    case DT_UNKNOWN: return '?';
    default: return 'o';
    }
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Names (with their type letter in front) of everything left in d. */
struct listing {
    char *name[1024];
    int n;
};

static void list_rest(DIR *d, struct listing *l)
{
    struct dirent *e;
    errno = 0;
    while ((e = readdir(d)) != NULL && l->n < 1024) {
        char *s = malloc(strlen(e->d_name) + 3);
        sprintf(s, "%c %s", type_letter(e->d_type), e->d_name);
        l->name[l->n++] = s;
    }
    if (errno)
        printf("readdir = NULL %s\n", strerrorname_np(errno));
}

/* Forgets what l holds. */
static void listing_clear(struct listing *l)
{
    for (int i = 0; i < l->n; i++)
        free(l->name[i]);
    l->n = 0;
}

static void print_listing(const char *what, struct listing *l)
{
    qsort(l->name, (size_t)l->n, sizeof l->name[0], by_name);
    printf("%s: %d entries\n", what, l->n);
    for (int i = 0; i < l->n; i++) {
        printf("  %s\n", l->name[i]);
        free(l->name[i]);
    }
    l->n = 0;
}

/* Makes directory dir with n files named prefix and a number of width
 * digits, each holding text. */
static void make_files(const char *dir, const char *prefix, int width, int n,
                       const char *text)
{
    mkdir(at(dir), 0755);
    for (int i = 0; i < n; i++) {
        char name[160];
        snprintf(name, sizeof name, "%s/%s%0*d", dir, prefix, width, i);
        touch(at(name), text);
    }
}

static void listings(void)
{
    make_files("many", "f", 3, 300, "x");
    mkdir(at("many/sub"), 0755);
    check(symlink("f000", at("many/link")) == 0, "symlink many/link");

    struct listing l = {0};
    DIR *d = opendir(at("many"));
    list_rest(d, &l);
    print_listing("readdir", &l);
    say("closedir", closedir(d));

    for (int i = 0; i < 300; i += 3) {
        char name[64];
        snprintf(name, sizeof name, "many/f%03d", i);
        unlink(at(name));
    }
    d = opendir(at("many"));
    list_rest(d, &l);
    print_listing("readdir after unlinks", &l);

    /* rewinddir after a partial read gives everything again. */
    rewinddir(d);
    list_rest(d, &l);
    printf("after rewinddir: %d entries\n", l.n);
    listing_clear(&l);
    for (int i = 0; i < 10; i++)
        readdir(d);
    rewinddir(d);
    list_rest(d, &l);
    printf("after partial read and rewinddir: %d entries\n", l.n);
    listing_clear(&l);

    /* A stream read to its end starts over at rewinddir, and sees an
     * entry made after the end. */
    list_rest(d, &l);
    listing_clear(&l);
    printf("readdir at the end: %s\n", readdir(d) ? "an entry" : "none");
    touch(at("many/late"), "x");
    rewinddir(d);
    list_rest(d, &l);
    printf("after the end, a new entry and rewinddir: %d entries\n", l.n);
    listing_clear(&l);
    unlink(at("many/late"));
    closedir(d);

    /* readdir_r and readdir64 see the same entries. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    d = opendir(at("many"));
    struct dirent entry, *result;
    int n = 0, rc;
    while ((rc = readdir_r(d, &entry, &result)) == 0 && result) {
        l.name[l.n] = malloc(strlen(entry.d_name) + 3);
        sprintf(l.name[l.n++], "%c %s", type_letter(entry.d_type),
                entry.d_name);
        n++;
    }
    printf("readdir_r end rc = %d\n", rc);
    print_listing("readdir_r", &l);
    closedir(d);
    d = opendir(at("many"));
    struct dirent64 *e64;
    n = 0;
    while ((e64 = readdir64(d)) != NULL)
        n += e64->d_name[0] == 'f';
    printf("readdir64 f-entries = %d\n", n);
    closedir(d);
#pragma GCC diagnostic pop
}

static void seeking(void)
{
    DIR *d = opendir(at("many"));
    long pos[256];
    char names[256][256];
    int n = 0;
    for (;;) {
        long p = telldir(d);
        struct dirent *e = readdir(d);
        if (!e || n == 256)
            break;
        pos[n] = p;
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    int ok = n > 200;
    for (int i = n - 1; i >= 0; i -= 7) {
        seekdir(d, pos[i]);
        struct dirent *e = readdir(d);
        ok &= e && strcmp(e->d_name, names[i]) == 0;
        ok &= telldir(d) == (i + 1 < n ? pos[i + 1] : telldir(d));
    }
    check(ok, "telldir/seekdir resume at each entry");

    /* dirfd is a descriptor the *at calls accept. */
    struct stat st;
    say("fstatat(dirfd, f001) size",
        fstatat(dirfd(d), "f001", &st, 0) < 0 ? -1 : st.st_size);
    int fd = openat(dirfd(d), "f002", O_RDONLY);
    char c = 0;
    say("read via openat(dirfd)", fd < 0 ? -1 : read(fd, &c, 1));
    printf("byte = %c\n", c);
    close(fd);
    say("closedir", closedir(d));

    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    d = fdopendir(fd);
    check(d && dirfd(d) == fd, "fdopendir keeps the descriptor");
    struct listing l = {0};
    list_rest(d, &l);
    printf("fdopendir: %d entries\n", l.n);
    for (int i = 0; i < l.n; i++)
        free(l.name[i]);
    closedir(d);
    errno = 0;
    check(fcntl(fd, F_GETFD) < 0 && errno == EBADF,
          "closedir closed the descriptor");

    fd = open(at("many/f001"), O_RDONLY);
    errno = 0;
    d = fdopendir(fd);
    say("fdopendir(file)", d ? 0 : -1);
    close(fd);

    errno = 0;
    say("opendir(missing)", opendir(at("missing")) ? 0 : -1);
    say("opendir(file)", opendir(at("many/f001")) ? 0 : -1);
}

static int five(const struct dirent *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] == 'f' && e->d_name[n - 1] == '5';
}

static int five64(const struct dirent64 *e)
{
    size_t n = strlen(e->d_name);
    return e->d_name[0] == 'f' && e->d_name[n - 1] == '5';
}

static void scanning(void)
{
    struct dirent **list;
    int n = scandir(at("many"), &list, five, alphasort);
    say("scandir(f*5, alphasort)", n);
    for (int i = 0; i < n; i++) {
        printf("  %s %c\n", list[i]->d_name, type_letter(list[i]->d_type));
        free(list[i]);
    }
    free(list);

    n = scandir(at("many"), &list, NULL, NULL);
    say("scandir(all)", n);
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);

    int dfd = open(root, O_RDONLY | O_DIRECTORY);
    n = scandirat(dfd, "many", &list, five, versionsort);
    say("scandirat(f*5, versionsort)", n);
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
    close(dfd);

    struct dirent64 **list64;
    n = scandir64(at("many"), &list64, five64, alphasort64);
    say("scandir64", n);
    if (n > 0)
        printf("  first %s last %s\n", list64[0]->d_name,
               list64[n - 1]->d_name);
    for (int i = 0; i < n; i++)
        free(list64[i]);
    free(list64);

    say("scandir(missing)", scandir(at("missing"), &list, NULL, NULL));
}

static void raw_getdents(void)
{
    int fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    char buf[1024];
    struct listing l = {0};
    ssize_t n;
    int calls = 0;
    while ((n = getdents64(fd, buf, sizeof buf)) > 0) {
        calls++;
        for (ssize_t off = 0; off < n;) {
            struct dirent64 *e = (struct dirent64 *)(buf + off);
            l.name[l.n] = malloc(strlen(e->d_name) + 3);
            sprintf(l.name[l.n++], "%c %s", type_letter(e->d_type),
                    e->d_name);
            off += e->d_reclen;
        }
    }
    say("getdents64 at end", n);
    check(calls > 1, "getdents64 took several calls with a small buffer");
    print_listing("getdents64", &l);
    lseek(fd, 0, SEEK_SET);
    say("getdents64(8-byte buffer)", getdents64(fd, buf, 8));
    close(fd);
    say("getdents64(file)", getdents64(open(at("many/f001"), O_RDONLY), buf,
                                       sizeof buf));
}

/* Entries left in the stream on descriptor fd (fdopendir takes it), each
 * name once: -1 when one came twice. */
static int count_rest(int fd)
{
    DIR *d = fdopendir(fd);
    if (!d)
        return -1;
    static char seen[4096][256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 4096) {
        for (int i = 0; i < n; i++)
            if (strcmp(seen[i], e->d_name) == 0)
                n = -4097;
        if (n < 0)
            break;
        snprintf(seen[n++], sizeof seen[0], "%s", e->d_name);
    }
    closedir(d);
    return n < 0 ? -1 : n;
}

/* A directory's open may bring its first records along (Danaus does):
 * whatever meets the offset before a reader does sees it at the start,
 * and a listing longer than what comes along is read whole, once. */
static void read_after_open(const char *self)
{
    make_files("huge",
               "a-name-long-enough-that-the-listing-outgrows-what-an-"
               "open-brings-",
               3, 700, "");
    int fd = open(at("huge"), O_RDONLY | O_DIRECTORY);
    say("huge: entries after open", count_rest(fd));
    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    say("open(many) then lseek(SEEK_CUR)", lseek(fd, 0, SEEK_CUR));
    say("its entries", count_rest(fd));
    /* As tar opens: without O_DIRECTORY, twice (Danaus learns from the
     * first that such opens find directories). */
    for (int i = 0; i < 2; i++) {
        fd = open(at("many"), O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
        say("open(many) without O_DIRECTORY: its entries", count_rest(fd));
    }
    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    char buf[8192];
    say("open(many) then getdents64(8 bytes)", getdents64(fd, buf, 8));
    say("its entries", count_rest(fd));
    fd = open(at("huge"), O_RDONLY | O_DIRECTORY);
    ssize_t got = getdents64(fd, buf, 100);
    say("open(huge) then getdents64(100 bytes) > 0", got > 0);
    say("then lseek(SEEK_SET 0)", lseek(fd, 0, SEEK_SET));
    say("its entries", count_rest(fd));
    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    int copy = dup(fd);
    say("open(many), dup: entries through the copy", count_rest(copy));
    say("then through the first", count_rest(fd));
    /* A child that inherits the descriptor shares its offset. */
    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    pid_t pid = fork();
    if (pid == 0) {
        int n = count_rest(fd);
        _exit(n < 0 ? 255 : n > 254 ? 254 : n);
    }
    int status = -1;
    waitpid(pid, &status, 0);
    say("open(many), fork: the child's entries",
        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    say("then the parent's entries", count_rest(fd));
    /* So does a program it spawns (no fork in between). */
    fd = open(at("many"), O_RDONLY | O_DIRECTORY);
    char arg[16];
    snprintf(arg, sizeof arg, "%d", fd);
    char self_copy[4096], opt[] = "--count-fd";
    snprintf(self_copy, sizeof self_copy, "%s", self);
    char *args[] = {self_copy, opt, arg, NULL};
    status = -1;
    if (posix_spawn(&pid, self, NULL, NULL, args, environ) == 0)
        waitpid(pid, &status, 0);
    say("open(many), posix_spawn: the new program's entries",
        WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    say("then the parent's entries", count_rest(fd));
}

/* ls -l asks every name it lists for its SELinux label and its ACL: after
 * a few listings Danaus answers the absent ones from what listings said,
 * and an attribute set later is seen at once. Run by a program of its own
 * (as ls is), whose counts of what it asks start at nothing. A backend
 * without ACLs (Ceph's test cluster) says EOPNOTSUPP for them, which
 * counts as absent here. */
static void xattr_probes(void)
{
    make_files("xa", "f", 2, 40, "x");
    for (int round = 0; round < 3; round++) {
        DIR *d = opendir(at("xa"));
        struct dirent *e;
        int names = 0, absent = 0;
        while (d && (e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            struct stat st;
            snprintf(path, sizeof path, "%s/%s", at("xa"), e->d_name);
            names++;
            if (lstat(path, &st) == 0 &&
                lgetxattr(path, "security.selinux", NULL, 0) < 0 &&
                errno == ENODATA &&
                getxattr(path, "system.posix_acl_access", NULL, 0) < 0 &&
                (errno == ENODATA || errno == EOPNOTSUPP))
                absent++;
        }
        if (d)
            closedir(d);
        printf("xattr round %d: %d names, %d without label or ACL\n", round,
               names, absent);
    }
    say("setxattr(xa/f05, security.danaus-test)",
        setxattr(at("xa/f05"), "security.danaus-test", "1", 1, 0));
    say("then lgetxattr(xa/f05, security.danaus-test)",
        lgetxattr(at("xa/f05"), "security.danaus-test", NULL, 0));
    say("lgetxattr(xa/f06, security.danaus-test)",
        lgetxattr(at("xa/f06"), "security.danaus-test", NULL, 0));
}

/* Runs this program with opt and the root, its output in the transcript. */
static void run_self(const char *self, const char *opt)
{
    char self_copy[4096], opt_copy[64], root_copy[4096];
    snprintf(self_copy, sizeof self_copy, "%s", self);
    snprintf(opt_copy, sizeof opt_copy, "%s", opt);
    snprintf(root_copy, sizeof root_copy, "%s", root);
    char *args[] = {self_copy, opt_copy, root_copy, NULL};
    pid_t pid;
    int status = -1;
    fflush(stdout);
    if (posix_spawn(&pid, self, NULL, NULL, args, environ) == 0)
        waitpid(pid, &status, 0);
    say(opt, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* nftw: each report as "path typeflag level basename", and the order
 * checked: every path's parent directory came before it (pre-order) or
 * comes after it (FTW_DEPTH). */
static char walked[256][512];
static int walked_n, walk_flags, walk_cwd_ok;

static const char *flag_name(int f)
{
    static const char *names[] = {"F", "D", "DNR", "NS", "SL", "DP", "SLN"};
    return f >= 0 && f <= 6 ? names[f] : "?";
}

static int record(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    if (walked_n == 256)
        return -1;
    const char *rel = strncmp(path, root, strlen(root)) == 0
                          ? path + strlen(root) : path;
    snprintf(walked[walked_n++], sizeof walked[0], "%s %s %d %s", rel,
             flag_name(flag), ftw->level, path + ftw->base);
    /* FTW_DP is reported from inside the directory itself. */
    if ((walk_flags & FTW_CHDIR) && flag != FTW_DP) {
        struct stat here;
        walk_cwd_ok &= lstat(path + ftw->base, &here) == 0;
    }
    if (walk_flags & FTW_ACTIONRETVAL) {
        if (strcmp(path + ftw->base, "skipme") == 0)
            return FTW_SKIP_SUBTREE;
        if (strcmp(path + ftw->base, "stophere") == 0)
            return FTW_SKIP_SIBLINGS;
    }
    return 0;
}

static int walk_order_ok(void)
{
    for (int i = 0; i < walked_n; i++) {
        char parent[512];
        strcpy(parent, walked[i]);
        *strchr(parent, ' ') = '\0';
        char *slash = strrchr(parent, '/');
        if (!slash || slash == parent)
            continue;
        *slash = '\0';
        size_t plen = strlen(parent);
        int before = 0, after = 0;
        for (int j = 0; j < walked_n; j++)
            if (strncmp(walked[j], parent, plen) == 0 &&
                walked[j][plen] == ' ')
            {
                if (j < i)
                    before = 1;
                else
                    after = 1;
            }
        if (!before && !after) /* the start's own parent */
            continue;
        if (walk_flags & FTW_DEPTH ? !after : !before)
            return 0;
    }
    return 1;
}

static void walk(const char *what, const char *start, int flags)
{
    walked_n = 0;
    walk_flags = flags;
    walk_cwd_ok = 1;
    char cwd[4096];
    check(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    errno = 0;
    int rc = nftw(start, record, 4, flags);
    printf("nftw %s = %d%s%s\n", what, rc, rc < 0 ? " " : "",
           rc < 0 ? strerrorname_np(errno) : "");
    char after[4096];
    check(getcwd(after, sizeof after) != NULL, "getcwd after");
    check(strcmp(cwd, after) == 0, "cwd is back after the walk");
    check(walk_order_ok(), "walk order");
    if (flags & FTW_CHDIR)
        check(walk_cwd_ok, "FTW_CHDIR: entries are in the cwd");
    char *sorted[256];
    for (int i = 0; i < walked_n; i++)
        sorted[i] = walked[i];
    qsort(sorted, (size_t)walked_n, sizeof sorted[0], by_name);
    for (int i = 0; i < walked_n; i++)
        printf("  %s\n", sorted[i]);
}

static int ftw_count[8];

static int count_ftw(const char *path, const struct stat *st, int flag)
{
    (void)path;
    (void)st;
    if (flag >= 0 && flag < 8)
        ftw_count[flag]++;
    return 0;
}

static void walking(void)
{
    mkdir(at("t"), 0755);
    mkdir(at("t/a"), 0755);
    mkdir(at("t/a/b"), 0755);
    touch(at("t/a/b/x"), "x");
    touch(at("t/a/y"), "y");
    mkdir(at("t/c"), 0755);
    touch(at("t/f1"), "1");
    check(symlink("f1", at("t/l1")) == 0, "symlink t/l1");
    check(symlink("missing", at("t/ldangle")) == 0, "symlink t/ldangle");
    /* back to a: visited once only */
    check(symlink("..", at("t/a/b/up")) == 0, "symlink t/a/b/up");
    mkdir(at("t/skipme"), 0755);
    touch(at("t/skipme/hidden"), "h");
    mkdir(at("t/s"), 0755);
    touch(at("t/s/stophere"), "s");

    walk("0", at("t"), 0);
    walk("PHYS", at("t"), FTW_PHYS);
    walk("DEPTH|PHYS", at("t"), FTW_DEPTH | FTW_PHYS);
    walk("MOUNT", at("t"), FTW_MOUNT);
    walk("CHDIR", at("t"), FTW_CHDIR | FTW_PHYS);
    walk("CHDIR|DEPTH", at("t/"), FTW_CHDIR | FTW_DEPTH);
    walk("ACTIONRETVAL", at("t"), FTW_ACTIONRETVAL | FTW_PHYS);
    walk("file start", at("t/f1"), 0);
    walk("dangling start", at("t/ldangle"), 0);
    walk("missing start", at("t/missing"), 0);
    walk("bad flags", at("t"), 0x1000);
    say("nftw(\"\")", nftw("", record, 4, 0));

    int rc = ftw(at("t"), count_ftw, 4);
    printf("ftw = %d: F %d D %d DNR %d NS %d SL %d DP %d SLN %d\n", rc,
           ftw_count[FTW_F], ftw_count[FTW_D], ftw_count[FTW_DNR],
           ftw_count[FTW_NS], ftw_count[FTW_SL], ftw_count[FTW_DP],
           ftw_count[FTW_SLN]);

    /* A relative start, from inside the tree. */
    char cwd[4096];
    check(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
    say("chdir(t)", chdir(at("t")));
    walk("relative", "a", 0);
    say("chdir back", chdir(cwd));
}

/* Kernel directories still work beside Danaus ones. */
static void kernel_dirs(void)
{
    DIR *d = opendir("/");
    int n = 0;
    while (d && readdir(d))
        n++;
    check(d && n > 3, "opendir(\"/\") through libc");
    if (d)
        closedir(d);
    struct dirent **list;
    n = scandir("/", &list, NULL, alphasort);
    check(n > 3, "scandir(\"/\") through libc");
    for (int i = 0; i < n; i++)
        free(list[i]);
    free(list);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--xattr-probes") == 0) {
        root = argv[2];
        xattr_probes();
        return 0;
    }
    /* read_after_open's new program: its entries, as its exit status. */
    if (argc == 3 && strcmp(argv[1], "--count-fd") == 0) {
        int n = count_rest(atoi(argv[2]));
        return n < 0 ? 255 : n > 254 ? 254 : n;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: test_preload_dir_suite DIR\n");
        return 2;
    }
    root = argv[1];
    umask(022);
    listings();
    seeking();
    scanning();
    raw_getdents();
    read_after_open(argv[0]);
    run_self(argv[0], "--xattr-probes");
    walking();
    kernel_dirs();
    printf("failures = %d\n", failures);
    return failures ? 1 : 0;
}
