/*
 * main.c - the `danaus` command: tenant pools, images and containers on
 * Danaus file-system services. Its verbs and options are usage()'s below
 * (and docs/engine.md's).
 *
 * Every command takes the state directory's lock, and first restarts the
 * danausd of any pool whose service died. Errors are one line on stderr
 * and a non-zero exit (1; run and exec use 125-127 as docker does).
 */
#include "container.h"
#include "cp.h"
#include "fail.h"
#include "hostpath.h"
#include "hrc.h"
#include "image_config.h"
#include "info.h"
#include "inspect.h"
#include "start.h"
#include "image.h"
#include "pool.h"
#include "size.h"
#include "state.h"
#include "stats.h"
#include "volume.h"

#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_STATE "/var/lib/danaus"
#define STOP_TIMEOUT_MAX 3600 /* seconds */
#define LOGS_TAIL_MAX 1000000 /* lines */

/* The usage on out: stdout for --help (exit 0), stderr for a missing
 * command (exit 2). */
static int usage(FILE *out)
{
    fprintf(out,
            "usage: danaus [--state DIR] COMMAND\n"
            "  pool create NAME --cpus LIST --memory SIZE "
            "--backend local:DIR|ceph:CONF:DIR [--cache SIZE|auto]\n"
            "              [--write-through] [--backend-ops N] "
            "[--backend-write-rate SIZE]\n"
            "              [--backend-latency-target MS] [--pids-limit N]\n"
            "              [--backend-weight N] [--backend-reservation N] "
            "[--backend-fair-share on|off]\n"
            "              [--fuse-io-uring on|off] "
            "[--userns host|private] [--nosuid]\n"
            "  pool ls | pool rm NAME\n"
            "  image import [--max-layer-size SIZE] NAME PATH | image ls | "
            "image rm NAME\n"
            "  images | rmi NAME\n"
            "  volume create|rm|inspect [--pool P] NAME... | volume ls "
            "[--pool P] [-q]\n"
            "  volume prune [--pool P] [-f]\n"
            "  run [--pool P] --image I [--name N] [-e VAR[=VALUE]]... [-d] "
            "[--rm]\n"
            "      [--read-only] [-i] [-t] [-v HOSTDIR|VOLUME:DIR[:ro][,idmap]]... "
            "[-w DIR]\n"
            "      [-u USER[:GROUP]] [--entrypoint CMD] [--network none|host|bridge]\n"
            "      [-p HOSTPORT:CONTAINERPORT[/tcp|/udp]]...\n"
            "      [--pids-limit N] [--security-opt no-new-privileges=false]\n"
            "      [-- CMD [ARGS...]]   (or run [--pool P] [OPTIONS] IMAGE "
            "[CMD...])\n"
            "  exec [-e VAR[=VALUE]]... [-w DIR] [-u USER[:GROUP]] [-i] [-t] "
            "NAME [--] CMD [ARGS...]\n"
            "  ps [-a] [-q] [--format TEMPLATE] |\n"
            "  inspect [-f|--format TEMPLATE] NAME... |\n"
            "  stop [-t SECONDS] NAME | start NAME | restart [-t SECONDS] NAME |\n"
            "  rm [-f] NAME |\n"
            "  logs [-f] [--tail N] NAME | kill [-s SIGNAL] NAME | wait NAME |\n"
            "  stats [--no-stream] [NAME...] | stats --hrc POOL | top NAME |\n"
            "  info | version\n"
            "  cp [-a] [-L] NAME:PATH HOSTPATH|- | cp [-a] [-L] HOSTPATH|- "
            "NAME:PATH\n");
    return out == stdout ? 0 : 2;
}

