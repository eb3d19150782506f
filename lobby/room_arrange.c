/* room_arrange.c -- rooms the server fills and starts (room_arrange.h). */
#include "lobby/room_arrange.h"

/* Hands the event that fills `seat` to the room. */
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
    room_run(room, &event, NULL);
    return 0;
}

int room_arrange(struct lobby *lobby, const game_options *options, const arranged_seat *seats,
                 room_tournament tournament, struct room **out, protocol_failure *failure)
{
    struct room *room = room_open(lobby, options, false, NULL, tournament, failure);
    if (!room)
        return failure->code;
    room->match.owner = LOBBY_ARRANGER_KEY;
    room->is_arranged = true; /* until it starts: the runner discards it on a refusal */
    lobby->arranging = room;  /* ...and leaves telling why to us while we are here */
    int rc = room_submit_creation(room, NULL, failure);
    for (int seat = 0; rc == 0 && lobby->arranging && seat < options->seat_count; seat++)
        rc = seat_one(room, seat, &seats[seat], failure);
    if (rc != 0 && lobby->arranging)
        room_discard_arranged(room, failure);
    if (lobby->arranging) {
        match_event start = {
            .kind = MATCH_EVENT_START, .now_ms = lobby_now(lobby), .member = LOBBY_ARRANGER_KEY};
        room_run(room, &start, NULL);
    }
    bool is_discarded = !lobby->arranging;
    lobby->arranging = NULL;
    if (is_discarded) {
        *failure = lobby->arrange_failure;
        return failure->code;
    }
    *out = room;
    return 0;
}
