/*
 * test_branches.c - the unions' shared branch instances
 * (fsservice/core/branches.h) as the engine relies on them: a read-only
 * branch no mounted union uses can be forgotten, and a union over the
 * directory made again at its path then serves the new directory; one a
 * mounted union uses cannot. The unions are over local directories.
 */
#include "fsservice/core/branches.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

static char top[64];
static const struct ls_cred root;

static void path_of(char *out, const char *name)
{
    snprintf(out, 256, "%s/%s", top, name);
}

/* An empty directory top/name. */
static void make_dir(const char *name)
{
    char p[256];
    path_of(p, name);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void make_file(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s/%s", top, dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    close(fd);
}

static void remove_file(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s/%s", top, dir, name);
    assert_int_equal(unlink(p), 0);
}

/* A union of top/upper over top/lower, as the engine adds one. */
static struct ls_instance *mount_union(struct union_branches **reg,
                                       const char *upper)
{
    char up[256], low[256], err[256], mp[] = "/c", backend[] = "local";
    path_of(up, upper);
    path_of(low, "lower");
    struct config_mount m = {.mountpoint = mp, .backend = backend,
                             .source = up, .union_lower = low};
    struct ls_instance *u = union_branches_mount(reg, &m, err, sizeof err);
    if (!u)
        fail_msg("%s", err);
    return u;
}

static int stat_in(struct ls_instance *u, const char *path)
{
    struct danaus_stat st;
    return u->ops->stat(u, &root, path, 0, &st);
}

/* Whether path, listed through u, shows name. */
static bool lists(struct ls_instance *u, const char *path, const char *name)
{
    struct ls_file *dir;
    assert_int_equal(
        u->ops->open(u, &root, path, O_RDONLY | O_DIRECTORY, 0, &dir), 0);
    char buf[4096];
    off_t pos = 0;
    ssize_t got;
    bool found = false;
    while ((got = u->ops->getdents(dir, &root, buf, sizeof buf, &pos)) > 0)
        for (ssize_t at = 0; at < got;) {
            const struct danaus_dirent *d =
                (const struct danaus_dirent *)(buf + at);
            at += d->d_reclen;
            found |= strcmp(d->d_name, name) == 0;
        }
    assert_int_equal(got, 0);
    u->ops->close(dir);
    return found;
}

static int setup(void **state)
{
    snprintf(top, sizeof top, "/tmp/danaus-test-branches.XXXXXX");
    assert_non_null(mkdtemp(top));
    make_dir("lower");
    make_dir("up1");
    make_dir("up2");
    return 0;
}

static int teardown(void **state)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", top);
    return system(cmd);
}

static void a_branch_in_use_is_not_forgotten(void **state)
{
    char low[256];
    path_of(low, "lower");
    struct union_branches *reg = NULL;
    struct ls_instance *u = mount_union(&reg, "up1");
    assert_int_equal(union_branches_forget(reg, "local", low), -EBUSY);
    union_branches_unmounted(reg, u);
    assert_int_equal(union_branches_forget(reg, "local", low), 0);
    /* Nothing to forget is no error. */
    assert_int_equal(union_branches_forget(reg, "local", low), 0);
    assert_int_equal(union_branches_forget(reg, "local", "/nowhere"), 0);
    u->ops->destroy(u);
    union_branches_free(reg);
}

static void a_forgotten_branch_made_again_is_served_anew(void **state)
{
    char low[256];
    path_of(low, "lower");
    struct union_branches *reg = NULL;
    make_file("lower", "old");
    struct ls_instance *u1 = mount_union(&reg, "up1");
    assert_int_equal(stat_in(u1, "old"), 0);
    union_branches_unmounted(reg, u1);
    /* The engine removes the layer's copy and unpacks it again. */
    remove_file("lower", "old");
    assert_int_equal(rmdir(low), 0);
    make_dir("lower");
    make_file("lower", "new");
    assert_int_equal(union_branches_forget(reg, "local", low), 0);
    struct ls_instance *u2 = mount_union(&reg, "up2");
    assert_int_equal(stat_in(u2, "new"), 0);
    assert_int_equal(stat_in(u2, "old"), -ENOENT);
    /* A second union over it shares the new instance: still in use. */
    assert_int_equal(union_branches_forget(reg, "local", low), -EBUSY);
    union_branches_unmounted(reg, u2);
    u1->ops->destroy(u1);
    u2->ops->destroy(u2);
    union_branches_free(reg);
}

/* The unions over one read-only branch share what its directories hold:
 * a second container's first listing of a directory another one listed
 * does not read the branch. Seen by adding a name behind the unions'
 * back, which a layer never has (its copy is whole before any union uses
 * it): the second union does not show it either. */
static void a_layer_is_listed_once_for_every_union(void **state)
{
    struct union_branches *reg = NULL;
    make_file("lower", "early");
    struct ls_instance *u1 = mount_union(&reg, "up1");
    assert_true(lists(u1, "", "early"));
    make_file("lower", "late");
    struct ls_instance *u2 = mount_union(&reg, "up2");
    assert_true(lists(u2, "", "early"));
    assert_false(lists(u2, "", "late"));
    union_branches_unmounted(reg, u1);
    union_branches_unmounted(reg, u2);
    u1->ops->destroy(u1);
    u2->ops->destroy(u2);
    union_branches_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_branch_in_use_is_not_forgotten,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_forgotten_branch_made_again_is_served_anew, setup, teardown),
        cmocka_unit_test_setup_teardown(
            a_layer_is_listed_once_for_every_union, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
