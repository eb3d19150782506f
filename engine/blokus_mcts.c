/* blokus_mcts.c -- Monte Carlo tree search for the color to move.
 *
 * The tree: UCT (UCB1) over a few candidates per node. Blokus has hundreds
 * of legal moves per turn and a search gets a few thousand playouts, so a
 * node keeps only its best candidates by blokus_bot_score_moves() (the
 * greedy bot's score), sorted best first, and progressive widening lets a node
 * choose among the first 2 + sqrt(visits) of them only: the search first
 * compares the moves the heuristic likes, and reaches further down the list
 * only where a node is visited enough to tell them apart. Ties in the
 * heuristic are ordered by the seed. A leaf is expanded on its second
 * visit, so scoring the moves of positions seen once is not paid for.
 *
 * Results are per player: a playout ends in a vector of one result per
 * player, and every node adds the entry of the player who chose the move
 * leading to it. So 2p (two colors per player) and 3p (color 3 played in
 * turn, scoring for nobody) need no special case: blokus_player_to_move()
 * and blokus_scores() already know who moves and who scores. A result is
 * 1 for a win (shared equally by tied winners) and 0 for a loss, blended
 * with a small bonus for the score margin over the best other player, so
 * playouts that are all won or all lost still prefer the bigger margin.
 *
 * Playouts must be fast (tens of thousands per second), so they do not
 * generate the move list: the playout policy draws a random attach cell, a
 * random remaining piece of the largest size still available, a random
 * orientation and a random cell of it to put on the attach cell, and checks
 * that the placement fits (a few row tests; covering an attach cell with
 * free cells only is exactly legality). After a few failed draws it tries
 * the next smaller size, and when every size fails it generates the full
 * list and plays a random move of the largest piece size in it. Large pieces
 * first is the single strongest rule of thumb of Blokus; it keeps playouts
 * close to how a reasonable player ends the game.
 *
 * Memory: one node arena per search, grown by doubling (children of a node
 * are contiguous), capped at MAX_NODES; past the cap the tree stops growing
 * and the search goes on with playouts from its leaves.
 *
 * The second version. The search above is kept fixed as the reference
 * level mcts-v1 (the lobby's "mcts"); mcts-v2 changes these things, after
 * what Pentobi's public design does, each switched by `struct version`:
 *   - priors instead of progressive widening: a node keeps up to 64 (root)
 *     or 24 candidates, best first by the learned prior of
 *     engine/blokus_prior.h (a softmax over move features, fitted to the
 *     choices of long searches), and chooses by PUCT. (Keeping
 *     400 and 64 spread the few thousand playouts of an opening move over
 *     too many moves: at equal time it lost to v1; see docs/BOTS.md.)
 *     Expansion waits for a leaf's fourth visit and sorts the kept
 *     candidates only, since scoring every legal move costs dozens of
 *     playouts;
 *   - RAVE: every node also counts, per child, the simulations in which
 *     the child's color played the child's move later on (all-moves-as-
 *     first), and blends that mean into the child's value while the child
 *     has few visits of its own;
 *   - playouts that answer: a move first plays the color's last good
 *     reply to the move before it when that is legal (engine/blokus_reply.h:
 *     the replies of simulations won are kept, those of simulations lost
 *     forgotten); otherwise half of the moves first try the attach cells
 *     within REPLY_REACH of the last opponent move, so playouts block and
 *     contest instead of growing in empty space;
 *   - an early stop once the most visited root move leads the next by more
 *     visits than the budget has left: the choice can no longer change;
 *   - playouts of a two-player game that stop once it is decided: a player
 *     who cannot move again is behind, and the other can only gain (Duo
 *     playouts make 10% fewer moves, and take 11% less time);
 *   - an opening book for Duo's first two moves (engine/blokus_book.h),
 *     played without a search: at 300 ms the first move got too few
 *     playouts to choose well.
 * Not done yet (issue 19): subtree reuse between moves (the lobby's bot
 * jobs keep nothing between moves), weights for new attach cells in
 * playouts that cost less speed than they gain, symmetry in Duo's search
 * (only the book uses the board's mirror image). Tried and not kept
 * (docs/BOTS.md section 13): a larger score bonus, playouts keeping the
 * best of several placements by attach cells gained, answering every
 * opponent's last move in 4p, a RAVE bias of 0.01 or 0.2, and a prior
 * term for the cells of the opponent's last move. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/blokus_bot.h"
#include "engine/bits.h"
#include "engine/blokus_book.h"
#include "engine/blokus_prior.h"
#include "engine/blokus_reply.h"
#include "engine/rng.h"

/* Candidates kept per node: the root compares more moves; replies deeper
 * in the tree only need to be plausible. */
