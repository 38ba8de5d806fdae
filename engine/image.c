/*
 * image.c - image import, ls, rm (image.h).
 *
 * Whatever the source, an image becomes layer-0.tar .. layer-N.tar,
 * bottom first, which go to the layer store (layers.h) and are named in
 * the record images/NAME/image: a root directory is archived as one layer, a
 * root file-system tarball is one layer as it is (tar reads its
 * compression), a `docker save` (or `podman save`) archive gives its layers
 * in manifest order, an OCI image layout (a directory, or `podman save
 * --format oci-archive`) those of its first image (oci.h).
 * OCI whiteouts (.wh.NAME, .wh..wh..opq) stay in the layers as files: the
 * union reads them. The import is built in a hidden directory and renamed
 * into place, and the store keeps only archives that images name, so a
 * failed import leaves nothing.
 */
#include "image.h"
#include "fail.h"
#include "files.h"
#include "image_config.h"
#include "json.h"
#include "layers.h"
#include "manifest.h"
#include "oci.h"
#include "program.h"
#include "query.h"
#include "record.h"
#include "state.h"
#include "store.h"

#include <errno.h>
#include <ftw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int tar(const char *what, const char *const argv[])
{
    return program_run(what, argv, -1, NULL, NULL);
}

/* The archive's member list into a temporary file; its text, malloc'ed. */
static char *list_archive(const char *path)
{
    char tmp[] = "/tmp/danaus-list.XXXXXX";
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fail_errno("mkstemp");
        return NULL;
    }
    unlink(tmp);
    const char *const argv[] = {"tar", "-tf", (char *)path, NULL};
    char what[STATE_PATH_MAX + 32];
    snprintf(what, sizeof what, "image source %.4000s", path);
    char *text = NULL;
    if (program_run(what, argv, fd, NULL, NULL) == 0) {
        off_t len = lseek(fd, 0, SEEK_END);
        text = calloc(1, (size_t)len + 1);
        if (pread(fd, text, (size_t)len, 0) != len) {
            free(text);
            text = NULL;
            fail_errno("cannot read the list of %s", path);
        }
    }
    close(fd);
    return text;
}

static int has_member(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (n >= 2 && p[0] == '.' && p[1] == '/') {
            p += 2;
            n -= 2;
        }
        if (n == len && memcmp(p, name, len) == 0)
            return 1;
        if (!nl)
            break;
        p = nl + 1;
    }
    return 0;
}

/* A layer that docker (25 on) keeps as blobs/sha256/HEX: its name is its
 * digest, in *digest; NULL for older names (HEX/layer.tar, podman's). */
static const char *digest_in_name(const char *name, char *digest, size_t size)
{
    const char *hex = strncmp(name, "blobs/sha256/", 13) == 0 ? name + 13 : "";
    snprintf(digest, size, "sha256:%s", hex);
    return manifest_digest_ok(digest) ? digest : NULL;
}

/* manifest.json's first image's "Config", the member holding its
 * configuration: malloc'ed in *name, NULL when absent. 0 or -1 (fail.h). */
static int docker_config_name(const char *text, char **name)
{
    *name = NULL;
    struct json *top = json_parse("manifest.json", text, strlen(text));
    const struct json *config = NULL;
    int rc = !top ? -1
             : top->type != JSON_ARRAY
                 ? fail("manifest.json: not a list of images")
                 : json_get("manifest.json", top->first, "Config", &config);
    if (rc == 0 && config && config->type != JSON_STRING)
        rc = fail("manifest.json: \"Config\" is not a string");
    else if (rc == 0 && config &&
             (config->text[0] == '/' || strstr(config->text, "..")))
        rc = fail("manifest.json: config path '%s' leaves the archive",
                  config->text);
    else if (rc == 0 && config)
        *name = strdup(config->text);
    json_free(top);
    return rc;
}

/* The image configuration that member name of the archive holds, unpacked
 * alone into x (xfd): malloc'ed, or NULL (fail.h). */
static char *docker_config(const char *src, const char *x, int xfd,
                           const char *name)
{
    const char *const one[] = {"tar", "-xf", (char *)src, "-C", (char *)x,
                         (char *)name, NULL};
    char digest[80];
    struct member m = {"docker archive config", name,
                       digest_in_name(name, digest, sizeof digest), -1};
    return tar("docker archive", one) < 0 ? NULL : file_read_member(xfd, &m);
}

