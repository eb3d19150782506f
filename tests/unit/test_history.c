/* test_history.c -- history requests' filters and cursors
 * (history/history_parse.c).
 *
 * A cursor is taken back only by the list that wrote it: the same route
 * and filters under the same key; the page size may change. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "history/history.h"

static const unsigned char KEY[STORE_CURSOR_KEY_BYTES] = {7, 1, 9};
static const unsigned char OTHER_KEY[STORE_CURSOR_KEY_BYTES] = {8};

/* Parses `path` with the query pairs of `query_text` ("a=1&b=2"). */
static int parse(const unsigned char *key, const char *path, const char *query_text,
                 history_request *request, history_result *error)
{
    url_query query = {NULL, 0};
    for (const char *pair = query_text; pair && *pair;) {
        size_t length = strcspn(pair, "&");
        assert_int_equal(url_query_add(&query, pair, length), 0);
        pair += length + (pair[length] == '&');
    }
    history_settings settings = {1, 1795521600000, key};
    int rc = history_parse(path, &query, &settings, request, error);
    url_query_clear(&query);
    return rc;
}

/* The cursor of position (key 5, id 5) in the list of `path`?`query`. */
static void cursor_of(const char *path, const char *query, char cursor[PAGE_CURSOR_SIZE])
{
    history_request request;
    history_result error;
    assert_int_equal(parse(KEY, path, query, &request, &error), 0);
    history_cursor_write(&request, (store_read_after){false, 5, 5}, cursor);
}

static void assert_refused(const unsigned char *key, const char *path, const char *query)
{
    history_request request;
    history_result error;
    assert_int_equal(parse(key, path, query, &request, &error), -1);
    assert_int_equal(error.status, 400);
    assert_string_equal(error.failure.code, "bad_parameter");
}

static void test_a_cursor_continues_its_own_list(void **state)
{
    (void)state;
    char cursor[PAGE_CURSOR_SIZE], query[128];
    cursor_of("/api/games", "status=finished&player=Ada", cursor);
    history_request request;
    history_result error;
    snprintf(query, sizeof(query), "player=ada&status=finished&limit=3&cursor=%s", cursor);
    assert_int_equal(parse(KEY, "/api/games", query, &request, &error), 0);
    assert_false(request.after.is_first);
    assert_int_equal(request.after.key, 5);
    assert_int_equal(request.after.id, 5);
    assert_int_equal(request.limit, 3);
}

static void test_a_cursor_of_another_list_or_key_is_refused(void **state)
{
    (void)state;
    char cursor[PAGE_CURSOR_SIZE], query[128];
    cursor_of("/api/games", "status=finished", cursor);
    snprintf(query, sizeof(query), "cursor=%s", cursor);
    assert_refused(KEY, "/api/games", query);
    assert_refused(KEY, "/api/leaderboards/blokus", query);
    assert_refused(KEY, "/api/tournaments", query);
    snprintf(query, sizeof(query), "status=waiting&cursor=%s", cursor);
    assert_refused(KEY, "/api/games", query);
    snprintf(query, sizeof(query), "status=finished&cursor=%s", cursor);
    assert_refused(OTHER_KEY, "/api/games", query);
    cursor[0] = cursor[0] == '0' ? '1' : '0'; /* another position, the same tag */
    snprintf(query, sizeof(query), "status=finished&cursor=%s", cursor);
    assert_refused(KEY, "/api/games", query);
}

static void test_a_cursor_is_bound_to_its_player_id(void **state)
{
    (void)state;
    char cursor[PAGE_CURSOR_SIZE], query[128];
    cursor_of("/api/games", "player_id=7", cursor);
    history_request request;
    history_result error;
    snprintf(query, sizeof(query), "player_id=7&cursor=%s", cursor);
    assert_int_equal(parse(KEY, "/api/games", query, &request, &error), 0);
    assert_int_equal(request.player_id, 7);
    snprintf(query, sizeof(query), "player_id=8&cursor=%s", cursor);
    assert_refused(KEY, "/api/games", query);
    snprintf(query, sizeof(query), "cursor=%s", cursor);
    assert_refused(KEY, "/api/games", query);
    assert_refused(KEY, "/api/games", "player_id=0");
    assert_refused(KEY, "/api/games", "player=ada&player_id=7");
}

/* The games' modes differ, so a mode alone is read as its game and mode
 * (the storage then walks the index of both); a mode of the other game is
 * refused. */
static void test_a_mode_alone_names_its_game(void **state)
{
    (void)state;
    static const char *const CASES[][2] = {{"mode=3p", "blokus"},
                                           {"mode=duo", "blokus"},
                                           {"mode=race", "reef-builder"},
                                           {"mode=solo&status=finished", "reef-builder"},
                                           {"status=finished", ""}};
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        history_request request;
        history_result error;
        assert_int_equal(parse(KEY, "/api/games", CASES[i][0], &request, &error), 0);
        assert_string_equal(request.game, CASES[i][1]);
    }
    assert_refused(KEY, "/api/games", "game=reef-builder&mode=3p");
    assert_refused(KEY, "/api/games", "mode=5p");
    char cursor[PAGE_CURSOR_SIZE], query[128];
    cursor_of("/api/games", "mode=3p", cursor);
    history_request request;
    history_result error;
    snprintf(query, sizeof(query), "game=blokus&mode=3p&cursor=%s", cursor); /* the same list */
    assert_int_equal(parse(KEY, "/api/games", query, &request, &error), 0);
}

static void test_a_reef_board_cursor_is_bound_to_its_board(void **state)
{
    (void)state;
    char cursor[PAGE_CURSOR_SIZE], query[128];
    cursor_of("/api/leaderboards/reef", "seed=5&around=ada", cursor);
    history_request request;
    history_result error;
    snprintf(query, sizeof(query), "seed=5&cursor=%s", cursor); /* around's next goes on */
    assert_int_equal(parse(KEY, "/api/leaderboards/reef", query, &request, &error), 0);
    snprintf(query, sizeof(query), "seed=6&cursor=%s", cursor);
    assert_refused(KEY, "/api/leaderboards/reef", query);
    snprintf(query, sizeof(query), "period=day&cursor=%s", cursor);
    assert_refused(KEY, "/api/leaderboards/reef", query);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_cursor_continues_its_own_list),
        cmocka_unit_test(test_a_cursor_of_another_list_or_key_is_refused),
        cmocka_unit_test(test_a_cursor_is_bound_to_its_player_id),
        cmocka_unit_test(test_a_mode_alone_names_its_game),
        cmocka_unit_test(test_a_reef_board_cursor_is_bound_to_its_board),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