static int pool_command(int argc, char **argv)
{
    if (argc == 1 && strcmp(argv[0], "ls") == 0)
        return pool_list();
    if (argc == 2 && strcmp(argv[0], "rm") == 0)
        return pool_remove(argv[1]);
    if (argc < 2 || strcmp(argv[0], "create") != 0)
        return fail("pool: expected create, ls or rm (see danaus --help)");
    struct pool_options o = {0};
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--write-through") == 0) {
            o.write_through = 1;
            continue;
        }
        if (strcmp(argv[i], "--nosuid") == 0) {
            o.nosuid = 1;
            continue;
        }
        if (strncmp(argv[i], "--userns=", 9) == 0) { /* docker's spelling */
            o.userns = argv[i] + 9;
            continue;
        }
        const char **slot = strcmp(argv[i], "--cpus") == 0      ? &o.cpus
                            : strcmp(argv[i], "--memory") == 0  ? &o.memory
                            : strcmp(argv[i], "--backend") == 0 ? &o.backend
                            : strcmp(argv[i], "--cache") == 0   ? &o.cache
                            : strcmp(argv[i], "--backend-ops") == 0
                                ? &o.backend_ops
                            : strcmp(argv[i], "--backend-write-rate") == 0
                                ? &o.backend_write_rate
                            : strcmp(argv[i], "--backend-latency-target") == 0
                                ? &o.backend_latency_target
                            : strcmp(argv[i], "--pids-limit") == 0
                                ? &o.pids_limit
                            : strcmp(argv[i], "--backend-weight") == 0
                                ? &o.backend_weight
                            : strcmp(argv[i], "--backend-reservation") == 0
                                ? &o.backend_reservation
                            : strcmp(argv[i], "--backend-fair-share") == 0
                                ? &o.backend_fair_share
                            : strcmp(argv[i], "--fuse-io-uring") == 0
                                ? &o.fuse_io_uring
                            : strcmp(argv[i], "--userns") == 0 ? &o.userns
                                                               : NULL;
        if (!slot)
            return fail("pool create: unknown option '%s'", argv[i]);
        if (i + 1 == argc)
            return fail("pool create: %s needs a value", argv[i]);
        *slot = argv[++i];
    }
    return pool_create(argv[1], &o);
}

static int image_command(int argc, char **argv)
{
    uint64_t max = 0;
    if (argc == 5 && strcmp(argv[0], "import") == 0 &&
        strcmp(argv[1], "--max-layer-size") == 0)
        return size_parse("max-layer-size", argv[2], &max) < 0 ? -1
               : max == 0 ? fail("max-layer-size 0: a layer needs some room")
                          : image_import(argv[3], argv[4], max);
    if (argc == 3 && strcmp(argv[0], "import") == 0)
        return image_import(argv[1], argv[2], 0);
    if (argc == 1 && strcmp(argv[0], "ls") == 0)
        return image_list();
    if (argc == 2 && strcmp(argv[0], "rm") == 0)
        return image_remove(argv[1]);
    return fail("image: expected import [--max-layer-size SIZE] NAME PATH, "
                "ls or rm NAME");
}

/* The options of -v, comma-separated: ro or rw, and idmap (HOSTDIR
 * only: a volume's ids are mapped by its danausd already). 0 or -1. */
static int parse_volume_options(char *text, struct ns_bind *b)
{
    for (char *save, *o = strtok_r(text, ",", &save); o;
         o = strtok_r(NULL, ",", &save))
        if (strcmp(o, "ro") == 0 || strcmp(o, "rw") == 0)
            b->readonly = strcmp(o, "ro") == 0;
        else if (strcmp(o, "idmap") == 0 && !b->volume)
            b->idmap = 1;
        else
            return fail("run: -v %s:%s: option '%s': expected ro or rw%s",
                        b->host, b->inside, o,
                        b->volume ? " (idmap is for a host directory)"
                                  : ", and idmap");
    return 0;
}

/* -v HOSTDIR:DIR[:OPTIONS]: an existing absolute host path, bound at a
 * plain absolute path inside; or VOLUME:DIR[:ro|:rw], a named directory of
 * the pool's backend served by its danausd. 0 or -1 (fail.h). */
