/* test_store_read.c -- the history reads on a small database built here.
 *
 * Games are written through the store's own API; ratings, rating history,
 * Reef best runs, name keys and tournaments (which other code fills) with
 * plain SQL on a second connection. The reads then run on a reader, as the
 * server runs them. Every list is walked page by page to its end and
 * compared with the order it must have; every statement of the read side
 * is checked with EXPLAIN QUERY PLAN to read tables by index only. Run as
 * unit_store_read_pg, the same on PostgreSQL but for SQLite's plans
 * (test_db.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "storage/store_internal.h"
#include "storage/store_read.h"
#include "tests/unit/test_db.h"

struct fixture {
    test_db db;
    store *writer;
    store *reader;
};

/* Plain SQL on the database, on a connection of its own. */
static void exec_sql(struct fixture *fixture, const char *sql)
{
    test_db_execute(fixture->db.path, sql);
}

static int64_t add_player(struct fixture *fixture, const char *name, bool is_account)
{
    int64_t id = 0;
    assert_int_equal(store_player_create(fixture->writer, name, false, NULL, &id), 0);
    if (is_account) {
        char sql[256];
        snprintf(sql, sizeof(sql), "UPDATE players SET name_key = lower(name) WHERE id = %lld",
                 (long long)id);
        exec_sql(fixture, sql);
    }
    return id;
}

/* A finished two-seat game of `mode` between players a and b (0: a bot). */
static int64_t add_game(struct fixture *fixture, const char *game, const char *mode, int64_t a,
                        int64_t b, bool is_finished)
{
    store_game_info info = {"room", game, mode, "{}", 7, 1000, 0, 0};
    int64_t id = 0;
    assert_int_equal(store_game_create(fixture->writer, &info, &id), 0);
    assert_int_equal(store_seat_set(fixture->writer, id, 0, a, a ? NULL : "greedy"), 0);
    assert_int_equal(store_seat_set(fixture->writer, id, 1, b, b ? NULL : "greedy"), 0);
    assert_int_equal(store_game_start(fixture->writer, id, 2000), 0);
    if (is_finished) {
        store_seat_result results[2] = {{0, 10, 1, true}, {1, 5, 2, false}};
        assert_int_equal(store_game_finish(fixture->writer, id, STORE_GAME_FINISHED,
                                           "{\"scores\":[10,5]}", 2, results, 3000),
                         0);
    }
    return id;
}

static int setup(void **state)
{
    struct fixture *fixture = calloc(1, sizeof(*fixture));
    assert_non_null(fixture);
    assert_int_equal(test_db_make(&fixture->db), 0);
    assert_int_equal(store_open(fixture->db.path, false, &fixture->writer), 0);
    assert_int_equal(store_open_reader(fixture->db.path, &fixture->reader), 0);
    *state = fixture;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fixture = *state;
    store_close(fixture->reader);
    store_close(fixture->writer);
    test_db_drop(&fixture->db);
    free(fixture);
    return 0;
}

static const store_read_after FIRST = {true, 0, 0};

/* Walks every page of the games list for `filter`, `limit` at a time, into
 * ids[] (newest first); returns how many. */
static int walk_games(struct fixture *fixture, const store_game_filter *filter, int limit,
                      int64_t *ids, int most)
{
    store_game_summary items[STORE_READ_MAX_PAGE];
    store_read_page page;
    store_read_after after = FIRST;
    int total = 0, pages = 0;
    do {
        assert_int_equal(store_read_games(fixture->reader, filter, after, limit, items, &page), 0);
        for (int i = 0; i < page.count; i++) {
            assert_true(total < most);
            ids[total++] = items[i].id;
        }
        after = page.next;
        assert_true(++pages < 100);
    } while (page.has_next);
    return total;
}

static void test_games_walk_newest_first_without_gaps_or_repeats(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    int64_t created[23];
    for (int i = 0; i < 23; i++)
        created[i] = add_game(fixture, "blokus", "2p", alice, 0, i % 3 != 0);
    store_game_filter any = {0};
    int64_t ids[64];
    for (int limit = 1; limit <= 24; limit += 7) {
        int count = walk_games(fixture, &any, limit, ids, 64);
        assert_int_equal(count, 23);
        for (int i = 0; i < 23; i++)
            assert_int_equal(ids[i], created[22 - i]);
    }
    store_game_summary items[2];
    store_read_page page;
    assert_int_equal(store_read_games(fixture->reader, &any, FIRST, 2, items, &page), 0);
    assert_int_equal(items[0].seat_count, 2);
    assert_string_equal(items[0].seats[0].player_name, "Alice");
    assert_string_equal(items[0].seats[1].bot, "greedy");
    assert_string_equal(items[0].game, "blokus");
    assert_string_equal(items[0].mode, "2p");
}

