/* test_matchmaking.c -- quick play's rules (lobby/matchmaking.c) with plain
 * values.
 *
 * No lobby, no store, no clock, no random source: each test feeds the
 * queue joins, leaves and ticks with the time, the ratings and the seat
 * order's random numbers written in, and reads the replies and the matches
 * it asks for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/matchmaking.h"

/* window 5 points, widened every 10 s, bots after 30 s */
#define WIDEN_MS 10000
#define FILL_MS  30000
static const matchmaking_config CONFIG = {5.0, WIDEN_MS, FILL_MS};

static matchmaking queue;
static matchmaking_effects effects;
static protocol_failure failure;

static int kind(const char *game, const char *mode)
{
    int found = matchmaking_kind_of(game, mode);
    assert_true(found >= 0);
    return found;
}

static int setup(void **state)
{
    (void)state;
    matchmaking_init(&queue, &CONFIG);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    matchmaking_free(&queue);
    return 0;
}

static void ok(matchmaking_event event)
{
    if (matchmaking_apply(&queue, &event, &effects, &failure) != 0)
        fail_msg("refused: %s", failure.message);
}

/* `player` joins the queue of `of_kind` with `rating` at `now_ms`; the
 * seat order, should it make a match, is the dealt order (each seat swaps
 * with itself). */
static void join(int64_t player, int of_kind, double rating, int64_t now_ms)
{
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_JOIN,
                           .now_ms = now_ms,
                           .player_id = player,
                           .queue = of_kind,
                           .rating = rating,
                           .shuffle = {3, 2, 1}});
    assert_true(effects.count >= 1);
    assert_int_equal(effects.items[0].kind, MATCHMAKING_JOINED);
    assert_int_equal(effects.items[0].player_id, player);
    assert_int_equal(effects.items[0].queue, of_kind);
}

static void tick(int64_t now_ms)
{
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_TICK, .now_ms = now_ms, .shuffle = {3, 2, 1}});
}

/* The match the last event asked for (it must have asked for one). */
static const matchmaking_match *made(void)
{
    assert_true(effects.count >= 1);
    const matchmaking_effect *last = &effects.items[effects.count - 1];
    assert_int_equal(last->kind, MATCHMAKING_MATCHED);
    return &last->match;
}

static bool has_match(void)
{
    return effects.count > 0 && effects.items[effects.count - 1].kind == MATCHMAKING_MATCHED;
}

static bool is_seated(const matchmaking_match *match, int64_t player)
{
    for (int seat = 0; seat < match->seat_count; seat++)
        if (match->seats[seat] == player)
            return true;
    return false;
}

static bool is_waiting(int64_t player)
{
    for (int i = 0; i < queue.count; i++)
        if (queue.entries[i].player_id == player)
            return true;
    return false;
}

static void test_kinds_are_the_five_quick_play_games(void **state)
{
    (void)state;
    assert_int_equal(matchmaking_kind_at(kind("blokus", "4p"))->seats, 4);
    assert_int_equal(matchmaking_kind_at(kind("blokus", "3p"))->seats, 3);
    assert_int_equal(matchmaking_kind_at(kind("blokus", "2p"))->seats, 2);
    assert_int_equal(matchmaking_kind_at(kind("blokus", "duo"))->seats, 2);
    assert_int_equal(matchmaking_kind_at(kind("reef-builder", "race"))->seats, 2);
    assert_int_equal(matchmaking_kind_of("reef-builder", "solo"), -1);
    assert_int_equal(matchmaking_kind_of("chess", "duo"), -1);
}

static void test_equal_ratings_are_matched_on_the_join(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 20.0, 0);
    assert_int_equal(effects.count, 1);
    assert_int_equal(effects.items[0].waiting, 1);
    assert_false(effects.items[0].has_moved);
    assert_true(effects.items[0].rating == 20.0);
    join(2, duo, 20.0, 5);
    assert_int_equal(effects.items[0].waiting, 2); /* the reply comes before the match */
    const matchmaking_match *match = made();
    assert_int_equal(match->kind, duo);
    assert_int_equal(match->seat_count, 2);
    assert_int_equal(match->player_count, 2);
    assert_int_equal(match->seats[0], 1); /* the one who waited longest first */
    assert_int_equal(match->seats[1], 2);
    assert_int_equal(queue.count, 0); /* matched players leave the queue */
}

