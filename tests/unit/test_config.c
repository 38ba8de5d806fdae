/*
 * test_config.c - danausd's configuration parser: what it accepts, and the
 * line and problem it names for what it refuses. Mounts name the backends
 * of the build (the registry's): Ceph's only in a build with it.
 */
#include "fsservice/core/config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

/* A backend's lines are known only with the backend (ls_backend.settings):
 * Ceph's here, when it is built. */
#ifdef DANAUS_WITH_CEPH
#define SECOND_BACKEND "ceph"
#define BUILT_BACKENDS "local or ceph"
#define CEPH_LINES                                                            \
    "ceph_conf /etc/ceph/ceph.conf   # cluster\n"                             \
    "ceph_cache_size 4096\n"                                                  \
    "ceph_oc_size 64M\n"                                                      \
    "ceph_client_log keep\n"                                                  \
    "ceph_write_through on\n"                                                 \
    "ceph_client_id tenant-a\n"                                               \
    "ceph_keyring /etc/ceph/tenant-a.keyring\n"                               \
    "ceph_root /tenants/a\n"
#else
#define CEPH_LINES
#define SECOND_BACKEND "local"
#define BUILT_BACKENDS "local"
#endif

static void parses_a_full_configuration(void **state)
{
    const char *text =
        "# a pool\n"
        "service tenant-a\n"
        "rundir /tmp/run\n"
        "owner 1000:1001\n"
        "idmap 0:100000:65536\n"
        "queue_cells 64\n"
        "slots 128\n"
        "slot_buffer 128K\n"
        "threads_per_queue 3\n"
        "client_locks 100\n"
        "nice 0\n"
        "core_groups l2\n"
        "cpus 0,2-3\n"
        CEPH_LINES
        "backend_ops_per_second 250\n"
        "backend_write_bytes_per_second 8M\n"
        "backend_pressure_dir /var/lib/danaus/pressure\n"
        "backend_latency_target_ms 20\n"
        "backend_fair_share off\n"
        "backend_weight 8\n"
        "backend_reservation_ops 50\n"
        "\n"
        "mount /mnt//danaus/a/ local /srv/a\n"
        "mount /mnt/danaus/b " SECOND_BACKEND " /tenants/a\n"
        "union /mnt/danaus/c local /srv/c /srv/l1:/srv/l2\n"
        "union /mnt/danaus/d local /srv/d /srv/l1 volatile\n";
    struct config cfg;
    char err[256];
    assert_int_equal(config_parse("t.conf", text, &cfg, err, sizeof err), 0);
    assert_string_equal(cfg.service, "tenant-a");
    assert_string_equal(cfg.rundir, "/tmp/run");
    assert_int_equal(cfg.owner_uid, 1000);
    assert_int_equal(cfg.owner_gid, 1001);
    assert_int_equal(cfg.idmap.inside, 0);
    assert_int_equal(cfg.idmap.outside, 100000);
    assert_int_equal(cfg.idmap.count, 65536);
    assert_int_equal(cfg.queue_cells, 64);
    assert_int_equal(cfg.slots, 128);
    assert_int_equal(cfg.slot_buffer, 128 * 1024);
    assert_int_equal(cfg.threads_per_queue, 3);
    assert_int_equal(cfg.client_locks, 100);
    assert_int_equal(cfg.nice, 0);
    assert_int_equal(cfg.core_group_level, 2);
    assert_int_equal(cfg.cpus_line, 13);
    assert_int_equal(CPU_COUNT(&cfg.cpus), 3);
    assert_true(CPU_ISSET(0, &cfg.cpus) && CPU_ISSET(3, &cfg.cpus));
#ifdef DANAUS_WITH_CEPH
    assert_string_equal(config_backend_setting(&cfg, "ceph_oc_size"),
                        "67108864");
    assert_string_equal(config_backend_setting(&cfg, "ceph_client_log"),
                        "keep");
    assert_string_equal(config_backend_setting(&cfg, "ceph_write_through"),
                        "on");
    assert_string_equal(config_backend_setting(&cfg, "ceph_client_id"),
                        "tenant-a");
    assert_string_equal(config_backend_setting(&cfg, "ceph_keyring"),
                        "/etc/ceph/tenant-a.keyring");
    assert_string_equal(config_backend_setting(&cfg, "ceph_root"),
                        "/tenants/a");
#endif
    assert_int_equal(cfg.backend_ops_per_second, 250);
    assert_int_equal(cfg.backend_write_bytes_per_second, 8 << 20);
    assert_string_equal(cfg.backend_pressure_dir, "/var/lib/danaus/pressure");
    assert_int_equal(cfg.backend_latency_target_ms, 20);
    assert_int_equal(cfg.backend_fair_share, 0);
    assert_int_equal(cfg.backend_weight, 8);
    assert_int_equal(cfg.backend_reservation_ops, 50);
    assert_int_equal(cfg.nmounts, 4);
    assert_string_equal(cfg.mounts[0].mountpoint, "/mnt/danaus/a");
    assert_string_equal(cfg.mounts[0].backend, "local");
    assert_string_equal(cfg.mounts[0].source, "/srv/a");
    assert_null(cfg.mounts[0].union_lower);
    assert_string_equal(cfg.mounts[1].backend, SECOND_BACKEND);
    assert_string_equal(cfg.mounts[2].union_lower, "/srv/l1:/srv/l2");
    assert_false(cfg.mounts[2].volatile_writes);
    assert_string_equal(cfg.mounts[3].source, "/srv/d");
    assert_true(cfg.mounts[3].volatile_writes);
    config_free(&cfg);
}

