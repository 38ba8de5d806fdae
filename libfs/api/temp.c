/*
 * temp.c - unique temporary names on Danaus: danaus_mkstemp and its
 * variants, danaus_mkdtemp.
 *
 * glibc's mkstemp and mkdtemp create through its internal open and mkdir,
 * which no interposer sees, so on a Danaus directory they fail with ENOENT.
 * These make the name as glibc's __gen_tempname does: the six X's before
 * the suffix become random letters and digits, and creation with O_EXCL is
 * retried with a new name while the name exists.
 */
#include "libfs/export.h"

#include <danaus/danaus.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>

/* glibc's TMP_MAX: how many names are tried before giving up (EEXIST). */
#define TEMP_ATTEMPTS (62 * 62 * 62)

static const char name_chars[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

enum temp_kind { TEMP_FILE, TEMP_DIR };

/* Fills the X's with fresh names and creates until one is new. Returns
 * the descriptor (TEMP_FILE), 0 (TEMP_DIR) or -1 with errno; the template
 * is left unchanged when it is invalid (EINVAL). */
static int make_temp(char *tmpl, int suffixlen, int flags,
                     enum temp_kind kind)
{
    size_t len = strlen(tmpl);
    if (suffixlen < 0 || len < 6 + (size_t)suffixlen ||
        memcmp(tmpl + len - 6 - suffixlen, "XXXXXX", 6) != 0) {
        errno = EINVAL;
        return -1;
    }
    char *x = tmpl + len - 6 - suffixlen;
    for (int attempt = 0; attempt < TEMP_ATTEMPTS; attempt++) {
        unsigned char r[6];
        if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
            return -1;
        for (int i = 0; i < 6; i++)
            x[i] = name_chars[r[i] % (sizeof name_chars - 1)];
        int rc = kind == TEMP_DIR
                     ? danaus_mkdir(tmpl, S_IRWXU)
                     : danaus_open(tmpl,
                                   (flags & ~O_ACCMODE) | O_RDWR | O_CREAT |
                                       O_EXCL,
                                   S_IRUSR | S_IWUSR);
        if (rc >= 0 || errno != EEXIST)
            return rc;
    }
    errno = EEXIST;
    return -1;
}

DANAUS_EXPORT int danaus_mkstemp(char *tmpl)
{
    return make_temp(tmpl, 0, 0, TEMP_FILE);
}

DANAUS_EXPORT int danaus_mkostemp(char *tmpl, int flags)
{
    return make_temp(tmpl, 0, flags, TEMP_FILE);
}

DANAUS_EXPORT int danaus_mkstemps(char *tmpl, int suffixlen)
{
    return make_temp(tmpl, suffixlen, 0, TEMP_FILE);
}

DANAUS_EXPORT int danaus_mkostemps(char *tmpl, int suffixlen, int flags)
{
    return make_temp(tmpl, suffixlen, flags, TEMP_FILE);
}

DANAUS_EXPORT char *danaus_mkdtemp(char *tmpl)
{
    return make_temp(tmpl, 0, 0, TEMP_DIR) < 0 ? NULL : tmpl;
}
