/*
 * main.c - the `danaus` command: tenant pools, images and containers on
 * Danaus file-system services.
 *
 *   danaus [--state DIR] pool create NAME --cpus LIST --memory SIZE
 *                              --backend local:DIR|ceph:CONF:DIR [--cache SIZE]
 *   danaus pool ls | pool rm NAME
 *   danaus image import NAME PATH | image ls | image rm NAME
 *   danaus run --pool P --image I [--name N] [-e VAR=VALUE]... [-d] [--rm]
 *                              -- CMD...
 *   danaus ps [-a] | stop NAME | rm [-f] NAME | logs NAME
 *
 * Every command takes the state directory's lock, and first restarts the
 * danausd of any pool whose service died. Errors are one line on stderr
 * and a non-zero exit (1; run uses 125-127 as docker does).
 */
#include "container.h"
#include "fail.h"
#include "image.h"
#include "pool.h"
#include "state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_STATE "/var/lib/danaus"

static int usage(void)
{
    fprintf(stderr,
            "usage: danaus [--state DIR] COMMAND\n"
            "  pool create NAME --cpus LIST --memory SIZE "
            "--backend local:DIR|ceph:CONF:DIR [--cache SIZE]\n"
            "  pool ls | pool rm NAME\n"
            "  image import NAME PATH | image ls | image rm NAME\n"
            "  run --pool P --image I [--name N] [-e VAR=VALUE]... [-d] [--rm] "
            "-- CMD [ARGS...]\n"
            "  ps [-a] | stop NAME | rm [-f] NAME | logs NAME\n");
    return 2;
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
        const char **slot = strcmp(argv[i], "--cpus") == 0      ? &o.cpus
                            : strcmp(argv[i], "--memory") == 0  ? &o.memory
                            : strcmp(argv[i], "--backend") == 0 ? &o.backend
                            : strcmp(argv[i], "--cache") == 0   ? &o.cache
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
    if (argc == 3 && strcmp(argv[0], "import") == 0)
        return image_import(argv[1], argv[2]);
    if (argc == 1 && strcmp(argv[0], "ls") == 0)
        return image_list();
    if (argc == 2 && strcmp(argv[0], "rm") == 0)
        return image_remove(argv[1]);
    return fail("image: expected import NAME PATH, ls or rm NAME");
}

/* Returns the exit status; 125 for bad options. */
static int run_command(int argc, char **argv)
{
    struct run_options o = {0};
    o.env = calloc((size_t)argc + 1, sizeof *o.env);
    int i;
    for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "--rm") == 0) {
            *(argv[i][1] == 'd' ? &o.detach : &o.remove) = 1;
            continue;
        }
        const char **slot = strcmp(argv[i], "--pool") == 0    ? &o.pool
                            : strcmp(argv[i], "--image") == 0 ? &o.image
                            : strcmp(argv[i], "--name") == 0  ? &o.name
                                                              : NULL;
        int is_env = strcmp(argv[i], "-e") == 0;
        if (!slot && !is_env) {
            fail("run: unknown option '%s' (the command follows --)",
                 argv[i]);
            return 125;
        }
        if (i + 1 == argc) {
            fail("run: %s needs a value", argv[i]);
            return 125;
        }
        if (is_env) {
            if (!strchr(argv[i + 1], '=') || argv[i + 1][0] == '=') {
                fail("run: -e '%s': expected VAR=VALUE", argv[i + 1]);
                return 125;
            }
            o.env[o.nenv++] = argv[++i];
        } else {
            *slot = argv[++i];
        }
    }
    if (!o.pool || !o.image) {
        fail("run needs --pool and --image");
        return 125;
    }
    if (i + 1 >= argc) {
        fail("run: no command given (danaus run ... -- CMD [ARGS...])");
        return 125;
    }
    o.argv = argv + i + 1;
    return container_run(&o);
}

static int command(int argc, char **argv)
{
    const char *cmd = argv[0];
    if (strcmp(cmd, "pool") == 0)
        return pool_command(argc - 1, argv + 1);
    if (strcmp(cmd, "image") == 0)
        return image_command(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return run_command(argc - 1, argv + 1);
    if (strcmp(cmd, "ps") == 0 && argc <= 2)
        return container_list(argc == 2 && strcmp(argv[1], "-a") == 0);
    if (strcmp(cmd, "stop") == 0 && argc == 2)
        return container_stop(argv[1]);
    if (strcmp(cmd, "rm") == 0 && argc == 2)
        return container_remove(argv[1], 0);
    if (strcmp(cmd, "rm") == 0 && argc == 3 && strcmp(argv[1], "-f") == 0)
        return container_remove(argv[2], 1);
    if (strcmp(cmd, "logs") == 0 && argc == 2)
        return container_logs(argv[1]);
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
    if (i == argc || strcmp(argv[i], "--help") == 0 ||
        strcmp(argv[i], "-h") == 0)
        return usage();
    if (state_open(state && *state ? state : DEFAULT_STATE) < 0 ||
        state_lock() < 0) {
        fprintf(stderr, "danaus: %s\n", fail_message());
        return 1;
    }
    /* A dead service is noticed (and said) here; the command goes on. */
    pool_check_all();
    int is_run = strcmp(argv[i], "run") == 0;
    int rc = command(argc - i, argv + i);
    if (fail_message()) {
        fprintf(stderr, "danaus: %s\n", fail_message());
        return is_run ? (rc > 0 ? rc : 125) : 1;
    }
    return is_run ? rc : 0;
}
