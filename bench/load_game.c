/* load_game.c -- the protocol state machine of the load generator's rooms.
 *
 * Request ids are fixed per purpose (REQUEST_*), which is enough because a
 * client has at most one request of each kind in flight: the replies are
 * matched by id alone. Messages are read with json_scan in one pass over
 * the top-level members (read_fields); a message about another room than
 * the current one (the events of a finished room) is ignored.
 *
 * A room's life: CONNECTING until every member is open and has sent its
 * hello, CREATING until seat 0's room.create is answered, JOINING until
 * every member's room.join is answered, then STARTING and PLAYING; at
 * game.over seat 0 goes back to CREATING with the same connections. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/json_scan.h"
#include "bench/load_game.h"
#include "bench/proc_stats.h"
#include "bench/ws_client.h"

#define REQUEST_HELLO  1
#define REQUEST_CREATE 2
#define REQUEST_JOIN   3
#define REQUEST_START  4
#define REQUEST_MOVES  5
#define REQUEST_MOVE   6
#define REQUEST_RESIGN 7

#define ROOM_CODE_SIZE     17
#define MAX_PRINTED_ERRORS 5
#define MESSAGE_SIZE       512

typedef enum room_phase {
    ROOM_CONNECTING,
    ROOM_CREATING,
    ROOM_JOINING,
    ROOM_STARTING,
    ROOM_PLAYING,
} room_phase;

struct room;

struct member {
    struct room *room;
    ws_peer *peer;
    int seat; /* -1 for a spectator */
    bool is_open;
    long asked_ply; /* the ply this seat last asked moves for, or -1 */
    uint64_t move_sent_ns;
    pacer_waiter waiter; /* first: see member_of_waiter */
};

struct room {
    load_game *game;
    int index;
    char code[ROOM_CODE_SIZE];
    room_phase phase;
    struct member *members; /* seats first, then spectators */
    int member_count;
    int open_count, joined_count;
};

struct load_game {
    load_game_config config;
    int seats;
    pacer *pacer;
    load_stats *stats;
    ws_client *client;
    struct room *rooms;
    int lost_connections;
    int printed_errors;
    bool is_in_play; /* one room: between its first state and game.over */
    uint64_t play_start_cpu_us, play_start_moves;
    bool is_stopping;
};

/* The top-level fields of a server message the driver looks at. */
struct fields {
    json_span type, room, id, ply, seat, to_move, moves;
    bool has_room, has_id, has_ply, has_seat, has_to_move, has_moves;
};

static bool key_is(json_span key, const char *name)
{
    size_t length = strlen(name);
    return key.length == length && memcmp(key.start, name, length) == 0;
}

static void read_fields(const char *text, size_t length, struct fields *f)
{
    memset(f, 0, sizeof(*f));
    json_scan scan;
    json_span key, value, whole = {text, length};
    if (!json_scan_object(&scan, whole))
        return;
    while (json_scan_next_member(&scan, &key, &value)) {
        if (key_is(key, "type"))
            f->type = value;
        else if (key_is(key, "room"))
            f->room = value, f->has_room = true;
        else if (key_is(key, "id"))
            f->id = value, f->has_id = true;
        else if (key_is(key, "ply"))
            f->ply = value, f->has_ply = true;
        else if (key_is(key, "seat"))
            f->seat = value, f->has_seat = true;
        else if (key_is(key, "to_move"))
            f->to_move = value, f->has_to_move = true;
        else if (key_is(key, "moves"))
            f->moves = value, f->has_moves = true;
    }
}

static long id_of(const struct fields *f)
{
    long id = 0;
    return f->has_id && json_span_to_long(f->id, &id) ? id : 0;
}

/* Whether a message's "room" (a code string) is the member's current room. */
static bool is_current_room(const struct member *m, const struct fields *f)
{
    return f->has_room && m->room->code[0] && json_span_is_string(f->room, m->room->code);
}

static void send_text(struct member *m, const char *text, int length)
{
    if (length <= 0 || length >= MESSAGE_SIZE || ws_peer_send(m->peer, text, (size_t)length) < 0)
        fprintf(stderr, "tessera-load: room %d seat %d: cannot send\n", m->room->index, m->seat);
}

