/*
 * raw_client.h - a client of danausd written against wire.h and ipc.h
 * alone, as an attacker would write one: it attaches the way libdanaus
 * does, and then may write whatever it likes into what it mapped.
 */
#ifndef DANAUS_RAW_CLIENT_H
#define DANAUS_RAW_CLIENT_H

#include "ipc/ipc.h"

#include <danaus/wire.h>
#include <stdint.h>

#define RAW_MAX_MOUNTS 8

struct raw {
    int door;
    uint32_t index;           /* our client index: what our bells carry */
    uint32_t nmounts;
    uint32_t mount[RAW_MAX_MOUNTS]; /* hello entries, in order */
    char path[RAW_MAX_MOUNTS][256];
    struct ipc_geometry g;
    struct ipc_segment seg;   /* the service's queues */
    struct ipc_area area;     /* our own slots */
    int announce_fd;          /* the service's announcement page */
    int pass_fd;              /* our end of the pass socket (wire.h) */
    uint32_t seq[64];         /* last sequence per slot */
};

/* Connects to socket, says hello, maps what came with the reply: 0 or
 * -errno (the reply's error, for a hello refused). */
int raw_attach(struct raw *r, const char *socket_path);
/* raw_attach in two steps: connect only, then (maybe in another process)
 * say hello on the connection. */
int raw_connect(struct raw *r, const char *socket_path);
int raw_hello(struct raw *r);
/* raw_hello in two steps: the message, then the reply (hellos on many
 * connections at once). */
int raw_hello_send(struct raw *r);
int raw_hello_take(struct raw *r);
void raw_detach(struct raw *r);

/* One door exchange; the reply's error (0 or an errno), or EPIPE. extra:
 * bytes after the message (TICKET handles, mount strings). */
int raw_door(struct raw *r, uint32_t op, uint32_t arg, uint64_t token,
             const void *extra, size_t extra_len,
             struct danaus_door_reply *reply);

/* A slot of our area, or -errno. */
int raw_slot(struct raw *r);

/* Posts a request in slot (in: len bytes at the buffer's start), rings,
 * and waits up to timeout_ms: the result, or -ETIMEDOUT. */
int64_t raw_call(struct raw *r, uint32_t slot, struct danaus_desc *d,
                 const void *in, uint32_t len, int timeout_ms);

/* raw_call with the slot's bytes_in word (ipc.h) saying that claimed
 * bytes of the input are there, for the request numbered seq_delta from
 * this one's: what raw_call says is (0, len). */
int64_t raw_call_claiming(struct raw *r, uint32_t slot,
                          struct danaus_desc *d, const void *in,
                          uint32_t len, int32_t seq_delta, uint32_t claimed,
                          int timeout_ms);

/* Opens path (relative to the mount) on mount: a handle or -errno. */
int64_t raw_open(struct raw *r, uint32_t slot, uint32_t mount,
                 const char *path, int flags);

/* The mount index of the hello entry at path, or UINT32_MAX. */
uint32_t raw_mount(const struct raw *r, const char *path);

#endif
