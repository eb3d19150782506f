/* reef_chainer.c -- the chainer Reef bot: plays for long chains of blooms.
 *
 * Points come from the streak multiplier: x3 from the fifth bloom in a row,
 * while a placement without a bloom starts the ramp over at x1. So a position
 * is worth much more when the chain can survive the pieces to come, and that
 * chance is something a player can compute: the piece after the two visible
 * ones is one of at most 15 colour pairs whose odds follow from the rules and
 * the turn number (reef_piece_chances), and whether each of them can bloom
 * on a board, and how big, is read off the board's groups and fitting pairs
 * without playing a single placement.
 *
 * The search is lookahead's (reef_bot.h): every current action, then every
 * action with the visible next piece (placements, and here a skip too), is
 * played on copies of the state and valued by its points plus the health
 * heuristic of reef_bot.h. The best CHAINER_LINES of those lines then get
 * the expectation over the unseen piece: the points of its best bloom at the
 * streak reached plus the worth of the longer streak (streak_worth), or, when
 * it cannot bloom, the better of losing the streak and skipping to keep it.
 *
 * It also holds back the start of a chain: with the streak at 0 and room on
 * the board (more than start_free free cells) a bloom costs build_bloom, so
 * the bot keeps growing groups of two and three instead of spending them at
 * x1 one at a time. Once the board is nearly full, any bloom may start the
 * next chain.
 *
 * Counting the expectation costs about as much as the rest of a line's
 * value, so only the best 32 lines get it (giving it to every line scored
 * 40,458 against 40,406 on 300-turn training runs, at ten times the cost):
 * 0.5 ms an action on average, about lookahead's cost.
 * Over seeds 1..100 it scores 4.2% above lookahead (docs/BOTS.md).
 *
 * Tried and dropped (figures in docs/BOTS.md): a third ply over the unseen
 * piece's placements, a Monte Carlo estimate of the chain a board's stock of
 * groups sustains, a bonus for spreading groups over the colours, and a
 * longer build before each chain; none scored more on the training seeds.
 *
 * Only what a player sees is read: the board, score, streak, skips, the turn
 * number and the two visible pieces. Positions two actions deep hold hidden
 * draws in their `current` and `next`; the valuation never looks at them. */
#include "engine/bits.h"
#include "engine/reef_bot.h"
#include "engine/reef_chainer.h"
#include "util/ranked.h"

#include <stddef.h>
#include <string.h>

#define NO_VALUE INT64_MIN
/* A group is one colour's connected cells; the board has at most 48. */
#define MAX_GROUPS REEF_CELLS
/* Lines (current action, next action) that get the unseen piece's
 * expectation on top of their first value. */
#define CHAINER_LINES 32

typedef struct chainer_weights {
    int streak_worth[REEF_MAX_STREAK_STEP + 1]; /* a streak kept, by step */
    int start_free;   /* at most this many free cells: any bloom may start a chain */
    int build_bloom;  /* a bloom at streak 0 with more room than that */
    int run_end;      /* a position where the run has ended */
    int skip_reserve; /* a skip used, on top of its points */
} chainer_weights;

/* Tuned by self-play on seeds 1001..1030 (never the reported 1..100). */
static const chainer_weights CHAINER_WEIGHTS = {
    .streak_worth = {0, 100, 200, 300, 400},
    .start_free = 12,
    .build_bloom = 200,
    .run_end = 3000,
    .skip_reserve = 150,
};

/* The board's same-colour groups: a label per cell (0 for empty, else the
 * group's index + 1) and each group's size. */
typedef struct board_groups {
    uint8_t label[REEF_CELLS];
    uint8_t size[MAX_GROUPS + 1];
    uint8_t color[MAX_GROUPS + 1];
} board_groups;

static void label_groups(const reef_state *state, board_groups *groups)
{
    memset(groups->label, 0, sizeof(groups->label));
    int count = 0;
    for (int index = 0; index < REEF_COLORS; index++) {
        uint64_t unvisited = state->color_cells[index];
        while (unvisited != 0) {
            uint64_t group = reef_mask_group(unvisited & -unvisited, state->color_cells[index]);
            unvisited &= ~group;
            count++;
            groups->size[count] = (uint8_t)bits_count64(group);
            groups->color[count] = (uint8_t)(index + 1);
            for (uint64_t cells = group; cells != 0; cells &= cells - 1)
                groups->label[__builtin_ctzll(cells)] = (uint8_t)count;
        }
    }
}

/* Per colour, the sizes of the distinct groups touching `cells` (a mask of
 * one or two empty cells), summed into sums[color]. */