static void test_games_filters_each_select_only_their_games(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    int64_t bob = add_player(fixture, "Bob", true);
    int64_t duo = add_game(fixture, "blokus", "duo", alice, bob, true);
    int64_t solo = add_game(fixture, "reef-builder", "solo", bob, 0, true);
    int64_t playing = add_game(fixture, "blokus", "4p", alice, 0, false);
    exec_sql(fixture, "UPDATE games SET tournament_id = 9 WHERE game = 'reef-builder'");
    int64_t ids[8];
    store_game_filter by_player = {.player_id = alice};
    assert_int_equal(walk_games(fixture, &by_player, 10, ids, 8), 2);
    assert_int_equal(ids[0], playing);
    assert_int_equal(ids[1], duo);
    store_game_filter by_kind = {.game = "blokus", .mode = "duo"};
    assert_int_equal(walk_games(fixture, &by_kind, 10, ids, 8), 1);
    assert_int_equal(ids[0], duo);
    store_game_filter by_game = {.game = "reef-builder"};
    assert_int_equal(walk_games(fixture, &by_game, 10, ids, 8), 1);
    assert_int_equal(ids[0], solo);
    store_game_filter by_status = {.status = "playing"};
    assert_int_equal(walk_games(fixture, &by_status, 10, ids, 8), 1);
    assert_int_equal(ids[0], playing);
    store_game_filter by_tournament = {.tournament_id = 9};
    assert_int_equal(walk_games(fixture, &by_tournament, 10, ids, 8), 1);
    assert_int_equal(ids[0], solo);
    store_game_filter both = {.player_id = bob, .mode = "solo", .status = "finished"};
    assert_int_equal(walk_games(fixture, &both, 10, ids, 8), 1);
    assert_int_equal(ids[0], solo);
    store_game_filter none = {.player_id = bob, .mode = "4p"};
    assert_int_equal(walk_games(fixture, &none, 10, ids, 8), 0);
    /* A kind with a status other than finished is walked by the status's
     * index, with finished by the kind's: the same games either way. */
    store_game_filter kind_playing = {.game = "blokus", .mode = "4p", .status = "playing"};
    assert_int_equal(walk_games(fixture, &kind_playing, 10, ids, 8), 1);
    assert_int_equal(ids[0], playing);
    store_game_filter kind_finished = {.game = "blokus", .mode = "duo", .status = "finished"};
    assert_int_equal(walk_games(fixture, &kind_finished, 10, ids, 8), 1);
    assert_int_equal(ids[0], duo);
    store_game_filter kind_not_playing = {.game = "blokus", .mode = "duo", .status = "playing"};
    assert_int_equal(walk_games(fixture, &kind_not_playing, 10, ids, 8), 0);
}

/* A filter its index does not answer reads at most STORE_READ_SCAN rows
 * per page: the page comes back short, and the walk still finds the rest. */
static void test_games_filter_outside_the_index_pages_through_the_scan_cap(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    int64_t rare = add_game(fixture, "blokus", "duo", alice, 0, true);
    assert_int_equal(store_begin(fixture->writer), 0);
    for (int i = 0; i < STORE_READ_SCAN + 50; i++)
        add_game(fixture, "blokus", "4p", alice, 0, false);
    assert_int_equal(store_commit(fixture->writer), 0);
    store_game_filter filter = {.player_id = alice, .mode = "duo"};
    store_game_summary items[10];
    store_read_page page;
    assert_int_equal(store_read_games(fixture->reader, &filter, FIRST, 10, items, &page), 0);
    assert_int_equal(page.count, 0);
    assert_true(page.has_next);
    assert_int_equal(store_read_games(fixture->reader, &filter, page.next, 10, items, &page), 0);
    assert_int_equal(page.count, 1);
    assert_int_equal(items[0].id, rare);
    assert_false(page.has_next);
}

/* Matches spread thinly among the candidates are read in growing chunks
 * until the page is full, in order, without gaps, with each game's seats. */
