/*
 * program.h - runs a host program (tar, rm, mkdir ...) for the engine and
 * turns its failure into the engine's one-line error: the first line it
 * wrote on stderr (the cause, naming the file).
 */
#ifndef ENGINE_PROGRAM_H
#define ENGINE_PROGRAM_H

/*
 * Runs argv to completion with stdout on out_fd (-1: /dev/null). setup, if
 * given, runs in the child before exec and returns 0 or -1 (fail.h).
 * what names the job in the error. 0, or -1 (fail.h).
 */
int program_run(const char *what, const char *const argv[], int out_fd,
                int (*setup)(void *), void *arg);
/*
 * program_run, where stderr lines ending in tolerated (e.g. tar's
 * "Cannot mknod: Operation not permitted") are no error: *count gets how
 * many there were, and a program that fails saying nothing else (tar's
 * closing line aside) has succeeded. 0, or -1 (fail.h).
 */
int program_run_tolerating(const char *what, const char *const argv[],
                           int out_fd, int (*setup)(void *), void *arg,
                           const char *tolerated, int *count);

/*
 * Runs argv with its stdout on a pipe that consume reads (from the fd it
 * is given, until it returns); when consume returns -1 (fail.h, its
 * message then the error) the program is killed. 0, or -1 (fail.h).
 */
int program_read(const char *what, const char *const argv[],
                 int (*consume)(int fd, void *arg), void *arg);

#endif
