/* test_connection.c -- the transport's per-connection rules, without sockets.
 *
 * Reassembly under a size cap, the credit bucket and the outbound queue,
 * each driven directly with the arguments lws would supply
 * (pieces of frames, announced remaining bytes, loop times in ms). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/connection.h"

#define HEADROOM 16

static transport_limits limits_with(int per_second, int burst, int strikes)
{
    transport_limits limits = transport_default_limits();
    limits.messages_per_second = per_second;
    limits.message_burst = burst;
    limits.rate_strikes_to_close = strikes;
    return limits;
}

/* The transport's send budget counter, which every connection adds to. */
static size_t all_queued;

static connection *new_connection(uint64_t id, const transport_limits *limits)
{
    connection *c;
    assert_int_equal(connection_new(id, "127.0.0.1", HEADROOM, 0, limits, &all_queued, &c), 0);
    return c;
}

static void test_pieces_reassemble_into_one_nul_terminated_message(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    assert_int_equal(connection_append(c, "frag", 4, 9, 100), 0);
    assert_int_equal(connection_append(c, "mented ", 7, 2, 100), 0);
    assert_int_equal(connection_append(c, "ok", 2, 0, 100), 0);
    assert_int_equal(c->message_length, 13);
    assert_string_equal(c->message, "fragmented ok");
    connection_reset_message(c);
    assert_int_equal(connection_append(c, "next", 4, 0, 100), 0);
    assert_string_equal(c->message, "next");
    connection_free(c);
}

static void test_message_announced_over_the_cap_is_refused_on_its_first_piece(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    assert_int_equal(connection_append(c, "abcd", 4, 97, 100), -EMSGSIZE);
    assert_int_equal(c->message_length, 0);
    assert_true(c->message_capacity == 0);
    assert_int_equal(connection_append(c, "abcd", 4, 96, 100), 0); /* exactly the cap */
    connection_free(c);
}

static void test_fragments_adding_up_over_the_cap_are_refused(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    assert_int_equal(connection_append(c, "0123456789", 10, 0, 15), 0);
    assert_int_equal(connection_append(c, "0123456789", 10, 0, 15), -EMSGSIZE);
    assert_int_equal(c->message_length, 10);
    connection_free(c);
}

static void test_burst_is_delivered_then_refused_until_refilled(void **state)
{
    (void)state;
    transport_limits limits = limits_with(2, 3, 100);
    connection *c = new_connection(1, &limits);
    for (int i = 0; i < 3; i++)
        assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 499, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 500, &limits), CONNECTION_DELIVER); /* 2/s */
    assert_int_equal(connection_take_credit(c, 500, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 100000, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 100000, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 100000, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 100000, &limits), CONNECTION_REFUSE); /* cap */
    connection_free(c);
}

static void test_granted_messages_pass_free_and_grants_do_not_pile_up(void **state)
{
    (void)state;
    transport_limits limits = limits_with(1, 1, 100);
    connection *c = new_connection(1, &limits);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER); /* the credit */
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE);
    connection_grant(c, 2); /* a turn began: game.moves, game.move */
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE);
    for (int turn = 0; turn < 100; turn++)
        connection_grant(c, 2);
    for (int i = 0; i < CONNECTION_GRANT_MAX; i++)
        assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE); /* a flood */
    connection_free(c);
}

static void test_queued_messages_pack_into_whole_text_frames(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    static char big[70000];
    memset(big, 'x', sizeof(big));
    assert_int_equal(connection_push(c, "hello", 5), 0);
    assert_int_equal(connection_push(c, big, 200), 0);
    assert_int_equal(connection_push(c, big, sizeof(big)), 0);
    static unsigned char out[80000];
    /* room for the first two frames only: the third stays queued */
    size_t used = connection_pack_frames(c, out, 2 + 5 + 4 + 200 + 9);
    assert_int_equal(used, 2 + 5 + 4 + 200);
    assert_int_equal(out[0], 0x81);
    assert_int_equal(out[1], 5);
    assert_memory_equal(out + 2, "hello", 5);
    assert_int_equal(out[7], 0x81);
    assert_int_equal(out[8], 126);
    assert_int_equal(out[9] << 8 | out[10], 200);
    assert_int_equal(c->queued_bytes, sizeof(big));
    used = connection_pack_frames(c, out, sizeof(out));
    assert_int_equal(used, 10 + sizeof(big));
    assert_int_equal(out[1], 127);
    assert_int_equal((size_t)out[7] << 16 | (size_t)out[8] << 8 | out[9], sizeof(big));
    assert_null(connection_front(c));
    assert_int_equal(c->queued_bytes, 0);
    connection_free(c);
}

/* A long message is framed in its own buffer: the header lands right
 * before the text, inside the headroom, and the text is not copied. */