static void test_sparse_matches_fill_the_page_across_chunks(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true), bob = add_player(fixture, "Bob", true);
    int64_t duo[40];
    int duo_count = 0;
    assert_int_equal(store_begin(fixture->writer), 0);
    for (int i = 0; i < 280; i++) {
        bool is_duo = i % 7 == 3;
        int64_t id = add_game(fixture, "blokus", is_duo ? "duo" : "4p", alice, bob, true);
        if (is_duo)
            duo[duo_count++] = id;
    }
    assert_int_equal(store_commit(fixture->writer), 0);
    store_game_filter filter = {.player_id = alice, .mode = "duo"};
    store_game_summary items[12];
    store_read_page page;
    store_read_after after = FIRST;
    int seen = 0;
    do {
        assert_int_equal(store_read_games(fixture->reader, &filter, after, 12, items, &page), 0);
        for (int i = 0; i < page.count; i++, seen++) {
            assert_int_equal(items[i].id, duo[duo_count - 1 - seen]);
            assert_int_equal(items[i].seat_count, 2);
            assert_int_equal(items[i].seats[0].player_id, alice);
            assert_int_equal(items[i].seats[1].player_id, bob);
        }
        if (page.has_next)
            assert_int_equal(page.count, 12);
        after = page.next;
    } while (page.has_next);
    assert_int_equal(seen, duo_count);
}

/* Only a bug would seat a player twice in one game (the rules refuse it);
 * the game is still listed once among the player's. */
static void test_player_seated_twice_is_listed_once(void **state)
{
    struct fixture *fixture = *state;
    int64_t ann = add_player(fixture, "Ann", true), bob = add_player(fixture, "Bob", true);
    int64_t before = add_game(fixture, "blokus", "duo", ann, bob, true);
    int64_t twice = add_game(fixture, "blokus", "duo", ann, ann, true);
    int64_t after = add_game(fixture, "blokus", "duo", bob, ann, true);
    store_game_filter filter = {.player_id = ann};
    int64_t ids[8];
    for (int limit = 1; limit <= 3; limit++) {
        assert_int_equal(walk_games(fixture, &filter, limit, ids, 8), 3);
        assert_int_equal(ids[0], after);
        assert_int_equal(ids[1], twice);
        assert_int_equal(ids[2], before);
    }
}

static void test_game_rating_changes_are_read_with_names(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    int64_t game = add_game(fixture, "blokus", "duo", alice, 0, true);
    char sql[256];
    snprintf(sql, sizeof(sql),
             "INSERT INTO rating_history VALUES (%lld, 'blokus-duo', %lld, 25, 8.3, 27, 7.9, 5)",
             (long long)alice, (long long)game);
    exec_sql(fixture, sql);
    store_rating_delta changes[STORE_MAX_SEATS];
    int count = 0;
    assert_int_equal(store_read_game_rating_changes(fixture->reader, game, changes, &count), 0);
    assert_int_equal(count, 1);
    assert_string_equal(changes[0].player_name, "Alice");
    assert_string_equal(changes[0].pool, "blokus-duo");
    assert_true(changes[0].mu_after == 27.0 && changes[0].sigma_before == 8.3);
    assert_int_equal(store_read_game_rating_changes(fixture->reader, game + 1, changes, &count), 0);
    assert_int_equal(count, 0);
}

static void test_players_are_found_by_name_key_and_guests_are_not(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    add_player(fixture, "guest", false);
    store_profile profile;
    assert_int_equal(store_read_player_by_key(fixture->reader, "alice", &profile), 0);
    assert_int_equal(profile.id, alice);
    assert_string_equal(profile.name, "Alice");
    assert_int_equal(store_read_player_by_key(fixture->reader, "guest", &profile),
                     STORE_E_NOT_FOUND);
    assert_int_equal(store_read_player_by_key(fixture->reader, "Alice", &profile),
                     STORE_E_NOT_FOUND);
}

static void add_rating(struct fixture *fixture, int64_t player, const char *pool, double mu,
                       double sigma, int games, int listed)
{
    char sql[320];
    snprintf(sql, sizeof(sql),
             "INSERT INTO ratings VALUES (%lld, '%s', %.17g, %.17g, %.17g, %d, %d, %d, %d, 1)",
             (long long)player, pool, mu, sigma, mu - 3 * sigma, games, games / 2, games * 10,
             listed);
    exec_sql(fixture, sql);
}

