/*
 * test_ipc_cache.c - the read cache in a client's area (ipc/cache.c): what
 * is kept and counted, what a generation change or a closed handle voids,
 * the end of a file, a second mapping (the service's) seeing the
 * generations the client reads, and no torn block read while another
 * thread rewrites it.
 */
#include "ipc/ipc.h"

#include <danaus/wire.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#define BLOCKS 64
#define H1 DANAUS_HANDLE(3, 1)
#define H2 DANAUS_HANDLE(4, 1)
#define H1_REUSED DANAUS_HANDLE(3, 2)

static struct ipc_area client, service;
static unsigned char file[8 * IPC_CACHE_BLOCK];

static int setup(void **state)
{
    (void)state;
    struct ipc_geometry g = {.nqueues = 1, .ncells = 4, .nslots = 2,
                             .slot_buf = 4096, .cache_blocks = BLOCKS};
    if (ipc_area_create(&g, &service) < 0 ||
        ipc_area_grow(&service, g.nslots) < 0)
        return -1;
    int fd = dup(service.fd);
    if (fd < 0 || ipc_area_map(fd, &g, &client) < 0)
        return -1;
    for (size_t i = 0; i < sizeof file; i++)
        file[i] = (unsigned char)(i * 7 + i / 4096);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    ipc_area_unmap(&client);
    ipc_area_unmap(&service);
    return 0;
}

/* A fresh state for each test: every handle without a generation, every
 * block empty. */
static int reset(void **state)
{
    (void)state;
    memset(service.cache_heads, 0,
           BLOCKS * sizeof(struct ipc_cache_block));
    for (uint32_t i = 0; i < 8; i++)
        ipc_cache_set_gen(&service, i, 0);
    return 0;
}

static void test_geometry(void **state)
{
    (void)state;
    struct ipc_geometry g = {.nqueues = 1, .ncells = 4, .nslots = 1,
                             .slot_buf = 4096, .cache_blocks = 48};
    assert_false(ipc_geometry_valid(&g));
    g.cache_blocks = IPC_MAX_CACHE_BLOCKS * 2;
    assert_false(ipc_geometry_valid(&g));
    g.cache_blocks = 0;
    assert_true(ipc_geometry_valid(&g));
    g.cache_blocks = 1;
    assert_true(ipc_geometry_valid(&g));
}

static void test_nothing_before_a_generation(void **state)
{
    (void)state;
    unsigned char buf[IPC_CACHE_BLOCK];
    /* Kept under generation 5 while the handle has none: never read. */
    ipc_cache_keep(&client, H1, 5, file, 4096, 4096, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 0), -1);
    /* An answer without a generation keeps nothing. */
    ipc_cache_set_gen(&service, 3, 5);
    ipc_cache_keep(&client, H2, 0, file, 4096, 4096, 0);
    ipc_cache_set_gen(&service, 4, 0);
    assert_int_equal(ipc_cache_read(&client, H2, buf, 4096, 0), -1);
}

static void test_hit_within_and_across_blocks(void **state)
{
    (void)state;
    unsigned char buf[3 * IPC_CACHE_BLOCK];
    ipc_cache_set_gen(&service, 3, 9);
    ipc_cache_keep(&client, H1, 9, file, sizeof file, sizeof file, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 100, 4000), 100);
    assert_memory_equal(buf, file + 4000, 100);
    assert_int_equal(ipc_cache_read(&client, H1, buf, sizeof buf, 5000),
                     (ssize_t)sizeof buf);
    assert_memory_equal(buf, file + 5000, sizeof buf);
    /* Another handle of the same client finds none of it. */
    ipc_cache_set_gen(&service, 4, 9);
    assert_int_equal(ipc_cache_read(&client, H2, buf, 100, 0), -1);
}

static void test_partial_blocks_not_kept(void **state)
{
    (void)state;
    unsigned char buf[IPC_CACHE_BLOCK];
    ipc_cache_set_gen(&service, 3, 2);
    /* 6000 bytes at 1000, [1000, 7000): block 0 begins before it, block 1
     * ends after it; neither is whole, nothing is kept. */
    ipc_cache_keep(&client, H1, 2, file + 1000, 6000, 6000, 1000);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 10, 1000), -1);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 10, 4096), -1);
    /* 9000 bytes at 100: block 1 is whole inside, blocks 0 and 2 are not. */
    ipc_cache_keep(&client, H1, 2, file + 100, 9000, 9000, 100);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 4096), 4096);
    assert_memory_equal(buf, file + 4096, 4096);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 10, 8192), -1);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 10, 0), -1);
}

