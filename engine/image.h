/*
 * image.h - images: an ordered list of layers (tar archives, bottom first)
 * kept once in the state directory's layer store (layers.h), imported
 * from a root directory, a root file-system tarball, a `docker
 * save`/`podman save` archive, or an OCI image layout (directory or
 * oci-archive). Their files reach a pool's backend once per pool and
 * layer (store.h), as read-only union branches.
 */
#ifndef ENGINE_IMAGE_H
#define ENGINE_IMAGE_H

/* max_layer_size: the most a layer may unpack to, in bytes; 0 for the
 * default limit (image.c). */
int image_import(const char *name, const char *path,
                 unsigned long long max_layer_size);
int image_list(void);
int image_remove(const char *name);

#endif
