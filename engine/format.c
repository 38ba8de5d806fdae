/*
 * format.c - ps --format templates (format.h). A template is text with
 * {{.Field}} placeholders (spaces inside the braces allowed); anything
 * else is printed as it is, but the escapes \t and \n.
 */
#include "format.h"
#include "fail.h"

#include <stdio.h>
#include <string.h>

#define FIELDS "Names, Pool, Image, Status, Pid, Command, ReadOnly"

/* A placeholder's inside (between "{{" and "}}", len bytes), spaces
 * around it dropped: ".Path" gives path, len set to its length. */
static const char *field_path(const char *in, size_t *len)
{
    while (*len && *in == ' ')
        in++, (*len)--;
    while (*len && in[*len - 1] == ' ')
        (*len)--;
    if (*len < 2 || in[0] != '.')
        return NULL;
    (*len)--;
    return in + 1;
}

/* The ps field named path (len bytes), written to out; -1 for none. */
static int row_field(const char *in, size_t len, const void *arg, char *out,
                     size_t cap)
{
    const struct ps_row *row = arg;
#define IS(name) (len == strlen(name) && strncmp(in, name, len) == 0)
    if (IS("Names") || IS("Name"))
        snprintf(out, cap, "%s", row->name);
    else if (IS("Pool"))
        snprintf(out, cap, "%s", row->pool);
    else if (IS("Image"))
        snprintf(out, cap, "%s", row->image);
    else if (IS("Status"))
        snprintf(out, cap, "%s", row->status);
    else if (IS("Pid"))
        snprintf(out, cap, "%lld", row->pid);
    else if (IS("Command"))
        snprintf(out, cap, "%s", row->command);
    else if (IS("ReadOnly"))
        snprintf(out, cap, "%s", row->read_only ? "true" : "false");
    else
        return -1;
#undef IS
    return 0;
}

int format_fields(const char *template, format_field_fn *value,
                  const void *arg, FILE *out, char *bad, size_t badcap)
{
    char text[4096];
    for (const char *p = template; *p;) {
        if (p[0] == '\\' && (p[1] == 't' || p[1] == 'n')) {
            if (out)
                fputc(p[1] == 't' ? '\t' : '\n', out);
            p += 2;
            continue;
        }
        if (strncmp(p, "{{", 2) != 0) {
            if (out)
                fputc(*p, out);
            p++;
            continue;
        }
        const char *end = strstr(p + 2, "}}");
        size_t len = end ? (size_t)(end - p - 2) : strlen(p + 2);
        const char *path = end ? field_path(p + 2, &len) : NULL;
        if (!path || value(path, len, arg, text, sizeof text) < 0) {
            len = end ? (size_t)(end - p - 2) : strlen(p + 2);
            snprintf(bad, badcap, "%.*s", (int)(end ? len + 4 : len + 2), p);
            return -1;
        }
        if (out)
            fputs(text, out);
        p = end + 2;
    }
    return 0;
}

int format_check(const char *template)
{
    static const struct ps_row blank = {"", "", "", "", "", 0, 0};
    char bad[256];
    if (format_fields(template, row_field, &blank, NULL, bad, sizeof bad) < 0)
        return fail("ps --format: '%s' is not a field (" FIELDS ")", bad);
    return 0;
}

void format_print(const char *template, const struct ps_row *row)
{
    char bad[256];
    format_fields(template, row_field, row, stdout, bad, sizeof bad);
    putchar('\n');
}
