/* test_store_results.c -- what a finished game leaves behind besides its
 * result: ratings with their history, built-in bots' rating rows, and
 * Reef runs with the best-per-board rows the leaderboards read; and the
 * tournaments whose standings those results move; and, on PostgreSQL,
 * results that two instances store at once. Run as unit_store_results_pg,
 * on PostgreSQL (test_db.h). */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "storage/store_internal.h"
#include "storage/store_port.h"
#include "tests/unit/test_db.h"

/* 2026-11-24 (a Tuesday) 12:00 UTC. */
#define TUESDAY_NOON_MS 1795521600000LL
#define DAY_MS          86400000LL

/* The database of the test running (cmocka runs one at a time). */
static test_db current;

static int setup(void **state)
{
    store *storage = NULL;
    assert_int_equal(test_db_make(&current), 0);
    assert_int_equal(store_open(current.path, false, &storage), STORE_OK);
    *state = storage;
    return 0;
}

static int teardown(void **state)
{
    store_close(*state);
    test_db_drop(&current);
    return 0;
}

/* A number `sql` reads from the test's database (`storage` is its store). */
static int64_t query_integer(store *storage, const char *sql)
{
    (void)storage;
    return test_db_integer(current.path, sql);
}

static int64_t new_guest(store *storage, const char *name)
{
    int64_t id = 0;
    assert_int_equal(store_player_create(storage, name, false, name, &id), STORE_OK);
    return id;
}

static int64_t new_game(store *storage, const char *game, const char *mode)
{
    store_game_info info = {"ROOM", game, mode, "{}", 7, TUESDAY_NOON_MS, 0, 0};
    int64_t id = 0;
    assert_int_equal(store_game_create(storage, &info, &id), STORE_OK);
    return id;
}

static store_rating_change change_of(int64_t player, int64_t game, double mu_after, bool won)
{
    store_rating_change change = {player,   "blokus-duo", game, 25.0, 25.0 / 3,
                                  mu_after, 7.5,          80,   won,  TUESDAY_NOON_MS};
    return change;
}

static void test_builtin_player_is_created_once_and_listed(void **state)
{
    store *storage = *state;
    int64_t first = 0, again = 0;
    assert_int_equal(store_builtin_player(storage, "bot:mcts@300ms", &first), STORE_OK);
    assert_int_equal(store_builtin_player(storage, "bot:mcts@300ms", &again), STORE_OK);
    assert_int_equal(first, again);
    store_player player;
    assert_int_equal(store_player_by_id(storage, first, &player), STORE_OK);
    assert_string_equal(player.name, "bot:mcts@300ms");
    assert_true(player.is_bot);
    assert_int_equal(store_builtin_player(storage, "", &first), STORE_E_INVALID);
}

static void test_rating_is_absent_before_the_first_game(void **state)
{
    store *storage = *state;
    store_rating rating;
    int64_t ada = new_guest(storage, "ada");
    assert_int_equal(store_rating_get(storage, ada, "blokus-duo", &rating), STORE_E_NOT_FOUND);
}

static void test_rating_record_counts_games_wins_and_scores(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t first = new_game(storage, "blokus", "duo");
    int64_t second = new_game(storage, "blokus", "duo");
    store_rating_change change = change_of(ada, first, 27.5, true);
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    change = change_of(ada, second, 26.0, false);
    change.score = 40;
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    store_rating rating;
    assert_int_equal(store_rating_get(storage, ada, "blokus-duo", &rating), STORE_OK);
    assert_float_equal(rating.mu, 26.0, 1e-12);
    assert_float_equal(rating.sigma, 7.5, 1e-12);
    assert_int_equal(rating.games, 2);
    assert_int_equal(rating.wins, 1);
    assert_int_equal(rating.score_total, 120);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM rating_history"), 2);
    assert_int_equal(query_integer(storage, "SELECT round(display * 1000) FROM ratings"),
                     (int64_t)((26.0 - 3 * 7.5) * 1000));
    /* a guest is rated but not listed on leaderboards */
    assert_int_equal(query_integer(storage, "SELECT listed FROM ratings"), 0);
}

