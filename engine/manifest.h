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

/* Whether a digest is sha256:HEX or sha512:HEX, the algorithms OCI
 * registers (and import checks): it then names a file in blobs/, nothing
 * that leaves it. */
int manifest_digest_ok(const char *digest);

/* A descriptor: the blob's digest (malloc'ed, ALGORITHM:HEX) and size. */
struct descriptor {
    char *digest;
    long long size;
};

/* Every descriptor in the list under key ("manifests", "layers") in
 * order, each with a digest and a size; their count, or -1 (fail.h). */
int manifest_descriptors(const char *text, const char *key,
                         struct descriptor *out);

#endif
