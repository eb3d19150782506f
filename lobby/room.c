/* room.c -- rooms, their members, and requests turned into events.
 *
 * A room is created empty (its creator becomes a spectator, so it hears
 * about the room), filled seat by seat with players and built-in bots, and
 * started by its creator. Members are the seated players who have not left
 * and the spectators. Room codes are 8 characters of Crockford base32 from
 * the host's random source: unguessable, so a private room (one rooms.list
 * does not show) is joined by its code, which is the invite.
 *
 * Everything about seats and the game is the rules' (match.c), run through
 * room_run; spectators are this file's alone, since watching changes
 * nothing that is stored. A request that changes nothing is refused or
 * answered to its sender only: a second room.leave is `not_in_room`, a
 * room.join of a member (a page refresh) sends the view to that member. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

#define CODE_LENGTH 8
static const char CODE_ALPHABET[] = "0123456789abcdefghjkmnpqrstvwxyz";

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

static match_config match_config_of(const struct lobby *l)
{
    match_config config = {l->config.reconnect_grace_ms, l->config.finished_room_ttl_ms,
                           l->config.bot_think_ms};
    return config;
}

struct room *room_new(struct lobby *l, const game_options *options, const char *code,
                      struct player *owner)
{
    struct room *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->lobby = l;
    snprintf(r->code, sizeof(r->code), "%s", code);
    r->key = code_key(code);
    r->list_index = -1;
    match_config config = match_config_of(l);
    match_init(&r->match, &config, options, owner ? owner->key : 0);
    if (!r->key || id_table_put(&l->rooms, r->key, r) != 0) {
        free(r);
        return NULL;
    }
    r->owner = owner;
    if (owner) {
        owner->room_refs++; /* the owner may come back to start the room */
        owner->open_rooms++;
    }
    l->open_room_count++;
    return r;
}

static void drop_spectator_at(struct room *r, int index)
{
    struct player *p = r->spectators[index];
    r->spectators[index] = r->spectators[--r->spectator_count];
    lobby_player_unref(r->lobby, p);
}

void room_free(struct room *r)
{
    struct lobby *l = r->lobby;
    id_table_remove(&l->rooms, r->key);
    if (l->moves_room == r->key)
        l->moves_room = 0; /* its cached move list goes with it */
    room_wake_set(r, 0);
    room_list_remove(r);
    bots_forget(r);
    if (r->match.status != MATCH_FINISHED) {
        l->open_room_count--;
        if (r->owner)
            r->owner->open_rooms--;
    }
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        if (r->seated[seat])
            lobby_player_unref(l, r->seated[seat]);
    while (r->spectator_count > 0)
        drop_spectator_at(r, r->spectator_count - 1);
    if (r->owner)
        lobby_player_unref(l, r->owner);
    free(r->spectators);
    free(r);
}

/* Points seated[] at the players the match seats name (after a change). */
void room_sync_seats(struct room *r)
{
    struct lobby *l = r->lobby;
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++) {
        const match_seat *s = &r->match.seats[seat];
        struct player *wanted = NULL;
        if (seat < r->match.options.seat_count && s->kind == MATCH_SEAT_PLAYER)
            wanted = id_table_get(&l->players, (uint64_t)s->player_id);
        if (wanted == r->seated[seat])
            continue;
        if (wanted)
            wanted->room_refs++;
        if (r->seated[seat])
            lobby_player_unref(l, r->seated[seat]);
        r->seated[seat] = wanted;
    }
}

static int spectator_index(const struct room *r, const struct player *p)
{
    for (int i = 0; i < r->spectator_count; i++)
        if (r->spectators[i] == p)
            return i;
    return -1;
}

/* The seat `p` holds and has not left, or -1. */
static int listening_seat(const struct room *r, const struct player *p)
{
    if (!p->player_id)
        return -1;
    int seat = match_seat_of(&r->match, p->player_id);
    return seat >= 0 && !r->match.seats[seat].has_left ? seat : -1;
}

bool room_is_member(const struct room *r, const struct player *p)
{
    return listening_seat(r, p) >= 0 || spectator_index(r, p) >= 0;
}

