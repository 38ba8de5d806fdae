/*
 * test_libfs_mounts.c - path normalization, longest-prefix mount matching
 * on component boundaries, and resolution of relative and dirfd-relative
 * paths, including EXDEV for paths outside every mount; a container's
 * view: its root instance at "/" with the paths the kernel keeps, and the
 * service's mount indices returned rather than table positions.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "libfs/fdtable.h"
#include "libfs/mounts.h"
#include "libfs/resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void assert_normalizes(const char *in, const char *want)
{
    char out[DANAUS_PATH_MAX];
    assert_int_equal(path_normalize(in, out, sizeof out), 0);
    assert_string_equal(out, want);
}

static void normalize_is_lexical(void **state)
{
    assert_normalizes("/", "/");
    assert_normalizes("//a///b/", "/a/b");
    assert_normalizes("/a/./b/.", "/a/b");
    assert_normalizes("/a/b/../c", "/a/c");
    assert_normalizes("/a/b/../..", "/");
    assert_normalizes("/../../x/..", "/");
    assert_normalizes("/..a/.b/...", "/..a/.b/...");
}

static void normalize_rejects_relative_and_overlong(void **state)
{
    char out[8];
    errno = 0;
    assert_int_equal(path_normalize("a/b", out, sizeof out), -1);
    assert_int_equal(errno, EINVAL);
    errno = 0;
    assert_int_equal(path_normalize("/abcdefgh", out, sizeof out), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    assert_int_equal(path_normalize("/abcdef", out, sizeof out), 0);
}

static int match(const struct mount_table *t, const char *path,
                 const char **rel)
{
    char norm[DANAUS_PATH_MAX];
    assert_int_equal(path_normalize(path, norm, sizeof norm), 0);
    int m = mount_table_match(t, norm, rel);
    /* rel points into norm: check it while it lives. */
    static char rel_copy[DANAUS_PATH_MAX];
    if (m >= 0) {
        strcpy(rel_copy, *rel);
        *rel = rel_copy;
    }
    return m;
}

static void match_longest_prefix_on_component_boundary(void **state)
{
    struct mount_table t = {0};
    const char *rel;
    assert_int_equal(mount_table_add(&t, "/mnt/d", 0), 0);
    assert_int_equal(mount_table_add(&t, "/mnt/d/inner/", 1), 0);

    assert_int_equal(match(&t, "/mnt/d", &rel), 0);
    assert_string_equal(rel, "");
    assert_int_equal(match(&t, "/mnt/d/", &rel), 0);
    assert_string_equal(rel, "");
    assert_int_equal(match(&t, "/mnt/d/a//b", &rel), 0);
    assert_string_equal(rel, "a/b");
    assert_int_equal(match(&t, "/mnt/d/inner/x", &rel), 1);
    assert_string_equal(rel, "x");
    assert_int_equal(match(&t, "/mnt/d/inner", &rel), 1);
    assert_string_equal(rel, "");
    assert_int_equal(match(&t, "/mnt/d/innerx", &rel), 0);
    assert_string_equal(rel, "innerx");
    assert_int_equal(match(&t, "/mnt/d/inner/../y", &rel), 0);
    assert_string_equal(rel, "y");

    errno = 0;
    assert_int_equal(match(&t, "/mnt/dx/f", &rel), -1);
    assert_int_equal(errno, EXDEV);
    errno = 0;
    assert_int_equal(match(&t, "/mnt/d/../e", &rel), -1);
    assert_int_equal(errno, EXDEV);
    errno = 0;
    assert_int_equal(match(&t, "/mnt", &rel), -1);
    assert_int_equal(errno, EXDEV);
    mount_table_clear(&t);
}

/* n bytes of "c/c/...": 125 names of 250 'c's and what is left. */
static char *names_of(size_t n)
{
    char *s = malloc(n + 1);
    for (size_t i = 0; i < n; i++)
        s[i] = i % 251 == 250 ? '/' : 'c';
    s[n] = '\0';
    return s;
}

/* As the kernel: one path argument below PATH_MAX, however deep the
 * directory it starts from; the join may be longer, up to what the wire
 * carries (DANAUS_LONG_PATH_MAX). */
