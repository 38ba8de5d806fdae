/*
 * proc.h - process life: Danaus descriptors and the Danaus cwd survive fork,
 * exec and spawn, as kernel descriptors do.
 *
 * fork: a child cannot share its parent's connection, so the parent sets a
 * ticket of all its handles aside just before fork (pthread_atfork), and
 * the child attaches anew and adopts it (wire.h): its descriptor table,
 * copied with its memory, keeps working with the same handle numbers.
 *
 * exec and spawn: the new program's libdanaus learns what it inherits from
 * a memory file whose descriptor is in its environment as DANAUS_INHERIT:
 * a ticket for the descriptors without close-on-exec, their numbers, mounts
 * and paths, and the Danaus cwd. Close-on-exec descriptors are left out and
 * closed with the old image's connection. Everything here runs without
 * malloc, since exec may be called in a vfork child.
 */
#ifndef DANAUS_LIBFS_PROC_H
#define DANAUS_LIBFS_PROC_H

#define DANAUS_ENV_INHERIT "DANAUS_INHERIT"

/* What an exec needs undone if it fails. */
struct exec_state {
    int memfd;       /* -1: nothing inherited */
    void *map;       /* the new environment, when one was built */
    unsigned long map_len;
};

/* The environment to exec with: envp itself when nothing is inherited,
 * else a copy with DANAUS_INHERIT set. Never fails: what cannot be passed
 * on is not inherited. */
char *const *proc_exec_prepare(char *const envp[], struct exec_state *st);

/* After an exec or spawn returned: releases what prepare made (keeping
 * errno). */
void proc_exec_done(struct exec_state *st);

/* After an exec (not a spawn) returned, before proc_exec_done: its ticket,
 * which no new image took, may serve this process's next exec of the same
 * descriptors (a search along PATH tries each directory in turn). */
void proc_exec_failed(void);

/* In a new program image: takes what the old one passed on (once; never
 * connects). Called by the library's constructor and before connecting. */
void proc_inherit(void);

#endif
