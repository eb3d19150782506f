/* tournament_step.h -- what a running tournament does next, decided from
 * its stored record alone.
 *
 * A tournament's whole state is its stored record: the entries with their
 * points, the schedule, and each scheduled game's status (tournament.h).
 * After every change (a game started, ended or discarded; a Swiss round
 * paired; a restart) the tournament's machine (tournament_machine.h) asks
 * tournament_step_next what follows and turns it into effects:
 *   - start   the pending games it has room for, at most `parallel`
 *             running at once, in schedule order;
 *   - pair    the next Swiss round, when every game so far is finished
 *             and rounds are left: the pairs in seat order (the better
 *             placed first in even rounds, second in odd ones) and the
 *             bye, worth one point at once;
 *   - finish  when every game is finished and no round is left;
 *   - wait    while games run and none can start.
 *
 * Pure: no clock, no store, no allocation; the machine keeps the record
 * as the store has it, so a restart decides the same. */
#ifndef TESSERA_TOURNAMENT_STEP_H
#define TESSERA_TOURNAMENT_STEP_H

#include <stdbool.h>

#include "lobby/swiss.h"
#include "lobby/tournament_plan.h"
#include "storage/store.h"

/* The most games a tournament runs at once (tournament.create's limit). */
#define TOURNAMENT_MAX_PARALLEL 64

/* What a tournament's settings say about its progress. */
typedef struct tournament_rules {
    tournament_format format;
    int rounds;   /* Swiss: how many */
    int parallel; /* games at once, 1 .. TOURNAMENT_MAX_PARALLEL */
} tournament_rules;

typedef enum tournament_step_kind {
    TOURNAMENT_STEP_WAIT,
    TOURNAMENT_STEP_START,
    TOURNAMENT_STEP_PAIR,
    TOURNAMENT_STEP_FINISH
} tournament_step_kind;

typedef struct tournament_step {
    tournament_step_kind kind;
    int start_count;                     /* START: how many */
    int starts[TOURNAMENT_MAX_PARALLEL]; /* START: indexes into record->games */
    int round;                           /* PAIR: the round's number, from 0 */
    int pair_count;                      /* PAIR */
    int pairs[SWISS_MAX_PLAYERS / 2][2]; /* PAIR: entry indexes, in seat order */
    int bye;                             /* PAIR: the entry sitting out, or -1 */
} tournament_step;

/* Whether a scheduled game's room is open and playing. */
bool tournament_step_is_running(const store_scheduled_game *scheduled);

/* What follows for `record` under `rules`: 0 and *out, or -1 when a Swiss
 * round cannot be paired (a field out of swiss_pair's range). */
int tournament_step_next(const store_tournament_record *record, const tournament_rules *rules,
                         tournament_step *out);

#endif
