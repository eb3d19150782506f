/* fuzz_lobby.c -- a lobby fed a stream of operations from several
 * connections, decoded from the input.
 *
 * The lobby runs on the fake host (tests/unit/fake_host.h: messages kept,
 * bot and password jobs queued until run, a clock moved by hand) over a
 * fault-free store on an in-memory SQLite database, with the cheapest
 * password hash so sign-ins cost little. Each operation is a byte and
 * its arguments:
 *   connect N, disconnect N, tick (the clock moves 0-65 s), run K jobs,
 *   a message from N built from a dictionary of valid messages whose field
 *   values come from the input (a known room code or token, a name, a
 *   number, a password...), raw bytes from N, and "play": N asks for its
 *   legal moves in a room and sends one (or a wrong ply).
 * The dictionary holds every client message type, account sign-in
 * (hello with a password, account.register) and tournament.create and
 * tournament.watch. What must hold:
 * - nothing crashes or leaks; every message sent is a JSON object with a
 *   type (the fake host checks), every error has a code and a message;
 * - nothing is published that was not stored: every game.moved anyone
 *   was told of is in the store;
 * - at the end a fresh lobby on the same store rebuilds exactly the games
 *   being played. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/lobby.h"
#include "tests/fuzz/fuzz_check.h"
#include "tests/unit/fake_host.h"
#include "tests/unit/fault_store.h"

#define CONNECTIONS 6 /* connection ids 1 .. CONNECTIONS */
#define KNOWN       8 /* room codes and tokens remembered */
#define OPERATIONS  200
#define TEXT_SIZE   2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
    const uint8_t *data;
    size_t size;
    struct lobby *lobby;
    bool is_open[CONNECTIONS + 1];
    char rooms[KNOWN][32];
    int room_count;
    char tokens[KNOWN][80];
    int token_count;
    /* per room: the highest ply a game.moved announced */
    char moved_rooms[64][32];
    int64_t moved_ply[64];
    int moved_room_count;
};

/* Each template's '@' + letter is filled from the input (see fill()). */
static const char *const TEMPLATES[] = {
    "{\"type\":\"hello\",\"name\":\"@N\"}",
    "{\"type\":\"hello\",\"name\":\"@N\",\"bot\":true}",
    "{\"type\":\"hello\",\"name\":\"@N\",\"token\":\"@T\"}",
    "{\"type\":\"hello\",\"name\":\"@N\",\"password\":\"@P\"}",
    "{\"type\":\"hello\",\"name\":\"@N\",\"key\":\"@T\"}",
    "{\"type\":\"account.register\",\"name\":\"@N\",\"password\":\"@P\"}",
    "{\"type\":\"ping\",\"id\":@I,\"data\":\"@X\"}",
    "{\"type\":\"rooms.list\",\"limit\":@I,\"game\":\"@G\",\"status\":\"@X\",\"cursor\":\"@X\"}",
    "{\"type\":\"room.create\",\"game\":\"@G\",\"mode\":\"@M\",\"private\":@Q}",
    "{\"type\":\"room.create\",\"game\":\"@G\",\"mode\":\"@M\",\"seed\":@I,\"max_turns\":@I,"
    "\"clock\":{\"initial_ms\":@I,\"increment_ms\":@I},\"timeout\":\"@X\"}",
    "{\"type\":\"room.join\",\"room\":\"@R\",\"seat\":@S}",
    "{\"type\":\"room.join\",\"room\":\"@R\",\"as\":\"spectator\"}",
    "{\"type\":\"room.add_bot\",\"room\":\"@R\",\"seat\":@S,\"bot\":\"@B\"}",
    "{\"type\":\"room.start\",\"room\":\"@R\"}",
    "{\"type\":\"room.leave\",\"room\":\"@R\"}",
    "{\"type\":\"game.moves\",\"room\":\"@R\"}",
    "{\"type\":\"game.move\",\"room\":\"@R\",\"ply\":@I,\"action\":{\"piece\":\"@X\","
    "\"orientation\":@S,\"row\":@I,\"col\":@I}}",
    "{\"type\":\"game.move\",\"room\":\"@R\",\"ply\":@I,\"action\":{\"type\":\"place\",\"row\":@S,"
    "\"col\":@S,\"orientation\":@I}}",
    "{\"type\":\"game.resign\",\"room\":\"@R\"}",
    "{\"type\":\"queue.join\",\"game\":\"@G\",\"mode\":\"@M\"}",
    "{\"type\":\"queue.leave\"}",
    "{\"type\":\"tournament.create\",\"name\":\"@X\",\"game\":\"@G\",\"mode\":\"@M\","
    "\"format\":\"@F\",\"participants\":[{\"bot\":\"@B\"},{\"bot\":\"@B\"},{\"player\":\"@N\"}],"
    "\"rounds\":@S,\"games\":@S,\"parallel\":@S}",
    "{\"type\":\"tournament.create\",\"name\":\"t\",\"game\":\"blokus\",\"mode\":\"duo\","
    "\"format\":\"swiss\",\"rounds\":2,\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"},"
    "{\"bot\":\"random\"}]}",
    "{\"type\":\"tournament.watch\",\"tournament\":@S}",
};
#define TEMPLATE_COUNT (sizeof(TEMPLATES) / sizeof(TEMPLATES[0]))