static void resolve_joins_past_path_max(void **state)
{
    (void)state;
    struct mount_table t = {0};
    struct resolved_path r;
    assert_int_equal(mount_table_add(&t, "/m", 3), 0);
    char *deep = names_of(3000), *rel = names_of(4095), *base = malloc(3100);
    snprintf(base, 3100, "/m/%s", deep);
    assert_int_equal(path_resolve_from(&t, base, rel, &r), 0);
    assert_int_equal(r.mount, 3);
    assert_int_equal(strlen(r.rel), 3000 + 1 + 4095);
    assert_memory_equal(r.rel, deep, 3000);
    assert_string_equal(r.rel + 3001, rel);

    /* ".." past the argument's start climbs into the directory's path. */
    char dots[64] = "../x";
    assert_int_equal(path_resolve_from(&t, base, dots, &r), 0);
    size_t parent = (size_t)(strrchr(deep, '/') - deep);
    assert_memory_equal(r.rel, deep, parent);
    assert_string_equal(r.rel + parent, "/x");

    char *overlong = names_of(4096);
    errno = 0;
    assert_int_equal(path_resolve_from(&t, "/m", overlong, &r), -1);
    assert_int_equal(errno, ENAMETOOLONG);

    /* A descriptor's path past PATH_MAX, then a join past the wire's. */
    char *deeper = names_of(6000), *far = malloc(6100);
    snprintf(far, 6100, "/m/%s", deeper);
    assert_int_equal(path_resolve_from(&t, far, "f", &r), 0);
    assert_int_equal(strlen(r.rel), 6002);
    errno = 0;
    assert_int_equal(path_resolve_from(&t, far, rel, &r), -1);
    assert_int_equal(errno, ENAMETOOLONG);
    free(deep);
    free(rel);
    free(base);
    free(overlong);
    free(deeper);
    free(far);
    mount_table_clear(&t);
}

static void root_mount_holds_everything_else(void **state)
{
    struct mount_table t = {0};
    const char *rel;
    assert_int_equal(mount_table_add(&t, "/", 0), 0);
    assert_int_equal(mount_table_add(&t, "/data", 1), 0);
    assert_int_equal(match(&t, "/etc/passwd", &rel), 0);
    assert_string_equal(rel, "etc/passwd");
    assert_int_equal(match(&t, "/", &rel), 0);
    assert_string_equal(rel, "");
    assert_int_equal(match(&t, "/data/f", &rel), 1);
    assert_string_equal(rel, "f");
    mount_table_clear(&t);
}

/* A container's view: instance 7 at "/", its /proc, /dev/null and the
 * preload library with the kernel. The longest entry decides. */
static void view_root_with_kernel_paths(void **state)
{
    struct mount_table t = {0};
    const char *rel;
    const uint32_t k = DANAUS_MOUNT_KERNEL;
    assert_int_equal(mount_table_add(&t, "/", 7), 0);
    assert_int_equal(mount_table_add(&t, "/proc", k), 0);
    assert_int_equal(mount_table_add(&t, "/dev/null", k), 0);
    assert_int_equal(mount_table_add(&t, "/usr/lib/danaus/libdanaus.so", k),
                     0);
    assert_int_equal(mount_table_add(&t, "/run/danaus/", k), 0);

    assert_int_equal(match(&t, "/etc/motd", &rel), 7);
    assert_string_equal(rel, "etc/motd");
    assert_int_equal(match(&t, "/", &rel), 7);
    assert_string_equal(rel, "");
    assert_int_equal(match(&t, "/dev", &rel), 7);
    assert_string_equal(rel, "dev");
    assert_int_equal(match(&t, "/procfs/x", &rel), 7);
    assert_string_equal(rel, "procfs/x");
    assert_int_equal(match(&t, "/usr/lib/danaus", &rel), 7);
    assert_string_equal(rel, "usr/lib/danaus");
    assert_int_equal(match(&t, "/proc/../etc", &rel), 7);
    assert_string_equal(rel, "etc");

    const char *kernel[] = {"/proc", "/proc/self/fd/3", "/dev/null",
                            "/usr/lib/danaus/libdanaus.so", "/run/danaus",
                            "/run/danaus/a.sock"};
    for (size_t i = 0; i < sizeof kernel / sizeof kernel[0]; i++) {
        errno = 0;
        assert_int_equal(match(&t, kernel[i], &rel), -1);
        assert_int_equal(errno, EXDEV);
    }
    mount_table_clear(&t);
}

/* path_resolve carries the service's index into the resolved path, and a
 * relative path under a kernel directory stays the kernel's. */
