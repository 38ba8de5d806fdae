/*
 * net.h - containers on their pool's bridge (run --network bridge),
 * docker's default network, one per pool: the host's bridge danausN
 * with address 10.89.N.1 on 10.89.N.0/24, N the pool's (chosen at its
 * first bridge container, kept in its record as "bridge"), made once and
 * kept until the pool is removed; outgoing traffic masqueraded to the
 * host's address (iptables nat); traffic between two pools' bridges
 * refused (the filter chain NET_ISOLATE). Per container a veth pair
 * whose inner end is the container's eth0, with an address of the
 * pool's subnet and a default route through the bridge (named after the
 * address, "veth" in its record, deleted when the container ends: the
 * kernel would take it away with the network namespace, but later), and
 * the ports it
 * publishes (-p): DNAT from the host's addresses, 127.0.0.1 included.
 * docs/confinement.md has the rules.
 */
#ifndef ENGINE_NET_H
#define ENGINE_NET_H

#include "record.h"

#include <sys/types.h>

#define NET_ISOLATE "DANAUS-ISOLATE"
#define NET_PORTS_MAX 32 /* per container */

/* -p HOSTPORT:CONTAINERPORT[/tcp|/udp] */
struct net_port {
    unsigned host, container;
    int udp;
};

/* Parses text as -p takes it into p. 0 or -1 (fail.h). */
int net_port_parse(const char *text, struct net_port *p);

/* The ports a container's record lists ("ports"), up to NET_PORTS_MAX;
 * their count. */
int net_ports_of(const struct record *rec, struct net_port *ports);

/*
 * Under the state lock, for container name of pool about to run on the
 * bridge (rec its record, saved by the caller before it leaves the
 * lock): first takes away the port rules of containers that have ended
 * since they published (and rec's own from an earlier run), then records
 * in rec the pool's bridge number ("bridge", chosen and saved in the
 * pool's record when it has none), the lowest address of its subnet no
 * other container that has not exited holds ("address") and the ports
 * ("ports", "published"), refusing one another running container
 * publishes or a host socket holds. 0 or -1 (fail.h).
 */
int net_reserve(const char *name, const char *pool,
                const struct net_port *ports, int nports, struct record *rec);
/* From the host, once the container's first process pid has its network
 * namespace: the bridge and its rules where missing, the veth pair,
 * eth0's address and route, the published ports' rules. 0 or -1
 * (fail.h). */
int net_attach(pid_t pid, const struct record *rec);
/* Takes away rec's veth pair and the rules of the ports it published,
 * if any, and clears its "veth" and "published". */
void net_release(struct record *rec);
/* The pool's bridge and its rules, when it has one (pool rm). */
void net_pool_remove(const struct record *pool);

#endif