static int parse_volume(char *text, struct ns_bind *b)
{
    char *inside = strchr(text, ':');
    char *mode = inside ? strchr(inside + 1, ':') : NULL;
    if (inside)
        *inside++ = '\0';
    if (mode)
        *mode++ = '\0';
    int volume = !strchr(text, '/');
    if (inside && volume && state_check_name("volume", text) < 0)
        return -1;
    if (!inside || (!volume && text[0] != '/'))
        return fail("run: -v %s: expected HOSTDIR:DIR[:ro] with an existing "
                    "absolute HOSTDIR, or VOLUME:DIR[:ro]", text);
    if (!state_plain_path(inside) || strcmp(inside, "/") == 0)
        return fail("run: -v %s:%s: DIR must be absolute, not '/', without "
                    "'.', '..' or empty components", text, inside);
    *b = (struct ns_bind){text, inside, 0, volume ? text : NULL, 0, 0};
    if (mode && parse_volume_options(mode, b) < 0)
        return -1;
    /* Checked here for the message; the container's first process walks
     * the path again by the same rule and binds what it finds then. */
    int fd = volume ? -1 : hostpath_open(text);
    if (!volume && fd < 0) {
        char *why = strdup(fail_message());
        fail_clear();
        fail("run: -v %s", why ? why : text);
        free(why);
        return -1;
    }
    if (fd >= 0)
        close(fd);
    return 0;
}

/* -e VAR=VALUE, or -e VAR: the caller's VAR, left out when it has none
 * (as docker and podman do). 0 or -1 (fail.h). */
static int parse_env(char *text, struct run_options *o)
{
    if (image_config_env_ok(text)) {
        o->env[o->nenv++] = text;
        return 0;
    }
    if (!*text || strchr(text, '='))
        return fail("-e '%s': expected VAR=VALUE or VAR", text);
    const char *value = getenv(text);
    if (value && asprintf(&o->env[o->nenv], "%s=%s", text, value) < 0)
        return fail_errno("asprintf");
    o->nenv += value != NULL;
    return 0;
}

/* --network none|host|bridge: a network namespace of the container's own
 * with only its loopback (the default), the host's, or its own on the
 * engine's bridge (net.h). */
static int parse_network(const char *text, struct run_options *o)
{
    if (strcmp(text, "none") != 0 && strcmp(text, "host") != 0 &&
        strcmp(text, "bridge") != 0)
        return fail("run: --network '%s': expected none, host or bridge",
                    text);
    o->host_network = strcmp(text, "host") == 0;
    o->bridge_network = strcmp(text, "bridge") == 0;
    return 0;
}

/* --pids-limit N: the container's tasks (its pool's limit holds too). */
static int parse_pids_limit(const char *text, struct run_options *o)
{
    unsigned long long n;
    if (!count_parse(text, POOL_PIDS_MAX, &n))
        return fail("run: --pids-limit '%s': expected a number of tasks, 1 "
                    "to %d", text, POOL_PIDS_MAX);
    o->pids_limit = n;
    return 0;
}

/* --security-opt no-new-privileges[=true|false] (true by default). */
static int parse_security(const char *text, struct run_options *o)
{
    if (strcmp(text, "no-new-privileges") == 0 ||
        strcmp(text, "no-new-privileges=true") == 0)
        o->new_privileges = 0;
    else if (strcmp(text, "no-new-privileges=false") == 0)
        o->new_privileges = 1;
    else
        return fail("run: --security-opt '%s': expected "
                    "no-new-privileges[=true|false]", text);
    return 0;
}

