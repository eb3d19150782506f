/* test_lobby_chaos.c -- many clients doing anything, in any order.
 *
 * Each seeded run drives the lobby with a random script: connections come
 * and go, players sign in anew or with an old token, create rooms of every
 * game and mode (clocks, timeouts, privacy), take seats, add bots, start,
 * play legal and illegal moves against right and wrong plies, resign,
 * leave, send garbage, while the clock jumps and bot jobs run or wait. The
 * properties: nothing crashes or leaks (this suite also runs under ASan and
 * UBSan), every message sent is a JSON object with a type, every error has
 * a code and a message, and at the end every game in progress can be
 * rebuilt from the store by a fresh lobby. The store fails now and then
 * (a write, a commit): no move anyone was told of may be missing from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/lobby.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/fault_store.h"

#define CONNECTIONS 8 /* connection ids 1 .. CONNECTIONS */
#define ROOMS       16
#define TOKENS      16
#define STEPS       400
#define RUNS        25

/* Events counted so a run can show it exercised whole games. */
enum seen { SEEN_MOVED, SEEN_OVER, SEEN_STARTED, SEEN_OTHER, SEEN_KINDS };

struct script {
    rng random;
    struct lobby *lobby;
    bool is_open[CONNECTIONS + 1];
    char rooms[ROOMS][32];
    int room_count;
    char tokens[TOKENS][80];
    int token_count;
    int seen[SEEN_KINDS];
    /* per room code: the highest ply a game.moved announced */
    char moved_rooms[ROOMS * 4][32];
    int64_t moved_ply[ROOMS * 4];
    int moved_room_count;
};

static uint32_t pick(struct script *s, uint32_t n)
{
    return rng_below(&s->random, n);
}

static uint64_t any_connection(struct script *s)
{
    return 1 + pick(s, CONNECTIONS);
}

static const char *any_room(struct script *s)
{
    return s->room_count ? s->rooms[pick(s, (uint32_t)s->room_count)] : "nosuchrm";
}

static void send_text(struct script *s, uint64_t connection, const char *text)
{
    if (s->is_open[connection])
        lobby_message(s->lobby, connection, text, strlen(text));
}

