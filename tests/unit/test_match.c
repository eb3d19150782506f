/* test_match.c -- a room's rules (lobby/match.c) with plain values.
 *
 * No lobby, no store, no clock: each test builds a match, feeds it events
 * with the time written in, and reads the next state and the effects --
 * records to store, publishes, the bot wanted, the wake-up time. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "engine/rng.h"
#include "lobby/game_wire.h"
#include "lobby/match.h"

#define OWNER 7
#define T0    1000000

static const match_config CONFIG = {60000, 600000, 300};

static match state;
static match next;
static match_effects effects;
static protocol_failure failure;

static void new_match(const char *game_name, const char *mode, const char *timeout,
                      int64_t clock_ms)
{
    protocol_room_create create;
    memset(&create, 0, sizeof(create));
    snprintf(create.game, sizeof(create.game), "%s", game_name);
    snprintf(create.mode, sizeof(create.mode), "%s", mode);
    snprintf(create.timeout, sizeof(create.timeout), "%s", timeout);
    create.has_clock = clock_ms > 0;
    create.clock_initial_ms = clock_ms;
    game_options options;
    assert_int_equal(game_wire_options_parse(&create, 42, &options, &failure), 0);
    match_init(&state, &CONFIG, &options, OWNER);
}

/* Runs an event; on success the next state becomes the state. */
static int run(match_event event)
{
    int rc = match_apply(&state, &event, &next, &effects, &failure);
    if (rc == 0)
        state = next;
    return rc;
}

static void ok(match_event event)
{
    int rc = run(event);
    if (rc != 0)
        fail_msg("refused: %s", failure.message);
}

static int refused(match_event event)
{
    match before = state;
    int rc = run(event);
    assert_true(rc < 0);
    assert_memory_equal(&before, &state, sizeof(state)); /* nothing changed */
    return rc;
}

static match_event join(int64_t player, int seat)
{
    return (match_event){.kind = MATCH_EVENT_JOIN, .now_ms = T0, .player_id = player, .seat = seat};
}

static match_event add_bot(int seat, const char *bot)
{
    return (match_event){
        .kind = MATCH_EVENT_ADD_BOT, .now_ms = T0, .member = OWNER, .seat = seat, .bot = bot};
}

static match_event start(int64_t at)
{
    return (match_event){.kind = MATCH_EVENT_START, .now_ms = at, .member = OWNER};
}

static match_event timer(int64_t at)
{
    return (match_event){.kind = MATCH_EVENT_TIMER, .now_ms = at};
}

/* A player's move, as the protocol decodes it (a legal one). */
static match_event first_move(int64_t player, int seat, int64_t at)
{
    match_event event = {.kind = MATCH_EVENT_MOVE,
                         .now_ms = at,
                         .player_id = player,
                         .ply = game_ply(&state.game, seat)};
    const char *bot = state.options.kind == GAME_BLOKUS ? "random" : "greedy";
    assert_int_equal(game_bot_move(&state.game, seat, bot, 0, 1, NULL, &event.move), 0);
    return event;
}

static void play_as(int64_t player, int seat, int64_t at)
{
    ok(first_move(player, seat, at));
}

/* The stand-in's answer for a seat whose player left. */
static void stand_in_plays(int seat, int64_t at)
{
    match_event event = {.kind = MATCH_EVENT_BOT_MOVE,
                         .now_ms = at,
                         .seat = seat,
                         .ply = game_ply(&state.game, seat)};
    assert_int_equal(game_bot_move(&state.game, seat, "greedy", 0, 1, NULL, &event.move), 0);
    ok(event);
}

static bool published(match_publish_kind kind)
{
    for (int i = 0; i < effects.publish_count; i++)
        if (effects.publishes[i].kind == kind)
            return true;
    return false;
}

static int records_of(match_record_kind kind)
{
    int n = 0;
    for (int i = 0; i < effects.record_count; i++)
        n += effects.records[i].kind == kind;
    return n;
}

/* Seats 0..n-1 are players 1..n; the game started at T0 with a clock of
 * `clock_ms` (0: none) plus `increment_ms` a move. */
