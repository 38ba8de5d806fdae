/*
 * size.c - sizes and counts on the command line (size.h).
 */
#include "size.h"
#include "fail.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int size_parse(const char *what, const char *text, uint64_t *bytes)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)text[0]))
        return fail("%s '%s': not a size (e.g. 512M, 2G)", what, text);
    unsigned long long n = strtoull(text, &end, 10);
    int shift = 0;
    switch (toupper((unsigned char)*end)) {
    case '\0': break;
    case 'K': shift = 10; break;
    case 'M': shift = 20; break;
    case 'G': shift = 30; break;
    case 'T': shift = 40; break;
    default:
        return fail("%s '%s': not a size (e.g. 512M, 2G)", what, text);
    }
    if (*end && end[1] && !(toupper((unsigned char)end[1]) == 'B' && !end[2]))
        return fail("%s '%s': not a size (e.g. 512M, 2G)", what, text);
    if (errno || n == 0 || n > (UINT64_MAX >> shift))
        return fail("%s '%s': out of range", what, text);
    *bytes = (uint64_t)n << shift;
    return 0;
}

bool count_parse(const char *text, unsigned long long max,
                 unsigned long long *out)
{
    char *end;
    errno = 0;
    *out = strtoull(text, &end, 10);
    return !errno && isdigit((unsigned char)text[0]) && !*end && *out != 0 &&
           *out <= max;
}

void size_human(char *out, size_t size, double bytes)
{
    const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (bytes >= 1024 && u < 4)
        bytes /= 1024, u++;
    snprintf(out, size, u ? "%.1f%s" : "%.0f%s", bytes, units[u]);
}

uint64_t size_host_memory(void)
{
    FILE *f = fopen("/proc/meminfo", "re");
    char line[256];
    unsigned long long kib = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return (uint64_t)kib * 1024;
}