static void touching_sizes(const board_groups *groups, uint64_t cells, uint64_t occupied,
                           int sums[REEF_COLORS + 1])
{
    uint8_t seen[6];
    int seen_count = 0;
    for (uint64_t around = reef_mask_neighbors(cells) & occupied; around != 0;
         around &= around - 1) {
        uint8_t label = groups->label[__builtin_ctzll(around)];
        bool is_seen = false;
        for (int index = 0; index < seen_count; index++)
            is_seen = is_seen || seen[index] == label;
        if (is_seen)
            continue;
        seen[seen_count++] = label;
        sums[groups->color[label]] += groups->size[label];
    }
}

/* Base points (before the multiplier) of one group of `size` cells, 0 if it
 * does not bloom. */
static int group_points(int size)
{
    return size >= REEF_BLOOM_SIZE ? 50 * size - 100 : 0;
}

/* Base points of a mixed piece with colour a on the cell whose neighbours
 * sum to first[] and colour b on the other. */
static int mixed_points(const int first[], const int second[], int a, int b)
{
    int points_a = group_points(1 + first[a]);
    int points_b = group_points(1 + second[b]);
    return points_a + points_b + (points_a > 0 && points_b > 0 ? 50 : 0);
}

/* Raises best[] (base points per piece kind, indexed as reef_piece_chances
 * lists them) with what each kind would bloom on the pair (cell, other). */
static void raise_pair(const board_groups *groups, uint64_t occupied, int cell, int other,
                       const reef_piece pieces[], int kinds, int best[])
{
    int first[REEF_COLORS + 1] = {0};
    int second[REEF_COLORS + 1] = {0};
    int both[REEF_COLORS + 1] = {0};
    uint64_t cell_bit = UINT64_C(1) << cell;
    uint64_t other_bit = UINT64_C(1) << other;
    touching_sizes(groups, cell_bit, occupied, first);
    touching_sizes(groups, other_bit, occupied, second);
    touching_sizes(groups, cell_bit | other_bit, occupied, both);
    for (int kind = 0; kind < kinds; kind++) {
        int a = pieces[kind].a;
        int b = pieces[kind].b;
        int points = a == b ? group_points(2 + both[a]) : mixed_points(first, second, a, b);
        if (a != b) {
            int swapped = mixed_points(first, second, b, a);
            points = swapped > points ? swapped : points;
        }
        if (points > best[kind])
            best[kind] = points;
    }
}

/* The best base points each possible unseen piece could bloom. */
static void best_blooms(const reef_state *state, const reef_piece pieces[], int kinds, int best[])
{
    board_groups groups;
    label_groups(state, &groups);
    uint64_t occupied = reef_occupied(state);
    uint64_t board = (UINT64_C(1) << REEF_CELLS) - 1;
    uint64_t empty = ~occupied & board;
    /* reef.c's pairs: a cell and its right (not across a row end) or lower neighbour */
    uint64_t last_column = UINT64_C(0x041041041041) << (REEF_COLS - 1);
    uint64_t horizontal = empty & (empty >> 1) & ~last_column;
    uint64_t vertical = empty & (empty >> REEF_COLS);
    for (int kind = 0; kind < kinds; kind++)
        best[kind] = 0;
    for (; horizontal != 0; horizontal &= horizontal - 1) {
        int cell = __builtin_ctzll(horizontal);
        raise_pair(&groups, occupied, cell, cell + 1, pieces, kinds, best);
    }
    for (; vertical != 0; vertical &= vertical - 1) {
        int cell = __builtin_ctzll(vertical);
        raise_pair(&groups, occupied, cell, cell + REEF_COLS, pieces, kinds, best);
    }
}

static int streak_step(uint32_t streak)
{
    return streak < REEF_MAX_STREAK_STEP ? (int)streak : REEF_MAX_STREAK_STEP;
}

/* The expectation over the unseen piece: its best bloom's points plus the
 * worth of the streak it extends, or, if it cannot bloom, the better of
 * losing the streak and skipping to keep it. */
