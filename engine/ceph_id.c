/*
 * ceph_id.c - a pool's own cephx client (ceph_id.h).
 *
 * Two Ceph caps keep the pool's danausd, and whoever takes it over, out of
 * every other tenant's files: the MDS's (mds 'allow rw path=DIR') for the
 * tree, and the OSDs' for the data, which the OSDs hand to anyone allowed
 * the pool who names an object (a file's objects are named by its inode
 * number). So each pool's directory gets a RADOS namespace of its own (a
 * directory layout, inherited by every file made below it) and the client
 * is allowed that namespace only. Such a client can neither make its
 * directory (the parent is outside its caps) nor set a layout (no 'p' in
 * its mds cap), so the engine does both first with the conf's identity.
 */
#include "ceph_id.h"
#include "cgroup.h"
#include "fail.h"
#include "program.h"
#include "service.h"
#include "state.h"

#include <cephfs/libcephfs.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define CEPH_CONNECT_TIMEOUT "10" /* seconds for each ceph command */
#define NS_XATTR "ceph.dir.layout.pool_namespace"
#define NAME_SIZE 256 /* a namespace's or a RADOS pool's name */

/* The directory's namespace in ns: the one it has (a directory used by an
 * earlier pool keeps its files readable), or else fresh, which is set. Its
 * data pool in data. */
static int give_namespace(struct ceph_mount_info *cm, const char *dir,
                          const char *fresh, char ns[NAME_SIZE],
                          char data[NAME_SIZE])
{
    int r = ceph_getxattr(cm, dir, NS_XATTR, ns, NAME_SIZE - 1);
    if (r > 0) {
        ns[r] = '\0';
    } else if (r == 0 || r == -ENODATA) {
        snprintf(ns, NAME_SIZE, "%s", fresh);
        r = ceph_setxattr(cm, dir, NS_XATTR, ns, strlen(ns), 0);
    }
    if (r >= 0)
        r = ceph_getxattr(cm, dir, "ceph.dir.layout.pool", data,
                          NAME_SIZE - 1);
    if (r < 0)
        return fail("cannot give %s a RADOS namespace: %s", dir,
                    strerror(-r));
    data[r] = '\0';
    return 0;
}

/* Makes dir and its parents in CephFS and gives it its namespace. An
 * unreachable cluster waits out client_mount_timeout rather than Ceph's
 * default 300 s. */
static int make_dir(const char *pool, const char *conf, const char *dir,
                    const char *fresh, char ns[NAME_SIZE],
                    char data[NAME_SIZE])
{
    struct ceph_mount_info *cm;
    int r = ceph_create(&cm, NULL);
    if (r < 0)
        return fail("pool %s: ceph_create: %s", pool, strerror(-r));
    /* No admin socket: a ceph-fuse of the same identity may hold its
     * path, and Ceph would complain on the engine's stderr. */
    if ((r = ceph_conf_read_file(cm, conf)) < 0 ||
        (r = ceph_conf_set(cm, "admin_socket", "")) < 0 ||
        (r = ceph_conf_set(cm, "client_mount_timeout", "30")) < 0 ||
        (r = ceph_mount(cm, "/")) < 0) {
        ceph_release(cm);
        return fail("pool %s: cannot mount the Ceph file system of %s: %s",
                    pool, conf, strerror(-r));
    }
    r = ceph_mkdirs(cm, dir, 0755);
    int rc = r < 0 && r != -EEXIST
                 ? fail("pool %s: cannot make %s in CephFS: %s", pool, dir,
                        strerror(-r))
                 : give_namespace(cm, dir, fresh, ns, data);
    ceph_unmount(cm);
    ceph_release(cm);
    return rc;
}

int ceph_id_available(const char *backend)
{
    return 0;
}

int ceph_id_create(const char *pool, struct record *rec)
{
    if (strcmp(record_get(rec, "backend_kind"), "ceph") != 0)
        return 0;
    const char *conf = record_get(rec, "ceph_conf");
    const char *dir = record_get(rec, "backend_dir");
    char id[128], ns[NAME_SIZE], data[NAME_SIZE];
    snprintf(id, sizeof id, "%s.%s", cgroup_scope(), pool);
    if (make_dir(pool, conf, dir, id, ns, data) < 0)
        return -1;
    char entity[160], mds[STATE_PATH_MAX + 32], osd[600];
    char keyring[STATE_PATH_MAX];
    snprintf(entity, sizeof entity, "client.%s", id);
    snprintf(mds, sizeof mds, "allow rw path=%s", dir);
    snprintf(osd, sizeof osd, "allow rw pool=%s namespace=%s", data, ns);
    service_ceph_keyring(pool, keyring, sizeof keyring);
    int fd = open(keyring, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return fail_errno("cannot create %s", keyring);
    const char *const argv[] = {"ceph", "-c", (char *)conf, "--connect-timeout",
                          CEPH_CONNECT_TIMEOUT, "auth", "get-or-create",
                          entity, "mds", mds, "mon", "allow r", "osd", osd,
                          NULL};
    char what[300];
    snprintf(what, sizeof what, "pool %s: its Ceph client %s", pool, entity);
    int rc = program_run(what, argv, fd, NULL, NULL);
    if (close(fd) < 0 && rc == 0)
        rc = fail_errno("cannot write %s", keyring);
    if (rc == 0)
        record_set(rec, "ceph_id", "%s", id);
    return rc;
}

void ceph_id_remove(const char *pool, const struct record *rec)
{
    const char *id = record_get(rec, "ceph_id");
    if (!id)
        return;
    char entity[160];
    snprintf(entity, sizeof entity, "client.%s", id);
    const char *const argv[] = {"ceph", "-c", (char *)record_get(rec, "ceph_conf"),
                          "--connect-timeout", CEPH_CONNECT_TIMEOUT, "auth",
                          "del", entity, NULL};
    char what[300];
    snprintf(what, sizeof what, "pool %s: cannot delete its Ceph client",
             pool);
    /* A failed create is unmaking the pool: its error is the one kept. */
    int earlier = fail_message() != NULL;
    if (program_run(what, argv, -1, NULL, NULL) == 0)
        return;
    fprintf(stderr, "danaus: %s; it stays (ceph auth del %s)\n",
            earlier ? what : fail_message(), entity);
    if (!earlier)
        fail_clear();
}
