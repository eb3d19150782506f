/* tournament.h -- tournaments: a field of players and bots plays a
 * schedule of games, ranked by points (lobby/tournament_plan.h says what
 * is played and how points are given).
 *
 * A tournament's games are arranged rooms (room_arrange.h): ordinary,
 * spectatable, rated games whose seats the server fills. Registered bots
 * and players are seated whether or not they are connected: a connected
 * one hears the room's `room` event and plays; an absent one's clock runs
 * and the room's timeout policy plays for it (tournaments default to a
 * clock of 60 s + 2 s a move and the "pass" policy, so an absent entry
 * loses its turns). At most `parallel` games run at once.
 *
 * Everything that matters is in the database: the tournament, its
 * entries with their standings, and its schedule; each game's standings
 * change is written in that game's result transaction. Each running
 * tournament is a pure machine (tournament_machine.h) whose state is that
 * record, kept in memory from the events alone: its creation, the rooms'
 * answers, its games' ends (with the standings their batches stored), its
 * commits' answers, ticks and a cancellation. This module is its shell:
 * it feeds it those events, one at a time (an event that comes while it
 * carries out another's effects waits in the tournament's inbox; a game's
 * end waits for the runner), and carries out its effects: rooms opened
 * (room_arrange), records stored (runner commits), followers told, games
 * aborted. The store is read only at start-up, and a restart that loads
 * the running tournaments carries on exactly where the last run stopped.
 *
 * Creating a tournament, cancelling one and invitations are commits
 * answered when stored: a creation is one batch (the invitations it uses,
 * the tournament and its entries, a round-robin's or fixed one's whole
 * schedule), and creations on their way count against the caps.
 *
 * Watchers (`tournament.watch`) and connected entries hear `tournament.*`
 * events, each with the tournament's view (tournament_view_json):
 * tournament.game when a game starts, tournament.standings after each
 * result, tournament.finished at the end, tournament.cancelled.
 *
 * Since entering someone plays rated games in their name, an account (the
 * creator; 0 is the admin or an arena, who may enter anyone) enters only
 * itself, its own bots, bots opened to tournaments, built-in bots, and
 * players that accepted its invitation; an accepted invitation is used up
 * in the transaction that stores the tournament, so checking and using it
 * cannot be split by a crash. An account's running tournaments, and the
 * games they may play at once, are capped (lobby_config), and the last
 * places of max_tournaments are kept for the admin and arenas: the caps
 * count the tournaments in memory, which are exactly the running ones, and
 * those being created. A cancellation is stored first, then the games
 * under way are aborted (MATCH_EVENT_CANCEL), so a crash between the two
 * leaves games that the restart plays to their end outside the
 * tournament, never a running tournament whose creator thought it
 * cancelled. */
#ifndef TESSERA_TOURNAMENT_H
#define TESSERA_TOURNAMENT_H

#include "lobby/lobby_internal.h"
#include "lobby/match_records.h"
#include "lobby/tournament_machine.h"
#include "lobby/tournament_plan.h"

/* tournament.create, .cancel and .invite (named accounts only), .watch,
 * and .accept (an account or bot account invited). */
int tournament_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                      protocol_failure *failure);

/* What a tournament plays and how (its stored settings, its format). */
typedef struct tournament_shape {
    game_options options; /* every game's, but the seed */
    tournament_format format;
    int games_per_group; /* fixed */
    int rounds;          /* swiss */
    int parallel;        /* games at once */
} tournament_shape;

/* Creates and starts a tournament, of scheduled arena `arena` (NULL for
 * none) for its period starting at `period_ms`, for `creator`:
 * lobby_tournament_create's contract (tournament_create.c). */
int tournament_create(struct lobby *lobby, const protocol_tournament_create *request,
                      const char *arena, int64_t period_ms, int64_t creator,
                      lobby_tournament_answer *answer, void *context, protocol_failure *failure);

/* For tournament_create.c. The settings JSON stored with a tournament
 * of `shape`, enough to rebuild it (malloc'd; NULL out of memory). */
char *tournament_settings_text(const tournament_shape *shape);