static void say(struct script *s, uint64_t connection, const char *format, ...)
{
    char text[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(text, sizeof(text), format, args);
    va_end(args);
    send_text(s, connection, text);
}

static int message_kind(const char *type)
{
    if (strcmp(type, "game.moved") == 0)
        return SEEN_MOVED;
    if (strcmp(type, "game.over") == 0)
        return SEEN_OVER;
    return strcmp(type, "room.started") == 0 ? SEEN_STARTED : SEEN_OTHER;
}

/* Remembers the highest ply announced for a room. */
static void note_moved(struct script *s, const json_t *moved)
{
    const char *room = json_string_value(json_object_get(moved, "room"));
    int64_t ply = json_integer_value(json_object_get(moved, "ply"));
    int i = 0;
    while (i < s->moved_room_count && strcmp(s->moved_rooms[i], room) != 0)
        i++;
    if (i == s->moved_room_count) {
        assert_true(i < ROOMS * 4);
        snprintf(s->moved_rooms[i], sizeof(s->moved_rooms[i]), "%s", room);
        s->moved_ply[i] = ply;
        s->moved_room_count++;
    }
    if (ply > s->moved_ply[i])
        s->moved_ply[i] = ply;
}

/* Learns room codes and tokens from what connections received, checks the
 * shape of every error, then empties the inboxes. */
static void read_inboxes(struct script *s)
{
    for (int c = 1; c <= CONNECTIONS; c++) {
        json_t *message;
        size_t i;
        json_array_foreach(host.inbox[c], i, message)
        {
            const char *type = json_string_value(json_object_get(message, "type"));
            if (strcmp(type, "error") == 0) {
                assert_true(json_is_string(json_object_get(message, "code")));
                assert_true(json_is_string(json_object_get(message, "message")));
            }
            s->seen[message_kind(type)]++;
            if (strcmp(type, "game.moved") == 0)
                note_moved(s, message);
            const char *token = json_string_value(json_object_get(message, "token"));
            if (strcmp(type, "welcome") == 0 && token && s->token_count < TOKENS)
                snprintf(s->tokens[s->token_count++], 80, "%s", token);
            const char *code =
                json_string_value(json_object_get(json_object_get(message, "room"), "id"));
            if (strcmp(type, "room") == 0 && code && s->room_count < ROOMS)
                snprintf(s->rooms[s->room_count++], 32, "%s", code);
        }
        json_array_clear(host.inbox[c]);
    }
}

static void connect_or_drop(struct script *s)
{
    uint64_t c = any_connection(s);
    if (s->is_open[c])
        lobby_disconnect(s->lobby, c);
    else
        lobby_connect(s->lobby, c, "127.0.0.1");
    s->is_open[c] = !s->is_open[c];
}

static void hello(struct script *s)
{
    uint64_t c = any_connection(s);
    if (s->token_count && pick(s, 2))
        say(s, c, "{\"type\":\"hello\",\"name\":\"back\",\"token\":\"%s\"}",
            s->tokens[pick(s, (uint32_t)s->token_count)]);
    else
        say(s, c, "{\"type\":\"hello\",\"name\":\"p%u\",\"bot\":%s}", pick(s, 100),
            pick(s, 2) ? "true" : "false");
}

static void create_room(struct script *s, uint64_t c)
{
    static const char *const kinds[][2] = {{"blokus", "4p"},         {"blokus", "3p"},
                                           {"blokus", "2p"},         {"blokus", "duo"},
                                           {"reef-builder", "solo"}, {"reef-builder", "race"}};
    const char *const *kind = kinds[pick(s, 6)];
    const char *clock = pick(s, 3) ? "" : ",\"clock\":{\"initial_ms\":2000,\"increment_ms\":500}";
    const char *turns = strcmp(kind[0], "blokus") ? ",\"max_turns\":30" : "";
    say(s, c,
        "{\"type\":\"room.create\",\"game\":\"%s\",\"mode\":\"%s\"%s%s,\"timeout\":\"%s\","
        "\"private\":%s}",
        kind[0], kind[1], clock, turns, pick(s, 2) ? "bot" : "pass", pick(s, 2) ? "true" : "false");
}

static void seat_someone(struct script *s)
{
    static const char *const bots[] = {"random", "greedy", "mcts", "lookahead", "nobody"};
    const char *room = any_room(s);
    if (pick(s, 2))
        say(s, any_connection(s),
            "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%u,"
            "\"bot\":\"%s\"}",
            room, pick(s, 4), bots[pick(s, 5)]);
    else
        say(s, any_connection(s), "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"%s\"}", room,
            pick(s, 3) ? "player" : "spectator");
}

/* A legal move when the lobby offers one, or a wrong one on purpose. */
static void move_in(struct script *s, uint64_t c, const char *room)
{
    json_array_clear(host.inbox[c]);
    say(s, c, "{\"type\":\"game.moves\",\"room\":\"%s\"}", room);
    json_t *reply = json_array_get(host.inbox[c], json_array_size(host.inbox[c]) - 1);
    json_t *moves = json_object_get(reply, "moves");
    json_int_t ply = json_integer_value(json_object_get(reply, "ply")) + (pick(s, 8) == 0);
    char *action =
        json_array_size(moves)
            ? json_dumps(json_array_get(moves, pick(s, (uint32_t)json_array_size(moves))),
                         JSON_COMPACT)
            : strdup("{\"piece\":\"X\",\"orientation\":0,\"row\":9,\"col\":9}");
    say(s, c, "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":%lld,\"action\":%s}", room,
        (long long)ply, action);
    free(action);
    read_inboxes(s);
}

static void garbage(struct script *s)
{
    static const char *const texts[] = {
        "",
        "{",
        "[]",
        "null",
        "{\"type\":\"room.join\"}",
        "{\"type\":\"game.move\",\"room\":1}",
        "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"4p\",\"seed\":-1}",
        "{\"type\":\"ping\",\"data\":[1,{\"a\":null}]}",
        "{\"type\":\"rooms.list\",\"x\":1}"};
    send_text(s, any_connection(s), texts[pick(s, sizeof(texts) / sizeof(texts[0]))]);
}

/* The last room this connection heard of, "" if none. */
static const char *room_of_reply(uint64_t c)
{
    json_t *inbox = host.inbox[c];
    for (size_t i = json_array_size(inbox); i-- > 0;) {
        json_t *room = json_object_get(json_array_get(inbox, i), "room");
        if (json_is_object(room))
            return json_string_value(json_object_get(room, "id"));
    }
    return "";
}

/* A whole game set up on purpose: a room, its creator and others seated,
 * bots in the other seats, the start. */
static void set_up_game(struct script *s)
{
    uint64_t owner = any_connection(s);
    json_array_clear(host.inbox[owner]);
    create_room(s, owner);
    char room[32];
    snprintf(room, sizeof(room), "%s", room_of_reply(owner));
    for (int seat = 0; seat < 4; seat++) {
        if (pick(s, 2))
            say(s, any_connection(s), "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":%d}", room,
                seat);
        say(s, owner, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"%s\"}",
            room, seat, pick(s, 2) ? "greedy" : "random");
        say(s, owner, "{\"type\":\"room.add_bot\",\"room\":\"%s\",\"seat\":%d,\"bot\":\"greedy\"}",
            room, seat);
    }
    say(s, owner, "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
}

/* Whoever can move in some room makes a move (see move()). */
static void play_somewhere(struct script *s)
{
    for (uint64_t c = 1; c <= CONNECTIONS; c++)
        move_in(s, c, any_room(s));
}

/* The store will fail soon: one of the next few writes, or the next commit. */
static void arm_a_fault(struct script *s)
{
    if (pick(s, 4) != 0)
        return; /* rarely enough that games still get played */
    if (pick(s, 2)) {
        faults.fail_kind = FAULT_ANY_WRITE;
        faults.fail_write_in = 1 + (int)pick(s, 4);
    } else {
        faults.is_failing_commit = true;
    }
}

static void step(struct script *s)
{
    const char *room = any_room(s);
    switch (pick(s, 15)) {
    case 0:
        connect_or_drop(s);
        break;
    case 1:
        hello(s);
        break;
    case 2:
        create_room(s, any_connection(s));
        break;
    case 3:
    case 4:
        seat_someone(s);
        break;
    case 5:
        say(s, any_connection(s), "{\"type\":\"room.start\",\"room\":\"%s\"}", room);
        break;
    case 6:
        set_up_game(s);
        break;
    case 7:
    case 8:
        play_somewhere(s);
        break;
    case 9:
        say(s, any_connection(s), "{\"type\":\"game.resign\",\"room\":\"%s\"}", room);
        break;
    case 10:
        say(s, any_connection(s), "{\"type\":\"room.leave\",\"room\":\"%s\"}", room);
        break;
    case 11:
        garbage(s);
        break;
    case 12:
        host.now += pick(s, 3000);
        lobby_tick(s->lobby);
        break;
    case 13:
        arm_a_fault(s);
        break;
    default:
        fake_host_run_jobs((int)pick(s, 4));
        break;
    }
    read_inboxes(s);
}

/* Stored games that started and have not finished. */
static int games_being_played(store *db)
{
    int64_t *ids = NULL;
    int count = 0, playing = 0;
    assert_int_equal(store_unfinished_games(db, &ids, &count), 0);
    for (int i = 0; i < count; i++) {
        store_game_record *record = NULL;
        assert_int_equal(store_game_load(db, ids[i], &record), 0);
        playing += record->status == STORE_GAME_PLAYING;
        store_game_record_free(record);
    }
    free(ids);
    return playing;
}

/* Every game.moved anyone was told of is in the store: its game's log has
 * more entries than the ply it announced (plies never outrun the log). */
static void check_announced_moves_are_stored(const struct script *s, store *db)
{
    store_game_record *record = NULL;
    for (int64_t id = 1; store_game_load(db, id, &record) == 0; id++) {
        for (int i = 0; i < s->moved_room_count; i++)
            if (strcmp(s->moved_rooms[i], record->info.room) == 0)
                assert_true(record->move_count > s->moved_ply[i]);
        store_game_record_free(record);
        record = NULL;
    }
}

/* Across all runs: games started, games over, games restored. */
#define RESTORED SEEN_OTHER
static int totals[SEEN_KINDS];

static void run_script(uint64_t seed)
{
    store *db = NULL;
    struct script s;
    memset(&s, 0, sizeof(s));
    s.random = rng_seeded(seed);
    fake_host_reset(seed);
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 2;
    config.reconnect_grace_ms = 5000;
    assert_int_equal(store_open(":memory:", false, &db), 0);
    store_port port = fault_store_port(db);
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &config, &s.lobby), 0);
    for (uint64_t c = 1; c <= CONNECTIONS; c++) {
        lobby_connect(s.lobby, c, "127.0.0.1");
        s.is_open[c] = true;
        say(&s, c, "{\"type\":\"hello\",\"name\":\"p%d\"}", (int)c);
    }
    read_inboxes(&s);
    for (int i = 0; i < STEPS; i++)
        step(&s);
    fake_host_run_jobs(FAKE_HOST_JOBS * 4);
    read_inboxes(&s);
    fault_store_heal();
    check_announced_moves_are_stored(&s, db);
    int playing = games_being_played(db);
    int open_rooms = lobby_room_count(s.lobby);
    lobby_free(s.lobby);
    /* A fresh lobby on the same store rebuilds every game that had started
     * and not finished (waiting rooms are aborted); none may fail to replay. */
    assert_int_equal(lobby_new(&FAKE_HOST, &port, &config, &s.lobby), 0);
    int restored = fake_host_restore(s.lobby);
    assert_int_equal(restored, playing);
    assert_true(restored <= open_rooms);
    assert_true(s.seen[SEEN_STARTED] > 0 && s.seen[SEEN_MOVED] > 0);
    totals[SEEN_STARTED] += s.seen[SEEN_STARTED];
    totals[SEEN_OVER] += s.seen[SEEN_OVER];
    totals[RESTORED] += restored;
    fake_host_run_jobs(FAKE_HOST_JOBS * 4);
    lobby_free(s.lobby);
    store_close(db);
    fake_host_release();
}

static void test_random_scripts_never_break_the_lobby(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= RUNS; seed++)
        run_script(seed);
    /* The scripts must reach every phase a game has, or they prove little. */
    assert_true(totals[SEEN_STARTED] >= RUNS);
    assert_true(totals[SEEN_OVER] > 0);
    assert_true(totals[RESTORED] > 0);
    assert_true(faults.failures > 0); /* the store did fail on the way */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_scripts_never_break_the_lobby),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