/* ---- the room's life ------------------------------------------------------ */

static void create_room(struct room *r)
{
    char text[MESSAGE_SIZE];
    r->phase = ROOM_CREATING;
    r->code[0] = '\0';
    r->joined_count = 0;
    int length =
        snprintf(text, sizeof(text),
                 "{\"type\":\"room.create\",\"game\":\"blokus\",\"mode\":\"%s\",\"id\":%d}",
                 r->game->config.mode, REQUEST_CREATE);
    send_text(&r->members[0], text, length);
}

static void join_room(struct member *m)
{
    char text[MESSAGE_SIZE];
    int length;
    if (m->seat >= 0)
        length = snprintf(text, sizeof(text),
                          "{\"type\":\"room.join\",\"room\":\"%s\",\"seat\":%d,\"id\":%d}",
                          m->room->code, m->seat, REQUEST_JOIN);
    else
        length = snprintf(text, sizeof(text),
                          "{\"type\":\"room.join\",\"room\":\"%s\",\"as\":\"spectator\",\"id\":%d}",
                          m->room->code, REQUEST_JOIN);
    send_text(m, text, length);
}

static void on_created(struct member *m, const struct fields *f)
{
    struct room *r = m->room;
    json_span code;
    if (!f->has_room || !json_scan_find(f->room, "id", &code) || code.length < 3 ||
        code.length - 2 >= ROOM_CODE_SIZE) {
        fprintf(stderr, "tessera-load: room %d: no room code in the create reply\n", r->index);
        return;
    }
    memcpy(r->code, code.start + 1, code.length - 2);
    r->code[code.length - 2] = '\0';
    r->phase = ROOM_JOINING;
    for (int i = 0; i < r->member_count; i++)
        join_room(&r->members[i]);
}

static void on_joined(struct member *m)
{
    struct room *r = m->room;
    if (r->phase != ROOM_JOINING || ++r->joined_count < r->member_count)
        return;
    char text[MESSAGE_SIZE];
    r->phase = ROOM_STARTING;
    int length = snprintf(text, sizeof(text), "{\"type\":\"room.start\",\"room\":\"%s\",\"id\":%d}",
                          r->code, REQUEST_START);
    send_text(&r->members[0], text, length);
}

/* In-play CPU (see load_game.h): called at the game's first
 * state (whichever member gets it first) and at game.over. */
static void mark_play(load_game *game, bool is_starting)
{
    uint64_t cpu_us;
    if (game->config.rooms != 1 || !game->config.server_pid || !game->stats->is_measuring ||
        proc_stats_cpu_us(game->config.server_pid, &cpu_us) < 0) {
        game->is_in_play = false;
        return;
    }
    if (!is_starting && game->is_in_play) {
        game->stats->in_play_server_cpu_us += cpu_us - game->play_start_cpu_us;
        game->stats->in_play_moves += game->stats->moves - game->play_start_moves;
    }
    game->is_in_play = is_starting;
    game->play_start_cpu_us = cpu_us;
    game->play_start_moves = game->stats->moves;
}

static void on_game_over(struct member *m, const struct fields *f)
{
    if (!is_current_room(m, f))
        return;
    m->asked_ply = -1;
    if (m->seat != 0)
        return;
    load_game *game = m->room->game;
    mark_play(game, false);
    if (game->stats->is_measuring)
        game->stats->games_finished++;
    if (!game->is_stopping)
        create_room(m->room);
}

/* ---- moves ------------------------------------------------------------------ */

static struct member *member_of_waiter(pacer_waiter *waiter)
{
    return (struct member *)((char *)waiter - offsetof(struct member, waiter));
}

static void ask_moves(pacer_waiter *waiter)
{
    struct member *m = member_of_waiter(waiter);
    if (m->room->game->is_stopping)
        return;
    char text[MESSAGE_SIZE];
    int length = snprintf(text, sizeof(text), "{\"type\":\"game.moves\",\"room\":\"%s\",\"id\":%d}",
                          m->room->code, REQUEST_MOVES);
    load_stats_size(m->room->game->stats, LOAD_SIZE_MOVES_REQUEST, (uint64_t)length);
    send_text(m, text, length);
}