static void test_profile_reads_ratings_history_and_reef_best(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    add_rating(fixture, alice, "blokus-4p", 30, 5, 4, 1);
    add_rating(fixture, alice, "blokus-duo", 20, 6, 2, 1);
    exec_sql(fixture, "INSERT INTO games (id, room, game, mode, options, seed, status, created_at)"
                      " VALUES (1, 'r', 'blokus', '4p', '{}', 1, 'waiting', 1),"
                      " (2, 'r', 'blokus', '4p', '{}', 1, 'waiting', 1),"
                      " (3, 'r', 'blokus', '4p', '{}', 1, 'waiting', 1),"
                      " (4, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1),"
                      " (5, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1)");
    char sql[512];
    for (int game = 1; game <= 5; game++) { /* 1-3 in 4p, 4-5 in Duo */
        snprintf(sql, sizeof(sql),
                 "INSERT INTO rating_history VALUES (%lld, '%s', %d, %d, 8, %d, 7, %d)",
                 (long long)alice, game <= 3 ? "blokus-4p" : "blokus-duo", game, 20 + game,
                 21 + game, game);
        exec_sql(fixture, sql);
    }
    snprintf(sql, sizeof(sql),
             "INSERT INTO reef_runs (id, player_id, seed, score, actions, at_ms)"
             " VALUES (1, %lld, 5, 300, '[]', 10);"
             "INSERT INTO reef_best VALUES ('seed:5', %lld, 300, 1, 10), ('all', %lld, 300, 1,"
             " 10), ('day:20260101', %lld, 300, 1, 10)",
             (long long)alice, (long long)alice, (long long)alice, (long long)alice);
    exec_sql(fixture, sql);
    store_pool_rating ratings[STORE_READ_POOL_COUNT];
    int count = 0;
    assert_int_equal(store_read_player_ratings(fixture->reader, alice, ratings, &count), 0);
    assert_int_equal(count, 2);
    assert_string_equal(ratings[0].pool, "blokus-4p");
    assert_true(ratings[0].display == 15.0 && ratings[0].games == 4 && ratings[0].is_listed);
    /* Each pool's newest two, a pool's together. */
    store_rating_delta history[STORE_READ_POOL_COUNT * 2];
    assert_int_equal(store_read_rating_histories(fixture->reader, alice, 2, history, &count), 0);
    assert_int_equal(count, 4);
    assert_string_equal(history[0].pool, "blokus-4p");
    assert_int_equal(history[0].game_id, 3);
    assert_int_equal(history[1].game_id, 2);
    assert_string_equal(history[1].pool, "blokus-4p");
    assert_string_equal(history[2].pool, "blokus-duo");
    assert_int_equal(history[2].game_id, 5);
    assert_int_equal(history[3].game_id, 4);
    assert_string_equal(history[3].player_name, "Alice");
    store_reef_entry best[5];
    assert_int_equal(store_read_player_reef_best(fixture->reader, alice, 5, best, &count), 0);
    assert_int_equal(count, 3);
    assert_string_equal(best[0].board, "all");
    assert_int_equal(best[0].score, 300);
}

/* The player's whole history in `pool` is `count` changes, of the games
 * `newest_first`. */
static void assert_history(struct fixture *fixture, int64_t player, const char *pool,
                           const int64_t *newest_first, int count)
{
    store_rating_delta history[STORE_READ_POOL_COUNT * 8];
    int found = 0;
    assert_int_equal(store_read_rating_histories(fixture->reader, player, 8, history, &found), 0);
    assert_int_equal(found, count);
    for (int i = 0; i < count; i++) {
        assert_string_equal(history[i].pool, pool);
        assert_int_equal(history[i].game_id, newest_first[i]);
    }
}

/* Parallel games finish out of id order: the history is in the order
 * they finished (the game id breaking a tie), so its newest entry is the
 * current rating. */
static void test_rating_history_is_in_finish_order(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    static const int FINISHED_AT[] = {30, 10, 20, 20};
    char sql[256];
    for (int game = 1; game <= 4; game++) {
        snprintf(sql, sizeof(sql),
                 "INSERT INTO games (id, room, game, mode, options, seed, status, created_at)"
                 " VALUES (%d, 'r', 'blokus', '4p', '{}', 1, 'waiting', 1);"
                 "INSERT INTO rating_history VALUES (%lld, 'blokus-4p', %d, 25, 8, %d, 7, %d)",
                 game, (long long)alice, game, 20 + game, FINISHED_AT[game - 1]);
        exec_sql(fixture, sql);
    }
    assert_history(fixture, alice, "blokus-4p", (const int64_t[]){1, 4, 3, 2}, 4);
}

