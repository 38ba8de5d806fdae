/*
 * manifest.c - the "Layers" of docker's manifest.json (manifest.h). Not a
 * general JSON parser: it finds the key, then reads the array of strings
 * after it, undoing the escapes a path may carry.
 */
#include "manifest.h"
#include "fail.h"

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