/* One option with a value into o. 0 or -1 (fail.h). */
static int run_option(const char *opt, char *value, struct run_options *o)
{
    if (strcmp(opt, "--pool") == 0)
        o->pool = value;
    else if (strcmp(opt, "--image") == 0)
        o->image = value;
    else if (strcmp(opt, "--name") == 0)
        o->name = value;
    else if (strcmp(opt, "-w") == 0 && !state_plain_path(value))
        return fail("-w '%s': expected a plain absolute path", value);
    else if (strcmp(opt, "-w") == 0)
        o->workdir = value;
    else if (strcmp(opt, "-u") == 0 && !image_config_user_ok(value))
        return fail("-u '%s': expected USER[:GROUP], each a name or a "
                    "number", value);
    else if (strcmp(opt, "-u") == 0)
        o->user = value;
    else if (strcmp(opt, "--entrypoint") == 0)
        o->entrypoint = value;
    else if (strcmp(opt, "-v") == 0)
        return parse_volume(value, &o->volumes[o->nvolumes++]);
    else if (strcmp(opt, "--network") == 0)
        return parse_network(value, o);
    else if (strcmp(opt, "-p") == 0 && o->nports == NET_PORTS_MAX)
        return fail("run: at most %d -p", NET_PORTS_MAX);
    else if (strcmp(opt, "-p") == 0)
        return net_port_parse(value, &o->ports[o->nports++]);
    else if (strcmp(opt, "--security-opt") == 0)
        return parse_security(value, o);
    else if (strcmp(opt, "--pids-limit") == 0)
        return parse_pids_limit(value, o);
    else if (strcmp(opt, "-e") == 0)
        return parse_env(value, o);
    else
        return fail("run: unknown option '%s' (the command follows --)",
                    opt);
    return 0;
}

/* -i, -t, -it or -ti, as docker takes them for run and exec, into o;
 * whether f was one of them. */
static bool terminal_flags(const char *f, struct run_options *o)
{
    if (strcmp(f, "-i") != 0 && strcmp(f, "-t") != 0 &&
        strcmp(f, "-it") != 0 && strcmp(f, "-ti") != 0)
        return false;
    o->interactive |= strchr(f, 'i') != NULL;
    o->tty |= strchr(f, 't') != NULL;
    return true;
}

/* exec [-e VAR[=VALUE]]... [-w DIR] [-u USER[:GROUP]] [-i] [-t] NAME
 * [--] CMD [ARGS...], as docker's: -w a directory the container has, -u
 * looked up in its /etc/passwd, stdin /dev/null without -i. */
static int exec_command(int argc, char **argv)
{
    struct run_options o = {.env = calloc((size_t)argc + 1, sizeof(char *))};
    if (!o.env)
        return fail_errno("calloc"), 125;
    int i = 0;
    for (; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--") != 0; i++) {
        const char *f = argv[i];
        if (terminal_flags(f, &o))
            continue;
        if (strcmp(f, "-e") != 0 && strcmp(f, "-w") != 0 &&
            strcmp(f, "-u") != 0)
            return fail("exec: unknown option '%s' (-e, -w, -u, -i, -t)", f),
                   125;
        if (i + 1 == argc)
            return fail("exec: %s needs a value", f), 125;
        if (run_option(f, argv[++i], &o) < 0)
            return 125;
    }
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    int skip = i + 1 < argc && strcmp(argv[i + 1], "--") == 0;
    if (i + 1 + skip >= argc)
        return fail("exec: expected [OPTIONS] NAME [--] CMD [ARGS...]"), 125;
    return container_exec(argv[i], &o, argv + i + 1 + skip);
}

/* The name of the one pool there is, or NULL when there are none or
 * several (a default pool, as docker's default network). Kept until the
 * command ends. */
static const char *only_pool(void)
{
    int n;
    char **pools = state_list("pools", &n);
    char *name = pools && n == 1 ? strdup(pools[0]) : NULL;
    state_list_free(pools, n);
    return name;
}

/* volume create|ls|rm|prune|inspect [--pool P] [-q] [-f] [NAME...]: a
 * pool's volumes (the only pool's when --pool is left out; ls and prune:
 * every pool's). */
