/* room_view.c -- what members are sent, each message encoded once.
 *
 * A publish is rendered to one text and the same bytes go to every member;
 * the sender's reply is that text with its request id spliced in before
 * the closing brace. game.state differs per member in two places only --
 * `seat` (the viewer's own) and `hints` (for the seat to move) -- so its
 * body is encoded at most twice (with and without hints) and each member
 * gets a short prefix naming its seat in front of the shared body. A room
 * with fifty spectators thus costs fifty copies, not fifty encodings; and
 * since nobody waits on a spectator's events, they go out through
 * lobby_send_soon, a send per batch of moves rather than per move. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/game_wire.h"
#include "lobby/lobby_internal.h"
#include "lobby/match_records.h"
#include "protocol/game_json.h"

/* Appends `,"key":` and a boolean. */
static void write_flag(json_out *out, const char *member, bool value)
{
    json_out_text(out, member);
    json_out_text(out, value ? "true" : "false");
}

/* The room's code (the value of the key just written), then `,"game":`,
 * `,"mode":` and `,"status":`: what the room object and game.state share. */
static void write_code_and_kind(const struct room *room, json_out *out)
{
    const match *state = &room->match;
    json_out_string(out, room->code);
    json_out_text(out, ",\"game\":");
    json_out_string(out, game_kind_name(&state->options));
    json_out_text(out, ",\"mode\":");
    json_out_string(out, game_mode_name(&state->options));
    json_out_text(out, ",\"status\":");
    json_out_string(out, match_status_name(state->status));
}

static void write_seat(const struct room *room, int index, json_out *out)
{
    const match_seat *seat = &room->match.seats[index];
    const struct player *player = room->seated[index];
    json_out_text(out, "{\"seat\":");
    json_out_int(out, index);
    if (seat->kind == MATCH_SEAT_EMPTY) {
        json_out_text(out, ",\"kind\":\"empty\"}");
        return;
    }
    if (seat->kind == MATCH_SEAT_BOT) {
        json_out_text(out, ",\"kind\":\"bot\",\"bot\":");
        json_out_string(out, seat->bot);
        json_out_text(out, ",\"name\":");
        json_out_string(out, seat->bot);
        json_out_raw(out, "}", 1);
        return;
    }
    json_out_text(out, ",\"kind\":\"player\",\"name\":");
    json_out_string(out, player ? player->name : "");
    json_out_text(out, ",\"player_id\":");
    json_out_int(out, seat->player_id);
    write_flag(out, ",\"is_bot\":", player && player->is_bot);
    write_flag(out, ",\"connected\":", player && player->connection != 0);
    write_flag(out, ",\"left\":", seat->has_left);
    json_out_raw(out, "}", 1);
}

void room_view_write_room(const struct room *room, json_out *out)
{
    const match *state = &room->match;
    json_out_text(out, "{\"id\":");
    write_code_and_kind(room, out);
    write_flag(out, ",\"private\":", room->is_private);
    json_out_text(out, ",\"options\":");
    game_wire_write_options(&state->options, out);
    json_out_text(out, ",\"seats\":[");
    for (int seat = 0; seat < state->options.seat_count; seat++) {
        if (seat)
            json_out_raw(out, ",", 1);
        write_seat(room, seat, out);
    }
    json_out_text(out, "],\"spectators\":");
    json_out_int(out, room->spectator_count);
    /* The stored game's id: where its replay and rating changes are read after the end. */
    json_out_text(out, ",\"game_id\":");
    json_out_int(out, room->game_id);
    if (room->owner) {
        json_out_text(out, ",\"owner\":");
        if (room->owner->player_id)
            json_out_int(out, room->owner->player_id);
        else
            json_out_text(out, "null");
    }
    if (room->rematch[0]) { /* room_rematch.c */
        json_out_text(out, ",\"rematch\":");
        json_out_string(out, room->rematch);
    }
    json_out_raw(out, "}", 1);
}

json_t *room_view_room_json(const struct room *room)
{
    json_out text = JSON_OUT_EMPTY;
    room_view_write_room(room, &text);
    return json_out_tree(&text);
}

static char *encode(json_t *message, size_t *length)
{
    char *text = protocol_finish(message, NULL);
    *length = text ? strlen(text) : 0;
    return text;
}

