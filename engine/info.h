/*
 * info.h - `danaus info`: the engine as installed and its state, as
 * docker info summarises it: version, the danausd and libdanaus it uses,
 * the state directory, pools, images, layers and containers.
 */
#ifndef ENGINE_INFO_H
#define ENGINE_INFO_H

/* 0 or -1 (fail.h). */
int info_show(const char *version);

#endif