static int volume_command(int argc, char **argv)
{
    const char *verb = argc ? argv[0] : "", *pool = NULL;
    int quiet = 0, force = 0, i = 1, ls = strcmp(verb, "ls") == 0;
    int prune = strcmp(verb, "prune") == 0;
    for (; i < argc && argv[i][0] == '-'; i++)
        if (strcmp(argv[i], "--pool") == 0 && i + 1 < argc)
            pool = argv[++i];
        else if (ls && strcmp(argv[i], "-q") == 0)
            quiet = 1;
        else if (prune && (strcmp(argv[i], "-f") == 0 ||
                           strcmp(argv[i], "--force") == 0))
            force = 1;
        else
            return fail("volume %s: unknown option '%s'", verb, argv[i]);
    int names = argc - i;
    if (!ls && !prune && !pool && !(pool = only_pool()))
        return fail("volume %s needs --pool when there is not exactly one "
                    "pool", verb);
    if (ls && names == 0)
        return volume_list(pool, quiet);
    if (prune && names == 0)
        return volume_prune(pool, force);
    if (strcmp(verb, "create") == 0 && names == 1)
        return volume_create(pool, argv[i]);
    if (strcmp(verb, "inspect") == 0 && names > 0)
        return volume_inspect(pool, argv + i, names);
    if (strcmp(verb, "rm") == 0 && names > 0) {
        for (; i < argc; i++)
            if (volume_remove(pool, argv[i]) < 0)
                return -1;
        return 0;
    }
    return fail("volume: expected create [--pool P] NAME, ls [--pool P] "
                "[-q], rm [--pool P] NAME..., prune [--pool P] [-f] or "
                "inspect [--pool P] NAME...");
}

/* Returns the exit status; 125 for bad options. */
static int run_command(int argc, char **argv)
{
    struct run_options o = {.pids_limit = RUN_PIDS_DEFAULT};
    o.env = calloc((size_t)argc + 1, sizeof *o.env);
    o.volumes = calloc((size_t)argc + 1, sizeof *o.volumes);
    o.ports = calloc(NET_PORTS_MAX, sizeof *o.ports);
    if (!o.env || !o.volumes || !o.ports)
        return fail_errno("calloc"), 125;
    int i;
    for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (argv[i][0] != '-' && !o.image) { /* docker's run ... IMAGE CMD */
            o.image = argv[i];
            break;
        }
        int *flag = strcmp(argv[i], "-d") == 0     ? &o.detach
                    : strcmp(argv[i], "--rm") == 0 ? &o.remove
                    : strcmp(argv[i], "--read-only") == 0 ? &o.read_only
                                                          : NULL;
        if (flag) {
            *flag = 1;
            continue;
        }
        if (terminal_flags(argv[i], &o))
            continue;
        if (i + 1 == argc) {
            fail("run: %s needs a value", argv[i]);
            return 125;
        }
        if (run_option(argv[i], argv[i + 1], &o) < 0)
            return 125;
        i++;
    }
    if (o.tty && o.detach) {
        fail("run: -t with -d is not supported (danaus logs has no terminal)");
        return 125;
    }
    if (o.nports && !o.bridge_network) {
        fail("run: -p publishes a port of --network bridge only");
        return 125;
    }
    if (!o.image) {
        fail("run needs an image (--image I, or IMAGE after the options)");
        return 125;
    }
    if (!o.pool && !(o.pool = only_pool())) {
        fail("run needs --pool when there is not exactly one pool");
        return 125;
    }
    /* After IMAGE or "--": the command, or none (the image's). */
    o.argv = argv + (i < argc ? i + 1 : i);
    return container_run(&o);
}

static int version(void)
{
    printf("danaus %s\n", DANAUS_VERSION);
    return 0;
}

/* inspect [-f|--format TEMPLATE] NAME... */
static int inspect_command(int argc, char **argv)
{
    int f = argc > 0 && (strcmp(argv[0], "-f") == 0 ||
                         strcmp(argv[0], "--format") == 0);
    if (argc < 1 + 2 * f)
        return fail("inspect: expected [-f|--format TEMPLATE] NAME...");
    return inspect_containers(argv + 2 * f, argc - 2 * f,
                              f ? argv[1] : NULL);
}

