/* test_action_record.c -- the move log's stored format (lobby/action_record.c),
 * and the migration that brought existing logs to it (storage/store_schema.c,
 * version 6 -> 7).
 *
 * The format is written and read with plain values. The migration is run
 * on a database as version 6 left it: the schema built by the migrations
 * up to 6, and a move log in the JSON it stored (every kind of record, in
 * a Blokus and a Reef game); then each converted text is checked, and the
 * games are rebuilt through the rules to the position they had. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "lobby/action_record.h"
#include "lobby/game_wire.h"
#include "lobby/rebuild.h"
#include "protocol/game_json.h"
#include "storage/store_internal.h"

#define PIECE_F 9 /* engine/blokus.h's numbering: I1 I2 I3 V3 I4 L4 T4 O4 Z4 F ... */

static match_action move_action(game_move move)
{
    match_action action = {MATCH_ACTION_MOVE, move};
    return action;
}

static game_move blokus(int piece, int orientation, int row, int col)
{
    blokus_move move = {(uint8_t)piece, (uint8_t)orientation, (int8_t)row, (int8_t)col};
    return game_move_of_blokus(move);
}

/* Writes `action`, expects `text`, and reads it back as the same action. */
static void check_text(game_kind kind, match_action action, const char *text)
{
    char written[ACTION_RECORD_TEXT_MAX];
    action_record_write(&action, written);
    assert_string_equal(written, text);
    match_action read;
    assert_int_equal(action_record_parse(kind, text, &read), 0);
    assert_int_equal(read.kind, action.kind);
    if (action.kind == MATCH_ACTION_MOVE)
        assert_memory_equal(&read.move, &action.move, sizeof(read.move));
}

static void test_every_kind_of_action_has_its_text(void **state)
{
    (void)state;
    match_action resign = {.kind = MATCH_ACTION_RESIGN}, leave = {.kind = MATCH_ACTION_LEAVE};
    check_text(GAME_BLOKUS, move_action(blokus(PIECE_F, 3, 4, 5)), "F 3 4 5");
    check_text(GAME_BLOKUS, move_action(blokus(0, 0, 0, 19)), "I1 0 0 19");
    check_text(GAME_BLOKUS, move_action(blokus(20, 7, -2, 13)), "Z5 7 -2 13");
    check_text(GAME_BLOKUS, move_action(game_pass()), "pass");
    check_text(GAME_BLOKUS, resign, "resign");
    check_text(GAME_BLOKUS, leave, "leave");
    check_text(GAME_REEF, move_action(game_move_of_reef(reef_place(4, 3, 90))), "4 3 90");
    check_text(GAME_REEF, move_action(game_move_of_reef(reef_place(0, -1, 270))), "0 -1 270");
    check_text(GAME_REEF, move_action(game_move_of_reef(reef_skip())), "skip");
    check_text(GAME_REEF, resign, "resign");
    check_text(GAME_REEF, leave, "leave");
}

/* Each action has one spelling: anything else -- other spacing, signs,
 * zeros, case, the other game's text, the old JSON -- is no record. */
