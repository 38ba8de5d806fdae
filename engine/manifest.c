/*
 * manifest.c - the layer lists of image manifests (manifest.h): the
 * "Layers" of docker's manifest.json, the "digest"s of an OCI index's or
 * manifest's descriptors. Not a general JSON parser: it finds the key,
 * then reads the array after it, undoing the escapes a path may carry.
 */
#include "manifest.h"
#include "fail.h"

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

/* A digest names a blob file: ALGORITHM:HEX, nothing that leaves blobs/. */
static int digest_ok(const char *d)
{
    const char *colon = strchr(d, ':');
    if (!colon || colon == d || !colon[1])
        return 0;
    for (const char *p = d; *p; p++)
        if (p != colon && !((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return 0;
    return 1;
}

int manifest_digests(const char *text, const char *key, char **digests)
{
    char quoted[64];
    snprintf(quoted, sizeof quoted, "\"%s\"", key);
    const char *p = strstr(text, quoted);
    if (!p)
        return fail("OCI manifest has no \"%s\"", key);
    p = skip_space(p + strlen(quoted));
    if (*p != ':' || *(p = skip_space(p + 1)) != '[')
        return fail("OCI manifest: \"%s\" is not a list", key);
    int n = 0, depth = 0, want = 0;
    for (p++; *p && !(depth == 0 && *p == ']'); p++) {
        if (*p == '{' || *p == '[')
            depth++;
        else if (*p == '}' || *p == ']')
            depth--;
        else if (*p == '"') {
            char *s = read_string(p + 1, &p);
            if (!s)
                break;
            p--;
            if (want && n < MANIFEST_MAX_LAYERS && digest_ok(s)) {
                digests[n++] = s;
                s = NULL;
            } else if (want) {
                free(s);
                while (n)
                    free(digests[--n]);
                return fail("OCI manifest: bad or too many digests in "
                            "\"%s\"", key);
            }
            want = depth == 1 && s && strcmp(s, "digest") == 0 &&
                   *skip_space(p + 1) == ':';
            if (want)
                p = skip_space(p + 1);
            free(s);
        }
    }
    if (*p != ']' || n == 0) {
        while (n)
            free(digests[--n]);
        return fail("OCI manifest: malformed or empty \"%s\"", key);
    }
    return n;
}