#define ROOT_CANDIDATES 48
#define NODE_CANDIDATES 16
/* Progressive widening: a node visited n times chooses among its first
 * WIDENING_BASE + WIDENING_FACTOR * sqrt(n) candidates. */
#define WIDENING_BASE   2
#define WIDENING_FACTOR 1.0
/* UCB1's exploration constant, for results in [0, 1]. */
#define EXPLORATION 0.6
/* A leaf is expanded on this visit (the first ones only play out). */
#define EXPAND_VISITS 2
/* Share of a result given by the score margin, and the margin in points
 * that earns all of it. */
#define MARGIN_WEIGHT 0.1
#define MARGIN_SCALE  20.0
/* Placement draws per piece size before the playout tries smaller pieces. */
#define ATTEMPTS_PER_SIZE 8
/* The node arena starts at INITIAL_NODES and doubles up to MAX_NODES
 * (2M nodes of 20 bytes: 40 MB, reached after some 300,000 playouts). */
#define INITIAL_NODES 4096
#define MAX_NODES     (1u << 21)
/* A game has at most 4 x 21 placements, so a path is never longer. */
#define MAX_DEPTH (BLOKUS_COLORS * BLOKUS_PIECE_COUNT + 2)

/* mcts-v2 (see "The second version" above). Candidates kept per node,
 * ordered by prior; wider than v1's, all of them open to the search. */
#define V2_ROOT_CANDIDATES 64
#define V2_NODE_CANDIDATES 24
/* v2 expands a leaf on this visit. */
#define V2_EXPAND_VISITS 4
/* PUCT's weight of the prior term, for results in [0, 1]. */
#define PUCT_WEIGHT 1.0
/* RAVE's bias: the AMAF mean weighs beta = a / (a + n + RAVE_BIAS * n * a)
 * for a AMAF samples and n real visits (Silver's schedule). */
#define RAVE_BIAS 0.04
/* A playout answers the previous opponent move with this probability: it
 * tries attach cells within REPLY_REACH cells of that move first. */
#define REPLY_PERCENT 50
#define REPLY_REACH   2
/* The search stops early, checked every EARLY_STOP_PERIOD iterations,
 * once the most visited root move leads the next by more visits than the
 * budget has left. */
#define EARLY_STOP_PERIOD 64

/* What distinguishes the versions; v1 is fixed as the reference level. */
struct version {
    int root_candidates;
    int node_candidates;
    uint32_t expand_visits; /* a leaf is expanded on this visit */
    bool is_v2;             /* priors, RAVE, reply playouts, early stop */
};

static const struct version MCTS_V1 = {ROOT_CANDIDATES, NODE_CANDIDATES, EXPAND_VISITS, false};
static const struct version MCTS_V2 = {V2_ROOT_CANDIDATES, V2_NODE_CANDIDATES, V2_EXPAND_VISITS,
                                       true};

struct node {
    blokus_move move;     /* the move leading here (unused at the root) */
    uint32_t first_child; /* index of the first child; children are contiguous */
    uint32_t visits;
    float value;          /* sum of the results of `player` */
    uint16_t child_count; /* 0 until expanded (and for final positions) */
    int8_t player;        /* the player who chose `move` */
};

/* v2's statistics of a node, in an array parallel to the nodes. */
struct node_stats {
    float prior;          /* share of the parent's prior mass */
    float amaf_value;     /* sum of results of `player` in simulations where the
                             node's color played the node's move later on */
    uint32_t amaf_visits; /* such simulations */
    uint8_t color;        /* the color that plays `move` */
};

/* A move with its ranking key: its score (v1: the heuristic's, v2: the
 * learned prior's), then a random tie-break. */
struct candidate {
    blokus_move move;
    int64_t key;
};

struct search {
    blokus_state root;
    const struct version *version;
    struct node *nodes;
    struct node_stats *stats; /* v2: one per node; NULL for v1 */
    uint32_t *marks;          /* v2: per color and move key, the simulation that played it */
    uint32_t simulation;      /* v2: the current simulation's mark */
    struct candidate *ranked; /* v2: BLOKUS_MAX_MOVES, for expansion */
    uint32_t node_count;
    uint32_t node_capacity;
    blokus_move *moves; /* BLOKUS_MAX_MOVES, for expansion and the playout fallback */
    int *scores;        /* BLOKUS_MAX_MOVES move scores, for expansion */
    uint32_t size_masks[BLOKUS_MAX_PIECE_SIZE + 1]; /* pieces of each size */
    blokus_reply_table *replies;                    /* v2: last good replies; NULL for v1 */
    /* v2: the current simulation's moves (tree, then playout) and the
     * player making each, for the reply table. */
    blokus_move played[MAX_DEPTH];
    uint8_t played_colors[MAX_DEPTH];
    int8_t played_by[MAX_DEPTH];
    int played_count;
    int players;
    rng random;
};

