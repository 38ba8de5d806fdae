/*
 * net.c - containers on their pool's bridge (net.h), built with the
 * host's iproute2, iptables and nsenter as the engine builds layers with
 * tar: each step one program, its first complaint the error.
 */
#include "net.h"
#include "fail.h"
#include "program.h"
#include "query.h"
#include "service.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* 10.89.1.0/24 to 10.89.255.0/24: danaus0 and 10.89.0.0/24 were the one
 * bridge of engines before pools had their own, whose rules name it
 * alike. */
#define FIRST_BRIDGE 1
#define BRIDGES 256
#define IPT_ARGS 32

static int run(const char *const argv[])
{
    return program_run("network", argv, -1, NULL, NULL);
}

/* ---- iptables rules ---- */

/* iptables -w -t table op spec...: argv into out. */
static void ipt_argv(const char *argv[IPT_ARGS], const char *table,
                     const char *op, const char *const spec[])
{
    int n = 0;
    argv[n++] = "iptables";
    argv[n++] = "-w";
    argv[n++] = "-t";
    argv[n++] = table;
    argv[n++] = op;
    for (int i = 0; spec[i] && n < IPT_ARGS - 1; i++)
        argv[n++] = spec[i];
    argv[n] = NULL;
}

/* A rule, added with op (-A: last of its chain, -I: first) unless it is
 * there (-C finds it). */
static int rule_ensure(const char *table, const char *op,
                       const char *const spec[])
{
    const char *argv[IPT_ARGS];
    ipt_argv(argv, table, "-C", spec);
    if (program_run("network", argv, -1, NULL, NULL) == 0)
        return 0;
    fail_clear();
    argv[4] = op;
    return run(argv);
}

/* Takes a rule away; one that is not there is no error. */
static void rule_delete(const char *table, const char *const spec[])
{
    const char *argv[IPT_ARGS];
    ipt_argv(argv, table, "-D", spec);
    if (run(argv) < 0)
        fail_clear();
}

/* ---- the pool's bridge ---- */

/* The MAC of an address on a bridge, made of the address (as docker's
 * 02:42 ones are). A container's: a new container on the address of one
 * gone keeps its MAC, so the host's and the other containers' ARP entries
 * for the address stay right; an entry to another MAC would lose what is
 * sent to the address (a datagram) or delay it (a TCP connect) until it
 * expires. The bridge's: left to itself, a bridge takes the lowest MAC of
 * its ports, so a container leaving could change it, and every
 * container's entry for the gateway would go wrong. */
static void mac_of(const char *address, char mac[32])
{
    unsigned a[4] = {0};
    sscanf(address, "%u.%u.%u.%u", &a[0], &a[1], &a[2], &a[3]);
    snprintf(mac, 32, "02:da:%02x:%02x:%02x:%02x", a[0] & 255, a[1] & 255,
             a[2] & 255, a[3] & 255);
}

struct bridge {
    char name[16];    /* danausN */
    char subnet[32];  /* 10.89.N.0/24 */
    char gateway[32]; /* 10.89.N.1 */
};

static void bridge_of(int n, struct bridge *b)
{
    snprintf(b->name, sizeof b->name, "danaus%d", n);
    snprintf(b->subnet, sizeof b->subnet, "10.89.%d.0/24", n);
    snprintf(b->gateway, sizeof b->gateway, "10.89.%d.1", n);
}

/* The bridge's rules, added where missing (add) or taken away: first in
 * INPUT, the host's loopback kept from the bridge (route_localnet, set
 * by bridge_ensure, would route to it what arrives there for
 * 127.0.0.0/8; kube-proxy's CVE-2020-8558): only replies to the host's
 * own connections pass. Then the masquerade of what leaves the subnet
 * (and of the host's own 127.0.0.1 reaching a published port),
 * forwarding to and from the bridge, and in NET_ISOLATE, which FORWARD
 * enters first, the refusal of what comes from the bridge for another
 * pool's, after the exception of its own (bridged frames pass FORWARD
 * too where br_netfilter is on). 0 or -1 (fail.h). */
