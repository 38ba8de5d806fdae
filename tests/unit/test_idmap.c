/*
 * test_idmap.c - a pool's id map (fsservice/core/idmap.h): host ids in
 * the range are the pool's, host root is the pool's root, every other
 * host id is the overflow id; pool ids without a host id show as it.
 * The ids inside POSIX ACLs and v3 file capabilities are mapped too.
 */
#include "fsservice/core/idmap.h"

#include <endian.h>
#include <linux/capability.h>
#include <linux/posix_acl.h>
#include <linux/posix_acl_xattr.h>
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

#define NO_ID ((uint32_t)ACL_UNDEFINED_ID) /* entries without an id */

/* An ACL of entries (tag, id) as the kernel writes it. */
static size_t make_acl(unsigned char *v, const uint16_t *tags,
                       const uint32_t *ids, int n)
{
    struct posix_acl_xattr_header h = {htole32(POSIX_ACL_XATTR_VERSION)};
    memcpy(v, &h, sizeof h);
    for (int i = 0; i < n; i++) {
        struct posix_acl_xattr_entry e = {htole16(tags[i]), htole16(4),
                                          htole32(ids[i])};
        memcpy(v + sizeof h + (size_t)i * sizeof e, &e, sizeof e);
    }
    return sizeof h + (size_t)n * sizeof(struct posix_acl_xattr_entry);
}

static uint32_t acl_id(const unsigned char *v, int i)
{
    struct posix_acl_xattr_entry e;
    memcpy(&e, v + sizeof(struct posix_acl_xattr_header) + (size_t)i * sizeof e,
           sizeof e);
    return le32toh(e.e_id);
}

static void maps_acl_ids_in_and_out(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    const uint16_t tags[] = {ACL_USER_OBJ, ACL_USER, ACL_GROUP_OBJ,
                             ACL_GROUP, ACL_USER, ACL_MASK, ACL_OTHER};
    const uint32_t ids[] = {NO_ID, 201000, NO_ID, 201001, 5, NO_ID, NO_ID};
    unsigned char v[256];
    size_t n = make_acl(v, tags, ids, 7);
    idmap_xattr_in(&m, "system.posix_acl_access", v, n);
    assert_int_equal(acl_id(v, 0), NO_ID);
    assert_int_equal(acl_id(v, 1), 1000);
    assert_int_equal(acl_id(v, 3), 1001);
    assert_int_equal(acl_id(v, 4), IDMAP_OVERFLOW); /* an outsider */
    assert_int_equal(acl_id(v, 5), NO_ID);
    idmap_xattr_out(&m, "system.posix_acl_default", v, n);
    assert_int_equal(acl_id(v, 1), 201000);
    assert_int_equal(acl_id(v, 3), 201001);
    assert_int_equal(acl_id(v, 6), NO_ID);
    /* Not well formed, or another name: left alone. */
    idmap_xattr_in(&m, "system.posix_acl_access", v, n - 1);
    idmap_xattr_in(&m, "user.posix_acl_access", v, n);
    assert_int_equal(acl_id(v, 1), 201000);
}

static void maps_a_v3_capability_root(void **state)
{
    (void)state;
    struct idmap m;
    assert_int_equal(idmap_parse("0:200000:65536", &m), 0);
    struct vfs_ns_cap_data cap = {
        .magic_etc = htole32(VFS_CAP_REVISION_3 | VFS_CAP_FLAGS_EFFECTIVE),
        .rootid = htole32(200000)};
    unsigned char v[XATTR_CAPS_SZ_3];
    memcpy(v, &cap, sizeof v);
    idmap_xattr_in(&m, "security.capability", v, sizeof v);
    memcpy(&cap, v, sizeof v);
    assert_int_equal(le32toh(cap.rootid), 0);
    cap.rootid = htole32(1000);
    memcpy(v, &cap, sizeof v);
    idmap_xattr_out(&m, "security.capability", v, sizeof v);
    memcpy(&cap, v, sizeof v);
    assert_int_equal(le32toh(cap.rootid), 201000);
    /* A v2 capability names no root: its bytes are left as they are. */
    unsigned char v2[XATTR_CAPS_SZ_2], before[XATTR_CAPS_SZ_2];
    memset(v2, 0x5a, sizeof v2);
    uint32_t magic = htole32(VFS_CAP_REVISION_2);
    memcpy(v2, &magic, sizeof magic);
    memcpy(before, v2, sizeof v2);
    idmap_xattr_in(&m, "security.capability", v2, sizeof v2);
    assert_memory_equal(v2, before, sizeof v2);
}

static void no_map_is_the_identity(void **state)
{
    (void)state;
    struct idmap m = {0};
    assert_int_equal(idmap_in(&m, 1000), 1000);
    assert_int_equal(idmap_out(&m, 201000), 201000);
    assert_true(idmap_admits(&m, 1000));
    unsigned char v[XATTR_CAPS_SZ_3] = {0, 0, 0, 3, [20] = 7};
    idmap_xattr_out(&m, "security.capability", v, sizeof v);
    assert_int_equal(v[20], 7);
    assert_false(idmap_xattr_names_ids(&m, "security.capability"));
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
        cmocka_unit_test(maps_acl_ids_in_and_out),
        cmocka_unit_test(maps_a_v3_capability_root),
        cmocka_unit_test(no_map_is_the_identity),
        cmocka_unit_test(refuses_bad_maps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