static void test_rating_record_twice_for_one_game_changes_nothing(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t game = new_game(storage, "blokus", "duo");
    store_rating_change change = change_of(ada, game, 27.5, true);
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    change.mu_after = 30;
    assert_int_equal(store_rating_record(storage, &change), STORE_E_CONSTRAINT);
    store_rating rating;
    assert_int_equal(store_rating_get(storage, ada, "blokus-duo", &rating), STORE_OK);
    assert_float_equal(rating.mu, 27.5, 1e-12);
    assert_int_equal(rating.games, 1);
}

static void test_rating_record_refuses_bad_pools_and_players(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t game = new_game(storage, "blokus", "duo");
    store_rating_change change = change_of(ada, game, 27.5, true);
    change.pool = "chess";
    assert_int_equal(store_rating_record(storage, &change), STORE_E_INVALID);
    change = change_of(ada + 100, game, 27.5, true);
    assert_int_not_equal(store_rating_record(storage, &change), STORE_OK);
    change = change_of(ada, game, 27.5, true);
    change.sigma_after = 0;
    assert_int_equal(store_rating_record(storage, &change), STORE_E_INVALID);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM rating_history"), 0);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM ratings"), 0);
}

static void test_a_guest_claiming_its_name_is_listed(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "Ada");
    store_rating_change change = change_of(ada, new_game(storage, "blokus", "duo"), 27, true);
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    assert_int_equal(query_integer(storage, "SELECT listed FROM ratings"), 0);
    assert_int_equal(store_account_claim(storage, ada, "Ada", "ada", "$argon2id$x", "new-token"),
                     STORE_OK);
    assert_int_equal(query_integer(storage, "SELECT listed FROM ratings"), 1);
    /* a claim that fails lists nothing */
    int64_t bob = new_guest(storage, "bob");
    change = change_of(bob, new_game(storage, "blokus", "duo"), 20, false);
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    assert_int_not_equal(store_account_claim(storage, bob, "Ada", "ada", "$argon2id$x", "t2"),
                         STORE_OK);
    assert_int_equal(query_integer(storage, "SELECT listed FROM ratings WHERE player_id = 2"), 0);
}

static void test_builtin_bot_ratings_are_listed(void **state)
{
    store *storage = *state;
    int64_t bot = 0;
    assert_int_equal(store_builtin_player(storage, "bot:greedy", &bot), STORE_OK);
    store_rating_change change = change_of(bot, new_game(storage, "blokus", "duo"), 24, false);
    assert_int_equal(store_rating_record(storage, &change), STORE_OK);
    assert_int_equal(query_integer(storage, "SELECT listed FROM ratings"), 1);
}

/* A submitted run; its actions differ with its time, so no two are the
 * same run. */
static int64_t add_run(store *storage, int64_t player, uint64_t seed, int64_t score, int64_t at_ms)
{
    char actions[32];
    snprintf(actions, sizeof(actions), "\"%lld\"", (long long)at_ms);
    store_reef_run run = {player, seed, score, 0, actions, at_ms};
    int64_t id = 0;
    assert_int_equal(store_reef_run_add(storage, &run, &id, NULL), STORE_OK);
    return id;
}

static int64_t best(store *storage, const char *board)
{
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT max(score) FROM reef_best WHERE board = '%s'", board);
    return query_integer(storage, sql);
}

static int64_t boards(store *storage, const char *board)
{
    char sql[160];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM reef_best WHERE board = '%s'", board);
    return query_integer(storage, sql);
}

static void test_reef_run_counts_for_seed_day_week_and_all(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t cyd = new_guest(storage, "cyd");
    add_run(storage, ada, 20261124, 90, TUESDAY_NOON_MS);
    assert_int_equal(best(storage, "seed:20261124"), 90);
    assert_int_equal(best(storage, "day:20261124"), 90);
    assert_int_equal(best(storage, "all"), 90);
    /* The week's seed is its Monday's: Tuesday's seed is not on it */
    assert_int_equal(boards(storage, "week:20261123"), 0);
    add_run(storage, cyd, 20261123, 50, TUESDAY_NOON_MS);
    assert_int_equal(best(storage, "week:20261123"), 50);
    assert_int_equal(boards(storage, "day:20261124"), 1);
    /* Sunday the 29th is still that week; Monday the 30th starts the next */
    add_run(storage, cyd, 20261123, 95, TUESDAY_NOON_MS + 5 * DAY_MS);
    add_run(storage, cyd, 20261123, 99, TUESDAY_NOON_MS + 6 * DAY_MS);
    assert_int_equal(best(storage, "week:20261123"), 95);
    assert_int_equal(boards(storage, "week:20261130"), 0);
    assert_int_equal(best(storage, "all"), 99);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_runs"), 4);
}

