/*
 * stdstreams.h - stdin, stdout and stderr when 0, 1 or 2 is a Danaus
 * descriptor.
 *
 * glibc's stdio does its I/O through libc-internal calls that no interposer
 * sees, so printf to a stdout whose fd 1 is a Danaus descriptor
 * ("cmd > /mnt/danaus/out") would reach the kernel placeholder and fail.
 * When one of the three becomes a Danaus descriptor (inherited at exec, or
 * dup2'ed onto), its stream is replaced by a fopencookie stream whose I/O
 * asks, call by call, whether the descriptor is Danaus's or the kernel's,
 * so it stays right when the descriptor is later pointed elsewhere.
 */
#ifndef DANAUS_LIBFS_STDSTREAMS_H
#define DANAUS_LIBFS_STDSTREAMS_H

/* Call before fd (0, 1 or 2; others are ignored) becomes a Danaus
 * descriptor: flushes the stream's pending output to where it was going,
 * then makes the stream follow fd. Once per stream. */
void stdstreams_follow(int fd);

/* Around fork (proc.c). */
void stdstreams_hold(void);
void stdstreams_release(void);

#endif
