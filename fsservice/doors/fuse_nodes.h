/*
 * fuse_nodes.h - the FUSE door's node table: which instance path each
 * FUSE node id the kernel holds stands for.
 *
 * libfuse's low-level API speaks in node ids; the libservices speak in
 * paths. A node is made (or found) when the kernel looks a name up and
 * lives until the kernel forgets it: renames move it and everything below
 * it, an unlink or rmdir detaches it from its name (a file still open or
 * looked up keeps its node, without a path). The node id is the node's
 * address (the root is FUSE_ROOT_ID). One mutex guards the table: every
 * FUSE request takes it for a moment, never across a backend call.
 */
#ifndef DANAUS_FUSE_NODES_H
#define DANAUS_FUSE_NODES_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fuse_node;

struct fuse_nodes {
    pthread_mutex_t lock;
    struct fuse_node **buckets; /* by path */
    size_t nbuckets, count;
    struct fuse_node *detached; /* nodes without a path, not yet forgotten */
    struct fuse_node *root;
};

int fuse_nodes_init(struct fuse_nodes *t);
void fuse_nodes_free(struct fuse_nodes *t);

/* The node of id, NULL for an id the table never gave (or forgot). */
struct fuse_node *fuse_nodes_get(struct fuse_nodes *t, uint64_t id);
uint64_t fuse_node_id(const struct fuse_nodes *t, const struct fuse_node *n);

/* Copies n's instance-relative path ("" for the root) into out: 0,
 * -ESTALE when n was unlinked, -ENAMETOOLONG. */
int fuse_node_path(struct fuse_nodes *t, const struct fuse_node *n,
                   char *out, size_t size);

/* parent's path joined with name into out: 0, -ESTALE, -ENAMETOOLONG. */
int fuse_node_child_path(struct fuse_nodes *t, const struct fuse_node *parent,
                         const char *name, char *out, size_t size);

/* The node at path, made if there is none, with one more lookup: NULL when
 * out of memory. */
struct fuse_node *fuse_nodes_lookup(struct fuse_nodes *t, const char *path);

/* The kernel forgets n lookups of node id. */
void fuse_nodes_forget(struct fuse_nodes *t, uint64_t id, uint64_t n);

/* After the instance renamed from to to: the node at to (if any) loses its
 * name, the node at from and every node below it move. */
void fuse_nodes_rename(struct fuse_nodes *t, const char *from,
                       const char *to);

/* After the instance removed path: its node (if any) loses its name. */
void fuse_nodes_unlinked(struct fuse_nodes *t, const char *path);

#endif