/* A number in [0, n) from the high bits of one draw (Lemire's multiply-
 * shift, cheaper than a division in the playout loop). */
static inline uint32_t draw_below(rng *generator, uint32_t n)
{
    return (uint32_t)(((rng_next(generator) >> 32) * n) >> 32);
}

/* Index of the n-th (0-based) set bit of `bits`. */
static int nth_bit(uint32_t bits, uint32_t n)
{
    while (n--)
        bits &= bits - 1;
    return __builtin_ctz(bits);
}

static double now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* --- playouts ----------------------------------------------------------- */

/* Whether `orientation` with origin (row, col) covers free cells only. */
static bool fits(const uint32_t *free_rows, const struct blokus_orientation *orientation, int row,
                 int col)
{
    if (row < 0 || col < 0)
        return false;
    for (int i = 0; i < orientation->height; i++) {
        uint32_t mask = orientation->row_masks[i];
        if (((free_rows[row + i] >> col) & mask) != mask)
            return false;
    }
    return true;
}

/* Lists the attach cells of `color` as row * 32 + col; returns their number. */
static int attach_cells(const blokus_state *state, int color, uint16_t *cells)
{
    int count = 0;
    for (int row = 0; row < state->size; row++) {
        for (uint32_t bits = state->attach[color][row]; bits; bits &= bits - 1)
            cells[count++] = (uint16_t)(row * 32 + __builtin_ctz(bits));
    }
    return count;
}

/* A number in [0, n) from the low 16 bits of *bits, which are consumed:
 * one 64-bit draw makes the four choices of a placement attempt. n is at
 * most 400, so the bias of 16 bits is irrelevant to a playout policy. */
static inline uint32_t slice_below(uint64_t *bits, uint32_t n)
{
    uint32_t value = (uint32_t)(((*bits & 0xFFFFu) * n) >> 16);
    *bits >>= 16;
    return value;
}

/* One random draw of a placement of one of the `piece_count` pieces of
 * `pieces` through one of the attach cells; true and *out when it fits. */
static bool draw_placement(const blokus_state *state, uint64_t bits, uint32_t pieces,
                           int piece_count, const uint16_t *cells, int cell_count, blokus_move *out)
{
    const struct blokus_piece *piece =
        &BLOKUS_PIECES[nth_bit(pieces, slice_below(&bits, (uint32_t)piece_count))];
    int id = piece->first_orientation + (int)slice_below(&bits, piece->orientation_count);
    const struct blokus_orientation *orientation = &BLOKUS_ORIENTATIONS[id];
    int anchor = (int)slice_below(&bits, orientation->size);
    int cell = cells[slice_below(&bits, (uint32_t)cell_count)];
    int row = cell / 32 - orientation->cells[anchor][0],
        col = cell % 32 - orientation->cells[anchor][1];
    if (!fits(state->free[state->to_move], orientation, row, col))
        return false;
    out->piece = orientation->piece;
    out->orientation = orientation->index;
    out->row = (int8_t)row;
    out->col = (int8_t)col;
    return true;
}

/* The fallback: a uniform move among the generated moves of the largest
 * piece size, gathered at the front of the list in one pass. */
static blokus_move largest_generated(const blokus_state *state, rng *generator, blokus_move *moves)
{
    int count = blokus_generate(state, moves), largest = 0, matching = 0;
    for (int i = 0; i < count; i++) {
        int size = BLOKUS_PIECES[moves[i].piece].size;
        if (size > largest) {
            largest = size;
            matching = 0;
        }
        if (size == largest)
            moves[matching++] = moves[i];
    }
    return moves[draw_below(generator, (uint32_t)matching)];
}

/* The largest-pieces-first draws of the playout policy through `cells`:
 * true and *out at the first placement that fits. */
static bool draw_largest(const struct search *search, const blokus_state *state, rng *generator,
                         const uint16_t *cells, int cell_count, blokus_move *out)
{
    uint32_t left = state->pieces_left[state->to_move];
    for (int size = BLOKUS_MAX_PIECE_SIZE; size >= 1; size--) {
        uint32_t pieces = left & search->size_masks[size];
        if (!pieces)
            continue;
        int piece_count = bits_count(pieces);
        for (int attempt = 0; attempt < ATTEMPTS_PER_SIZE; attempt++)
            if (draw_placement(state, rng_next(generator), pieces, piece_count, cells, cell_count,
                               out))
                return true;
    }
    return false;
}

/* The cells of `cells` within REPLY_REACH rows and columns of `move`'s
 * bounding box, into `near`; returns how many. */
