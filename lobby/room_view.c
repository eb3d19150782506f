/* room_view.c -- what members are sent, each message encoded once.
 *
 * A publish is rendered to one text and the same bytes go to every member;
 * the sender's reply is that text with its request id spliced in before
 * the closing brace. game.state differs per member in two places only --
 * `seat` (the viewer's own) and `hints` (for the seat to move) -- so its
 * body is encoded at most twice (with and without hints) and each member
 * gets a short prefix naming its seat in front of the shared body. A room
 * with fifty spectators thus costs fifty copies, not fifty encodings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

static json_t *seat_json(const struct room *r, int index)
{
    const match_seat *seat = &r->match.seats[index];
    const struct player *p = r->seated[index];
    json_t *json = json_pack("{s:i}", "seat", index);
    if (seat->kind == MATCH_SEAT_EMPTY) {
        json_object_set_new(json, "kind", json_string("empty"));
    } else if (seat->kind == MATCH_SEAT_BOT) {
        json_object_set_new(json, "kind", json_string("bot"));
        json_object_set_new(json, "bot", json_string(seat->bot));
        json_object_set_new(json, "name", json_string(seat->bot));
    } else {
        json_object_set_new(json, "kind", json_string("player"));
        json_object_set_new(json, "name", json_string(p ? p->name : ""));
        json_object_set_new(json, "player_id", json_integer(seat->player_id));
        json_object_set_new(json, "is_bot", json_boolean(p && p->is_bot));
        json_object_set_new(json, "connected", json_boolean(p && p->connection != 0));
        json_object_set_new(json, "left", json_boolean(seat->has_left));
    }
    return json;
}

json_t *room_view_room_json(const struct room *r)
{
    const match *m = &r->match;
    json_t *seats = json_array();
    for (int seat = 0; seat < m->options.seat_count; seat++)
        json_array_append_new(seats, seat_json(r, seat));
    json_t *json =
        json_pack("{s:s, s:s, s:s, s:s, s:b, s:o, s:o, s:i}", "id", r->code, "game",
                  game_kind_name(&m->options), "mode", game_mode_name(&m->options), "status",
                  match_status_name(m->status), "private", r->is_private, "options",
                  game_options_json(&m->options), "seats", seats, "spectators", r->spectator_count);
    if (r->owner)
        json_object_set_new(json, "owner",
                            r->owner->player_id ? json_integer(r->owner->player_id) : json_null());
    return json;
}

static char *encode(json_t *message, size_t *length)
{
    char *text = protocol_finish(message, NULL);
    *length = text ? strlen(text) : 0;
    return text;
}

char *room_view_room_event(const struct room *r, size_t *length)
{
    return encode(json_pack("{s:s, s:o}", "type", "room", "room", room_view_room_json(r)), length);
}

char *room_view_result_text(const match *m)
{
    match_result result;
    match_result_of(m, &result);
    json_t *scores = json_array(), *ranks = json_array(), *winners = json_array();
    for (int seat = 0; seat < result.seat_count; seat++) {
        json_array_append_new(scores, json_integer(result.scores[seat]));
        json_array_append_new(ranks, json_integer(result.ranks[seat]));
        if (result.is_winner[seat])
            json_array_append_new(winners, json_integer(seat));
    }
    json_t *json = json_pack("{s:o, s:o, s:o, s:s}", "scores", scores, "ranks", ranks, "winners",
                             winners, "reason", match_end_reason_name(result.reason));
    char *text = json ? json_dumps(json, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(json);
    return text;
}

/* ---- game.state ------------------------------------------------------------ */

/* The state's fields but `type` and `seat`, as seen by `viewer_seat` (whose
 * only effect is the hints of the seat to move), written from its first
 * field on: `"room":...}`. */
static void write_state_body(const struct room *r, int viewer_seat, int64_t now, json_out *out)
{
    const match *m = &r->match;
    json_out_reset(out);
    json_out_key(out, "room");
    json_out_string(out, r->code);
    json_out_text(out, ",\"game\":");
    json_out_string(out, game_kind_name(&m->options));
    json_out_text(out, ",\"mode\":");
    json_out_string(out, game_mode_name(&m->options));
    json_out_text(out, ",\"status\":");
    json_out_string(out, match_status_name(m->status));
    json_out_text(out, ",\"clocks\":[");
    for (int seat = 0; seat < m->options.seat_count && m->options.has_clock; seat++) {
        const match_seat *s = &m->seats[seat];
        int64_t left = s->clock_ms - (s->is_on_turn ? now - s->turn_started_ms : 0);
        json_out_text(out, seat ? ",{\"seat\":" : "{\"seat\":");
        json_out_int(out, seat);
        json_out_text(out, ",\"ms\":");
        json_out_int(out, left > 0 ? left : 0);
        json_out_text(out, s->is_on_turn ? ",\"running\":true}" : ",\"running\":false}");
    }
    json_out_raw(out, "]", 1);
    if (m->options.kind == GAME_BLOKUS) {
        json_out_text(out, ",\"ply\":");
        json_out_int(out, game_ply(&m->game, 0));
    }
    game_write_state(&m->game, viewer_seat, out);
    json_out_raw(out, "}", 1);
}

