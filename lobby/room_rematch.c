/* room_rematch.c -- room.rematch: a player of a finished game offers the
 * other players a room for the same game again.
 *
 * The offerer's client makes the new room with the usual requests
 * (room.create with the same settings, room.join of its old seat,
 * room.add_bot for the old bots' seats), then names it here. This file
 * only checks that the new room really is that rematch -- same game and
 * mode, the offerer's own, waiting, every bot back in its seat and no
 * stranger in a human's seat -- and writes its code into the finished
 * room, whose members get the `room` event with `rematch` set. Each other
 * player accepts by joining its old seat in the new room; a player who
 * reconnects later sees the code in the finished room's view.
 *
 * A finished room has one rematch: offering the same room again answers
 * the offerer alone (a repeated click tells nobody anything twice), and
 * another room is refused, so no one can send the players one offer after
 * another. The code lives in memory with the finished room: it is an
 * invitation, not a record, and goes when the room expires. */
#include <string.h>

#include "lobby/lobby_internal.h"

/* Why `seat` of the new room is not the finished game's, or NULL. */
static const char *seat_mismatch(const match_seat *was, const match_seat *now)
{
    if (was->kind == MATCH_SEAT_BOT)
        return now->kind == MATCH_SEAT_BOT && strcmp(now->bot, was->bot) == 0
                   ? NULL
                   : "must hold the same bot again";
    if (now->kind == MATCH_SEAT_EMPTY)
        return NULL;
    if (was->kind == MATCH_SEAT_PLAYER && now->kind == MATCH_SEAT_PLAYER &&
        now->player_id == was->player_id)
        return NULL;
    return "is kept for the player who had it";
}

/* Whether `rematch` has `finished`'s game, mode and seats, with `seat`
 * taken by the offerer. */
static int check_rematch(const struct room *finished, const struct room *rematch, int seat,
                         int64_t player_id, protocol_failure *failure)
{
    const game_options *was = &finished->match.options;
    const game_options *now = &rematch->match.options;
    if (strcmp(game_kind_name(was), game_kind_name(now)) != 0 ||
        strcmp(game_mode_name(was), game_mode_name(now)) != 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "a rematch must be %s %s",
                             game_kind_name(was), game_mode_name(was));
    const match_seat *mine = &rematch->match.seats[seat];
    if (mine->kind != MATCH_SEAT_PLAYER || mine->player_id != player_id)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "take your seat %d in room %s first",
                             seat, rematch->code);
    for (int index = 0; index < now->seat_count; index++) {
        /* A Reef race closed up its seats at the start: the seats past
         * them have no player to wait for. */
        match_seat empty = {.kind = MATCH_SEAT_EMPTY};
        const match_seat *old = index < was->seat_count ? &finished->match.seats[index] : &empty;
        const char *why = seat_mismatch(old, &rematch->match.seats[index]);
        if (why)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "seat %d of room %s %s", index,
                                 rematch->code, why);
    }
    return 0;
}

int room_rematch(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    const protocol_room_ref *request = &message->body.room;
    struct player *player = client->player;
    struct room *finished = room_find(lobby, request->room);
    if (!finished)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", request->room);
    int seat = player->player_id ? match_seat_of(&finished->match, player->player_id) : -1;
    if (seat < 0 || finished->match.seats[seat].has_left)
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "you have no seat in this game");
    if (finished->match.status != MATCH_FINISHED)
        return protocol_fail(failure, PROTOCOL_E_NOT_FINISHED, "the game has not ended");
    struct room *rematch = room_find(lobby, request->rematch);
    if (!rematch)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_ROOM, "no room '%s'", request->rematch);
    if (rematch->owner != player)
        return protocol_fail(failure, PROTOCOL_E_NOT_OWNER, "room %s is not yours", rematch->code);
    if (rematch->match.status != MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_ALREADY_STARTED, "room %s has started",
                             rematch->code);
    int rc = check_rematch(finished, rematch, seat, player->player_id, failure);
    if (rc != 0)
        return rc;
    bool is_new = finished->rematch[0] == '\0';
    if (!is_new && strcmp(finished->rematch, rematch->code) != 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "this game's rematch is room %s",
                             finished->rematch);
    memcpy(finished->rematch, rematch->code, sizeof(finished->rematch));
    if (is_new)
        lobby_log(lobby, "room %s: %s offers the rematch %s", finished->code, player->name,
                  rematch->code);
    match_publish view = {.kind = MATCH_PUBLISH_ROOM,
                          .audience = is_new ? MATCH_TO_MEMBERS : MATCH_TO_SENDER,
                          .is_reply = true};
    room_sender sender = {player, client->connection, message->id};
    room_view_publish(finished, &view, &sender, lobby_now(lobby));
    return 0;
}
