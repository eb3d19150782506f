/* room.c -- rooms and their members, and the views members are sent.
 *
 * A room is created empty (its creator becomes a spectator, so it hears
 * about the room), filled seat by seat with players and built-in bots, and
 * started by its creator. Members are the seated players and the
 * spectators; every change to the room is broadcast to all of them as a
 * `room` event. Room codes are 8 characters of Crockford base32 drawn from
 * the host's random source: unguessable, so a private room (one that
 * rooms.list does not show) is joined by its code, which is the invite.
 *
 * Before the start a seat is a place in a queue: leaving or disconnecting
 * gives it up, and a waiting room nobody is left in is closed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

#define CODE_LENGTH 8
static const char CODE_ALPHABET[] = "0123456789abcdefghjkmnpqrstvwxyz";

static const char *const STATUS_NAMES[] = {"waiting", "playing", "finished"};

static uint64_t code_key(const char *code)
{
    if (strlen(code) != CODE_LENGTH)
        return 0;
    uint64_t key = 1; /* a leading 1 bit keeps every key non-zero */
    for (int i = 0; i < CODE_LENGTH; i++) {
        const char *digit = strchr(CODE_ALPHABET, code[i]);
        if (!digit || !code[i])
            return 0;
        key = key << 5 | (uint64_t)(digit - CODE_ALPHABET);
    }
    return key;
}

struct room *room_find(struct lobby *l, const char *code)
{
    uint64_t key = code_key(code);
    return key ? id_table_get(&l->rooms, key) : NULL;
}

static void new_code(struct lobby *l, char code[CODE_LENGTH + 1])
{
    do {
        unsigned char bytes[CODE_LENGTH];
        l->host.random_bytes(l->host.context, bytes, sizeof(bytes));
        for (int i = 0; i < CODE_LENGTH; i++)
            code[i] = CODE_ALPHABET[bytes[i] % 32];
        code[CODE_LENGTH] = '\0';
    } while (room_find(l, code));
}

