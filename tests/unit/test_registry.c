/*
 * test_registry.c - the backend registry (libservice.h): backends found by
 * name, a shim hiding the backend it wraps, credentials carrying each
 * ready backend's own state, and the in-memory backend, registered here
 * only, serving files as any backend does. Ceph's is there in a build
 * with it only (DANAUS_CEPH).
 */
#include "fsservice/core/config.h"
#include "fsservice/libservice/memory/memory.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <cmocka.h>

static const struct ls_cred root;

#ifdef DANAUS_WITH_CEPH
#define BUILT_BACKENDS "local or ceph"
#else
#define BUILT_BACKENDS "local"
#endif

static void the_service_backends_are_there(void **state)
{
    assert_non_null(ls_backend_find("local"));
    assert_true(ls_backend_ready(ls_backend_find("local")));
    char err[128];
#ifdef DANAUS_WITH_CEPH
    /* Ceph needs its settings (a cluster) before any instance. */
    assert_false(ls_backend_ready(ls_backend_find("ceph")));
    assert_null(ls_instance_new("ceph", "/x", err, sizeof err));
    assert_string_equal(err, "backend ceph is not started");
#else
    assert_null(ls_backend_find("ceph"));
    assert_null(ls_instance_new("ceph", "/x", err, sizeof err));
    assert_string_equal(err, "backend ceph is unknown");
#endif
    assert_null(ls_instance_new("nfs", "/x", err, sizeof err));
    assert_string_equal(err, "backend nfs is unknown");
}

static void a_registered_backend_serves_files(void **state)
{
    char err[128], buf[64];
    struct ls_instance *inst = ls_instance_new("memory", "", err, sizeof err);
    assert_non_null(inst);
    const struct ls_ops *ops = inst->ops;
    assert_int_equal(ops->mkdir(inst, &root, "d", 0755), 0);
    assert_int_equal(ops->mkdir(inst, &root, "d", 0755), -EEXIST);
    assert_int_equal(ops->mkdir(inst, &root, "no/d", 0755), -ENOENT);
    struct ls_file *f;
    assert_int_equal(ops->open(inst, &root, "d/f", O_RDWR | O_CREAT, 0644, &f),
                     0);
    off_t end;
    assert_int_equal(ops->pread(f, &root, buf, sizeof buf, 0), 0);
    assert_int_equal(ops->pwrite(f, &root, "", 0, 0, &end), 0);
    assert_int_equal(ops->pwrite(f, &root, "hello", 5, 0, &end), 5);
    assert_int_equal(ops->pwrite(f, &root, "!", 1, -1, &end), 1);
    assert_int_equal(end, 6);
    assert_int_equal(ops->pread(f, &root, buf, sizeof buf, 0), 6);
    assert_memory_equal(buf, "hello!", 6);
    ops->close(f);

    struct danaus_stat st;
    assert_int_equal(ops->stat(inst, &root, "d/f", 0, &st), 0);
    assert_int_equal(st.size, 6);
    assert_true(S_ISREG(st.mode));
    assert_int_equal(ops->rmdir(inst, &root, "d"), -ENOTEMPTY);

    struct ls_file *dir;
    assert_int_equal(ops->open(inst, &root, "d", O_RDONLY | O_DIRECTORY, 0,
                               &dir),
                     0);
    char ents[256];
    off_t pos = 0;
    ssize_t n = ops->getdents(dir, &root, ents, sizeof ents, &pos);
    assert_true(n > 0);
    assert_string_equal(((struct danaus_dirent *)ents)->d_name, "f");
    assert_int_equal(ops->getdents(dir, &root, ents, sizeof ents, &pos), 0);
    ops->close(dir);

    assert_int_equal(ops->unlink(inst, &root, "d/f"), 0);
    assert_int_equal(ops->stat(inst, &root, "d/f", 0, &st), -ENOENT);
    assert_int_equal(ops->rmdir(inst, &root, "d"), 0);
    assert_int_equal(ops->link(inst, &root, "a", "b"), -EOPNOTSUPP);
    ops->destroy(inst);
}

/* The configuration names backends through the registry too. */
static void the_configuration_takes_a_registered_backend(void **state)
{
    struct config cfg;
    char err[256];
    assert_int_equal(config_parse("t", "service s\nmount /m memory x\n", &cfg,
                                  err, sizeof err),
                     0);
    assert_string_equal(cfg.mounts[0].backend, "memory");
    config_free(&cfg);
    assert_int_equal(config_parse("t", "service s\nmount /m nfs x\n", &cfg,
                                  err, sizeof err),
                     -1);
    assert_string_equal(err, "t:2: unknown backend 'nfs' "
                             "(" BUILT_BACKENDS " or memory)");
}

/* A shim registered under "memory": counts the instances it makes over
 * the real one. */
static int shim_made;

static struct ls_instance *shim_instance_new(struct ls_backend *b,
                                             const char *source, char *err,
                                             size_t errlen)
{
    struct ls_backend *real = b->arg;
    shim_made++;
    return real->instance_new(real, source, err, errlen);
}

/* Keeps a mark in the credential and counts releases. */
static int released;

static int shim_cred_init(struct ls_backend *b, struct ls_cred *cred)
{
    cred->state[b->cred_slot] = &shim_made;
    return 0;
}

static void shim_cred_release(struct ls_backend *b, struct ls_cred *cred)
{
    released++;
}

static struct ls_backend shim = {
    .name = "memory",
    .instance_new = shim_instance_new,
    .cred_init = shim_cred_init,
    .cred_release = shim_cred_release,
};

static void a_shim_hides_the_backend_it_wraps(void **state)
{
    struct ls_backend *real = ls_backend_find("memory");
    shim.arg = real;
    assert_int_equal(ls_backend_register(&shim), 0);
    assert_ptr_equal(ls_backend_find("memory"), &shim);
    char err[128];
    struct ls_instance *inst = ls_instance_new("memory", "", err, sizeof err);
    assert_non_null(inst);
    assert_int_equal(shim_made, 1);
    inst->ops->destroy(inst);

    struct ls_cred cred = {.uid = 1000};
    assert_int_equal(ls_cred_init(&cred), 0);
    assert_ptr_equal(cred.state[shim.cred_slot], &shim_made);
    ls_cred_release(&cred);
    assert_int_equal(released, 1);
    assert_null(cred.state[shim.cred_slot]);
    /* Released once only, and a credential it never saw not at all. */
    ls_cred_release(&cred);
    assert_int_equal(released, 1);
}

int main(void)
{
    if (ls_backend_register(&memory_backend) < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_service_backends_are_there),
        cmocka_unit_test(a_registered_backend_serves_files),
        cmocka_unit_test(the_configuration_takes_a_registered_backend),
        cmocka_unit_test(a_shim_hides_the_backend_it_wraps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
