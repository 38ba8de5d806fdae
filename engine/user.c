/*
 * user.c - a container's user from its own /etc/passwd and /etc/group
 * (user.h). The files are parsed here, not with getpwnam: libc's name
 * service would load the image's NSS modules into the engine's process.
 * They are an image author's: regular files only, at most USER_FILE_MAX
 * bytes, lines that do not parse are skipped.
 */
#include "user.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define USER_FILE_MAX (1 << 20)

/* The text of path, malloc'ed; "" when it does not exist. NULL (fail.h)
 * when it is not a regular file or too large. */
static char *read_file(const char *path)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT)
        return strdup("");
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        fail_errno("cannot read the container's %s", path);
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char *text = NULL;
    if (!S_ISREG(st.st_mode) || st.st_size > USER_FILE_MAX)
        fail("the container's %s is not a regular file of at most %d KiB",
             path, USER_FILE_MAX >> 10);
    else if (!(text = calloc(1, (size_t)st.st_size + 1)) ||
             read(fd, text, (size_t)st.st_size) != st.st_size) {
        fail_errno("cannot read the container's %s", path);
        free(text);
        text = NULL;
    }
    close(fd);
    return text;
}

/* A decimal id (no sign, no spaces) into *id; 0 or -1. */
static int parse_id(const char *text, unsigned *id)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (!(*text >= '0' && *text <= '9') || *end || errno || v > 0x7fffffff)
        return -1;
    *id = (unsigned)v;
    return 0;
}

/* Splits line (a copy) at ':' into at most n fields; their count. */
static int fields(char *line, char **f, int n)
{
    int k = 0;
    for (char *p = line; k < n; p++) {
        f[k++] = p;
        if (!(p = strchr(p, ':')))
            break;
        *p = '\0';
    }
    return k;
}

/* The next line of *text, NUL-ended in place; NULL at the end. */
static char *next_line(char **text)
{
    if (!**text)
        return NULL;
    char *line = *text, *nl = strchr(line, '\n');
    *text = nl ? nl + 1 : line + strlen(line);
    if (nl)
        *nl = '\0';
    return line;
}

/* The passwd entry of name, or of uid when name is NULL: its name (into
 * who), gid and home. 1 found, 0 not, -1 (fail.h). */
static int find_passwd(const char *name, unsigned uid, struct user *u,
                       char *who, size_t size)
{
    char *text = read_file("/etc/passwd"), *rest = text, *line;
    if (!text)
        return -1;
    int found = 0;
    while (!found && (line = next_line(&rest))) {
        char *f[7];
        unsigned id, gid;
        if (fields(line, f, 7) < 6 || parse_id(f[2], &id) < 0 ||
            parse_id(f[3], &gid) < 0 ||
            (name ? strcmp(f[0], name) != 0 : id != uid))
            continue;
        found = 1;
        u->uid = id;
        u->gid = gid;
        snprintf(who, size, "%s", f[0]);
        snprintf(u->home, sizeof u->home, "%s", f[5]);
    }
    free(text);
    return found;
}

/* With group set: that group's id (a name looked up) into u->gid, alone.
 * Else u->gid and the groups that list member. 0 or -1 (fail.h). */
static int find_groups(const char *group, const char *member, struct user *u)
{
    unsigned gid;
    if (group && parse_id(group, &gid) == 0) {
        u->gid = gid;
        return 0;
    }
    char *text = read_file("/etc/group"), *rest = text, *line;
    if (!text)
        return -1;
    int found = 0, rc = 0;
    while (rc == 0 && (line = next_line(&rest))) {
        char *f[4];
        if (fields(line, f, 4) < 4 || parse_id(f[2], &gid) < 0)
            continue;
        if (group && strcmp(f[0], group) == 0 && !found++)
            u->gid = gid;
        for (char *m = f[3], *save; !group && *member &&
                                    (m = strtok_r(m, ",", &save));
             m = NULL)
            if (strcmp(m, member) == 0 && u->ngroups == USER_MAX_GROUPS)
                rc = fail("user '%s' is in more than %d groups", member,
                          USER_MAX_GROUPS);
            else if (strcmp(m, member) == 0)
                u->groups[u->ngroups++] = gid;
    }
    free(text);
    if (rc == 0 && group && !found) {
        errno = EINVAL;
        rc = fail("unable to find group %s: no matching entries in the "
                  "container's /etc/group", group);
    }
    return rc;
}

int user_resolve(const char *spec, struct user *u)
{
    char user[256], who[256] = "";
    const char *colon = strchr(spec, ':');
    snprintf(user, sizeof user, "%.*s",
             (int)(colon ? (size_t)(colon - spec) : strlen(spec)), spec);
    memset(u, 0, sizeof *u);
    unsigned uid = 0;
    int numeric = parse_id(user, &uid) == 0;
    int found = find_passwd(numeric ? NULL : user, uid, u, who, sizeof who);
    if (found < 0)
        return -1;
    if (!found && !numeric) {
        errno = EINVAL;
        return fail("unable to find user %s: no matching entries in the "
                    "container's /etc/passwd", user);
    }
    if (!found)
        u->uid = uid;
    u->ngroups = 1; /* groups[0]: the group, whichever it turns out */
    int rc = find_groups(colon ? colon + 1 : NULL, who, u);
    u->groups[0] = u->gid;
    return rc;
}