static void on_state(struct member *m, const struct fields *f, size_t length)
{
    load_game *game = m->room->game;
    if (!is_current_room(m, f))
        return;
    load_stats_size(game->stats, LOAD_SIZE_STATE, length);
    json_span to_move_seat;
    long seat, ply;
    if (m->room->phase == ROOM_STARTING)
        mark_play(game, true);
    m->room->phase = ROOM_PLAYING;
    if (m->seat < 0 || !f->has_to_move || json_span_is_null(f->to_move) ||
        !json_scan_find(f->to_move, "seat", &to_move_seat) ||
        !json_span_to_long(to_move_seat, &seat) || seat != m->seat || !f->has_ply ||
        !json_span_to_long(f->ply, &ply) || ply == m->asked_ply || game->is_stopping)
        return;
    m->asked_ply = ply;
    pacer_request(game->pacer, &m->waiter);
}

static void play_first_move(struct member *m, const struct fields *f, size_t length)
{
    load_game *game = m->room->game;
    load_stats_size(game->stats, LOAD_SIZE_MOVES_REPLY, length);
    json_span first;
    long ply;
    if (game->is_stopping || !f->has_ply || !json_span_to_long(f->ply, &ply) || !f->has_moves ||
        !json_scan_first_element(f->moves, &first)) {
        if (!game->is_stopping)
            fprintf(stderr, "tessera-load: room %d seat %d: no move offered\n", m->room->index,
                    m->seat);
        return;
    }
    char text[MESSAGE_SIZE];
    int written = snprintf(text, sizeof(text),
                           "{\"type\":\"game.move\",\"room\":\"%s\",\"ply\":%ld,\"action\":%.*s,"
                           "\"id\":%d}",
                           m->room->code, ply, (int)first.length, first.start, REQUEST_MOVE);
    load_stats_size(game->stats, LOAD_SIZE_MOVE_REQUEST, (uint64_t)written);
    m->move_sent_ns = uv_hrtime();
    send_text(m, text, written);
}

static void on_moved(struct member *m, const struct fields *f, size_t length)
{
    load_stats *stats = m->room->game->stats;
    load_stats_size(stats, LOAD_SIZE_MOVED, length);
    if (id_of(f) != REQUEST_MOVE || !stats->is_measuring)
        return;
    stats->moves++;
    histogram_record(&stats->round_trip_us, (uv_hrtime() - m->move_sent_ns) / 1000);
}

static void on_error(struct member *m, const char *text, size_t length)
{
    load_game *game = m->room->game;
    if (game->is_stopping)
        return;
    bool is_rate_limited = strstr(text, "\"rate_limited\"") != NULL;
    if (is_rate_limited)
        game->stats->rate_limited++;
    else
        game->stats->errors++;
    if (game->printed_errors++ < MAX_PRINTED_ERRORS)
        fprintf(stderr, "tessera-load: room %d seat %d: %.*s\n", m->room->index, m->seat,
                (int)(length > 300 ? 300 : length), text);
}

/* ---- client callbacks ---------------------------------------------------- */

static void on_message(void *user, const char *text, size_t length)
{
    struct member *m = user;
    struct fields f;
    read_fields(text, length, &f);
    m->room->game->stats->messages_received++;
    if (json_span_is_string(f.type, "game.state"))
        on_state(m, &f, length);
    else if (json_span_is_string(f.type, "game.moved"))
        on_moved(m, &f, length);
    else if (json_span_is_string(f.type, "game.moves"))
        play_first_move(m, &f, length);
    else if (json_span_is_string(f.type, "game.over"))
        on_game_over(m, &f);
    else if (json_span_is_string(f.type, "room") && id_of(&f) == REQUEST_CREATE)
        on_created(m, &f);
    else if (json_span_is_string(f.type, "room") && id_of(&f) == REQUEST_JOIN)
        on_joined(m);
    else if (json_span_is_string(f.type, "error"))
        on_error(m, text, length);
}

