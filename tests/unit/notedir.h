/*
 * notedir.h - a temporary directory for the unit tests of the notes pools
 * leave one another (pressure, fair shares), made before and removed after
 * a group of tests (cmocka group setup and teardown).
 */
#ifndef DANAUS_TEST_NOTEDIR_H
#define DANAUS_TEST_NOTEDIR_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char notedir[64];

static int notedir_make(void **state)
{
    (void)state;
    strcpy(notedir, "/tmp/danaus-notes.XXXXXX");
    return mkdtemp(notedir) ? 0 : -1;
}

static int notedir_remove(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", notedir);
    return system(cmd);
}

#endif