static void started_with_clock(const char *game_name, const char *mode, int players,
                               const char *timeout, int64_t clock_ms, int64_t increment_ms)
{
    new_match(game_name, mode, timeout, clock_ms);
    state.options.clock_increment_ms = increment_ms;
    state.game.options.clock_increment_ms = increment_ms;
    for (int seat = 0; seat < players; seat++)
        ok(join(seat + 1, seat));
    ok(start(T0));
}

static void started(const char *game_name, const char *mode, int players, const char *timeout,
                    int64_t clock_ms)
{
    started_with_clock(game_name, mode, players, timeout, clock_ms, 0);
}

/* Every game and mode, each with its most seats. */
static const struct {
    const char *game, *mode;
    int seats;
} MODES[] = {{"blokus", "4p", 4},  {"blokus", "3p", 3},         {"blokus", "2p", 2},
             {"blokus", "duo", 2}, {"reef-builder", "solo", 1}, {"reef-builder", "race", 4}};

#define MODE_COUNT ((int)(sizeof(MODES) / sizeof(MODES[0])))

/* The moment `seat`'s clock runs out on its current turn. */
static int64_t flag_of(int seat)
{
    return state.seats[seat].turn_started_ms + state.seats[seat].clock_ms;
}

static void test_seats_fill_and_refuse_what_does_not_fit(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    ok(join(1, -1));
    assert_int_equal(state.seats[0].player_id, 1);
    assert_true(published(MATCH_PUBLISH_VIEW) && published(MATCH_PUBLISH_ROOM));
    assert_int_equal(effects.record_count, 0); /* a waiting seat is not stored */
    assert_int_equal(refused(join(1, 1)), PROTOCOL_E_SEAT_TAKEN);
    assert_int_equal(refused(join(2, 0)), PROTOCOL_E_SEAT_TAKEN);
    assert_int_equal(refused(join(2, 2)), PROTOCOL_E_BAD_MESSAGE);
    ok(join(2, -1));
    assert_int_equal(refused(join(3, -1)), PROTOCOL_E_ROOM_FULL);
}

static void test_only_the_owner_adds_bots_and_starts(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    match_event stranger = add_bot(0, "greedy");
    stranger.member = OWNER + 1;
    assert_int_equal(refused(stranger), PROTOCOL_E_NOT_OWNER);
    assert_int_equal(refused(add_bot(0, "deep-blue")), PROTOCOL_E_BAD_MESSAGE);
    ok(add_bot(0, "greedy"));
    assert_int_equal(refused(add_bot(0, "mcts")), PROTOCOL_E_SEAT_TAKEN);
    assert_int_equal(refused(start(T0)), PROTOCOL_E_SEATS_EMPTY);
    ok(add_bot(1, "mcts"));
    match_event not_owner = start(T0);
    not_owner.member = 1;
    assert_int_equal(refused(not_owner), PROTOCOL_E_NOT_OWNER);
    ok(start(T0));
    assert_int_equal(refused(start(T0)), PROTOCOL_E_ALREADY_STARTED);
    assert_int_equal(refused(join(5, -1)), PROTOCOL_E_ALREADY_STARTED);
}

static void test_start_stores_the_seats_and_the_start_in_every_mode(void **unused)
{
    (void)unused;
    for (int i = 0; i < MODE_COUNT; i++) {
        started(MODES[i].game, MODES[i].mode, MODES[i].seats, "", 0);
        assert_int_equal(state.status, MATCH_PLAYING);
        assert_int_equal(records_of(MATCH_RECORD_SEAT), MODES[i].seats);
        assert_int_equal(records_of(MATCH_RECORD_START), 1);
        assert_int_equal(effects.publishes[0].kind, MATCH_PUBLISH_STARTED);
        assert_true(effects.publishes[0].is_reply);
        assert_true(published(MATCH_PUBLISH_STATE));
        assert_false(effects.wants_bot); /* players only */
        assert_int_equal(effects.wake_at_ms, 0);
    }
}

