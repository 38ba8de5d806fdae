/*
 * dirs.c - a service thread's handles of the directories it resolved
 * lately (dirs.h), and the split of a path into its parent's handle and
 * its last name.
 *
 * Each thread has a small table, direct-mapped by (root, path), made on
 * its first use and closed when the thread ends; no lock, no sharing. An
 * entry is good while:
 *  - the thread's identity is the one it resolved the path with
 *    (cred.c's epoch: each identity has its own);
 *  - no change since before the walk that made it (read before the
 *    walk, so a change during the walk makes it stale) touched its
 *    directory or one above it (dirchanges.h; for a path not in plain
 *    form, "a/b/", no change at all), nor, for a path whose walk went
 *    through a symbolic link, did `unlinked` move;
 *  - it is younger than LOCAL_DIRS_TTL_MS.
 * A stale entry stays open until its slot is taken or its thread ends;
 * an idle thread may so keep a few handles of an instance gone. An entry
 * a call holds (a rename holds two) is never closed under it: a walk
 * that would take its slot meanwhile keeps its own fd for the call.
 *
 * Paths longer than DIRS_PATH_MAX are resolved every time.
 */
#include "dirs.h"
#include "cred.h"
#include "path.h"
#include "fsservice/libservice/dirchanges.h"
#include "fsservice/libservice/libservice.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DIRS_ENTRIES 64
#define DIRS_PATH_MAX 240
/* As fuse_cache_timeout_ms's default, for changes made outside danausd. */
#define LOCAL_DIRS_TTL_MS 1000

struct dir_entry {
    int fd; /* -1: empty */
    int holds; /* local_names using fd now */
    int root_fd;
    uint32_t epoch;
    bool via_links;
    bool plain; /* path is plain names, each followed by '/' */
    uint64_t changed;
    uint64_t unlinked;
    uint64_t made_ns;
    char path[DIRS_PATH_MAX];
};

static struct dir_changes changes = DIR_CHANGES_INIT;
static _Atomic uint64_t unlinked;

static pthread_key_t table_key;
static pthread_once_t table_once = PTHREAD_ONCE_INIT;
static __thread struct dir_entry *table;

static void table_close(void *arg)
{
    struct dir_entry *t = arg;
    for (int i = 0; i < DIRS_ENTRIES; i++)
        if (t[i].fd >= 0)
            close(t[i].fd);
    free(t);
}

static void make_key(void)
{
    pthread_key_create(&table_key, table_close);
}

