/* room_arrange.h -- rooms the server fills and starts itself: quick-play
 * matches and tournament games.
 *
 * An arranged room is an ordinary room (spectatable, listed unless
 * private, restored after a restart) whose seats are chosen by the server
 * instead of by players joining: its owner is the server itself
 * (LOBBY_ARRANGER_KEY), so no player can add a bot to it or start it. It is
 * filled through the same events a room owner's requests make -- a join
 * per player, an add_bot per built-in bot -- and started at once, so the
 * seats and the start are stored in one transaction and the seated players
 * who are connected get the `room` event that tells them where to play.
 * A seated player who is not connected plays nothing: their clock runs and
 * the room's timeout policy plays for them, until they sign in and take
 * the seat back as after any disconnection. */
#ifndef TESSERA_ROOM_ARRANGE_H
#define TESSERA_ROOM_ARRANGE_H

#include "lobby/lobby_internal.h"

/* The owner key of arranged rooms: no player's key is ever this. */
#define LOBBY_ARRANGER_KEY UINT64_MAX

/* One seat of an arranged room: a stored player, or a built-in bot. */
typedef struct arranged_seat {
    int64_t player_id; /* > 0 for a player */
    const char *name;  /* the player's name */
    bool is_bot;       /* the player's account is a bot account */
    const char *bot;   /* a built-in bot's kind when player_id is 0 */
} arranged_seat;

/* Opens a room of `options` with seats[0 .. options->seat_count - 1] and
 * starts it (a game of `tournament`, or of none): 0 and *out, or a failure
 * (the caller tells whoever should know), after which no room is left
 * behind (its stored game, if any, is marked aborted). While the start's
 * records are being stored the room exists and is not started yet; if
 * they cannot be stored, the runner discards the room then, tells its
 * seated players why, and a tournament tries the game again at its next
 * tick (tournament_game_discarded). */
int room_arrange(struct lobby *lobby, const game_options *options, const arranged_seat *seats,
                 room_tournament tournament, struct room **out, protocol_failure *failure);

#endif
