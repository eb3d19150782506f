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

#include "lobby/game_wire.h"
#include "lobby/lobby_internal.h"
#include "lobby/tournament.h"

#define CODE_LENGTH 8
static const char CODE_ALPHABET[] = "0123456789abcdefghjkmnpqrstvwxyz";

uint64_t room_code_key(const char *code)
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

struct room *room_find(struct lobby *lobby, const char *code)
{
    uint64_t key = room_code_key(code);
    return key ? id_table_get(&lobby->rooms, key) : NULL;
}

bool lobby_instance_is_valid(char id)
{
    return id && strchr(CODE_ALPHABET, id);
}

/* A new code: random, but for its first character, the instance's id when
 * it has one (so a proxy can route by it). */
static void new_code(struct lobby *lobby, char code[CODE_LENGTH + 1])
{
    do {
        unsigned char bytes[CODE_LENGTH];
        lobby->host.random_bytes(lobby->host.context, bytes, sizeof(bytes));
        for (int i = 0; i < CODE_LENGTH; i++)
            code[i] = CODE_ALPHABET[bytes[i] % 32];
        if (lobby->config.instance)
            code[0] = lobby->config.instance;
        code[CODE_LENGTH] = '\0';
    } while (room_find(lobby, code));
}

struct room *room_new(struct lobby *lobby, const game_options *options, const char *code,
                      struct player *owner)
{
    struct room *room = calloc(1, sizeof(*room));
    if (!room)
        return NULL;
    room->lobby = lobby;
    snprintf(room->code, sizeof(room->code), "%s", code);
    room->key = room_code_key(code);
    room->listed.index = -1;
    match_config config = lobby_match_config(&lobby->config);
    match_init(&room->match, &config, options, owner ? owner->key : 0);
    /* The owner is named by the room: it may come back to start it. */
    if (owner && lobby_player_reserve(owner, 1) != 0) {
        free(room);
        return NULL;
    }
    if (!room->key || id_table_put(&lobby->rooms, room->key, room) != 0) {
        free(room);
        return NULL;
    }
    room->owner = owner;
    if (owner) {
        lobby_player_attach(owner, room); /* reserved above */
        owner->open_rooms++;
    }
    lobby->open_room_count++;
    return room;
}

static void drop_spectator_at(struct room *room, int index)
{
    struct player *player = room->spectators[index];
    room->spectators[index] = room->spectators[--room->spectator_count];
    lobby_player_detach(room->lobby, player, room);
}

void room_free(struct room *room)
{
    struct lobby *lobby = room->lobby;
    runner_forget_room(room);
    id_table_remove(&lobby->rooms, room->key);
    if (lobby->moves_room == room->key)
        lobby->moves_room = 0; /* its cached move list goes with it */
    room_wake_set(room, 0);
    room_list_remove(room);
    bots_forget(room);
    if (room->match.status != MATCH_FINISHED) {
        lobby->open_room_count--;
        if (room->owner)
            room->owner->open_rooms--;
    }
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++)
        if (room->seated[seat])
            lobby_player_detach(lobby, room->seated[seat], room);
    while (room->spectator_count > 0)
        drop_spectator_at(room, room->spectator_count - 1);
    if (room->owner)
        lobby_player_detach(lobby, room->owner, room);
    free(room->spectators);
    free(room);
}

static void remove_spectator(struct room *room, struct player *player);

/* Points seated[] at the players the match seats name (after a change).
 * A player who just sat down had room reserved for this (see join), and
 * stops being a spectator: the view it and the others get show it seated. */
void room_sync_seats(struct room *room)
{
    struct lobby *lobby = room->lobby;
    for (int seat = 0; seat < GAME_MAX_SEATS; seat++) {
        const match_seat *seat_state = &room->match.seats[seat];
        struct player *wanted = NULL;
        if (seat < room->match.options.seat_count && seat_state->kind == MATCH_SEAT_PLAYER)
            wanted = id_table_get(&lobby->players, (uint64_t)seat_state->player_id);
        if (wanted == room->seated[seat])
            continue;
        if (wanted && lobby_player_attach(wanted, room) != 0)
            wanted = NULL; /* out of memory (not reserved): shown as an empty name */
        if (room->seated[seat])
            lobby_player_detach(lobby, room->seated[seat], room);
        room->seated[seat] = wanted;
        if (wanted)
            remove_spectator(room, wanted);
    }
}