static int64_t chance_value(const chainer_weights *weights, const reef_state *state)
{
    reef_piece pieces[REEF_PIECE_KINDS];
    int64_t chances[REEF_PIECE_KINDS];
    int best[REEF_PIECE_KINDS];
    int kinds = reef_piece_chances(reef_turns(state), pieces, chances);
    best_blooms(state, pieces, kinds, best);
    int step = streak_step(state->streak);
    int next_step = streak_step(state->streak + 1);
    int64_t fail = 0;
    int64_t kept = weights->streak_worth[step] - REEF_SKIP_COST - weights->skip_reserve;
    if (state->skips_left > 0 && kept > fail)
        fail = kept;
    int64_t sum = 0;
    int64_t total = 0;
    for (int kind = 0; kind < kinds; kind++) {
        int64_t value = fail;
        if (best[kind] > 0)
            value = reef_apply_streak(best[kind], state->streak) + weights->streak_worth[next_step];
        sum += chances[kind] * value;
        total += chances[kind];
    }
    return sum / total;
}

/* What one choice's search shares. */
typedef struct chainer_search {
    const chainer_weights *weights;
    bool is_building; /* streak 0 with room to grow: blooms cost build_bloom */
    uint32_t root_blooms;
} chainer_search;

/* A position's value without the unseen piece's expectation: cheap enough
 * for every position two actions deep. */
static int64_t leaf_value(const chainer_search *search, const reef_state *state)
{
    const chainer_weights *weights = search->weights;
    if (reef_is_over(state))
        return -(int64_t)weights->run_end;
    int64_t value = reef_bot_health(state);
    if (search->is_building)
        value -= (int64_t)weights->build_bloom * (reef_blooms(state) - search->root_blooms);
    return value;
}

/* Plays `action` on *state; returns its points, a skip's reserve included. */
static int64_t play_priced(const chainer_weights *weights, reef_state *state, reef_action action)
{
    reef_result result;
    reef_play(state, action, &result);
    if (action.type == REEF_ACTION_SKIP)
        return result.points - weights->skip_reserve;
    return result.points;
}

/* True for a placement that only repeats another one's cells and colors. */
static bool is_duplicate(const reef_state *state, reef_action action)
{
    return action.type == REEF_ACTION_PLACE && state->current.a == state->current.b &&
           action.orientation >= 180;
}

/* A line: a current action and an action with the next piece after it,
 * valued cheaply; the best lines then get the unseen piece's expectation. */
typedef struct chainer_line {
    reef_action first;
    int64_t value; /* points of both actions (a skip's reserve included) + leaf value */
    reef_state after;
} chainer_line;

typedef struct line_set {
    chainer_line lines[CHAINER_LINES];
    int count;
} line_set;

/* Inserts `line`, best value first, dropping the worst once full; an equal
 * value goes after the lines already in, so ties keep legal-action order. */
static void keep_line(line_set *set, const chainer_line *line)
{
    ranked_insert(set->lines, sizeof(set->lines[0]), &set->count, CHAINER_LINES, line,
                  offsetof(chainer_line, value));
}

/* Adds the lines that start with `first` (played into `middle`). */
static void add_lines(const chainer_search *search, reef_action first, int64_t first_points,
                      const reef_state *middle, line_set *set)
{
    chainer_line line = {first, 0, *middle};
    if (reef_is_over(middle)) {
        line.value = first_points - search->weights->run_end;
        keep_line(set, &line);
        return;
    }
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(middle, actions);
    for (int index = 0; index < count; index++) {
        if (is_duplicate(middle, actions[index]))
            continue;
        line.after = *middle;
        int64_t points = first_points + play_priced(search->weights, &line.after, actions[index]);
        line.value = points + leaf_value(search, &line.after);
        keep_line(set, &line);
    }
}

static int choose_with(const chainer_weights *weights, const reef_state *state, reef_action *chosen)
{
    uint64_t board = (UINT64_C(1) << REEF_CELLS) - 1;
    int free_cells = bits_count64(~reef_occupied(state) & board);
    chainer_search search = {weights, state->streak == 0 && free_cells > weights->start_free,
                             reef_blooms(state)};
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    line_set set = {.count = 0};
    *chosen = actions[0]; /* the run is not over, so count > 0 */
    for (int index = 0; index < count; index++) {
        if (is_duplicate(state, actions[index]))
            continue;
        reef_state middle = *state;
        int64_t points = play_priced(weights, &middle, actions[index]);
        add_lines(&search, actions[index], points, &middle, &set);
    }
    int64_t best = NO_VALUE;
    for (int index = 0; index < set.count; index++) {
        const chainer_line *line = &set.lines[index];
        int64_t value = line->value;
        if (!reef_is_over(&line->after))
            value += chance_value(weights, &line->after);
        if (value > best) {
            best = value;
            *chosen = line->first;
        }
    }
    return 0;
}

int reef_chainer_choose(const reef_state *state, reef_action *action)
{
    return choose_with(&CHAINER_WEIGHTS, state, action);
}
