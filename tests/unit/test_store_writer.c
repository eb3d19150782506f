/* test_store_writer.c -- the store port on its writer thread: answers come
 * later, on the loop, in the order submitted; a batch is stored whole or
 * not at all; closing answers everything, including what answers submit;
 * the WAL is checkpointed from another connection. Run as
 * unit_store_writer_pg, the same on PostgreSQL (test_db.h), where a group
 * is one pipeline, done again statement by statement when a batch in it
 * fails; the WAL is SQLite's alone. On PostgreSQL, with several
 * connections: a room whose row is locked holds up no other room nor the
 * lobby's batches, and a batch after all waits for it; a deadlock with
 * another transaction costs no batch. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/store_writer.h"
#include "tests/unit/test_db.h"

struct fixture {
    uv_loop_t loop;
    test_db db;
    char other_path[160]; /* a database no writer thread touches (SQLite) */
    store *reader;        /* another connection, as the loop's own */
    test_db_hold *holder; /* PostgreSQL: a transaction holding a game's row, or NULL */
    store_writer *writer;
    store_port port;
};

/* What a test's batches were answered with, in order. */
struct answers {
    int count;
    int rc[8];
    int64_t ids[8];
};

static void on_answer(void *context, int rc, store_batch *batch)
{
    struct answers *answers = context;
    assert_true(answers->count < 8);
    answers->rc[answers->count] = rc;
    answers->ids[answers->count] = batch->records[0].game.id;
    answers->count++;
}

/* A writer on `connections` connections (more than one: PostgreSQL). */
static int setup_writer(void **state, int connections)
{
    struct fixture *fixture = calloc(1, sizeof(*fixture));
    assert_non_null(fixture);
    assert_int_equal(uv_loop_init(&fixture->loop), 0);
    assert_int_equal(test_db_make(&fixture->db), 0);
    snprintf(fixture->other_path, sizeof(fixture->other_path), "%s/c.db", fixture->db.directory);
    store *db[4] = {0}, *checkpointer = NULL; /* a database server checkpoints on its own */
    for (int i = 0; i < connections; i++)
        assert_int_equal(store_open(fixture->db.path, false, &db[i]), STORE_OK);
    if (!test_db_is_postgres())
        assert_int_equal(store_open(fixture->db.path, false, &checkpointer), STORE_OK);
    assert_int_equal(store_open(fixture->db.path, false, &fixture->reader), STORE_OK);
    assert_int_equal(
        store_writer_start(&fixture->loop, db, connections, checkpointer, &fixture->writer),
        STORE_OK);
    fixture->port = store_writer_port(fixture->writer);
    *state = fixture;
    return 0;
}

static int setup(void **state)
{
    return setup_writer(state, 1);
}

static int setup_three(void **state)
{
    return setup_writer(state, 3);
}

static int teardown(void **state)
{
    struct fixture *fixture = *state;
    test_db_hold_end(fixture->holder); /* a test that failed holding a row lets it go */
    store_writer_close(fixture->writer);
    store_close(fixture->reader);
    assert_int_equal(uv_loop_close(&fixture->loop), 0);
    test_db_drop(&fixture->db);
    free(fixture);
    return 0;
}

static store_record game_record(const char *room)
{
    store_record record = {.kind = STORE_RECORD_GAME_CREATE, .at_ms = 1000};
    snprintf(record.game.room, sizeof(record.game.room), "%s", room);
    snprintf(record.game.game, sizeof(record.game.game), "blokus");
    snprintf(record.game.mode, sizeof(record.game.mode), "duo");
    snprintf(record.game.options, sizeof(record.game.options), "{}");
    return record;
}

/* Runs the loop until `answers` has `count` answers. */
static void await_answers(struct fixture *fixture, const struct answers *answers, int count)
{
    while (answers->count < count)
        uv_run(&fixture->loop, UV_RUN_ONCE);
}

/* Submits `count` batches in one turn (so they share a commit) and waits
 * for their answers. */