static void test_the_window_widens_with_the_wait(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 20.0, 0);
    join(2, duo, 28.0, 0); /* 8 apart: the window is 5 */
    assert_false(has_match());
    tick(WIDEN_MS - 1);
    assert_false(has_match());
    tick(WIDEN_MS); /* the window is 10 now */
    assert_int_equal(made()->player_count, 2);
}

static void test_the_longer_wait_widens_the_window(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 20.0, 0);
    join(2, duo, 28.0, WIDEN_MS); /* it just came; the first has waited */
    assert_true(is_seated(made(), 1) && is_seated(made(), 2));
}

static void test_the_closest_rating_is_picked_first(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 0.0, 0);
    join(2, duo, 30.0, 0);
    join(3, duo, 20.0, 0); /* 10 from the second: not with a window of 5 */
    assert_false(has_match());
    tick(5 * WIDEN_MS); /* the window is 30: both fit the first */
    const matchmaking_match *match = made();
    assert_true(is_seated(match, 1));
    assert_true(is_seated(match, 3));
    assert_true(is_waiting(2));
    assert_int_equal(queue.count, 1);
}

static void test_kinds_are_never_mixed(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo"), two = kind("blokus", "2p");
    join(1, duo, 20.0, 0);
    join(2, two, 20.0, 0);
    assert_false(has_match());
    tick(FILL_MS); /* both filled with a bot, each in its own game */
    assert_int_equal(made()->kind, duo);
    assert_int_equal(made()->player_count, 1);
    assert_true(is_seated(made(), 1));
    tick(FILL_MS);
    assert_int_equal(made()->kind, two);
    assert_int_equal(made()->player_count, 1);
    assert_true(is_seated(made(), 2));
    tick(FILL_MS);
    assert_false(has_match());
}

static void test_4p_is_filled_with_bots_after_the_fill_time(void **state)
{
    (void)state;
    int four = kind("blokus", "4p");
    join(1, four, 20.0, 0);
    join(2, four, 22.0, 1000);
    tick(FILL_MS - 1);
    assert_false(has_match());
    tick(FILL_MS);
    const matchmaking_match *match = made();
    assert_int_equal(match->seat_count, 4);
    assert_int_equal(match->player_count, 2);
    assert_int_equal(match->seats[0], 1);
    assert_int_equal(match->seats[1], 2);
    assert_int_equal(match->seats[2], 0); /* fill bots */
    assert_int_equal(match->seats[3], 0);
    assert_int_equal(queue.count, 0);
}

static void test_the_fill_takes_only_who_fits(void **state)
{
    (void)state;
    int four = kind("blokus", "4p");
    join(1, four, 0.0, 0);
    join(2, four, 100.0, 0);
    tick(FILL_MS); /* the window is 20 by then: the second does not fit */
    assert_int_equal(made()->player_count, 1);
    assert_true(is_seated(made(), 1));
    assert_true(is_waiting(2));
}

static void test_a_player_waits_in_one_queue_at_a_time(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo"), four = kind("blokus", "4p");
    join(1, duo, 20.0, 0);
    join(1, four, 20.0, 100);
    assert_true(effects.items[0].has_moved);
    assert_int_equal(effects.items[0].waiting, 1);
    assert_int_equal(queue.count, 1);
    assert_int_equal(queue.entries[0].kind, four);
    assert_int_equal(queue.entries[0].joined_ms, 100);
    join(2, duo, 20.0, 200); /* nobody waits for duo any more */
    assert_false(has_match());
    assert_int_equal(effects.items[0].waiting, 1);
    join(1, duo, 20.0, 300); /* back: it waits behind the second now */
    assert_int_equal(made()->seats[0], 2);
    assert_int_equal(made()->seats[1], 1);
}

static void test_a_leave_takes_the_player_out(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 20.0, 0);
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_LEAVE, .player_id = 1});
    assert_int_equal(effects.count, 1);
    assert_int_equal(effects.items[0].kind, MATCHMAKING_LEFT);
    assert_int_equal(effects.items[0].player_id, 1);
    assert_int_equal(effects.items[0].queue, duo);
    assert_int_equal(queue.count, 0);
    join(2, duo, 20.0, 10);
    assert_false(has_match());
}

