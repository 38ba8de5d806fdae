/*
 * oci.c - layers out of an OCI image layout (oci.h).
 */
#include "oci.h"
#include "fail.h"
#include "files.h"
#include "manifest.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The blob a digest names, read whole (manifests are small). */
static char *read_blob(const char *layout, const char *digest)
{
    char path[STATE_PATH_MAX];
    snprintf(path, sizeof path, "%.3900s/blobs/%s", layout, digest);
    *strrchr(path, ':') = '/';
    return file_read_small(path);
}

static void free_all(char **s, int n)
{
    while (n)
        free(s[--n]);
}

/* The layer digests of the first image: index.json's first manifest, or
 * the first manifest of the index it names (a multi-platform image). */
static int layer_digests(const char *layout, char **layers)
{
    char path[STATE_PATH_MAX], *manifests[MANIFEST_MAX_LAYERS];
    snprintf(path, sizeof path, "%.4000s/index.json", layout);
    char *text = file_read_small(path);
    for (int hop = 0; text && hop < 2; hop++) {
        int n = manifest_digests(text, "manifests", manifests);
        free(text);
        if (n < 0)
            return -1;
        text = read_blob(layout, manifests[0]);
        free_all(manifests, n);
        if (text && !strstr(text, "\"manifests\""))
            break;
    }
    if (!text)
        return -1;
    int n = manifest_digests(text, "layers", layers);
    free(text);
    return n;
}

int oci_import(const char *layout, const char *dir)
{
    char *layers[MANIFEST_MAX_LAYERS];
    int n = layer_digests(layout, layers);
    int rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char from[STATE_PATH_MAX], to[STATE_PATH_MAX];
        snprintf(from, sizeof from, "%.3900s/blobs/%s", layout, layers[i]);
        *strrchr(from, ':') = '/';
        snprintf(to, sizeof to, "%.4000s/layer-%d.tar", dir, i);
        rc = file_copy(from, to);
    }
    free_all(layers, n < 0 ? 0 : n);
    return rc < 0 ? -1 : n;
}
