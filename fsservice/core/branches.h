/*
 * branches.h - the branch instances of a service's unions, made from
 * the configuration's `union` lines and shared between unions: every union
 * that names the same read-only directory of the same backend uses one
 * instance of it (on Ceph, all of them use the service's one Ceph client),
 * so a file of a shared image is read and cached once.
 */
#ifndef DANAUS_UNION_BRANCHES_H
#define DANAUS_UNION_BRANCHES_H

#include "config.h"
#include "fsservice/libservice/libservice.h"

struct union_branches;

/* The union instance of mount m (m->union_lower set), over branches the
 * registry makes (libservice.h). *reg is made on first use. */
struct ls_instance *union_branches_mount(struct union_branches **reg,
                                         const struct config_mount *m,
                                         char *err, size_t errlen);
/* A union was unmounted: its writable branch (union_writable_branch) no
 * longer counts as taken, so its directory may serve a new union (a
 * container of the same name). The instance itself stays until
 * union_branches_free: the unmounted union may still be in use. */
void union_branches_retire(struct union_branches *reg,
                           struct ls_instance *writable);
/* Destroys the branch instances; the unions over them must be gone. */
void union_branches_free(struct union_branches *reg);

#endif