static void store_together(struct fixture *fixture, store_batch *batches, int count,
                           struct answers *answers)
{
    for (int i = 0; i < count; i++)
        assert_int_equal(
            fixture->port.submit(fixture->port.context, &batches[i], on_answer, answers), STORE_OK);
    await_answers(fixture, answers, count);
}

/* The games stored and not finished: `count` of them. */
static void assert_unfinished(struct fixture *fixture, int count, int64_t first, int64_t second)
{
    int64_t *ids = NULL;
    int found = -1;
    assert_int_equal(store_unfinished_games(fixture->reader, &ids, &found), STORE_OK);
    assert_int_equal(found, count);
    if (count == 2)
        assert_true(ids[0] == first && ids[1] == second);
    free(ids);
    store_figures figures;
    store_writer_figures(fixture->writer, &figures);
    assert_int_equal(figures.commits.count, 1); /* submitted in one turn: one group commit */
}

static void test_answers_come_later_on_the_loop_in_order(void **state)
{
    struct fixture *fixture = *state;
    struct answers answers = {0};
    store_record records[3] = {game_record("AAAA"), game_record("BBBB"), game_record("CCCC")};
    store_batch batches[3];
    for (int i = 0; i < 3; i++) {
        batches[i] = (store_batch){&records[i], 1, STORE_ORDER_SUBMITTED};
        assert_int_equal(
            fixture->port.submit(fixture->port.context, &batches[i], on_answer, &answers),
            STORE_OK);
    }
    assert_int_equal(answers.count, 0); /* nothing answers inside submit */
    await_answers(fixture, &answers, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(answers.rc[i], STORE_OK);
    assert_true(answers.ids[0] > 0);
    assert_true(answers.ids[1] > answers.ids[0]); /* stored in the order submitted */
    assert_true(answers.ids[2] > answers.ids[1]);
    store_game_record *game = NULL;
    assert_int_equal(store_game_load(fixture->reader, answers.ids[2], &game), STORE_OK);
    store_game_record_free(game);
    store_figures figures;
    store_writer_figures(fixture->writer, &figures);
    assert_int_equal(figures.commits.count, 1); /* submitted in one turn: one group commit */
}

static void test_a_failing_record_rolls_the_whole_batch_back(void **state)
{
    struct fixture *fixture = *state;
    struct answers answers = {0};
    store_record records[2] = {game_record("DDDD"),
                               {.kind = STORE_RECORD_GAME_START, .game_id = 999999}};
    store_batch batch = {records, 2, STORE_ORDER_SUBMITTED};
    assert_int_equal(fixture->port.submit(fixture->port.context, &batch, on_answer, &answers),
                     STORE_OK);
    await_answers(fixture, &answers, 1);
    assert_int_not_equal(answers.rc[0], STORE_OK);
    int64_t *ids = NULL;
    int count = -1;
    assert_int_equal(store_unfinished_games(fixture->reader, &ids, &count), STORE_OK);
    free(ids);
    assert_int_equal(count, 0); /* the game of the failed batch is not there */
}

/* Batches that share a commit are still all or nothing each: the failing
 * one between two others leaves them stored. */
static void test_a_batch_that_fails_in_a_group_leaves_the_others_stored(void **state)
{
    struct fixture *fixture = *state;
    struct answers answers = {0};
    store_record records[4] = {game_record("EEEE"),
                               game_record("FFFF"),
                               {.kind = STORE_RECORD_GAME_START, .game_id = 999999},
                               game_record("GGGG")};
    store_batch batches[3] = {{&records[0], 1, STORE_ORDER_SUBMITTED},
                              {&records[1], 2, STORE_ORDER_SUBMITTED},
                              {&records[3], 1, STORE_ORDER_SUBMITTED}};
    store_together(fixture, batches, 3, &answers);
    assert_int_equal(answers.rc[0], STORE_OK);
    assert_int_not_equal(answers.rc[1], STORE_OK);
    assert_int_equal(answers.rc[2], STORE_OK);
    assert_unfinished(fixture, 2, answers.ids[0], answers.ids[2]); /* EEEE and GGGG, not FFFF */
}

/* The same when the failure is the database's refusal of a statement (a
 * move for no game being played): on PostgreSQL it spoils the group's
 * pipeline, which is then done again without it, one commit in all. */
static void test_a_refused_statement_in_a_group_leaves_the_others_stored(void **state)
{
    struct fixture *fixture = *state;
    struct answers answers = {0};
    store_record refused = {.kind = STORE_RECORD_MOVE, .at_ms = 1000};
    refused.move = (store_move){.game_id = 999999, .seq = 0, .clock_ms = -1, .at_ms = 1000};
    snprintf(refused.action_text, sizeof(refused.action_text), "pass");
    store_record records[3] = {game_record("HHHH"), refused, game_record("IIII")};
    store_batch batches[3] = {{&records[0], 1, STORE_ORDER_SUBMITTED},
                              {&records[1], 1, STORE_ORDER_SUBMITTED},
                              {&records[2], 1, STORE_ORDER_SUBMITTED}};
    store_together(fixture, batches, 3, &answers);
    assert_int_equal(answers.rc[0], STORE_OK);
    assert_int_equal(answers.rc[1], STORE_E_CONSTRAINT);
    assert_int_equal(answers.rc[2], STORE_OK);
    assert_unfinished(fixture, 2, answers.ids[0], answers.ids[2]); /* HHHH and IIII, once each */
}

/* A lookup that loads games shares a group with a batch that fails: the
 * group is stored with a savepoint per batch from the start, so the lookup
 * runs once (a second run would load into the list the first made). */
static void test_a_loading_lookup_in_a_failing_group_runs_once(void **state)
{
    struct fixture *fixture = *state;
    struct answers answers = {0};
    store_record records[3] = {game_record("JJJJ"),
                               {.kind = STORE_RECORD_FIND_UNFINISHED},
                               {.kind = STORE_RECORD_GAME_START, .game_id = 999999}};
    store_batch batches[3] = {{&records[0], 1, STORE_ORDER_SUBMITTED},
                              {&records[1], 1, STORE_ORDER_SUBMITTED},
                              {&records[2], 1, STORE_ORDER_SUBMITTED}};
    store_together(fixture, batches, 3, &answers);
    assert_int_equal(answers.rc[0], STORE_OK);
    assert_int_equal(answers.rc[1], STORE_OK);
    assert_int_not_equal(answers.rc[2], STORE_OK);
    store_record_find_games *found = &records[1].find_games;
    assert_int_equal(found->count, 1);
    assert_int_equal(found->games[0]->id, answers.ids[0]);
    assert_string_equal(found->games[0]->info.room, "JJJJ");
    store_found_games_free(found);
}

/* An answer that submits the next batch, as a room with queued events does. */
struct chain {
    store_port port;
    store_record records[3];
    store_batch batches[3];
    int answered;
};

static void on_chain_answer(void *context, int rc, store_batch *batch)
{
    struct chain *chain = context;
    (void)batch;
    assert_int_equal(rc, STORE_OK);
    chain->answered++;
    if (chain->answered < 3)
        assert_int_equal(chain->port.submit(chain->port.context, &chain->batches[chain->answered],
                                            on_chain_answer, chain),
                         STORE_OK);
}

static void test_closing_answers_what_answers_submit(void **state)
{
    struct fixture *fixture = *state;
    struct chain chain = {.port = fixture->port};
    for (int i = 0; i < 3; i++) {
        chain.records[i] = game_record("EEEE");
        chain.batches[i] = (store_batch){&chain.records[i], 1, STORE_ORDER_SUBMITTED};
    }
    assert_int_equal(
        chain.port.submit(chain.port.context, &chain.batches[0], on_chain_answer, &chain),
        STORE_OK);
    store_writer_flush(fixture->writer); /* without running the loop */
    assert_int_equal(chain.answered, 3);
}

/* A connection that leaves checkpoints elsewhere lets its WAL grow; a
 * PASSIVE checkpoint from another connection copies it and says how long
 * it is, and a RESTART one makes the next commit start the WAL over. */
static void test_checkpoints_run_on_another_connection(void **state)
{
    struct fixture *fixture = *state;
    store *db = NULL, *other = NULL; /* on a database of their own: no checkpointer runs there */
    assert_int_equal(store_open(fixture->other_path, false, &db), STORE_OK);
    assert_int_equal(store_open(fixture->other_path, false, &other), STORE_OK);
    assert_int_equal(store_checkpoint_elsewhere(db), STORE_OK);
    for (int i = 0; i < 200; i++) {
        store_record record = game_record("FFFF");
        store_batch batch = {&record, 1, STORE_ORDER_SUBMITTED};
        assert_int_equal(store_batch_apply(db, &batch), STORE_OK);
    }
    int grown = 0, frames = 0;
    assert_int_equal(store_checkpoint(other, false, &grown), STORE_OK);
    assert_true(grown > 200); /* every commit's pages, none checkpointed on the way */
    assert_int_equal(store_checkpoint(db, true, &frames), STORE_OK);
    store_record record = game_record("GGGG");
    store_batch batch = {&record, 1, STORE_ORDER_SUBMITTED};
    assert_int_equal(store_batch_apply(db, &batch), STORE_OK);
    assert_int_equal(store_checkpoint(other, false, &frames), STORE_OK);
    assert_true(frames > 0 && frames < 20); /* started over: this commit's pages only */
    store_close(other);
    store_close(db);
}

/* What a batch of the locking tests was answered with, and when. */
struct marked {
    int *order; /* the answers so far: each batch's mark, in the order answered */
    int *count;
    int mark;
    int rc;
};

static void on_marked_answer(void *context, int rc, store_batch *batch)
{
    struct marked *marked = context;
    (void)batch;
    marked->rc = rc;
    marked->order[(*marked->count)++] = marked->mark;
}

static void on_deadline(uv_timer_t *timer)
{
    (void)timer;
    fail_msg("the writer did not answer within 10 s");
}

/* Runs the loop until `count` answers came. */
static void await_count(struct fixture *fixture, const int *answered, int count)
{
    uv_timer_t deadline;
    assert_int_equal(uv_timer_init(&fixture->loop, &deadline), 0);
    assert_int_equal(uv_timer_start(&deadline, on_deadline, 10000, 0), 0);
    while (*answered < count)
        uv_run(&fixture->loop, UV_RUN_ONCE);
    uv_close((uv_handle_t *)&deadline, NULL);
    uv_run(&fixture->loop, UV_RUN_NOWAIT);
}

/* A game created and started in room `room`: its id. */
static int64_t started_game(struct fixture *fixture, const char *room)
{
    struct answers answers = {0};
    store_record records[2] = {game_record(room), {.kind = STORE_RECORD_GAME_START}};
    store_batch batch = {records, 1, STORE_ORDER_SUBMITTED};
    store_together(fixture, &batch, 1, &answers);
    assert_int_equal(answers.rc[0], STORE_OK);
    records[1].game_id = answers.ids[0];
    batch = (store_batch){&records[1], 1, STORE_ORDER_SUBMITTED};
    answers = (struct answers){0};
    assert_int_equal(fixture->port.submit(fixture->port.context, &batch, on_answer, &answers),
                     STORE_OK);
    await_answers(fixture, &answers, 1);
    assert_int_equal(answers.rc[0], STORE_OK);
    return records[1].game_id;
}

static store_record move_record(int64_t game_id)
{
    store_record record = {.kind = STORE_RECORD_MOVE, .at_ms = 2000};
    record.move = (store_move){.game_id = game_id, .seq = 0, .clock_ms = -1, .at_ms = 2000};
    snprintf(record.action_text, sizeof(record.action_text), "pass");
    return record;
}

/* Another client's transaction holding game `game_id`'s row, as a slow
 * or stuck commit would (fixture->holder). */
static void lock_game(struct fixture *fixture, int64_t game_id)
{
    char sql[96];
    snprintf(sql, sizeof(sql), "SELECT id FROM games WHERE id = %lld FOR UPDATE",
             (long long)game_id);
    fixture->holder = test_db_hold_begin(fixture->db.path, sql);
}

static void unlock_game(struct fixture *fixture)
{
    test_db_hold_end(fixture->holder);
    fixture->holder = NULL;
}

/* Four batches of one record each, submitted one at a time, and their
 * answers. */
struct lineup {
    store_record records[4];
    store_order orders[4];
    store_batch batches[4];
    struct marked marks[4];
    int order[4]; /* the batches answered, in the order answered */
    int answered;
};

static void submit_from(struct fixture *fixture, struct lineup *lineup, int i)
{
    lineup->marks[i] = (struct marked){lineup->order, &lineup->answered, i, -1};
    lineup->batches[i] = (store_batch){&lineup->records[i], 1, lineup->orders[i]};
    assert_int_equal(fixture->port.submit(fixture->port.context, &lineup->batches[i],
                                          on_marked_answer, &lineup->marks[i]),
                     STORE_OK);
}

static void test_a_locked_room_holds_up_no_other_room_nor_the_lobby(void **state)
{
    struct fixture *fixture = *state;
    int64_t locked_game = started_game(fixture, "LOCK");
    int64_t free_game = started_game(fixture, "FREE");
    lock_game(fixture, locked_game);
    struct lineup lineup = {
        .records = {move_record(locked_game), move_record(free_game), game_record("LOBY"),
                    move_record(free_game)},
        .orders = {STORE_ORDER_ROOM, STORE_ORDER_ROOM, STORE_ORDER_SUBMITTED, STORE_ORDER_ROOM}};
    lineup.records[3].move.seq = 1;
    for (int i = 0; i < 3; i++)
        submit_from(fixture, &lineup, i);
    await_count(fixture, &lineup.answered, 2);
    submit_from(fixture, &lineup, 3); /* the free room's next move, once answered */
    await_count(fixture, &lineup.answered, 3);
    for (int i = 1; i < 4; i++)
        assert_int_equal(lineup.marks[i].rc, STORE_OK);
    assert_int_equal(lineup.marks[0].rc, -1); /* the locked room's move waits */
    unlock_game(fixture);
    await_count(fixture, &lineup.answered, 4);
    assert_int_equal(lineup.order[3], 0);
    assert_int_equal(lineup.marks[0].rc, STORE_OK);
}

static void test_a_batch_after_all_waits_for_the_locked_room(void **state)
{
    struct fixture *fixture = *state;
    int64_t locked_game = started_game(fixture, "LOCK");
    int64_t free_game = started_game(fixture, "FREE");
    lock_game(fixture, locked_game);
    struct lineup lineup = {.records = {move_record(locked_game), game_record("ALL1"),
                                        game_record("LOBY"), move_record(free_game)},
                            .orders = {STORE_ORDER_ROOM, STORE_ORDER_AFTER_ALL,
                                       STORE_ORDER_SUBMITTED, STORE_ORDER_ROOM}};
    for (int i = 0; i < 4; i++)
        submit_from(fixture, &lineup, i);
    await_count(fixture, &lineup.answered, 1);
    assert_int_equal(lineup.order[0], 3); /* the free room goes */
    unlock_game(fixture);
    await_count(fixture, &lineup.answered, 4);
    assert_int_equal(lineup.order[1], 0); /* then the locked room, */
    assert_int_equal(lineup.order[2], 1); /* the batch after all, */
    assert_int_equal(lineup.order[3], 2); /* and the lobby's batch after it */
    for (int i = 0; i < 4; i++)
        assert_int_equal(lineup.marks[i].rc, STORE_OK);
}

/* Runs the loop's answers and reads `sql` until it answers `value`, or at
 * least `value` when `is_least` (what the database does has no event to
 * wait for), for 10 s at most. */
static void await_reaching(struct fixture *fixture, const char *sql, int64_t value, bool is_least)
{
    int64_t read = test_db_integer(fixture->db.path, sql);
    for (int i = 0; i < 1000 && !(read == value || (is_least && read > value)); i++) {
        uv_run(&fixture->loop, UV_RUN_NOWAIT);
        usleep(10000);
        read = test_db_integer(fixture->db.path, sql);
    }
    if (is_least)
        assert_in_range(read, value, INT64_MAX);
    else
        assert_int_equal(read, value);
}

static void await_value(struct fixture *fixture, const char *sql, int64_t value)
{
    await_reaching(fixture, sql, value, false);
}

/* The batch takes game A's row (a move), then waits for B's, which
 * another transaction holds; that transaction then asks for A's: a
 * deadlock, which PostgreSQL breaks by undoing the batch's transaction:
 * the one whose deadlock_timeout runs out first looks for the cycle, so
 * the holder's is made long (on a busy machine the two 1 s timeouts, a
 * few ms apart, could run out in either order). The batch is stored
 * again once the other commits. Its first retry may deadlock again: when
 * the batch is undone, the other waits on the batch's transaction, not in
 * a queue for A's row, and the retry can take the row first; each retry
 * is the one undone, so the other gets both rows in the end. */
static void test_a_deadlock_with_another_transaction_costs_no_batch(void **state)
{
    struct fixture *fixture = *state;
    int64_t first = started_game(fixture, "DLKA"), second = started_game(fixture, "DLKB");
    char sql[128];
    snprintf(sql, sizeof(sql),
             "SET LOCAL deadlock_timeout = '60s'; SELECT id FROM games WHERE id = %lld FOR UPDATE",
             (long long)second);
    fixture->holder = test_db_hold_begin(fixture->db.path, sql);
    store_record records[2] = {move_record(first), move_record(second)};
    store_batch batch = {records, 2, STORE_ORDER_ROOM};
    struct answers answers = {0};
    assert_int_equal(fixture->port.submit(fixture->port.context, &batch, on_answer, &answers),
                     STORE_OK);
    await_value(fixture,
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
                " AND datname = current_database()", /* not another test's */
                1);
    snprintf(sql, sizeof(sql), "SELECT id FROM games WHERE id = %lld FOR UPDATE", (long long)first);
    test_db_hold_send(fixture->holder, sql);
    await_value(fixture,
                "SELECT count(*) FROM pg_stat_activity WHERE state = 'idle in transaction'"
                " AND query LIKE '%FOR UPDATE%' AND datname = current_database()",
                1); /* the batch undone: the other has both rows */
    unlock_game(fixture);
    await_answers(fixture, &answers, 1);
    assert_int_equal(answers.rc[0], STORE_OK);
    snprintf(sql, sizeof(sql), "SELECT count(*) FROM moves WHERE game_id IN (%lld, %lld)",
             (long long)first, (long long)second);
    assert_int_equal(test_db_integer(fixture->db.path, sql), 2);
    await_reaching(fixture,
                   "SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()", 1,
                   true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_answers_come_later_on_the_loop_in_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_failing_record_rolls_the_whole_batch_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_batch_that_fails_in_a_group_leaves_the_others_stored,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_refused_statement_in_a_group_leaves_the_others_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_loading_lookup_in_a_failing_group_runs_once, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_closing_answers_what_answers_submit, setup, teardown),
        TEST_DB_SQLITE_ONLY(test_checkpoints_run_on_another_connection, setup, teardown),
        TEST_DB_POSTGRES_ONLY(test_a_locked_room_holds_up_no_other_room_nor_the_lobby, setup_three,
                              teardown),
        TEST_DB_POSTGRES_ONLY(test_a_batch_after_all_waits_for_the_locked_room, setup_three,
                              teardown),
        TEST_DB_POSTGRES_ONLY(test_a_deadlock_with_another_transaction_costs_no_batch, setup,
                              teardown),
    };
    return test_db_run(tests, sizeof(tests) / sizeof(tests[0]));
}