static void test_a_race_starts_with_whoever_is_seated(void **unused)
{
    (void)unused;
    new_match("reef-builder", "race", "", 0);
    ok(join(1, 1));
    ok(add_bot(3, "greedy"));
    ok(start(T0));
    assert_int_equal(state.options.seat_count, 2);
    assert_int_equal(state.seats[0].player_id, 1);
    assert_int_equal(state.seats[1].kind, MATCH_SEAT_BOT);
    assert_true(effects.wants_bot && effects.bot.seat == 1);
}

static void test_moves_are_checked_then_logged_and_announced(void **unused)
{
    (void)unused;
    started("blokus", "duo", 2, "", 0);
    match_event move = first_move(1, 0, T0 + 50);
    game_move action = move.move;
    move.ply = 1;
    assert_int_equal(refused(move), PROTOCOL_E_STALE_PLY);
    move.ply = 0;
    move.player_id = 2;
    assert_int_equal(refused(move), PROTOCOL_E_NOT_YOUR_TURN);
    move.player_id = 9;
    assert_int_equal(refused(move), PROTOCOL_E_NOT_IN_ROOM);
    move.player_id = 1;
    blokus_move corner = {0, 0, 0, 0}; /* I1 at (0,0) */
    move.move = game_move_of_blokus(corner);
    assert_int_equal(refused(move), PROTOCOL_E_ILLEGAL_MOVE); /* duo starts at (4,4) */
    assert_string_equal(failure.reason, "not_on_start");
    move.move = game_move_of_reef(reef_place(4, 4, 0));
    assert_int_equal(refused(move), PROTOCOL_E_BAD_MESSAGE); /* a Reef action */
    assert_non_null(strstr(failure.message, "this room plays blokus"));
    move.move = action;
    ok(move);
    assert_int_equal(effects.record_count, 1);
    assert_int_equal(effects.records[0].kind, MATCH_RECORD_ACTION);
    assert_int_equal(effects.records[0].seq, 0);
    assert_int_equal(effects.records[0].ply, 0);
    assert_int_equal(effects.records[0].elapsed_ms, 50);
    assert_int_equal(effects.publishes[0].kind, MATCH_PUBLISH_MOVED);
    assert_true(effects.publishes[0].is_reply);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_NONE);
    assert_int_equal(game_ply(&state.game, 0), 1);
    assert_int_equal(state.seq, 1);
}

static void test_clocks_charge_the_turn_and_flag_at_zero(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "pass", 5000);
    state.options.clock_increment_ms = 1000;
    state.game.options.clock_increment_ms = 1000;
    ok(join(1, 0));
    ok(join(2, 1));
    ok(start(T0));
    assert_int_equal(effects.wake_at_ms, T0 + 5000);
    play_as(1, 0, T0 + 2000);
    assert_int_equal(effects.records[0].clock_ms, 5000 - 2000 + 1000);
    assert_int_equal(effects.wake_at_ms, T0 + 2000 + 5000); /* seat 1's turn started */
    ok(timer(T0 + 6999));
    assert_int_equal(effects.record_count, 0);
    ok(timer(T0 + 7000));
    assert_int_equal(effects.record_count, 1);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_TIMEOUT);
    assert_int_equal(effects.publishes[0].move.blokus.piece, BLOKUS_PASS);
    assert_int_equal(state.seats[1].clock_ms, 0 + 1000);
}

static void test_timeout_policy_bot_plays_the_greedy_move(void **unused)
{
    (void)unused;
    started("blokus", "duo", 2, "bot", 1000);
    ok(timer(T0 + 1000));
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_TIMEOUT);
    assert_true(effects.publishes[0].move.blokus.piece != BLOKUS_PASS);
}

/* A search bot whose job waited past its time (0 ms left) plays the
 * greedy move at once, the strongest level as much as mcts. */
static void test_a_search_bot_without_time_plays_the_greedy_move(void **unused)
{
    (void)unused;
    started("blokus", "duo", 2, "bot", 1000);
    game_move greedy, searched;
    assert_int_equal(game_bot_move(&state.game, 0, "greedy", 0, 7, NULL, &greedy), 0);
    static const char *const searches[] = {"mcts", "mcts-v2"};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(game_bot_move(&state.game, 0, searches[i], 0, 7, NULL, &searched), 0);
        assert_memory_equal(&searched.blokus, &greedy.blokus, sizeof(greedy.blokus));
    }
}

