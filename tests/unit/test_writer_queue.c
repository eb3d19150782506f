/* test_writer_queue.c -- which waiting batches a free writer connection
 * takes: with nothing in flight elsewhere, the order submitted; a room's
 * batch goes past what waits on other connections; the lobby's batches one
 * after another; a batch after all only once everything older is stored;
 * a share taken, the rest left in order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/writer_queue.h"

#define JOBS 8

struct fixture {
    writer_queue queue;
    store_batch batches[JOBS];
    writer_job jobs[JOBS];
    int count;
};

/* Queues a batch of `order`: its number is its place, from 1. */
static void add(struct fixture *fixture, store_order order)
{
    int i = fixture->count++;
    fixture->batches[i] = (store_batch){.order = order};
    fixture->jobs[i] = (writer_job){.batch = &fixture->batches[i], .number = (uint64_t)i + 1};
    writer_queue_push(&fixture->queue, &fixture->jobs[i]);
}

/* Takes a group with `others` in flight and checks its numbers: `expected`
 * ends with 0. */
static void assert_takes(struct fixture *fixture, writer_flight others, int limit,
                         const uint64_t *expected)
{
    writer_job *group[JOBS];
    int count = writer_queue_take(&fixture->queue, others, group, limit);
    int want = 0;
    while (expected[want] != 0)
        want++;
    assert_int_equal(count, want);
    for (int i = 0; i < count; i++)
        assert_int_equal(group[i]->number, expected[i]);
}

static void test_alone_it_takes_everything_in_the_order_submitted(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_SUBMITTED);
    add(&fixture, STORE_ORDER_ROOM);
    add(&fixture, STORE_ORDER_AFTER_ALL);
    add(&fixture, STORE_ORDER_SUBMITTED);
    add(&fixture, STORE_ORDER_ROOM);
    assert_takes(&fixture, (writer_flight){0}, 64, (const uint64_t[]){1, 2, 3, 4, 5, 0});
    assert_int_equal(fixture.queue.count, 0);
}

static void test_a_share_is_taken_and_the_rest_waits_in_order(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    for (int i = 0; i < 5; i++)
        add(&fixture, STORE_ORDER_ROOM);
    assert_takes(&fixture, (writer_flight){0}, 2, (const uint64_t[]){1, 2, 0});
    assert_int_equal(fixture.queue.count, 3);
    assert_takes(&fixture, (writer_flight){.oldest = 1}, 2, (const uint64_t[]){3, 4, 0});
    assert_takes(&fixture, (writer_flight){.oldest = 1}, 2, (const uint64_t[]){5, 0});
}

static void test_rooms_go_past_a_lobby_batch_another_connection_stores(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_SUBMITTED);
    add(&fixture, STORE_ORDER_ROOM);
    add(&fixture, STORE_ORDER_SUBMITTED);
    add(&fixture, STORE_ORDER_ROOM);
    writer_flight others = {.has_lobby_batch = true, .oldest = 1};
    /* The lobby's batches wait for the one in flight; the rooms do not. */
    assert_takes(&fixture, others, 64, (const uint64_t[]){2, 4, 0});
    assert_int_equal(fixture.queue.count, 2);
    assert_takes(&fixture, (writer_flight){0}, 64, (const uint64_t[]){1, 3, 0});
}

static void test_a_lobby_batch_goes_while_other_connections_store_rooms(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_SUBMITTED);
    add(&fixture, STORE_ORDER_SUBMITTED);
    assert_takes(&fixture, (writer_flight){.oldest = 1}, 64, (const uint64_t[]){1, 2, 0});
}

static void test_after_all_waits_for_everything_older_and_holds_the_lobby(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_ROOM);      /* 1: in flight elsewhere below */
    add(&fixture, STORE_ORDER_AFTER_ALL); /* 2 */
    add(&fixture, STORE_ORDER_SUBMITTED); /* 3: after 2 */
    add(&fixture, STORE_ORDER_ROOM);      /* 4: free to go */
    writer_job *first[1];
    assert_int_equal(writer_queue_take(&fixture.queue, (writer_flight){0}, first, 1), 1);
    writer_flight others = writer_queue_flight_of(first, 1);
    assert_false(others.has_lobby_batch);
    assert_int_equal(others.oldest, 1);
    assert_takes(&fixture, others, 64, (const uint64_t[]){4, 0});
    /* Batch 1 stored: 2 goes, and 3 with it, after it. */
    assert_takes(&fixture, (writer_flight){0}, 64, (const uint64_t[]){2, 3, 0});
}

static void test_after_all_does_not_wait_for_newer_rooms(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_ROOM);      /* 1: in flight elsewhere */
    add(&fixture, STORE_ORDER_AFTER_ALL); /* 2 */
    add(&fixture, STORE_ORDER_ROOM);      /* 3 */
    writer_job *first[1];
    assert_int_equal(writer_queue_take(&fixture.queue, (writer_flight){0}, first, 1), 1);
    writer_job *room[JOBS];
    assert_int_equal(writer_queue_take(&fixture.queue, writer_queue_flight_of(first, 1), room, 64),
                     1);
    assert_int_equal(room[0]->number, 3); /* past 2, which waits for 1 */
    /* 1 stored, 3 still in flight: 2 goes, as 3 is newer. */
    assert_takes(&fixture, writer_queue_flight_of(room, 1), 64, (const uint64_t[]){2, 0});
}

static void test_after_all_waits_behind_a_room_left_by_the_share(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_ROOM);      /* 1 */
    add(&fixture, STORE_ORDER_ROOM);      /* 2 */
    add(&fixture, STORE_ORDER_AFTER_ALL); /* 3 */
    assert_takes(&fixture, (writer_flight){0}, 1, (const uint64_t[]){1, 0});
    /* 1 in flight elsewhere: 2 goes; 3 not before 1 is stored. */
    assert_takes(&fixture, (writer_flight){.oldest = 1}, 64, (const uint64_t[]){2, 0});
    assert_takes(&fixture, (writer_flight){.oldest = 2}, 64, (const uint64_t[]){0});
    assert_takes(&fixture, (writer_flight){0}, 64, (const uint64_t[]){3, 0});
}

static void test_flight_of_a_group_with_a_lobby_batch(void **state)
{
    (void)state;
    struct fixture fixture = {0};
    add(&fixture, STORE_ORDER_ROOM);
    add(&fixture, STORE_ORDER_SUBMITTED);
    writer_job *group[2];
    assert_int_equal(writer_queue_take(&fixture.queue, (writer_flight){0}, group, 2), 2);
    writer_flight flight = writer_queue_flight_of(group, 2);
    assert_true(flight.has_lobby_batch);
    assert_int_equal(flight.oldest, 1);
    assert_int_equal(writer_queue_flight_of(group, 0).oldest, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alone_it_takes_everything_in_the_order_submitted),
        cmocka_unit_test(test_a_share_is_taken_and_the_rest_waits_in_order),
        cmocka_unit_test(test_rooms_go_past_a_lobby_batch_another_connection_stores),
        cmocka_unit_test(test_a_lobby_batch_goes_while_other_connections_store_rooms),
        cmocka_unit_test(test_after_all_waits_for_everything_older_and_holds_the_lobby),
        cmocka_unit_test(test_after_all_does_not_wait_for_newer_rooms),
        cmocka_unit_test(test_after_all_waits_behind_a_room_left_by_the_share),
        cmocka_unit_test(test_flight_of_a_group_with_a_lobby_batch),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
