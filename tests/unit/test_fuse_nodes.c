/*
 * test_fuse_nodes.c - the FUSE door's node table (fsservice/doors/
 * fuse_nodes.h): lookups share one node per path, renames move a node and
 * everything below it, unlink and a rename over a name detach the node
 * from its path (ESTALE) while the kernel still holds it, forget frees it
 * only at its last lookup, and a table adopted from another's area (a
 * restarted service's) answers for the same ids, torn records included.
 */
#include "fsservice/doors/fuse_nodes.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

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

static uint64_t lookup(const char *path)
{
    uint64_t generation;
    return fuse_nodes_lookup(&t, path, 0, 0, &generation);
}

static void assert_path(uint64_t id, const char *want)
{
    char path[PATH_MAX];
    assert_int_equal(fuse_node_path(&t, id, path, sizeof path), 0);
    assert_string_equal(path, want);
}

static void assert_stale(uint64_t id)
{
    char path[PATH_MAX];
    assert_int_equal(fuse_node_path(&t, id, path, sizeof path), -ESTALE);
}

static void lookups_share_a_node(void **state)
{
    (void)state;
    uint64_t a = lookup("d/a");
    assert_int_not_equal(a, 0);
    assert_int_equal(lookup("d/a"), a);
    assert_path(a, "d/a");
    assert_path(1, "");
    char path[PATH_MAX];
    assert_int_equal(fuse_node_child_path(&t, a, "x", path, sizeof path), 0);
    assert_string_equal(path, "d/a/x");
    assert_int_equal(fuse_node_child_path(&t, 1, "top", path, sizeof path),
                     0);
    assert_string_equal(path, "top");
    assert_int_equal(fuse_node_child_path(&t, a, "x", path, 5),
                     -ENAMETOOLONG);
    /* Ids the table never gave. */
    assert_stale(0);
    assert_stale(123456);
}

static void rename_moves_the_subtree(void **state)
{
    (void)state;
    uint64_t dir = lookup("d");
    uint64_t deep = lookup("d/e/f");
    uint64_t twin = lookup("dd");
    uint64_t target = lookup("n");
    fuse_nodes_rename(&t, "d", "n");
    assert_path(dir, "n");
    assert_path(deep, "n/e/f");
    assert_path(twin, "dd"); /* "dd" is not below "d" */
    assert_stale(target);
    assert_int_equal(lookup("n/e/f"), deep);
    assert_int_not_equal(lookup("d/e/f"), deep);
    /* Into a directory nobody looked up. */
    fuse_nodes_rename(&t, "n/e/f", "x/y/z");
    assert_path(deep, "x/y/z");
}

static void unlink_detaches_until_forget(void **state)
{
    (void)state;
    uint64_t f = lookup("f");
    lookup("f");
    fuse_nodes_unlinked(&t, "f");
    assert_stale(f);
    uint64_t fresh = lookup("f");
    assert_int_not_equal(fresh, f);
    fuse_nodes_forget(&t, f, 1);
    /* One lookup left: still there, still nameless. */
    assert_stale(f);
    fuse_nodes_forget(&t, f, 1);
    fuse_nodes_forget(&t, fresh, 1);
    assert_int_not_equal(lookup("f"), 0);
}

static void forget_frees_unused_directories(void **state)
{
    (void)state;
    uint64_t generation;
    uint64_t leaf = fuse_nodes_lookup(&t, "a/b/c", 0, 0, &generation);
    assert_int_equal(generation, 1);
    fuse_nodes_forget(&t, leaf, 1);
    assert_stale(leaf);
    /* a and a/b were held only by c: gone with it, so the same path takes
     * the same three ids again, each with a new generation. */
    uint64_t again = fuse_nodes_lookup(&t, "a/b/c", 0, 0, &generation);
    assert_int_equal(again, leaf);
    assert_int_equal(generation, 2);
    assert_path(again, "a/b/c");
}

static void nodes_are_found_by_inode(void **state)
{
    (void)state;
    uint64_t g, ino, ids[4];
    uint64_t a = fuse_nodes_lookup(&t, "d/a", 7, 0, &g);
    uint64_t b = fuse_nodes_lookup(&t, "e/b", 7, 0, &g);
    uint64_t c = fuse_nodes_lookup(&t, "d/c", 8, 0, &g);
    assert_int_equal(fuse_nodes_of_ino(&t, 7, 0, ids, 4), 2);
    assert_true((ids[0] == a && ids[1] == b) || (ids[0] == b && ids[1] == a));
    assert_int_equal(fuse_nodes_of_ino(&t, 7, a, ids, 4), 1);
    assert_int_equal(ids[0], b);
    assert_int_equal(fuse_nodes_find(&t, "d/c", &ino), c);
    assert_int_equal(ino, 8);
    assert_int_equal(fuse_nodes_find(&t, "d/none", &ino), 0);
    /* Another inode under a's name: a new node; a keeps its inode, not
     * its name, until the kernel forgets it. */
    uint64_t a2 = fuse_nodes_lookup(&t, "d/a", 9, 0, &g);
    assert_int_not_equal(a2, a);
    assert_stale(a);
    assert_int_equal(fuse_nodes_of_ino(&t, 7, 0, ids, 4), 2);
    fuse_nodes_forget(&t, a, 1);
    assert_int_equal(fuse_nodes_of_ino(&t, 7, 0, ids, 4), 1);
    assert_int_equal(ids[0], b);
    /* Kept in the area for a successor. */
    int fd = dup(fuse_nodes_fd(&t));
    fuse_nodes_free(&t);
    assert_int_equal(fuse_nodes_adopt(&t, fd), 0);
    assert_int_equal(fuse_nodes_of_ino(&t, 7, 0, ids, 4), 1);
    assert_int_equal(ids[0], b);
    assert_int_equal(fuse_nodes_of_ino(&t, 9, 0, ids, 4), 1);
    assert_int_equal(ids[0], a2);
}