/* The clock is judged at the time the move was read: 5 ms before the flag
 * it is played, 5 ms after it is refused and nothing changes -- the timer
 * (which the lobby runs at once) then plays the timeout policy. */
static void test_a_move_after_the_flag_is_refused_out_of_time(void **unused)
{
    (void)unused;
    started_with_clock("blokus", "duo", 2, "pass", 5000, 0);
    play_as(1, 0, flag_of(0) - 5);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_NONE);
    assert_int_equal(state.seats[0].clock_ms, 5);
    match_event late = first_move(2, 1, flag_of(1) + 5);
    assert_int_equal(refused(late), PROTOCOL_E_OUT_OF_TIME);
    assert_non_null(strstr(failure.message, "5 ms"));
    ok(timer(late.now_ms));
    assert_int_equal(effects.publishes[0].kind, MATCH_PUBLISH_MOVED);
    assert_int_equal(effects.publishes[0].seat, 1);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_TIMEOUT);
    assert_int_equal(effects.publishes[0].move.blokus.piece, BLOKUS_PASS);
    /* Reef boards each have their clock, judged the same way. */
    started_with_clock("reef-builder", "race", 2, "bot", 5000, 0);
    play_as(1, 0, flag_of(0) - 5);
    late = first_move(2, 1, flag_of(1) + 5);
    assert_int_equal(refused(late), PROTOCOL_E_OUT_OF_TIME);
}

/* Players who never move: in every mode, under either policy, with or
 * without an increment, the clock plays for each seat until its
 * MATCH_TIMEOUTS_TO_RESIGN-th timeout in a row resigns it, and the game
 * ends -- after a bounded number of plies, at no more than one timer event
 * per seat and tick. */
static void test_idle_seats_resign_by_the_clock_and_every_game_ends(void **unused)
{
    (void)unused;
    static const char *const POLICIES[] = {"bot", "pass"};
    static const int64_t INCREMENTS[] = {0, 2000};
    for (int i = 0; i < MODE_COUNT * 4; i++) {
        int mode = i / 4;
        started_with_clock(MODES[mode].game, MODES[mode].mode, MODES[mode].seats, POLICIES[i % 2],
                           1000, INCREMENTS[i / 2 % 2]);
        int timeouts[GAME_MAX_SEATS] = {0}, resignations[GAME_MAX_SEATS] = {0};
        int64_t at = T0;
        for (int tick = 0; tick < 100 && state.status == MATCH_PLAYING; tick++) {
            at = effects.wake_at_ms > at ? effects.wake_at_ms : at + 100; /* the next tick */
            ok(timer(at));
            for (int p = 0; p < effects.publish_count; p++) {
                const match_publish *publish = &effects.publishes[p];
                timeouts[publish->seat] +=
                    publish->kind == MATCH_PUBLISH_MOVED && publish->cause == MATCH_CAUSE_TIMEOUT;
                resignations[publish->seat] += publish->kind == MATCH_PUBLISH_RESIGNED &&
                                               publish->cause == MATCH_CAUSE_TIMEOUT;
            }
        }
        assert_int_equal(state.status, MATCH_FINISHED);
        for (int seat = 0; seat < MODES[mode].seats; seat++) {
            assert_true(timeouts[seat] <= MATCH_TIMEOUTS_TO_RESIGN - 1);
            assert_true(resignations[seat] <= 1);
        }
        assert_int_equal(resignations[0], 1); /* seat 0 is flagged first, in every mode */
        assert_int_equal(timeouts[0], MATCH_TIMEOUTS_TO_RESIGN - 1);
    }
}

/* Seat 0's clock runs out and the policy plays; seat 1 answers in time. */
static void seat_0_times_out(void)
{
    ok(timer(flag_of(0)));
    assert_int_equal(effects.publishes[0].kind, MATCH_PUBLISH_MOVED);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_TIMEOUT);
    play_as(2, 1, state.seats[1].turn_started_ms + 10);
}

