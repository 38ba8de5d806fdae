/*
 * net.c - a container on the engine's bridge (net.h), built with the
 * host's iproute2, iptables and nsenter as the engine builds layers with
 * tar: each step one program, its first complaint the error.
 */
#include "net.h"
#include "fail.h"
#include "program.h"
#include "query.h"
#include "state.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run(const char *const argv[])
{
    return program_run("network", argv, -1, NULL, NULL);
}

/* Whether the container named holds an address: it has not exited, and
 * its first process, once it has one, lives. */
static int holds_address(const char *name, const char *address)
{
    struct record rec;
    if (query_container(name, &rec) < 0) {
        fail_clear();
        return 0;
    }
    const char *mine = record_get(&rec, "address");
    const char *status = record_get(&rec, "status");
    pid_t pid = (pid_t)record_num(&rec, "pid", 0);
    int holds = mine && strcmp(mine, address) == 0 && status &&
                strcmp(status, "exited") != 0 && (!pid || kill(pid, 0) == 0);
    record_free(&rec);
    return holds;
}

static int address_taken(const char *address, const char *self)
{
    int n, taken = 0;
    char **cs = state_list("containers", &n);
    for (int i = 0; i < n && !taken; i++)
        taken = strcmp(cs[i], self) != 0 && holds_address(cs[i], address);
    state_list_free(cs, n);
    return taken;
}

int net_choose_address(const char *name, struct record *rec)
{
    char address[32];
    for (int host = 2; host < 255; host++) {
        snprintf(address, sizeof address, NET_PREFIX "%d", host);
        if (!address_taken(address, name)) {
            record_set(rec, "address", "%s", address);
            return 0;
        }
    }
    return fail("--network bridge: every address of %s is taken", NET_SUBNET);
}

/* An iptables rule, added unless it is there (-C finds it). */
static int rule(const char *table, const char *const spec[])
{
    const char *argv[16] = {"iptables", "-w", "-t", table, "-C"};
    int n = 5;
    for (int i = 0; spec[i] && n < 15; i++)
        argv[n++] = spec[i];
    argv[n] = NULL;
    if (program_run("network", argv, -1, NULL, NULL) == 0)
        return 0;
    fail_clear();
    argv[4] = "-A";
    return run(argv);
}

/* The bridge, its address, forwarding and the masquerade, each made only
 * where missing. */
static int bridge_ensure(void)
{
    const char *const add[] = {"ip", "link", "add", NET_BRIDGE, "type",
                               "bridge", NULL};
    const char *const addr[] = {"ip", "addr", "replace", NET_GATEWAY "/24",
                                "dev", NET_BRIDGE, NULL};
    const char *const up[] = {"ip", "link", "set", NET_BRIDGE, "up", NULL};
    const char *const nat[] = {"POSTROUTING", "-s", NET_SUBNET, "!", "-o",
                               NET_BRIDGE, "-j", "MASQUERADE", NULL};
    const char *const out[] = {"FORWARD", "-i", NET_BRIDGE, "-j", "ACCEPT",
                               NULL};
    const char *const in[] = {"FORWARD", "-o", NET_BRIDGE, "-j", "ACCEPT",
                              NULL};
    if (access("/sys/class/net/" NET_BRIDGE, F_OK) < 0 && run(add) < 0)
        return -1;
    if (run(addr) < 0 || run(up) < 0 || rule("nat", nat) < 0 ||
        rule("filter", out) < 0 || rule("filter", in) < 0)
        return -1;
    int fd = open("/proc/sys/net/ipv4/ip_forward", O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 || write(fd, "1", 1) != 1
                 ? fail_errno("cannot turn on IPv4 forwarding")
                 : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

int net_attach(pid_t pid, const char *address)
{
    char veth[16], target[16], cidr[32];
    snprintf(veth, sizeof veth, "dn%d", (int)pid);
    snprintf(target, sizeof target, "%d", (int)pid);
    snprintf(cidr, sizeof cidr, "%s/24", address);
    const char *const pair[] = {"ip", "link", "add", veth, "type", "veth",
                                "peer", "name", "eth0", "netns", target,
                                NULL};
    const char *const plug[] = {"ip", "link", "set", veth, "master",
                                NET_BRIDGE, "up", NULL};
    const char *const inner[] = {"nsenter", "-t", target, "-n", "ip", "addr",
                                 "add", cidr, "dev", "eth0", NULL};
    const char *const up[] = {"nsenter", "-t", target, "-n", "ip", "link",
                              "set", "eth0", "up", NULL};
    const char *const route[] = {"nsenter", "-t", target, "-n", "ip",
                                 "route", "add", "default", "via",
                                 NET_GATEWAY, NULL};
    return bridge_ensure() < 0 || run(pair) < 0 || run(plug) < 0 ||
                   run(inner) < 0 || run(up) < 0 || run(route) < 0
               ? -1
               : 0;
}