static void test_a_long_message_is_framed_in_place(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    static char big[70000];
    memset(big, 'x', sizeof(big));
    assert_int_equal(connection_push(c, big, 200), 0);
    assert_int_equal(connection_push(c, big, sizeof(big)), 0);
    size_t length = 0;
    const struct connection_frame *front = connection_front(c);
    unsigned char *frame = connection_frame_in_place(c, &length);
    assert_int_equal(length, 4 + 200);
    assert_ptr_equal(frame + 4, front->bytes + HEADROOM); /* the text, where it was */
    assert_int_equal(frame[0], 0x81);
    assert_int_equal(frame[1], 126);
    assert_int_equal(frame[2] << 8 | frame[3], 200);
    connection_pop(c);
    front = connection_front(c);
    frame = connection_frame_in_place(c, &length);
    assert_int_equal(length, 10 + sizeof(big));
    assert_ptr_equal(frame + 10, front->bytes + HEADROOM);
    assert_int_equal(frame[1], 127);
    assert_int_equal((size_t)frame[7] << 16 | (size_t)frame[8] << 8 | frame[9], sizeof(big));
    assert_memory_equal(frame + 10, big, sizeof(big));
    connection_pop(c);
    assert_null(connection_front(c));
    connection_free(c);
}

static void test_every_queue_adds_its_frames_memory_to_the_shared_total(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    all_queued = 0;
    connection *a = new_connection(1, &limits), *b = new_connection(2, &limits);
    assert_int_equal(connection_push(a, "one", 3), 0);
    assert_int_equal(connection_push(b, "three", 5), 0);
    assert_int_equal(connection_push(b, "x", 1), 0);
    assert_int_equal(connection_frame_cost(a, 3), sizeof(struct connection_frame) + HEADROOM + 3);
    assert_int_equal(all_queued, connection_frame_cost(a, 3) + connection_frame_cost(b, 5) +
                                     connection_frame_cost(b, 1));
    connection_pop(b);
    assert_int_equal(all_queued, connection_frame_cost(a, 3) + connection_frame_cost(b, 1));
    static unsigned char out[64];
    assert_int_equal(connection_pack_frames(a, out, sizeof(out)), 2 + 3);
    assert_int_equal(all_queued, connection_frame_cost(b, 1));
    connection_free(b); /* a connection that goes takes its queue out of the total */
    assert_int_equal(all_queued, 0);
    connection_free(a);
}

static void test_strikes_in_a_row_close_and_a_delivery_resets_them(void **state)
{
    (void)state;
    transport_limits limits = limits_with(1, 1, 3);
    connection *c = new_connection(1, &limits);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_DELIVER);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 0, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 1000, &limits), CONNECTION_DELIVER);
    assert_int_equal(c->strikes, 0);
    assert_int_equal(connection_take_credit(c, 1000, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 1000, &limits), CONNECTION_REFUSE);
    assert_int_equal(connection_take_credit(c, 1000, &limits), CONNECTION_REFUSE_AND_CLOSE);
    connection_free(c);
}

static void test_queue_is_first_in_first_out_and_counts_bytes(void **state)
{
    (void)state;
    transport_limits limits = transport_default_limits();
    connection *c = new_connection(1, &limits);
    assert_null(connection_front(c));
    assert_int_equal(connection_push(c, "one", 3), 0);
    assert_int_equal(connection_push(c, "three", 5), 0);
    assert_int_equal(c->queued_bytes, 8);
    struct connection_frame *frame = connection_front(c);
    assert_int_equal(frame->length, 3);
    assert_memory_equal(frame->bytes + HEADROOM, "one", 3);
    connection_pop(c);
    assert_int_equal(c->queued_bytes, 5);
    assert_memory_equal(connection_front(c)->bytes + HEADROOM, "three", 5);
    assert_int_equal(connection_push(c, "x", 1), 0);
    connection_clear_queue(c);
    assert_null(connection_front(c));
    assert_int_equal(c->queued_bytes, 0);
    connection_pop(c); /* popping an empty queue is harmless */
    connection_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pieces_reassemble_into_one_nul_terminated_message),
        cmocka_unit_test(test_message_announced_over_the_cap_is_refused_on_its_first_piece),
        cmocka_unit_test(test_fragments_adding_up_over_the_cap_are_refused),
        cmocka_unit_test(test_burst_is_delivered_then_refused_until_refilled),
        cmocka_unit_test(test_granted_messages_pass_free_and_grants_do_not_pile_up),
        cmocka_unit_test(test_queued_messages_pack_into_whole_text_frames),
        cmocka_unit_test(test_a_long_message_is_framed_in_place),
        cmocka_unit_test(test_strikes_in_a_row_close_and_a_delivery_resets_them),
        cmocka_unit_test(test_queue_is_first_in_first_out_and_counts_bytes),
        cmocka_unit_test(test_every_queue_adds_its_frames_memory_to_the_shared_total),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