/* Two games finished in one millisecond, the newer first: the history
 * follows their ratings' chain (game 2 rated from 25 to 27, then game 1
 * from 27 to 29), not the game ids, so its newest entry is the current
 * rating. A tie that is no chain keeps the id order (above). */
static void test_rating_history_of_one_millisecond_follows_the_chain(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    exec_sql(fixture, "INSERT INTO games (id, room, game, mode, options, seed, status, created_at)"
                      " VALUES (1, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1),"
                      " (2, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1),"
                      " (3, 'r', 'blokus', 'duo', '{}', 1, 'waiting', 1)");
    char sql[512];
    snprintf(sql, sizeof(sql),
             "INSERT INTO rating_history VALUES (%lld, 'blokus-duo', 3, 23.5, 8.25, 25, 8, 10),"
             " (%lld, 'blokus-duo', 2, 25, 8, 27, 7.75, 20),"
             " (%lld, 'blokus-duo', 1, 27, 7.75, 29, 7.5, 20)",
             (long long)alice, (long long)alice, (long long)alice);
    exec_sql(fixture, sql);
    assert_history(fixture, alice, "blokus-duo", (const int64_t[]){1, 2, 3}, 3);
}

/* A built-in bot's seats count for its rating entry: its games list and
 * its counters, like a player's. */
static void test_builtin_bot_entry_has_games_and_counters(void **state)
{
    struct fixture *fixture = *state;
    int64_t alice = add_player(fixture, "Alice", true);
    int64_t greedy = 0;
    assert_int_equal(store_builtin_player(fixture->writer, "bot:greedy", &greedy), 0);
    store_game_info info = {"room", "blokus", "duo", "{}", 7, 1000, 0, 0};
    int64_t games[2];
    for (int i = 0; i < 2; i++) {
        assert_int_equal(store_game_create(fixture->writer, &info, &games[i]), 0);
        assert_int_equal(store_seat_set(fixture->writer, games[i], 0, alice, NULL), 0);
        assert_int_equal(store_seat_set(fixture->writer, games[i], 1, greedy, "greedy"), 0);
        assert_int_equal(store_game_start(fixture->writer, games[i], 2000), 0);
        store_seat_result results[2] = {{0, 10, 1 + i, i == 0}, {1, 5, 2 - i, i == 1}};
        assert_int_equal(store_game_finish(fixture->writer, games[i], STORE_GAME_FINISHED, "{}", 2,
                                           results, 3000),
                         0);
    }
    store_game_filter of_bot = {.player_id = greedy};
    int64_t ids[4];
    assert_int_equal(walk_games(fixture, &of_bot, 1, ids, 4), 2);
    assert_int_equal(ids[0], games[1]);
    assert_int_equal(ids[1], games[0]);
    store_profile profile;
    assert_int_equal(store_read_player_by_key(fixture->reader, "bot:greedy", &profile), 0);
    assert_int_equal(profile.games_played, 2);
    assert_int_equal(profile.wins, 1);
    store_game_record *game = NULL;
    assert_int_equal(store_game_load(fixture->reader, games[0], &game), 0);
    assert_int_equal(game->seats[1].player_id, 0);
    assert_string_equal(game->seats[1].bot, "greedy");
    store_game_record_free(game);
}

static void test_blokus_board_ranks_by_display_over_pages_with_a_minimum(void **state)
{
    struct fixture *fixture = *state;
    int64_t players[7];
    char name[16];
    for (int i = 0; i < 7; i++) {
        snprintf(name, sizeof(name), "p%d", i);
        players[i] = add_player(fixture, name, true);
    }
    /* p0 and p1 tie on display; p4 has too few games; p5 is not listed. */
    add_rating(fixture, players[0], "blokus-4p", 30, 5, 9, 1);
    add_rating(fixture, players[1], "blokus-4p", 30, 5, 9, 1);
    add_rating(fixture, players[2], "blokus-4p", 40, 5, 9, 1);
    add_rating(fixture, players[3], "blokus-4p", 10, 2, 9, 1);
    add_rating(fixture, players[4], "blokus-4p", 50, 1, 1, 1);
    add_rating(fixture, players[5], "blokus-4p", 60, 1, 9, 0);
    add_rating(fixture, players[6], "blokus-duo", 60, 1, 9, 1);
    int64_t expected[] = {players[2], players[0], players[1], players[3]};
    store_pool_rating items[2];
    store_read_page page;
    store_read_after after = FIRST;
    int seen = 0;
    do {
        assert_int_equal(
            store_read_blokus_board(fixture->reader, "blokus-4p", 3, after, 2, items, &page), 0);
        assert_int_equal(page.first_position, seen + 1);
        for (int i = 0; i < page.count; i++)
            assert_int_equal(items[i].player_id, expected[seen++]);
        after = page.next;
    } while (page.has_next);
    assert_int_equal(seen, 4);
    assert_int_equal(
        store_read_blokus_board(fixture->reader, "blokus-4p", 1, FIRST, 1, items, &page), 0);
    assert_int_equal(items[0].player_id, players[4]);
}

