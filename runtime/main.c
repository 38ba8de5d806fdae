/*
 * main.c - danaus-runtime, an OCI runtime for podman and containerd that
 * gives a container its root from a Danaus pool and leaves the rest of
 * the container to runc:
 *
 *   danaus-runtime [runc's global options] [--danaus-state DIR] COMMAND ...
 *
 * create makes the root (root.h), hands runc a bundle naming it
 * (bundle.h), and once runc has made the container's first process gives
 * its mount namespace the view of the root; delete takes the root away
 * after runc's delete; exec adds the preload's environment to the
 * process runc starts. Every other command (start, state, kill, ps,
 * features, ...) is runc's, run as it is. The engine's state directory is
 * --danaus-state (podman: --runtime-flag danaus-state=DIR), else
 * DANAUS_STATE (as for the engine; podman does not pass it on, containerd
 * does), else /var/lib/danaus; create notes it under ROOT_POINTER_DIR for the later
 * commands of that container, which podman runs without its runtime
 * flags (its cleanup process). The runtime that makes the rest of the
 * container ("runc" here, runc or crun) is --danaus-runc (podman:
 * --runtime-flag danaus-runc=crun), else DANAUS_RUNC, else runc on the
 * PATH; create notes it beside the state directory, and every later
 * command of that container runs the one noted, since a container one of
 * them made is unknown to the other.
 */
#include "bundle.h"
#include "fail.h"
#include "root.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_STATE "/var/lib/danaus"

struct runtime {
    const char *runc;
    const char *state;
    char noted_runc[PATH_MAX]; /* the note's, for a container made before */
    const char *log, *log_format; /* runc's --log and --log-format */
    char **argv; /* runc, its global options, then the command's words */
    int argc;
};

/* runc's global options that take a value (urfave/cli: -x or --x, the
 * value next or after '='). */
static const char *const global_valued[] = {"log", "log-format", "root",
                                            "criu", "rootless", NULL};

/* The option's name without its dashes and value, into name. */
static const char *option_name(const char *arg, char *name, size_t size)
{
    const char *p = arg + (arg[1] == '-' ? 2 : 1);
    snprintf(name, size, "%.*s", (int)strcspn(p, "="), p);
    return strchr(p, '=') ? strchr(p, '=') + 1 : NULL;
}

static int listed(const char *name, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(name, list[i]) == 0)
            return 1;
    return 0;
}

/* The failure, on stderr and in runc's log (where podman and containerd
 * look for a runtime's complaint). Returns 1. */
static int report(const struct runtime *rt)
{
    const char *msg = fail_message() ? fail_message() : "failed";
    fprintf(stderr, "danaus-runtime: %s\n", msg);
    FILE *f = rt->log ? fopen(rt->log, "ae") : NULL;
    if (!f)
        return 1;
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    if (rt->log_format && strcmp(rt->log_format, "json") == 0) {
        fputs("{\"level\":\"error\",\"msg\":\"danaus-runtime: ", f);
        for (const char *p = msg; *p; p++)
            if (*p == '"' || *p == '\\')
                fprintf(f, "\\%c", *p);
            else if ((unsigned char)*p >= 0x20)
                fputc(*p, f);
        fprintf(f, "\",\"time\":\"%s\"}\n", when);
    } else {
        fprintf(f, "time=\"%s\" level=error msg=\"danaus-runtime: %s\"\n",
                when, msg);
    }
    fclose(f);
    return 1;
}

/* Runs runc with the global options and args (NULL-terminated); its exit
 * status, or -1 (fail.h) when it cannot be run. */
static int run_runc(const struct runtime *rt, const char *const *args)
{
    int n = 0;
    while (args[n])
        n++;
    const char **argv = calloc((size_t)(rt->argc + n + 1), sizeof *argv);
    if (!argv)
        return fail("out of memory");
    memcpy(argv, rt->argv, (size_t)rt->argc * sizeof *argv);
    memcpy(argv + rt->argc, args, (size_t)n * sizeof *argv);
    pid_t pid = fork();
    if (pid == 0) {
        execvp(rt->runc, (char *const *)argv);
        fprintf(stderr, "danaus-runtime: cannot run %s: %s\n", rt->runc,
                strerror(errno));
        _exit(127);
    }
    free(argv);
    if (pid < 0)
        return fail_errno("fork");
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return fail_errno("waitpid");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The index in args of the first word that is not an option or an
 * option's value (valued: the options that take one; NULL: every one
 * does), or n. */