static void test_only_the_one_spelling_is_read(void **state)
{
    (void)state;
    static const char *const blokus_refused[] = {
        "",       " pass",     "pass ",    "F  3 4 5",        "F 03 4 5",  "F +3 4 5",   "f 3 4 5",
        "F 3 4",  "F 3 4 5 6", "Q9 0 0 0", "F 3 4 128",       "F 256 0 0", "F 3 4 5\n",  "skip",
        "4 3 90", "Resign",    "resign 1", "{\"pass\":true}", "F 3 4 x",   "unreadable", "F -0 4 5",
    };
    static const char *const reef_refused[] = {
        "pass",
        "F 3 4 5",
        "4 3",
        "4 3 90 1",
        "4  3 90",
        "04 3 90",
        "4 3 90 ",
        "{\"type\":\"skip\"}",
        "4 3 99999999999",
        "unreadable",
    };
    match_action read;
    for (size_t i = 0; i < sizeof(blokus_refused) / sizeof(blokus_refused[0]); i++)
        if (action_record_parse(GAME_BLOKUS, blokus_refused[i], &read) == 0)
            fail_msg("Blokus read '%s'", blokus_refused[i]);
    for (size_t i = 0; i < sizeof(reef_refused) / sizeof(reef_refused[0]); i++)
        if (action_record_parse(GAME_REEF, reef_refused[i], &read) == 0)
            fail_msg("Reef read '%s'", reef_refused[i]);
    char long_text[ACTION_RECORD_TEXT_MAX + 8];
    memset(long_text, '1', sizeof(long_text) - 1);
    long_text[sizeof(long_text) - 1] = '\0';
    assert_int_equal(action_record_parse(GAME_REEF, long_text, &read), -1);
}

/* ---- the migration of version 6's JSON log --------------------------------- */

#define BLOKUS_GAME 1
#define REEF_GAME   2
#define FORGED_GAME 3 /* a Reef game with a move no version ever read */
#define MAX_LOG     8

/* One log entry as version 6 stored it, and as version 7 must. */
struct entry {
    int seat;
    int64_t ply;
    char json[96];
    char text[ACTION_RECORD_TEXT_MAX];
};

/* A game as it was played: its options, its log, its final position. */
struct played {
    game_options options;
    game position;
    struct entry log[MAX_LOG];
    int count;
};

static game_options options_of(const char *game_name, const char *mode, uint64_t seed)
{
    game_options options;
    protocol_failure failure;
    assert_int_equal(game_wire_options_default(game_name, mode, seed, &options, &failure), 0);
    return options;
}

/* Logs `action` of `seat` with its version-6 JSON and version-7 text, and
 * plays it on the expected position. */
static void log_entry(struct played *played, int seat, const match_action *action, const char *json)
{
    struct entry *entry = &played->log[played->count++];
    entry->seat = seat;
    entry->ply = game_ply(&played->position, seat);
    snprintf(entry->json, sizeof(entry->json), "%s", json);
    action_record_write(action, entry->text);
    game_outcome outcome;
    if (action->kind == MATCH_ACTION_MOVE)
        game_apply(&played->position, seat, action->move, &outcome);
    else if (action->kind == MATCH_ACTION_RESIGN)
        game_resign(&played->position, seat);
}

/* A placement `move` as version 6 stored it: game.moved's JSON. */
static void log_move(struct played *played, int seat, game_move move)
{
    json_t *json = game_json_move(move);
    char *text = json_dumps(json, JSON_COMPACT);
    json_decref(json);
    match_action action = move_action(move);
    log_entry(played, seat, &action, text);
    free(text);
}

static void log_other(struct played *played, int seat, match_action_kind kind)
{
    match_action action = {.kind = kind};
    log_entry(played, seat, &action,
              kind == MATCH_ACTION_RESIGN ? "{\"resign\":true}" : "{\"leave\":true}");
}

/* Duo: two placements, a pass (the timeout policy's), a third placement,
 * a seat leaves, the other resigns. */
static void play_blokus(struct played *played)
{
    memset(played, 0, sizeof(*played));
    played->options = options_of("blokus", "duo", 1);
    game_start(&played->position, &played->options);
    log_move(played, 0, blokus(0, 0, 4, 4));
    log_move(played, 1, blokus(0, 0, 9, 9));
    log_move(played, 0, game_pass());
    log_move(played, 1, blokus(1, 0, 10, 10));
    log_other(played, 1, MATCH_ACTION_LEAVE);
    log_other(played, 0, MATCH_ACTION_RESIGN);
    assert_true(game_is_over(&played->position));
    static const char *const texts[] = {"I1 0 4 4",   "I1 0 9 9", "pass",
                                        "I2 0 10 10", "leave",    "resign"};
    assert_string_equal(played->log[0].json,
                        "{\"piece\":\"I1\",\"orientation\":0,\"row\":4,\"col\":4}");
    assert_string_equal(played->log[2].json, "{\"pass\":true}");
    for (int i = 0; i < played->count; i++)
        assert_string_equal(played->log[i].text, texts[i]);
}

