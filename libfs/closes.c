/*
 * closes.c - closes of read-only files, sent in batches (see closes.h).
 */
#include "closes.h"

#include "call.h"
#include "heldlocks.h"

#include <danaus/wire.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>

static pthread_mutex_t closes_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fd_info waiting[DANAUS_CLOSE_BATCH]; /* under closes_lock */
static int nwaiting;

bool closes_may_wait(int fd)
{
    int flags = fdtable_flags(fd);
    return ((flags & O_ACCMODE) == O_RDONLY || (flags & O_PATH)) &&
           !heldlocks_any();
}

/* Under closes_lock: every close that waits, moved into batch. How many. */
static int take_waiting(struct fd_info batch[DANAUS_CLOSE_BATCH])
{
    int n = nwaiting;
    for (int i = 0; i < n; i++)
        batch[i] = waiting[i];
    nwaiting = 0;
    return n;
}

int closes_close(const struct fd_info *h, bool may_wait)
{
    if (!may_wait)
        return call_close(h);
    struct fd_info batch[DANAUS_CLOSE_BATCH];
    int n = 0;
    pthread_mutex_lock(&closes_lock);
    waiting[nwaiting++] = *h;
    if (nwaiting == DANAUS_CLOSE_BATCH)
        n = take_waiting(batch);
    pthread_mutex_unlock(&closes_lock);
    /* Nobody waits for this answer: a handle already gone is no error of
     * the close that filled the batch. */
    if (n > 0)
        call_close_batch(batch, n);
    return 0;
}

void closes_flush(void)
{
    struct fd_info batch[DANAUS_CLOSE_BATCH];
    pthread_mutex_lock(&closes_lock);
    int n = take_waiting(batch);
    pthread_mutex_unlock(&closes_lock);
    int saved = errno;
    if (n > 0)
        call_close_batch(batch, n);
    errno = saved;
}

void closes_hold(void)
{
    pthread_mutex_lock(&closes_lock);
}

void closes_release(void)
{
    pthread_mutex_unlock(&closes_lock);
}