static int first_operand(char **args, int n, const char *const *valued)
{
    char name[64];
    for (int i = 0; i < n; i++) {
        if (strcmp(args[i], "--") == 0)
            return i + 1 < n ? i + 1 : n;
        if (args[i][0] != '-')
            return i;
        if (!option_name(args[i], name, sizeof name) &&
            (!valued || listed(name, valued)))
            i++;
    }
    return n;
}

/* The value of the option named one of names among the first n of
 * args, or NULL; *first and *last get the indexes of the words that hold
 * option and value (one word with '='). */
static char *option_value(char **args, int n, const char *const *names,
                          int *first, int *last)
{
    char name[64];
    for (int i = 0; i < n; i++) {
        if (args[i][0] != '-')
            continue;
        const char *inline_value = option_name(args[i], name, sizeof name);
        if (!listed(name, names))
            continue;
        *first = i;
        *last = inline_value || i + 1 == n ? i : i + 1;
        return inline_value ? (char *)inline_value
               : i + 1 < n  ? args[i + 1]
                            : NULL;
    }
    *first = *last = -1;
    return NULL;
}

static const char *const create_valued[] = {
    "bundle", "b", "console-socket", "pid-file", "preserve-fds", NULL};

/* create [--bundle DIR] [--pid-file F] [...] ID */
static int create(struct runtime *rt, char **args, int n)
{
    int at = first_operand(args, n, create_valued), first, last;
    if (at >= n)
        return fail("create: expected a container id");
    const char *id = args[at];
    static const char *const bundle_names[] = {"bundle", "b", NULL};
    static const char *const pid_names[] = {"pid-file", NULL};
    const char *given = option_value(args, at, bundle_names, &first, &last);
    char bundle_dir[STATE_PATH_MAX], dir[STATE_PATH_MAX];
    char pool[NAME_MAX_LEN + 1], pid_file[STATE_PATH_MAX + 8];
    if (!realpath(given ? given : ".", bundle_dir))
        return fail_errno("bundle %s", given ? given : ".");
    int pid_first, pid_last;
    const char *pid_given =
        option_value(args, at, pid_names, &pid_first, &pid_last);
    struct bundle b;
    const char *paths[BUNDLE_PATHS_MAX];
    int npaths = 0;
    /* root_make leaves nothing new behind when it fails (and touches no
     * container of that id that runs). */
    if (root_check_id(id) < 0 || bundle_read(bundle_dir, &b) < 0 ||
        root_make(id, &b, bundle_dir, pool, paths, &npaths) < 0) {
        bundle_free(&b);
        root_forget(id);
        return -1;
    }
    root_dir(id, dir);
    snprintf(pid_file, sizeof pid_file, "%s/pid", dir);
    /* runc's words: create, --bundle ours, --pid-file (ours if none),
     * then the caller's options and the id. */
    const char **words = calloc((size_t)n + 6, sizeof *words);
    if (!words) {
        bundle_free(&b);
        root_stop(id);
        return fail("out of memory");
    }
    int k = 0;
    words[k++] = "create";
    words[k++] = "--bundle";
    words[k++] = dir;
    if (!pid_given) {
        words[k++] = "--pid-file";
        words[k++] = pid_file;
    }
    for (int i = 0; i < n; i++) {
        if (first >= 0 && i >= first && i <= last)
            continue; /* the caller's --bundle */
        words[k++] = args[i];
    }
    words[k] = NULL;
    int rc = run_runc(rt, words);
    free(words);
    if (rc == 0) {
        FILE *f = fopen(pid_given ? pid_given : pid_file, "re");
        int pid = 0;
        if (!f || fscanf(f, "%d", &pid) != 1 || pid <= 0)
            rc = fail("create: runc left no pid in %s",
                      pid_given ? pid_given : pid_file);
        if (f)
            fclose(f);
        if (rc == 0 && root_view(id, pool, pid, paths, npaths) < 0)
            rc = -1;
        if (rc < 0) {
            const char *force[] = {"delete", "--force", (char *)id, NULL};
            run_runc(rt, force);
        }
    }
    if (rc != 0) {
        /* As a delete: the branch stays while podman keeps the container
         * (it may start it again), unless it goes with --rm. */
        char *why = fail_message() ? strdup(fail_message()) : NULL;
        fail_clear();
        root_stop(id);
        fail_clear();
        if (why)
            fail("%s", why);
        free(why);
    }
    bundle_free(&b);
    return rc;
}