/* The room event, written into the lobby's reused buffer: it, or NULL out
 * of memory. */
static json_out *room_event(struct room *room)
{
    json_out *out = &room->lobby->event_message;
    json_out_reset(out);
    json_out_text(out, "{\"type\":\"room\",\"room\":");
    room_view_write_room(room, out);
    json_out_raw(out, "}", 1);
    return out->has_failed ? NULL : out;
}

/* ---- game.state ------------------------------------------------------------ */

/* The state's fields but `type` and `seat`, as everyone sees them,
 * written from its first field on: `"room":...}`. */
static void write_state_body(const struct room *room, int64_t now, json_out *out)
{
    const match *state = &room->match;
    json_out_reset(out);
    json_out_key(out, "room");
    write_code_and_kind(room, out);
    json_out_text(out, ",\"clocks\":[");
    for (int seat = 0; seat < state->options.seat_count && state->options.has_clock; seat++) {
        const match_seat *seat_state = &state->seats[seat];
        int64_t left =
            seat_state->clock_ms - (seat_state->is_on_turn ? now - seat_state->turn_started_ms : 0);
        json_out_text(out, seat ? ",{\"seat\":" : "{\"seat\":");
        json_out_int(out, seat);
        json_out_text(out, ",\"ms\":");
        json_out_int(out, left > 0 ? left : 0);
        json_out_text(out, seat_state->is_on_turn ? ",\"running\":true}" : ",\"running\":false}");
    }
    json_out_raw(out, "]", 1);
    if (state->options.kind == GAME_BLOKUS) {
        json_out_text(out, ",\"ply\":");
        json_out_int(out, game_ply(&state->game, 0));
    }
    game_wire_write_state(&state->game, out);
    json_out_raw(out, "}", 1);
}

/* The seat whose view has hints (Blokus, the seat to move), or -1. */
static int hinted_seat(const struct room *room)
{
    const match *state = &room->match;
    if (state->status != MATCH_PLAYING)
        return -1;
    for (int seat = 0; seat < state->options.seat_count; seat++)
        if (game_wire_has_hints(&state->game, seat))
            return seat;
    return -1;
}

/* The bodies of one game.state, in the lobby's reused buffers. */
struct state_texts {
    json_out *plain, *hinted, *message;
    int hinted_seat;
};

static int state_texts_make(struct room *room, int64_t now, struct state_texts *texts)
{
    struct lobby *lobby = room->lobby;
    texts->plain = &lobby->state_plain;
    texts->hinted = &lobby->state_hinted;
    texts->message = &lobby->state_message;
    texts->hinted_seat = hinted_seat(room);
    write_state_body(room, now, texts->plain);
    if (texts->hinted_seat >= 0 && !texts->plain->has_failed) { /* the same, hints added */
        json_out_reset(texts->hinted);
        json_out_raw(texts->hinted, texts->plain->data, texts->plain->length - 1);
        game_wire_write_hints(&room->match.game, texts->hinted);
        json_out_raw(texts->hinted, "}", 1);
    }
    bool has_failed =
        texts->plain->has_failed || (texts->hinted_seat >= 0 && texts->hinted->has_failed);
    return has_failed ? -1 : 0;
}

static void send_state(struct lobby *lobby, struct state_texts *texts, uint64_t connection,
                       int seat)
{
    const json_out *body = seat >= 0 && seat == texts->hinted_seat ? texts->hinted : texts->plain;
    json_out *message = texts->message;
    json_out_reset(message);
    json_out_text(message, "{\"type\":\"game.state\",\"seat\":");
    if (seat >= 0)
        json_out_int(message, seat);
    else
        json_out_text(message, "null");
    json_out_raw(message, ",", 1);
    json_out_raw(message, body->data, body->length);
    if (message->has_failed)
        return;
    if (seat >= 0) /* a player may be waiting to move on it */
        lobby_send_text(lobby, connection, message->data, message->length);
    else
        lobby_send_soon(lobby, connection, message->data, message->length);
}