static void defaults_apply(void **state)
{
    struct config cfg;
    char err[256];
    assert_int_equal(config_parse("t", "service s\nmount /d local /x\n", &cfg,
                                  err, sizeof err),
                     0);
    assert_string_equal(cfg.rundir, "/run/danaus");
    assert_int_equal(cfg.fuse_revalidate, 0);
    assert_int_equal(cfg.owner_uid, (uid_t)-1);
    assert_int_equal(cfg.idmap.count, 0);
    assert_int_equal(cfg.queue_cells, 256);
    assert_int_equal(cfg.client_locks, 4096);
    assert_int_equal(cfg.nice, -10);
    assert_null(config_backend_setting(&cfg, "ceph_client_log"));
    assert_null(config_backend_setting(&cfg, "ceph_write_through"));
    assert_int_equal(cfg.core_group_level, 0);
    assert_int_equal(cfg.cpus_line, 0);
    assert_int_equal(cfg.backend_fair_share, 1);
    assert_int_equal(cfg.backend_weight, 0);
    assert_int_equal(cfg.backend_reservation_ops, 0);
    config_free(&cfg);
}

/* Each bad text must be refused with exactly this message. */
static void refuses_with_line_and_problem(void **state)
{
    static const struct {
        const char *text, *message;
    } cases[] = {
        {"service s\nbogus 1\n",
         "t:2: unknown setting 'bogus' (backends built in: " BUILT_BACKENDS
         ")"},
        {"service s\nmount /a local /x\nmount /a/b local /y\n",
         "t:3: mount point /a/b overlaps /a"},
        {"service s\nmount relative local /x\n",
         "t:2: mount point 'relative' must be an absolute path without '.' "
         "or '..'"},
        {"service s\nmount /a/../b local /x\n",
         "t:2: mount point '/a/../b' must be an absolute path without '.' "
         "or '..'"},
        {"service s\nmount /a nfs /x\n",
         "t:2: unknown backend 'nfs' (" BUILT_BACKENDS ")"},
        {"service s\nmount /a local\n",
         "t:2: mount takes MOUNTPOINT BACKEND SOURCE"},
        {"service s\nmount /a local /x volatile\n",
         "t:2: mount takes MOUNTPOINT BACKEND SOURCE"},
        {"service s\nunion /a local /x /y fast\n",
         "t:2: union takes MOUNTPOINT BACKEND WRITABLE_DIR RO_DIR[:RO_DIR...] "
         "[volatile]"},
        {"service s\nunion /a local /x /y volatile more\n",
         "t:2: too many words"},
        {"service s\nqueue_cells 100\nmount /a local /x\n",
         "t:2: queue_cells must be a power of two, not 100"},
        {"service s\nslots -4\n",
         "t:2: slots must be a number from 1 to 65536, not '-4'"},
        {"service s\nnice -21\n",
         "t:2: nice must be a number from -20 to 19, not '-21'"},
        {"service s\nnice x\n",
         "t:2: nice must be a number from -20 to 19, not 'x'"},
        {"service s\nbackend_write_bytes_per_second 4G\n",
         "t:2: backend_write_bytes_per_second must be a number from 0 to "
         "4294967295, not '4G'"},
        {"service s\nbackend_pressure_dir pressure\n",
         "t:2: backend_pressure_dir 'pressure' must be an absolute path"},
        {"service s\nbackend_latency_target_ms 0\n",
         "t:2: backend_latency_target_ms must be a number from 1 to 60000, "
         "not '0'"},
        {"service s\nbackend_latency_target_ms 5\nmount /a local /x\n",
         "t:0: backend_latency_target_ms needs a backend_pressure_dir where "
         "the other pools see it"},
        {"service s\nbackend_weight 0\n",
         "t:2: backend_weight must be a number from 1 to 10000, not '0'"},
        {"service s\nbackend_fair_share maybe\n",
         "t:2: backend_fair_share must be on or off, not 'maybe'"},
        {"service s\nslot_buffer 5000\n",
         "t:2: slot_buffer must be a multiple of 4096"},
        {"service s\nowner root\n",
         "t:2: owner must be UID or UID:GID, not 'root'"},
        {"service s\nidmap 0:100000\n",
         "t:2: idmap must be INSIDE:OUTSIDE:COUNT, not '0:100000'"},
        {"service s\nidmap 0:4294901760:65536\n",
         "t:2: idmap must be INSIDE:OUTSIDE:COUNT, not '0:4294901760:65536'"},
        {"service s\nservice t\n", "t:2: service is set twice"},
        {"service a/b\n", "t:1: service name 'a/b' must not contain '/'"},
        {"service s\ncore_groups l9\n",
         "t:2: core_groups must be auto, l2, l3 or cpu, not 'l9'"},
        {"service s\ncpus 1-0\n",
         "t:2: cpus must be a cpu list such as 0-3,8, not '1-0'"},
        {"service s\ncpus 0\ncpus 1\n", "t:3: cpus is set twice"},
        {"mount /a local /x\n", "t:0: no 'service NAME' line"},
        {"service s\n", "t:0: no 'mount' line: nothing to serve"},
#ifdef DANAUS_WITH_CEPH
        {"service s\nceph_client_log loud\n",
         "t:2: ceph_client_log must be quiet or keep, not 'loud'"},
        {"service s\nceph_write_through yes\n",
         "t:2: ceph_write_through must be on or off, not 'yes'"},
        {"service s\nceph_root tenants/a\n",
         "t:2: ceph_root 'tenants/a' must be an absolute path"},
        {"service s\nceph_oc_size lots\n",
         "t:2: ceph_oc_size must be a number, not 'lots'"},
#else
        {"service s\nceph_conf /c\n",
         "t:2: unknown setting 'ceph_conf' (backends built in: local)"},
        {"service s\nmount /a ceph /x\n",
         "t:2: unknown backend 'ceph' (local)"},
#endif
        {"service s\nrundir a b\n", "t:2: rundir takes exactly one value"},
        {"service s\nfuse_revalidate maybe\n",
         "t:2: fuse_revalidate must be on or off, not 'maybe'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct config cfg;
        char err[256] = "";
        assert_int_equal(config_parse("t", cases[i].text, &cfg, err,
                                      sizeof err),
                         -1);
        assert_string_equal(err, cases[i].message);
    }
}

static void load_names_a_missing_file(void **state)
{
    struct config cfg;
    char err[256];
    assert_int_equal(config_load("/nonexistent/danausd.conf", &cfg, err,
                                 sizeof err),
                     -1);
    assert_string_equal(err,
                        "/nonexistent/danausd.conf: No such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_a_full_configuration),
        cmocka_unit_test(defaults_apply),
        cmocka_unit_test(refuses_with_line_and_problem),
        cmocka_unit_test(load_names_a_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