/* delete [--force] ID: runc's, then the root, once runc holds no
 * container of that id (a failed delete of a running one keeps it). */
static int delete(struct runtime *rt, char **args, int n)
{
    int at = first_operand(args, n, (const char *const[]){NULL});
    if (at >= n)
        return fail("delete: expected a container id");
    const char *id = args[at];
    const char **words = calloc((size_t)n + 2, sizeof *words);
    if (!words)
        return fail("out of memory");
    words[0] = "delete";
    memcpy(words + 1, args, (size_t)n * sizeof *words);
    int rc = run_runc(rt, words);
    free(words);
    if (rc < 0 || root_check_id(id) < 0)
        return -1;
    char dir[STATE_PATH_MAX];
    root_dir(id, dir);
    if (access(dir, F_OK) < 0)
        return rc;
    if (rc != 0) {
        /* Gone from runc already (a create that failed half way)? */
        const char *state[] = {"state", (char *)id, NULL};
        int out = dup(1), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        int err = dup(2);
        dup2(null, 1);
        dup2(null, 2);
        int known = run_runc(rt, state) == 0;
        dup2(out, 1);
        dup2(err, 2);
        close(out);
        close(err);
        close(null);
        if (known)
            return rc;
    }
    return root_stop(id) < 0 ? -1 : 0;
}

static const char *const exec_valued[] = {
    "console-socket", "cwd", "env", "e", "user", "u", "additional-gids",
    "g", "process", "p", "pid-file", "process-label", "apparmor", "cap", "c",
    "preserve-fds", "cgroup", NULL};

/* exec [options] ID [CMD...]: runc's, with the preload's environment
 * added to the process (--process FILE, or --env). */
static int exec_in(struct runtime *rt, char **args, int n)
{
    int at = first_operand(args, n, exec_valued), first, last;
    if (at >= n)
        return fail("exec: expected a container id");
    const char *id = args[at];
    char pool[NAME_MAX_LEN + 1], dir[STATE_PATH_MAX];
    char process_file[STATE_PATH_MAX + 32];
    if (root_check_id(id) < 0)
        return -1;
    root_dir(id, dir);
    /* A container not made by danaus-runtime (none of its records) is
     * runc's alone. */
    int ours = access(dir, F_OK) == 0;
    if (ours && root_pool(id, pool) < 0)
        return -1;
    static const char *const process_names[] = {"process", "p", NULL};
    const char *process = option_value(args, at, process_names, &first,
                                       &last);
    const char **words = calloc((size_t)n + 10, sizeof *words);
    char env[3][STATE_PATH_MAX];
    if (!words)
        return fail("out of memory");
    int k = 0, rc = 0;
    words[k++] = "exec";
    process_file[0] = '\0';
    if (ours && process) {
        struct json *j = bundle_read_json(process);
        snprintf(process_file, sizeof process_file, "%s/exec-%d.json", dir,
                 (int)getpid());
        rc = !j || bundle_process_env(j, pool) < 0 ||
                     bundle_write_json(process_file, j) < 0
                 ? -1
                 : 0;
        json_free(j);
        words[k++] = "--process";
        words[k++] = process_file;
    } else if (ours) {
        snprintf(env[0], sizeof env[0], "LD_PRELOAD=%s",
                 BUNDLE_LIBRARY_INSIDE);
        snprintf(env[1], sizeof env[1], "DANAUS_SERVICE=%s", pool);
        snprintf(env[2], sizeof env[2], "DANAUS_RUNDIR=%s",
                 BUNDLE_RUNDIR_INSIDE);
        for (int i = 0; i < 3; i++) {
            words[k++] = "--env";
            words[k++] = env[i];
        }
    }
    for (int i = 0; i < n; i++)
        if (!(ours && process && i >= first && i <= last))
            words[k++] = args[i];
    words[k] = NULL;
    if (rc == 0)
        rc = run_runc(rt, words);
    if (process_file[0])
        unlink(process_file);
    free(words);
    return rc;
}

