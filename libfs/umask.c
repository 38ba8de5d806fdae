/*
 * umask.c - the process's umask, known without changing it.
 *
 * umask(2) can only be read by setting it, and setting it even briefly
 * would let another thread's create use the wrong mask. Linux (since 4.7)
 * shows it as the "Umask:" line of /proc/self/status, but making that
 * text costs more than the rest of a create, so it is read once per
 * process and kept; the umask interposer (interpose/umask.c) keeps it
 * current. What is kept names the pid that knew it: a vfork child setting
 * its own umask writes its parent's memory, and the parent then reads its
 * own again. A umask set by a raw system call, which no interposer sees,
 * is missed.
 */
#include "umask.h"
#include "sys.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* pid << 32 | mask; 0 while nothing is known. */
static _Atomic uint64_t known;
/* Serializes umask_set's change and its note, so that two threads'
 * umask calls leave what the kernel kept. */
static pthread_mutex_t setting = PTHREAD_MUTEX_INITIALIZER;

static uint64_t note(mode_t mask)
{
    return (uint64_t)getpid() << 32 | (mask & 0777);
}

static mode_t read_umask(void)
{
    char buf[4096];
    int fd = sys_open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n = sys_read(fd, buf, sizeof buf - 1);
        sys_close(fd);
        if (n > 0) {
            buf[n] = '\0';
            char *line = strstr(buf, "\nUmask:");
            if (line)
                return (mode_t)strtoul(line + 7, NULL, 8) & 0777;
        }
    }
    /* No /proc: the racy way is all that is left (the system call, not
     * the interposer, which would note 022 meanwhile). */
    mode_t mask = (mode_t)syscall(SYS_umask, 022);
    syscall(SYS_umask, mask);
    return mask;
}

mode_t umask_apply(mode_t mode)
{
    uint64_t v = atomic_load_explicit(&known, memory_order_acquire);
    if (v >> 32 == (uint64_t)getpid())
        return mode & ~(mode_t)(v & 0777);
    mode_t mask = read_umask();
    /* Kept unless a umask call noted a newer one meanwhile. */
    atomic_compare_exchange_strong(&known, &v, note(mask));
    return mode & ~mask;
}

mode_t umask_set(mode_t (*set)(mode_t), mode_t mask)
{
    pthread_mutex_lock(&setting);
    mode_t old = set(mask);
    atomic_store_explicit(&known, note(mask), memory_order_release);
    pthread_mutex_unlock(&setting);
    return old;
}
