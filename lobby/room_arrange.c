/* room_arrange.c -- rooms the server fills and starts (room_arrange.h). */
#include "lobby/room_arrange.h"

static int seat_one(struct room *room, int seat, const arranged_seat *who,
                    protocol_failure *failure)
{
    struct lobby *lobby = room->lobby;
    match_event event = {.now_ms = lobby_now(lobby), .seat = seat};
    if (who->player_id > 0) {
        /* known in memory, with room for the seat, so the room can name it */
        struct player *player = lobby_player_by_id(lobby, who->player_id, who->name, who->is_bot);
        if (!player || lobby_player_reserve(player, 1) != 0)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        event.kind = MATCH_EVENT_JOIN;
        event.player_id = who->player_id;
    } else {
        event.kind = MATCH_EVENT_ADD_BOT;
        event.member = LOBBY_ARRANGER_KEY;
        event.bot = who->bot;
    }
    return room_run(room, &event, NULL, failure);
}

/* A room that could not be filled or started goes away; its game is
 * stored as aborted (if even that fails, the restart finds it waiting
 * and aborts it, as every room that had not started). */
static void discard(struct room *room)
{
    const store_api *api = &room->lobby->store;
    api->game_finish(api->context, room->game_id, STORE_GAME_ABORTED, NULL, 0, NULL,
                     lobby_now(room->lobby));
    room_free(room);
}

int room_arrange(struct lobby *lobby, const game_options *options, const arranged_seat *seats,
                 room_tournament tournament, struct room **out, protocol_failure *failure)
{
    struct room *room = NULL;
    int rc = room_open(lobby, options, false, NULL, tournament, &room, failure);
    if (rc != 0)
        return rc;
    room->match.owner = LOBBY_ARRANGER_KEY;
    room->is_quiet = true; /* the seated hear of the room once, started */
    for (int seat = 0; rc == 0 && seat < options->seat_count; seat++)
        rc = seat_one(room, seat, &seats[seat], failure);
    room->is_quiet = false;
    if (rc == 0) {
        match_event start = {
            .kind = MATCH_EVENT_START, .now_ms = lobby_now(lobby), .member = LOBBY_ARRANGER_KEY};
        rc = room_run(room, &start, NULL, failure);
    }
    if (rc != 0) {
        discard(room);
        return rc;
    }
    *out = room;
    return 0;
}