static void add_reef_best(struct fixture *fixture, const char *board, int64_t player, int score,
                          int at_ms)
{
    char sql[320];
    snprintf(sql, sizeof(sql),
             "INSERT INTO reef_runs (player_id, seed, score, actions, at_ms) VALUES (%lld, 5, %d,"
             " '[]', %d); INSERT INTO reef_best VALUES ('%s', %lld, %d,"
             " (SELECT max(id) FROM reef_runs), %d)",
             (long long)player, score, at_ms, board, (long long)player, score, at_ms);
    exec_sql(fixture, sql);
}

/* Seven runs on "seed:5" in a known order: by score, then the earlier
 * run, then the smaller player id. Returns them best first. */
static void add_reef_board(struct fixture *fixture, int64_t order[7])
{
    int64_t players[7];
    char name[16];
    for (int i = 0; i < 7; i++) {
        snprintf(name, sizeof(name), "r%d", i);
        players[i] = add_player(fixture, name, true);
    }
    add_reef_best(fixture, "seed:5", players[0], 500, 30);
    add_reef_best(fixture, "seed:5", players[1], 700, 10);
    add_reef_best(fixture, "seed:5", players[2], 500, 20);
    add_reef_best(fixture, "seed:5", players[3], 500, 20);
    add_reef_best(fixture, "seed:5", players[4], 100, 5);
    add_reef_best(fixture, "seed:5", players[5], 900, 50);
    add_reef_best(fixture, "seed:5", players[6], 0, 1);
    add_reef_best(fixture, "seed:6", players[6], 9999, 1);
    int64_t expected[] = {players[5], players[1], players[2], players[3],
                          players[0], players[4], players[6]};
    memcpy(order, expected, sizeof(expected));
}

static void test_reef_board_pages_through_ties_in_order(void **state)
{
    struct fixture *fixture = *state;
    int64_t order[7];
    add_reef_board(fixture, order);
    for (int limit = 1; limit <= 8; limit++) {
        store_reef_entry items[8];
        store_read_page page;
        store_read_after after = FIRST;
        int seen = 0;
        do {
            assert_int_equal(
                store_read_reef_board(fixture->reader, "seed:5", after, limit, items, &page), 0);
            assert_int_equal(page.first_position, seen + 1);
            for (int i = 0; i < page.count; i++) {
                assert_true(seen < 7);
                assert_int_equal(items[i].player_id, order[seen++]);
            }
            after = page.next;
        } while (page.has_next);
        assert_int_equal(seen, 7);
    }
}

static void test_reef_board_around_a_player_centres_on_it(void **state)
{
    struct fixture *fixture = *state;
    int64_t order[7];
    add_reef_board(fixture, order);
    store_reef_entry items[5];
    store_read_page page;
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:5", order[3], 5, items, &page), 0);
    assert_int_equal(page.count, 5);
    assert_int_equal(page.first_position, 2);
    for (int i = 0; i < 5; i++)
        assert_int_equal(items[i].player_id, order[1 + i]);
    assert_true(page.has_next);
    assert_int_equal(store_read_reef_board(fixture->reader, "seed:5", page.next, 5, items, &page),
                     0);
    assert_int_equal(page.first_position, 7);
    assert_int_equal(page.count, 1);
    assert_int_equal(items[0].player_id, order[6]);
    /* At the top there is nothing above: the page starts with the player. */
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:5", order[0], 3, items, &page), 0);
    assert_int_equal(page.first_position, 1);
    assert_int_equal(items[0].player_id, order[0]);
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:6", order[0], 3, items, &page),
        STORE_E_NOT_FOUND);
}

/* How many (board, score) pairs reef_score_counts gets wrong: a count that
 * is not the number of runs with that score, or a score it does not count. */