/* A run of a seed of one's choosing tops no period's board, and a daily
 * seed played on another day counts for its seed only. */
static void test_reef_day_and_week_boards_take_their_periods_seed_only(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    add_run(storage, ada, 7, 9000, TUESDAY_NOON_MS);
    add_run(storage, ada, 20261124, 10, TUESDAY_NOON_MS + DAY_MS);
    add_run(storage, ada, 20261124, 20, TUESDAY_NOON_MS - DAY_MS);
    assert_int_equal(boards(storage, "day:20261124"), 0);
    assert_int_equal(boards(storage, "day:20261125"), 0);
    assert_int_equal(boards(storage, "day:20261123"), 0);
    assert_int_equal(boards(storage, "week:20261123"), 0);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_best WHERE board LIKE "
                                            "'day:%' OR board LIKE 'week:%'"),
                     0);
    assert_int_equal(best(storage, "seed:7"), 9000);
    assert_int_equal(best(storage, "seed:20261124"), 20);
}

/* The same player, seed and actions are one run: a repeat stores nothing
 * and answers the first run's id. */
static void test_reef_submitted_run_is_stored_once(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t cyd = new_guest(storage, "cyd");
    store_reef_run run = {ada, 20261124, 40, 0, "\"00r 01d s\"", TUESDAY_NOON_MS};
    int64_t first = 0, again = 0;
    bool is_repeat = true;
    assert_int_equal(store_reef_run_add(storage, &run, &first, &is_repeat), STORE_OK);
    assert_false(is_repeat);
    for (int i = 0; i < 30; i++) {
        run.at_ms = TUESDAY_NOON_MS + DAY_MS + i;
        assert_int_equal(store_reef_run_add(storage, &run, &again, &is_repeat), STORE_OK);
        assert_true(is_repeat);
        assert_int_equal(again, first);
    }
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_runs"), 1);
    assert_int_equal(boards(storage, "day:20261125"), 0);
    /* Another player, or other actions, or another seed: another run */
    store_reef_run other_player = {cyd, 20261124, 40, 0, "\"00r 01d s\"", TUESDAY_NOON_MS};
    store_reef_run other_actions = {ada, 20261124, 40, 0, "\"00r 01d\"", TUESDAY_NOON_MS};
    store_reef_run other_seed = {ada, 3, 40, 0, "\"00r 01d s\"", TUESDAY_NOON_MS};
    assert_int_equal(store_reef_run_add(storage, &other_player, &again, &is_repeat), STORE_OK);
    assert_false(is_repeat);
    assert_int_equal(store_reef_run_add(storage, &other_actions, &again, &is_repeat), STORE_OK);
    assert_false(is_repeat);
    assert_int_equal(store_reef_run_add(storage, &other_seed, &again, &is_repeat), STORE_OK);
    assert_false(is_repeat);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_runs"), 4);
}

static void test_reef_best_keeps_the_earlier_of_equal_scores(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t first = add_run(storage, ada, 9, 80, TUESDAY_NOON_MS);
    add_run(storage, ada, 9, 80, TUESDAY_NOON_MS + 1000);
    add_run(storage, ada, 9, 60, TUESDAY_NOON_MS + 2000);
    assert_int_equal(query_integer(storage, "SELECT run_id FROM reef_best WHERE board = 'seed:9'"),
                     first);
    int64_t better = add_run(storage, ada, 9, 81, TUESDAY_NOON_MS + 3000);
    assert_int_equal(query_integer(storage, "SELECT run_id FROM reef_best WHERE board = 'seed:9'"),
                     better);
}

static void test_reef_seeds_above_int64_keep_their_decimal_board(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    add_run(storage, ada, UINT64_MAX, 10, TUESDAY_NOON_MS);
    assert_int_equal(best(storage, "seed:18446744073709551615"), 10);
}

