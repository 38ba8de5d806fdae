/*
 * hello_burst.c - hellos on many connections at once, as programs
 * starting together send them (or an attacker does): every hello is sent
 * before the first answer is read. Prints "attached K of N"; exit 0 when
 * every hello was answered with a client.
 *
 *   hello_burst SOCKET N      (N at most 16, a process's bound: door.c)
 */
#include "raw_client.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MOST 16

int main(int argc, char **argv)
{
    int n = argc == 3 ? atoi(argv[2]) : 0;
    if (n < 1 || n > MOST) {
        fprintf(stderr, "usage: hello_burst SOCKET N (1 to %d)\n", MOST);
        return 2;
    }
    struct raw r[MOST];
    for (int i = 0; i < n; i++) {
        int rc = raw_connect(&r[i], argv[1]);
        if (rc < 0) {
            fprintf(stderr, "hello_burst: connect: %s\n", strerror(-rc));
            return 1;
        }
    }
    for (int i = 0; i < n; i++)
        if (raw_hello_send(&r[i]) < 0)
            fprintf(stderr, "hello_burst: hello %d not sent\n", i);
    int attached = 0;
    for (int i = 0; i < n; i++) {
        int rc = raw_hello_take(&r[i]);
        if (rc == 0)
            attached++;
        else
            fprintf(stderr, "hello_burst: hello %d: %s\n", i, strerror(-rc));
    }
    printf("attached %d of %d\n", attached, n);
    for (int i = 0; i < n; i++)
        raw_detach(&r[i]);
    return attached == n ? 0 : 1;
}