static const char *const NAMES[] = {"ada", "Ada", "bob", "greedy", "bot:greedy", "x", ""};
static const char *const PASSWORDS[] = {"correct horse", "short", "wrong password!"};
static const char *const GAMES[] = {"blokus", "reef-builder", "chess"};
static const char *const MODES[] = {"4p", "3p", "2p", "duo", "solo", "race", "9p"};
static const char *const BOTS[] = {"random", "greedy", "lookahead", "mcts", "nobody"};
static const char *const FORMATS[] = {"round-robin", "fixed", "swiss", "knockout"};
static const char *const INTEGERS[] = {"0",   "1",   "2", "3", "-1", "100", "1000", "9999999999999",
                                       "1.5", "null"};
#define PICK(list, byte) list[(byte) % (sizeof(list) / sizeof(list[0]))]

static uint8_t take(struct run *r)
{
    if (r->size == 0)
        return 0;
    r->size--;
    return *r->data++;
}

/* Up to 16 input bytes as a JSON string's content, made printable. */
static void append_fuzzed_string(struct run *r, char *out, size_t *length)
{
    int count = take(r) % 17;
    for (int i = 0; i < count && *length < TEXT_SIZE - 1; i++) {
        char c = (char)take(r);
        out[(*length)++] = c >= 0x20 && c < 0x7f && c != '"' && c != '\\' ? c : '_';
    }
}

static void append(char *out, size_t *length, const char *text)
{
    size_t n = strlen(text);
    if (*length + n >= TEXT_SIZE)
        n = TEXT_SIZE - 1 - *length;
    memcpy(out + *length, text, n);
    *length += n;
}

static void fill(struct run *r, char placeholder, char *out, size_t *length)
{
    uint8_t byte = take(r);
    char number[16];
    switch (placeholder) {
    case 'N':
        append(out, length, PICK(NAMES, byte));
        break;
    case 'P':
        append(out, length, PICK(PASSWORDS, byte));
        break;
    case 'T':
        append(out, length, r->token_count ? r->tokens[byte % r->token_count] : "nosuchtoken");
        break;
    case 'R':
        append(out, length, r->room_count ? r->rooms[byte % r->room_count] : "nosuchrm");
        break;
    case 'G':
        append(out, length, PICK(GAMES, byte));
        break;
    case 'M':
        append(out, length, PICK(MODES, byte));
        break;
    case 'B':
        append(out, length, PICK(BOTS, byte));
        break;
    case 'F':
        append(out, length, PICK(FORMATS, byte));
        break;
    case 'I':
        append(out, length, PICK(INTEGERS, byte));
        break;
    case 'S':
        snprintf(number, sizeof(number), "%d", (int)(byte % 6) - 1);
        append(out, length, number);
        break;
    case 'Q':
        append(out, length, byte % 2 ? "true" : "false");
        break;
    default:
        append_fuzzed_string(r, out, length);
        break;
    }
}

