/*
 * proc.c - the exec and spawn family: each passes libc's own
 * function the environment proc_exec_prepare makes, so Danaus descriptors
 * without close-on-exec and the Danaus cwd reach the new program (proc.h).
 * fork needs no interposer: pthread_atfork handlers do its part. system
 * and popen start /bin/sh through glibc's internal posix_spawn, which no
 * interposer sees, with environ as the environment.
 */
#include "libfs/cwd.h"
#include "libfs/export.h"
#include "libfs/proc.h"
#include "libfs/real.h"

#include <danaus/wire.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern char **environ;

/* A relative path names a program under the Danaus cwd while one is set,
 * but the kernel resolves it from its own cwd, which stayed elsewhere
 * (cwd.h): the absolute path, which the FUSE door serves, is given
 * instead. Returns path or abs (size bytes). Names without '/' (searched in
 * PATH by the p variants) are left alone. */
static const char *exec_path(const char *path, char *abs, size_t size)
{
    char cwd[DANAUS_PATH_MAX];
    if (!path || path[0] == '/' || !strchr(path, '/') ||
        cwd_get(cwd, sizeof cwd) != 1)
        return path;
    int n = snprintf(abs, size, "%s/%s", cwd, path);
    return n > 0 && (size_t)n < size ? abs : path;
}

DANAUS_EXPORT int execve(const char *path, char *const argv[],
                         char *const envp[])
{
    char abs[DANAUS_PATH_MAX];
    path = exec_path(path, abs, sizeof abs);
    struct exec_state st;
    char *const *env = proc_exec_prepare(envp, &st);
    int rc = REAL(execve)(path, argv, env);
    proc_exec_failed();
    proc_exec_done(&st);
    return rc;
}

DANAUS_EXPORT int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

DANAUS_EXPORT int execvpe(const char *file, char *const argv[],
                          char *const envp[])
{
    char abs[DANAUS_PATH_MAX];
    file = exec_path(file, abs, sizeof abs);
    struct exec_state st;
    char *const *env = proc_exec_prepare(envp, &st);
    int rc = REAL(execvpe)(file, argv, env);
    proc_exec_failed();
    proc_exec_done(&st);
    return rc;
}

DANAUS_EXPORT int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

DANAUS_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    struct exec_state st;
    char *const *env = proc_exec_prepare(envp, &st);
    int rc = REAL(fexecve)(fd, argv, env);
    proc_exec_failed();
    proc_exec_done(&st);
    return rc;
}

/* The execl family: arg and the variable arguments after it, up to the
 * NULL that ends them, become argv (for execle, envp follows the NULL).
 * argv lives in this frame, not on the heap: a vfork child may run this.
 * The arguments are counted on a copy of the list, then taken from it. */
enum exec_list_kind { EXEC_L, EXEC_LP, EXEC_LE };

static int exec_list(enum exec_list_kind kind, const char *path,
                     const char *arg, va_list ap)
{
    va_list count;
    va_copy(count, ap);
    size_t n = 0;
    for (const char *a = arg; a; a = va_arg(count, const char *))
        n++;
    va_end(count);
    char *argv[n + 1];
    argv[0] = (char *)arg;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(ap, char *);
    if (n > 0)
        (void)va_arg(ap, char *);
    argv[n] = NULL;
    char *const *envp = kind == EXEC_LE ? va_arg(ap, char *const *) : environ;
    return kind == EXEC_LP ? execvpe(path, argv, envp)
                           : execve(path, argv, envp);
}

DANAUS_EXPORT int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_L, path, arg, ap);
    va_end(ap);
    return rc;
}

DANAUS_EXPORT int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_LP, file, arg, ap);
    va_end(ap);
    return rc;
}

DANAUS_EXPORT int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    int rc = exec_list(EXEC_LE, path, arg, ap);
    va_end(ap);
    return rc;
}

DANAUS_EXPORT int posix_spawn(pid_t *pid, const char *path,
                              const posix_spawn_file_actions_t *actions,
                              const posix_spawnattr_t *attr,
                              char *const argv[], char *const envp[])
{
    char abs[DANAUS_PATH_MAX];
    path = exec_path(path, abs, sizeof abs);
    struct exec_state st;
    char *const *env = proc_exec_prepare(envp, &st);
    int rc = REAL(posix_spawn)(pid, path, actions, attr, argv, env);
    proc_exec_done(&st);
    return rc;
}

DANAUS_EXPORT int posix_spawnp(pid_t *pid, const char *file,
                               const posix_spawn_file_actions_t *actions,
                               const posix_spawnattr_t *attr,
                               char *const argv[], char *const envp[])
{
    char abs[DANAUS_PATH_MAX];
    file = exec_path(file, abs, sizeof abs);
    struct exec_state st;
    char *const *env = proc_exec_prepare(envp, &st);
    int rc = REAL(posix_spawnp)(pid, file, actions, attr, argv, env);
    proc_exec_done(&st);
    return rc;
}

/* environ points at the prepared environment for the length of the call,
 * the only way to hand it to glibc's internal spawn. A setenv by another
 * thread meanwhile is undone when environ is restored (POSIX does not
 * require system to be thread-safe). */
DANAUS_EXPORT int system(const char *command)
{
    struct exec_state st;
    char **saved = environ;
    environ = (char **)proc_exec_prepare(saved, &st);
    int rc = REAL(system)(command);
    environ = saved;
    proc_exec_done(&st);
    return rc;
}

DANAUS_EXPORT FILE *popen(const char *command, const char *type)
{
    struct exec_state st;
    char **saved = environ;
    environ = (char **)proc_exec_prepare(saved, &st);
    FILE *f = REAL(popen)(command, type);
    environ = saved;
    proc_exec_done(&st);
    return f;
}
