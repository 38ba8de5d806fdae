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

/* The field a placeholder's inside (between "{{" and "}}", len bytes)
 * names, written to out; -1 when it names none. */
static int field(const char *in, size_t len, const struct ps_row *row,
                 char *out, size_t cap)
{
    while (len && *in == ' ')
        in++, len--;
    while (len && in[len - 1] == ' ')
        len--;
    if (len < 2 || in[0] != '.')
        return -1;
    in++, len--;
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

/* Walks template, printing through row when it is not NULL. 0, or -1 at
 * the first bad placeholder (its text in bad). */
static int walk(const char *template, const struct ps_row *row, char *bad,
                size_t badcap)
{
    static const struct ps_row blank = {"", "", "", "", "", 0, 0};
    char value[4096];
    for (const char *p = template; *p;) {
        if (p[0] == '\\' && (p[1] == 't' || p[1] == 'n')) {
            if (row)
                putchar(p[1] == 't' ? '\t' : '\n');
            p += 2;
            continue;
        }
        if (strncmp(p, "{{", 2) != 0) {
            if (row)
                putchar(*p);
            p++;
            continue;
        }
        const char *end = strstr(p + 2, "}}");
        size_t len = end ? (size_t)(end - p - 2) : strlen(p + 2);
        if (!end ||
            field(p + 2, len, row ? row : &blank, value, sizeof value) < 0) {
            snprintf(bad, badcap, "%.*s", (int)(end ? len + 4 : len + 2), p);
            return -1;
        }
        if (row)
            fputs(value, stdout);
        p = end + 2;
    }
    return 0;
}

int format_check(const char *template)
{
    char bad[256];
    if (walk(template, NULL, bad, sizeof bad) < 0)
        return fail("ps --format: '%s' is not a field (" FIELDS ")", bad);
    return 0;
}

void format_print(const char *template, const struct ps_row *row)
{
    char bad[256];
    walk(template, row, bad, sizeof bad);
    putchar('\n');
}