static int cells_near(const uint16_t *cells, int cell_count, blokus_move move, uint16_t *near)
{
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    int top = move.row - REPLY_REACH, bottom = move.row + orientation->height - 1 + REPLY_REACH;
    int left = move.col - REPLY_REACH, right = move.col + orientation->width - 1 + REPLY_REACH;
    int count = 0;
    for (int i = 0; i < cell_count; i++) {
        int row = cells[i] / 32, col = cells[i] % 32;
        if (row >= top && row <= bottom && col >= left && col <= right)
            near[count++] = cells[i];
    }
    return count;
}

/* Whether `move` is legal for the color to move: its piece is left, it
 * covers free cells only, one of them an attach cell. */
static bool is_playable(const blokus_state *state, blokus_move move)
{
    int color = state->to_move;
    if (!((state->pieces_left[color] >> move.piece) & 1u))
        return false;
    const struct blokus_orientation *orientation =
        &BLOKUS_ORIENTATIONS[blokus_orientation_id(move)];
    if (!fits(state->free[color], orientation, move.row, move.col))
        return false;
    for (int i = 0; i < orientation->height; i++)
        if ((state->attach[color][move.row + i] >> move.col) & orientation->row_masks[i])
            return true;
    return false;
}

/* The playout policy described at the top of the file; v2 first plays
 * its last good reply to `previous` when legal, then answers `reply_to`,
 * the last opponent move (NULL: none, or v1). */
static blokus_move playout_move(const struct search *search, const blokus_state *state,
                                rng *generator, blokus_move previous, const blokus_move *reply_to)
{
    blokus_move chosen;
    if (search->replies && blokus_reply_find(search->replies, state->to_move, previous, &chosen) &&
        is_playable(state, chosen))
        return chosen;
    uint16_t cells[BLOKUS_CLASSIC_SIZE * BLOKUS_CLASSIC_SIZE];
    int cell_count = attach_cells(state, state->to_move, cells);
    if (reply_to && draw_below(generator, 100) < REPLY_PERCENT) {
        uint16_t near[BLOKUS_CLASSIC_SIZE * BLOKUS_CLASSIC_SIZE];
        int near_count = cells_near(cells, cell_count, *reply_to, near);
        if (near_count && draw_largest(search, state, generator, near, near_count, &chosen))
            return chosen;
    }
    if (draw_largest(search, state, generator, cells, cell_count, &chosen))
        return chosen;
    return largest_generated(state, generator, search->moves);
}

/* The result for each player, in [0, 1], of a finished game (or of one
 * decided, by the scores so far). */
static void game_result(const blokus_state *state, int players, float result[BLOKUS_MAX_PLAYERS])
{
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(state, scores);
    unsigned winners = blokus_winners(state);
    for (int p = 0; p < players; p++) {
        int best_other = -1000;
        for (int q = 0; q < players; q++)
            if (q != p && scores[q] > best_other)
                best_other = scores[q];
        double share = (winners >> p) & 1u ? 1.0 / bits_count(winners) : 0.0;
        double margin = (scores[p] - best_other) / MARGIN_SCALE;
        margin = margin > 1.0 ? 1.0 : margin < -1.0 ? -1.0 : margin;
        result[p] = (float)((1.0 - MARGIN_WEIGHT) * share + MARGIN_WEIGHT * 0.5 * (1.0 + margin));
    }
}

/* v2: notes that `color` played `move` in the current simulation. */
static void mark_move(struct search *search, int color, blokus_move move)
{
    search->marks[color * BLOKUS_MOVE_KEYS + blokus_move_key(move)] = search->simulation;
}

static bool is_marked(const struct search *search, int color, blokus_move move)
{
    return search->marks[color * BLOKUS_MOVE_KEYS + blokus_move_key(move)] == search->simulation;
}

/* v2: notes the current simulation's next move, for the reply table. */
static void note_played(struct search *search, blokus_move move, int player, int color)
{
    if (!search->replies || search->played_count == MAX_DEPTH)
        return;
    search->played[search->played_count] = move;
    search->played_colors[search->played_count] = (uint8_t)color;
    search->played_by[search->played_count++] = (int8_t)player;
}

/* v2: teaches the reply table the finished (or decided) simulation
 * `final`. */
static void learn_replies(struct search *search, const blokus_state *final)
{
    if (!search->replies)
        return;
    unsigned winners = blokus_winners(final);
    bool is_win[MAX_DEPTH];
    for (int i = 0; i < search->played_count; i++)
        is_win[i] = (winners >> search->played_by[i]) & 1u;
    blokus_reply_learn(search->replies, search->played, search->played_colors, is_win,
                       search->played_count);
}