/* The first legal placement of the board, and whether there was one. */
static game_move first_placement(const game *position)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&position->state.reef[0], actions);
    for (int i = 0; i < count; i++)
        if (actions[i].type == REEF_ACTION_PLACE)
            return game_move_of_reef(actions[i]);
    fail_msg("no placement");
    return game_move_of_reef(reef_skip());
}

/* Solo: a placement, a skip, a placement, the player leaves, then resigns. */
static void play_reef(struct played *played)
{
    memset(played, 0, sizeof(*played));
    played->options = options_of("reef-builder", "solo", 7);
    game_start(&played->position, &played->options);
    game_move first = first_placement(&played->position);
    log_move(played, 0, first);
    log_move(played, 0, game_move_of_reef(reef_skip()));
    game_move second = first_placement(&played->position);
    log_move(played, 0, second);
    log_other(played, 0, MATCH_ACTION_LEAVE);
    log_other(played, 0, MATCH_ACTION_RESIGN);
    assert_true(game_is_over(&played->position));
    char expected[ACTION_RECORD_TEXT_MAX];
    snprintf(expected, sizeof(expected), "%d %d %d", first.reef.row, first.reef.col,
             first.reef.orientation);
    assert_string_equal(played->log[0].text, expected);
    assert_string_equal(played->log[1].json, "{\"type\":\"skip\"}");
    assert_string_equal(played->log[1].text, "skip");
    assert_string_equal(played->log[4].text, "resign");
}

static void execute(sqlite3 *db, const char *sql)
{
    char *error = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &error) != SQLITE_OK)
        fail_msg("%s: %s", sql, error);
}