/* The seat whose view has hints (Blokus, the seat to move), or -1. */
static int hinted_seat(const struct room *r)
{
    const match *m = &r->match;
    if (m->options.kind != GAME_BLOKUS || m->status != MATCH_PLAYING)
        return -1;
    for (int seat = 0; seat < m->options.seat_count; seat++)
        if (game_seat_may_move(&m->game, seat))
            return seat;
    return -1;
}

/* The bodies of one game.state, in the lobby's reused buffers. */
struct state_texts {
    json_out *plain, *hinted, *message;
    int hinted_seat;
};

static int state_texts_make(struct room *r, int64_t now, struct state_texts *texts)
{
    struct lobby *l = r->lobby;
    texts->plain = &l->state_plain;
    texts->hinted = &l->state_hinted;
    texts->message = &l->state_message;
    texts->hinted_seat = hinted_seat(r);
    write_state_body(r, -1, now, texts->plain);
    if (texts->hinted_seat >= 0)
        write_state_body(r, texts->hinted_seat, now, texts->hinted);
    bool has_failed =
        texts->plain->has_failed || (texts->hinted_seat >= 0 && texts->hinted->has_failed);
    return has_failed ? -1 : 0;
}

static void send_state(struct lobby *l, struct state_texts *texts, uint64_t connection, int seat)
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
    if (!message->has_failed)
        lobby_send_text(l, connection, message->data, message->length);
}

static int listening_seat_of(const struct room *r, int seat)
{
    const match_seat *s = &r->match.seats[seat];
    return s->kind == MATCH_SEAT_PLAYER && !s->has_left && r->seated[seat] ? seat : -1;
}

static void publish_state(struct room *r, const room_sender *sender, bool is_to_sender_only,
                          int64_t now)
{
    struct state_texts texts;
    if (r->match.status == MATCH_WAITING || state_texts_make(r, now, &texts) != 0)
        return;
    struct lobby *l = r->lobby;
    for (int seat = 0; seat < r->match.options.seat_count; seat++) {
        const struct player *p = listening_seat_of(r, seat) >= 0 ? r->seated[seat] : NULL;
        bool is_wanted = p && (!is_to_sender_only || (sender && p == sender->player));
        if (!is_wanted || !p->connection)
            continue;
        send_state(l, &texts, p->connection, seat);
        /* Its turn: the answer it now owes (game.moves, game.move) is free. */
        if (game_seat_may_move(&r->match.game, seat))
            l->host.grant(l->host.context, p->connection, LOBBY_TURN_MESSAGES);
    }
    for (int i = 0; i < r->spectator_count; i++) {
        const struct player *p = r->spectators[i];
        if (!is_to_sender_only || (sender && p == sender->player))
            send_state(l, &texts, p->connection, -1);
    }
}

/* ---- everything else ------------------------------------------------------- */

/* Sends one encoded publish to its audience. */
static void deliver(struct room *r, const match_publish *p, const room_sender *sender,
                    const char *text, size_t length)
{
    struct lobby *l = r->lobby;
    const struct player *from = sender ? sender->player : NULL;
    bool has_reply = sender && sender->connection && p->is_reply;
    if (p->audience == MATCH_TO_SENDER) {
        if (sender && sender->connection)
            lobby_send_reply(l, sender->connection, text, length, p->is_reply ? sender->id : NULL);
        return;
    }
    bool skips_sender = p->audience == MATCH_TO_OTHER_MEMBERS || has_reply;
    for (int seat = 0; seat < r->match.options.seat_count; seat++) {
        const struct player *member = listening_seat_of(r, seat) >= 0 ? r->seated[seat] : NULL;
        if (member && !(skips_sender && member == from))
            lobby_send_text(l, member->connection, text, length);
    }
    for (int i = 0; i < r->spectator_count; i++)
        if (!(skips_sender && r->spectators[i] == from))
            lobby_send_text(l, r->spectators[i]->connection, text, length);
    if (has_reply)
        lobby_send_reply(l, sender->connection, text, length, sender->id);
}

