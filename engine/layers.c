/*
 * layers.c - the state directory's content-addressed layer archives
 * (layers.h).
 */
#include "layers.h"
#include "fail.h"
#include "query.h"
#include "state.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The sha256 of the file at path, in hex. 0 or -1 (fail.h). */
static int sha256_of(const char *path, char hex[LAYER_HEX_LEN + 1])
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return fail_errno("cannot open %s", path);
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
    static char buf[1 << 20];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        EVP_DigestUpdate(ctx, buf, (size_t)n);
    unsigned char sum[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    EVP_DigestFinal_ex(ctx, sum, &len);
    EVP_MD_CTX_free(ctx);
    close(fd);
    if (n < 0)
        return fail_errno("cannot read %s", path);
    for (unsigned int i = 0; i < len && 2 * i < LAYER_HEX_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", sum[i]);
    return 0;
}

void layer_archive_path(const char *hex, char *out)
{
    state_path(out, "layers/%s.tar", hex);
}

int layer_store(const char *tar, char hex[LAYER_HEX_LEN + 1])
{
    char dir[STATE_PATH_MAX], to[STATE_PATH_MAX];
    state_path(dir, "layers");
    if (make_dirs(dir, 0700) < 0)
        return fail_errno("cannot create %s", dir);
    if (sha256_of(tar, hex) < 0)
        return -1;
    layer_archive_path(hex, to);
    if (access(to, F_OK) == 0)
        return unlink(tar) < 0 ? fail_errno("cannot remove %s", tar) : 0;
    return rename(tar, to) < 0 ? fail_errno("cannot create %s", to) : 0;
}

static int is_hex(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!strchr("0123456789abcdef", s[i]) || !s[i])
            return 0;
    return 1;
}

/* A record's layers_sha256 into list; -1 when it is not HEX words. */
static int parse_layers(const char *p, struct layer_list *list)
{
    list->n = 0;
    while (*p && list->n < MANIFEST_MAX_LAYERS && is_hex(p, LAYER_HEX_LEN) &&
           (p[LAYER_HEX_LEN] == ' ' || p[LAYER_HEX_LEN] == '\0')) {
        snprintf(list->hex[list->n++], LAYER_HEX_LEN + 1, "%s", p);
        p += LAYER_HEX_LEN + (p[LAYER_HEX_LEN] == ' ');
    }
    return *p ? -1 : 0;
}

int layer_list_of(const struct record *image, const char *name,
                  struct layer_list *list)
{
    const char *p = record_get(image, "layers_sha256");
    if (!p)
        return fail("image '%s' was imported before images shared their "
                    "layers: danaus image rm %s, then import it again",
                    name, name);
    if (parse_layers(p, list) < 0 ||
        list->n != record_num(image, "layers", 0))
        return fail("image '%s': broken record", name);
    return 0;
}

/* Appends the layers image names to *hexes (*used of them). */
static void add_layers_of(const char *image, char ***hexes, int *used)
{
    char path[STATE_PATH_MAX];
    struct record rec;
    struct layer_list list;
    query_image_path(image, path);
    if (record_load(path, &rec) < 0)
        return;
    const char *p = record_get(&rec, "layers_sha256");
    int ok = p && parse_layers(p, &list) == 0;
    record_free(&rec);
    char **more = ok ? realloc(*hexes, sizeof **hexes *
                                           (size_t)(*used + list.n))
                     : NULL;
    if (!more)
        return;
    *hexes = more;
    for (int k = 0; k < list.n; k++)
        (*hexes)[(*used)++] = strdup(list.hex[k]);
}

char **layer_list_in_use(int *count)
{
    int n;
    char **images = state_list("images", &n);
    char **hexes = NULL;
    *count = 0;
    for (int i = 0; i < n; i++)
        add_layers_of(images[i], &hexes, count);
    state_list_free(images, n);
    return hexes;
}

int layer_listed(char **used, int n, const char *hex)
{
    for (int i = 0; i < n; i++)
        if (used[i] && strcmp(used[i], hex) == 0)
            return 1;
    return 0;
}

int layer_collect(void)
{
    int n, used_n, rc = 0;
    char **archives = state_list("layers", &n);
    char **used = layer_list_in_use(&used_n);
    for (int i = 0; i < n; i++) {
        char hex[LAYER_HEX_LEN + 1], path[STATE_PATH_MAX];
        snprintf(hex, sizeof hex, "%s", archives[i]);
        if (layer_listed(used, used_n, hex))
            continue;
        state_path(path, "layers/%s", archives[i]);
        if (unlink(path) < 0 && errno != ENOENT)
            rc = fail_errno("cannot remove %s", path);
    }
    state_list_free(used, used_n);
    state_list_free(archives, n);
    return rc;
}
