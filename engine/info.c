/*
 * info.c - danaus info (info.h).
 */
#include "info.h"
#include "cgroup.h"
#include "query.h"
#include "service.h"
#include "state.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* How many entries state directory kind has. */
static int count(const char *kind)
{
    int n;
    char **names = state_list(kind, &n);
    state_list_free(names, n);
    return n;
}

/* How many containers the state directory has, and how many run. */
static void count_containers(int *all, int *running)
{
    char **names = state_list("containers", all);
    *running = 0;
    for (int i = 0; i < *all; i++) {
        struct record rec;
        char path[STATE_PATH_MAX];
        query_container_path(names[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        const char *status = record_get(&rec, "status");
        *running += status && strcmp(status, "running") == 0 &&
                    service_alive(&rec);
        record_free(&rec);
    }
    state_list_free(names, *all);
}

/* The layer archives of the state directory: count, bytes on disk. */
static void count_layers(int *n, long long *bytes)
{
    char **names = state_list("layers", n);
    *bytes = 0;
    for (int i = 0; i < *n; i++) {
        char path[STATE_PATH_MAX];
        struct stat st;
        state_path(path, "layers/%s", names[i]);
        if (stat(path, &st) == 0)
            *bytes += (long long)st.st_blocks * 512;
    }
    state_list_free(names, *n);
}

int info_show(const char *version)
{
    int pools, images, layers, containers, running;
    long long layer_bytes;
    pools = count("pools");
    images = count("images");
    count_layers(&layers, &layer_bytes);
    count_containers(&containers, &running);
    printf("Version: %s\n", version);
    printf("Danausd: %s\n", service_danausd());
    printf("Library: %s\n", service_library());
    printf("State: %s\n", state_root());
    printf("Cgroups: %s\n", cgroup_scope());
    printf("Pools: %d\n", pools);
    printf("Images: %d\n", images);
    printf("Layers: %d (%lld MiB)\n", layers, layer_bytes >> 20);
    printf("Containers: %d\n Running: %d\n Stopped: %d\n", containers,
           running, containers - running);
    return 0;
}