static void on_open(void *user)
{
    struct member *m = user;
    struct room *r = m->room;
    char text[MESSAGE_SIZE];
    m->is_open = true;
    int length =
        snprintf(text, sizeof(text), "{\"type\":\"hello\",\"name\":\"load-%d-%d\",\"id\":%d}",
                 r->index, m->seat, REQUEST_HELLO);
    send_text(m, text, length);
    if (++r->open_count == r->member_count && !r->game->is_stopping)
        create_room(r);
}

static void on_close(void *user, bool was_open, const char *why)
{
    struct member *m = user;
    load_game *game = m->room->game;
    m->peer = NULL;
    m->is_open = false;
    if (game->is_stopping)
        return;
    if (game->lost_connections++ < MAX_PRINTED_ERRORS)
        fprintf(stderr, "tessera-load: room %d seat %d: connection %s%s%s\n", m->room->index,
                m->seat, was_open ? "closed by the server" : "failed", why[0] ? ": " : "", why);
}

/* ---- life cycle ------------------------------------------------------------ */

static int seats_of_mode(const char *mode)
{
    if (strcmp(mode, "duo") == 0 || strcmp(mode, "2p") == 0)
        return 2;
    if (strcmp(mode, "3p") == 0)
        return 3;
    return strcmp(mode, "4p") == 0 ? 4 : -1;
}

static int connect_room(load_game *game, struct room *r)
{
    r->member_count = game->seats + game->config.spectators;
    r->members = calloc((size_t)r->member_count, sizeof(*r->members));
    if (!r->members)
        return -ENOMEM;
    for (int i = 0; i < r->member_count; i++) {
        struct member *m = &r->members[i];
        m->room = r;
        m->seat = i < game->seats ? i : -1;
        m->asked_ply = -1;
        m->waiter.on_granted = ask_moves;
        char address[16];
        ws_client_local_address(r->index * r->member_count + i, game->config.local_addresses,
                                address);
        int rc = ws_client_connect(game->client, address, m, &m->peer);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int load_game_new(uv_loop_t *loop, const load_game_config *config, pacer *p, load_stats *stats,
                  load_game **out)
{
    int seats = seats_of_mode(config->mode);
    if (seats < 0 || config->rooms < 1 || config->spectators < 0)
        return -EINVAL;
    load_game *game = calloc(1, sizeof(*game));
    if (!game)
        return -ENOMEM;
    game->config = *config;
    game->seats = seats;
    game->pacer = p;
    game->stats = stats;
    game->rooms = calloc((size_t)config->rooms, sizeof(*game->rooms));
    ws_client_callbacks callbacks = {on_open, on_message, on_close};
    int rc = game->rooms
                 ? ws_client_new(loop, config->host, config->port, "/ws", &callbacks, &game->client)
                 : -ENOMEM;
    for (int i = 0; rc == 0 && i < config->rooms; i++) {
        game->rooms[i].game = game;
        game->rooms[i].index = i;
        rc = connect_room(game, &game->rooms[i]);
    }
    if (rc < 0) {
        load_game_free(game);
        return rc;
    }
    *out = game;
    return 0;
}

void load_game_stop(load_game *game)
{
    game->is_stopping = true;
    for (int i = 0; i < game->config.rooms; i++) {
        struct room *r = &game->rooms[i];
        if (r->phase != ROOM_PLAYING)
            continue;
        for (int s = 0; s < game->seats; s++) {
            struct member *m = &r->members[s];
            char text[MESSAGE_SIZE];
            int length =
                snprintf(text, sizeof(text), "{\"type\":\"game.resign\",\"room\":\"%s\",\"id\":%d}",
                         r->code, REQUEST_RESIGN);
            if (m->peer && m->is_open)
                ws_peer_send(m->peer, text, (size_t)length);
        }
    }
}

int load_game_open_connections(const load_game *game)
{
    return ws_client_open_count(game->client);
}

int load_game_lost_connections(const load_game *game)
{
    return game->lost_connections;
}

void load_game_free(load_game *game)
{
    if (!game)
        return;
    game->is_stopping = true;
    ws_client_free(game->client);
    for (int i = 0; game->rooms && i < game->config.rooms; i++)
        free(game->rooms[i].members);
    free(game->rooms);
    free(game);
}