/* stop or restart [-t SECONDS] NAME */
static int stop_command(const char *cmd, int argc, char **argv)
{
    unsigned long long grace = 0;
    int timed = argc == 3 && strcmp(argv[0], "-t") == 0;
    if (timed && !count_parse(argv[1], STOP_TIMEOUT_MAX, &grace) &&
        strcmp(argv[1], "0") != 0)
        return fail("%s: -t '%s': expected seconds, 0 to %d", cmd, argv[1],
                    STOP_TIMEOUT_MAX);
    if (argc != 1 && !timed)
        return fail("%s: expected [-t SECONDS] NAME", cmd);
    return strcmp(cmd, "restart") == 0
               ? container_restart(argv[argc - 1], timed ? (int)grace : -1)
               : container_stop(argv[argc - 1], timed ? (int)grace : -1);
}

/* The number of the signal abbreviated name ("TERM"), or -1. */
static int signal_number(const char *name)
{
    for (int sig = 1; sig < SIGRTMIN; sig++) {
        const char *abbrev = sigabbrev_np(sig);
        if (abbrev && strcmp(abbrev, name) == 0)
            return sig;
    }
    return -1;
}

/* kill [-s SIGNAL] NAME: SIGKILL by default, as docker's; SIGNAL a name
 * (TERM, SIGTERM) or a number. */
static int kill_command(int argc, char **argv)
{
    int sig = SIGKILL;
    if (argc == 3 && strcmp(argv[0], "-s") == 0) {
        const char *s = argv[1];
        unsigned long long n;
        if (strncmp(s, "SIG", 3) == 0)
            s += 3;
        if (count_parse(s, SIGRTMAX, &n))
            sig = (int)n;
        else if ((sig = signal_number(s)) < 0)
            return fail("kill: -s '%s': not a signal", argv[1]);
    } else if (argc != 1) {
        return fail("kill: expected [-s SIGNAL] NAME");
    }
    return container_kill(argv[argc - 1], sig);
}

/* logs [-f] [--tail N] NAME */
static int logs_command(int argc, char **argv)
{
    int follow = 0;
    long tail = -1;
    int i = 0;
    for (; i < argc - 1; i++) {
        unsigned long long n = 0;
        if (strcmp(argv[i], "-f") == 0 || strcmp(argv[i], "--follow") == 0)
            follow = 1;
        else if (strcmp(argv[i], "--tail") == 0 && i + 2 < argc &&
                 (count_parse(argv[i + 1], LOGS_TAIL_MAX, &n) ||
                  strcmp(argv[i + 1], "0") == 0))
            tail = (long)n, i++;
        else
            return fail("logs: '%s': expected [-f] [--tail N (0 to %d)] NAME",
                        argv[i], LOGS_TAIL_MAX);
    }
    if (i != argc - 1)
        return fail("logs: expected [-f] [--tail N] NAME");
    return container_logs(argv[i], follow, tail);
}

/* cp [-a] [-L] SRC DST (-aL together too, as docker takes them) */
static int cp_command(int argc, char **argv)
{
    unsigned flags = 0;
    int i = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++)
        for (const char *f = argv[i] + 1; *f; f++)
            if (*f == 'a')
                flags |= CP_ARCHIVE;
            else if (*f == 'L')
                flags |= CP_FOLLOW;
            else
                return fail("cp: unknown option '%s' (-a, -L)", argv[i]);
    if (argc - i != 2)
        return fail("cp: expected [-a] [-L] CONTAINER:PATH HOSTPATH|- or "
                    "[-a] [-L] HOSTPATH|- CONTAINER:PATH");
    return container_cp(argv[i], argv[i + 1], flags);
}

