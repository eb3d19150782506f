/* tournament_machine.h -- a running tournament as a pure machine:
 * tournament_machine_apply(state, event) changes the state and lists the
 * effects, in the order they are to be carried out.
 *
 * The state is the tournament's record as the store has it (entries with
 * their standings, the schedule, each game's room, game id and status),
 * kept up to date from the events alone, so the record in memory is the
 * truth and is never read back from the store; plus what is on its way:
 * the one commit the tournament may have out (a Swiss round, its end, its
 * cancellation) and the games whose rooms are open but whose game rows are
 * still being stored. What to do next is tournament_step_next's decision
 * on that record (tournament_step.h), taken after every event:
 *   - start: an OPEN effect per game, each marked running at once; the
 *     room's answer is an event (OPENED, or DISCARDED: pending again);
 *   - pair, finish: a STORE effect with the round's records (and its
 *     bye's point) or the end; no other step until STORED answers it. A
 *     stored round joins the schedule; a stored end tells FINISHED and is
 *     OVER; a commit that failed is tried again at the next TICK;
 *   - wait.
 * A cancellation is a STORE of its own; while it is out no step is taken;
 * once stored, the games under way are aborted (ABORT), followers hear
 * CANCELLED and the tournament is OVER; if it failed nothing changed.
 *
 * No clock (times come in events), no I/O, no call into another lobby
 * module. It allocates only to make room in the schedule for a Swiss
 * round before the round is stored (a failure waits for the next tick). */
#ifndef TESSERA_TOURNAMENT_MACHINE_H
#define TESSERA_TOURNAMENT_MACHINE_H

#include <stdbool.h>
#include <stdint.h>

#include "lobby/tournament_step.h"
#include "storage/store_port.h"

/* A commit of a running tournament. */
typedef enum tournament_commit {
    TOURNAMENT_COMMIT_NONE,
    TOURNAMENT_COMMIT_ROUND, /* a Swiss round's schedule (and its bye's point) */
    TOURNAMENT_COMMIT_FINISH,
    TOURNAMENT_COMMIT_CANCEL
} tournament_commit;

typedef struct tournament_state {
    store_tournament_record *record; /* the caller's allocation; changed in place */
    tournament_rules rules;
    tournament_commit commit; /* ROUND or FINISH out, or NONE */
    int64_t commit_at_ms;     /* when it was decided: the end's time */
    int round_games;          /* ROUND: its games, after record->games[game_count - 1] */
    int round_bye;            /* ROUND: the entry its bye gives a point, or -1 */
    bool is_cancelling;       /* a cancellation is out (beside any other commit) */
    int64_t cancel_at_ms;
    int game_capacity; /* room in record->games (grown for a Swiss round) */
    /* games whose rooms are open but whose game rows are still being stored */
    int opening[TOURNAMENT_MAX_PARALLEL];
    int opening_count;
    bool is_over; /* finished or cancelled: the caller lets it go */
} tournament_state;

typedef enum tournament_event_kind {
    TOURNAMENT_EVENT_TICK,         /* carry on (also just after its creation) */
    TOURNAMENT_EVENT_RESTORED,     /* loaded at start-up: only a round or an end is carried on */
    TOURNAMENT_EVENT_OPENED,       /* game `game`'s room opened: `room`, `game_id` (0: not yet) */
    TOURNAMENT_EVENT_GAME_CREATED, /* the row of opening game `game` is stored: `game_id` */
    TOURNAMENT_EVENT_DISCARDED,    /* game `game`'s room could not open, fill or start */
    TOURNAMENT_EVENT_FINISHED,     /* game `game` ended (stored): with `standings`, or aborted */
    TOURNAMENT_EVENT_STORED,       /* the commit out was answered: `rc` */
    TOURNAMENT_EVENT_CANCEL        /* cancel it */
} tournament_event_kind;

typedef struct tournament_event {
    tournament_event_kind kind;
    int64_t now_ms;
    int game; /* OPENED, GAME_CREATED, DISCARDED, FINISHED: its number */
    int64_t game_id;
    char room[24];       /* OPENED: the room's code */
    bool has_result;     /* FINISHED: false when it was aborted */
    int standings_count; /* FINISHED with a result: its standings changes */
    store_standing_change standings[STORE_MAX_SEATS];
    tournament_commit commit; /* STORED: which one was answered... */
    int rc;                   /* ...and the store's answer */
} tournament_event;

typedef enum tournament_effect_kind {
    TOURNAMENT_EFFECT_OPEN,  /* open game `game`'s room; answer OPENED or DISCARDED */
    TOURNAMENT_EFFECT_STORE, /* submit the effects' records as one commit; answer STORED */
    TOURNAMENT_EFFECT_TELL,  /* tell the followers `tell` (with game `game` for GAME) */
    TOURNAMENT_EFFECT_ABORT, /* abort the games under way, without a result */
    TOURNAMENT_EFFECT_OVER   /* it ended: let it go */
} tournament_effect_kind;

typedef enum tournament_tell {
    TOURNAMENT_TELL_GAME, /* tournament.game: a game's stored id is known */
    TOURNAMENT_TELL_STANDINGS,
    TOURNAMENT_TELL_FINISHED,
    TOURNAMENT_TELL_CANCELLED
} tournament_tell;

typedef struct tournament_effect {
    tournament_effect_kind kind;
    int game;                 /* OPEN; TELL of GAME */
    tournament_tell tell;     /* TELL */
    tournament_commit commit; /* STORE: which one (its answer says so) */
} tournament_effect;

/* The most records one commit of a running tournament holds: a Swiss
 * round's games, its bye and the bye's point. */
#define TOURNAMENT_MAX_RECORDS (SWISS_MAX_PLAYERS / 2 + 2)
#define TOURNAMENT_MAX_EFFECTS (TOURNAMENT_MAX_PARALLEL + 4)

typedef struct tournament_effects {
    int count;
    tournament_effect items[TOURNAMENT_MAX_EFFECTS];
    int record_count; /* STORE's */
    store_record records[TOURNAMENT_MAX_RECORDS];
} tournament_effects;

/* A machine for `record` (taken; the caller frees it after the machine)
 * under `rules`, with nothing on its way. */
tournament_state tournament_machine_new(store_tournament_record *record,
                                        const tournament_rules *rules);

/* Applies `event` to `state`: the effects in *out. */
void tournament_machine_apply(tournament_state *state, const tournament_event *event,
                              tournament_effects *out);

#endif