static int spectator_index(const struct room *room, const struct player *player)
{
    for (int i = 0; i < room->spectator_count; i++)
        if (room->spectators[i] == player)
            return i;
    return -1;
}

/* The seat `player` holds and has not left, or -1. */
static int listening_seat(const struct room *room, const struct player *player)
{
    if (!player->player_id)
        return -1;
    int seat = match_seat_of(&room->match, player->player_id);
    return seat >= 0 && !room->match.seats[seat].has_left ? seat : -1;
}

bool room_is_member(const struct room *room, const struct player *player)
{
    return listening_seat(room, player) >= 0 || spectator_index(room, player) >= 0;
}

static int add_spectator(struct room *room, struct player *player)
{
    if (spectator_index(room, player) >= 0)
        return 0;
    if (room->spectator_count == room->spectator_capacity) {
        int capacity = room->spectator_capacity ? room->spectator_capacity * 2 : 4;
        struct player **grown = realloc(room->spectators, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return -1;
        room->spectators = grown;
        room->spectator_capacity = capacity;
    }
    if (lobby_player_attach(player, room) != 0)
        return -1;
    room->spectators[room->spectator_count++] = player;
    return 0;
}

static void remove_spectator(struct room *room, struct player *player)
{
    int i = spectator_index(room, player);
    if (i >= 0)
        drop_spectator_at(room, i);
}

void room_close_if_abandoned(struct room *room)
{
    if (room->match.status != MATCH_WAITING || room->spectator_count > 0)
        return;
    /* An owner whose line dropped while it watched may come back (a reload);
     * one that is connected and not here has left. */
    if (room->owner && !room->owner->connection &&
        match_awaits_owner(&room->match, lobby_now(room->lobby)))
        return;
    for (int seat = 0; seat < room->match.options.seat_count; seat++)
        if (room->match.seats[seat].kind == MATCH_SEAT_PLAYER)
            return;
    match_event event = {.kind = MATCH_EVENT_ABANDON, .now_ms = lobby_now(room->lobby)};
    room_run(room, &event, NULL);
}

/* The room event to every member but `player` (a spectator came or went). */
static void tell_others(struct room *room, struct player *player)
{
    match_publish room_event = {.kind = MATCH_PUBLISH_ROOM, .audience = MATCH_TO_OTHER_MEMBERS};
    room_sender sender = {player, player->connection, NULL};
    room_view_publish(room, &room_event, &sender, lobby_now(room->lobby));
}

/* A player signing in hears about every room it has a seat in: one waiting
 * or under way gives it back (MATCH_EVENT_RECONNECT); one it left, or that
 * is over, is only shown to it. */
void room_player_reconnected(struct room *room, struct player *player)
{
    int seat = player->player_id ? match_seat_of(&room->match, player->player_id) : -1;
    if (seat < 0)
        return;
    if (room->match.seats[seat].has_left || room->match.status == MATCH_FINISHED) {
        room_view_send_full(room, player, NULL, lobby_now(room->lobby));
        return;
    }
    match_event event = {.kind = MATCH_EVENT_RECONNECT,
                         .now_ms = lobby_now(room->lobby),
                         .player_id = player->player_id};
    room_sender sender = {player, player->connection, NULL};
    room_run(room, &event, &sender);
}

void room_player_disconnected(struct room *room, struct player *player)
{
    bool was_spectator = spectator_index(room, player) >= 0;
    remove_spectator(room, player);
    if (listening_seat(room, player) >= 0) {
        match_event event = {.kind = MATCH_EVENT_DISCONNECT,
                             .now_ms = lobby_now(room->lobby),
                             .player_id = player->player_id};
        room_sender sender = {player, 0, NULL};
        room_run(room, &event, &sender); /* the runner closes the room if it is empty now */
        return;
    }
    if (was_spectator)
        tell_others(room, player);
    if (was_spectator && player == room->owner && room->match.status == MATCH_WAITING) {
        match_event event = {.kind = MATCH_EVENT_OWNER_AWAY, .now_ms = lobby_now(room->lobby)};
        room_run(room, &event, NULL); /* the room waits for it for the grace */
        return;
    }
    room_close_if_abandoned(room);
}

/* ---- requests ------------------------------------------------------------ */

static struct room *room_of(struct lobby *lobby, const protocol_message *message,
                            protocol_failure *failure)
{
    const char *code = protocol_message_room(message);
    struct room *room = room_find(lobby, code);
    if (!room)
        protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", code);
    return room;
}

struct room *room_open(struct lobby *lobby, const game_options *options, bool is_private,
                       struct player *owner, room_tournament tournament, protocol_failure *failure)
{
    char code[CODE_LENGTH + 1];
    new_code(lobby, code);
    struct room *room = room_new(lobby, options, code, owner);
    if (!room || (owner && add_spectator(room, owner) != 0)) {
        if (room)
            room_free(room);
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        return NULL;
    }
    room->is_private = is_private;
    room->tournament = tournament;
    return room;
}

/* A room's game on its way to the store, and who asked for the room. */
struct room_creation {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct room *room;
    room_sender requester; /* its player pinned and its id held; all NULL for the server */
    store_record record;
};

/* The creation's record: the game's kind, mode and options as stored. */
static int creation_record(const struct room *room, store_record *out)
{
    const game_options *options = &room->match.options;
    *out = (store_record){.kind = STORE_RECORD_GAME_CREATE, .at_ms = lobby_now(room->lobby)};
    store_record_game *stored = &out->game;
    snprintf(stored->room, sizeof(stored->room), "%s", room->code);
    snprintf(stored->game, sizeof(stored->game), "%s", game_kind_name(options));
    snprintf(stored->mode, sizeof(stored->mode), "%s", game_mode_name(options));
    stored->seed = options->seed;
    stored->tournament_id = room->tournament.id;
    stored->tournament_game = room->tournament.game;
    stored->lease_instance = room->lobby->config.instance;
    stored->lease_until_ms = out->at_ms + room->lobby->config.lease_ms;
    json_t *json = game_wire_options_json(options);
    if (json)
        json_object_set_new(json, "private", json_boolean(room->is_private));
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(json);
    if (!text)
        return STORE_E_NOMEM;
    int length = snprintf(stored->options, sizeof(stored->options), "%s", text);
    free(text);
    return length < (int)sizeof(stored->options) ? STORE_OK : STORE_E_INVALID;
}

/* The store's answer: the room gets its game and is listed, and the
 * requester its reply; or the room goes, and everyone waiting on it
 * hears why. */
static void created(struct room_creation *creation)
{
    struct room *room = creation->room;
    struct lobby *lobby = room->lobby;
    const room_sender *requester = &creation->requester;
    room->commit = NULL;
    int rc = creation->base.rc;
    if (rc != STORE_OK) {
        protocol_failure failure;
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the room: %s",
                      store_strerror(rc));
        lobby_log(lobby, "room %s could not be created: %s", room->code, store_strerror(rc));
        if (requester->connection)
            lobby_send_failure(lobby, requester->connection, requester->id, &failure);
        if (room->is_arranged) {
            room_discard_arranged(room, &failure);
            return;
        }
        room_run_refuse_queued(room, &failure);
        room_free(room);
        return;
    }
    room->game_id = creation->record.game.id;
    if (creation->record.game.lease_instance)
        room->leased_at_ms = lobby_now(lobby);
    room_list_update(room);
    if (room->tournament.id)
        tournament_game_created(lobby, room->tournament, room->game_id);
    if (requester->player) {
        lobby_log(lobby, "room %s created by %s: %s %s%s", room->code, requester->player->name,
                  game_kind_name(&room->match.options), game_mode_name(&room->match.options),
                  room->is_private ? " (private)" : "");
        room_view_send_full(room, requester->player, requester->id, lobby_now(lobby));
    }
    room_run_resume(room);
}