/* v2: whether a two-player game is decided before its end: one player
 * can no longer move (all its colors are out) and is behind, and the other
 * can only add to its score. The result is then the winner's; the margin
 * is the one so far, a lower bound of the final one. */
static bool is_decided(const blokus_state *state, int players)
{
    if (players != 2)
        return false;
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(state, scores);
    bool is_out[2] = {true, true};
    for (int color = 0; color < state->color_count; color++) {
        int owner = blokus_color_owner(state, color);
        if (owner >= 0 && !((state->out_mask >> color) & 1u))
            is_out[owner] = false;
    }
    return (is_out[0] && scores[0] < scores[1]) || (is_out[1] && scores[1] < scores[0]);
}

/* Plays `state` out. `last` is the move that led to it and `last_player`
 * the player who made it (-1: none), for v2's replies. v2 stops as soon as
 * the game is decided (checked when a color goes out): the moves a lone
 * winner goes on to place would change nothing but the margin. */
static void playout(struct search *search, blokus_state *state, blokus_move last, int last_player,
                    float result[BLOKUS_MAX_PLAYERS])
{
    uint8_t out = 0; /* the colors out when last checked */
    while (!state->is_over) {
        if (search->version->is_v2 && state->out_mask != out) {
            out = state->out_mask;
            if (is_decided(state, search->players))
                break;
        }
        int color = state->to_move, player = blokus_player_to_move(state);
        bool is_reply = search->version->is_v2 && last_player >= 0 && last_player != player &&
                        last.piece != BLOKUS_PASS;
        blokus_move move =
            playout_move(search, state, &search->random, last, is_reply ? &last : NULL);
        if (search->marks)
            mark_move(search, color, move);
        note_played(search, move, player, color);
        blokus_apply(state, move);
        last = move;
        last_player = player;
    }
    game_result(state, search->players, result);
}

/* --- the tree ----------------------------------------------------------- */

/* Inserts `candidate` into the sorted (best first) `best` array of at most
 * `limit` entries holding `count`; returns the new count. */
static int keep_best(struct candidate *best, int count, int limit, struct candidate candidate)
{
    if (count == limit && candidate.key <= best[count - 1].key)
        return count;
    int i = count < limit ? count++ : count - 1;
    for (; i > 0 && best[i - 1].key < candidate.key; i--)
        best[i] = best[i - 1];
    best[i] = candidate;
    return count;
}

/* Makes room for `extra` more nodes (and their v2 statistics); -1 when the
 * arena cannot grow. */
static int reserve_nodes(struct search *search, uint32_t extra)
{
    if (search->node_count + extra <= search->node_capacity)
        return 0;
    uint32_t capacity = search->node_capacity * 2;
    while (capacity < search->node_count + extra)
        capacity *= 2;
    if (capacity > MAX_NODES)
        return -1;
    struct node *nodes = realloc(search->nodes, sizeof(struct node) * capacity);
    if (!nodes)
        return -1;
    search->nodes = nodes;
    if (search->stats) {
        struct node_stats *stats = realloc(search->stats, sizeof(struct node_stats) * capacity);
        if (!stats)
            return -1;
        search->stats = stats;
    }
    search->node_capacity = capacity;
    return 0;
}

/* The ranking key of move i: its score, then a random tie-break. */
static struct candidate rank_move(struct search *search, int i)
{
    int64_t tie_break = draw_below(&search->random, 1u << 20);
    struct candidate candidate = {search->moves[i],
                                  (int64_t)search->scores[i] * (1 << 20) + tie_break};
    return candidate;
}

/* Moves the `limit` best of `count` candidates to the front (in no order),
 * by quickselect: expansion then sorts those only, not the whole list. */
static void select_best(struct search *search, struct candidate *items, int count, int limit)
{
    int low = 0, high = count - 1;
    while (low < high) {
        int64_t pivot =
            items[low + (int)draw_below(&search->random, (uint32_t)(high - low + 1))].key;
        int i = low, j = high;
        while (i <= j) {
            while (items[i].key > pivot)
                i++;
            while (items[j].key < pivot)
                j--;
            if (i <= j) {
                struct candidate swap = items[i];
                items[i++] = items[j];
                items[j--] = swap;
            }
        }
        if (limit - 1 <= j)
            high = j;
        else if (limit - 1 >= i)
            low = i;
        else
            return;
    }
}

static int compare_candidates(const void *a, const void *b)
{
    int64_t x = ((const struct candidate *)a)->key, y = ((const struct candidate *)b)->key;
    return (x < y) - (x > y); /* best first */
}