static void test_reef_run_needs_exactly_one_source(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    int64_t game = new_game(storage, "reef-builder", "solo");
    int64_t id = 0;
    store_reef_run both = {ada, 1, 10, game, "[]", TUESDAY_NOON_MS};
    store_reef_run neither = {ada, 1, 10, 0, NULL, TUESDAY_NOON_MS};
    store_reef_run not_json = {ada, 1, 10, 0, "[", TUESDAY_NOON_MS};
    assert_int_equal(store_reef_run_add(storage, &both, &id, NULL), STORE_E_INVALID);
    assert_int_equal(store_reef_run_add(storage, &neither, &id, NULL), STORE_E_INVALID);
    assert_int_equal(store_reef_run_add(storage, &not_json, &id, NULL), STORE_E_INVALID);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_runs"), 0);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM reef_best"), 0);
    store_reef_run from_room = {ada, 1, 10, game, NULL, TUESDAY_NOON_MS};
    assert_int_equal(store_reef_run_add(storage, &from_room, &id, NULL), STORE_OK);
}

static int64_t new_tournament(store *storage, int64_t *players)
{
    players[0] = new_guest(storage, "ada");
    players[2] = new_guest(storage, "cyd");
    store_tournament_info info = {"Tuesday cup", "blokus",         "duo",
                                  "swiss",       "{\"rounds\":2}", UINT64_MAX,
                                  "nightly",     TUESDAY_NOON_MS,  0};
    /* The built-in bot's rating row is created with the tournament. */
    store_tournament_entry entries[] = {
        {players[0], NULL, NULL}, {0, "greedy", "bot:greedy"}, {players[2], NULL, NULL}};
    int64_t id = 0;
    assert_int_equal(store_tournament_create(storage, &info, 3, entries, &id), STORE_OK);
    players[1] = entries[1].player_id;
    int64_t greedy = 0;
    assert_int_equal(store_builtin_player(storage, "bot:greedy", &greedy), STORE_OK);
    assert_true(players[1] > 0);
    assert_int_equal(greedy, players[1]);
    return id;
}

static void test_tournament_is_stored_planned_and_loaded(void **state)
{
    store *storage = *state;
    int64_t players[3];
    int64_t id = new_tournament(storage, players);
    int first[] = {0, 1}, bye[] = {2};
    assert_int_equal(store_tournament_schedule(storage, id, 0, 0, 2, first), STORE_OK);
    assert_int_equal(store_tournament_schedule(storage, id, 1, 0, 1, bye), STORE_OK);
    assert_int_equal(store_tournament_schedule(storage, id, 1, 0, 1, bye), STORE_E_CONSTRAINT);
    store_game_info info = {"ROOMCODE", "blokus", "duo", "{}", 1, TUESDAY_NOON_MS, id, 0};
    int64_t game = 0;
    assert_int_equal(store_game_create(storage, &info, &game), STORE_OK);
    store_standing_change changes[] = {{0, 1.0, 1, true, 40}, {1, 0.0, 1, false, 30}};
    assert_int_equal(store_tournament_result(storage, id, 2, changes), STORE_OK);
    store_tournament_record *record = NULL;
    assert_int_equal(store_tournament_load(storage, id, &record), STORE_OK);
    assert_string_equal(record->info.name, "Tuesday cup");
    assert_true(record->info.seed == UINT64_MAX);
    assert_string_equal(record->info.arena, "nightly");
    assert_false(record->is_finished);
    assert_int_equal(record->entry_count, 3);
    assert_string_equal(record->entries[1].name, "bot:greedy");
    assert_string_equal(record->entries[1].bot, "greedy");
    assert_float_equal(record->entries[0].points, 1.0, 0);
    assert_int_equal(record->entries[0].wins, 1);
    assert_int_equal(record->entries[1].games, 1);
    assert_int_equal(record->entries[1].score_total, 30);
    assert_int_equal(record->game_count, 2);
    assert_int_equal(record->games[0].game_id, game);
    assert_string_equal(record->games[0].room, "ROOMCODE");
    assert_int_equal(record->games[0].status, STORE_GAME_WAITING);
    assert_int_equal(record->games[1].seat_count, 1);
    assert_int_equal(record->games[1].seats[0], 2);
    assert_int_equal(record->games[1].game_id, 0);
    store_tournament_record_free(record);
}

