/*
 * net.h - a container on the engine's bridge (run --network bridge),
 * docker's default network: the host's bridge NET_BRIDGE with address
 * NET_GATEWAY on NET_SUBNET, made once and kept (as docker keeps
 * docker0), outgoing traffic masqueraded to the host's address (iptables
 * nat), and per container a veth pair whose inner end is the container's
 * eth0, with an address of the subnet and a default route through the
 * bridge. The host's end goes with the container's network namespace.
 */
#ifndef ENGINE_NET_H
#define ENGINE_NET_H

#include "record.h"

#include <sys/types.h>

#define NET_BRIDGE "danaus0"
#define NET_PREFIX "10.89.0."    /* the subnet's first three octets */
#define NET_SUBNET NET_PREFIX "0/24"
#define NET_GATEWAY NET_PREFIX "1"

/* Records in rec (container name's) the lowest address of the subnet no
 * other container that has not exited holds, as "address". Call under
 * the state lock and save rec before leaving it. 0 or -1 (fail.h). */
int net_choose_address(const char *name, struct record *rec);
/* From the host, once the container's first process pid has its network
 * namespace: the bridge, the veth pair, eth0's address and route. 0 or
 * -1 (fail.h). */
int net_attach(pid_t pid, const char *address);

#endif