static void creation_finish(struct runner_commit *base, bool is_live)
{
    struct room_creation *creation = (struct room_creation *)base;
    if (is_live)
        created(creation);
    if (creation->requester.player)
        lobby_player_unpin(base->lobby, creation->requester.player);
    json_decref((json_t *)creation->requester.id);
    free(creation);
}

int room_submit_creation(struct room *room, const room_sender *requester, protocol_failure *failure)
{
    struct lobby *lobby = room->lobby;
    struct room_creation *creation = calloc(1, sizeof(*creation));
    if (!creation) {
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        if (requester && requester->connection)
            lobby_send_failure(lobby, requester->connection, requester->id, failure);
        if (room->is_arranged)
            room_discard_arranged(room, failure);
        else
            room_free(room);
        return failure->code;
    }
    creation->base = (struct runner_commit){.lobby = lobby, .finish = creation_finish};
    creation->room = room;
    if (requester) {
        creation->requester = *requester;
        creation->requester.id = json_incref((json_t *)requester->id);
        if (requester->player)
            requester->player->pins++;
    }
    creation->base.rc = creation_record(room, &creation->record);
    creation->base.batch = (store_batch){&creation->record, 1, STORE_ORDER_ROOM};
    room->commit = &creation->base;
    int rc = runner_submit(&creation->base);
    if (rc == RUNNER_PENDING || rc == STORE_OK)
        return 0;
    return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not store the room: %s",
                         store_strerror(rc));
}