static int listening_seat_of(const struct room *room, int seat)
{
    const match_seat *seat_state = &room->match.seats[seat];
    return seat_state->kind == MATCH_SEAT_PLAYER && !seat_state->has_left && room->seated[seat]
               ? seat
               : -1;
}

static void publish_state(struct room *room, const room_sender *sender, bool is_to_sender_only,
                          int64_t now)
{
    struct state_texts texts;
    if (room->match.status == MATCH_WAITING || state_texts_make(room, now, &texts) != 0)
        return;
    struct lobby *lobby = room->lobby;
    for (int seat = 0; seat < room->match.options.seat_count; seat++) {
        const struct player *player =
            listening_seat_of(room, seat) >= 0 ? room->seated[seat] : NULL;
        bool is_wanted = player && (!is_to_sender_only || (sender && player == sender->player));
        if (!is_wanted || !player->connection)
            continue;
        send_state(lobby, &texts, player->connection, seat);
        /* Its turn: the answer it now owes (game.moves, game.move) is free. */
        if (game_seat_may_move(&room->match.game, seat))
            lobby->host.grant(lobby->host.context, player->connection, LOBBY_TURN_MESSAGES);
    }
    for (int i = 0; i < room->spectator_count; i++) {
        const struct player *player = room->spectators[i];
        if (!is_to_sender_only || (sender && player == sender->player))
            send_state(lobby, &texts, player->connection, -1);
    }
}

/* ---- everything else ------------------------------------------------------- */

/* Sends one encoded publish to its audience. */
static void deliver(struct room *room, const match_publish *publish, const room_sender *sender,
                    const char *text, size_t length)
{
    struct lobby *lobby = room->lobby;
    const struct player *from = sender ? sender->player : NULL;
    bool has_reply = sender && sender->connection && publish->is_reply;
    if (publish->audience == MATCH_TO_SENDER) {
        if (sender && sender->connection)
            lobby_send_reply(lobby, sender->connection, text, length,
                             publish->is_reply ? sender->id : NULL);
        return;
    }
    bool skips_sender = publish->audience == MATCH_TO_OTHER_MEMBERS || has_reply;
    for (int seat = 0; seat < room->match.options.seat_count; seat++) {
        const struct player *member =
            listening_seat_of(room, seat) >= 0 ? room->seated[seat] : NULL;
        if (member && !(skips_sender && member == from))
            lobby_send_text(lobby, member->connection, text, length);
    }
    for (int i = 0; i < room->spectator_count; i++)
        if (!(skips_sender && room->spectators[i] == from))
            lobby_send_soon(lobby, room->spectators[i]->connection, text, length);
    if (has_reply)
        lobby_send_reply(lobby, sender->connection, text, length, sender->id);
}

/* Adds why the server acted for the seat, when it did (json_pack gives
 * NULL when out of memory; then nothing is sent). */
static json_t *with_cause(json_t *event, const match_publish *publish)
{
    if (event && publish->cause != MATCH_CAUSE_NONE)
        json_object_set_new(event, "cause", json_string(match_cause_name(publish->cause)));
    return event;
}

/* game.moved, written directly into `out` (it goes to every member after
 * every move): the text, or NULL out of memory. */
static const char *moved_text(const struct room *room, const match_publish *publish, json_out *out)
{
    const match *state = &room->match;
    json_out_reset(out);
    json_out_text(out, "{\"type\":\"game.moved\",\"room\":");
    json_out_string(out, room->code);
    json_out_text(out, ",\"ply\":");
    json_out_int(out, publish->ply);
    json_out_text(out, ",\"seat\":");
    json_out_int(out, publish->seat);
    game_wire_write_move(&state->game, publish->move, &publish->outcome, out);
    json_out_text(out, ",\"scores\":[");
    for (int seat = 0; seat < state->options.seat_count; seat++) {
        if (seat)
            json_out_raw(out, ",", 1);
        json_out_int(out, publish->scores[seat]);
    }
    json_out_raw(out, "]", 1);
    if (publish->cause != MATCH_CAUSE_NONE) {
        json_out_text(out, ",\"cause\":");
        json_out_string(out, match_cause_name(publish->cause));
    }
    json_out_raw(out, "}", 1);
    return out->has_failed ? NULL : out->data;
}

