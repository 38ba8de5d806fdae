/*
 * memory.h - the in-memory libservice (memory.c), for tests: register it
 * with ls_backend_register(&memory_backend), then make instances of
 * "memory" as of any backend.
 */
#ifndef DANAUS_MEMORY_H
#define DANAUS_MEMORY_H

#include "fsservice/libservice/libservice.h"

extern struct ls_backend memory_backend;

#endif
