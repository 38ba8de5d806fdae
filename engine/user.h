/*
 * user.h - the user a container's command runs as: -u or the image's USER
 * (USER[:GROUP], each a name or a number), resolved inside the container
 * against its own /etc/passwd and /etc/group, as docker and podman do: a
 * user's group is its passwd entry's and its supplementary groups those
 * /etc/group lists it in, unless GROUP is given (then that group alone);
 * a number with no entry runs with group 0.
 */
#ifndef ENGINE_USER_H
#define ENGINE_USER_H

#include <sys/types.h>

#define USER_MAX_GROUPS 256

struct user {
    uid_t uid;
    gid_t gid;
    gid_t groups[USER_MAX_GROUPS]; /* supplementary, ngroups of them */
    int ngroups;
    char home[4096]; /* the passwd entry's directory, "" without one */
};

/* Resolves spec after pivot_root (the files read are the container's).
 * 0 or -1 (fail.h: the user or group not found, a file unreadable). */
int user_resolve(const char *spec, struct user *u);

#endif
