/*
 * dns.h - a bridge container's /etc/resolv.conf and /etc/hosts, written
 * by the engine into the container's state directory and bound over the
 * image's, as podman does: the host's resolv.conf without the resolvers
 * the container cannot reach (its own loopback is not the host's, and it
 * has no IPv6), and a hosts file that names the container.
 */
#ifndef ENGINE_DNS_H
#define ENGINE_DNS_H

#include "record.h"

/* Used when the host names no resolver the container reaches (docker's
 * documented fallback). */
#define DNS_FALLBACK "nameserver 8.8.8.8\nnameserver 8.8.4.4\n"

/* Writes resolv into dir/resolv.conf and hosts into dir/hosts for the
 * container name on the bridge (rec: its "address" and "bridge",
 * net.h), given to owner (host uid and gid of the container's root), so
 * that it may change them as podman's may. Reads the host's resolv.conf
 * in /etc, or in DANAUS_ETC (the tests'); where that names only
 * resolvers on the host's loopback (systemd-resolved's stub),
 * /run/systemd/resolve/resolv.conf's. 0 or -1 (fail.h). */
int dns_write(const char *dir, const char *name, const struct record *rec,
              unsigned owner);

#endif
