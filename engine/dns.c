/*
 * dns.c - a bridge container's /etc/resolv.conf and /etc/hosts (dns.h).
 */
#include "dns.h"
#include "fail.h"
#include "state.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RESOLV_MAX 8192
#define SYSTEMD_RESOLV "/run/systemd/resolve/resolv.conf"

/* The lines of the resolv.conf at path into out but its resolvers the
 * container cannot reach: those on the host's loopback, and IPv6 ones.
 * How many resolvers are left; -1 when path cannot be read. */
static int reachable_lines(const char *path, char *out, size_t size)
{
    FILE *f = fopen(path, "re");
    if (!f)
        return -1;
    char line[1024], address[64];
    size_t used = 0;
    int kept = 0;
    out[0] = '\0';
    while (fgets(line, sizeof line, f)) {
        int resolver = sscanf(line, " nameserver %63s", address) == 1;
        if (resolver &&
            (strncmp(address, "127.", 4) == 0 || strchr(address, ':')))
            continue;
        const char *end = line[strcspn(line, "\n")] ? "" : "\n";
        int n = snprintf(out + used, size - used, "%s%s", line, end);
        if (n < 0 || (size_t)n >= size - used)
            break;
        used += (size_t)n;
        kept += resolver;
    }
    fclose(f);
    return kept;
}

/* The container's resolv.conf into out. */
static void resolv_conf(char *out, size_t size)
{
    const char *etc = getenv("DANAUS_ETC");
    char path[STATE_PATH_MAX];
    snprintf(path, sizeof path, "%s/resolv.conf", etc && *etc ? etc : "/etc");
    if (reachable_lines(path, out, size) > 0)
        return;
    static char resolved[RESOLV_MAX];
    if (reachable_lines(SYSTEMD_RESOLV, resolved, sizeof resolved) > 0) {
        snprintf(out, size, "%s", resolved);
        return;
    }
    size_t used = strlen(out);
    snprintf(out + used, size - used, "%s", DNS_FALLBACK);
}

static int write_file(const char *dir, const char *name, const char *text,
                      unsigned owner)
{
    char path[STATE_PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
                  0644);
    size_t len = strlen(text);
    int rc = fd < 0 || write(fd, text, len) != (ssize_t)len ||
                     fchown(fd, owner, owner) < 0
                 ? fail_errno("cannot write %s", path)
                 : 0;
    if (fd >= 0)
        close(fd);
    return rc;
}

int dns_write(const char *dir, const char *name, const struct record *rec,
              unsigned owner)
{
    static char resolv[RESOLV_MAX];
    char hosts[512];
    resolv_conf(resolv, sizeof resolv);
    snprintf(hosts, sizeof hosts,
             "127.0.0.1\tlocalhost\n"
             "::1\tlocalhost ip6-localhost ip6-loopback\n"
             "%s\t%s\n"
             "10.89.%lld.1\thost.containers.internal\n",
             record_get(rec, "address"), name,
             record_num(rec, "bridge", 0));
    return write_file(dir, "resolv.conf", resolv, owner) < 0 ||
                   write_file(dir, "hosts", hosts, owner) < 0
               ? -1
               : 0;
}