static void test_end_of_file(void **state)
{
    (void)state;
    unsigned char buf[2 * IPC_CACHE_BLOCK];
    ipc_cache_set_gen(&service, 3, 4);
    /* A file of 6000 bytes: a read of 8192 at 0 came back short. */
    ipc_cache_keep(&client, H1, 4, file, 6000, 8192, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 8192, 0), 6000);
    assert_memory_equal(buf, file, 6000);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 100, 5950), 50);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 100, 6000), 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 100, 7000), 0);
    /* Past the end's block nothing is known. */
    assert_int_equal(ipc_cache_read(&client, H1, buf, 100, 8192), -1);
    /* A file that ends where a block begins: the end is kept too. */
    ipc_cache_set_gen(&service, 5, 3);
    uint64_t h5 = DANAUS_HANDLE(5, 1);
    ipc_cache_keep(&client, h5, 3, file, 8192, 12288, 0);
    assert_int_equal(ipc_cache_read(&client, h5, buf, 8192, 4096), 4096);
    assert_int_equal(ipc_cache_read(&client, h5, buf, 10, 8192), 0);
    assert_int_equal(ipc_cache_read(&client, h5, buf, 10, 12288), -1);
    /* A short read that began inside the last block says nothing of the
     * block's start: it is not kept. */
    ipc_cache_set_gen(&service, 4, 6);
    ipc_cache_keep(&client, H2, 6, file + 5000, 1000, 4000, 5000);
    assert_int_equal(ipc_cache_read(&client, H2, buf, 10, 5000), -1);
    assert_int_equal(ipc_cache_read(&client, H2, buf, 10, 4096), -1);
}

static void test_new_generation_voids(void **state)
{
    (void)state;
    unsigned char buf[IPC_CACHE_BLOCK];
    ipc_cache_set_gen(&service, 3, 7);
    ipc_cache_keep(&client, H1, 7, file, 4096, 4096, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 0), 4096);
    /* The service announces a change: the copy no longer counts, whether
     * the handle gets a new generation or none. */
    ipc_cache_set_gen(&service, 3, 8);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 0), -1);
    ipc_cache_set_gen(&service, 3, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 0), -1);
    /* A handle reusing the index with the old generation number finds
     * nothing of the closed one's. */
    ipc_cache_set_gen(&service, 3, 7);
    assert_int_equal(ipc_cache_read(&client, H1_REUSED, buf, 4096, 0), -1);
}

static void test_torn_block_is_a_miss(void **state)
{
    (void)state;
    unsigned char buf[2 * IPC_CACHE_BLOCK];
    ipc_cache_set_gen(&service, 3, 1);
    ipc_cache_keep(&client, H1, 1, file, 8192, 8192, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 8192, 0), 8192);
    /* A writer that died mid-block left its sequence odd: the block is a
     * miss, and keeping it again backs off rather than waits. */
    for (uint32_t i = 0; i < BLOCKS; i++)
        if (client.cache_heads[i].handle == H1 &&
            client.cache_heads[i].index == 1)
            atomic_fetch_add(&client.cache_heads[i].seq, 1);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 0), 4096);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 4096), -1);
    ipc_cache_keep(&client, H1, 1, file, 8192, 8192, 0);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 4096, 4096), -1);
}

/* One thread keeps the block over and over, each time all of one byte
 * value; another reads it: every read that counts holds one value only. */
static _Atomic bool keeping;

static void *keeper(void *arg)
{
    (void)arg;
    unsigned char b[IPC_CACHE_BLOCK];
    for (int i = 0; i < 200000; i++) {
        memset(b, i & 0xff, sizeof b);
        ipc_cache_keep(&client, H1, 1, b, sizeof b, sizeof b, 0);
    }
    atomic_store(&keeping, false);
    return NULL;
}

static void test_no_torn_read(void **state)
{
    (void)state;
    ipc_cache_set_gen(&service, 3, 1);
    atomic_store(&keeping, true);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, keeper, NULL), 0);
    unsigned char b[IPC_CACHE_BLOCK];
    long hits = 0, torn = 0;
    while (atomic_load(&keeping))
        if (ipc_cache_read(&client, H1, b, sizeof b, 0) == IPC_CACHE_BLOCK) {
            hits++;
            for (size_t i = 1; i < sizeof b; i++)
                if (b[i] != b[0]) {
                    torn++;
                    break;
                }
        }
    pthread_join(t, NULL);
    assert_int_equal(torn, 0);
    assert_true(hits > 0);
}

static void test_bounds(void **state)
{
    (void)state;
    unsigned char buf[16];
    ipc_cache_set_gen(&service, 3, 1);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 0, 0), -1);
    assert_int_equal(ipc_cache_read(&client, H1, buf, 16, UINT64_MAX - 4), -1);
    /* Indices past the generation table are never cached. */
    uint64_t far = DANAUS_HANDLE(IPC_CACHE_HANDLES, 1);
    ipc_cache_keep(&client, far, 1, file, 4096, 4096, 0);
    assert_int_equal(ipc_cache_read(&client, far, buf, 16, 0), -1);
    ipc_cache_set_gen(&service, IPC_CACHE_HANDLES, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_geometry),
        cmocka_unit_test_setup(test_nothing_before_a_generation, reset),
        cmocka_unit_test_setup(test_hit_within_and_across_blocks, reset),
        cmocka_unit_test_setup(test_partial_blocks_not_kept, reset),
        cmocka_unit_test_setup(test_end_of_file, reset),
        cmocka_unit_test_setup(test_new_generation_voids, reset),
        cmocka_unit_test_setup(test_torn_block_is_a_miss, reset),
        cmocka_unit_test_setup(test_no_torn_read, reset),
        cmocka_unit_test_setup(test_bounds, reset),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