/* v2: the priors of `count` ranked candidates, from their scores. */
static void set_priors(struct search *search, uint32_t first, const struct candidate *ranked,
                       int count, int color)
{
    double best = (double)(ranked[0].key >> 20), total = 0.0;
    for (int i = 0; i < count; i++) {
        double weight = exp(((double)(ranked[i].key >> 20) - best) / BLOKUS_PRIOR_UNIT);
        search->stats[first + (uint32_t)i] =
            (struct node_stats){(float)weight, 0.0f, 0, (uint8_t)color};
        total += weight;
    }
    for (int i = 0; i < count; i++)
        search->stats[first + (uint32_t)i].prior =
            (float)(search->stats[first + (uint32_t)i].prior / total);
}

/* Gives node `index` (position `state`, not final) its best candidates as
 * children, best first. Returns 0, or -1 when the arena is full. */
static int expand(struct search *search, uint32_t index, const blokus_state *state, int limit)
{
    struct candidate best[ROOT_CANDIDATES];
    struct candidate *kept_moves = best;
    if (reserve_nodes(search, (uint32_t)limit) != 0)
        return -1;
    int count = blokus_generate(state, search->moves), kept = 0;
    if (search->version->is_v2) {
        blokus_prior_score_moves(state, NULL, search->moves, count, search->scores);
        for (int i = 0; i < count; i++)
            search->ranked[i] = rank_move(search, i);
        kept = count < limit ? count : limit;
        select_best(search, search->ranked, count, kept);
        qsort(search->ranked, (size_t)kept, sizeof(struct candidate), compare_candidates);
        kept_moves = search->ranked;
    } else {
        blokus_bot_score_moves(state, search->moves, count, search->scores);
        for (int i = 0; i < count; i++)
            kept = keep_best(best, kept, limit, rank_move(search, i));
    }
    int8_t player = (int8_t)blokus_player_to_move(state);
    struct node *parent = &search->nodes[index];
    parent->first_child = search->node_count;
    parent->child_count = (uint16_t)kept;
    if (search->stats)
        set_priors(search, search->node_count, kept_moves, kept, state->to_move);
    for (int i = 0; i < kept; i++) {
        struct node child = {kept_moves[i].move, 0, 0, 0.0f, 0, player};
        search->nodes[search->node_count++] = child;
    }
    return 0;
}

/* UCB1 among the children progressive widening allows; an unvisited one
 * is taken first, in heuristic order. */
static uint32_t select_child(const struct search *search, const struct node *parent)
{
    int allowed = WIDENING_BASE + (int)(WIDENING_FACTOR * sqrt((double)parent->visits));
    if (allowed > parent->child_count)
        allowed = parent->child_count;
    double log_visits = log((double)parent->visits + 1.0);
    uint32_t best = parent->first_child;
    double best_value = -1.0;
    for (int i = 0; i < allowed; i++) {
        uint32_t index = parent->first_child + (uint32_t)i;
        const struct node *child = &search->nodes[index];
        if (child->visits == 0)
            return index;
        double value =
            child->value / child->visits + EXPLORATION * sqrt(log_visits / child->visits);
        if (value > best_value) {
            best_value = value;
            best = index;
        }
    }
    return best;
}

/* v2's value of a child with visits or AMAF samples: its mean blended
 * with its AMAF mean by RAVE. */
static double child_value(const struct node *child, const struct node_stats *stats)
{
    double visits = child->visits, amaf = stats->amaf_visits;
    if (amaf == 0.0)
        return child->value / visits;
    double amaf_mean = stats->amaf_value / amaf;
    if (visits == 0.0)
        return amaf_mean;
    double beta = amaf / (amaf + visits + RAVE_BIAS * visits * amaf);
    return (1.0 - beta) * (child->value / visits) + beta * amaf_mean;
}

/* v2: PUCT over all children, the prior weighing less as a child is
 * visited, on RAVE-blended values. A child with neither visits nor AMAF
 * samples is worth the first-play value, its visited siblings' mean
 * (which a penalty of 0.05 below it did worse than: docs/BOTS.md), known
 * only once every sibling is seen; children are ordered by prior, so only
 * the first such child can be the best of them, and it is judged after
 * the pass. */
static uint32_t select_child_v2(const struct search *search, const struct node *parent)
{
    double visited_value = 0.0, visited = 0.0;
    double exploration = PUCT_WEIGHT * sqrt((double)parent->visits + 1.0);
    uint32_t best = parent->first_child, fresh = UINT32_MAX;
    double best_value = -1e9;
    for (uint32_t i = 0; i < parent->child_count; i++) {
        uint32_t index = parent->first_child + i;
        const struct node *child = &search->nodes[index];
        const struct node_stats *stats = &search->stats[index];
        visited_value += child->value;
        visited += child->visits;
        if (child->visits == 0 && stats->amaf_visits == 0) {
            if (fresh == UINT32_MAX)
                fresh = index;
            continue;
        }
        double value =
            child_value(child, stats) + exploration * stats->prior / (1.0 + child->visits);
        if (value > best_value) {
            best_value = value;
            best = index;
        }
    }
    if (fresh != UINT32_MAX) {
        double first_play = visited > 0.0 ? visited_value / visited : 0.5;
        if (first_play + exploration * search->stats[fresh].prior > best_value)
            best = fresh;
    }
    return best;
}

