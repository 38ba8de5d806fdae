/*
 * export.h - marks the functions libdanaus.so exports. Everything else is
 * built with -fvisibility=hidden, so only the danaus_* API (and later the
 * interposers) is visible to applications.
 */
#ifndef LIBFS_EXPORT_H
#define LIBFS_EXPORT_H

#define DANAUS_EXPORT __attribute__((visibility("default")))

#endif