static json_t *moved_json(const struct room *r, const match_publish *p)
{
    const match *m = &r->match;
    json_t *scores = json_array();
    for (int seat = 0; seat < m->options.seat_count; seat++)
        json_array_append_new(scores, json_integer(p->scores[seat]));
    json_t *event =
        json_pack("{s:s, s:s, s:I, s:i, s:o}", "type", "game.moved", "room", r->code, "ply",
                  (json_int_t)p->ply, "seat", p->seat, "action", game_move_json(&m->game, p->move));
    game_outcome_describe(&m->game, &p->outcome, event);
    json_object_set_new(event, "scores", scores);
    if (p->cause != MATCH_CAUSE_NONE)
        json_object_set_new(event, "cause", json_string(match_cause_name(p->cause)));
    return event;
}

static json_t *over_json(const struct room *r)
{
    char *result = room_view_result_text(&r->match);
    json_t *json = json_pack("{s:s, s:s, s:o}", "type", "game.over", "room", r->code, "result",
                             result ? json_loads(result, 0, NULL) : json_null());
    free(result);
    return json;
}

static json_t *message_json(const struct room *r, const match_publish *p)
{
    switch (p->kind) {
    case MATCH_PUBLISH_ROOM:
        return json_pack("{s:s, s:o}", "type", "room", "room", room_view_room_json(r));
    case MATCH_PUBLISH_STARTED:
        return json_pack("{s:s, s:s}", "type", "room.started", "room", r->code);
    case MATCH_PUBLISH_LEFT:
        return json_pack("{s:s, s:s}", "type", "room.left", "room", r->code);
    case MATCH_PUBLISH_MOVED:
        return moved_json(r, p);
    case MATCH_PUBLISH_RESIGNED:
        return json_pack("{s:s, s:s, s:i}", "type", "game.resigned", "room", r->code, "seat",
                         p->seat);
    case MATCH_PUBLISH_OVER:
        return over_json(r);
    default:
        return NULL;
    }
}

void room_view_send_full(struct room *r, struct player *p, const json_t *id, int64_t now)
{
    if (!p->connection)
        return;
    size_t length;
    char *text = room_view_room_event(r, &length);
    lobby_send_reply(r->lobby, p->connection, text, length, id);
    free(text);
    room_sender sender = {p, p->connection, NULL};
    publish_state(r, &sender, true, now);
}

void room_view_publish(struct room *r, const match_publish *p, const room_sender *sender,
                       int64_t now)
{
    if (p->kind == MATCH_PUBLISH_STATE) {
        publish_state(r, sender, false, now);
        return;
    }
    if (p->kind == MATCH_PUBLISH_VIEW) {
        if (sender && sender->player)
            room_view_send_full(r, sender->player, p->is_reply ? sender->id : NULL, now);
        return;
    }
    size_t length;
    char *text = encode(message_json(r, p), &length);
    if (text)
        deliver(r, p, sender, text, length);
    free(text);
}

/* Sends the object in `message` with `id` added, written into the buffer
 * itself and taken out again: a 100 KB move list is not copied to add a
 * few bytes. */
static void send_with_id(struct lobby *l, uint64_t connection, json_out *message, const json_t *id)
{
    char *id_text = id ? json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!id_text) {
        lobby_send_text(l, connection, message->data, message->length);
        return;
    }
    size_t length = message->length;
    message->length--; /* the closing brace gives way */
    json_out_text(message, ",\"id\":");
    json_out_text(message, id_text);
    json_out_raw(message, "}", 1);
    if (!message->has_failed)
        lobby_send_text(l, connection, message->data, message->length);
    message->length = length;
    if (message->data)
        memcpy(message->data + length - 1, "}", 2);
    free(id_text);
}

/* game.moves, from a one-entry cache: a position's list is written once
 * however often its seat asks, and the buffer (a Blokus list is up to
 * ~120 KB) is reused rather than allocated and freed on every request. */
void room_view_send_moves(struct room *r, int seat, const room_sender *sender)
{
    struct lobby *l = r->lobby;
    const match *m = &r->match;
    json_out *out = &l->moves_message;
    bool is_cached = l->moves_room == r->key && l->moves_seq == m->seq && l->moves_seat == seat &&
                     !out->has_failed && out->length > 0;
    if (!is_cached) {
        json_out_reset(out);
        json_out_text(out, "{\"type\":\"game.moves\",\"room\":");
        json_out_string(out, r->code);
        json_out_text(out, ",\"seat\":");
        json_out_int(out, seat);
        json_out_text(out, ",\"ply\":");
        json_out_int(out, game_ply(&m->game, seat));
        json_out_text(out, ",\"moves\":");
        game_write_legal_moves(&m->game, seat, out);
        json_out_raw(out, "}", 1);
        l->moves_room = r->key;
        l->moves_seq = m->seq;
        l->moves_seat = seat;
    }
    if (!out->has_failed)
        send_with_id(l, sender->connection, out, sender->id);
}
