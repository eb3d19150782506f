/* blokus_bot.c -- bot kinds, the random and greedy bots, and the heuristic.
 *
 * The heuristic scores one move for the color to move, in points, from the
 * rows the piece touches only (one above it to one below it), so scoring
 * every legal move of a position costs about as much as generating them:
 *
 *   +8 per square of the piece: a square placed is a point, and large pieces
 *      only get harder to fit as the board fills, so they go first;
 *   +2 per attach (corner) cell the color gains, net of the ones the piece
 *      covers or cuts off: room for the color's later pieces;
 *   +3 per cell of the piece that is an attach cell of an opponent's color,
 *      -3 per one of a color of the mover's own (2p's partner color): taking
 *      a cell an opponent needs is a move it loses;
 *   during a color's first four pieces, +2 per step the piece's cell nearest
 *      the board centre is closer to it: the centre is where the colors
 *      meet, and who gets there first owns the space behind.
 * The weights were set by hand and checked by selfplay (greedy against
 * random, and as MCTS's move ordering). The mover is the player moving, so
 * in 3p the shared color blocks the mover's opponents and spares the mover. */
#include "engine/blokus_bot.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "engine/bits.h"
#include "engine/rng.h"

#define WEIGHT_SIZE   8
#define WEIGHT_ATTACH 2
#define WEIGHT_BLOCK  3
#define WEIGHT_CENTRE 2
/* The centre term applies while the color has placed fewer pieces. */
#define OPENING_PIECES 4

static const char *const BOT_NAMES[] = {"random", "greedy", "mcts", "mcts-v2"};

#define BOT_KIND_COUNT ((int)(sizeof(BOT_NAMES) / sizeof(BOT_NAMES[0])))

int blokus_bot_parse(const char *name, blokus_bot_kind *kind)
{
    for (int i = 0; i < BOT_KIND_COUNT; i++) {
        if (strcmp(name, BOT_NAMES[i]) == 0) {
            *kind = (blokus_bot_kind)i;
            return 0;
        }
    }
    return ENGINE_E_BAD_ARGUMENT;
}

/* "mcts-v1" is selfplay's name for the lobby's "mcts". */
int blokus_bot_parse_level(const char *name, blokus_bot_kind *kind)
{
    if (strcmp(name, "mcts-v1") == 0) {
        *kind = BLOKUS_BOT_MCTS;
        return 0;
    }
    return blokus_bot_parse(name, kind);
}

const char *blokus_bot_name(blokus_bot_kind kind)
{
    if ((int)kind < 0 || (int)kind >= BOT_KIND_COUNT)
        return "unknown";
    return BOT_NAMES[kind];
}

/* What scoring one move needs of the position, gathered once per list:
 * the attach cells of the mover's opponents' colors and of its own other
 * colors, per row. */
struct scoring_context {
    uint32_t opponent_attach[BLOKUS_PADDED_ROWS];
    uint32_t partner_attach[BLOKUS_PADDED_ROWS];
    bool is_opening;
};

static void scoring_context_init(const blokus_state *state, struct scoring_context *context)
{
    int mover = blokus_player_to_move(state);
    memset(context, 0, sizeof(*context));
    for (int other = 0; other < state->color_count; other++) {
        int owner = blokus_color_owner(state, other);
        if (other == state->to_move || owner < 0)
            continue;
        uint32_t *rows = owner == mover ? context->partner_attach : context->opponent_attach;
        for (int row = 0; row < state->size; row++)
            rows[row] |= state->attach[other][row];
    }
    int placed = BLOKUS_PIECE_COUNT - bits_count(state->pieces_left[state->to_move]);
    context->is_opening = placed < OPENING_PIECES;
}

static int score_move(const blokus_state *state, const struct scoring_context *context,
                      blokus_move move)
{
    int color = state->to_move;
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    blokus_footprint footprint;
    blokus_move_footprint(state, move, &footprint);
    int attach_gain = 0, blocked = 0;
    for (int i = 0; i < footprint.count; i++) {
        int row = footprint.first_row + i;
        uint32_t free_after = state->free[color][row] & ~footprint.cells[i] & ~footprint.edges[i];
        uint32_t attach_after = (state->attach[color][row] | footprint.corners[i]) & free_after;
        attach_gain += bits_count(attach_after) - bits_count(state->attach[color][row]);
        blocked += bits_count(context->opponent_attach[row] & footprint.cells[i]) -
                   bits_count(context->partner_attach[row] & footprint.cells[i]);
    }
    int score =
        WEIGHT_SIZE * orientation->size + WEIGHT_ATTACH * attach_gain + WEIGHT_BLOCK * blocked;
    if (context->is_opening)
        score += WEIGHT_CENTRE * blokus_centre_closeness(state, move);
    return score;
}

void blokus_bot_score_moves(const blokus_state *state, const blokus_move *moves, int count,
                            int *scores)
{
    struct scoring_context context;
    scoring_context_init(state, &context);
    for (int i = 0; i < count; i++)
        scores[i] = score_move(state, &context, moves[i]);
}

/* The best-scoring move; among `ties` equal scores each is kept with
 * probability 1/ties as it is met, which draws uniformly among them. */
static blokus_move greedy_pick(const blokus_move *moves, const int *scores, int count,
                               rng *generator)
{
    int best = 0, ties = 1;
    for (int i = 1; i < count; i++) {
        if (scores[i] < scores[best])
            continue;
        ties = scores[i] > scores[best] ? 1 : ties + 1;
        if (ties == 1 || rng_below(generator, (uint32_t)ties) == 0)
            best = i;
    }
    return moves[best];
}

static int choose_simple(blokus_bot_kind kind, const blokus_state *state, uint64_t seed,
                         blokus_move *out)
{
    blokus_move *moves = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES);
    int *scores = kind == BLOKUS_BOT_GREEDY ? malloc(sizeof(int) * BLOKUS_MAX_MOVES) : NULL;
    int rc = ENGINE_E_NO_MEMORY;
    if (!moves || (kind == BLOKUS_BOT_GREEDY && !scores))
        goto out;
    int count = blokus_generate(state, moves);
    rng generator = rng_seeded(seed);
    if (kind == BLOKUS_BOT_RANDOM) {
        *out = moves[rng_below(&generator, (uint32_t)count)];
    } else {
        blokus_bot_score_moves(state, moves, count, scores);
        *out = greedy_pick(moves, scores, count, &generator);
    }
    rc = 0;
out:
    free(moves);
    free(scores);
    return rc;
}

int blokus_bot_choose(blokus_bot_kind kind, const blokus_state *state,
                      const blokus_bot_budget *budget, uint64_t seed, blokus_move *out)
{
    if (state->is_over)
        return ENGINE_E_GAME_OVER;
    switch (kind) {
    case BLOKUS_BOT_RANDOM:
    case BLOKUS_BOT_GREEDY:
        return choose_simple(kind, state, seed, out);
    case BLOKUS_BOT_MCTS:
    case BLOKUS_BOT_MCTS2:
        return blokus_bot_search(kind, state, budget, seed, out, NULL);
    }
    return ENGINE_E_BAD_ARGUMENT;
}
