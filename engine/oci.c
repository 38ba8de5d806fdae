/*
 * oci.c - layers out of an OCI image layout (oci.h). Every file is read
 * as an archive member (files.h): index.json, and each blob checked
 * against the digest and size its descriptor gives.
 */
#include "oci.h"
#include "fail.h"
#include "files.h"
#include "json.h"
#include "manifest.h"
#include "state.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* blobs/ALGORITHM/HEX, the member a descriptor names. */
static void blob_name(const struct descriptor *d, char *out, size_t size)
{
    snprintf(out, size, "blobs/%s", d->digest);
    *strrchr(out, ':') = '/';
}

/* A manifest's blob, read whole (manifests are small). */
static char *read_blob(int layout, const struct descriptor *d)
{
    char name[512];
    blob_name(d, name, sizeof name);
    struct member m = {"OCI manifest", name, d->digest, d->size};
    return file_read_member(layout, &m);
}

static void free_all(struct descriptor *d, int n)
{
    while (n)
        free(d[--n].digest);
}

/* The image configuration the manifest's "config" descriptor names,
 * malloc'ed, in *config; NULL when it names none. 0 or -1 (fail.h). */
static int read_config(int layout, const char *manifest, char **config)
{
    *config = NULL;
    struct json *top = json_parse("OCI manifest", manifest, strlen(manifest));
    const struct json *d, *digest = NULL, *size = NULL;
    int rc = !top || json_get("OCI manifest", top, "config", &d) < 0 ||
                     json_get("OCI manifest", d, "digest", &digest) < 0 ||
                     json_get("OCI manifest", d, "size", &size) < 0
                 ? -1
                 : 0;
    if (rc == 0 && d) {
        char *end = NULL;
        struct descriptor c = {
            digest && digest->type == JSON_STRING ? digest->text : NULL,
            size && size->type == JSON_NUMBER ? strtoll(size->text, &end, 10)
                                              : -1};
        if (!c.digest || !manifest_digest_ok(c.digest) || c.size < 0 || *end)
            rc = fail("OCI manifest: a bad digest or size in \"config\"");
        else if (!(*config = read_blob(layout, &c)))
            rc = -1;
    }
    json_free(top);
    return rc;
}

/* The layer descriptors of the first image (index.json's first manifest,
 * or the first manifest of the index it names: a multi-platform image),
 * and its configuration in *config. */
static int layer_descriptors(int layout, struct descriptor *layers,
                             char **config)
{
    struct descriptor manifests[MANIFEST_MAX_LAYERS];
    struct member index = {"OCI layout", "index.json", NULL, -1};
    char *text = file_read_member(layout, &index);
    for (int hop = 0; text && hop < 2; hop++) {
        int n = manifest_descriptors(text, "manifests", manifests);
        free(text);
        if (n < 0)
            return -1;
        text = read_blob(layout, &manifests[0]);
        free_all(manifests, n);
        if (text && !strstr(text, "\"manifests\""))
            break;
    }
    if (!text)
        return -1;
    int n = manifest_descriptors(text, "layers", layers);
    if (n >= 0 && read_config(layout, text, config) < 0) {
        free_all(layers, n);
        n = -1;
    }
    free(text);
    return n;
}

int oci_import(const char *path, const char *dir, char **config)
{
    int layout = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (layout < 0)
        return fail_errno("OCI layout %s", path);
    struct descriptor layers[MANIFEST_MAX_LAYERS];
    int n = layer_descriptors(layout, layers, config);
    int rc = n < 0 ? -1 : 0;
    for (int i = 0; i < n && rc == 0; i++) {
        char name[512], what[32], to[STATE_PATH_MAX];
        blob_name(&layers[i], name, sizeof name);
        snprintf(what, sizeof what, "OCI layer %d", i + 1);
        snprintf(to, sizeof to, "%.4000s/layer-%d.tar", dir, i);
        struct member m = {what, name, layers[i].digest, layers[i].size};
        rc = file_copy_member(layout, &m, to);
    }
    free_all(layers, n < 0 ? 0 : n);
    close(layout);
    return rc < 0 ? -1 : n;
}
