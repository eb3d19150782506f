/* reef_bot.c -- greedy, one-piece-lookahead and planner Reef Builder bots.
 *
 * The bots try actions on copies of the state and compare integer values,
 * so they are deterministic and allocation-free; the weights of the health
 * heuristic (documented in reef_bot.h) live in one constant table.
 *
 * A piece whose halves share a color covers the same cells with orientation
 * 180 (270) at one cell right (below) as with 0 (90), so such placements are
 * tried once: that halves the work for doubles, the most common pieces.
 *
 * Lookahead tries up to 164 x 164 placements per move, each a copy, a play
 * and a health evaluation on 48-bit masks. The boards it keeps are mostly
 * full, so far fewer fit: about 0.2 ms a move on average in self-play. The
 * planner does that same pass, then, for its 12 best lines, tries every
 * placement of each of the (at most 15) pieces that may come next: about
 * ten times lookahead's work (figures in reef_bot.h). The fourth level,
 * chainer, has a file of its own (reef_chainer.c); reef_bot_choose only
 * dispatches to it. */
#include "engine/bits.h"
#include "engine/reef_bot.h"
#include "engine/reef_chainer.h"
#include "util/ranked.h"

#include <stddef.h>
#include <string.h>

#define NO_VALUE INT64_MIN

typedef struct health_weights {
    int fitting_pair;                        /* per pair of adjacent empty cells... */
    int fitting_pair_cap;                    /* ...counting at most this many pairs */
    int isolated_empty;                      /* per empty cell with no empty neighbour */
    int group_with_liberty[REEF_BLOOM_SIZE]; /* per live group, by size 1..3 */
    int dead_cell;                           /* per cell of a group with no liberty */
    int streak_step;                         /* per streak step, up to the cap */
    int run_end;                             /* a position where the run has ended */
    int skip_reserve;                        /* a skip used, on top of its points */
} health_weights;

static const health_weights WEIGHTS = {
    .fitting_pair = 60,
    .fitting_pair_cap = 8,
    .isolated_empty = 25,
    .group_with_liberty = {0, 3, 120, 220},
    .dead_cell = 20,
    .streak_step = 40,
    .run_end = 3000,
    .skip_reserve = 150,
};

/* Lines (current action, next placement) the planner looks past. */
#define PLANNER_LINES 12

static const char *const BOT_NAMES[] = {"greedy", "lookahead", "planner", "chainer"};
#define BOT_KIND_COUNT ((int)(sizeof(BOT_NAMES) / sizeof(BOT_NAMES[0])))

int reef_bot_parse(const char *name, reef_bot_kind *kind)
{
    for (int index = 0; name != NULL && index < BOT_KIND_COUNT; index++) {
        if (strcmp(name, BOT_NAMES[index]) == 0) {
            *kind = (reef_bot_kind)index;
            return 0;
        }
    }
    return ENGINE_E_BAD_ARGUMENT;
}

const char *reef_bot_name(reef_bot_kind kind)
{
    if ((int)kind < 0 || (int)kind >= BOT_KIND_COUNT)
        return "unknown";
    return BOT_NAMES[kind];
}

/* Value of the same-color groups of one color mask. */
static int groups_health(uint64_t color_cells, uint64_t empty)
{
    int value = 0;
    while (color_cells != 0) {
        uint64_t group = reef_mask_group(color_cells & -color_cells, color_cells);
        int size = bits_count64(group);
        bool has_liberty = (reef_mask_neighbors(group) & empty) != 0;
        color_cells &= ~group;
        if (!has_liberty) {
            value -= WEIGHTS.dead_cell * size;
            continue;
        }
        value += WEIGHTS.group_with_liberty[size < REEF_BLOOM_SIZE ? size : 0];
    }
    return value;
}