static void insert_game(sqlite3 *db, int id, const struct played *played)
{
    json_t *options = game_wire_options_json(&played->options);
    char *options_text = json_dumps(options, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(options);
    char *sql = sqlite3_mprintf(
        "INSERT INTO games (id, room, game, mode, options, seed, status, created_at, started_at)"
        " VALUES (%d, 'room%d', %Q, %Q, %Q, %lld, 'playing', 1000, 2000);"
        "INSERT INTO seats (game_id, seat, player_id) VALUES (%d, 0, 1);",
        id, id, game_kind_name(&played->options), game_mode_name(&played->options), options_text,
        (long long)played->options.seed, id);
    free(options_text);
    execute(db, sql);
    sqlite3_free(sql);
    for (int seat = 1; seat < played->options.seat_count; seat++) {
        sql = sqlite3_mprintf("INSERT INTO seats (game_id, seat, player_id) VALUES (%d, %d, %d)",
                              id, seat, seat + 1);
        execute(db, sql);
        sqlite3_free(sql);
    }
    for (int seq = 0; seq < played->count; seq++) {
        const struct entry *entry = &played->log[seq];
        sql = sqlite3_mprintf("INSERT INTO moves VALUES (%d, %d, %d, %lld, %Q, 5, -1, %d)", id, seq,
                              entry->seat, (long long)entry->ply, entry->json, 3000 + seq);
        execute(db, sql);
        sqlite3_free(sql);
    }
}

/* The store registers run_digest on its connections (storage/store.c) and
 * version 5's migration calls it; this database has no Reef run to digest. */
static void no_digest(sqlite3_context *context, int count, sqlite3_value **values)
{
    (void)count;
    (void)values;
    sqlite3_result_null(context);
}

/* A version-6 database holding the two games, and a Reef game whose one
 * move has a fractional row. */
static void write_version_6_database(const char *path, const struct played *blokus_game,
                                     const struct played *reef_game)
{
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(
        sqlite3_create_function(db, "run_digest", 1, SQLITE_UTF8, NULL, no_digest, NULL, NULL),
        SQLITE_OK);
    assert_int_equal(store_schema_migrate_to(db, 6), STORE_OK);
    execute(db, "INSERT INTO players (id, name, is_bot, created_at) VALUES"
                " (1, 'ann', 0, 1), (2, 'bob', 0, 1)");
    insert_game(db, BLOKUS_GAME, blokus_game);
    insert_game(db, REEF_GAME, reef_game);
    struct played forged = *reef_game;
    forged.count = 1;
    snprintf(forged.log[0].json, sizeof(forged.log[0].json),
             "{\"type\":\"place\",\"row\":1.5,\"col\":0,\"orientation\":0}");
    insert_game(db, FORGED_GAME, &forged);
    sqlite3_close(db);
}

static store_game_record *load(store *storage, int64_t id)
{
    store_game_record *record = NULL;
    assert_int_equal(store_game_load(storage, id, &record), STORE_OK);
    return record;
}

/* The stored game's log is `game`'s in the new text, and it rebuilds to
 * the same position. */
static void check_migrated(store *storage, int64_t id, const struct played *played)
{
    store_game_record *record = load(storage, id);
    assert_int_equal(record->move_count, played->count);
    for (int i = 0; i < played->count; i++)
        assert_string_equal(record->moves[i].action, played->log[i].text);
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    if (rebuild_match(record, &config, &rebuilt, NULL, NULL, &failure) != 0)
        fail_msg("game %lld does not replay: %s", (long long)id, failure.message);
    assert_true(game_is_over(&rebuilt.game));
    assert_memory_equal(&rebuilt.game.state, &played->position.state,
                        sizeof(played->position.state));
    assert_memory_equal(rebuilt.game.has_resigned, played->position.has_resigned,
                        sizeof(played->position.has_resigned));
    assert_true(rebuilt.seats[played->log[played->count - 2].seat].has_left);
    store_game_record_free(record);
}

static void test_version_6_logs_are_converted_and_replay(void **state)
{
    (void)state;
    char directory[] = "/tmp/tessera-record-XXXXXX", path[64];
    assert_non_null(mkdtemp(directory));
    snprintf(path, sizeof(path), "%s/old.db", directory);
    struct played blokus_game, reef_game;
    play_blokus(&blokus_game);
    play_reef(&reef_game);
    write_version_6_database(path, &blokus_game, &reef_game);

    store *storage = NULL;
    assert_int_equal(store_open(path, false, &storage), STORE_OK);
    check_migrated(storage, BLOKUS_GAME, &blokus_game);
    check_migrated(storage, REEF_GAME, &reef_game);
    store_game_record *forged = load(storage, FORGED_GAME);
    assert_string_equal(forged->moves[0].action, "unreadable");
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    assert_int_not_equal(rebuild_match(forged, &config, &rebuilt, NULL, NULL, &failure), 0);
    assert_non_null(strstr(failure.message, "move 0 does not read back"));
    store_game_record_free(forged);
    /* The moves table works as before: the next move of a game is appended. */
    store_move next = {REEF_GAME, reef_game.count, 0, 9, "skip", 1, -1, 4000};
    assert_int_equal(store_move_append(storage, &next), STORE_OK);
    store_move gap = {REEF_GAME, reef_game.count + 2, 0, 9, "skip", 1, -1, 4000};
    assert_int_equal(store_move_append(storage, &gap), STORE_E_CONSTRAINT);
    store_close(storage);

    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char file[80];
        snprintf(file, sizeof(file), "%s%s", path, suffixes[i]);
        unlink(file);
    }
    rmdir(directory);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_kind_of_action_has_its_text),
        cmocka_unit_test(test_only_the_one_spelling_is_read),
        cmocka_unit_test(test_version_6_logs_are_converted_and_replay),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
