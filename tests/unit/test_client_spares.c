/*
 * test_client_spares.c - the spares thread (client.h): the door takes
 * clients made ahead, and waits for the next when it takes them faster;
 * clients it detaches are ended (their slots back in their uid's share)
 * without it, and the thread recovers when a client cannot be made.
 */
#include "fsservice/core/client.h"

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>
#include <urcu.h>

static struct client_registry reg;
static const struct ls_cred cred = {.uid = 1000, .gid = 1000};

static int setup(void **state)
{
    (void)state;
    struct ipc_geometry g = {.nqueues = 1, .ncells = 8, .nslots = 4,
                             .slot_buf = 4096};
    assert_int_equal(client_registry_init(&reg, &g, 64), 0);
    return client_spares_start(&reg);
}

static int teardown(void **state)
{
    (void)state;
    client_spares_stop(&reg);
    rcu_barrier();
    client_registry_free(&reg);
    return 0;
}

static uint32_t slots_used(void)
{
    return atomic_load(&reg.shares.used[SHARE_SLOTS]);
}

/* Whether fd names an area's memfd ("memfd:danaus-area"). */
static bool is_area(int fd)
{
    char link[64], target[128];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n < 0)
        return false;
    target[n] = '\0';
    return strstr(target, "danaus-area") != NULL;
}

/* The areas open now, as a set of descriptors. */
static void areas_open(bool open[1024])
{
    for (int fd = 0; fd < 1024; fd++)
        open[fd] = is_area(fd);
}

/* Whether the spares thread said, within ms, that it made a client a
 * take had found missing (its eventfd, drained). */
static bool spare_made_within(int ms)
{
    struct pollfd p = {.fd = client_spares_fd(&reg), .events = POLLIN};
    assert_true(p.fd >= 0);
    if (poll(&p, 1, ms) != 1)
        return false;
    uint64_t n;
    assert_int_equal(read(p.fd, &n, sizeof n), sizeof n);
    return true;
}

/* client_new, asked again while no client is made yet (EAGAIN) when the
 * thread's descriptor says one was, or every 100 ms (a failed make says
 * nothing), for up to 5 s: the door's way. NULL with errno otherwise. */
static struct client *new_client(void)
{
    for (int tries = 0; tries < 50; tries++) {
        struct client *c = client_new(&reg, getpid(), &cred);
        if (c || errno != EAGAIN)
            return c;
        spare_made_within(100);
    }
    fail_msg("no client made in 5 s");
    return NULL;
}

/* A new client whose area was open before client_new: a spare. Asks
 * until one is (a spare made between the look and the call is taken
 * first, and one taken so is given back). */
static struct client *new_from_spare(void)
{
    for (int tries = 0; tries < 500; tries++) {
        bool before[1024];
        areas_open(before);
        struct client *c = client_new(&reg, getpid(), &cred);
        if (!c) {
            assert_int_equal(errno, EAGAIN);
            usleep(10000);
            continue;
        }
        assert_true(c->area.fd >= 0 && c->area.fd < 1024);
        if (before[c->area.fd])
            return c;
        client_detach(&reg, c);
    }
    fail_msg("no client made ahead");
    return NULL;
}

static void a_new_client_is_a_spare_made_before(void **state)
{
    (void)state;
    struct client *c = new_from_spare();
    assert_non_null(c->area.base);
    assert_true(client_attached(&reg, c));
    assert_int_equal(c->cred.uid, 1000);
    assert_true(slot_assign(&reg, c) >= 0);
    client_detach(&reg, c);
}

/* Takes faster than the thread makes: the door is told to wait (it
 * makes none itself), and then when to ask again. */
static void a_burst_waits_for_clients_made_ahead(void **state)
{
    (void)state;
    struct client *c[32];
    int waits = 0;
    for (int i = 0; i < 32; i++)
        while (!(c[i] = client_new(&reg, getpid(), &cred))) {
            assert_int_equal(errno, EAGAIN);
            waits++;
            assert_true(spare_made_within(5000));
        }
    assert_true(waits >= 1);
    for (int i = 0; i < 32; i++)
        client_detach(&reg, c[i]);
}

static void a_detached_clients_slots_come_back(void **state)
{
    (void)state;
    struct client *c = new_client();
    assert_non_null(c);
    assert_true(slot_assign(&reg, c) >= 0);
    assert_true(slot_assign(&reg, c) >= 0);
    assert_int_equal(slots_used(), 2);
    client_detach(&reg, c);
    assert_false(client_attached(&reg, c));
    for (int tries = 0; tries < 500 && slots_used() != 0; tries++)
        usleep(10000);
    assert_int_equal(slots_used(), 0);
}

static void stopping_ends_every_detached_client(void **state)
{
    (void)state;
    struct client *c[16];
    for (int i = 0; i < 16; i++) {
        c[i] = new_client();
        assert_non_null(c[i]);
        assert_true(slot_assign(&reg, c[i]) >= 0);
    }
    for (int i = 0; i < 16; i++)
        client_detach(&reg, c[i]);
    client_spares_stop(&reg);
    assert_int_equal(slots_used(), 0);
    /* Stopped, it is the caller that ends them. */
    struct client *late = client_new(&reg, getpid(), &cred);
    assert_non_null(late);
    assert_true(slot_assign(&reg, late) >= 0);
    client_detach(&reg, late);
    assert_int_equal(slots_used(), 0);
    assert_int_equal(client_spares_start(&reg), 0);
}

static void out_of_descriptors_and_back(void **state)
{
    (void)state;
    client_detach(&reg, new_from_spare());
    struct rlimit was;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &was), 0);
    /* No descriptor left for an area: the spares go, then EMFILE. */
    int top = dup(0);
    assert_true(top >= 0);
    close(top);
    struct rlimit low = {(rlim_t)top, was.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    struct client *c[16];
    int n = 0;
    while (n < 16 && (c[n] = new_client()))
        n++;
    int err = errno;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &was), 0);
    assert_true(n >= 1 && n < 16);
    assert_int_equal(err, EMFILE);
    for (int i = 0; i < n; i++)
        client_detach(&reg, c[i]);
    /* With descriptors again the thread makes spares once more. */
    client_detach(&reg, new_from_spare());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_new_client_is_a_spare_made_before,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_burst_waits_for_clients_made_ahead,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(a_detached_clients_slots_come_back,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(stopping_ends_every_detached_client,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(out_of_descriptors_and_back, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
