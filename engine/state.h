/*
 * state.h - the engine's state directory (default /var/lib/danaus, or
 * --state DIR, or DANAUS_STATE). Everything the engine knows lives there,
 * so a later command (or a restarted engine) picks up where the last one
 * left off:
 *
 *   lock                       serialises engine commands
 *   pools/NAME/pool            record: cpus, memory, backend, danausd pid
 *   pools/NAME/{danausd.conf,danausd.log,run/,ipc,layers/}
 *   images/NAME/image          record: layers (their sha256), id, source
 *   layers/HEX.tar             a layer, kept once (layers.h)
 *   containers/NAME/container  record: pool, image, pid, status
 *   containers/NAME/{root,log,config.json (runinfo.h)}
 */
#ifndef ENGINE_STATE_H
#define ENGINE_STATE_H

#include <stddef.h>

#define STATE_PATH_MAX 4096
#define NAME_MAX_LEN 32

/* Creates the directories; 0 or -1 (fail.h). */
int state_open(const char *root);
const char *state_root(void);
/* Takes (or drops) the engine-wide lock. */
int state_lock(void);
void state_unlock(void);
/* root + "/" + the formatted rest. */
void state_path(char *out, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Names of pools, images, containers: [A-Za-z0-9_.-], 1..32, no leading
 * dot. 0 or -1 (fail.h) naming what. */
int state_check_name(const char *what, const char *name);
/* Whether path is absolute with no ".", ".." or empty component: a path
 * that says where it leads (backend directories, volume targets). */
int state_plain_path(const char *path);
/* The entries of state directory kind ("pools", ...), sorted; count out. */
char **state_list(const char *kind, int *count);
void state_list_free(char **names, int count);
/* Removes a tree (not crossing into mounts); 0 or -1 with errno. */
int remove_tree(const char *path);
/* mkdir -p; 0 or -1 with errno. */
int make_dirs(const char *path, unsigned mode);

#endif
