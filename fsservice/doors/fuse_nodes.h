/*
 * fuse_nodes.h - the FUSE door's node table: which instance path each
 * FUSE node id the kernel holds stands for.
 *
 * libfuse's low-level API speaks in node ids; the libservices speak in
 * paths. A node is made (or found) when the kernel looks a name up and
 * lives until the kernel forgets it: renames move it and everything below
 * it, an unlink or rmdir detaches it from its name (a file still open or
 * looked up keeps its node, without a path).
 *
 * The table is a tree: each node is a record (its parent's id and its own
 * name) in a record area (record_area.h), and a node's id is its record's
 * index (the root is FUSE_ROOT_ID, 1). A directory that holds named nodes
 * lives as long as they do, looked up or not. Because the records are
 * everything the table knows, a danausd that takes over the door's FUSE
 * connection from a dead one adopts its area and answers for the same
 * node ids (fuse_keeper.h). One mutex guards the table: every FUSE
 * request takes it for a moment, never across a backend call.
 */
#ifndef DANAUS_FUSE_NODES_H
#define DANAUS_FUSE_NODES_H

#include "record_area.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

struct fuse_nodes {
    pthread_mutex_t lock;
    struct record_area area;
    uint64_t top;        /* one past the highest id in use */
    struct node_mem *mem; /* per id: what is derived from the records */
    uint64_t *ino_chains; /* by inode number's hash: a chain's first id */
    uint64_t *index;     /* open addressing by (parent, name): ids, 0 free */
    size_t index_size;   /* a power of two */
    size_t named;        /* nodes in the index */
    struct free_ids free; /* ids below top not in use */
};

/* A new, empty table (the root only), in an area of its own. 0 or -errno. */
int fuse_nodes_init(struct fuse_nodes *t);

/* The table in area fd, written by a previous service; fd now belongs to
 * t. A record that a crash left half written loses its name (-ESTALE).
 * 0, or -EINVAL when fd holds no node table. */
int fuse_nodes_adopt(struct fuse_nodes *t, int fd);

/* The area's descriptor, for the door's keeper. */
int fuse_nodes_fd(const struct fuse_nodes *t);

void fuse_nodes_free(struct fuse_nodes *t);

/* Copies node id's instance-relative path ("" for the root) into out: 0,
 * -ESTALE when the node was unlinked (or is unknown), -ENAMETOOLONG. */
int fuse_node_path(struct fuse_nodes *t, uint64_t id, char *out, size_t size);

/* id's path joined with name into out: 0, -ESTALE, -ENAMETOOLONG. */
int fuse_node_child_path(struct fuse_nodes *t, uint64_t id, const char *name,
                         char *out, size_t size);

/* The node at path, of the instance's inode ino, with one more lookup:
 * made if there is none, or if the node there was of another inode (which
 * loses its name). stamp tells apart inodes that had the same number one
 * after the other (0: nothing to tell; a node of an adopted table has
 * none, so a stamp gives it a new node). Its id, or 0 when out of memory.
 * *generation gets the id's generation, which changes each time the id is
 * used again. */
uint64_t fuse_nodes_lookup(struct fuse_nodes *t, const char *path,
                           uint64_t ino, uint64_t stamp,
                           uint64_t *generation);

/* The node at path, or 0 when the kernel holds none there (nor below);
 * *ino gets its inode (0: not known). */
uint64_t fuse_nodes_find(struct fuse_nodes *t, const char *path,
                         uint64_t *ino);

/* Node id's inode (0: not known). */
uint64_t fuse_nodes_ino(struct fuse_nodes *t, uint64_t id);

/* Up to max ids of the nodes of inode ino but except (its names, hard
 * links, and those that lost their names while the kernel still holds
 * them) into ids: how many. */
size_t fuse_nodes_of_ino(struct fuse_nodes *t, uint64_t ino, uint64_t except,
                         uint64_t *ids, size_t max);

/* The kernel forgets n lookups of node id. */
void fuse_nodes_forget(struct fuse_nodes *t, uint64_t id, uint64_t n);

/* After the instance renamed from to to: the node at to (if any) loses its
 * name, the node at from and every node below it move. */
void fuse_nodes_rename(struct fuse_nodes *t, const char *from,
                       const char *to);

/* After the instance swapped a and b (RENAME_EXCHANGE): the nodes at
 * each and below move to the other. */
void fuse_nodes_exchange(struct fuse_nodes *t, const char *a, const char *b);

/* After the instance removed path: its node (if any) loses its name. */
void fuse_nodes_unlinked(struct fuse_nodes *t, const char *path);

#endif
