/*
 * inspect.c - a container's record as JSON (inspect.h).
 */
#include "inspect.h"
#include "query.h"
#include "service.h"

#include <stdio.h>
#include <string.h>

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(const char *s)
{
    putchar('"');
    for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;
         p++) {
        if (*p == '"' || *p == '\\')
            printf("\\%c", *p);
        else if (*p < 0x20)
            printf("\\u%04x", *p);
        else
            putchar(*p);
    }
    putchar('"');
}

static void field(const char *indent, const char *key, const char *value,
                  const char *end)
{
    printf("%s", indent);
    json_string(key);
    printf(": ");
    json_string(value);
    printf("%s\n", end);
}

int inspect_container(const char *name)
{
    struct record rec;
    if (query_container(name, &rec) < 0)
        return -1;
    const char *status = record_get(&rec, "status");
    int up = status && strcmp(status, "running") == 0 && service_alive(&rec);
    printf("{\n");
    field("  ", "Name", name, ",");
    printf("  \"State\": {\"Status\": \"%s\", \"Running\": %s, \"Pid\": %lld, "
           "\"ExitCode\": %lld},\n",
           up ? "running" : status && strcmp(status, "created") == 0
                                ? "created"
                                : "exited",
           up ? "true" : "false", up ? record_num(&rec, "pid", 0) : 0,
           up ? 0 : record_num(&rec, "exit", -1));
    field("  ", "Pool", record_get(&rec, "pool"), ",");
    field("  ", "Image", record_get(&rec, "image"), ",");
    field("  ", "Command", record_get(&rec, "command"), ",");
    printf("  \"ReadonlyRootfs\": %s,\n",
           record_num(&rec, "read_only", 0) ? "true" : "false");
    printf("  \"Record\": {\n");
    for (int i = 0; i < rec.n; i++)
        field("    ", rec.key[i], rec.val[i], i + 1 < rec.n ? "," : "");
    printf("  }\n}\n");
    record_free(&rec);
    return 0;
}