struct room *room_new(struct lobby *l, const game_options *options, const char *code)
{
    struct room *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->lobby = l;
    r->options = *options;
    snprintf(r->code, sizeof(r->code), "%s", code);
    r->key = code_key(code);
    if (!r->key || id_table_put(&l->rooms, r->key, r) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

static void seat_clear(struct lobby *l, struct seat *seat)
{
    if (seat->kind == SEAT_PLAYER)
        session_unref(l, seat->player);
    memset(seat, 0, sizeof(*seat));
}

void room_free(struct room *r)
{
    struct lobby *l = r->lobby;
    id_table_remove(&l->rooms, r->key);
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        seat_clear(l, &r->seats[seat]);
    for (int i = 0; i < r->spectator_count; i++)
        session_unref(l, r->spectators[i]);
    if (r->owner)
        session_unref(l, r->owner);
    free(r->spectators);
    free(r);
}

int room_seat_of(const struct room *r, const struct session *s)
{
    for (int seat = 0; seat < r->options.seat_count; seat++)
        if (r->seats[seat].kind == SEAT_PLAYER && r->seats[seat].player == s)
            return seat;
    return -1;
}

static int spectator_index(const struct room *r, const struct session *s)
{
    for (int i = 0; i < r->spectator_count; i++)
        if (r->spectators[i] == s)
            return i;
    return -1;
}

bool room_is_member(const struct room *r, const struct session *s)
{
    return room_seat_of(r, s) >= 0 || spectator_index(r, s) >= 0;
}

static int add_spectator(struct room *r, struct session *s)
{
    if (spectator_index(r, s) >= 0)
        return 0;
    if (r->spectator_count == r->spectator_capacity) {
        int capacity = r->spectator_capacity ? r->spectator_capacity * 2 : 4;
        struct session **grown = realloc(r->spectators, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return -1;
        r->spectators = grown;
        r->spectator_capacity = capacity;
    }
    r->spectators[r->spectator_count++] = s;
    s->room_refs++;
    return 0;
}

static void remove_spectator(struct room *r, struct session *s)
{
    int i = spectator_index(r, s);
    if (i < 0)
        return;
    r->spectators[i] = r->spectators[--r->spectator_count];
    session_unref(r->lobby, s);
}

static json_t *seat_json(const struct room *r, int index)
{
    const struct seat *seat = &r->seats[index];
    json_t *json = json_pack("{s:i}", "seat", index);
    if (seat->kind == SEAT_EMPTY) {
        json_object_set_new(json, "kind", json_string("empty"));
    } else if (seat->kind == SEAT_BOT) {
        json_object_set_new(json, "kind", json_string("bot"));
        json_object_set_new(json, "bot", json_string(seat->bot));
        json_object_set_new(json, "name", json_string(seat->bot));
    } else {
        json_object_set_new(json, "kind", json_string("player"));
        json_object_set_new(json, "name", json_string(seat->player->name));
        json_object_set_new(json, "player_id", json_integer(seat->player->player_id));
        json_object_set_new(json, "is_bot", json_boolean(seat->player->is_bot));
        json_object_set_new(json, "connected", json_boolean(seat->player->connection != 0));
        json_object_set_new(json, "left", json_boolean(seat->has_left));
    }
    return json;
}

json_t *room_json(const struct room *r)
{
    json_t *seats = json_array();
    for (int seat = 0; seat < r->options.seat_count; seat++)
        json_array_append_new(seats, seat_json(r, seat));
    json_t *json =
        json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:i}", "id", r->code, "game",
                  game_kind_name(&r->options), "mode", game_mode_name(&r->options), "status",
                  STATUS_NAMES[r->status], "private", r->is_private, "options",
                  game_options_json(&r->options), "seats", seats, "spectators", r->spectator_count);
    if (r->owner)
        json_object_set_new(json, "owner", json_integer(r->owner->player_id));
    return json;
}

json_t *room_event_json(const struct room *r)
{
    return json_pack("{s:s, s:o}", "type", "room", "room", room_json(r));
}

static void visit_listed_room(void *value, void *context)
{
    const struct room *r = value;
    if (!r->is_private)
        json_array_append_new(context, room_json(r));
}

json_t *room_list_json(struct lobby *l)
{
    json_t *rooms = json_array();
    id_table_each(&l->rooms, visit_listed_room, rooms);
    return rooms;
}

/* A seated player hears the room's events until they leave the game. */
static bool is_listening_seat(const struct seat *seat)
{
    return seat->kind == SEAT_PLAYER && !seat->has_left;
}

/* Sends `event` to every connected member but `except`; takes `event`. */
void room_broadcast(struct room *r, json_t *event, const struct session *except)
{
    char *text = json_dumps(event, JSON_COMPACT);
    json_decref(event);
    if (!text)
        return;
    lobby_host *host = &r->lobby->host;
    for (int seat = 0; seat < r->options.seat_count; seat++) {
        const struct session *s = r->seats[seat].player;
        if (is_listening_seat(&r->seats[seat]) && s != except && s->connection)
            host->send(host->context, s->connection, text);
    }
    for (int i = 0; i < r->spectator_count; i++)
        if (r->spectators[i] != except && r->spectators[i]->connection)
            host->send(host->context, r->spectators[i]->connection, text);
    free(text);
}

void room_broadcast_room(struct room *r)
{
    room_broadcast(r, room_event_json(r), NULL);
}

/* game.state as `viewer_seat` sees it (hints only for the seat to move). */
json_t *room_state_json(const struct room *r, int viewer_seat)
{
    int64_t now = lobby_now(r->lobby);
    json_t *clocks = json_array();
    for (int seat = 0; seat < r->options.seat_count && r->options.has_clock; seat++) {
        const struct seat *s = &r->seats[seat];
        int64_t left = s->clock_ms - (s->is_on_turn ? now - s->turn_started_ms : 0);
        json_array_append_new(clocks, json_pack("{s:i, s:I, s:b}", "seat", seat, "ms",
                                                (json_int_t)(left > 0 ? left : 0), "running",
                                                s->is_on_turn));
    }
    json_t *state =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o}", "type", "game.state", "room", r->code,
                  "game", game_kind_name(&r->options), "mode", game_mode_name(&r->options),
                  "status", STATUS_NAMES[r->status], "seat",
                  viewer_seat >= 0 ? json_integer(viewer_seat) : json_null(), "clocks", clocks);
    if (r->options.kind == GAME_BLOKUS)
        json_object_set_new(state, "ply", json_integer(game_ply(&r->game, 0)));
    json_t *game_fields = game_state_json(&r->game, viewer_seat);
    json_object_update(state, game_fields);
    json_decref(game_fields);
    return state;
}

