/*
 * json.c - the strict JSON reader (json.h): recursive descent over the
 * grammar, building a tree of values.
 */
#include "json.h"
#include "fail.h"

#include <stdlib.h>
#include <string.h>

struct parser {
    const char *what;
    const char *start, *p, *end;
    int bad; /* a failure is recorded (fail.h) */
};

static int refuse(struct parser *ps, const char *why)
{
    if (!ps->bad)
        fail("%s: not valid JSON: %s at byte %td", ps->what, why,
             ps->p - ps->start);
    ps->bad = 1;
    return -1;
}

static void skip_space(struct parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' ||
                               *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static int hex4(const char *p, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        int v = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (v < 0)
            return -1;
        *out = *out * 16 + (unsigned)v;
    }
    return 0;
}

static size_t put_utf8(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A \uXXXX escape at p (after the backslash and 'u'), with the low half
 * of a surrogate pair after it; the code point, or -1. */
static long unicode_escape(struct parser *ps)
{
    unsigned hi, lo;
    if (ps->end - ps->p < 4 || hex4(ps->p, &hi) < 0)
        return refuse(ps, "bad \\u escape");
    ps->p += 4;
    if (hi >= 0xdc00 && hi <= 0xdfff)
        return refuse(ps, "a lone low surrogate");
    if (hi < 0xd800 || hi > 0xdbff)
        return hi;
    if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' ||
        hex4(ps->p + 2, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff)
        return refuse(ps, "a lone high surrogate");
    ps->p += 6;
    return 0x10000 + ((long)(hi - 0xd800) << 10) + (lo - 0xdc00);
}

/* A string, at its opening quote; malloc'ed, unescaped. */
static char *read_string(struct parser *ps)
{
    ps->p++;
    /* Unescaping never lengthens: \uXXXX (6 bytes) gives at most 3, a
     * pair (12) at most 4. */
    char *s = malloc((size_t)(ps->end - ps->p) + 1);
    size_t n = 0;
    while (s && ps->p < ps->end && *ps->p != '"') {
        unsigned char c = (unsigned char)*ps->p++;
        if (c < 0x20) {
            refuse(ps, "a control character in a string");
            break;
        }
        if (c != '\\') {
            s[n++] = (char)c;
            continue;
        }
        char e = ps->p < ps->end ? *ps->p++ : '\0';
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        long cp;
        if (k) {
            s[n++] = to[k - from];
        } else if (e != 'u') {
            refuse(ps, "a bad escape");
            break;
        } else if ((cp = unicode_escape(ps)) < 0) {
            break;
        } else if (cp == 0) {
            refuse(ps, "\\u0000 in a string");
            break;
        } else {
            n += put_utf8(s + n, (unsigned)cp);
        }
    }
    if (!s || ps->bad || ps->p == ps->end) {
        free(s);
        refuse(ps, "an unterminated string");
        return NULL;
    }
    ps->p++;
    s[n] = '\0';
    return s;
}

/* A number's text, checked against the grammar. */
static char *read_number(struct parser *ps)
{
    const char *start = ps->p, *p = ps->p, *e = ps->end;
#define DIGITS(p) while (p < e && *p >= '0' && *p <= '9') p++
    if (p < e && *p == '-')
        p++;
    if (p < e && *p == '0')
        p++;
    else if (p < e && *p >= '1' && *p <= '9') {
        DIGITS(p);
    } else
        return refuse(ps, "a bad number"), NULL;
    if (p < e && *p == '.') {
        const char *q = ++p;
        DIGITS(p);
        if (p == q)
            return refuse(ps, "a bad number"), NULL;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const char *q = p;
        DIGITS(p);
        if (p == q)
            return refuse(ps, "a bad number"), NULL;
    }
#undef DIGITS
    ps->p = p;
    return strndup(start, (size_t)(p - start));
}

static struct json *value(struct parser *ps, int depth);

/* The items of an array or members of an object, after its bracket. */
static int items(struct parser *ps, struct json *j, int depth)
{
    char close = j->type == JSON_ARRAY ? ']' : '}';
    struct json **tail = &j->first;
    skip_space(ps);
    if (ps->p < ps->end && *ps->p == close) {
        ps->p++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        if (j->type == JSON_OBJECT) {
            skip_space(ps);
            if (ps->p == ps->end || *ps->p != '"')
                return refuse(ps, "an object key is not a string");
            if (!(key = read_string(ps)))
                return -1;
            skip_space(ps);
            if (ps->p == ps->end || *ps->p++ != ':') {
                free(key);
                return refuse(ps, "no ':' after an object key");
            }
        }
        struct json *item = value(ps, depth + 1);
        if (!item) {
            free(key);
            return -1;
        }
        item->key = key;
        *tail = item;
        tail = &item->next;
        skip_space(ps);
        char c = ps->p < ps->end ? *ps->p++ : '\0';
        if (c == close)
            return 0;
        if (c != ',')
            return refuse(ps, "no ',' between items");
    }
}

static struct json *value(struct parser *ps, int depth)
{
    if (depth > JSON_MAX_DEPTH)
        return refuse(ps, "nesting too deep"), NULL;
    skip_space(ps);
    if (ps->p == ps->end)
        return refuse(ps, "a missing value"), NULL;
    struct json *j = calloc(1, sizeof *j);
    if (!j)
        return refuse(ps, "out of memory"), NULL;
    static const char *const words[] = {"null", "true", "false"};
    char c = *ps->p;
    int ok = 1;
    if (c == '"') {
        j->type = JSON_STRING;
        ok = (j->text = read_string(ps)) != NULL;
    } else if (c == '[' || c == '{') {
        j->type = c == '[' ? JSON_ARRAY : JSON_OBJECT;
        ps->p++;
        ok = items(ps, j, depth) == 0;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
        j->type = JSON_NUMBER;
        ok = (j->text = read_number(ps)) != NULL;
    } else {
        ok = 0;
        for (int i = 0; i < 3 && !ok; i++) {
            size_t len = strlen(words[i]);
            if ((size_t)(ps->end - ps->p) >= len &&
                memcmp(ps->p, words[i], len) == 0) {
                j->type = i == 0 ? JSON_NULL : JSON_BOOL;
                j->text = strdup(words[i]);
                ps->p += len;
                ok = 1;
            }
        }
        if (!ok)
            refuse(ps, "an unknown value");
    }
    if (!ok) {
        json_free(j);
        return NULL;
    }
    return j;
}

struct json *json_parse(const char *what, const char *text, size_t len)
{
    struct parser ps = {what, text, text, text + len, 0};
    struct json *j = value(&ps, 0);
    skip_space(&ps);
    if (j && ps.p != ps.end) {
        refuse(&ps, "text after the value");
        json_free(j);
        return NULL;
    }
    return j;
}

void json_free(struct json *j)
{
    while (j) {
        struct json *next = j->next;
        json_free(j->first);
        free(j->text);
        free(j->key);
        free(j);
        j = next;
    }
}

int json_get(const char *what, const struct json *j, const char *key,
             const struct json **out)
{
    *out = NULL;
    if (!j || j->type != JSON_OBJECT)
        return 0;
    for (const struct json *m = j->first; m; m = m->next) {
        if (strcmp(m->key, key) != 0)
            continue;
        if (*out)
            return fail("%s: \"%s\" appears twice", what, key);
        *out = m;
    }
    return 0;
}