static int add_spectator(struct room *r, struct player *p)
{
    if (spectator_index(r, p) >= 0)
        return 0;
    if (r->spectator_count == r->spectator_capacity) {
        int capacity = r->spectator_capacity ? r->spectator_capacity * 2 : 4;
        struct player **grown = realloc(r->spectators, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return -1;
        r->spectators = grown;
        r->spectator_capacity = capacity;
    }
    r->spectators[r->spectator_count++] = p;
    p->room_refs++;
    return 0;
}

static void remove_spectator(struct room *r, struct player *p)
{
    int i = spectator_index(r, p);
    if (i >= 0)
        drop_spectator_at(r, i);
}

/* Closes a waiting room once nobody is in it (its game is stored as
 * aborted). If that cannot be stored the room stays, empty, until a later
 * event or restart tries again. */
static void close_if_abandoned(struct room *r)
{
    if (r->match.status != MATCH_WAITING || r->spectator_count > 0)
        return;
    for (int seat = 0; seat < r->match.options.seat_count; seat++)
        if (r->match.seats[seat].kind == MATCH_SEAT_PLAYER)
            return;
    match_event event = {.kind = MATCH_EVENT_ABANDON, .now_ms = lobby_now(r->lobby)};
    protocol_failure failure;
    room_run(r, &event, NULL, &failure);
}

/* The room event to every member but `p` (a spectator came or went). */
static void tell_others(struct room *r, struct player *p)
{
    match_publish room_event = {.kind = MATCH_PUBLISH_ROOM, .audience = MATCH_TO_OTHER_MEMBERS};
    room_sender sender = {p, p->connection, NULL};
    room_view_publish(r, &room_event, &sender, lobby_now(r->lobby));
}

/* A player signing in hears about every game it has a seat in: one under
 * way gets it back (MATCH_EVENT_RECONNECT); one it left, or that is over,
 * is only shown to it. */
void room_player_reconnected(struct room *r, struct player *p)
{
    int seat = p->player_id ? match_seat_of(&r->match, p->player_id) : -1;
    if (seat < 0 || r->match.status == MATCH_WAITING)
        return;
    if (r->match.seats[seat].has_left || r->match.status == MATCH_FINISHED) {
        room_view_send_full(r, p, NULL, lobby_now(r->lobby));
        return;
    }
    match_event event = {
        .kind = MATCH_EVENT_RECONNECT, .now_ms = lobby_now(r->lobby), .player_id = p->player_id};
    room_sender sender = {p, p->connection, NULL};
    protocol_failure failure;
    room_run(r, &event, &sender, &failure);
}

void room_player_disconnected(struct room *r, struct player *p)
{
    bool was_spectator = spectator_index(r, p) >= 0;
    remove_spectator(r, p);
    if (listening_seat(r, p) >= 0) {
        match_event event = {.kind = MATCH_EVENT_DISCONNECT,
                             .now_ms = lobby_now(r->lobby),
                             .player_id = p->player_id};
        room_sender sender = {p, 0, NULL};
        protocol_failure failure;
        room_run(r, &event, &sender, &failure);
    } else if (was_spectator) {
        tell_others(r, p);
    }
    if (id_table_get(&r->lobby->rooms, r->key) == r)
        close_if_abandoned(r);
}

/* ---- requests ------------------------------------------------------------ */

static struct room *room_of(struct lobby *l, const protocol_message *m, protocol_failure *failure)
{
    const char *code = protocol_message_room(m);
    struct room *r = room_find(l, code);
    if (!r)
        protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", code);
    return r;
}

static int create(struct lobby *l, struct client *c, const protocol_message *m,
                  protocol_failure *failure)
{
    const protocol_room_create *request = &m->body.create;
    struct player *p = c->player;
    if (l->open_room_count >= l->config.max_rooms)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "the server hosts its maximum number of rooms");
    if (p->open_rooms >= l->config.max_rooms_per_player)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "you already own %d rooms that are not finished", p->open_rooms);
    uint64_t random_seed;
    l->host.random_bytes(l->host.context, &random_seed, sizeof(random_seed));
    random_seed &= (1ULL << 53) - 1; /* exact as a JavaScript number */
    game_options options;
    int rc = game_options_parse(request, random_seed, &options, failure);
    if (rc != 0)
        return rc;
    char code[CODE_LENGTH + 1];
    new_code(l, code);
    json_t *options_json = game_options_json(&options);
    json_object_set_new(options_json, "private", json_boolean(request->is_private));
    char *options_text = json_dumps(options_json, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(options_json);
    store_game_info info = {
        code,        game_kind_name(&options), game_mode_name(&options), options_text, options.seed,
        lobby_now(l)};
    int64_t game_id = 0;
    rc = options_text ? l->store.game_create(l->store.context, &info, &game_id) : STORE_E_NOMEM;
    free(options_text);
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not store the room: %s",
                             store_strerror(rc));
    struct room *r = room_new(l, &options, code, p);
    if (!r || add_spectator(r, p) != 0) {
        if (r)
            room_free(r);
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    }
    r->game_id = game_id;
    r->is_private = request->is_private;
    room_list_update(r);
    lobby_log(l, "room %s created by %s: %s %s%s", r->code, p->name, game_kind_name(&options),
              game_mode_name(&options), r->is_private ? " (private)" : "");
    room_view_send_full(r, p, m->id, lobby_now(l));
    return 0;
}

