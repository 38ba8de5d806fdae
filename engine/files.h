/*
 * files.h - reading image sources for import: members of an archive (or
 * blobs of an OCI layout) as regular files beneath it, checked against
 * what the manifest declares.
 */
#ifndef ENGINE_FILES_H
#define ENGINE_FILES_H

/* A member: name, a path under the archive's directory; what names it in
 * messages ("OCI layer 2"); the digest (sha256:HEX or sha512:HEX) and
 * size in bytes it must have, NULL and -1 when nothing declares them. */
struct member {
    const char *what;
    const char *name;
    const char *digest;
    long long size;
};

/* The text of a member of less than 1 MiB (a manifest), malloc'ed, or
 * NULL (fail.h). */
char *file_read_member(int dirfd, const struct member *m);
/* Copies a member to a new file to; 0 or -1 (fail.h), which leaves a
 * partial copy for the caller to remove. */
int file_copy_member(int dirfd, const struct member *m, const char *to);
/* Copies from, a file the operator names, to a new file to; 0 or -1. */
int file_copy(const char *from, const char *to);

#endif