static int bridge_rules(const struct bridge *b, int add)
{
    const char *const loopback[] = {"INPUT", "-i", b->name, "-d",
                                    "127.0.0.0/8", "-m", "conntrack", "!",
                                    "--ctstate", "RELATED,ESTABLISHED", "-j",
                                    "DROP", NULL};
    const char *const nat[] = {"POSTROUTING", "-s", b->subnet, "!", "-o",
                               b->name, "-j", "MASQUERADE", NULL};
    const char *const local[] = {"POSTROUTING", "-s", "127.0.0.0/8", "-o",
                                 b->name, "-j", "MASQUERADE", NULL};
    const char *const out[] = {"FORWARD", "-i", b->name, "-j", "ACCEPT",
                               NULL};
    const char *const in[] = {"FORWARD", "-o", b->name, "-j", "ACCEPT",
                              NULL};
    const char *const others[] = {NET_ISOLATE, "-i", b->name, "-o",
                                  "danaus+", "-j", "REJECT",
                                  "--reject-with", "icmp-admin-prohibited",
                                  NULL};
    const char *const own[] = {NET_ISOLATE, "-i", b->name, "-o", b->name,
                               "-j", "RETURN", NULL};
    const struct {
        const char *table, *op;
        const char *const *spec;
    } rules[] = {{"filter", "-I", loopback}, {"nat", "-A", nat},
                 {"nat", "-A", local},       {"filter", "-A", out},
                 {"filter", "-A", in},       {"filter", "-A", others},
                 {"filter", "-I", own}};
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (!add)
            rule_delete(rules[i].table, rules[i].spec);
        else if (rule_ensure(rules[i].table, rules[i].op, rules[i].spec) < 0)
            return -1;
    return 0;
}

/* NET_ISOLATE, made where missing and entered first from FORWARD; it
 * starts with the exception of DNAT'd connections (published ports). */
static int isolate_chain(void)
{
    const char *const list[] = {"iptables", "-w", "-n", "-L", NET_ISOLATE,
                                NULL};
    const char *const make[] = {"iptables", "-w", "-N", NET_ISOLATE, NULL};
    const char *const enter[] = {"FORWARD", "-j", NET_ISOLATE, NULL};
    const char *const dnat[] = {NET_ISOLATE, "-m", "conntrack", "--ctstate",
                                "DNAT", "-j", "RETURN", NULL};
    if (run(list) < 0) {
        fail_clear();
        if (run(make) < 0)
            return -1;
    }
    return rule_ensure("filter", "-I", enter) < 0 ||
                   rule_ensure("filter", "-I", dnat) < 0
               ? -1
               : 0;
}

static int write_proc(const char *path, const char *what)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    int rc = fd < 0 || write(fd, "1", 1) != 1
                 ? fail_errno("cannot turn on %s", what)
                 : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

/* Whether interface name has MAC mac. */
static int mac_is(const char *name, const char *mac)
{
    char path[64], now[32] = "";
    snprintf(path, sizeof path, "/sys/class/net/%s/address", name);
    FILE *f = fopen(path, "re");
    if (f) {
        if (!fgets(now, sizeof now, f))
            now[0] = 0;
        fclose(f);
    }
    now[strcspn(now, "\n")] = 0;
    return strcmp(now, mac) == 0;
}

/* The bridge, its address, its rules and forwarding, each made only
 * where missing. route_localnet lets the host's connections from
 * 127.0.0.1 to a published port leave through the bridge (masqueraded
 * above); it comes after the rule that keeps
 * the host's loopback from the bridge. */