/* Runs the stored tournament `record` (taken) from now on: 0, or -1 when
 * it cannot be (out of memory: a restart runs it). */
int tournament_run(struct lobby *lobby, store_tournament_record *record);

/* How many tournaments run; *tournaments of them are `account`'s, playing
 * *rooms games at once at most. */
int tournaments_held(struct lobby *lobby, int64_t account, int *tournaments, int *rooms);

/* The tournament entries that the seats of tournament game `game` are,
 * for its result's standings: 0 and *out, or -1 when the tournament is no
 * longer running (cancelled: its standings stay as they are). */
int tournament_entries(struct lobby *lobby, room_tournament scheduled_game,
                       match_records_tournament *out);

/* The room of tournament game `scheduled_game` has its stored game
 * `game_id` (its creation was answered after room_arrange returned): the
 * tournament records it and tells its followers (`tournament.game`). */
void tournament_game_created(struct lobby *lobby, room_tournament scheduled_game, int64_t game_id);

/* Tournament game `number`'s room could not be filled or started and went
 * away: the game is pending again, for the next tick to start. */
void tournament_game_discarded(struct lobby *lobby, int64_t tournament_id, int number);

/* Tournament game `scheduled_game` ended: `stored` is the batch of its
 * last event, stored (its result with its standings, or its abort). The
 * tournament gets it as an event and is put on the runner's list of
 * those to carry on, once however many of its games ended meanwhile.
 * Allocates nothing. */
void tournament_post_game_over(struct lobby *lobby, room_tournament scheduled_game,
                               const store_batch *stored);

/* Carries on the first tournament on that list: whether there was one
 * (the runner calls it once the room events before it are done). */
bool tournaments_carry_on_posted(struct lobby *lobby);

/* Starts the games running tournaments have room for (every tick). */
void tournaments_tick(struct lobby *lobby);

/* Runs again, after a restart or a takeover, the running tournaments a
 * FIND_TOURNAMENTS lookup found (taking those it holds; one that could not
 * be loaded is logged and left; one run here already is left alone). */
void tournaments_restore(struct lobby *lobby, store_record_find_tournaments *found);

/* With an instance id: lets go of the tournaments here, leased before
 * `leased_before_ms`, whose leases are not among `held` (a renewal's
 * answer): another instance took them over, and runs them now. */
void tournaments_give_up_lost(struct lobby *lobby, const store_rooms *held,
                              int64_t leased_before_ms);

/* The `tournament.*` event `what` of `record` (for TOURNAMENT_TELL_GAME,
 * of scheduled game `number`) as compact JSON text, with the tournament's
 * view (tournament_view.c): the caller's (free), or NULL out of memory. */
char *tournament_event_text(const store_tournament_record *record, tournament_tell what,
                            int number);

/* With a shared lobby: tells the entries of `record` not connected here
 * of the event `what` (tournament_event_text's arguments) through a
 * notice to the other instances (tournament_notices.c). */
void tournament_notices_tell(struct lobby *lobby, const store_tournament_record *record,
                             tournament_tell what, int number);

/* A notice another instance sent (lobby_listings_heard): whether it is a
 * tournament's, in which case its event goes to those of its entries
 * connected here once the tournament is read. */
bool tournament_notices_heard(struct lobby *lobby, const json_t *notice);

/* Whether `actor` (0: the admin) may cancel tournament `id` of `info`:
 * 0, or not_owner in *failure (an account that did not create it). */
int tournament_check_owner(const store_tournament_info *info, int64_t id, int64_t actor,
                           protocol_failure *failure);

/* lobby_tournament_cancel of a tournament not running here: checked
 * against the stored one and sent on to the instance running it, with
 * lobby_tournament_cancel's contract, but for the answer
 * LOBBY_TOURNAMENT_SENT_ON once it is sent (tournament_notices.c). */
int tournament_notices_cancel(struct lobby *lobby, int64_t id, int64_t actor,
                              lobby_tournament_answer *answer, void *context,
                              protocol_failure *failure);

/* Frees the tournaments held in memory. */
void tournaments_free(struct lobby *lobby);

#endif
