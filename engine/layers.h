/*
 * layers.h - the state directory's layer archives, content-addressed:
 * layers/HEX.tar, HEX the sha256 of the archive as imported. Images name
 * their layers by HEX (the image record's layers_sha256, bottom first),
 * so an archive imported by many images is kept once; it is removed once
 * no image names it. Design: docs/engine.md, "Layers".
 */
#ifndef ENGINE_LAYERS_H
#define ENGINE_LAYERS_H

#include "manifest.h"
#include "record.h"

#define LAYER_HEX_LEN 64

struct layer_list {
    int n;
    char hex[MANIFEST_MAX_LAYERS][LAYER_HEX_LEN + 1];
};

/* Moves the archive at tar into the store under its sha256 (or removes
 * it when the store has that one already); its HEX in hex. 0 or -1. */
int layer_store(const char *tar, char hex[LAYER_HEX_LEN + 1]);
/* STATE/layers/HEX.tar */
void layer_archive_path(const char *hex, char *out);
/* The image record's layers into list: 0, or -1 (fail.h) for a record
 * of an image imported before layers were shared (it has none). */
int layer_list_of(const struct record *image, const char *name,
                  struct layer_list *list);
/* The HEX of every layer some image names (repeats included), malloc'ed
 * strings; free with state_list_free. */
char **layer_list_in_use(int *count);
/* Whether hex is one of used[0..n). */
int layer_listed(char **used, int n, const char *hex);
/* Removes the archives no image names (an import cut short leaves
 * some). 0 or -1 (fail.h). */
int layer_collect(void);

#endif
