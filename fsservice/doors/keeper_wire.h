/*
 * keeper_wire.h - how a service, its keeper and a claiming service talk
 * (fuse_keeper.h): one struct keeper_msg per SOCK_SEQPACKET message,
 * descriptors beside it as SCM_RIGHTS.
 */
#ifndef DANAUS_KEEPER_WIRE_H
#define DANAUS_KEEPER_WIRE_H

#include "fuse_keeper.h"

#include <stdbool.h>
#include <sys/un.h>

/* <rundir>/<service>.keeper into *sa: 0, or -1 when too long. */
int keeper_address(const char *rundir, const char *service,
                   struct sockaddr_un *sa);

/* Whether the other end of fd runs as this process's user or as root. */
bool keeper_peer_trusted(int fd);

/* Bounds each wait on fd for a claim's messages: a peer that connects
 * and says nothing (stopped, or hostile) stalls nobody for long. */
void keeper_bound_waits(int fd);

/* Sends msg with nfds descriptors: 0 or -1 (errno). */
int keeper_send(int fd, const struct keeper_msg *msg, const int *fds,
                int nfds);
/* keeper_send, or -1 (EAGAIN) at once when the peer's queue is full:
 * for callers that hold locks others wait on. */
int keeper_send_now(int fd, const struct keeper_msg *msg, const int *fds,
                    int nfds);

/* Receives one message into msg and up to KEPT_FDS descriptors (close on
 * exec) into fds: their number; 0 with msg->op 0 for a message not of
 * this protocol (its descriptors closed); -1 at end of file (errno 0) or
 * on error. A WRITE fills msg up to KEEPER_WRITE_LEN only. */
int keeper_recv(int fd, struct keeper_msg *msg, int fds[KEPT_FDS]);

#endif