/* v2: AMAF. Going up the path, each node's children whose move their color
 * played later in the simulation (in the tree below or in the playout)
 * count the result as if played now. */
static void update_amaf(struct search *search, const uint32_t *path, const uint8_t *colors,
                        int depth, const float result[BLOKUS_MAX_PLAYERS])
{
    for (int i = depth - 2; i >= 0; i--) {
        mark_move(search, colors[i], search->nodes[path[i + 1]].move);
        const struct node *node = &search->nodes[path[i]];
        for (uint32_t k = 0; k < node->child_count; k++) {
            uint32_t index = node->first_child + k;
            const struct node *child = &search->nodes[index];
            if (!is_marked(search, colors[i], child->move))
                continue;
            search->stats[index].amaf_visits++;
            search->stats[index].amaf_value += result[child->player];
        }
    }
}

/* One iteration: descend to a leaf (expanding it when due), play out, and
 * add the result to every node of the path. */
static void iterate(struct search *search)
{
    blokus_state state = search->root;
    uint32_t path[MAX_DEPTH];
    uint8_t colors[MAX_DEPTH]; /* colors[i]: the color choosing among path[i]'s children */
    int depth = 0, last_player = -1;
    uint32_t index = 0;
    blokus_move last = {BLOKUS_PASS, 0, 0, 0};
    path[depth++] = index;
    search->simulation++;
    search->played_count = 0;
    while (!state.is_over) {
        struct node *node = &search->nodes[index];
        bool is_due = node->visits + 1 >= search->version->expand_visits;
        if (node->child_count == 0 &&
            (!is_due || expand(search, index, &state, search->version->node_candidates) != 0))
            break;
        index = search->version->is_v2 ? select_child_v2(search, &search->nodes[index])
                                       : select_child(search, &search->nodes[index]);
        colors[depth - 1] = state.to_move;
        last = search->nodes[index].move;
        last_player = blokus_player_to_move(&state);
        note_played(search, last, last_player, state.to_move);
        blokus_apply(&state, last);
        path[depth++] = index;
    }
    float result[BLOKUS_MAX_PLAYERS];
    playout(search, &state, last, last_player, result);
    learn_replies(search, &state);
    search->nodes[0].visits++;
    for (int i = 1; i < depth; i++) {
        struct node *node = &search->nodes[path[i]];
        node->visits++;
        node->value += result[node->player];
    }
    if (search->stats)
        update_amaf(search, path, colors, depth, result);
}

/* The most visited root child (the most robust choice), then the best mean. */
static blokus_move best_root_move(const struct search *search)
{
    const struct node *root = &search->nodes[0];
    const struct node *best = &search->nodes[root->first_child];
    for (uint32_t i = 1; i < root->child_count; i++) {
        const struct node *child = &search->nodes[root->first_child + i];
        bool is_more_visited = child->visits > best->visits;
        bool is_better_tie =
            child->visits == best->visits &&
            child->value * (float)best->visits > best->value * (float)child->visits;
        if (is_more_visited || is_better_tie)
            best = child;
    }
    return best->move;
}

static int search_init(struct search *search, const blokus_state *state, uint64_t seed,
                       const struct version *version)
{
    memset(search, 0, sizeof(*search));
    search->root = *state;
    search->version = version;
    search->players = blokus_player_count((blokus_mode)state->mode);
    search->random = rng_seeded(seed);
    for (int p = 0; p < BLOKUS_PIECE_COUNT; p++)
        search->size_masks[BLOKUS_PIECES[p].size] |= 1u << p;
    search->moves = malloc(sizeof(blokus_move) * BLOKUS_MAX_MOVES);
    search->scores = malloc(sizeof(int) * BLOKUS_MAX_MOVES);
    search->nodes = malloc(sizeof(struct node) * INITIAL_NODES);
    if (!search->moves || !search->scores || !search->nodes)
        return ENGINE_E_NO_MEMORY;
    if (version->is_v2) {
        search->stats = malloc(sizeof(struct node_stats) * INITIAL_NODES);
        search->marks = calloc((size_t)BLOKUS_COLORS * BLOKUS_MOVE_KEYS, sizeof(uint32_t));
        search->ranked = malloc(sizeof(struct candidate) * BLOKUS_MAX_MOVES);
        search->replies = blokus_reply_new();
        if (!search->stats || !search->marks || !search->ranked || !search->replies)
            return ENGINE_E_NO_MEMORY;
    }
    search->node_capacity = INITIAL_NODES;
    search->node_count = 1;
    memset(&search->nodes[0], 0, sizeof(struct node));
    if (expand(search, 0, state, version->root_candidates) != 0)
        return ENGINE_E_NO_MEMORY;
    return 0;
}