static void test_tournament_finishes_once_and_leaves_the_running_list(void **state)
{
    store *storage = *state;
    int64_t players[3];
    int64_t id = new_tournament(storage, players);
    int64_t *ids = NULL;
    int count = 0;
    assert_int_equal(store_tournaments_running(storage, &ids, &count), STORE_OK);
    assert_int_equal(count, 1);
    free(ids);
    assert_int_equal(store_tournament_finish(storage, id, TUESDAY_NOON_MS + 1), STORE_OK);
    assert_int_equal(store_tournament_finish(storage, id, TUESDAY_NOON_MS + 2), STORE_E_CONSTRAINT);
    assert_int_equal(store_tournaments_running(storage, &ids, &count), STORE_OK);
    assert_int_equal(count, 0);
    int64_t at = 0;
    assert_int_equal(store_arena_last_start(storage, "nightly", &at), STORE_OK);
    assert_int_equal(at, TUESDAY_NOON_MS);
    assert_int_equal(store_arena_last_start(storage, "hourly", &at), STORE_E_NOT_FOUND);
}

/* A tournament created with a lease (as an instance creates one) is
 * that instance's: named by store_tournaments_leased, renewed and taken
 * with the rooms' leases, adopted by a restart when it has none, and its
 * lease goes with its end. */
