/*
 * door.h - the service's Unix socket, where clients attach (see door.c).
 */
#ifndef DANAUS_DOOR_H
#define DANAUS_DOOR_H

#include "fsservice/core/service.h"
#include "views.h"

#include <pthread.h>
#include <stdbool.h>
#include <sys/un.h>

struct conn;
struct ticket;

struct door {
    struct service *svc;
    int listen_fd, epoll_fd, stop_fd;
    int bound; /* the socket file is ours to remove */
    bool accept_paused; /* out of descriptors: listen_fd not polled */
    uint64_t accept_resume; /* until then (CLOCK_MONOTONIC, ms) */
    int nheld; /* hellos held for want of a descriptor */
    uint64_t next_sweep; /* when door_main next expires and retries (ms) */
    int peer_pidfd; /* SO_PEERPIDFD: 1 the kernel has it, -1 not, 0 unknown */
    uint64_t refused_said; /* when a refused hello was last logged (ms) */
    char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    pthread_t thread;
    struct conn *conns;
    int nclients;
    struct ticket *tickets; /* for children and exec'd images, wire.h */
    int ntickets;
    struct views views; /* per-container mount views, wire.h VIEW */
};

/* Binds <rundir>/<service>.sock; err gets a line for the operator. */
int door_open(struct door *d, struct service *svc, char *err, size_t errlen);
int door_start(struct door *d);
/* Adds again the mounts the engine had added to a dead predecessor whose
 * FUSE mounts this service took over (fuse_keeper.h), and lets go of those
 * nobody serves now. Before door_start. */
void door_restore_mounts(struct door *d);
/* Stops the door thread and detaches every client. */
void door_stop(struct door *d);
/* Removes the socket and closes what door_open opened. */
void door_close(struct door *d);

#endif
