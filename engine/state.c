/*
 * state.c - the state directory (state.h).
 */
#include "state.h"
#include "fail.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[STATE_PATH_MAX];
static int lock_fd = -1;

int make_dirs(const char *path, unsigned mode)
{
    char buf[STATE_PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
            return -1;
        *p = '/';
    }
    return mkdir(buf, mode) < 0 && errno != EEXIST ? -1 : 0;
}

int state_open(const char *dir)
{
    if (dir[0] != '/')
        return fail("state directory %s: not an absolute path", dir);
    snprintf(root, sizeof root, "%s", dir);
    static const char *const kinds[] = {"pools", "images", "containers"};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        char p[STATE_PATH_MAX];
        state_path(p, "%s", kinds[i]);
        if (make_dirs(p, 0700) < 0)
            return fail_errno("cannot create %s", p);
    }
    return 0;
}

const char *state_root(void)
{
    return root;
}

int state_lock(void)
{
    if (lock_fd < 0) {
        char p[STATE_PATH_MAX];
        state_path(p, "lock");
        lock_fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (lock_fd < 0)
            return fail_errno("cannot open %s", p);
    }
    while (flock(lock_fd, LOCK_EX) < 0)
        if (errno != EINTR)
            return fail_errno("cannot lock the state directory");
    return 0;
}

void state_unlock(void)
{
    if (lock_fd >= 0)
        flock(lock_fd, LOCK_UN);
}

void state_path(char *out, const char *fmt, ...)
{
    int n = snprintf(out, STATE_PATH_MAX, "%s/", root);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out + n, STATE_PATH_MAX - (size_t)n, fmt, ap);
    va_end(ap);
}

int state_check_name(const char *what, const char *name)
{
    size_t len = strlen(name);
    if (len == 0 || len > NAME_MAX_LEN || name[0] == '.' || name[0] == '-')
        return fail("%s name '%s': use 1 to %d letters, digits, '_', '.' or "
                    "'-', not starting with '.' or '-'",
                    what, name, NAME_MAX_LEN);
    for (const char *p = name; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
              (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
              *p == '-'))
            return fail("%s name '%s': character '%c' is not allowed", what,
                        name, *p);
    return 0;
}

int state_plain_path(const char *path)
{
    if (path[0] != '/')
        return 0;
    for (const char *c = path + 1; *c;) {
        size_t n = strcspn(c, "/");
        if ((n == 0 && c[n]) || (n == 1 && c[0] == '.') ||
            (n == 2 && c[0] == '.' && c[1] == '.'))
            return 0;
        c += n + (c[n] == '/');
    }
    return 1;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **state_list(const char *kind, int *count)
{
    char p[STATE_PATH_MAX];
    state_path(p, "%s", kind);
    *count = 0;
    DIR *d = opendir(p);
    if (!d)
        return NULL;
    char **names = NULL;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (size_t)(*count + 1) * sizeof *names);
        names[(*count)++] = strdup(e->d_name);
    }
    closedir(d);
    if (*count)
        qsort(names, (size_t)*count, sizeof *names, by_name);
    return names;
}

void state_list_free(char **names, int count)
{
    for (int i = 0; i < count; i++)
        free(names[i]);
    free(names);
}

static int remove_one(const char *path, const struct stat *st, int type,
                      struct FTW *ftw)
{
    int rc = type == FTW_DP ? rmdir(path) : unlink(path);
    return rc < 0 && errno != ENOENT ? -1 : 0;
}

int remove_tree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : -1;
    return nftw(path, remove_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}
