/*
 * files.h - whole-file reads and copies, for image import.
 */
#ifndef ENGINE_FILES_H
#define ENGINE_FILES_H

/* The text of a file of at most 1 MiB (a manifest), malloc'ed, or NULL
 * (fail.h). */
char *file_read_small(const char *path);
/* Copies from to a new file to (not overwriting); 0 or -1 (fail.h). */
int file_copy(const char *from, const char *to);

#endif