/* The calling thread's table; NULL when none can be had. */
static struct dir_entry *thread_table(void)
{
    if (table)
        return table;
    pthread_once(&table_once, make_key);
    struct dir_entry *t = calloc(DIRS_ENTRIES, sizeof *t);
    if (!t)
        return NULL;
    for (int i = 0; i < DIRS_ENTRIES; i++)
        t[i].fd = -1;
    if (pthread_setspecific(table_key, t) != 0) {
        free(t);
        return NULL;
    }
    table = t;
    return t;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* FNV-1a over the root and the path. */
static uint32_t slot_of(int root_fd, const char *path)
{
    uint32_t h = 2166136261u ^ (uint32_t)root_fd;
    for (const char *p = path; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % DIRS_ENTRIES;
}

/* Whether the first len bytes of path are plain names joined by '/',
 * maybe with a '/' after the last (no "", ".", ".." and no leading '/'):
 * only paths in that form name a directory by one text, which is what
 * dirchanges.h compares. */
static bool plain(const char *path, size_t len)
{
    if (len > 0 && path[len - 1] == '/')
        len--;
    for (size_t at = 0; at < len;) {
        size_t n = 0;
        while (at + n < len && path[at + n] != '/')
            n++;
        if (n == 0 || (n == 1 && path[at] == '.') ||
            (n == 2 && path[at] == '.' && path[at + 1] == '.'))
            return false;
        at += n + 1;
    }
    return true;
}

/* Acquire: pairs with the release of the notes, made after the change. */
static bool entry_good(struct dir_entry *e, int root_fd, const char *path,
                       uint64_t t)
{
    return e->fd >= 0 && e->root_fd == root_fd &&
           e->epoch == local_cred_epoch() && strcmp(e->path, path) == 0 &&
           (e->plain ? dir_changes_spare(&changes, &e->changed, e->path,
                                         strlen(e->path))
                     : e->changed == dir_changes_now(&changes)) &&
           (!e->via_links ||
            e->unlinked == atomic_load_explicit(&unlinked,
                                                memory_order_acquire)) &&
           t - e->made_ns < LOCAL_DIRS_TTL_MS * 1000000ull;
}

static void entry_clear(struct dir_entry *e)
{
    if (e->fd >= 0)
        close(e->fd);
    e->fd = -1;
}

/* The parent's handle: the thread's (*held), or resolved now (and kept,
 * *held, unless its slot is held). */
static int dir_open(int root_fd, const char *link_prefix, const char *path,
                    struct dir_entry **held)
{
    struct dir_entry *t = strlen(path) < DIRS_PATH_MAX ? thread_table() : NULL;
    uint64_t now = now_ns();
    struct dir_entry *e = t ? &t[slot_of(root_fd, path)] : NULL;
    *held = NULL;
    if (e && entry_good(e, root_fd, path, now)) {
        e->holds++;
        *held = e;
        return e->fd;
    }
    uint64_t changed_then = dir_changes_now(&changes);
    uint64_t unlinked_then = atomic_load_explicit(&unlinked,
                                                  memory_order_acquire);
    bool via_links;
    int fd = local_open_dir_in_root(root_fd, link_prefix, path, &via_links);
    if (fd < 0 || !e || e->holds > 0)
        return fd;
    entry_clear(e);
    *e = (struct dir_entry){fd,           1,
                            root_fd,      local_cred_epoch(),
                            via_links,    plain(path, strlen(path)),
                            changed_then, unlinked_then,
                            now,          ""};
    strcpy(e->path, path);
    *held = e;
    return fd;
}

int local_name_resolve(int root_fd, const char *link_prefix, const char *path,
                       struct local_name *out)
{
    size_t end = strlen(path);
    while (end > 0 && path[end - 1] == '/')
        end--;
    out->held = NULL;
    if (end == 0) {
        out->dir_fd = -1;
        out->kind = LOCAL_LAST_ROOT;
        out->name = path;
        return 0;
    }

    size_t start = end;
    while (start > 0 && path[start - 1] != '/')
        start--;
    const char *last = path + start;
    size_t len = end - start;
    if (len == 1 && last[0] == '.')
        out->kind = LOCAL_LAST_DOT;
    else if (len == 2 && last[0] == '.' && last[1] == '.')
        out->kind = LOCAL_LAST_DOTDOT;
    else
        out->kind = LOCAL_LAST_NAME;
    out->name = last;

    char parent[DANAUS_LONG_PATH_MAX];
    if (start >= sizeof parent)
        return -ENAMETOOLONG;
    memcpy(parent, path, start);
    parent[start] = '\0';
    int fd = dir_open(root_fd, link_prefix, parent, &out->held);
    if (fd < 0)
        return fd;
    out->dir_fd = fd;
    return 0;
}

void local_name_release(struct local_name *name)
{
    if (name->held)
        name->held->holds--;
    else if (name->dir_fd >= 0)
        close(name->dir_fd);
    name->held = NULL;
    name->dir_fd = -1;
}

void local_dirs_changed(void)
{
    dir_changes_note(&changes, NULL, 0);
}

void local_dirs_removed(const char *path)
{
    size_t len = strlen(path);
    while (len > 0 && path[len - 1] == '/')
        len--;
    dir_changes_note(&changes, plain(path, len) ? path : NULL, len);
    /* A handle whose walk went through a link to it. */
    local_dirs_unlinked();
}

void local_dirs_unlinked(void)
{
    atomic_fetch_add_explicit(&unlinked, 1, memory_order_release);
}

void local_dirs_forget(int root_fd)
{
    local_dirs_changed();
    if (!table)
        return;
    for (int i = 0; i < DIRS_ENTRIES; i++)
        if (table[i].root_fd == root_fd)
            entry_clear(&table[i]);
}
