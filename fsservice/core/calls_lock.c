/*
 * calls_lock.c - the LOCK call (fcntl record locks, OFD locks, flock) and
 * the POSIX rule that closing any descriptor of a file releases the
 * process's locks on it. The locks themselves live in the service's lock
 * table (locks.h), shared by every client; this file checks a request's
 * arguments against the open file it names and picks the owner.
 */
#include "request.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>

/* The open file's identity in the lock table, taken from the backend's
 * fstat the first time it is needed and kept in the open file. */
static int lock_key_of(struct request *r, struct open_file *of,
                       struct lock_key *key)
{
    int rc = 0;
    pthread_mutex_lock(&of->pos_lock);
    if (!of->lock_key_known) {
        struct danaus_stat st;
        rc = of->file->inst->ops->fstat(of->file, &r->c->cred, &st);
        if (rc == 0) {
            of->lock_key = (struct lock_key){of->file->inst, st.dev, st.ino};
            of->lock_key_known = true;
        }
    }
    *key = of->lock_key;
    pthread_mutex_unlock(&of->pos_lock);
    return rc;
}

static struct lock_owner client_owner(const struct client *c)
{
    return (struct lock_owner){DANAUS_LOCK_POSIX, c->id, c->pid, c->id,
                               c->cred.uid};
}

/* Linux asks for read access to set a read lock and write access to set a
 * write lock (flock asks neither). */
static bool access_allows(struct open_file *of, int type)
{
    int mode = atomic_load(&of->flags) & O_ACCMODE;
    if (type == F_RDLCK)
        return mode != O_WRONLY;
    if (type == F_WRLCK)
        return mode != O_RDONLY;
    return true;
}

int64_t call_lock(struct request *r)
{
    const int64_t *a = r->d->arg;
    int64_t cmd = a[0], kind = a[4];
    int type = (int)a[1];
    if ((cmd != DANAUS_LOCK_SET && cmd != DANAUS_LOCK_TEST) ||
        kind < DANAUS_LOCK_POSIX || kind > DANAUS_LOCK_FLOCK ||
        (kind == DANAUS_LOCK_FLOCK && cmd == DANAUS_LOCK_TEST) ||
        type != a[1])
        return -EINVAL;
    if (cmd == DANAUS_LOCK_SET && kind != DANAUS_LOCK_FLOCK &&
        !access_allows(r->of, type))
        return -EBADF;
    struct lock_key key;
    int rc = lock_key_of(r, r->of, &key);
    if (rc < 0)
        return rc;
    struct lock_owner owner = kind == DANAUS_LOCK_POSIX
                                  ? client_owner(r->c)
                                  : open_file_lock_owner(r->of, (int)kind);
    owner.client = r->c->id;
    owner.uid = r->c->cred.uid;
    struct lock_table *t = &r->svc->locks;
    if (cmd == DANAUS_LOCK_TEST) {
        struct danaus_lock out;
        rc = lock_test(t, &key, &owner, type, a[2], a[3], &out);
        if (rc == 0)
            memcpy(r->out, &out, sizeof out);
        return rc;
    }
    /* Published before the lock exists: the open file's last put, which
     * comes after this request's, then releases it. */
    if (kind != DANAUS_LOCK_POSIX && type != F_UNLCK)
        atomic_store(&r->of->locks, t);
    return lock_set(t, &key, &owner, type, a[2], a[3], a[5] != 0);
}

void locks_on_close(struct request *r, struct open_file *of)
{
    struct lock_owner owner = client_owner(r->c);
    struct lock_key key;
    /* Most closes come from processes that hold no lock: no fstat then. */
    if (!lock_owner_holds(&r->svc->locks, &owner) ||
        lock_key_of(r, of, &key) < 0)
        return;
    lock_release(&r->svc->locks, &key, &owner);
}