static int create(struct lobby *lobby, struct client *client, const protocol_message *message,
                  protocol_failure *failure)
{
    const protocol_room_create *request = &message->body.create;
    struct player *player = client->player;
    if (lobby->open_room_count >= lobby->config.max_rooms)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "the server hosts its maximum number of rooms");
    if (player->open_rooms >= lobby->config.max_rooms_per_player)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "you already own %d rooms that are not finished", player->open_rooms);
    uint64_t random_seed;
    lobby->host.random_bytes(lobby->host.context, &random_seed, sizeof(random_seed));
    random_seed &= (1ULL << 53) - 1; /* exact as a JavaScript number */
    game_options options;
    int rc = game_wire_options_parse(request, random_seed, &options, failure);
    if (rc != 0)
        return rc;
    struct room *room =
        room_open(lobby, &options, request->is_private, player, (room_tournament){0, 0}, failure);
    if (!room)
        return failure->code;
    room_sender requester = {player, client->connection, message->id};
    room_submit_creation(room, &requester, failure);
    return 0; /* the requester hears the room, or why not, when it is stored */
}

static int join(struct lobby *lobby, struct client *client, const protocol_message *message,
                protocol_failure *failure)
{
    if (lobby->config.instance && !room_find(lobby, protocol_message_room(message)))
        return leases_find_room(lobby, client, message, failure); /* served elsewhere? */
    struct room *room = room_of(lobby, message, failure);
    if (!room)
        return failure->code;
    struct player *player = client->player;
    bool wants_seat = !message->body.room.as_spectator;
    if (room_is_member(room, player) && (listening_seat(room, player) >= 0 || !wants_seat)) {
        room_view_send_full(room, player, message->id,
                            lobby_now(lobby)); /* a refresh: nothing changes */
        return 0;
    }
    if (!wants_seat) {
        if (add_spectator(room, player) != 0)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        room_view_send_full(room, player, message->id, lobby_now(lobby));
        tell_others(room, player);
        return 0;
    }
    if (room->match.status == MATCH_WAITING && !player->player_id) /* player_row.c's to store */
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "your player is not stored");
    match_event event = {.kind = MATCH_EVENT_JOIN,
                         .now_ms = lobby_now(lobby),
                         .player_id = player->player_id,
                         .seat = message->body.room.seat};
    room_sender sender = {player, client->connection, message->id};
    if (lobby_player_reserve(player, 1) != 0) /* its seat */
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    room_run(room, &event, &sender);
    return 0;
}

