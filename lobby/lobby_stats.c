/* lobby_stats.c -- the kinds of game by index, and the snapshot of what
 * the lobby counts (lobby_stats.h). */
#include <string.h>

#include "lobby/lobby_internal.h"
#include "lobby/lobby_stats.h"

const char *const LOBBY_KIND_GAMES[LOBBY_KIND_COUNT] = {"blokus", "blokus",       "blokus",
                                                        "blokus", "reef-builder", "reef-builder"};
const char *const LOBBY_KIND_MODES[LOBBY_KIND_COUNT] = {"4p", "3p", "2p", "duo", "solo", "race"};
const char *const LOBBY_STATUS_NAMES[LOBBY_STATUS_COUNT] = {"waiting", "playing", "finished"};

int lobby_kind_of(const game_options *options)
{
    if (options->kind == GAME_BLOKUS)
        return (int)options->blokus_mode;
    return options->is_race ? 5 : 4;
}

static void count_room(void *value, void *context)
{
    const struct room *room = value;
    lobby_stats *stats = context;
    stats->rooms[lobby_kind_of(&room->match.options)][room->match.status]++;
}

void lobby_stats_read(const struct lobby *lobby, lobby_stats *out)
{
    memset(out, 0, sizeof(*out));
    out->counters = lobby->counters;
    id_table_each(&lobby->rooms, count_room, out);
    out->players = (int)lobby->players.count + (int)lobby->guests.count;
    out->queue_waiting = lobby->queue.count;
    out->tournaments_running = (int)lobby->tournaments.count;
    out->jobs_in_flight = lobby->jobs_in_flight;
}