static void send_text(struct run *r, uint64_t connection, const char *text, size_t length)
{
    if (r->is_open[connection])
        lobby_message(r->lobby, connection, text, length);
}

static void send_template(struct run *r, uint64_t connection)
{
    const char *template = TEMPLATES[take(r) % TEMPLATE_COUNT];
    char text[TEXT_SIZE];
    size_t length = 0;
    for (const char *c = template; *c && length < TEXT_SIZE - 1; c++) {
        if (*c == '@' && c[1]) {
            fill(r, *++c, text, &length);
            continue;
        }
        text[length++] = *c;
    }
    text[length] = '\0';
    send_text(r, connection, text, length);
}

static void send_raw(struct run *r, uint64_t connection)
{
    size_t length = take(r);
    if (length > r->size)
        length = r->size;
    send_text(r, connection, (const char *)r->data, length);
    r->data += length;
    r->size -= length;
}

/* Remembers the highest ply announced for a room. */
static void note_moved(struct run *r, const json_t *moved)
{
    const char *room = json_string_value(json_object_get(moved, "room"));
    int64_t ply = json_integer_value(json_object_get(moved, "ply"));
    FUZZ_REQUIRE(room != NULL);
    int i = 0;
    while (i < r->moved_room_count && strcmp(r->moved_rooms[i], room) != 0)
        i++;
    if (i == r->moved_room_count) {
        if (i == 64)
            return;
        snprintf(r->moved_rooms[i], sizeof(r->moved_rooms[i]), "%s", room);
        r->moved_ply[i] = ply;
        r->moved_room_count++;
    }
    if (ply > r->moved_ply[i])
        r->moved_ply[i] = ply;
}

static void read_message(struct run *r, const json_t *message)
{
    const char *type = json_string_value(json_object_get(message, "type"));
    if (strcmp(type, "error") == 0) {
        FUZZ_REQUIRE(fuzz_is_nonempty_string(json_object_get(message, "code")));
        FUZZ_REQUIRE(fuzz_is_nonempty_string(json_object_get(message, "message")));
    }
    if (strcmp(type, "game.moved") == 0)
        note_moved(r, message);
    const char *token = json_string_value(json_object_get(message, "token"));
    if (strcmp(type, "welcome") == 0 && token && r->token_count < KNOWN)
        snprintf(r->tokens[r->token_count++], sizeof(r->tokens[0]), "%s", token);
    const char *code = json_string_value(json_object_get(json_object_get(message, "room"), "id"));
    if (code && r->room_count < KNOWN)
        snprintf(r->rooms[r->room_count++], sizeof(r->rooms[0]), "%s", code);
}

/* Learns room codes and tokens, checks every message, empties the inboxes,
 * and closes what the lobby asked the host to close. */
static void read_inboxes(struct run *r)
{
    for (uint64_t c = 1; c <= CONNECTIONS; c++) {
        json_t *message;
        size_t i;
        json_array_foreach(host.inbox[c], i, message) read_message(r, message);
        json_array_clear(host.inbox[c]);
        if (host.is_closed[c] && r->is_open[c]) {
            lobby_disconnect(r->lobby, c);
            r->is_open[c] = false;
        }
        host.is_closed[c] = false;
    }
}

/* `connection` asks for its moves in a room and plays the one the input
 * picks, against the right ply or (now and then) a wrong one. */
static void play(struct run *r, uint64_t connection)
{
    if (!r->is_open[connection] || r->room_count == 0)
        return;
    const char *room = r->rooms[take(r) % r->room_count];
    char text[TEXT_SIZE];
    read_inboxes(r);
    snprintf(text, sizeof(text), "{\"type\":\"game.moves\",\"room\":\"%s\"}", room);
    send_text(r, connection, text, strlen(text));
    json_t *reply = json_array_get(host.inbox[connection], 0);
    json_t *moves = json_object_get(reply, "moves");
    uint8_t choice = take(r);
    if (json_array_size(moves) == 0)
        return;
    json_int_t ply = json_integer_value(json_object_get(reply, "ply")) + (choice % 16 == 0);
    char *action = json_dumps(json_array_get(moves, choice % json_array_size(moves)), JSON_COMPACT);
    snprintf(text, sizeof(text),
             "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":%lld,"
             "\"action\":%s}",
             room, (long long)ply, action);
    free(action);
    read_inboxes(r);
    send_text(r, connection, text, strlen(text));
}