/* docker save: manifest.json names the layer archives and the
 * configuration. Each is unpacked alone from the archive, then read as a
 * member (files.h). */
static int import_docker(const char *src, const char *dir, char **config)
{
    char x[STATE_PATH_MAX], to[STATE_PATH_MAX];
    snprintf(x, sizeof x, "%.4000s/x", dir);
    if (mkdir(x, 0700) < 0)
        return fail_errno("cannot create %s", x);
    int xfd = open(x, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (xfd < 0) {
        fail_errno("cannot open %s", x);
        remove_tree(x);
        return -1;
    }
    const char *const get[] = {"tar", "-xf", (char *)src, "-C", x,
                         "manifest.json", NULL};
    struct member manifest = {"docker archive", "manifest.json", NULL, -1};
    char *text = tar("docker archive", get) < 0
                     ? NULL
                     : file_read_member(xfd, &manifest);
    char *layers[MANIFEST_MAX_LAYERS], *config_name = NULL;
    int n = text ? manifest_layers(text, layers) : -1;
    if (n >= 0 && docker_config_name(text, &config_name) < 0) {
        while (n)
            free(layers[--n]);
        n = -1;
    }
    free(text);
    int rc = n < 0 ? -1 : 0;
    if (config_name && !(*config = docker_config(src, x, xfd, config_name)))
        rc = -1;
    free(config_name);
    for (int i = 0; i < n && rc == 0; i++) {
        if (layers[i][0] == '/' || strstr(layers[i], "..")) {
            rc = fail("manifest.json: layer path '%s' leaves the archive",
                      layers[i]);
            break;
        }
        const char *const one[] = {"tar", "-xf", (char *)src, "-C", x, layers[i],
                             NULL};
        char what[64], digest[80];
        snprintf(what, sizeof what, "docker archive layer %d", i + 1);
        snprintf(to, sizeof to, "%.4000s/layer-%d.tar", dir, i);
        struct member m = {what, layers[i],
                           digest_in_name(layers[i], digest, sizeof digest),
                           -1};
        rc = tar("docker archive", one) < 0 ? -1
                                             : file_copy_member(xfd, &m, to);
    }
    for (int i = 0; i < n; i++)
        free(layers[i]);
    close(xfd);
    remove_tree(x);
    return rc < 0 ? -1 : n;
}

/* podman save --format oci-archive: an OCI layout in a tar archive. */
static int import_oci_archive(const char *src, const char *dir,
                              char **config)
{
    char x[STATE_PATH_MAX];
    snprintf(x, sizeof x, "%.4000s/x", dir);
    if (mkdir(x, 0700) < 0)
        return fail_errno("cannot create %s", x);
    const char *const all[] = {"tar", "-xf", (char *)src, "-C", x, NULL};
    int n = tar("oci archive", all) < 0 ? -1 : oci_import(x, dir, config);
    remove_tree(x);
    return n;
}

/* Sockets under a directory being imported: a tar layer cannot hold them
 * (tar leaves them out), so they are counted and said, not lost silently. */
static int sockets_seen;
static char first_socket[STATE_PATH_MAX];

static int count_socket(const char *path, const struct stat *st, int type,
                        struct FTW *ftw)
{
    (void)type;
    (void)ftw;
    if (S_ISSOCK(st->st_mode) && sockets_seen++ == 0)
        snprintf(first_socket, sizeof first_socket, "%s", path);
    return 0;
}

static void say_sockets(const char *src)
{
    sockets_seen = 0;
    nftw(src, count_socket, 16, FTW_PHYS);
    if (sockets_seen)
        fprintf(stderr, "danaus: image source %s: %d socket%s left out, as a "
                        "tar layer cannot hold them (first: %s)\n",
                src, sockets_seen, sockets_seen == 1 ? "" : "s",
                first_socket);
}

/* Fills dir with the layers of src; returns their count or -1. An image
 * configuration found in *config (malloc'ed; NULL for none). */
static int import_layers(const char *src, const char *dir, const char **kind,
                         char **config)
{
    struct stat st;
    char layer[STATE_PATH_MAX];
    snprintf(layer, sizeof layer, "%.4000s/layer-0.tar", dir);
    if (stat(src, &st) < 0)
        return fail_errno("image source %s", src);
    char layout[STATE_PATH_MAX];
    snprintf(layout, sizeof layout, "%.4000s/oci-layout", src);
    if (S_ISDIR(st.st_mode) && access(layout, F_OK) == 0) {
        *kind = "oci-layout";
        return oci_import(src, dir, config);
    }
    if (S_ISDIR(st.st_mode)) {
        *kind = "directory";
        say_sockets(src);
        const char *const argv[] = {"tar", "-C", (char *)src, "--numeric-owner",
                              "--xattrs", "--xattrs-include=*", "-S",
                              "-cf", layer, ".", NULL};
        return tar("image source", argv) < 0 ? -1 : 1;
    }
    if (!S_ISREG(st.st_mode))
        return fail("image source %s: not a directory or a tar archive", src);
    char *list = list_archive(src);
    if (!list) {
        fail_clear();
        return fail("image source %s: not a directory or a tar archive", src);
    }
    int docker = has_member(list, "manifest.json");
    int oci = has_member(list, "oci-layout") && has_member(list, "index.json");
    free(list);
    if (docker) {
        *kind = "docker-save";
        return import_docker(src, dir, config);
    }
    if (oci) {
        *kind = "oci-archive";
        return import_oci_archive(src, dir, config);
    }
    *kind = "rootfs-tarball";
    return file_copy(src, layer) < 0 ? -1 : 1;
}

/* Moves dir/layer-0.tar .. layer-(n-1).tar into the layer store
 * (layers.h) and names them in rec, bottom first. 0 or -1 (fail.h). */
static int store_layers(const char *dir, int n, struct record *rec)
{
    char list[MANIFEST_MAX_LAYERS * (LAYER_HEX_LEN + 1) + 1] = "";
    for (int i = 0; i < n; i++) {
        char layer[STATE_PATH_MAX], hex[LAYER_HEX_LEN + 1];
        snprintf(layer, sizeof layer, "%.4000s/layer-%d.tar", dir, i);
        if (layer_store(layer, hex) < 0)
            return -1;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i ? " " : "", hex);
    }
    record_set(rec, "layers_sha256", "%s", list);
    return 0;
}