static void test_a_tournaments_lease_goes_with_its_rooms(void **state)
{
    store *storage = *state;
    int64_t players[3];
    int64_t lone = new_tournament(storage, players); /* a lone server's: no lease */
    store_tournament_entry entries[] = {{players[0], NULL, NULL}, {players[2], NULL, NULL}};
    store_tournament_info info = {"Cup", "blokus", "duo",           "swiss", "{\"rounds\":1}",
                                  1,     NULL,     TUESDAY_NOON_MS, 0};
    store_record create = {.kind = STORE_RECORD_TOURNAMENT_CREATE, .at_ms = TUESDAY_NOON_MS};
    create.created = (store_record_tournament){&info, 2, entries, 0, 'a', 1000, 0};
    assert_int_equal(store_record_apply(storage, &create), STORE_OK);
    int64_t cup = create.created.id;
    int64_t *ids = NULL;
    int count = 0;
    store_leases_taken taken = {0};
    assert_int_equal(store_tournaments_leased(storage, 'a', &ids, &count), STORE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(ids[0], cup);
    free(ids);
    store_rooms held = {0};
    assert_int_equal(store_leases_renew(storage, 'a', 1500, &held), STORE_OK);
    char lease[STORE_CODE_SIZE];
    store_tournament_lease(cup, lease);
    assert_true(store_rooms_hold(&held, lease));
    store_rooms_free(&held);
    /* a stops: b takes the cup at 2000; a restart of c adopts the lone one. */
    assert_int_equal(store_leases_take(storage, 'b', 2000, 5000, false, &ids, &count, &taken),
                     STORE_OK);
    assert_int_equal(count, 0);
    assert_int_equal(taken.tournaments, 1);
    assert_int_equal(store_tournaments_leased(storage, 'b', &ids, &count), STORE_OK);
    assert_int_equal(count, 1);
    free(ids);
    assert_int_equal(store_leases_take(storage, 'c', 2000, 5000, true, &ids, &count, &taken),
                     STORE_OK);
    assert_int_equal(taken.tournaments, 1);
    assert_int_equal(store_tournaments_leased(storage, 'c', &ids, &count), STORE_OK);
    assert_int_equal(count, 1);
    assert_int_equal(ids[0], lone);
    free(ids);
    /* Its end drops its lease: b holds it no more. */
    store_record finish = {
        .kind = STORE_RECORD_TOURNAMENT_FINISH, .at_ms = TUESDAY_NOON_MS + 9, .tournament_id = cup};
    assert_int_equal(store_record_apply(storage, &finish), STORE_OK);
    assert_int_equal(store_leases_renew(storage, 'b', 6000, &held), STORE_OK);
    assert_false(store_rooms_hold(&held, lease));
    store_rooms_free(&held);
}

/* An arena's period is its tournament's created_at: two instances that
 * both start it cannot both store it; the next period, or a tournament of
 * no arena at that time, can be. */
static void test_an_arena_period_is_stored_once(void **state)
{
    store *storage = *state;
    int64_t players[3];
    new_tournament(storage, players);
    store_tournament_entry entries[] = {{players[0], NULL, NULL}, {players[2], NULL, NULL}};
    store_tournament_info again = {"Tuesday cup", "blokus",         "duo",
                                   "swiss",       "{\"rounds\":2}", 1,
                                   "nightly",     TUESDAY_NOON_MS,  0};
    int64_t id = 0;
    assert_int_equal(store_tournament_create(storage, &again, 2, entries, &id), STORE_E_CONSTRAINT);
    again.created_at_ms = TUESDAY_NOON_MS + 86400000;
    assert_int_equal(store_tournament_create(storage, &again, 2, entries, &id), STORE_OK);
    again.arena = NULL;
    again.created_at_ms = TUESDAY_NOON_MS;
    assert_int_equal(store_tournament_create(storage, &again, 2, entries, &id), STORE_OK);
}

static void test_tournament_cancel_is_stored_once_with_its_creator(void **state)
{
    store *storage = *state;
    int64_t players[3];
    int64_t id = new_tournament(storage, players);
    assert_int_equal(store_tournament_cancel(storage, id, TUESDAY_NOON_MS + 5), STORE_OK);
    assert_int_equal(store_tournament_cancel(storage, id, TUESDAY_NOON_MS + 6), STORE_E_CONSTRAINT);
    assert_int_equal(store_tournament_finish(storage, id, TUESDAY_NOON_MS + 7), STORE_E_CONSTRAINT);
    store_tournament_record *record = NULL;
    assert_int_equal(store_tournament_load(storage, id, &record), STORE_OK);
    assert_true(record->is_finished && record->is_cancelled);
    assert_int_equal(record->finished_at_ms, TUESDAY_NOON_MS + 5);
    assert_int_equal(record->info.created_by, 0);
    assert_string_equal(store_tournament_status(record->is_finished, record->is_cancelled),
                        "cancelled");
    store_tournament_record_free(record);
}

static void test_an_accepted_invitation_is_used_once(void **state)
{
    store *storage = *state;
    int64_t inviter = new_guest(storage, "mallory"), invitee = new_guest(storage, "victor");
    assert_int_equal(store_tournament_invite(storage, inviter, inviter, 1), STORE_E_INVALID);
    assert_int_equal(store_tournament_invitation_accept(storage, inviter, invitee),
                     STORE_E_NOT_FOUND);
    assert_int_equal(store_tournament_invite(storage, inviter, invitee, 1), STORE_OK);
    assert_int_equal(store_tournament_invitation_use(storage, inviter, invitee), STORE_E_NOT_FOUND);
    assert_int_equal(store_tournament_invite(storage, inviter, invitee, 2), STORE_OK); /* again */
    assert_int_equal(store_tournament_invitation_accept(storage, invitee, inviter),
                     STORE_E_NOT_FOUND); /* the other way round */
    assert_int_equal(store_tournament_invitation_accept(storage, inviter, invitee), STORE_OK);
    assert_int_equal(store_tournament_invitation_use(storage, inviter, invitee), STORE_OK);
    assert_int_equal(store_tournament_invitation_use(storage, inviter, invitee), STORE_E_NOT_FOUND);
}

static void test_tournament_needs_two_distinct_entries(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada");
    store_tournament_info info = {"cup", "blokus", "duo", "fixed", "{}", 1, NULL, 0, 0};
    store_tournament_entry twice[] = {{ada, NULL, NULL}, {ada, NULL, NULL}};
    int64_t id = 0;
    assert_int_equal(store_tournament_create(storage, &info, 1, twice, &id), STORE_E_INVALID);
    assert_int_equal(store_tournament_create(storage, &info, 2, twice, &id), STORE_E_CONSTRAINT);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM tournaments"), 0);
}

static void take_rc(void *context, int rc, store_batch *batch)
{
    (void)batch;
    *(int *)context = rc;
}

/* Submits `count` records through the SQLite port: its answer. */
static int submit(store *storage, store_record *records, int count)
{
    store_port port = store_port_of(storage);
    store_batch batch = {records, count, STORE_ORDER_SUBMITTED};
    int rc = -1;
    assert_int_equal(port.submit(port.context, &batch, take_rc, &rc), STORE_OK);
    return rc;
}

/* A tournament's creation as one batch: the invitation it uses, the
 * tournament, and its schedule, whose rows get the new id from the
 * create record before them. */
static void test_a_tournament_batch_gives_its_schedule_the_new_id(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada"), bob = new_guest(storage, "bob");
    assert_int_equal(store_tournament_invite(storage, ada, bob, 1), STORE_OK);
    assert_int_equal(store_tournament_invitation_accept(storage, ada, bob), STORE_OK);
    store_tournament_info info = {"cup", "blokus", "duo", "fixed", "{}", 1, NULL, 5, ada};
    store_tournament_entry entries[] = {{ada, NULL, NULL}, {bob, NULL, NULL}};
    store_record records[4] = {
        {.kind = STORE_RECORD_INVITATION_USE, .invitation = {ada, bob, false}},
        {.kind = STORE_RECORD_TOURNAMENT_CREATE, .created = {&info, 2, entries, 2, 0}},
        {.kind = STORE_RECORD_TOURNAMENT_SCHEDULE, .scheduled = {0, 0, 0, 2, {0, 1}}},
        {.kind = STORE_RECORD_TOURNAMENT_SCHEDULE, .scheduled = {0, 1, 0, 2, {1, 0}}},
    };
    assert_int_equal(submit(storage, records, 4), STORE_OK);
    int64_t id = records[1].created.id;
    assert_true(id > 0);
    assert_int_equal(records[3].scheduled.tournament_id, id);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM tournament_games"), 2);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM tournament_invitations"), 0);
    /* used up: the same batch again fails as a whole, saying which invitation */
    assert_int_equal(submit(storage, records, 4), STORE_E_NOT_FOUND);
    assert_true(records[0].invitation.is_missing);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM tournaments"), 1);
    store_record cancel = {.kind = STORE_RECORD_TOURNAMENT_CANCEL, .at_ms = 9, .tournament_id = id};
    assert_int_equal(submit(storage, &cancel, 1), STORE_OK);
    assert_int_equal(submit(storage, &cancel, 1), STORE_E_CONSTRAINT);
}

