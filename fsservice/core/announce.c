/*
 * announce.c - bumping the clients' cache counters (announce.h).
 */
#include "announce.h"

int announce_init(struct announce *a, uint32_t timeout_ms)
{
    a->page = NULL;
    a->fd = -1;
    return ipc_announce_create(timeout_ms, &a->page, &a->fd);
}

void announce_free(struct announce *a)
{
    ipc_announce_destroy(a->page, a->fd);
    a->page = NULL;
    a->fd = -1;
}

void announce_names(struct announce *a)
{
    if (a->page)
        ipc_announce_names(a->page);
}

void announce_file(struct announce *a, const struct ls_file *file)
{
    if (file->is_dir)
        announce_names(a);
    else
        announce_data(a, file->ino);
}

void announce_data(struct announce *a, uint64_t ino)
{
    if (!a->page)
        return;
    if (ino == 0)
        ipc_announce_names(a->page);
    else
        ipc_announce_inode(a->page, ino);
}