static int64_t miscounted_scores(struct fixture *fixture)
{
    return test_db_integer(
        fixture->db.path,
        "SELECT count(*) FROM (SELECT board, score, count(*) AS runs FROM reef_best"
        " GROUP BY board, score) AS b FULL JOIN (SELECT * FROM reef_score_counts WHERE runs > 0)"
        " AS c ON c.board = b.board AND c.score = b.score"
        " WHERE b.runs IS NULL OR c.runs IS NULL OR b.runs <> c.runs");
}

/* The counts a rank is summed from follow every way a best run changes:
 * a new one, a better one (another score), one moved to another board,
 * one deleted; and the rank around a player follows them. */
static void test_reef_score_counts_follow_the_runs(void **state)
{
    struct fixture *fixture = *state;
    int64_t order[7];
    add_reef_board(fixture, order);
    assert_int_equal(miscounted_scores(fixture), 0);
    assert_int_equal(test_db_integer(fixture->db.path, "SELECT runs FROM reef_score_counts"
                                                       " WHERE board = 'seed:5' AND score = 500"),
                     3);
    /* order[5] (100 points, 6th) improves to 800: now 2nd. */
    char sql[200];
    snprintf(sql, sizeof(sql), "UPDATE reef_best SET score = 800 WHERE player_id = %lld",
             (long long)order[5]);
    exec_sql(fixture, sql);
    store_reef_entry items[3];
    store_read_page page;
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:5", order[5], 3, items, &page), 0);
    assert_int_equal(page.first_position, 1);
    assert_int_equal(items[1].player_id, order[5]);
    /* The best run leaves the board; one of the ties moves to another. */
    snprintf(sql, sizeof(sql),
             "DELETE FROM reef_best WHERE player_id = %lld AND board = 'seed:5';"
             "UPDATE reef_best SET board = 'seed:7' WHERE player_id = %lld",
             (long long)order[0], (long long)order[2]);
    exec_sql(fixture, sql);
    assert_int_equal(miscounted_scores(fixture), 0);
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:5", order[3], 3, items, &page), 0);
    assert_int_equal(page.first_position, 2); /* 800, 700, then order[3] at 500 */
    assert_int_equal(items[1].player_id, order[3]);
    assert_int_equal(
        store_read_reef_board_around(fixture->reader, "seed:5", order[6], 3, items, &page), 0);
    assert_int_equal(page.count, 2); /* the last: one above it, none below */
    assert_int_equal(page.first_position, 4);
    assert_int_equal(items[1].player_id, order[6]);
}

static void test_bad_limits_are_refused(void **state)
{
    struct fixture *fixture = *state;
    store_game_filter any = {0};
    store_game_summary games[1];
    store_reef_entry entries[1];
    store_pool_rating ratings[1];
    store_read_page page;
    assert_int_equal(store_read_games(fixture->reader, &any, FIRST, 0, games, &page),
                     STORE_E_INVALID);
    assert_int_equal(
        store_read_games(fixture->reader, &any, FIRST, STORE_READ_MAX_PAGE + 1, games, &page),
        STORE_E_INVALID);
    assert_int_equal(store_read_reef_board(fixture->reader, "all", FIRST, 0, entries, &page),
                     STORE_E_INVALID);
    assert_int_equal(
        store_read_blokus_board(fixture->reader, "blokus-4p", 1, FIRST, 0, ratings, &page),
        STORE_E_INVALID);
}

/* Every read statement reaches each table through an index or its key:
 * a plan line "SCAN <table>" would be a full scan (subqueries are fine). */
static void assert_no_table_scan(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    static const char *const TABLES[] = {
        "games",     "seats", "players", "ratings", "moves", "reef_best", "rating_history",
        "reef_runs", "g",     "s",       "r",       "p",     "b",         "h"};
    char *explain = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, explain, -1, &stmt, NULL), SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *detail = (const char *)sqlite3_column_text(stmt, 3);
        for (size_t i = 0; i < sizeof(TABLES) / sizeof(TABLES[0]); i++) {
            char scan[64];
            snprintf(scan, sizeof(scan), "SCAN %s", TABLES[i]);
            size_t length = strlen(scan);
            if (strncmp(detail, scan, length) == 0 && (detail[length] == ' ' || !detail[length]))
                fail_msg("full scan '%s' in: %s", detail, sql);
        }
    }
    sqlite3_finalize(stmt);
    sqlite3_free(explain);
    sqlite3_close(db);
}