int reef_bot_health(const reef_state *state)
{
    uint64_t empty = ~reef_occupied(state) & ((UINT64_C(1) << REEF_CELLS) - 1);
    int isolated = bits_count64(empty & ~reef_mask_neighbors(empty));
    int pairs = reef_fitting_placements(state) / 2;
    if (pairs > WEIGHTS.fitting_pair_cap)
        pairs = WEIGHTS.fitting_pair_cap;
    int value = WEIGHTS.fitting_pair * pairs;
    value -= WEIGHTS.isolated_empty * isolated;
    for (int index = 0; index < REEF_COLORS; index++)
        value += groups_health(state->color_cells[index], empty);
    uint32_t streak = state->streak < REEF_MAX_STREAK_STEP ? state->streak : REEF_MAX_STREAK_STEP;
    return value + WEIGHTS.streak_step * (int)streak;
}

/* True for a placement that only repeats another one's cells and colors. */
static bool is_duplicate(const reef_state *state, reef_action action)
{
    return action.type == REEF_ACTION_PLACE && state->current.a == state->current.b &&
           action.orientation >= 180;
}

/* Health of a position reached by play, with the end of the run priced in. */
static int64_t position_value(const reef_state *state)
{
    if (reef_is_over(state))
        return -(int64_t)WEIGHTS.run_end;
    return reef_bot_health(state);
}

/* Best points + health over the placements of the current piece. */
static int64_t best_placement_value(const reef_state *state)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    int64_t best = NO_VALUE;
    for (int index = 0; index < count; index++) {
        if (actions[index].type != REEF_ACTION_PLACE || is_duplicate(state, actions[index]))
            continue;
        reef_state after = *state;
        reef_result result;
        reef_play(&after, actions[index], &result);
        int64_t value = result.points + position_value(&after);
        if (value > best)
            best = value;
    }
    return best;
}

/* Plays `action` on *state; returns its points, a skip's reserve included. */
static int64_t play_priced(reef_state *state, reef_action action)
{
    reef_result result;
    reef_play(state, action, &result);
    if (action.type == REEF_ACTION_SKIP)
        return result.points - WEIGHTS.skip_reserve;
    return result.points;
}

static int64_t lookahead_value(const reef_state *state, reef_action action)
{
    reef_state after = *state;
    int64_t value = play_priced(&after, action);
    int64_t follow_up = best_placement_value(&after); /* NO_VALUE once ended */
    if (follow_up == NO_VALUE)
        return value - WEIGHTS.run_end;
    return value + follow_up;
}

static int choose_lookahead(const reef_state *state, reef_action *chosen)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    int64_t best = NO_VALUE;
    *chosen = actions[0]; /* the run is not over, so count > 0 */
    for (int index = 0; index < count; index++) {
        if (is_duplicate(state, actions[index]))
            continue;
        int64_t value = lookahead_value(state, actions[index]);
        if (value > best) {
            best = value;
            *chosen = actions[index];
        }
    }
    return 0;
}

/* A line of the planner: a current action and the next piece's placement
 * after it (none if the first action ends the run). */
typedef struct planned_line {
    reef_action first;
    int64_t points;   /* of both actions, a skip's reserve included */
    int64_t estimate; /* points + value of `after`: the ranking of the first pass */
    reef_state after;
} planned_line;

typedef struct line_set {
    planned_line lines[PLANNER_LINES];
    int count;
} line_set;

/* Inserts `line` in the set, best estimate first, dropping the worst line
 * once the set is full; an equal estimate goes after the lines already in,
 * so ties keep legal-action order. */
static void keep_line(line_set *set, const planned_line *line)
{
    ranked_insert(set->lines, sizeof(set->lines[0]), &set->count, PLANNER_LINES, line,
                  offsetof(planned_line, estimate));
}

