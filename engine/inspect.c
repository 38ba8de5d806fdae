/*
 * inspect.c - a container's record as JSON (inspect.h).
 */
#include "inspect.h"
#include "cgroup.h"
#include "fail.h"
#include "query.h"
#include "service.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
         p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void field(const char *indent, const char *key, const char *value,
                  const char *end)
{
    printf("%s", indent);
    json_string(key);
    printf(": ");
    json_string(value);
    printf("%s\n", end);
}

/* The value of a "Key:\tvalue" line of /proc/PID/status, or "". */
static void status_field(int pid, const char *key, char *out, size_t size)
{
    char path[64], line[256];
    size_t len = strlen(key);
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "re");
    *out = '\0';
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ':') {
            char *v = line + len + 1;
            v += strspn(v, " \t");
            v[strcspn(v, "\n")] = '\0';
            snprintf(out, size, "%s", v);
            break;
        }
    if (f)
        fclose(f);
}

/* The first line of /proc/PID/WHICH (uid_map, gid_map) with its runs
 * of blanks made one: "0 1048576 65536", or "" when unreadable. */
static void id_map(int pid, const char *which, char *out, size_t size)
{
    char path[64], line[128] = "";
    snprintf(path, sizeof path, "/proc/%d/%s", pid, which);
    FILE *f = fopen(path, "re");
    if (f && !fgets(line, sizeof line, f))
        line[0] = '\0';
    if (f)
        fclose(f);
    size_t n = 0;
    for (char *w = strtok(line, " \t\n"); w && n < size;
         w = strtok(NULL, " \t\n"))
        n += (size_t)snprintf(out + n, size - n, "%s%s", n ? " " : "", w);
    if (n == 0)
        *out = '\0';
}

/* What the running container's pid 1 is held to: read from the kernel,
 * not from what the engine meant to set. */
static void print_security(int pid)
{
    static const char *const kinds[] = {"mnt", "pid", "uts", "ipc",
                                        "net", "cgroup", "user"};
    char eff[32], bnd[32], nnp[8], seccomp[8];
    status_field(pid, "CapEff", eff, sizeof eff);
    status_field(pid, "CapBnd", bnd, sizeof bnd);
    status_field(pid, "NoNewPrivs", nnp, sizeof nnp);
    status_field(pid, "Seccomp", seccomp, sizeof seccomp);
    printf("  \"Security\": {\"CapEff\": \"%s\", \"CapBnd\": \"%s\", "
           "\"NoNewPrivs\": %s, \"Seccomp\": \"%s\",\n",
           eff, bnd, strcmp(nnp, "1") == 0 ? "true" : "false",
           strcmp(seccomp, "2") == 0   ? "filter"
           : strcmp(seccomp, "1") == 0 ? "strict"
                                       : "disabled");
    printf("    \"Namespaces\": [");
    const char *sep = "";
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        char theirs[64], ours[64];
        struct stat a, b;
        snprintf(theirs, sizeof theirs, "/proc/%d/ns/%s", pid, kinds[i]);
        snprintf(ours, sizeof ours, "/proc/self/ns/%s", kinds[i]);
        if (stat(theirs, &a) == 0 && stat(ours, &b) == 0 &&
            a.st_ino != b.st_ino) {
            printf("%s\"%s\"", sep, kinds[i]);
            sep = ", ";
        }
    }
    /* Its user namespace's maps: inside, on the host, how many. */
    char uids[64], gids[64];
    id_map(pid, "uid_map", uids, sizeof uids);
    id_map(pid, "gid_map", gids, sizeof gids);
    printf("], \"UidMap\": \"%s\", \"GidMap\": \"%s\"},\n", uids, gids);
}

int inspect_container(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    const char *status = record_get(&rec, "status");
    int up = status && strcmp(status, "running") == 0 && service_alive(&rec);
    printf("{\n");
    field("  ", "Name", name, ",");
    printf("  \"State\": {\"Status\": \"%s\", \"Running\": %s, \"Pid\": %lld, "
           "\"ExitCode\": %lld},\n",
           up ? "running" : status && strcmp(status, "created") == 0
                                ? "created"
                                : "exited",
           up ? "true" : "false", up ? record_num(&rec, "pid", 0) : 0,
           up ? 0 : record_num(&rec, "exit", -1));
    field("  ", "Pool", record_get(&rec, "pool"), ",");
    field("  ", "Image", record_get(&rec, "image"), ",");
    field("  ", "Command", record_get(&rec, "command"), ",");
    printf("  \"ReadonlyRootfs\": %s,\n",
           record_num(&rec, "read_only", 0) ? "true" : "false");
    if (up)
        print_security((int)record_num(&rec, "pid", 0));
    const char *pool = record_get(&rec, "pool");
    struct record prec;
    long long memory = 0, pool_pids = 0;
    if (query_pool(pool, &prec) == 0) {
        memory = record_num(&prec, "memory", 0);
        pool_pids = record_num(&prec, "pids_limit", 0);
        record_free(&prec);
    } else {
        fail_clear(); /* a container outlives its pool's record */
    }
    printf("  \"Limits\": {\"Memory\": %lld, \"PoolPids\": %lld, "
           "\"Pids\": %ld},\n",
           memory, pool_pids,
           up ? cgroup_container_pids_max(pool, name)
              : (long)record_num(&rec, "pids_limit", 0));
    printf("  \"Record\": {\n");
    for (int i = 0; i < rec.n; i++)
        field("    ", rec.key[i], rec.val[i], i + 1 < rec.n ? "," : "");
    printf("  }\n}\n");
    record_free(&rec);
    return 0;
}
