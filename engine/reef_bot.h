/* reef_bot.h -- built-in Reef Builder bots.
 *
 * Four deterministic bots that choose an action for a reef_state. They copy
 * states on the stack to try actions (a reef_state is a small value), so
 * choosing a move allocates nothing, and they only ever look at what a player
 * sees: the board, the current piece and the next piece (never the generator
 * inside the state, whose later draws a copy would reveal).
 *
 * All rank positions with the same board-health heuristic, in points. The
 * weights were tuned by self-play (1000-turn runs, seeds 1..30) and checked
 * on other seeds:
 *   +60 per fitting pair (two orthogonally adjacent empty cells), counting
 *       at most 8 pairs: a little room keeps the run alive, more room earns
 *       nothing, so the board is free to fill up with growing groups;
 *   -25 per isolated empty cell (no empty neighbour): a hole no piece fills;
 *   per same-color group that still has an empty neighbour (a "liberty"):
 *       +3 for one cell, +120 for two, +220 for three, i.e. an inventory of
 *       groups one or two cells from blooming, which lets later pieces bloom
 *       on consecutive turns and climb the streak multiplier;
 *   -20 per cell of a group with no liberty: dead until a neighbour clears;
 *   +40 per streak step up to the x3 cap: the multiplier is worth keeping.
 *
 * greedy     plays the placement with the best immediate score; ties (most
 *            often: no placement blooms) go to the best health afterwards,
 *            then to the first in legal-action order. It blooms whenever it
 *            can, so it never builds an inventory.
 * lookahead  uses the visible next piece: each current action (placement or
 *            skip) is worth its points plus the best points + health reachable
 *            by placing the next piece after it. Ending the run costs 3000
 *            points (the future is lost), a skip costs its 50 points plus 150
 *            for spending a scarce skip. Because health can outweigh a small
 *            bloom, it often banks groups of three and blooms them in a row.
 * planner    looks one piece further, into the piece nobody has seen yet. It
 *            ranks every (current action, next placement) line as lookahead
 *            does and keeps the best 12; each is then worth its points plus
 *            the mean, over the pieces reef-gen-1 may draw next, of the best
 *            points + health that piece's placement reaches. The chances of
 *            those pieces follow from the rules and the turn number alone
 *            (docs/ARCHITECTURE.md, "Reef Builder piece generator"): the
 *            piece in the state is replaced by each of them in turn, never
 *            read. Its health weights are the ones above: retuning them for
 *            it on seeds 1001..1024 found nothing clearly better that kept
 *            every run alive (counting at most 4 fitting pairs scored 1.4%
 *            more there, but ended 3 runs of seeds 1..100 before turn 700).
 * chainer    plays for the chain: lookahead's search, and for its best 32
 *            lines the chance, over the unseen piece, that the chain
 *            survives it (can each possible piece bloom, how big, what the
 *            longer streak is worth), counted from the board's groups; while
 *            the streak is 0 and the board has room it grows groups rather
 *            than bloom at x1. reef_chainer.c has the design.
 * Skips: greedy skips only when every placement ends the run without a
 * bloom (the next piece might bloom instead). Lookahead skips when that
 * scores better under the rule above; in practice it spends its three skips
 * protecting long streaks: when the current piece cannot bloom but the next
 * one can, skipping (-50, -150) keeps a x3 multiplier that a placement would
 * reset. The planner prices a skip the same way, as one more first action;
 * the chainer as a first or a second action, and for the unseen piece.
 *
 * No bot ends a run from an empty board in practice: over 1000-turn runs of
 * seeds 1..100 greedy averages 67,450 points, lookahead 132,739, planner
 * 136,402 (+2.8%) and chainer 138,265 (+4.2%; docs/BOTS.md, "The Reef
 * bots"), and no run ended. Drivers therefore cap the turns. The planner
 * takes about 2.4 ms of CPU an action on average and 10.5 ms at most there,
 * the chainer 0.5 ms and 5.7 ms, lookahead 0.4 ms and 6.1 ms. */
#ifndef TESSERA_REEF_BOT_H
#define TESSERA_REEF_BOT_H

#include "engine/reef.h"

typedef enum reef_bot_kind {
    REEF_BOT_GREEDY = 0,
    REEF_BOT_LOOKAHEAD = 1,
    REEF_BOT_PLANNER = 2,
    REEF_BOT_CHAINER = 3
} reef_bot_kind;

/* The kind named `name` ("greedy", "lookahead", "planner" or "chainer"): 0 and *kind
 * set, or ENGINE_E_BAD_ARGUMENT. */
int reef_bot_parse(const char *name, reef_bot_kind *kind);

/* The name of `kind`, a static string; "unknown" for an invalid kind. */
const char *reef_bot_name(reef_bot_kind kind);

/* Chooses a legal action for `state` into *action. Returns 0,
 * ENGINE_E_GAME_OVER if the run has ended, or ENGINE_E_BAD_ARGUMENT. */
int reef_bot_choose(reef_bot_kind kind, const reef_state *state, reef_action *action);

/* The board-health heuristic described above, with greedy's and lookahead's
 * weights, in points (higher is better). */
int reef_bot_health(const reef_state *state);

#endif
