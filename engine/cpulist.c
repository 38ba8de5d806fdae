/*
 * cpulist.c - cpu list parsing and printing (cpulist.h).
 */
#include "cpulist.h"
#include "fail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int number(const char **p, long *out)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    char *end;
    *out = strtol(*p, &end, 10);
    *p = end;
    return *out < CPU_SETSIZE ? 0 : -1;
}

int cpulist_parse(const char *text, cpu_set_t *set)
{
    CPU_ZERO(set);
    const char *p = text;
    while (*p) {
        long lo, hi;
        if (number(&p, &lo) < 0)
            return fail("cpu list '%s': expected a cpu number", text);
        hi = lo;
        if (*p == '-') {
            p++;
            if (number(&p, &hi) < 0 || hi < lo)
                return fail("cpu list '%s': bad range", text);
        }
        for (long c = lo; c <= hi; c++)
            CPU_SET((int)c, set);
        if (*p == ',')
            p++;
        else if (*p)
            return fail("cpu list '%s': unexpected '%c'", text, *p);
    }
    if (CPU_COUNT(set) == 0)
        return fail("cpu list '%s' is empty", text);
    return 0;
}

void cpulist_format(const cpu_set_t *set, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int c = 0; c < CPU_SETSIZE; c++) {
        if (!CPU_ISSET(c, set))
            continue;
        int hi = c;
        while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
            hi++;
        int n = hi == c ? snprintf(out + used, size - used, "%s%d",
                                   used ? "," : "", c)
                        : snprintf(out + used, size - used, "%s%d-%d",
                                   used ? "," : "", c, hi);
        if (n < 0 || (size_t)n >= size - used)
            return;
        used += (size_t)n;
        c = hi;
    }
}

int cpulist_online(cpu_set_t *set)
{
    FILE *f = fopen("/sys/devices/system/cpu/online", "re");
    char line[1024];
    if (!f)
        return fail_errno("cannot read /sys/devices/system/cpu/online");
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return fail("cannot read /sys/devices/system/cpu/online");
    line[strcspn(line, "\n")] = '\0';
    return cpulist_parse(line, set);
}
