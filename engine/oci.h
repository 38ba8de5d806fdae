/*
 * oci.h - images in the OCI image layout (what `skopeo copy ... oci:DIR`
 * writes, and what `podman save --format oci-archive` archives): oci-layout,
 * index.json naming a manifest blob, whose layer descriptors name the layer
 * blobs (tar, gzip or zstd), bottom first, under blobs/ALGORITHM/HEX.
 */
#ifndef ENGINE_OCI_H
#define ENGINE_OCI_H

/* Copies the layers of the first image of the layout at path into
 * dir/layer-N.tar; their count, or -1 (fail.h). Its configuration (the
 * manifest's "config" blob, checked against its digest) in *config,
 * malloc'ed, or NULL; the caller frees it, failure or not. */
int oci_import(const char *path, const char *dir, char **config);

#endif
