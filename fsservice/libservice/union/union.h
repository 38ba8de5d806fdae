/*
 * union.h - the union libservice: a container's root file system made of one
 * private writable branch over ordered read-only branches (image layers).
 *
 * Each branch is an instance of a lower libservice rooted at the branch's
 * directory (ls_instance_new of the local or ceph backend, on one shared Ceph
 * client); branches of different backends stack as well (the union copies
 * up through each branch's own ops). The union calls the branch
 * instances' ops directly: no data copy, no thread hop, no inode layer. A
 * read-only branch instance may be shared by any number of unions (many
 * containers of one image); the union does not own its branch instances,
 * fsservice/core/branches.c does.
 */
#ifndef DANAUS_UNION_H
#define DANAUS_UNION_H

#include "fsservice/libservice/libservice.h"

#define UNION_MAX_BRANCHES 32

/* What is known of a read-only branch's directories (their records, once
 * listed: branch_listing.c), shared by every union over the branch, as the
 * branch instance is. */
struct union_layer;

struct union_layer *union_layer_new(void);
/* Forgets what the layer knows (NULL: none), as its branch's directory is
 * removed and may be made again. */
void union_layer_forget(struct union_layer *layer);
void union_layer_free(struct union_layer *layer);

struct union_branch {
    struct ls_instance *inst;
    int writable; /* only branch 0 (the top) may be writable */
    /* The top branch's data need not outlive the machine (a container
     * removed when it stops, as overlayfs's volatile mounts): syncs of it
     * are answered at once, where the branch's backend holds a write
     * where a killed service cannot lose it (kernel_name_space: a local
     * directory's writes are in the host's page cache on return). */
    int volatile_writes;
    /* A read-only branch's layer, which must outlive the union; NULL: the
     * union keeps one of its own. */
    struct union_layer *layer;
};

/*
 * branches[0] is the top. copyup_cred is the identity that copies files up
 * and writes whiteouts (the service's own, root: it must keep owners); it
 * is copied, so a Ceph UserPerm in it must outlive the union.
 */
struct ls_instance *union_instance_new(const struct union_branch *branches,
                                       int nbranches,
                                       const struct ls_cred *copyup_cred,
                                       char *err, size_t errlen);

/* Makes the file at path (through the union) whole in the writable
 * branch: a lower file is copied up and a partial copy's lower bytes
 * copied in, so the writable branch holds it without the union (export,
 * commit). cred needs write permission on the file. */
int union_copyup_whole(struct ls_instance *inst, const struct ls_cred *cred,
                       const char *path);

/* The branch instances of inst, top first, into out (room for
 * UNION_MAX_BRANCHES); their number, 0 if inst is not a union. */
int union_branch_instances(struct ls_instance *inst,
                           struct ls_instance **out);

#endif