static void search_free(struct search *search)
{
    free(search->moves);
    free(search->scores);
    free(search->nodes);
    free(search->stats);
    free(search->marks);
    free(search->ranked);
    blokus_reply_free(search->replies);
}

static bool is_budget_spent(const blokus_bot_budget *budget, uint64_t playouts, double deadline)
{
    if (budget->playouts && playouts >= budget->playouts)
        return true;
    if (budget->cancel && atomic_load_explicit(budget->cancel, memory_order_relaxed))
        return true;
    return budget->time_ms && now_seconds() >= deadline;
}

/* v2: whether the most visited root move can no longer be overtaken: it
 * leads the next by more visits than the iterations the budget has left
 * (by the playout limit, and by the time left at the rate so far). */
static bool is_choice_settled(const struct search *search, const blokus_bot_budget *budget,
                              uint64_t playouts, double start, double deadline)
{
    double left = 1e18, now = now_seconds();
    if (budget->playouts)
        left = (double)(budget->playouts - playouts);
    if (budget->time_ms && now > start) {
        double by_time = (double)playouts / (now - start) * (deadline - now);
        left = by_time < left ? by_time : left;
    }
    const struct node *root = &search->nodes[0];
    uint32_t first = 0, second = 0;
    for (uint32_t i = 0; i < root->child_count; i++) {
        uint32_t visits = search->nodes[root->first_child + i].visits;
        if (visits > first) {
            second = first;
            first = visits;
        } else if (visits > second) {
            second = visits;
        }
    }
    return (double)(first - second) > left;
}

/* v2: the opening book's move, when it knows the position: no search. */
static bool book_move(const blokus_state *state, blokus_move *out, blokus_bot_stats *stats)
{
    if (!blokus_book_find(state, out))
        return false;
    if (stats)
        *stats = (blokus_bot_stats){0, 0, 0, 0.0};
    return true;
}

static int search_run(const struct version *version, const blokus_state *state,
                      const blokus_bot_budget *budget, uint64_t seed, blokus_move *out,
                      blokus_bot_stats *stats, bool uses_book)
{
    if (state->is_over)
        return ENGINE_E_GAME_OVER;
    if (!budget || (!budget->time_ms && !budget->playouts))
        return ENGINE_E_BAD_ARGUMENT;
    if (uses_book && book_move(state, out, stats))
        return 0;
    double start = now_seconds(), deadline = start + budget->time_ms / 1000.0;
    struct search search;
    uint64_t playouts = 0;
    int rc = search_init(&search, state, seed, version);
    if (rc != 0)
        goto out;
    while (search.nodes[0].child_count > 1 && !is_budget_spent(budget, playouts, deadline)) {
        iterate(&search);
        playouts++;
        if (version->is_v2 && playouts % EARLY_STOP_PERIOD == 0 &&
            is_choice_settled(&search, budget, playouts, start, deadline))
            break;
    }
    *out = best_root_move(&search);
    if (stats) {
        stats->playouts = playouts;
        stats->nodes = search.node_count;
        stats->candidates = search.nodes[0].child_count;
        stats->seconds = now_seconds() - start;
    }
out:
    search_free(&search);
    return rc;
}

int blokus_bot_mcts(const blokus_state *state, const blokus_bot_budget *budget, uint64_t seed,
                    blokus_move *out, blokus_bot_stats *stats)
{
    return search_run(&MCTS_V1, state, budget, seed, out, stats, false);
}

int blokus_bot_search(blokus_bot_kind kind, const blokus_state *state,
                      const blokus_bot_budget *budget, uint64_t seed, blokus_move *out,
                      blokus_bot_stats *stats)
{
    switch (kind) {
    case BLOKUS_BOT_MCTS:
        return search_run(&MCTS_V1, state, budget, seed, out, stats, false);
    case BLOKUS_BOT_MCTS2:
        return search_run(&MCTS_V2, state, budget, seed, out, stats, true);
    default:
        return ENGINE_E_BAD_ARGUMENT;
    }
}

int blokus_bot_search_unbooked(const blokus_state *state, const blokus_bot_budget *budget,
                               uint64_t seed, blokus_move *out, blokus_bot_stats *stats)
{
    return search_run(&MCTS_V2, state, budget, seed, out, stats, false);
}