/* Only timeouts in a row count: a move of the seat's own starts again. */
static void test_a_move_of_its_own_resets_the_timeouts_in_a_row(void **unused)
{
    (void)unused;
    started_with_clock("blokus", "duo", 2, "pass", 1000, 2000);
    for (int i = 0; i < MATCH_TIMEOUTS_TO_RESIGN - 1; i++)
        seat_0_times_out();
    play_as(1, 0, state.seats[0].turn_started_ms + 10); /* in time: the row is broken */
    play_as(2, 1, state.seats[1].turn_started_ms + 10);
    for (int i = 0; i < MATCH_TIMEOUTS_TO_RESIGN - 1; i++)
        seat_0_times_out();
    ok(timer(flag_of(0)));
    assert_int_equal(records_of(MATCH_RECORD_ACTION), 1);
    assert_int_equal(effects.records[0].action.kind, MATCH_ACTION_RESIGN);
    assert_int_equal(effects.publishes[0].kind, MATCH_PUBLISH_RESIGNED);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_TIMEOUT);
    assert_int_equal(state.status, MATCH_FINISHED); /* duo: one seat left in play */
}

static void test_resigning_is_logged_and_can_end_the_game_at_once(void **unused)
{
    (void)unused;
    started("blokus", "2p", 2, "", 0);
    match_event resign = {.kind = MATCH_EVENT_RESIGN, .now_ms = T0 + 10, .player_id = 2};
    ok(resign);
    /* the resignation and the result are one event, so one transaction */
    assert_int_equal(records_of(MATCH_RECORD_ACTION), 1);
    assert_int_equal(records_of(MATCH_RECORD_FINISH), 1);
    assert_int_equal(effects.records[0].action.kind, MATCH_ACTION_RESIGN);
    assert_true(published(MATCH_PUBLISH_RESIGNED) && published(MATCH_PUBLISH_OVER));
    assert_int_equal(state.status, MATCH_FINISHED);
    match_result result;
    match_result_of(&state, &result);
    assert_int_equal(result.ranks[0], 1);
    assert_int_equal(result.ranks[1], 2);
    assert_int_equal(result.reason, GAME_END_RESIGNATIONS);
    assert_int_equal(effects.wake_at_ms, T0 + 10 + CONFIG.finished_room_ttl_ms);
    assert_int_equal(refused(resign), PROTOCOL_E_GAME_OVER);
}

/* 3p: the shared color's turn of a resigned seat is passed inside the same
 * event, so the state published afterwards never shows it to move. */
static void test_3p_resigned_seat_is_never_left_to_move(void **unused)
{
    (void)unused;
    started("blokus", "3p", 3, "", 0);
    ok((match_event){.kind = MATCH_EVENT_RESIGN, .now_ms = T0, .player_id = 2});
    for (int turn = 0; turn < 12 && state.status == MATCH_PLAYING; turn++) {
        int seat = blokus_player_to_move(&state.game.state.blokus);
        assert_false(state.game.has_resigned[seat]);
        play_as(seat + 1, seat, T0 + turn);
        for (int i = 0; i < effects.publish_count; i++)
            if (effects.publishes[i].cause == MATCH_CAUSE_RESIGNED)
                assert_int_equal(effects.publishes[i].seat, 1);
    }
}

static void test_leaving_once_is_stored_and_a_stand_in_takes_the_seat(void **unused)
{
    (void)unused;
    started("blokus", "duo", 2, "", 0);
    match_event leave = {.kind = MATCH_EVENT_LEAVE, .now_ms = T0 + 5, .player_id = 1};
    ok(leave);
    assert_int_equal(effects.records[0].action.kind, MATCH_ACTION_LEAVE);
    assert_true(state.seats[0].has_left);
    assert_true(effects.wants_bot && effects.bot.seat == 0);
    assert_string_equal(effects.bot.bot, "greedy");
    assert_int_equal(refused(leave), PROTOCOL_E_NOT_IN_ROOM);
    match_event bot = {.kind = MATCH_EVENT_BOT_MOVE, .now_ms = T0 + 9, .seat = 0, .ply = 0};
    assert_int_equal(game_bot_move(&state.game, 0, "greedy", 0, 1, NULL, &bot.move), 0);
    ok(bot);
    assert_int_equal(effects.publishes[0].cause, MATCH_CAUSE_STAND_IN);
    assert_int_equal(refused(bot), PROTOCOL_E_STALE_PLY); /* the same answer twice */
}