static int join(struct lobby *l, struct client *c, const protocol_message *m,
                protocol_failure *failure)
{
    struct room *r = room_of(l, m, failure);
    if (!r)
        return failure->code;
    struct player *p = c->player;
    bool wants_seat = !m->body.room.as_spectator;
    if (room_is_member(r, p) && (listening_seat(r, p) >= 0 || !wants_seat)) {
        room_view_send_full(r, p, m->id, lobby_now(l)); /* a refresh: nothing changes */
        return 0;
    }
    if (!wants_seat) {
        if (add_spectator(r, p) != 0)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        room_view_send_full(r, p, m->id, lobby_now(l));
        tell_others(r, p);
        return 0;
    }
    if (r->match.status == MATCH_WAITING && !p->player_id) {
        int rc = lobby_player_store(l, p);
        if (rc != 0)
            return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not store the player: %s",
                                 store_strerror(rc));
    }
    match_event event = {.kind = MATCH_EVENT_JOIN,
                         .now_ms = lobby_now(l),
                         .player_id = p->player_id,
                         .seat = m->body.room.seat};
    room_sender sender = {p, c->connection, m->id};
    bool was_spectator = spectator_index(r, p) >= 0;
    if (was_spectator)
        remove_spectator(r, p); /* the view the joiner gets shows it seated */
    p->room_refs++;             /* keeps `p` while it moves from spectator to seat */
    int rc = room_run(r, &event, &sender, failure);
    if (rc != 0 && was_spectator)
        add_spectator(r, p);
    lobby_player_unref(l, p);
    return rc;
}

static int leave(struct lobby *l, struct client *c, const protocol_message *m,
                 protocol_failure *failure)
{
    struct room *r = room_of(l, m, failure);
    if (!r)
        return failure->code;
    struct player *p = c->player;
    room_sender sender = {p, c->connection, m->id};
    if (listening_seat(r, p) >= 0) {
        match_event event = {
            .kind = MATCH_EVENT_LEAVE, .now_ms = lobby_now(l), .player_id = p->player_id};
        int rc = room_run(r, &event, &sender, failure);
        if (rc != 0)
            return rc;
    } else if (spectator_index(r, p) >= 0) {
        remove_spectator(r, p);
        match_publish left = {
            .kind = MATCH_PUBLISH_LEFT, .audience = MATCH_TO_SENDER, .is_reply = true};
        room_view_publish(r, &left, &sender, lobby_now(l));
        tell_others(r, p);
    } else {
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you are not in this room");
    }
    if (id_table_get(&l->rooms, r->key) == r)
        close_if_abandoned(r);
    return 0;
}

static int owner_event(struct lobby *l, struct client *c, const protocol_message *m,
                       match_event_kind kind, protocol_failure *failure)
{
    struct room *r = room_of(l, m, failure);
    if (!r)
        return failure->code;
    match_event event = {.kind = kind,
                         .now_ms = lobby_now(l),
                         .member = c->player->key,
                         .seat = m->body.room.seat,
                         .bot = m->body.room.bot};
    room_sender sender = {c->player, c->connection, m->id};
    return room_run(r, &event, &sender, failure);
}

static int seat_event(struct lobby *l, struct client *c, const protocol_message *m,
                      match_event_kind kind, protocol_failure *failure)
{
    struct room *r = room_of(l, m, failure);
    if (!r)
        return failure->code;
    match_event event = {.kind = kind, .now_ms = lobby_now(l), .player_id = c->player->player_id};
    if (kind == MATCH_EVENT_MOVE) {
        event.ply = m->body.move.ply;
        event.action = m->body.move.action;
    }
    if (!c->player->player_id) /* a guest holds no seat anywhere */
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you have no seat in this game");
    room_sender sender = {c->player, c->connection, m->id};
    return room_run(r, &event, &sender, failure);
}

/* game.moves changes nothing: it is answered from the room as it is. */
static int legal_moves(struct lobby *l, struct client *c, const protocol_message *m,
                       protocol_failure *failure)
{
    struct room *r = room_of(l, m, failure);
    if (!r)
        return failure->code;
    int seat = listening_seat(r, c->player);
    if (seat < 0)
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you have no seat in this game");
    if (r->match.status == MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_NOT_STARTED, "the game has not started");
    if (r->match.status == MATCH_FINISHED)
        return protocol_fail(failure, PROTOCOL_E_GAME_OVER, "the game is over");
    room_sender sender = {c->player, c->connection, m->id};
    room_view_send_moves(r, seat, &sender);
    return 0;
}

int room_handle(struct lobby *l, struct client *c, const protocol_message *m,
                protocol_failure *failure)
{
    switch (m->type) {
    case PROTOCOL_ROOM_CREATE:
        return create(l, c, m, failure);
    case PROTOCOL_ROOM_JOIN:
        return join(l, c, m, failure);
    case PROTOCOL_ROOM_LEAVE:
        return leave(l, c, m, failure);
    case PROTOCOL_ROOM_ADD_BOT:
        return owner_event(l, c, m, MATCH_EVENT_ADD_BOT, failure);
    case PROTOCOL_ROOM_START:
        return owner_event(l, c, m, MATCH_EVENT_START, failure);
    case PROTOCOL_GAME_MOVE:
        return seat_event(l, c, m, MATCH_EVENT_MOVE, failure);
    case PROTOCOL_GAME_RESIGN:
        return seat_event(l, c, m, MATCH_EVENT_RESIGN, failure);
    case PROTOCOL_GAME_MOVES:
        return legal_moves(l, c, m, failure);
    default:
        return protocol_fail(failure, PROTOCOL_E_UNKNOWN_TYPE, "unhandled message type");
    }
}