static void resolve_in_a_view(void **state)
{
    struct mount_table t = {0};
    struct resolved_path r;
    assert_int_equal(mount_table_add(&t, "/", 41), 0);
    assert_int_equal(mount_table_add(&t, "/proc", DANAUS_MOUNT_KERNEL), 0);
    assert_int_equal(path_resolve(&t, AT_FDCWD, "/bin/cat", &r), 0);
    assert_int_equal(r.mount, 41);
    assert_string_equal(r.rel, "bin/cat");
    errno = 0;
    assert_int_equal(path_resolve(&t, AT_FDCWD, "/proc/self/maps", &r), -1);
    assert_int_equal(errno, EXDEV);
    mount_table_clear(&t);
}

/* A mount table with one mount at a fresh real directory, and cwd there. */
struct fixture {
    char dir[PATH_MAX];
    char old_cwd[PATH_MAX];
    struct mount_table t;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    char tmpl[] = "/tmp/libfs-mounts-XXXXXX";
    if (!f || !mkdtemp(tmpl) || !realpath(tmpl, f->dir) ||
        !getcwd(f->old_cwd, sizeof f->old_cwd) || chdir(f->dir) < 0 ||
        mount_table_add(&f->t, f->dir, 0) < 0)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    if (chdir(f->old_cwd) < 0)
        return -1;
    rmdir(f->dir);
    mount_table_clear(&f->t);
    free(f);
    return 0;
}

static void resolve_relative_to_cwd(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    assert_int_equal(path_resolve(&f->t, AT_FDCWD, "a/../b/./c", &r), 0);
    assert_int_equal(r.mount, 0);
    assert_string_equal(r.rel, "b/c");
    assert_int_equal(path_resolve(&f->t, AT_FDCWD, ".", &r), 0);
    assert_string_equal(r.rel, "");
    assert_string_equal(r.abs, f->dir);

    errno = 0;
    assert_int_equal(path_resolve(&f->t, AT_FDCWD, "../x", &r), -1);
    assert_int_equal(errno, EXDEV);
    errno = 0;
    assert_int_equal(path_resolve(&f->t, AT_FDCWD, "", &r), -1);
    assert_int_equal(errno, ENOENT);
}

/* Name calls keep a last "." or ".." and a trailing '/', which Linux
 * answers for; routing stays with the normalized path. */
static void resolve_name_keeps_last_dots(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, "a/b/..", &r), 0);
    assert_string_equal(r.rel, "a/b/..");
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, "a//./", &r), 0);
    assert_string_equal(r.rel, "a/./");
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, ".", &r), 0);
    assert_string_equal(r.rel, ".");
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, "x/../f/", &r), 0);
    assert_string_equal(r.rel, "f/");
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, "a/b", &r), 0);
    assert_string_equal(r.rel, "a/b");
    errno = 0;
    assert_int_equal(path_resolve_name(&f->t, AT_FDCWD, "..", &r), -1);
    assert_int_equal(errno, EXDEV);
}

static void resolve_absolute_ignores_dirfd(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    char path[PATH_MAX + 8];
    snprintf(path, sizeof path, "%s/z", f->dir);
    assert_int_equal(path_resolve(&f->t, -1, path, &r), 0);
    assert_string_equal(r.rel, "z");
    errno = 0;
    assert_int_equal(path_resolve(&f->t, AT_FDCWD, "/etc/passwd", &r), -1);
    assert_int_equal(errno, EXDEV);
}