static void test_a_leave_without_a_join_is_refused(void **state)
{
    (void)state;
    join(1, kind("blokus", "duo"), 20.0, 0);
    matchmaking_event leave = {.kind = MATCHMAKING_EVENT_LEAVE, .player_id = 2};
    assert_int_equal(matchmaking_apply(&queue, &leave, &effects, &failure), PROTOCOL_E_NOT_QUEUED);
    assert_int_equal(failure.code, PROTOCOL_E_NOT_QUEUED);
    assert_int_equal(queue.count, 1);
}

static void test_a_gone_player_is_dropped_without_a_reply(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    join(1, duo, 20.0, 0);
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_GONE, .player_id = 1});
    assert_int_equal(effects.count, 1);
    assert_int_equal(effects.items[0].kind, MATCHMAKING_DROPPED);
    assert_int_equal(queue.count, 0);
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_GONE, .player_id = 1});
    assert_int_equal(effects.count, 0); /* not waiting: nothing to do */
}

static void test_a_bad_kind_is_refused(void **state)
{
    (void)state;
    matchmaking_event join_event = {
        .kind = MATCHMAKING_EVENT_JOIN, .player_id = 1, .queue = MATCHMAKING_KIND_COUNT};
    assert_int_equal(matchmaking_apply(&queue, &join_event, &effects, &failure),
                     PROTOCOL_E_BAD_MESSAGE);
    assert_int_equal(queue.count, 0);
}

/* Four equal players of 4p, the last of whose joins deals them with
 * `shuffle`: the seats, in order. */
static void deal_four(uint32_t a, uint32_t b, uint32_t c, int64_t seats[4])
{
    int four = kind("blokus", "4p");
    for (int64_t player = 1; player <= 3; player++)
        join(player, four, 20.0, 0);
    ok((matchmaking_event){.kind = MATCHMAKING_EVENT_JOIN,
                           .player_id = 4,
                           .queue = four,
                           .rating = 20.0,
                           .shuffle = {a, b, c}});
    memcpy(seats, made()->seats, sizeof(made()->seats));
}

static void test_the_seat_order_follows_the_random_numbers(void **state)
{
    (void)state;
    int64_t seats[4];
    deal_four(3, 2, 1, seats); /* each seat keeps its own */
    assert_int_equal(seats[0], 1);
    assert_int_equal(seats[1], 2);
    assert_int_equal(seats[2], 3);
    assert_int_equal(seats[3], 4);
    /* seat 3 swaps with 0, then seat 2 with 0, then seat 1 with 0 */
    deal_four(0, 0, 0, seats);
    assert_int_equal(seats[0], 2);
    assert_int_equal(seats[1], 3);
    assert_int_equal(seats[2], 4);
    assert_int_equal(seats[3], 1);
    /* modulo the seats left: seat 3 swaps with 5 % 4 = 1, seat 2 with
     * 7 % 3 = 1, seat 1 with 9 % 2 = 1 (itself) */
    deal_four(5, 7, 9, seats);
    assert_int_equal(seats[0], 1);
    assert_int_equal(seats[1], 3);
    assert_int_equal(seats[2], 4);
    assert_int_equal(seats[3], 2);
}

static void test_one_event_makes_one_match(void **state)
{
    (void)state;
    int duo = kind("blokus", "duo");
    for (int64_t player = 1; player <= 4; player++)
        join(player, duo, 100.0 * (double)player, 0); /* nobody fits anybody */
    tick(FILL_MS);
    assert_int_equal(effects.count, 1);
    assert_true(is_seated(made(), 1));
    assert_int_equal(queue.count, 3);
    for (int left = 2; left >= 0; left--) {
        tick(FILL_MS);
        assert_int_equal(queue.count, left);
    }
    tick(FILL_MS);
    assert_false(has_match());
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_kinds_are_the_five_quick_play_games),
        cmocka_unit_test_setup_teardown(test_equal_ratings_are_matched_on_the_join, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_window_widens_with_the_wait, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_longer_wait_widens_the_window, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_closest_rating_is_picked_first, setup, teardown),
        cmocka_unit_test_setup_teardown(test_kinds_are_never_mixed, setup, teardown),
        cmocka_unit_test_setup_teardown(test_4p_is_filled_with_bots_after_the_fill_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_the_fill_takes_only_who_fits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_player_waits_in_one_queue_at_a_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_leave_takes_the_player_out, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_leave_without_a_join_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_gone_player_is_dropped_without_a_reply, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_bad_kind_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_the_seat_order_follows_the_random_numbers, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_one_event_makes_one_match, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