/* A layer's uncompressed size may be at most this many times its own (far
 * above what file systems compress to), at least the floor (a small layer
 * of zeros), at most the cap; --max-layer-size sets a size instead. */
#define EXPANSION_RATIO 100
#define EXPANSION_FLOOR (64ull << 20)
#define EXPANSION_CAP (16ull << 30)

/* The program that decompresses a layer, by the first bytes of the
 * formats GNU tar recognises when it reads one; NULL for a plain tar. */
static const char *decompressor(const unsigned char *b, size_t n)
{
    static const struct {
        const char *magic;
        size_t len;
        const char *program;
    } formats[] = {
        {"\x1f\x8b", 2, "gzip"},   {"\x1f\x9d", 2, "gzip"}, /* compress */
        {"BZh", 3, "bzip2"},       {"LZIP", 4, "lzip"},
        {"\x89LZO", 4, "lzop"},    {"\xfd" "7zXZ", 5, "xz"},
        {"\x28\xb5\x2f\xfd", 4, "zstd"}, {"\x5d\0\0", 3, "lzma"},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (n >= formats[i].len &&
            memcmp(b, formats[i].magic, formats[i].len) == 0)
            return formats[i].program;
    return NULL;
}

struct expansion {
    const char *what;
    unsigned long long limit, total;
};

/* Counts the decompressed bytes, refusing past the limit. */
static int count_until_limit(int fd, void *arg)
{
    struct expansion *e = arg;
    static char buf[1 << 16];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        if ((e->total += (unsigned long long)n) > e->limit)
            return fail("%s: unpacks to more than %llu MiB (the "
                        "decompression limit; --max-layer-size SIZE sets "
                        "another)", e->what, e->limit >> 20);
    return n < 0 ? fail_errno("%s: cannot decompress", e->what) : 0;
}

/* Layer i (dir/layer-i.tar) must not unpack to more than max bytes (0:
 * the default limit): a gzip bomb is stopped here, before it reaches a
 * pool's backend. 0 or -1 (fail.h). */
static int check_expansion(const char *dir, int i, unsigned long long max)
{
    char layer[STATE_PATH_MAX], what[32];
    snprintf(layer, sizeof layer, "%.4000s/layer-%d.tar", dir, i);
    snprintf(what, sizeof what, "layer %d", i + 1);
    unsigned char head[8];
    int fd = open(layer, O_RDONLY | O_CLOEXEC);
    struct stat st;
    ssize_t n = fd < 0 || fstat(fd, &st) < 0 ? -1 : read(fd, head, sizeof head);
    if (fd >= 0)
        close(fd);
    if (n < 0)
        return fail_errno("cannot read %s", layer);
    const char *program = decompressor(head, (size_t)n);
    if (!program)
        return 0;
    struct expansion e = {what, max, 0};
    if (!max) {
        e.limit = (unsigned long long)st.st_size * EXPANSION_RATIO;
        e.limit = e.limit < EXPANSION_FLOOR ? EXPANSION_FLOOR
                  : e.limit > EXPANSION_CAP ? EXPANSION_CAP
                                            : e.limit;
    }
    const char *const argv[] = {(char *)program, "-dc", layer, NULL};
    return program_read(what, argv, count_until_limit, &e);
}

int image_import(const char *name, const char *path,
                 unsigned long long max_layer_size)
{
    char dir[STATE_PATH_MAX], tmp[STATE_PATH_MAX], rec_path[STATE_PATH_MAX];
    if (state_check_name("image", name) < 0)
        return -1;
    state_path(dir, "images/%s", name);
    state_path(tmp, "images/.%s.importing", name);
    if (access(dir, F_OK) == 0)
        return fail("image '%s' already exists", name);
    remove_tree(tmp);
    if (mkdir(tmp, 0700) < 0)
        return fail_errno("cannot create %s", tmp);
    const char *kind = "";
    char *config = NULL;
    int n = import_layers(path, tmp, &kind, &config);
    for (int i = 0; i < n; i++)
        if (check_expansion(tmp, i, max_layer_size) < 0)
            n = -1;
    struct record rec = {0};
    if (n > 0 && store_layers(tmp, n, &rec) < 0)
        n = -1;
    int rc = -1;
    unsigned char r[8];
    if (n > 0 && getrandom(r, sizeof r, 0) != sizeof r)
        n = fail_errno("getrandom");
    if (n > 0) {
        char abs[STATE_PATH_MAX];
        record_set(&rec, "layers", "%d", n);
        record_set(&rec, "id", "%s.%02x%02x%02x%02x%02x%02x%02x%02x", name,
                   r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
        record_set(&rec, "kind", "%s", kind);
        record_set(&rec, "source", "%s",
                   realpath(path, abs) ? abs : path);
        snprintf(rec_path, sizeof rec_path, "%.4000s/image", tmp);
        if (config && image_config_import(config, strlen(config), &rec) < 0)
            rc = -1;
        else if (record_save(rec_path, &rec) < 0)
            fail_errno("cannot save %s", rec_path);
        else if (rename(tmp, dir) < 0)
            fail_errno("cannot create %s", dir);
        else
            rc = 0;
    }
    record_free(&rec);
    free(config);
    if (rc < 0)
        remove_tree(tmp);
    if (layer_collect() < 0 && rc == 0)
        rc = -1;
    return rc;
}

int image_list(void)
{
    int n;
    char **images = state_list("images", &n);
    printf("%-20s %-7s %-15s %s\n", "IMAGE", "LAYERS", "KIND", "SOURCE");
    for (int i = 0; i < n; i++) {
        char path[STATE_PATH_MAX];
        struct record rec;
        query_image_path(images[i], path);
        if (record_load(path, &rec) < 0)
            continue;
        printf("%-20s %-7lld %-15s %s\n", images[i],
               record_num(&rec, "layers", 0), record_get(&rec, "kind"),
               record_get(&rec, "source"));
        record_free(&rec);
    }
    state_list_free(images, n);
    return 0;
}

int image_remove(const char *name)
{
    struct record rec;
    if (query_image(name, &rec) < 0)
        return -1;
    char users[1024];
    int rc = 0;
    if (query_container_users("image", name, users, sizeof users))
        rc = fail("image '%s' is used by containers: %s (rm them first)",
                  name, users);
    else if (!record_get(&rec, "layers_sha256"))
        rc = store_unpublish_everywhere(query_image_id(&rec, name));
    record_free(&rec);
    if (rc < 0)
        return -1;
    char dir[STATE_PATH_MAX];
    state_path(dir, "images/%s", name);
    if (remove_tree(dir) < 0)
        return fail_errno("cannot remove %s", dir);
    /* The pools' copies of layers no image names go now, or once the
     * danausd that may hold them open is gone (store.h). */
    return layer_collect() < 0 || store_sweep_everywhere() < 0 ? -1 : 0;
}