/* game.over, written into `out`: the result as match_records wrote it
 * (JSON text), or null when that ran out of memory. Whether it was written. */
static bool write_over(const struct room *room, json_out *out)
{
    char *result = match_records_result_text(&room->match);
    json_out_reset(out);
    json_out_text(out, "{\"type\":\"game.over\",\"room\":");
    json_out_string(out, room->code);
    json_out_text(out, ",\"result\":");
    json_out_text(out, result ? result : "null");
    json_out_raw(out, "}", 1);
    free(result);
    return !out->has_failed;
}

static json_t *message_json(const struct room *room, const match_publish *publish)
{
    switch (publish->kind) {
    case MATCH_PUBLISH_STARTED:
        return json_pack("{s:s, s:s}", "type", "room.started", "room", room->code);
    case MATCH_PUBLISH_LEFT:
        return json_pack("{s:s, s:s}", "type", "room.left", "room", room->code);
    case MATCH_PUBLISH_RESIGNED:
        return with_cause(json_pack("{s:s, s:s, s:i}", "type", "game.resigned", "room", room->code,
                                    "seat", publish->seat),
                          publish);
    default:
        return NULL;
    }
}

void room_view_send_full(struct room *room, struct player *player, const json_t *id, int64_t now)
{
    if (!player->connection)
        return;
    json_out *event = room_event(room);
    if (event)
        lobby_send_reply_out(room->lobby, player->connection, event, id);
    room_sender sender = {player, player->connection, NULL};
    publish_state(room, &sender, true, now);
}

void room_view_publish(struct room *room, const match_publish *publish, const room_sender *sender,
                       int64_t now)
{
    if (publish->kind == MATCH_PUBLISH_STATE) {
        publish_state(room, sender, false, now);
        return;
    }
    if (publish->kind == MATCH_PUBLISH_VIEW) {
        if (sender && sender->player)
            room_view_send_full(room, sender->player, publish->is_reply ? sender->id : NULL, now);
        return;
    }
    if (publish->kind == MATCH_PUBLISH_ROOM && room->listed.index >= 0)
        listings_changed(room); /* what rooms.list shows of it changed */
    if (publish->kind == MATCH_PUBLISH_MOVED) {
        json_out *out = &room->lobby->event_message;
        if (moved_text(room, publish, out))
            deliver(room, publish, sender, out->data, out->length);
        return;
    }
    if (publish->kind == MATCH_PUBLISH_ROOM) {
        json_out *event = room_event(room);
        if (event)
            deliver(room, publish, sender, event->data, event->length);
        return;
    }
    if (publish->kind == MATCH_PUBLISH_OVER) {
        json_out *out = &room->lobby->event_message;
        if (write_over(room, out))
            deliver(room, publish, sender, out->data, out->length);
        return;
    }
    size_t length;
    char *text = encode(message_json(room, publish), &length);
    if (text)
        deliver(room, publish, sender, text, length);
    free(text);
}

/* game.moves, from a one-entry cache: a position's list is written once
 * however often its seat asks, and the buffer (a Blokus list is up to
 * ~120 KB) is reused rather than allocated and freed on every request. */
void room_view_send_moves(struct room *room, int seat, const room_sender *sender)
{
    struct lobby *lobby = room->lobby;
    const match *state = &room->match;
    json_out *out = &lobby->moves_message;
    bool is_cached = lobby->moves_room == room->key && lobby->moves_seq == state->seq &&
                     lobby->moves_seat == seat && !out->has_failed && out->length > 0;
    if (!is_cached) {
        json_out_reset(out);
        json_out_text(out, "{\"type\":\"game.moves\",\"room\":");
        json_out_string(out, room->code);
        json_out_text(out, ",\"seat\":");
        json_out_int(out, seat);
        json_out_text(out, ",\"ply\":");
        json_out_int(out, game_ply(&state->game, seat));
        json_out_text(out, ",\"moves\":");
        game_wire_write_legal_moves(&state->game, seat, out);
        json_out_raw(out, "}", 1);
        lobby->moves_room = room->key;
        lobby->moves_seq = state->seq;
        lobby->moves_seat = seat;
    }
    if (!out->has_failed)
        lobby_send_reply_out(lobby, sender->connection, out, sender->id);
}