static void test_an_absent_player_is_covered_after_the_grace_and_back_after(void **unused)
{
    (void)unused;
    started("blokus", "duo", 2, "", 0);
    ok((match_event){.kind = MATCH_EVENT_DISCONNECT, .now_ms = T0 + 100, .player_id = 1});
    assert_false(effects.wants_bot);
    assert_int_equal(effects.wake_at_ms, T0 + 100 + CONFIG.reconnect_grace_ms);
    ok(timer(T0 + 100 + CONFIG.reconnect_grace_ms));
    assert_true(effects.wants_bot && effects.bot.seat == 0);
    assert_true(effects.bot.deadline_ms <= T0 + CONFIG.bot_think_ms); /* from the turn's start */
    ok((match_event){.kind = MATCH_EVENT_RECONNECT, .now_ms = T0 + 70000, .player_id = 1});
    assert_false(effects.wants_bot);
    assert_true(published(MATCH_PUBLISH_VIEW));
}

/* A reload or a network drop before the start: the seat waits for the
 * grace, and its player takes it back and starts. */
static void test_a_waiting_seat_is_kept_for_its_player_through_the_grace(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    ok(join(1, 0));
    ok(add_bot(1, "greedy"));
    ok((match_event){.kind = MATCH_EVENT_DISCONNECT, .now_ms = T0 + 100, .player_id = 1});
    assert_int_equal(state.seats[0].kind, MATCH_SEAT_PLAYER);
    assert_true(state.seats[0].is_away);
    assert_true(published(MATCH_PUBLISH_ROOM));
    assert_int_equal(effects.wake_at_ms, T0 + 100 + CONFIG.reconnect_grace_ms);
    ok(timer(T0 + 100 + CONFIG.reconnect_grace_ms - 1));
    assert_int_equal(state.seats[0].kind, MATCH_SEAT_PLAYER);
    assert_int_equal(refused(join(2, 0)), PROTOCOL_E_SEAT_TAKEN);
    ok((match_event){.kind = MATCH_EVENT_RECONNECT, .now_ms = T0 + 200, .player_id = 1});
    assert_false(state.seats[0].is_away);
    assert_true(published(MATCH_PUBLISH_VIEW));
    assert_int_equal(effects.wake_at_ms, 0);
    ok(start(T0 + 300));
    assert_int_equal(state.status, MATCH_PLAYING);
}

/* A player away past the grace before the start gives its seat up, for
 * others to take; the room wants no more wake-ups for it. */
static void test_a_waiting_seat_away_past_the_grace_is_given_up(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    ok(join(1, 0));
    ok(join(2, 1));
    ok((match_event){.kind = MATCH_EVENT_DISCONNECT, .now_ms = T0, .player_id = 1});
    ok((match_event){.kind = MATCH_EVENT_DISCONNECT, .now_ms = T0 + 500, .player_id = 2});
    assert_int_equal(effects.wake_at_ms, T0 + CONFIG.reconnect_grace_ms); /* the earlier one */
    ok(timer(T0 + CONFIG.reconnect_grace_ms));
    assert_int_equal(state.seats[0].kind, MATCH_SEAT_EMPTY);
    assert_int_equal(state.seats[1].kind, MATCH_SEAT_PLAYER);
    assert_true(published(MATCH_PUBLISH_ROOM));
    assert_int_equal(effects.record_count, 0); /* a waiting seat is not stored */
    assert_int_equal(effects.wake_at_ms, T0 + 500 + CONFIG.reconnect_grace_ms);
    ok(join(3, 0));
    assert_int_equal(refused((match_event){.kind = MATCH_EVENT_RECONNECT,
                                           .now_ms = T0 + CONFIG.reconnect_grace_ms,
                                           .player_id = 1}),
                     PROTOCOL_E_NOT_IN_ROOM);
    ok(timer(T0 + 500 + CONFIG.reconnect_grace_ms));
    assert_int_equal(state.seats[1].kind, MATCH_SEAT_EMPTY);
    assert_int_equal(effects.wake_at_ms, 0);
}