static int command(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (strcmp(cmd, "pool") == 0)
        return pool_command(argc - 1, argv + 1);
    /* docker's names for image ls and image rm */
    if (strcmp(cmd, "images") == 0 && argc == 1)
        return image_list();
    if (strcmp(cmd, "rmi") == 0 && argc == 2)
        return image_remove(argv[1]);
    if (strcmp(cmd, "image") == 0)
        return image_command(argc - 1, argv + 1);
    if (strcmp(cmd, "volume") == 0)
        return volume_command(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return run_command(argc - 1, argv + 1);
    if (strcmp(cmd, "exec") == 0)
        return exec_command(argc - 1, argv + 1);
    if (strcmp(cmd, "ps") == 0) {
        int all = 0, quiet = 0;
        const char *format = NULL;
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "-a") == 0)
                all = 1;
            else if (strcmp(argv[i], "-q") == 0)
                quiet = 1;
            else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc)
                format = argv[++i];
            else
                return fail("ps: unknown option '%s' (-a, -q, --format T)",
                            argv[i]);
        return container_list(all, quiet, format);
    }
    if (strcmp(cmd, "stats") == 0 && argc == 3 &&
        strcmp(argv[1], "--hrc") == 0)
        return hrc_show(argv[2]);
    if (strcmp(cmd, "stats") == 0) {
        /* One sample is all stats gives: docker's --no-stream is it. */
        int n = 0;
        for (int i = 1; i < argc; i++)
            if (strcmp(argv[i], "--no-stream") != 0)
                argv[++n] = argv[i];
        return stats_show(argv + 1, n);
    }
    if (strcmp(cmd, "inspect") == 0)
        return inspect_command(argc - 1, argv + 1);
    if (strcmp(cmd, "stop") == 0 || strcmp(cmd, "restart") == 0)
        return stop_command(cmd, argc - 1, argv + 1);
    if (strcmp(cmd, "start") == 0 && argc == 2)
        return container_start(argv[1]);
    if (strcmp(cmd, "top") == 0 && argc == 2)
        return stats_top(argv[1]);
    if (strcmp(cmd, "info") == 0 && argc == 1)
        return info_show(DANAUS_VERSION);
    if (strcmp(cmd, "rm") == 0 && argc == 2)
        return container_remove(argv[1], 0);
    if (strcmp(cmd, "rm") == 0 && argc == 3 && strcmp(argv[1], "-f") == 0)
        return container_remove(argv[2], 1);
    if (strcmp(cmd, "logs") == 0)
        return logs_command(argc - 1, argv + 1);
    if (strcmp(cmd, "kill") == 0)
        return kill_command(argc - 1, argv + 1);
    if (strcmp(cmd, "wait") == 0 && argc == 2)
        return container_wait(argv[1]);
    if (strcmp(cmd, "cp") == 0)
        return cp_command(argc - 1, argv + 1);
    return fail("unknown command '%s' (see danaus --help)", cmd);
}

int main(int argc, char **argv)
{
    const char *state = getenv("DANAUS_STATE");
    int i = 1;
    if (i + 1 < argc && strcmp(argv[i], "--state") == 0) {
        state = argv[i + 1];
        i += 2;
    }
    if (i == argc)
        return usage(stderr);
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
        return usage(stdout);
    if (strcmp(argv[i], "--version") == 0 || strcmp(argv[i], "version") == 0)
        return version();
    if (state_open(state && *state ? state : DEFAULT_STATE) < 0 ||
        state_lock() < 0) {
        fprintf(stderr, "danaus: %s\n", fail_message());
        return 1;
    }
    /* A dead service is noticed (and said) here; the command goes on. */
    pool_check_all();
    int is_run = strcmp(argv[i], "run") == 0 || strcmp(argv[i], "exec") == 0;
    int rc = command(argc - i, argv + i);
    if (fail_message()) {
        fprintf(stderr, "danaus: %s\n", fail_message());
        return is_run ? (rc > 0 ? rc : 125) : 1;
    }
    return is_run ? rc : 0;
}
