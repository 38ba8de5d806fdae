/*
 * manifest.h - the layer lists of images: a `docker save` archive's
 * manifest.json is a JSON array of images, each with "Layers", the layer
 * archives' paths in the archive, bottom layer first (only the first image
 * is taken); an OCI image layout's index.json lists manifests, and a
 * manifest lists layers, each as a descriptor whose "digest" names a blob.
 */
#ifndef ENGINE_MANIFEST_H
#define ENGINE_MANIFEST_H

#define MANIFEST_MAX_LAYERS 127

/* Parses text; fills layers (malloc'ed strings) and returns their count,
 * or -1 (fail.h). */
int manifest_layers(const char *text, char **layers);

/* The "digest" of every descriptor in the list under key ("manifests",
 * "layers") in order, as malloc'ed strings ALGORITHM:HEX; their count, or
 * -1 (fail.h). */
int manifest_digests(const char *text, const char *key, char **digests);

#endif