/* Invitations as records: sent, accepted (one not sent is missing). */
static void test_invitations_are_sent_and_accepted_as_records(void **state)
{
    store *storage = *state;
    int64_t ada = new_guest(storage, "ada"), bob = new_guest(storage, "bob");
    store_record accept = {.kind = STORE_RECORD_INVITATION_ACCEPT, .invitation = {ada, bob, false}};
    assert_int_equal(submit(storage, &accept, 1), STORE_E_NOT_FOUND);
    assert_true(accept.invitation.is_missing);
    store_record send = {
        .kind = STORE_RECORD_INVITATION_SEND, .at_ms = 3, .invitation = {ada, bob}};
    assert_int_equal(submit(storage, &send, 1), STORE_OK);
    assert_int_equal(submit(storage, &accept, 1), STORE_OK);
    assert_false(accept.invitation.is_missing);
    assert_int_equal(
        query_integer(storage, "SELECT count(*) FROM tournament_invitations WHERE accepted = 1"),
        1);
}

/* ---- results stored at once by two instances (PostgreSQL) --------------- */

/* A started Duo game of `player` against the greedy bot, its result record
 * (the player won) into *out. */
static void game_against_greedy(store *storage, int64_t player, store_record *out)
{
    int64_t game = new_game(storage, "blokus", "duo");
    int64_t greedy = 0;
    assert_int_equal(store_builtin_player(storage, "bot:greedy", &greedy), STORE_OK);
    assert_int_equal(store_seat_set(storage, game, 0, player, NULL), STORE_OK);
    assert_int_equal(store_seat_set(storage, game, 1, greedy, "greedy"), STORE_OK);
    assert_int_equal(store_game_start(storage, game, TUESDAY_NOON_MS), STORE_OK);
    *out = (store_record){.kind = STORE_RECORD_GAME_RESULT, .at_ms = TUESDAY_NOON_MS};
    out->result = (store_record_result){.game_id = game, .seat_count = 2, .pool = "blokus-duo"};
    snprintf(out->result.result_json, sizeof(out->result.result_json), "{}");
    out->result.seats[0] = (store_result_seat){player, "", 80, 1, true};
    out->result.seats[1] = (store_result_seat){0, "bot:greedy", 60, 2, false};
}

/* Another instance's writer: stores its batches as one group. */
struct other_instance {
    store *storage;
    store_record records[2];
    int rcs[2];
};

static void *store_elsewhere(void *argument)
{
    struct other_instance *other = argument;
    store_batch first = {&other->records[0], 1, STORE_ORDER_SUBMITTED},
                second = {&other->records[1], 1, STORE_ORDER_SUBMITTED};
    store_batch *batches[] = {&first, &second};
    store_batches_apply(other->storage, batches, 2, other->rcs);
    return NULL;
}