static void resolve_relative_to_kernel_dirfd(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    int dirfd = open(f->dir, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(chdir("/"), 0); /* the cwd must not matter */
    assert_int_equal(path_resolve(&f->t, dirfd, "k/l", &r), 0);
    assert_string_equal(r.rel, "k/l");
    close(dirfd);

    int pipefd[2];
    assert_int_equal(pipe(pipefd), 0);
    errno = 0;
    assert_int_equal(path_resolve(&f->t, pipefd[0], "x", &r), -1);
    assert_int_equal(errno, ENOTDIR);
    close(pipefd[0]);
    close(pipefd[1]);

    errno = 0;
    assert_int_equal(path_resolve(&f->t, pipefd[0], "x", &r), -1);
    assert_int_equal(errno, EBADF);
}

static void resolve_relative_to_danaus_dirfd(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    char sub[PATH_MAX + 8];
    snprintf(sub, sizeof sub, "%s/sub/dir", f->dir);
    int fd = fdtable_reserve(true);
    assert_true(fd >= 0);
    assert_int_equal(
        fdtable_insert(fd, &(struct fd_info){42, 0, 0, false}, sub, O_RDONLY, 0), 0);
    assert_int_equal(path_resolve(&f->t, fd, "../f", &r), 0);
    assert_int_equal(r.mount, 0);
    assert_string_equal(r.rel, "sub/f");
    struct fd_info old;
    assert_int_equal(fdtable_remove(fd, &old), 1);
}

/* A call takes routing's resolution of its path once, as it was when
 * routed: a cwd moved in between does not redirect it; the same text at
 * another address, another dirfd, or a second call resolves anew. */
static void call_takes_routed_resolution_once(void **state)
{
    struct fixture *f = *state;
    struct resolved_path r;
    char path[] = "k/l", copy[] = "k/l";
    char sub[PATH_MAX + 8];
    snprintf(sub, sizeof sub, "%s/sub", f->dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    assert_int_equal(resolve_routed(&f->t, AT_FDCWD, path, &r), 0);
    assert_int_equal(chdir(sub), 0);
    assert_int_equal(resolve_for_call(&f->t, AT_FDCWD, path, false, &r), 0);
    assert_string_equal(r.rel, "k/l");
    assert_int_equal(resolve_for_call(&f->t, AT_FDCWD, path, false, &r), 0);
    assert_string_equal(r.rel, "sub/k/l");

    assert_int_equal(chdir(f->dir), 0);
    assert_int_equal(resolve_routed(&f->t, AT_FDCWD, path, &r), 0);
    assert_int_equal(chdir(sub), 0);
    assert_int_equal(resolve_for_call(&f->t, AT_FDCWD, copy, false, &r), 0);
    assert_string_equal(r.rel, "sub/k/l");

    assert_int_equal(chdir(f->dir), 0);
    assert_int_equal(resolve_routed(&f->t, AT_FDCWD, path, &r), 0);
    assert_int_equal(chdir(sub), 0);
    path[0] = 'm';
    assert_int_equal(resolve_for_call(&f->t, AT_FDCWD, path, false, &r), 0);
    assert_string_equal(r.rel, "sub/m/l");

    /* A name call with a last ".." resolves the name itself. */
    char dots[] = "k/..";
    assert_int_equal(resolve_routed(&f->t, AT_FDCWD, dots, &r), 0);
    assert_string_equal(r.rel, "sub");
    assert_int_equal(resolve_for_call(&f->t, AT_FDCWD, dots, true, &r), 0);
    assert_string_equal(r.rel, "sub/k/..");
    assert_int_equal(chdir(f->dir), 0);
    assert_int_equal(rmdir(sub), 0);
}

/* A rename moves the path itself and what lies below it, nothing else. */
static void moved_paths_follow_a_rename(void **state)
{
    (void)state;
    char out[DANAUS_PATH_MAX];
    assert_int_equal(path_moved("/m/d", "/m/d", "/m/e", out, sizeof out), 1);
    assert_string_equal(out, "/m/e");
    assert_int_equal(path_moved("/m/d/x/y", "/m/d", "/m/long", out,
                                sizeof out), 1);
    assert_string_equal(out, "/m/long/x/y");
    assert_int_equal(path_moved("/m/dd", "/m/d", "/m/e", out, sizeof out), 0);
    assert_int_equal(path_moved("/m", "/m/d", "/m/e", out, sizeof out), 0);
    char inplace[DANAUS_PATH_MAX] = "/m/abc/f";
    assert_int_equal(path_moved(inplace, "/m/abc", "/m/z", inplace,
                                sizeof inplace), 1);
    assert_string_equal(inplace, "/m/z/f");
    errno = 0;
    assert_int_equal(path_moved("/m/d/x", "/m/d", "/m/much-longer", out, 12),
                     -1);
    assert_int_equal(errno, ENAMETOOLONG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(moved_paths_follow_a_rename),
        cmocka_unit_test(normalize_is_lexical),
        cmocka_unit_test(normalize_rejects_relative_and_overlong),
        cmocka_unit_test(match_longest_prefix_on_component_boundary),
        cmocka_unit_test(root_mount_holds_everything_else),
        cmocka_unit_test(resolve_joins_past_path_max),
        cmocka_unit_test(view_root_with_kernel_paths),
        cmocka_unit_test(resolve_in_a_view),
        cmocka_unit_test_setup_teardown(call_takes_routed_resolution_once,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(resolve_relative_to_cwd, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(resolve_name_keeps_last_dots, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(resolve_absolute_ignores_dirfd, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(resolve_relative_to_kernel_dirfd,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(resolve_relative_to_danaus_dirfd,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
