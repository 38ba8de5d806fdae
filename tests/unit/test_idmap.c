/*
 * test_idmap.c - a pool's id map (fsservice/core/idmap.h): host ids in
 * the range are the pool's, host root is the pool's root, every other
 * host id is the overflow id; pool ids without a host id show as it.
 */
#include "fsservice/core/idmap.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

static void maps_the_range_in_and_out(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    assert_int_equal(idmap_in(&m, 200000), 0);
    assert_int_equal(idmap_in(&m, 201000), 1000);
    assert_int_equal(idmap_in(&m, 265535), 65535);
    assert_int_equal(idmap_out(&m, 0), 200000);
    assert_int_equal(idmap_out(&m, 1000), 201000);
    assert_int_equal(idmap_out(&m, 65535), 265535);
}

static void outsiders_are_overflow(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    assert_int_equal(idmap_in(&m, 0), 0); /* host root: the pool's root */
    assert_int_equal(idmap_in(&m, 1000), IDMAP_OVERFLOW);
    assert_int_equal(idmap_in(&m, 199999), IDMAP_OVERFLOW);
    assert_int_equal(idmap_in(&m, 265536), IDMAP_OVERFLOW);
    assert_int_equal(idmap_in(&m, 4294967295u), IDMAP_OVERFLOW);
    assert_int_equal(idmap_out(&m, 65536), IDMAP_OVERFLOW);
    assert_int_equal(idmap_out(&m, 4294967295u), IDMAP_OVERFLOW);
}

static void maps_a_cred(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    struct ls_cred c;
    memset(&c, 0, sizeof c);
    c.uid = 201000;
    c.gid = 201001;
    c.ngroups = 3;
    c.groups[0] = 200000;
    c.groups[1] = 5;
    c.groups[2] = 265535;
    idmap_cred_in(&m, &c);
    assert_int_equal(c.uid, 1000);
    assert_int_equal(c.gid, 1001);
    assert_int_equal(c.groups[0], 0);
    assert_int_equal(c.groups[1], IDMAP_OVERFLOW);
    assert_int_equal(c.groups[2], 65535);
}

static void admits_root_and_the_range_only(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    assert_true(idmap_admits(&m, 0));
    assert_true(idmap_admits(&m, 200000));
    assert_true(idmap_admits(&m, 265535));
    assert_false(idmap_admits(&m, 1000));
    assert_false(idmap_admits(&m, 199999));
    assert_false(idmap_admits(&m, 265536));
    assert_false(idmap_admits(&m, 4294967295u));
}

static void no_map_is_the_identity(void **state)
{
    (void)state;
    struct idmap m = {0};
    assert_int_equal(idmap_in(&m, 1000), 1000);
    assert_int_equal(idmap_out(&m, 201000), 201000);
    assert_true(idmap_admits(&m, 1000));
}

static void refuses_bad_maps(void **state)
{
    (void)state;
    struct idmap m = {1, 2, 3};
    const char *bad[] = {"",         "0:1",        "0:1:0",   "a:1:2",
                         "0:1:2:3",  "-1:1:2",     "0: 1:2",  "0:1:2x",
                         "0:4294967295:1", "4294967295:0:1",
                         "0:99999999999:1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(idmap_parse(bad[i], &m), -1);
        assert_int_equal(m.inside, 1); /* untouched */
    }
    assert_int_equal(idmap_parse("5:4294901759:65536", &m), 0);
    assert_int_equal(idmap_out(&m, 5), 4294901759u);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(maps_the_range_in_and_out),
        cmocka_unit_test(outsiders_are_overflow),
        cmocka_unit_test(maps_a_cred),
        cmocka_unit_test(admits_root_and_the_range_only),
        cmocka_unit_test(no_map_is_the_identity),
        cmocka_unit_test(refuses_bad_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