static void send_state(struct room *r, const struct session *s, int seat, const json_t *id)
{
    if (s->connection && r->status != ROOM_WAITING)
        lobby_reply(r->lobby, s->connection, room_state_json(r, seat), id);
}

/* Seated players each get their own view (their seat, their hints); all
 * spectators see the same one, rendered once. */
void room_broadcast_state(struct room *r)
{
    for (int seat = 0; seat < r->options.seat_count; seat++)
        if (is_listening_seat(&r->seats[seat]))
            send_state(r, r->seats[seat].player, seat, NULL);
    if (r->spectator_count == 0 || r->status == ROOM_WAITING)
        return;
    char *text = protocol_finish(room_state_json(r, -1), NULL);
    for (int i = 0; text && i < r->spectator_count; i++)
        if (r->spectators[i]->connection)
            r->lobby->host.send(r->lobby->host.context, r->spectators[i]->connection, text);
    free(text);
}

void room_send_full_view(struct room *r, struct session *s, const json_t *id)
{
    if (!s->connection)
        return;
    lobby_reply(r->lobby, s->connection, room_event_json(r), id);
    send_state(r, s, room_seat_of(r, s), NULL);
}

/* Closes a waiting room once nobody is in it (the stored game is aborted). */
static void close_if_abandoned(struct room *r)
{
    if (r->status != ROOM_WAITING || r->spectator_count > 0)
        return;
    for (int seat = 0; seat < r->options.seat_count; seat++)
        if (r->seats[seat].kind == SEAT_PLAYER)
            return;
    store_game_finish(r->lobby->db, r->game_id, STORE_GAME_ABORTED, NULL, 0, NULL,
                      lobby_now(r->lobby));
    room_free(r);
}

void room_member_reconnected(struct room *r, struct session *s)
{
    int seat = room_seat_of(r, s);
    if (seat >= 0)
        r->seats[seat].is_away = false;
    room_send_full_view(r, s, NULL);
    room_broadcast(r, room_event_json(r), s);
}

void room_member_disconnected(struct room *r, struct session *s)
{
    int seat = room_seat_of(r, s);
    remove_spectator(r, s);
    if (seat >= 0 && r->status == ROOM_WAITING) {
        seat_clear(r->lobby, &r->seats[seat]);
    } else if (seat >= 0 && r->status == ROOM_PLAYING) {
        r->seats[seat].is_away = true;
        r->seats[seat].away_since_ms = lobby_now(r->lobby);
    }
    room_broadcast_room(r);
    close_if_abandoned(r);
}

