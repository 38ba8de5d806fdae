/*
 * writeback.h - the service's side of the clients' write-back pages
 * (ipc.h): writing what a client kept back, in the order it wrote it, to
 * the files its own handles name, when it asks (FLUSH), when the backend
 * is about to let another opener in (readcache.h), and when it is gone.
 */
#ifndef DANAUS_WRITEBACK_H
#define DANAUS_WRITEBACK_H

#include <stdint.h>

struct client;
struct service;

/* Writes c's committed pages (of handle only, unless 0) to the backend.
 * With a handle: called as the backend announces its file, every
 * generation of which is 0 already; with 0: every file written is
 * announced as a write through the handle would be. A page that cannot be
 * written makes the next fsync of its open file fail (EIO), once. The
 * readcache's flush (service is svc). */
void writeback_flush(void *svc, struct client *c, uint64_t handle);

#endif
