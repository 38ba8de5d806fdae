/*
 * test_fuse_nodes.c - the FUSE door's node table (fsservice/doors/
 * fuse_nodes.h): lookups share one node per path, renames move a node and
 * everything below it, unlink and a rename over a name detach the node
 * from its path (ESTALE) while the kernel still holds it, and forget frees
 * it only at its last lookup.
 */
#include "fsservice/doors/fuse_nodes.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

static struct fuse_nodes t;

static int setup(void **state)
{
    (void)state;
    return fuse_nodes_init(&t);
}

static int teardown(void **state)
{
    (void)state;
    fuse_nodes_free(&t);
    return 0;
}

static void assert_path(const struct fuse_node *n, const char *want)
{
    char path[PATH_MAX];
    assert_int_equal(fuse_node_path(&t, n, path, sizeof path), 0);
    assert_string_equal(path, want);
}

static void lookups_share_a_node(void **state)
{
    (void)state;
    struct fuse_node *a = fuse_nodes_lookup(&t, "d/a");
    struct fuse_node *again = fuse_nodes_lookup(&t, "d/a");
    assert_non_null(a);
    assert_ptr_equal(a, again);
    assert_ptr_equal(fuse_nodes_get(&t, fuse_node_id(&t, a)), a);
    assert_int_equal(fuse_node_id(&t, fuse_nodes_get(&t, 1)), 1);
    assert_path(fuse_nodes_get(&t, 1), "");
    char path[PATH_MAX];
    assert_int_equal(fuse_node_child_path(&t, a, "x", path, sizeof path), 0);
    assert_string_equal(path, "d/a/x");
    assert_int_equal(fuse_node_child_path(&t, fuse_nodes_get(&t, 1), "top",
                                          path, sizeof path), 0);
    assert_string_equal(path, "top");
    assert_int_equal(fuse_node_child_path(&t, a, "x", path, 5),
                     -ENAMETOOLONG);
}

static void rename_moves_the_subtree(void **state)
{
    (void)state;
    struct fuse_node *dir = fuse_nodes_lookup(&t, "d");
    struct fuse_node *deep = fuse_nodes_lookup(&t, "d/e/f");
    struct fuse_node *twin = fuse_nodes_lookup(&t, "dd");
    struct fuse_node *target = fuse_nodes_lookup(&t, "n");
    fuse_nodes_rename(&t, "d", "n");
    assert_path(dir, "n");
    assert_path(deep, "n/e/f");
    assert_path(twin, "dd"); /* "dd" is not below "d" */
    char path[PATH_MAX];
    assert_int_equal(fuse_node_path(&t, target, path, sizeof path), -ESTALE);
    assert_ptr_equal(fuse_nodes_lookup(&t, "n/e/f"), deep);
    assert_ptr_not_equal(fuse_nodes_lookup(&t, "d/e/f"), deep);
}

static void unlink_detaches_until_forget(void **state)
{
    (void)state;
    struct fuse_node *f = fuse_nodes_lookup(&t, "f");
    fuse_nodes_lookup(&t, "f");
    fuse_nodes_unlinked(&t, "f");
    char path[PATH_MAX];
    assert_int_equal(fuse_node_path(&t, f, path, sizeof path), -ESTALE);
    struct fuse_node *fresh = fuse_nodes_lookup(&t, "f");
    assert_ptr_not_equal(fresh, f);
    fuse_nodes_forget(&t, fuse_node_id(&t, f), 1);
    /* One lookup left: still there, still nameless. */
    assert_int_equal(fuse_node_path(&t, f, path, sizeof path), -ESTALE);
    fuse_nodes_forget(&t, fuse_node_id(&t, f), 1);
    fuse_nodes_forget(&t, fuse_node_id(&t, fresh), 1);
    assert_non_null(fuse_nodes_lookup(&t, "f"));
}

static void many_nodes_grow_the_table(void **state)
{
    (void)state;
    char path[32];
    struct fuse_node *first = NULL;
    for (int i = 0; i < 5000; i++) {
        snprintf(path, sizeof path, "many/%d", i);
        struct fuse_node *n = fuse_nodes_lookup(&t, path);
        assert_non_null(n);
        if (!first)
            first = n;
    }
    assert_ptr_equal(fuse_nodes_lookup(&t, "many/0"), first);
    fuse_nodes_rename(&t, "many", "moved");
    assert_path(first, "moved/0");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lookups_share_a_node, setup, teardown),
        cmocka_unit_test_setup_teardown(rename_moves_the_subtree, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unlink_detaches_until_forget, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(many_nodes_grow_the_table, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