struct room *room_of_request(struct lobby *l, const protocol_request *request)
{
    const char *code = protocol_message_room(request->message);
    struct room *r = room_find(l, code);
    if (!r)
        protocol_fail(request->failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", code);
    return r;
}

struct owned_rooms {
    const struct session *owner;
    int count;
};

static void count_open_room(void *value, void *context)
{
    const struct room *r = value;
    struct owned_rooms *owned = context;
    owned->count += r->owner == owned->owner && r->status != ROOM_FINISHED;
}

int room_create(struct lobby *l, const protocol_request *request)
{
    const protocol_room_create *create = &request->message->body.create;
    if ((int)l->rooms.count >= l->config.max_rooms)
        return protocol_fail(request->failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "the server hosts its maximum number of rooms");
    struct owned_rooms owned = {request->session, 0};
    id_table_each(&l->rooms, count_open_room, &owned);
    if (owned.count >= l->config.max_rooms_per_player)
        return protocol_fail(request->failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "you already own %d rooms that are not finished", owned.count);
    uint64_t random_seed;
    l->host.random_bytes(l->host.context, &random_seed, sizeof(random_seed));
    random_seed &= (1ULL << 53) - 1; /* exact as a JavaScript number */
    game_options options;
    int rc = game_options_parse(create, random_seed, &options, request->failure);
    if (rc != 0)
        return rc;
    char code[CODE_LENGTH + 1];
    new_code(l, code);
    json_t *options_json = game_options_json(&options);
    json_object_set_new(options_json, "private", json_boolean(create->is_private));
    char *options_text = json_dumps(options_json, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(options_json);
    store_game_info info = {
        code,        game_kind_name(&options), game_mode_name(&options), options_text, options.seed,
        lobby_now(l)};
    int64_t game_id = 0;
    rc = options_text ? store_game_create(l->db, &info, &game_id) : STORE_E_NOMEM;
    free(options_text);
    struct room *r = rc == 0 ? room_new(l, &options, code) : NULL;
    if (!r)
        return protocol_fail(request->failure, PROTOCOL_E_INTERNAL, "could not create the room");
    r->game_id = game_id;
    r->is_private = create->is_private;
    r->owner = request->session;
    r->owner->room_refs++; /* the owner may come back to start the room */
    lobby_log(l, "room %s created by player %lld: %s %s%s", r->code, (long long)r->owner->player_id,
              game_kind_name(&options), game_mode_name(&options),
              r->is_private ? " (private)" : "");
    add_spectator(r, request->session);
    room_send_full_view(r, request->session, request->message->id);
    return 0;
}

static int first_empty_seat(const struct room *r)
{
    for (int seat = 0; seat < r->options.seat_count; seat++)
        if (r->seats[seat].kind == SEAT_EMPTY)
            return seat;
    return -1;
}

static int take_seat(struct room *r, const protocol_request *request)
{
    int wanted = request->message->body.room.seat;
    if (r->status != ROOM_WAITING)
        return protocol_fail(request->failure, PROTOCOL_E_ALREADY_STARTED,
                             "the game has started; join as a spectator");
    if (wanted >= r->options.seat_count)
        return protocol_fail(request->failure, PROTOCOL_E_BAD_MESSAGE,
                             "this room has seats 0 to %d", r->options.seat_count - 1);
    int seat = wanted >= 0 ? wanted : first_empty_seat(r);
    if (wanted >= 0 && r->seats[seat].kind != SEAT_EMPTY)
        return protocol_fail(request->failure, PROTOCOL_E_SEAT_TAKEN, "seat %d is taken", seat);
    if (seat < 0)
        return protocol_fail(request->failure, PROTOCOL_E_ROOM_FULL, "every seat is taken");
    remove_spectator(r, request->session);
    r->seats[seat].kind = SEAT_PLAYER;
    r->seats[seat].player = request->session;
    request->session->room_refs++;
    return 0;
}

int room_join(struct lobby *l, const protocol_request *request)
{
    struct room *r = room_of_request(l, request);
    if (!r)
        return request->failure->code;
    int seat = room_seat_of(r, request->session);
    bool is_seated = seat >= 0 && !r->seats[seat].has_left; /* who left may still watch */
    if (!is_seated && request->message->body.room.as_spectator &&
        add_spectator(r, request->session) != 0)
        return protocol_fail(request->failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (!is_seated && !request->message->body.room.as_spectator) {
        int rc = take_seat(r, request);
        if (rc != 0)
            return rc;
    }
    room_send_full_view(r, request->session, request->message->id);
    room_broadcast(r, room_event_json(r), request->session);
    return 0;
}

int room_leave(struct lobby *l, const protocol_request *request)
{
    struct room *r = room_of_request(l, request);
    if (!r)
        return request->failure->code;
    struct session *s = request->session;
    int seat = room_seat_of(r, s);
    if (seat < 0 && spectator_index(r, s) < 0)
        return protocol_fail(request->failure, PROTOCOL_E_NOT_IN_ROOM, "you are not in this room");
    if (seat >= 0 && r->status == ROOM_PLAYING) {
        int rc = play_leave(r, seat, request->failure);
        if (rc != 0)
            return rc;
    } else if (seat >= 0 && r->status == ROOM_FINISHED) {
        r->seats[seat].has_left = true; /* the game remembers who sat there */
    } else if (seat >= 0) {
        seat_clear(l, &r->seats[seat]);
    }
    remove_spectator(r, s);
    lobby_reply(l, request->connection,
                json_pack("{s:s, s:s}", "type", "room.left", "room", r->code),
                request->message->id);
    room_broadcast_room(r);
    close_if_abandoned(r);
    return 0;
}

static struct room *owned_waiting_room(struct lobby *l, const protocol_request *request)
{
    struct room *r = room_of_request(l, request);
    if (!r)
        return NULL;
    if (r->owner != request->session) {
        protocol_fail(request->failure, PROTOCOL_E_NOT_OWNER, "only the room's creator may");
        return NULL;
    }
    if (r->status != ROOM_WAITING) {
        protocol_fail(request->failure, PROTOCOL_E_ALREADY_STARTED, "the game has started");
        return NULL;
    }
    return r;
}

int room_add_bot(struct lobby *l, const protocol_request *request)
{
    struct room *r = owned_waiting_room(l, request);
    if (!r)
        return request->failure->code;
    const protocol_room_ref *ref = &request->message->body.room;
    if (!game_is_bot_name(&r->options, ref->bot))
        return protocol_fail(request->failure, PROTOCOL_E_BAD_MESSAGE, "no %s bot called '%s'",
                             game_kind_name(&r->options), ref->bot);
    if (ref->seat >= r->options.seat_count)
        return protocol_fail(request->failure, PROTOCOL_E_BAD_MESSAGE,
                             "this room has seats 0 to %d", r->options.seat_count - 1);
    if (r->seats[ref->seat].kind != SEAT_EMPTY)
        return protocol_fail(request->failure, PROTOCOL_E_SEAT_TAKEN, "seat %d is taken",
                             ref->seat);
    r->seats[ref->seat].kind = SEAT_BOT;
    snprintf(r->seats[ref->seat].bot, sizeof(r->seats[ref->seat].bot), "%s", ref->bot);
    lobby_reply(l, request->connection, room_event_json(r), request->message->id);
    room_broadcast(r, room_event_json(r), request->session);
    return 0;
}

static int filled_seats(const struct room *r)
{
    int filled = 0;
    for (int seat = 0; seat < r->options.seat_count; seat++)
        filled += r->seats[seat].kind != SEAT_EMPTY;
    return filled;
}

/* A race starts with whoever is seated: the seats close up to 0..n-1. */
static void close_up_seats(struct room *r)
{
    int filled = 0;
    for (int seat = 0; seat < r->options.seat_count; seat++)
        if (r->seats[seat].kind != SEAT_EMPTY)
            r->seats[filled++] = r->seats[seat];
    for (int seat = filled; seat < GAME_MAX_SEATS; seat++)
        memset(&r->seats[seat], 0, sizeof(r->seats[seat]));
    r->options.seat_count = filled;
}

static int store_seats(struct room *r)
{
    for (int seat = 0; seat < r->options.seat_count; seat++) {
        const struct seat *s = &r->seats[seat];
        int rc = store_seat_set(r->lobby->db, r->game_id, seat,
                                s->kind == SEAT_PLAYER ? s->player->player_id : 0,
                                s->kind == SEAT_BOT ? s->bot : NULL);
        if (rc != 0)
            return rc;
    }
    return store_game_start(r->lobby->db, r->game_id, lobby_now(r->lobby));
}

int room_start(struct lobby *l, const protocol_request *request)
{
    struct room *r = owned_waiting_room(l, request);
    if (!r)
        return request->failure->code;
    bool is_race = r->options.kind == GAME_REEF;
    int filled = filled_seats(r);
    if (!is_race && filled < r->options.seat_count)
        return protocol_fail(request->failure, PROTOCOL_E_SEATS_EMPTY,
                             "every seat needs a player or a bot (seat %d is empty)",
                             first_empty_seat(r));
    if (filled == 0)
        return protocol_fail(request->failure, PROTOCOL_E_SEATS_EMPTY, "nobody is seated");
    if (is_race)
        close_up_seats(r);
    if (store_seats(r) != 0)
        return protocol_fail(request->failure, PROTOCOL_E_INTERNAL, "could not record the seats");
    lobby_reply(l, request->connection,
                json_pack("{s:s, s:s}", "type", "room.started", "room", r->code),
                request->message->id);
    lobby_log(l, "room %s started: game %lld, %d seats", r->code, (long long)r->game_id,
              r->options.seat_count);
    play_begin(r);
    return 0;
}
