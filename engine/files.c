/*
 * files.c - whole-file reads and copies for image import (files.h).
 */
#include "files.h"
#include "fail.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

char *file_read_small(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fail_errno("cannot read %s", path);
        return NULL;
    }
    char *text = calloc(1, 1 << 20);
    size_t n = fread(text, 1, (1 << 20) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

int file_copy(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return fail_errno("cannot open %s", from);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) {
        close(in);
        return fail_errno("cannot create %s", to);
    }
    ssize_t n;
    while ((n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0)) > 0)
        ;
    int rc = n < 0 ? fail_errno("cannot copy %s", from) : 0;
    close(in);
    close(out);
    return rc;
}