static int bridge_ensure(const struct bridge *b)
{
    char sysfs[64], localnet[80], cidr[40], mac[32];
    mac_of(b->gateway, mac);
    snprintf(sysfs, sizeof sysfs, "/sys/class/net/%s", b->name);
    snprintf(localnet, sizeof localnet,
             "/proc/sys/net/ipv4/conf/%s/route_localnet", b->name);
    snprintf(cidr, sizeof cidr, "%s/24", b->gateway);
    const char *const add[] = {"ip", "link", "add", b->name, "type",
                               "bridge", NULL};
    const char *const addr[] = {"ip", "addr", "replace", cidr, "dev",
                                b->name, NULL};
    const char *const up[] = {"ip", "link", "set", b->name, "up", NULL};
    const char *const own_mac[] = {"ip", "link", "set", b->name, "address",
                                   mac, NULL};
    if (access(sysfs, F_OK) < 0 && run(add) < 0)
        return -1;
    /* Set only when it differs: setting a bridge's MAC voids its ARP
     * entries, also when the MAC stays. */
    if (!mac_is(b->name, mac) && run(own_mac) < 0)
        return -1;
    return run(addr) < 0 || run(up) < 0 || isolate_chain() < 0 ||
                   bridge_rules(b, 1) < 0 ||
                   write_proc(localnet, "route_localnet") < 0 ||
                   write_proc("/proc/sys/net/ipv4/ip_forward",
                              "IPv4 forwarding") < 0
               ? -1
               : 0;
}

/* The pool's bridge number: its record's, or the lowest no pool of the
 * state directory has and no host interface is named for (another state
 * directory's pool), then saved there. -1 (fail.h). */
static int bridge_number(const char *pool)
{
    struct record rec;
    if (query_pool(pool, &rec) < 0)
        return -1;
    int n = (int)record_num(&rec, "bridge", -1);
    if (n >= FIRST_BRIDGE && n < BRIDGES) {
        record_free(&rec);
        return n;
    }
    int count;
    char **pools = state_list("pools", &count);
    for (n = FIRST_BRIDGE; n < BRIDGES; n++) {
        char sysfs[64];
        snprintf(sysfs, sizeof sysfs, "/sys/class/net/danaus%d", n);
        int taken = access(sysfs, F_OK) == 0;
        for (int i = 0; i < count && !taken; i++) {
            struct record other;
            if (query_pool(pools[i], &other) < 0) {
                fail_clear();
                continue;
            }
            taken = record_num(&other, "bridge", -1) == n;
            record_free(&other);
        }
        if (!taken)
            break;
    }
    state_list_free(pools, count);
    char path[STATE_PATH_MAX];
    query_pool_path(pool, path);
    int rc = n;
    if (n == BRIDGES)
        rc = fail("--network bridge: every bridge 10.89.N.0/24 is taken");
    else if (record_set(&rec, "bridge", "%d", n), record_save(path, &rec) < 0)
        rc = fail_errno("cannot save %s", path);
    record_free(&rec);
    return rc;
}

void net_pool_remove(const struct record *pool)
{
    int n = (int)record_num(pool, "bridge", -1);
    if (n < FIRST_BRIDGE || n >= BRIDGES)
        return;
    struct bridge b;
    bridge_of(n, &b);
    const char *const del[] = {"ip", "link", "del", b.name, NULL};
    bridge_rules(&b, 0);
    char sysfs[64];
    snprintf(sysfs, sizeof sysfs, "/sys/class/net/%s", b.name);
    if (access(sysfs, F_OK) == 0 && run(del) < 0)
        fail_clear();
}

/* ---- published ports ---- */

static int port_number(const char *text, char **end, unsigned *port)
{
    errno = 0;
    unsigned long v = *text >= '0' && *text <= '9' ? strtoul(text, end, 10)
                                                   : 0;
    *port = (unsigned)v;
    return errno == 0 && v >= 1 && v <= 65535;
}

int net_port_parse(const char *text, struct net_port *p)
{
    char *end;
    if (!port_number(text, &end, &p->host) || *end != ':' ||
        !port_number(end + 1, &end, &p->container))
        return fail("-p '%s': expected HOSTPORT:CONTAINERPORT[/tcp|/udp], "
                    "ports 1 to 65535", text);
    p->udp = strcmp(end, "/udp") == 0;
    if (*end && !p->udp && strcmp(end, "/tcp") != 0)
        return fail("-p '%s': the protocol is tcp or udp", text);
    return 0;
}