/* runc's commands that name a container, with the options of each that
 * take a value (NULL: all of update's do); the id is the first operand. */
static const struct {
    const char *cmd;
    const char *const *valued;
} id_commands[] = {
    {"create", create_valued},
    {"exec", exec_valued},
    {"delete", (const char *const[]){NULL}},
    {"start", (const char *const[]){NULL}},
    {"state", (const char *const[]){NULL}},
    {"kill", (const char *const[]){NULL}},
    {"pause", (const char *const[]){NULL}},
    {"resume", (const char *const[]){NULL}},
    {"ps", (const char *const[]){"format", "f", NULL}},
    {"events", (const char *const[]){"interval", NULL}},
    {"update", NULL},
};

/* The container's id among a command's words, or NULL. */
static const char *command_id(const char *cmd, char **args, int n)
{
    for (size_t i = 0; i < sizeof id_commands / sizeof *id_commands; i++) {
        if (strcmp(cmd, id_commands[i].cmd) != 0)
            continue;
        int at = first_operand(args, n, id_commands[i].valued);
        return at < n && root_check_id(args[at]) == 0 ? args[at] : NULL;
    }
    return NULL;
}

/* ROOT_POINTER_DIR/ID, create's note of container id: its state
 * directory, then the runc that made it (absent in a note of an older
 * runtime), a line each. 0, with what it names in state and runc ("" for
 * none), or -1. */
static int read_note(const char *id, char *state, char *runc)
{
    char pointer[STATE_PATH_MAX];
    snprintf(pointer, sizeof pointer, "%s/%s", ROOT_POINTER_DIR, id);
    state[0] = runc[0] = '\0';
    FILE *f = fopen(pointer, "re");
    if (!f)
        return -1;
    if (fgets(state, STATE_PATH_MAX, f) && fgets(runc, PATH_MAX, f))
        runc[strcspn(runc, "\n")] = '\0';
    state[strcspn(state, "\n")] = '\0';
    fclose(f);
    return state[0] ? 0 : -1;
}

/* The program name runs: itself when it names a path, else the first
 * executable of that name on the PATH; into out. 0, or -1 (fail.h). */
static int resolve_program(const char *name, char *out)
{
    if (strchr(name, '/'))
        return realpath(name, out) ? 0 : fail_errno("cannot run %s", name);
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        char candidate[PATH_MAX];
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, p, name);
        if (len > 0 && access(candidate, X_OK) == 0 &&
            realpath(candidate, out))
            return 0;
        p += len + (p[len] == ':');
    }
    return fail("cannot run %s: not found on the PATH", name);
}

/* Opens the state directory: the one noted for the container in
 * ROOT_POINTER_DIR/ID, else --danaus-state, else DANAUS_STATE, else the
 * default; create notes it, and the runc it runs. 0; 1 when a later
 * command finds no state directory (the container is runc's alone: none
 * is made for it); -1 (fail.h). */
static int open_state(struct runtime *rt, const char *cmd, char **args,
                      int n)
{
    const char *id = command_id(cmd, args, n);
    char pointer[STATE_PATH_MAX], noted[STATE_PATH_MAX], runc[PATH_MAX];
    if (!id)
        return fail("%s: expected a container id", cmd);
    snprintf(pointer, sizeof pointer, "%s/%s", ROOT_POINTER_DIR, id);
    const char *env = getenv("DANAUS_STATE");
    const char *state = rt->state && *rt->state ? rt->state
                        : env && *env           ? env
                                                : DEFAULT_STATE;
    if (read_note(id, noted, runc) == 0)
        state = noted;
    if (strcmp(cmd, "create") != 0 && access(state, F_OK) < 0)
        return 1;
    if (state_open(state) < 0)
        return -1;
    if (strcmp(cmd, "create") != 0 || noted[0])
        return 0;
    char tmp[STATE_PATH_MAX + 8], real[PATH_MAX];
    snprintf(tmp, sizeof tmp, "%s.new", pointer);
    if (resolve_program(rt->runc, runc) < 0)
        return -1;
    if (mkdir(ROOT_POINTER_DIR, 0700) < 0 && errno != EEXIST)
        return fail_errno("cannot create %s", ROOT_POINTER_DIR);
    FILE *f = fopen(tmp, "we");
    if (f && realpath(state_root(), real))
        fprintf(f, "%s\n%s\n", real, runc);
    if (!f || fclose(f) != 0 || rename(tmp, pointer) < 0)
        return fail_errno("cannot write %s", pointer);
    return 0;
}