static void test_every_read_statement_uses_an_index(void **state)
{
    struct fixture *fixture = *state;
    const store_statement_text *lists[] = {STORE_READ_GAME_STATEMENTS,
                                           STORE_READ_RANKING_STATEMENTS};
    int checked = 0;
    for (int i = 0; i < 2; i++)
        for (const store_statement_text *text = lists[i]; text->sql; text++, checked++)
            assert_no_table_scan(fixture->db.path, text->sql);
    assert_int_equal(checked, STORE_SQL_READ_REEF_ENTRY - STORE_SQL_READ_GAMES_ALL + 1);
}

/* A games list hands its rows over as SQLite walks the index range, so a
 * page costs the rows it steps: a plan that materializes a subquery or
 * sorts in a temporary b-tree reads every candidate of the chunk before
 * the first row. (The leaderboards and a player's rating histories read
 * ranges with LIMITs of their own, so what they materialize is bounded by
 * those.) */
static void assert_streams(const char *path, const char *sql)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char *explain = sqlite3_mprintf("EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    assert_int_equal(sqlite3_prepare_v2(db, explain, -1, &stmt, NULL), SQLITE_OK);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        const char *detail = (const char *)sqlite3_column_text(stmt, 3);
        if (strncmp(detail, "MATERIALIZE", 11) == 0 || strstr(detail, "TEMP B-TREE"))
            fail_msg("'%s' in: %s", detail, sql);
    }
    sqlite3_finalize(stmt);
    sqlite3_free(explain);
    sqlite3_close(db);
}

static void test_paged_reads_stream_in_index_order(void **state)
{
    struct fixture *fixture = *state;
    const store_statement_text *lists[] = {STORE_READ_GAME_STATEMENTS,
                                           STORE_READ_RANKING_STATEMENTS};
    int checked = 0;
    for (int i = 0; i < 2; i++) {
        for (const store_statement_text *text = lists[i]; text->sql; text++) {
            bool is_paged = text->id >= STORE_SQL_READ_GAMES_ALL &&
                            text->id <= STORE_SQL_READ_GAMES_OF_TOURNAMENT;
            if (is_paged) {
                assert_streams(fixture->db.path, text->sql);
                checked++;
            }
        }
    }
    assert_int_equal(checked, 5);
}

static void test_reader_refuses_to_write_and_a_missing_file(void **state)
{
    struct fixture *fixture = *state;
    int64_t id = 0;
    assert_int_equal(store_player_create(fixture->reader, "x", false, NULL, &id), STORE_E_IO);
    store *reader = NULL;
    assert_int_equal(store_open_reader(test_db_is_postgres()
                                           ? "postgresql:///t?host=/nonexistent/folder"
                                           : "/nonexistent/folder/t.db",
                                       &reader),
                     STORE_E_IO);
    assert_null(reader);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
#define TEST(name)        cmocka_unit_test_setup_teardown(name, setup, teardown)
#define SQLITE_TEST(name) TEST_DB_SQLITE_ONLY(name, setup, teardown)
        TEST(test_games_walk_newest_first_without_gaps_or_repeats),
        TEST(test_games_filters_each_select_only_their_games),
        TEST(test_games_filter_outside_the_index_pages_through_the_scan_cap),
        TEST(test_sparse_matches_fill_the_page_across_chunks),
        TEST(test_player_seated_twice_is_listed_once),
        TEST(test_game_rating_changes_are_read_with_names),
        TEST(test_players_are_found_by_name_key_and_guests_are_not),
        TEST(test_profile_reads_ratings_history_and_reef_best),
        TEST(test_rating_history_is_in_finish_order),
        TEST(test_rating_history_of_one_millisecond_follows_the_chain),
        TEST(test_builtin_bot_entry_has_games_and_counters),
        TEST(test_blokus_board_ranks_by_display_over_pages_with_a_minimum),
        TEST(test_reef_board_pages_through_ties_in_order),
        TEST(test_reef_board_around_a_player_centres_on_it),
        TEST(test_reef_score_counts_follow_the_runs),
        TEST(test_bad_limits_are_refused),
        SQLITE_TEST(test_every_read_statement_uses_an_index),
        SQLITE_TEST(test_paged_reads_stream_in_index_order),
        TEST(test_reader_refuses_to_write_and_a_missing_file),
#undef TEST
#undef SQLITE_TEST
    };
    return test_db_run(tests, sizeof(tests) / sizeof(tests[0]));
}