/* A link replaced under the same inode number (its stamp differs) gets a
 * node of its own, so the kernel drops the target it kept for the old
 * one; the same stamp keeps the node, and so does an adopted table's node
 * of a kind with no stamp. */
static void a_new_stamp_is_a_new_node(void **state)
{
    (void)state;
    uint64_t g, ino;
    uint64_t old = fuse_nodes_lookup(&t, "lib", 12, 0x51, &g);
    assert_int_equal(fuse_nodes_lookup(&t, "lib", 12, 0x51, &g), old);
    uint64_t new = fuse_nodes_lookup(&t, "lib", 12, 0x73, &g);
    assert_int_not_equal(new, old);
    assert_stale(old);
    assert_int_equal(fuse_nodes_find(&t, "lib", &ino), new);
    assert_int_equal(ino, 12);
    uint64_t file = fuse_nodes_lookup(&t, "file", 13, 0, &g);
    int fd = dup(fuse_nodes_fd(&t));
    fuse_nodes_free(&t);
    assert_int_equal(fuse_nodes_adopt(&t, fd), 0);
    assert_int_equal(fuse_nodes_lookup(&t, "file", 13, 0, &g), file);
    assert_int_not_equal(fuse_nodes_lookup(&t, "lib", 12, 0x73, &g), new);
}

static void many_nodes_grow_the_table(void **state)
{
    (void)state;
    char path[32];
    uint64_t first = 0;
    for (int i = 0; i < 5000; i++) {
        snprintf(path, sizeof path, "many/%d", i);
        uint64_t n = lookup(path);
        assert_int_not_equal(n, 0);
        if (!first)
            first = n;
    }
    assert_int_equal(lookup("many/0"), first);
    fuse_nodes_rename(&t, "many", "moved");
    assert_path(first, "moved/0");
    for (int i = 0; i < 5000; i += 499) {
        snprintf(path, sizeof path, "moved/%d", i);
        assert_int_not_equal(lookup(path), 0);
    }
}

static void adopted_table_answers_for_the_same_ids(void **state)
{
    (void)state;
    uint64_t a = lookup("dir/a");
    uint64_t gone = lookup("dir/gone");
    fuse_nodes_unlinked(&t, "dir/gone");
    int fd = dup(fuse_nodes_fd(&t));
    fuse_nodes_free(&t);

    assert_int_equal(fuse_nodes_adopt(&t, fd), 0);
    assert_path(a, "dir/a");
    assert_stale(gone);
    assert_int_equal(lookup("dir/a"), a);
    uint64_t fresh = lookup("dir/new");
    assert_int_not_equal(fresh, 0);
    assert_int_not_equal(fresh, a);
    fuse_nodes_rename(&t, "dir", "moved");
    assert_path(a, "moved/a");
}

static void adopting_a_torn_area_is_safe(void **state)
{
    (void)state;
    uint64_t a = lookup("p/a");
    uint64_t b = lookup("p/b");
    int fd = dup(fuse_nodes_fd(&t));
    /* Scribble over b's record as a crash in the middle of writing it
     * might leave it: a parent id past the table, a name with a slash. */
    unsigned char junk[64];
    memset(junk, 0xff, sizeof junk);
    size_t rec = t.area.rec_size;
    assert_int_equal(pwrite(fd, junk, 8, (off_t)(b * rec)), 8);
    fuse_nodes_free(&t);

    assert_int_equal(fuse_nodes_adopt(&t, fd), 0);
    assert_path(a, "p/a");
    assert_stale(b);
    assert_int_not_equal(lookup("p/b"), 0);
    /* Not an area at all. */
    struct fuse_nodes other;
    int bad = dup(STDIN_FILENO);
    assert_int_equal(fuse_nodes_adopt(&other, bad), -EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(lookups_share_a_node, setup, teardown),
        cmocka_unit_test_setup_teardown(rename_moves_the_subtree, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(nodes_are_found_by_inode, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(unlink_detaches_until_forget, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(forget_frees_unused_directories, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_new_stamp_is_a_new_node, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(many_nodes_grow_the_table, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(adopted_table_answers_for_the_same_ids,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(adopting_a_torn_area_is_safe, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