/* Another instance's writer stores two results of the greedy bot, one of
 * ada and one of bea, as one group, while this connection rates bea (holds
 * her lock). Each result is a transaction of its own, its participants
 * locked first in id order: ada's game is stored while bea's waits, so no
 * group holds locks that another waits for in another order; and bea's
 * game, once stored, rates the bot from ada's result (no update lost). */
static void test_results_of_two_instances_wait_for_each_other_one_at_a_time(void **state)
{
    store *storage = *state;
    struct other_instance other = {.rcs = {-1, -1}};
    int64_t bea = new_guest(storage, "bea");
    game_against_greedy(storage, new_guest(storage, "ada"), &other.records[0]);
    game_against_greedy(storage, bea, &other.records[1]);
    assert_int_equal(store_open(current.path, false, &other.storage), STORE_OK);

    assert_int_equal(store_begin(storage), STORE_OK);
    assert_int_equal(store_rating_lock(storage, bea), STORE_OK);
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, store_elsewhere, &other), 0);
    const char *waiting =
        "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted";
    for (int tries = 0; query_integer(storage, waiting) != 1; tries++) {
        assert_true(tries < 2000); /* 20 s: bea's result never waited for her lock */
        usleep(10000);
    }
    char sql[128];
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM games WHERE id = %lld AND status = 'finished'",
             (long long)other.records[0].result.game_id);
    assert_int_equal(query_integer(storage, sql), 1); /* ada's is committed meanwhile */
    assert_int_equal(store_commit(storage), STORE_OK);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_int_equal(other.rcs[0], STORE_OK);
    assert_int_equal(other.rcs[1], STORE_OK);
    store_close(other.storage);
    assert_int_equal(query_integer(storage, "SELECT count(*) FROM rating_history a"
                                            " JOIN rating_history b ON b.player_id = a.player_id"
                                            " AND b.game_id > a.game_id"
                                            " WHERE b.mu_before = a.mu_after"
                                            " AND b.sigma_before = a.sigma_after"),
                     1);
}

#define RESULTS_TEST(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        RESULTS_TEST(test_builtin_player_is_created_once_and_listed),
        RESULTS_TEST(test_rating_is_absent_before_the_first_game),
        RESULTS_TEST(test_rating_record_counts_games_wins_and_scores),
        RESULTS_TEST(test_rating_record_twice_for_one_game_changes_nothing),
        RESULTS_TEST(test_rating_record_refuses_bad_pools_and_players),
        RESULTS_TEST(test_a_guest_claiming_its_name_is_listed),
        RESULTS_TEST(test_builtin_bot_ratings_are_listed),
        RESULTS_TEST(test_reef_run_counts_for_seed_day_week_and_all),
        RESULTS_TEST(test_reef_day_and_week_boards_take_their_periods_seed_only),
        RESULTS_TEST(test_reef_submitted_run_is_stored_once),
        RESULTS_TEST(test_reef_best_keeps_the_earlier_of_equal_scores),
        RESULTS_TEST(test_reef_seeds_above_int64_keep_their_decimal_board),
        RESULTS_TEST(test_reef_run_needs_exactly_one_source),
        RESULTS_TEST(test_tournament_is_stored_planned_and_loaded),
        RESULTS_TEST(test_tournament_finishes_once_and_leaves_the_running_list),
        RESULTS_TEST(test_an_arena_period_is_stored_once),
        RESULTS_TEST(test_a_tournaments_lease_goes_with_its_rooms),
        RESULTS_TEST(test_tournament_cancel_is_stored_once_with_its_creator),
        RESULTS_TEST(test_an_accepted_invitation_is_used_once),
        RESULTS_TEST(test_tournament_needs_two_distinct_entries),
        RESULTS_TEST(test_a_tournament_batch_gives_its_schedule_the_new_id),
        RESULTS_TEST(test_invitations_are_sent_and_accepted_as_records),
        TEST_DB_POSTGRES_ONLY(test_results_of_two_instances_wait_for_each_other_one_at_a_time,
                              setup, teardown),
    };
    return test_db_run(tests, sizeof(tests) / sizeof(tests[0]));
}
