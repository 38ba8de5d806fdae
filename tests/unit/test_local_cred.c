/*
 * test_local_cred.c - the local backend's per-thread identity switch
 * (fsservice/libservice/local/cred.c) against what the kernel reports in
 * /proc/thread-self/status: a thread acts as exactly the last identity it
 * entered, whatever thread created it and whatever it served before, and
 * other threads are untouched. Runs as root.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fsservice/libservice/local/cred.h"

/* What the kernel says of the calling thread. */
struct seen {
    unsigned fsuid, fsgid;
    int ngroups;
    unsigned groups[8];
    unsigned long long cap_eff;
};

static struct seen thread_state(void)
{
    struct seen s;
    memset(&s, 0, sizeof s);
    char text[8192];
    int fd = open("/proc/thread-self/status", O_RDONLY);
    assert_true(fd >= 0);
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    assert_true(n > 0);
    text[n] = '\0';
    unsigned r, e, sv;
    assert_int_equal(sscanf(strstr(text, "\nUid:"), "\nUid: %u %u %u %u", &r,
                            &e, &sv, &s.fsuid), 4);
    assert_int_equal(sscanf(strstr(text, "\nGid:"), "\nGid: %u %u %u %u", &r,
                            &e, &sv, &s.fsgid), 4);
    char *g = strstr(text, "\nGroups:") + strlen("\nGroups:");
    for (char *end; s.ngroups < 8; g = end) {
        unsigned long v = strtoul(g, &end, 10);
        if (end == g)
            break;
        s.groups[s.ngroups++] = (unsigned)v;
    }
    assert_int_equal(sscanf(strstr(text, "\nCapEff:"), "\nCapEff: %llx",
                            &s.cap_eff), 1);
    return s;
}

static const struct ls_cred root_cred = {.uid = 0, .gid = 0};
static const struct ls_cred nobody = {.uid = 65534, .gid = 65534};
static const struct ls_cred user = {
    .uid = 1000, .gid = 1000, .ngroups = 2, .groups = {5555, 6666}};

static unsigned long long full_caps;

static void assert_acts_as(const struct ls_cred *c)
{
    struct seen s = thread_state();
    assert_int_equal(s.fsuid, c->uid);
    assert_int_equal(s.fsgid, c->gid);
    assert_int_equal(s.ngroups, c->ngroups);
    for (int i = 0; i < c->ngroups; i++)
        assert_int_equal(s.groups[i], c->groups[i]);
    assert_true(s.cap_eff ==
                (c->uid == 0 ? full_caps : full_caps & (1ull << CAP_LEASE)));
}

/* Enters each identity in turn on a fresh thread. */
static void *enter_each(void *arg)
{
    const struct ls_cred *const *list = arg;
    for (; *list; list++) {
        assert_int_equal(local_cred_enter(*list), 0);
        assert_acts_as(*list);
    }
    return NULL;
}

static void run_thread(void *(*fn)(void *), void *arg)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fn, arg), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
}

static void test_switches_in_any_order(void **state)
{
    (void)state;
    const struct ls_cred *list[] = {&user,  &root_cred, &nobody, &user,
                                    &nobody, &root_cred, &root_cred, NULL};
    run_thread(enter_each, list);
    /* The main thread never switched and kept root's full state. */
    assert_acts_as(&root_cred);
}

/* A thread created while its creator acts as someone else starts with the
 * creator's identity; each identity must still be entered exactly. */
static void *create_from(void *arg)
{
    const struct ls_cred *creator = arg;
    assert_int_equal(local_cred_enter(creator), 0);
    const struct ls_cred *root_first[] = {&root_cred, &user, NULL};
    const struct ls_cred *user_first[] = {&user, &root_cred, NULL};
    const struct ls_cred *same_first[] = {creator, &root_cred, NULL};
    run_thread(enter_each, root_first);
    run_thread(enter_each, user_first);
    run_thread(enter_each, same_first);
    return NULL;
}

static void test_thread_created_by_other_identity(void **state)
{
    (void)state;
    run_thread(create_from, (void *)&nobody);
    run_thread(create_from, (void *)&user);
    run_thread(create_from, (void *)&root_cred);
}

/* A refused switch leaves the next one exact. */
static void *refused_then_root(void *arg)
{
    (void)arg;
    struct ls_cred bad = user;
    bad.ngroups = DANAUS_MAX_GROUPS + 1;
    assert_int_equal(local_cred_enter(&nobody), 0);
    assert_int_equal(local_cred_enter(&bad), -EINVAL);
    assert_int_equal(local_cred_enter(&root_cred), 0);
    assert_acts_as(&root_cred);
    return NULL;
}

static void test_refused_switch(void **state)
{
    (void)state;
    run_thread(refused_then_root, NULL);
}

int main(void)
{
    if (geteuid() != 0) {
        fprintf(stderr, "test_local_cred: needs root, skipped\n");
        return 77;
    }
    full_caps = thread_state().cap_eff;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_switches_in_any_order),
        cmocka_unit_test(test_thread_created_by_other_identity),
        cmocka_unit_test(test_refused_switch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
