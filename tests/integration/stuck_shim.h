/*
 * stuck_shim.h - a fault for tests: a local mount whose mkdir (and some
 * opens) never return.
 *
 * Force-included (-include) into danausd_stuck, a test build of
 * fsservice/main.c (faults.cmake): every local instance main.c makes comes
 * from stuck_local_instance_new, which makes the real one and, for the root
 * named by the environment variable DANAUS_STUCK_ROOT, swaps its mkdir, its
 * open of names beginning "stuck-open" and its writes of bytes beginning
 * "stuck-before" (blocked before writing) or "stuck-after" (after), for
 * ones that block their thread until the process ends, as a libcephfs call
 * to an MDS that never answers does (so its name space is not the
 * kernel's: libservice.h). The production danausd has no trace of it.
 */
#ifndef DANAUS_STUCK_SHIM_H
#define DANAUS_STUCK_SHIM_H

#define local_instance_new stuck_local_instance_new

#endif
