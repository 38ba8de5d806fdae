/*
 * manifest.c - the layer lists of image manifests (manifest.h): the
 * "Layers" of docker's manifest.json, the "digest" and "size" of an OCI
 * index's or manifest's descriptors. Not a general JSON parser: it finds
 * the key, then reads the array after it, undoing the escapes a path may
 * carry.
 */
#include "manifest.h"
#include "fail.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* A JSON string at p (after its opening quote); *end after the closing
 * quote. Only the escapes a path can hold are taken; others refuse. */
static char *read_string(const char *p, const char **end)
{
    size_t cap = strlen(p) + 1, n = 0;
    char *s = malloc(cap);
    for (; *p && *p != '"'; p++) {
        if (*p == '\\') {
            p++;
            if (*p != '"' && *p != '\\' && *p != '/') {
                free(s);
                return NULL;
            }
        }
        s[n++] = *p;
    }
    if (*p != '"') {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    *end = p + 1;
    return s;
}

int manifest_layers(const char *text, char **layers)
{
    const char *p = strstr(text, "\"Layers\"");
    if (!p)
        return fail("manifest.json has no \"Layers\"");
    p = skip_space(p + 8);
    if (*p != ':')
        return fail("manifest.json: malformed \"Layers\"");
    p = skip_space(p + 1);
    if (*p != '[')
        return fail("manifest.json: \"Layers\" is not a list");
    int n = 0;
    p = skip_space(p + 1);
    while (*p == '"') {
        if (n == MANIFEST_MAX_LAYERS)
            return fail("manifest.json: more than %d layers",
                        MANIFEST_MAX_LAYERS);
        char *s = read_string(p + 1, &p);
        if (!s)
            return fail("manifest.json: malformed layer path");
        layers[n++] = s;
        p = skip_space(p);
        if (*p == ',')
            p = skip_space(p + 1);
    }
    if (*p != ']' || n == 0) {
        while (n)
            free(layers[--n]);
        return fail("manifest.json: malformed or empty \"Layers\"");
    }
    return n;
}

int manifest_digest_ok(const char *d)
{
    size_t hex = strncmp(d, "sha256:", 7) == 0   ? 64
                 : strncmp(d, "sha512:", 7) == 0 ? 128
                                                 : 0;
    if (!hex || strlen(d + 7) != hex)
        return 0;
    for (const char *p = d + 7; *p; p++)
        if (!((*p >= 'a' && *p <= 'f') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

static void free_descriptors(struct descriptor *d, int n)
{
    while (n)
        free(d[--n].digest);
}

/* After "key": in a descriptor, at v: its value, taken when the key is
 * "digest" or "size"; returns where the value ends (for another key, v),
 * or NULL when the value is malformed. */
static const char *descriptor_value(const char *key, const char *v,
                                    struct descriptor *d)
{
    if (strcmp(key, "digest") == 0) {
        if (*v != '"' || d->digest)
            return NULL;
        d->digest = read_string(v + 1, &v);
        return d->digest && manifest_digest_ok(d->digest) ? v : NULL;
    }
    if (strcmp(key, "size") == 0) {
        char *end;
        errno = 0;
        d->size = strtoll(v, &end, 10);
        return end == v || errno || d->size < 0 ? NULL : end;
    }
    return v;
}

int manifest_descriptors(const char *text, const char *key,
                         struct descriptor *out)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *p = strstr(text, quoted);
    if (!p)
        return fail("OCI manifest has no \"%s\"", key);
    p = skip_space(p + strlen(quoted));
    if (*p != ':' || *(p = skip_space(p + 1)) != '[')
        return fail("OCI manifest: \"%s\" is not a list", key);
    int n = 0, depth = 0, bad = 0;
    struct descriptor d = {NULL, -1};
    for (p++; *p && !(depth == 0 && *p == ']'); p++) {
        if (*p == '{' || *p == '[') {
            depth++;
        } else if (*p == '}' || *p == ']') {
            if (--depth == 0) {
                bad = !d.digest || d.size < 0 || n == MANIFEST_MAX_LAYERS;
                if (bad)
                    break;
                out[n++] = d;
                d.digest = NULL;
                d.size = -1;
            }
        } else if (*p == '"') {
            char *s = read_string(p + 1, &p);
            const char *after = s ? skip_space(p) : NULL;
            if (s && depth == 1 && *after == ':')
                after = descriptor_value(s, skip_space(after + 1), &d);
            free(s);
            if (!after) {
                bad = 1;
                break;
            }
            p = after - 1;
        }
    }
    free(d.digest);
    if (bad) {
        free_descriptors(out, n);
        return fail("OCI manifest: a bad digest or size, or too many, in "
                    "\"%s\"", key);
    }
    if (*p != ']' || n == 0) {
        free_descriptors(out, n);
        return fail("OCI manifest: malformed or empty \"%s\"", key);
    }
    return n;
}