static void step(struct run *r)
{
    uint8_t operation = take(r);
    uint64_t connection = 1 + take(r) % CONNECTIONS;
    switch (operation % 8) {
    case 0:
        if (!r->is_open[connection])
            r->is_open[connection] = lobby_connect(r->lobby, connection, "10.0.0.1") == 0;
        break;
    case 1:
        if (r->is_open[connection])
            lobby_disconnect(r->lobby, connection);
        r->is_open[connection] = false;
        break;
    case 2:
    case 3:
        send_template(r, connection);
        break;
    case 4:
        send_raw(r, connection);
        break;
    case 5:
        host.now += (int64_t)(take(r) | take(r) << 8);
        lobby_tick(r->lobby);
        break;
    case 6:
        fake_host_run_jobs(1 + take(r) % 8);
        break;
    default:
        play(r, connection);
        break;
    }
    if (host.job_count > FAKE_HOST_JOBS / 2)
        fake_host_run_jobs(FAKE_HOST_JOBS);
    read_inboxes(r);
}

/* Every game.moved anyone was told of is in the store. */
static void check_announced_moves_are_stored(const struct run *r, store *db)
{
    store_game_record *record = NULL;
    for (int64_t id = 1; store_game_load(db, id, &record) == 0; id++) {
        for (int i = 0; i < r->moved_room_count; i++)
            if (strcmp(r->moved_rooms[i], record->info.room) == 0)
                FUZZ_REQUIRE(record->move_count > r->moved_ply[i]);
        store_game_record_free(record);
        record = NULL;
    }
}

static int games_being_played(store *db)
{
    int64_t *ids = NULL;
    int count = 0, playing = 0;
    FUZZ_REQUIRE(store_unfinished_games(db, &ids, &count) == 0);
    for (int i = 0; i < count; i++) {
        store_game_record *record = NULL;
        FUZZ_REQUIRE(store_game_load(db, ids[i], &record) == 0);
        playing += record->status == STORE_GAME_PLAYING;
        store_game_record_free(record);
    }
    free(ids);
    return playing;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct run r;
    memset(&r, 0, sizeof(r));
    r.data = data;
    r.size = size;
    store *db = NULL;
    fake_host_reset(1);
    lobby_config config = lobby_default_config();
    config.bot_think_ms = 1;
    config.reconnect_grace_ms = 5000;
    config.max_rooms = 32;
    config.password_cost = secret_password_cost_minimum();
    static bool is_sodium_ready;
    if (!is_sodium_ready)
        FUZZ_REQUIRE(secret_init() == 0);
    is_sodium_ready = true;
    FUZZ_REQUIRE(store_open(":memory:", false, &db) == 0);
    store_port port = fault_store_port(db);
    FUZZ_REQUIRE(lobby_new(&FAKE_HOST, &port, &config, &r.lobby) == 0);
    for (int i = 0; i < OPERATIONS && r.size > 0; i++)
        step(&r);
    lobby_shutdown(r.lobby); /* as the server stops: bot searches end at once */
    fake_host_run_jobs(FAKE_HOST_JOBS * 4);
    read_inboxes(&r);
    check_announced_moves_are_stored(&r, db);
    int playing = games_being_played(db);
    lobby_free(r.lobby);
    FUZZ_REQUIRE(lobby_new(&FAKE_HOST, &port, &config, &r.lobby) == 0);
    FUZZ_REQUIRE(fake_host_restore(r.lobby) == playing);
    lobby_shutdown(r.lobby);
    fake_host_run_jobs(FAKE_HOST_JOBS * 4);
    lobby_free(r.lobby);
    store_close(db);
    fake_host_release();
    return 0;
}