int net_ports_of(const struct record *rec, struct net_port *ports)
{
    const char *list = record_get(rec, "ports");
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", list ? list : "");
    int n = 0;
    for (char *save, *t = strtok_r(copy, " ", &save); t && n < NET_PORTS_MAX;
         t = strtok_r(NULL, " ", &save))
        if (net_port_parse(t, &ports[n]) == 0)
            n++;
    fail_clear();
    return n;
}

/* The DNAT of a published port to address, from the host's addresses:
 * PREROUTING for what arrives (from other machines, and from
 * containers), OUTPUT for the host's own connections. */
static int port_rules(const struct net_port *p, const char *address, int add)
{
    char dport[8], to[48];
    snprintf(dport, sizeof dport, "%u", p->host);
    snprintf(to, sizeof to, "%s:%u", address, p->container);
    const char *proto = p->udp ? "udp" : "tcp";
    int rc = 0;
    static const char *const chains[] = {"PREROUTING", "OUTPUT"};
    for (int i = 0; i < 2; i++) {
        const char *const spec[] = {chains[i], "-p", proto, "-m", "addrtype",
                                    "--dst-type", "LOCAL", "--dport", dport,
                                    "-j", "DNAT", "--to-destination", to,
                                    NULL};
        if (!add)
            rule_delete("nat", spec);
        else if (rc == 0)
            rc = rule_ensure("nat", "-A", spec);
    }
    return rc;
}

/* Deletes the host's end of a veth pair, and so the pair, when there. */
static void veth_delete(const char *veth)
{
    const char *const argv[] = {"ip", "link", "del", veth, NULL};
    if (if_nametoindex(veth) != 0 && run(argv) < 0)
        fail_clear();
}

void net_release(struct record *rec)
{
    const char *veth = record_get(rec, "veth");
    if (veth) {
        veth_delete(veth);
        record_unset(rec, "veth");
    }
    const char *address = record_get(rec, "address");
    if (!record_num(rec, "published", 0) || !address)
        return;
    struct net_port ports[NET_PORTS_MAX];
    int n = net_ports_of(rec, ports);
    for (int i = 0; i < n; i++)
        port_rules(&ports[i], address, 0);
    record_set(rec, "published", "0");
}

/* ---- a container's address and ports ---- */

/* Whether a container (its record) has not exited and its first
 * process, once it has one, lives (not a zombie whose monitor died):
 * what it holds is its own. */
static int holds(const struct record *rec)
{
    const char *status = record_get(rec, "status");
    return status && strcmp(status, "exited") != 0 &&
           (!record_num(rec, "pid", 0) || service_alive(rec));
}

/* What the other containers hold: the hosts of bridge n's subnet into
 * used; a port of ports one of them publishes is refused. The rules of
 * those that published and no longer hold anything go. 0 or -1
 * (fail.h). */
static int others(const char *self, int n, char used[256],
                  const struct net_port *ports, int nports)
{
    int count, rc = 0;
    char **cs = state_list("containers", &count);
    for (int i = 0; i < count && rc == 0; i++) {
        struct record rec;
        char path[STATE_PATH_MAX];
        query_container_path(cs[i], path);
        if (strcmp(cs[i], self) == 0 || record_load(path, &rec) < 0)
            continue;
        const char *address = record_get(&rec, "address");
        int bridge, host, alive = holds(&rec);
        if (!alive && (record_num(&rec, "published", 0) ||
                       record_get(&rec, "veth"))) {
            net_release(&rec);
            record_save(path, &rec);
        } else if (alive) {
            if (address &&
                sscanf(address, "10.89.%d.%d", &bridge, &host) == 2 &&
                bridge == n && host >= 0 && host < 256)
                used[host] = 1;
            struct net_port theirs[NET_PORTS_MAX];
            int k = net_ports_of(&rec, theirs);
            for (int a = 0; a < nports && rc == 0; a++)
                for (int b = 0; b < k && rc == 0; b++)
                    if (ports[a].host == theirs[b].host &&
                        ports[a].udp == theirs[b].udp)
                        rc = fail("-p %u/%s: container '%s' publishes it",
                                  ports[a].host,
                                  ports[a].udp ? "udp" : "tcp", cs[i]);
        }
        record_free(&rec);
    }
    state_list_free(cs, count);
    return rc;
}