static int leave(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    struct room *room = room_of(lobby, message, failure);
    if (!room)
        return failure->code;
    struct player *player = client->player;
    room_sender sender = {player, client->connection, message->id};
    if (listening_seat(room, player) >= 0) {
        match_event event = {
            .kind = MATCH_EVENT_LEAVE, .now_ms = lobby_now(lobby), .player_id = player->player_id};
        room_run(room, &event, &sender); /* the runner closes the room if it is empty now */
        return 0;
    } else if (spectator_index(room, player) >= 0) {
        remove_spectator(room, player);
        match_publish left = {
            .kind = MATCH_PUBLISH_LEFT, .audience = MATCH_TO_SENDER, .is_reply = true};
        room_view_publish(room, &left, &sender, lobby_now(lobby));
        tell_others(room, player);
    } else {
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you are not in this room");
    }
    if (id_table_get(&lobby->rooms, room->key) == room)
        room_close_if_abandoned(room);
    return 0;
}

static int owner_event(struct lobby *lobby, struct client *client, const protocol_message *message,
                       match_event_kind kind, protocol_failure *failure)
{
    struct room *room = room_of(lobby, message, failure);
    if (!room)
        return failure->code;
    match_event event = {.kind = kind,
                         .now_ms = lobby_now(lobby),
                         .member = client->player->key,
                         .seat = message->body.room.seat,
                         .bot = message->body.room.bot};
    room_sender sender = {client->player, client->connection, message->id};
    room_run(room, &event, &sender);
    return 0;
}

static int seat_event(struct lobby *lobby, struct client *client, const protocol_message *message,
                      match_event_kind kind, protocol_failure *failure)
{
    struct room *room = room_of(lobby, message, failure);
    if (!room)
        return failure->code;
    match_event event = {
        .kind = kind, .now_ms = lobby_now(lobby), .player_id = client->player->player_id};
    if (kind == MATCH_EVENT_MOVE) {
        event.ply = message->body.move.ply;
        event.move = message->body.move.action;
    }
    if (!client->player->player_id) /* a guest holds no seat anywhere */
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you have no seat in this game");
    room_sender sender = {client->player, client->connection, message->id};
    room_run(room, &event, &sender); /* a move too late: the runner lets the clock play */
    return 0;
}

/* game.moves changes nothing: it is answered from the room as it is. */
static int legal_moves(struct lobby *lobby, struct client *client, const protocol_message *message,
                       protocol_failure *failure)
{
    struct room *room = room_of(lobby, message, failure);
    if (!room)
        return failure->code;
    int seat = listening_seat(room, client->player);
    if (seat < 0)
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you have no seat in this game");
    if (room->match.status == MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_NOT_STARTED, "the game has not started");
    if (room->match.status == MATCH_FINISHED)
        return protocol_fail(failure, PROTOCOL_E_GAME_OVER, "the game is over");
    room_sender sender = {client->player, client->connection, message->id};
    room_view_send_moves(room, seat, &sender);
    return 0;
}

int room_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                protocol_failure *failure)
{
    switch (message->type) {
    case PROTOCOL_ROOM_CREATE:
        return create(lobby, client, message, failure);
    case PROTOCOL_ROOM_JOIN:
        return join(lobby, client, message, failure);
    case PROTOCOL_ROOM_LEAVE:
        return leave(lobby, client, message, failure);
    case PROTOCOL_ROOM_ADD_BOT:
        return owner_event(lobby, client, message, MATCH_EVENT_ADD_BOT, failure);
    case PROTOCOL_ROOM_START:
        return owner_event(lobby, client, message, MATCH_EVENT_START, failure);
    case PROTOCOL_GAME_MOVE:
        return seat_event(lobby, client, message, MATCH_EVENT_MOVE, failure);
    case PROTOCOL_GAME_RESIGN:
        return seat_event(lobby, client, message, MATCH_EVENT_RESIGN, failure);
    case PROTOCOL_GAME_MOVES:
        return legal_moves(lobby, client, message, failure);
    case PROTOCOL_ROOM_REMATCH:
        return room_rematch(lobby, client, message, failure);
    default:
        return protocol_fail(failure, PROTOCOL_E_UNKNOWN_TYPE, "unhandled message type");
    }
}