static void test_a_bot_seat_asks_for_its_move_with_a_deadline(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    ok(add_bot(0, "mcts"));
    ok(join(1, 1));
    ok(start(T0));
    assert_true(effects.wants_bot);
    assert_int_equal(effects.bot.seat, 0);
    assert_int_equal(effects.bot.ply, 0);
    assert_string_equal(effects.bot.bot, "mcts");
    assert_int_equal(effects.bot.deadline_ms, T0 + CONFIG.bot_think_ms);
    match_event early = {.kind = MATCH_EVENT_BOT_MOVE, .now_ms = T0, .seat = 0, .ply = 1};
    assert_int_equal(refused(early), PROTOCOL_E_STALE_PLY);
}

static void test_a_finished_room_closes_when_its_time_is_up(void **unused)
{
    (void)unused;
    started("reef-builder", "solo", 1, "", 0);
    ok((match_event){.kind = MATCH_EVENT_RESIGN, .now_ms = T0, .player_id = 1});
    assert_int_equal(state.status, MATCH_FINISHED);
    ok(timer(T0 + CONFIG.finished_room_ttl_ms - 1));
    assert_false(effects.is_closed);
    ok(timer(T0 + CONFIG.finished_room_ttl_ms));
    assert_true(effects.is_closed);
}

static void test_only_an_empty_waiting_room_is_abandoned(void **unused)
{
    (void)unused;
    new_match("blokus", "4p", "", 0);
    ok(join(1, 0));
    match_event abandon = {.kind = MATCH_EVENT_ABANDON, .now_ms = T0};
    assert_int_equal(refused(abandon), PROTOCOL_E_INTERNAL);
    ok((match_event){.kind = MATCH_EVENT_LEAVE, .now_ms = T0, .player_id = 1});
    assert_int_equal(effects.record_count, 0); /* leaving a waiting seat stores nothing */
    ok(abandon);
    assert_int_equal(records_of(MATCH_RECORD_ABORT), 1);
    assert_true(effects.is_closed);
}

/* The owner's line drops while it watches a waiting room: the room waits
 * for it for the grace (and wakes then), stores nothing; a room under way
 * does not wait for anyone this way. */
static void test_a_waiting_room_awaits_its_owner_for_the_grace(void **unused)
{
    (void)unused;
    new_match("blokus", "duo", "", 0);
    assert_false(match_awaits_owner(&state, T0));
    ok((match_event){.kind = MATCH_EVENT_OWNER_AWAY, .now_ms = T0});
    assert_int_equal(effects.record_count, 0);
    assert_int_equal(effects.wake_at_ms, T0 + CONFIG.reconnect_grace_ms);
    assert_true(match_awaits_owner(&state, T0 + CONFIG.reconnect_grace_ms - 1));
    assert_false(match_awaits_owner(&state, T0 + CONFIG.reconnect_grace_ms));
    ok(timer(T0 + CONFIG.reconnect_grace_ms));
    assert_int_equal(effects.wake_at_ms, 0); /* nothing more to wait for */
    started("blokus", "duo", 2, "", 0);
    match_event away = {.kind = MATCH_EVENT_OWNER_AWAY, .now_ms = T0};
    assert_int_equal(refused(away), PROTOCOL_E_INTERNAL);
}

static void test_reef_boards_move_independently(void **unused)
{
    (void)unused;
    started("reef-builder", "race", 2, "", 0);
    play_as(2, 1, T0 + 1);
    play_as(2, 1, T0 + 2);
    assert_int_equal(game_ply(&state.game, 0), 0);
    assert_int_equal(game_ply(&state.game, 1), 2);
    play_as(1, 0, T0 + 3);
    assert_int_equal(game_ply(&state.game, 0), 1);
    match_event blokus = first_move(1, 0, T0 + 4);
    blokus_move piece = {0, 0, 0, 0}; /* I1 at (0,0): a Blokus action */
    blokus.move = game_move_of_blokus(piece);
    assert_int_equal(refused(blokus), PROTOCOL_E_BAD_MESSAGE);
    assert_non_null(strstr(failure.message, "this room plays reef-builder"));
}