/* The global options: runc's are kept for runc, --danaus-state is ours.
 * Returns the index of the command. */
static int globals(struct runtime *rt, int argc, char **argv)
{
    char name[64];
    rt->argv = calloc((size_t)argc + 1, sizeof *rt->argv);
    if (!rt->argv)
        return fail("out of memory");
    rt->argc++; /* the runc, once known (main) */
    int i;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        const char *value = option_name(argv[i], name, sizeof name);
        int ours = strcmp(name, "danaus-state") == 0 ||
                   strcmp(name, "danaus-runc") == 0;
        int next = !value && (listed(name, global_valued) || ours);
        if (next && i + 1 == argc)
            return fail("option %s needs a value", argv[i]);
        if (next)
            value = argv[i + 1];
        if (ours) {
            if (strcmp(name, "danaus-state") == 0)
                rt->state = value;
            else if (value && *value)
                rt->runc = value;
            i += next;
            continue;
        }
        if (strcmp(name, "log") == 0)
            rt->log = value;
        if (strcmp(name, "log-format") == 0)
            rt->log_format = value;
        if (strcmp(name, "version") == 0 || strcmp(name, "v") == 0 ||
            strcmp(name, "help") == 0 || strcmp(name, "h") == 0)
            break; /* runc's own answer, after ours */
        rt->argv[rt->argc++] = argv[i];
        if (next)
            rt->argv[rt->argc++] = argv[++i];
    }
    return i;
}

int main(int argc, char **argv)
{
    struct runtime rt = {.runc = getenv("DANAUS_RUNC")};
    if (!rt.runc || !*rt.runc)
        rt.runc = "runc";
    int i = globals(&rt, argc, argv);
    if (i < 0)
        return report(&rt);
    const char *cmd = i < argc ? argv[i] : "";
    /* A container's later commands (and its create again, for podman
     * start) run the runc its first create noted. */
    char noted_state[STATE_PATH_MAX];
    const char *id = command_id(cmd, argv + i + 1, argc - i - 1);
    if (id && read_note(id, noted_state, rt.noted_runc) == 0 &&
        rt.noted_runc[0])
        rt.runc = rt.noted_runc;
    rt.argv[0] = (char *)rt.runc;
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-v") == 0) {
        printf("danaus-runtime version %s (the rest of the container is "
               "runc's)\n", DANAUS_VERSION);
        fflush(stdout);
    }
    int ours = strcmp(cmd, "create") == 0 || strcmp(cmd, "delete") == 0 ||
               strcmp(cmd, "exec") == 0;
    if (strcmp(cmd, "run") == 0) {
        fail("run: use create and start (podman and containerd do)");
        return report(&rt);
    }
    char **args = argv + i + 1;
    int n = argc - i - 1;
    int opened = ours ? open_state(&rt, cmd, args, n) : 1;
    if (opened < 0)
        return report(&rt);
    if (opened == 1) {
        /* start, state, kill, ps, features, --version, ...: runc's. */
        for (int k = i; k < argc; k++)
            rt.argv[rt.argc++] = argv[k];
        rt.argv[rt.argc] = NULL;
        execvp(rt.runc, rt.argv);
        fail_errno("cannot run %s", rt.runc);
        return report(&rt);
    }
    int rc = strcmp(cmd, "create") == 0 ? create(&rt, args, n)
             : strcmp(cmd, "delete") == 0 ? delete(&rt, args, n)
                                          : exec_in(&rt, args, n);
    if (fail_message())
        report(&rt);
    return rc < 0 ? 1 : rc;
}