/* Whether a host socket holds the port: one the host's programs bound
 * would no longer be reached once the DNAT takes its traffic. */
static int host_port_free(const struct net_port *p)
{
    int s = socket(AF_INET, (p->udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC,
                   0);
    int one = 1;
    struct sockaddr_in sa = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)p->host),
                             .sin_addr.s_addr = htonl(INADDR_ANY)};
    int rc = s < 0 ? fail_errno("socket") : 0;
    if (rc == 0 &&
        (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0 ||
         bind(s, (struct sockaddr *)&sa, sizeof sa) < 0))
        rc = errno == EADDRINUSE
                 ? fail("-p %u/%s: a host program uses the port", p->host,
                        p->udp ? "udp" : "tcp")
                 : fail_errno("-p %u", p->host);
    if (s >= 0)
        close(s);
    return rc;
}

int net_reserve(const char *name, const char *pool,
                const struct net_port *ports, int nports, struct record *rec)
{
    net_release(rec);
    for (int i = 0; i < nports; i++)
        for (int j = 0; j < i; j++)
            if (ports[i].host == ports[j].host && ports[i].udp == ports[j].udp)
                return fail("-p %u/%s: given twice", ports[i].host,
                            ports[i].udp ? "udp" : "tcp");
    char used[256] = {0};
    int n = bridge_number(pool);
    if (n < 0 || others(name, n, used, ports, nports) < 0)
        return -1;
    for (int i = 0; i < nports; i++)
        if (host_port_free(&ports[i]) < 0)
            return -1;
    int host = 2;
    while (host < 255 && used[host])
        host++;
    if (host == 255)
        return fail("--network bridge: every address of 10.89.%d.0/24 is "
                    "taken", n);
    char list[1024] = "";
    for (int i = 0; i < nports; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u:%u/%s",
                 i ? " " : "", ports[i].host, ports[i].container,
                 ports[i].udp ? "udp" : "tcp");
    record_set(rec, "bridge", "%d", n);
    record_set(rec, "address", "10.89.%d.%d", n, host);
    record_set(rec, "veth", "dn%d-%d", n, host);
    record_set(rec, "ports", "%s", list);
    record_set(rec, "published", "%d", nports > 0);
    return 0;
}

int net_attach(pid_t pid, const struct record *rec)
{
    const char *address = record_get(rec, "address");
    const char *veth = record_get(rec, "veth");
    struct bridge b;
    bridge_of((int)record_num(rec, "bridge", 0), &b);
    char target[16], cidr[32], mac[32];
    snprintf(target, sizeof target, "%d", (int)pid);
    snprintf(cidr, sizeof cidr, "%s/24", address);
    mac_of(address, mac);
    const char *const pair[] = {"ip", "link", "add", veth, "type", "veth",
                                "peer", "name", "eth0", "address", mac,
                                "netns", target, NULL};
    const char *const plug[] = {"ip", "link", "set", veth, "master", b.name,
                                "up", NULL};
    const char *const inner[] = {"nsenter", "-t", target, "-n", "ip", "addr",
                                 "add", cidr, "dev", "eth0", NULL};
    const char *const up[] = {"nsenter", "-t", target, "-n", "ip", "link",
                              "set", "eth0", "up", NULL};
    const char *const route[] = {"nsenter", "-t", target, "-n", "ip",
                                 "route", "add", "default", "via", b.gateway,
                                 NULL};
    /* The pair of the address's last holder, its network namespace
     * still being torn down by the kernel, would refuse the name. */
    veth_delete(veth);
    if (bridge_ensure(&b) < 0 || run(pair) < 0 || run(plug) < 0 ||
        run(inner) < 0 || run(up) < 0 || run(route) < 0)
        return -1;
    struct net_port ports[NET_PORTS_MAX];
    int n = net_ports_of(rec, ports);
    for (int i = 0; i < n; i++)
        if (port_rules(&ports[i], address, 1) < 0)
            return -1;
    return 0;
}