/* The records of a game, fed back as events, rebuild exactly its state. */
static void test_replaying_the_records_rebuilds_the_same_match(void **unused)
{
    (void)unused;
    match_record log[512];
    int logged = 0;
    started("blokus", "4p", 4, "", 30000);
    rng random = rng_seeded(3);
    for (int turn = 0; turn < 40 && state.status == MATCH_PLAYING; turn++) {
        int seat = blokus_player_to_move(&state.game.state.blokus);
        int64_t at = T0 + 1000 * (turn + 1);
        if (turn == 9)
            ok((match_event){.kind = MATCH_EVENT_LEAVE, .now_ms = at, .player_id = 3});
        else if (rng_below(&random, 10) == 0 && !state.seats[seat].has_left)
            ok((match_event){.kind = MATCH_EVENT_RESIGN, .now_ms = at, .player_id = seat + 1});
        else if (state.seats[seat].has_left)
            stand_in_plays(seat, at);
        else
            play_as(seat + 1, seat, at);
        for (int i = 0; i < effects.record_count; i++)
            if (effects.records[i].kind == MATCH_RECORD_ACTION)
                log[logged++] = effects.records[i];
    }
    match live = state;
    new_match("blokus", "4p", "", 30000);
    state.owner = OWNER;
    for (int seat = 0; seat < 4; seat++)
        ok(join(seat + 1, seat));
    ok(start(T0));
    for (int i = 0; i < logged; i++)
        ok((match_event){.kind = MATCH_EVENT_RECORD,
                         .now_ms = log[i].at_ms,
                         .seat = log[i].seat,
                         .ply = log[i].ply,
                         .record = log[i].action});
    assert_int_equal(state.seq, live.seq);
    assert_memory_equal(&state.game, &live.game, sizeof(live.game));
    for (int seat = 0; seat < 4; seat++) {
        assert_int_equal(state.seats[seat].clock_ms, live.seats[seat].clock_ms);
        assert_int_equal(state.seats[seat].has_left, live.seats[seat].has_left);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seats_fill_and_refuse_what_does_not_fit),
        cmocka_unit_test(test_only_the_owner_adds_bots_and_starts),
        cmocka_unit_test(test_start_stores_the_seats_and_the_start_in_every_mode),
        cmocka_unit_test(test_a_race_starts_with_whoever_is_seated),
        cmocka_unit_test(test_moves_are_checked_then_logged_and_announced),
        cmocka_unit_test(test_clocks_charge_the_turn_and_flag_at_zero),
        cmocka_unit_test(test_timeout_policy_bot_plays_the_greedy_move),
        cmocka_unit_test(test_a_search_bot_without_time_plays_the_greedy_move),
        cmocka_unit_test(test_a_move_after_the_flag_is_refused_out_of_time),
        cmocka_unit_test(test_idle_seats_resign_by_the_clock_and_every_game_ends),
        cmocka_unit_test(test_a_move_of_its_own_resets_the_timeouts_in_a_row),
        cmocka_unit_test(test_resigning_is_logged_and_can_end_the_game_at_once),
        cmocka_unit_test(test_3p_resigned_seat_is_never_left_to_move),
        cmocka_unit_test(test_leaving_once_is_stored_and_a_stand_in_takes_the_seat),
        cmocka_unit_test(test_an_absent_player_is_covered_after_the_grace_and_back_after),
        cmocka_unit_test(test_a_waiting_seat_is_kept_for_its_player_through_the_grace),
        cmocka_unit_test(test_a_waiting_seat_away_past_the_grace_is_given_up),
        cmocka_unit_test(test_a_bot_seat_asks_for_its_move_with_a_deadline),
        cmocka_unit_test(test_a_finished_room_closes_when_its_time_is_up),
        cmocka_unit_test(test_only_an_empty_waiting_room_is_abandoned),
        cmocka_unit_test(test_a_waiting_room_awaits_its_owner_for_the_grace),
        cmocka_unit_test(test_reef_boards_move_independently),
        cmocka_unit_test(test_replaying_the_records_rebuilds_the_same_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
