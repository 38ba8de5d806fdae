/*
 * init_probe.c - a shared library whose constructor reads a file before
 * main runs: preloaded after libdanaus, it shows that the library works
 * when another library's constructor is its first user.
 *
 * The file is named by PROBE_FILE; its first line is printed to stdout.
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void probe(void)
{
    const char *path = getenv("PROBE_FILE");
    if (!path)
        return;
    FILE *f = fopen(path, "r");
    char line[256] = "";
    if (!f) {
        perror("init_probe: fopen");
        return;
    }
    if (!fgets(line, sizeof line, f))
        perror("init_probe: fgets");
    fclose(f);
    printf("constructor read: %s", line);
    fflush(stdout);
}