/* Adds the lines that start with `first` to the set. */
static void add_lines(const reef_state *state, reef_action first, line_set *set)
{
    planned_line line = {first, 0, 0, *state};
    int64_t first_points = play_priced(&line.after, first);
    reef_state middle = line.after;
    if (reef_is_over(&middle)) {
        line.points = first_points;
        line.estimate = first_points - WEIGHTS.run_end;
        keep_line(set, &line);
        return;
    }
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(&middle, actions);
    for (int index = 0; index < count; index++) {
        if (actions[index].type != REEF_ACTION_PLACE || is_duplicate(&middle, actions[index]))
            continue;
        line.after = middle;
        line.points = first_points + play_priced(&line.after, actions[index]);
        line.estimate = line.points + position_value(&line.after);
        keep_line(set, &line);
    }
}

/* The mean over the unseen piece after `state`'s visible ones of the best
 * points + health its placement reaches. Only the draw index, public as the
 * turn count, is used: the piece in state->current is replaced by each
 * possible one, so the generator's real draw is never looked at. */
static int64_t expected_value(const reef_state *state)
{
    reef_piece pieces[REEF_PIECE_KINDS];
    int64_t chances[REEF_PIECE_KINDS];
    int count = reef_piece_chances(reef_turns(state), pieces, chances);
    reef_state probe = *state;
    int64_t sum = 0;
    int64_t total = 0;
    for (int index = 0; index < count; index++) {
        probe.current = pieces[index];
        sum += chances[index] * best_placement_value(&probe);
        total += chances[index];
    }
    return sum / total;
}

/* What the planner finally ranks a line by. */
static int64_t line_value(const planned_line *line)
{
    if (reef_is_over(&line->after))
        return line->points - WEIGHTS.run_end;
    return line->points + expected_value(&line->after);
}

static int choose_planner(const reef_state *state, reef_action *chosen)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    line_set set = {.count = 0};
    *chosen = actions[0]; /* the run is not over, so count > 0 */
    for (int index = 0; index < count; index++) {
        if (!is_duplicate(state, actions[index]))
            add_lines(state, actions[index], &set);
    }
    int64_t best = NO_VALUE;
    for (int index = 0; index < set.count; index++) {
        int64_t value = line_value(&set.lines[index]);
        if (value > best) {
            best = value;
            *chosen = set.lines[index].first;
        }
    }
    return 0;
}

typedef struct greedy_choice {
    reef_action action;
    int64_t points;
    int64_t health;
    bool is_ending;
} greedy_choice;

static greedy_choice greedy_try(const reef_state *state, reef_action action)
{
    reef_state after = *state;
    reef_result result;
    reef_play(&after, action, &result);
    greedy_choice choice = {action, result.points, position_value(&after), result.is_over};
    return choice;
}

static int choose_greedy(const reef_state *state, reef_action *chosen)
{
    reef_action actions[REEF_MAX_ACTIONS];
    int count = reef_legal_actions(state, actions);
    greedy_choice best = {reef_skip(), NO_VALUE, NO_VALUE, true};
    for (int index = 0; index < count; index++) {
        if (actions[index].type != REEF_ACTION_PLACE || is_duplicate(state, actions[index]))
            continue;
        greedy_choice choice = greedy_try(state, actions[index]);
        if (choice.points > best.points ||
            (choice.points == best.points && choice.health > best.health))
            best = choice;
    }
    bool is_dead_end = best.points <= 0 && best.is_ending;
    if (best.points == NO_VALUE || (is_dead_end && reef_skips_left(state) > 0))
        *chosen = reef_skip();
    else
        *chosen = best.action;
    return 0;
}

int reef_bot_choose(reef_bot_kind kind, const reef_state *state, reef_action *action)
{
    if (state == NULL || action == NULL)
        return ENGINE_E_BAD_ARGUMENT;
    if (reef_is_over(state))
        return ENGINE_E_GAME_OVER;
    if (kind == REEF_BOT_GREEDY)
        return choose_greedy(state, action);
    if (kind == REEF_BOT_LOOKAHEAD)
        return choose_lookahead(state, action);
    if (kind == REEF_BOT_PLANNER)
        return choose_planner(state, action);
    if (kind == REEF_BOT_CHAINER)
        return reef_chainer_choose(state, action);
    return ENGINE_E_BAD_ARGUMENT;
}
