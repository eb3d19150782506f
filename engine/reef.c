/* reef.c -- Reef Builder rules on 48-bit masks.
 *
 * Cell (row, col) is bit row * REEF_COLS + col of a uint64_t, so a whole row
 * is 6 consecutive bits and "one step right" is a left shift by 1. Shifting a
 * mask by 1 wraps a cell of the last column onto the first column of the next
 * row (and the reverse), so horizontal steps are masked with the column masks
 * below; vertical steps are shifts by REEF_COLS masked to the board.
 *
 * With that, a same-color group is a flood fill that grows a mask by its
 * neighbors within the color's mask until it stops changing (at most 48
 * steps, a handful in practice), and "does a piece still fit anywhere" is
 * whether any empty cell has an empty right or lower neighbor: two shifts and
 * two ANDs. Placement, blooming, scoring and the end test therefore never
 * loop over the 48 cells, which keeps copying and playing states cheap for
 * the bots that search them.
 *
 * Blooms: after a placement every same-color group of 4+ cells clears. The
 * board held no such group before (every earlier one was cleared, and
 * reef_init_custom refuses them), so a bloom must contain a placed cell and
 * only the groups of A and B need a flood fill; if A and B have the same
 * color they are adjacent and form one group.
 *
 * Scoring is done in integer "halves" (x1.5 is 3/2) and floored once at the
 * end, so no floating point can make two machines disagree on a score. */
#include "engine/bits.h"
#include "engine/reef.h"

#include <stddef.h>

#define BOARD_MASK        ((UINT64_C(1) << REEF_CELLS) - 1)
#define FIRST_COLUMN_MASK UINT64_C(0x041041041041) /* col 0 of every row */
#define LAST_COLUMN_MASK  (FIRST_COLUMN_MASK << (REEF_COLS - 1))

static const char COLOR_LETTERS[REEF_COLORS + 1] = {'.', 'R', 'B', 'G', 'Y', 'P'};

/* Offsets of B from A, indexed by orientation / 90. */
static const int ORIENTATION_ROW_STEP[REEF_ORIENTATIONS] = {0, 1, 0, -1};
static const int ORIENTATION_COL_STEP[REEF_ORIENTATIONS] = {1, 0, -1, 0};

/* Streak multiplier in halves for streak 0, 1, 2, 3, >=4. */
static const int64_t STREAK_HALVES[REEF_MAX_STREAK_STEP + 1] = {2, 3, 4, 5, 6};

/* reef-gen-1's palette grows at these draw indexes. */
#define PALETTE_FOUR_FROM  12
#define PALETTE_FIVE_FROM  30
#define DOUBLE_CHANCE_BASE 20
#define DOUBLE_CHANCE_MAX  60

static uint64_t cell_bit(int row, int col)
{
    return UINT64_C(1) << (row * REEF_COLS + col);
}

static bool is_in_bounds(int row, int col)
{
    return row >= 0 && row < REEF_ROWS && col >= 0 && col < REEF_COLS;
}

static uint64_t neighbors(uint64_t mask)
{
    uint64_t right = (mask << 1) & ~FIRST_COLUMN_MASK;
    uint64_t left = (mask >> 1) & ~LAST_COLUMN_MASK;
    uint64_t down = mask << REEF_COLS;
    uint64_t up = mask >> REEF_COLS;
    return (right | left | down | up) & BOARD_MASK;
}

/* The group of `seed` cells within `color_mask` (seed must be inside it). */
static uint64_t flood_group(uint64_t seed, uint64_t color_mask)
{
    uint64_t group = seed;
    for (;;) {
        uint64_t grown = group | (neighbors(group) & color_mask);
        if (grown == group)
            return group;
        group = grown;
    }
}

/* Cells whose right neighbor is also in `mask` (horizontal pairs by left
 * cell) and cells whose lower neighbor is (vertical pairs by upper cell). */
static uint64_t horizontal_pairs(uint64_t mask)
{
    return mask & (mask >> 1) & ~LAST_COLUMN_MASK;
}

static uint64_t vertical_pairs(uint64_t mask)
{
    return mask & (mask >> REEF_COLS);
}

static uint64_t empty_cells(const reef_state *state)
{
    return ~reef_occupied(state) & BOARD_MASK;
}

static bool has_fitting_placement(const reef_state *state)
{
    uint64_t empty = empty_cells(state);
    return (horizontal_pairs(empty) | vertical_pairs(empty)) != 0;
}

static bool is_color(int color)
{
    return color >= REEF_RED && color <= REEF_PURPLE;
}

char reef_color_letter(int color)
{
    if (color < REEF_EMPTY || color > REEF_PURPLE)
        return '?';
    return COLOR_LETTERS[color];
}

int reef_color_from_letter(char letter)
{
    for (int color = REEF_EMPTY; color <= REEF_PURPLE; color++) {
        if (COLOR_LETTERS[color] == letter)
            return color;
    }
    return ENGINE_E_BAD_ARGUMENT;
}

reef_generator reef_generator_init(uint64_t seed)
{
    reef_generator generator = {rng_seeded(seed), 0};
    return generator;
}

reef_piece reef_generator_next(reef_generator *generator)
{
    /* k of docs/ARCHITECTURE.md, "Reef Builder piece generator" */
    uint64_t draw = generator->drawn++;
    uint32_t palette_size = draw < PALETTE_FOUR_FROM ? 3 : draw < PALETTE_FIVE_FROM ? 4 : 5;
    uint64_t double_chance = draw < DOUBLE_CHANCE_MAX - DOUBLE_CHANCE_BASE
                                 ? DOUBLE_CHANCE_BASE + draw
                                 : DOUBLE_CHANCE_MAX;
    reef_piece piece;
    /* Palettes are prefixes of R, B, G, Y, P, which are colors 1..5. */
    if (rng_below(&generator->rng, 100) < double_chance) {
        piece.a = (uint8_t)(REEF_RED + rng_below(&generator->rng, palette_size));
        piece.b = piece.a;
        return piece;
    }
    piece.a = (uint8_t)(REEF_RED + rng_below(&generator->rng, palette_size));
    piece.b = (uint8_t)(REEF_RED + rng_below(&generator->rng, palette_size));
    return piece;
}

int reef_piece_chances(uint64_t draw, reef_piece pieces[REEF_PIECE_KINDS],
                       int64_t chances[REEF_PIECE_KINDS])
{
    int64_t colors = draw < PALETTE_FOUR_FROM ? 3 : draw < PALETTE_FIVE_FROM ? 4 : 5;
    int64_t double_percent = draw < DOUBLE_CHANCE_MAX - DOUBLE_CHANCE_BASE
                                 ? DOUBLE_CHANCE_BASE + (int64_t)draw
                                 : DOUBLE_CHANCE_MAX;
    int count = 0;
    for (int a = 0; a < colors; a++) {
        for (int b = a; b < colors; b++) {
            pieces[count].a = (uint8_t)(REEF_RED + a);
            pieces[count].b = (uint8_t)(REEF_RED + b);
            /* a double: drawn as one (p/100 * 1/n) or as two equal halves
             * ((1 - p/100) / n^2); a mixed pair: either order of two halves */
            chances[count] = a == b ? double_percent * colors + 100 - double_percent
                                    : 2 * (100 - double_percent);
            count++;
        }
    }
    return count;
}

void reef_init(reef_state *state, uint64_t seed)
{
    reef_state fresh = {0};
    fresh.generator = reef_generator_init(seed);
    fresh.current = reef_generator_next(&fresh.generator);
    fresh.next = reef_generator_next(&fresh.generator);
    fresh.skips_left = REEF_SKIPS;
    *state = fresh;
}

/* Reads setup->board into the color masks of `state`. */
static int parse_board(reef_state *state, const char *board)
{
    int cell = 0;
    for (const char *letter = board; *letter != '\0'; letter++) {
        if (*letter == ' ' || *letter == '\n' || *letter == '\t' || *letter == '\r')
            continue;
        int color = reef_color_from_letter(*letter);
        if (color < 0 || cell >= REEF_CELLS)
            return ENGINE_E_BAD_ARGUMENT;
        if (color != REEF_EMPTY)
            state->color_cells[color - 1] |= UINT64_C(1) << cell;
        cell++;
    }
    return cell == REEF_CELLS ? 0 : ENGINE_E_BAD_ARGUMENT;
}

/* True if some color already has a group that should have bloomed. */
static bool has_bloomable_group(const reef_state *state)
{
    for (int index = 0; index < REEF_COLORS; index++) {
        uint64_t unvisited = state->color_cells[index];
        while (unvisited != 0) {
            uint64_t group = flood_group(unvisited & -unvisited, state->color_cells[index]);
            if (bits_count64(group) >= REEF_BLOOM_SIZE)
                return true;
            unvisited &= ~group;
        }
    }
    return false;
}

static bool is_valid_setup(const reef_setup *setup)
{
    return setup->board != NULL && is_color(setup->current.a) && is_color(setup->current.b) &&
           is_color(setup->next.a) && is_color(setup->next.b) && setup->score >= 0 &&
           setup->skips_left <= REEF_SKIPS;
}

int reef_init_custom(reef_state *state, const reef_setup *setup)
{
    if (setup == NULL || !is_valid_setup(setup))
        return ENGINE_E_BAD_ARGUMENT;
    reef_state custom;
    reef_init(&custom, setup->seed);
    int error = parse_board(&custom, setup->board);
    if (error < 0 || has_bloomable_group(&custom))
        return ENGINE_E_BAD_ARGUMENT;
    custom.current = setup->current;
    custom.next = setup->next;
    custom.score = setup->score;
    custom.streak = setup->streak;
    custom.skips_left = (uint8_t)setup->skips_left;
    custom.is_over = !has_fitting_placement(&custom);
    *state = custom;
    return 0;
}

static int check_placement(const reef_state *state, reef_action action)
{
    if (action.orientation < 0 || action.orientation % 90 != 0 ||
        action.orientation / 90 >= REEF_ORIENTATIONS)
        return ENGINE_E_BAD_ORIENTATION;
    /* The anchor first: row + 1 must not overflow for a row of INT_MAX. */
    if (!is_in_bounds(action.row, action.col))
        return ENGINE_E_OUT_OF_BOUNDS;
    int step = action.orientation / 90;
    int partner_row = action.row + ORIENTATION_ROW_STEP[step];
    int partner_col = action.col + ORIENTATION_COL_STEP[step];
    if (!is_in_bounds(partner_row, partner_col))
        return ENGINE_E_OUT_OF_BOUNDS;
    uint64_t cells = cell_bit(action.row, action.col) | cell_bit(partner_row, partner_col);
    if ((cells & reef_occupied(state)) != 0)
        return ENGINE_E_OCCUPIED;
    return 0;
}

int reef_check(const reef_state *state, reef_action action)
{
    if (state->is_over)
        return ENGINE_E_GAME_OVER;
    if (action.type == REEF_ACTION_SKIP)
        return state->skips_left > 0 ? 0 : ENGINE_E_NO_SKIPS;
    /* Only a hand-edited state can hold a non-color piece; refuse rather
     * than index color_cells[-1]. */
    if (action.type != REEF_ACTION_PLACE || !is_color(state->current.a) ||
        !is_color(state->current.b))
        return ENGINE_E_BAD_ARGUMENT;
    return check_placement(state, action);
}

int64_t reef_apply_streak(int64_t base, uint32_t streak)
{
    uint32_t step = streak < REEF_MAX_STREAK_STEP ? streak : REEF_MAX_STREAK_STEP;
    int64_t halves = base * STREAK_HALVES[step];
    /* Floor, not truncation, should a negative base ever reach here. */
    return halves >= 0 ? halves / 2 : -((-halves + 1) / 2);
}

int64_t reef_bloom_points(const uint8_t sizes[], int count, uint32_t streak)
{
    if (count <= 0)
        return 0;
    int64_t base = 50 * (int64_t)(count - 1);
    for (int index = 0; index < count; index++)
        base += 50 * (int64_t)sizes[index] - 100;
    return reef_apply_streak(base, streak);
}

/* Records the group of `cell` in blooms[] if it is big enough and new. */
static void find_bloom(const reef_state *state, uint64_t cell, int color, reef_result *result)
{
    for (int index = 0; index < result->bloom_count; index++) {
        if ((result->blooms[index].cells & cell) != 0)
            return;
    }
    uint64_t group = flood_group(cell, state->color_cells[color - 1]);
    int size = bits_count64(group);
    if (size < REEF_BLOOM_SIZE)
        return;
    reef_bloom *bloom = &result->blooms[result->bloom_count++];
    bloom->color = (uint8_t)color;
    bloom->size = (uint8_t)size;
    bloom->cells = group;
}

/* Puts the current piece down, clears its blooms and scores them. */
static void place_piece(reef_state *state, reef_action action, reef_result *result)
{
    int step = action.orientation / 90;
    uint64_t anchor = cell_bit(action.row, action.col);
    uint64_t partner =
        cell_bit(action.row + ORIENTATION_ROW_STEP[step], action.col + ORIENTATION_COL_STEP[step]);
    state->color_cells[state->current.a - 1] |= anchor;
    state->color_cells[state->current.b - 1] |= partner;
    state->placements++;

    find_bloom(state, anchor, state->current.a, result);
    find_bloom(state, partner, state->current.b, result);
    if (result->bloom_count == 0) {
        state->streak = 0;
        return;
    }
    uint8_t sizes[REEF_MAX_BLOOMS];
    for (int index = 0; index < result->bloom_count; index++) {
        reef_bloom *bloom = &result->blooms[index];
        state->color_cells[bloom->color - 1] &= ~bloom->cells;
        sizes[index] = bloom->size;
    }
    result->points = reef_bloom_points(sizes, result->bloom_count, state->streak);
    state->score += result->points;
    state->blooms += (uint32_t)result->bloom_count;
    state->streak++;
}

static void skip_piece(reef_state *state, reef_result *result)
{
    int64_t cost = state->score < REEF_SKIP_COST ? state->score : REEF_SKIP_COST;
    state->score -= cost;
    state->skips_left--;
    result->points = -cost;
}

int reef_play(reef_state *state, reef_action action, reef_result *result)
{
    int error = reef_check(state, action);
    if (error < 0)
        return error;
    reef_result local = {0};
    if (action.type == REEF_ACTION_SKIP)
        skip_piece(state, &local);
    else
        place_piece(state, action, &local);
    state->turns++;
    state->current = state->next;
    state->next = reef_generator_next(&state->generator);
    state->is_over = !has_fitting_placement(state);
    local.is_over = state->is_over;
    if (result != NULL)
        *result = local;
    return 0;
}

/* Bit i set: the placement anchored at cell i with this orientation fits. */
static void fitting_anchors(const reef_state *state, uint64_t anchors[REEF_ORIENTATIONS])
{
    uint64_t empty = empty_cells(state);
    uint64_t horizontal = horizontal_pairs(empty);
    uint64_t vertical = vertical_pairs(empty);
    anchors[0] = horizontal;
    anchors[1] = vertical;
    anchors[2] = horizontal << 1;
    anchors[3] = vertical << REEF_COLS;
}

int reef_legal_actions(const reef_state *state, reef_action out[REEF_MAX_ACTIONS])
{
    if (state->is_over)
        return 0;
    uint64_t anchors[REEF_ORIENTATIONS];
    fitting_anchors(state, anchors);
    int count = 0;
    for (int cell = 0; cell < REEF_CELLS; cell++) {
        for (int step = 0; step < REEF_ORIENTATIONS; step++) {
            if ((anchors[step] >> cell) & 1)
                out[count++] = reef_place(cell / REEF_COLS, cell % REEF_COLS, step * 90);
        }
    }
    if (state->skips_left > 0)
        out[count++] = reef_skip();
    return count;
}

int reef_fitting_placements(const reef_state *state)
{
    uint64_t empty = empty_cells(state);
    return 2 * (bits_count64(horizontal_pairs(empty)) + bits_count64(vertical_pairs(empty)));
}

int reef_cell_color(const reef_state *state, int row, int col)
{
    if (!is_in_bounds(row, col))
        return ENGINE_E_OUT_OF_BOUNDS;
    uint64_t bit = cell_bit(row, col);
    for (int index = 0; index < REEF_COLORS; index++) {
        if ((state->color_cells[index] & bit) != 0)
            return index + 1;
    }
    return REEF_EMPTY;
}

uint64_t reef_occupied(const reef_state *state)
{
    uint64_t occupied = 0;
    for (int index = 0; index < REEF_COLORS; index++)
        occupied |= state->color_cells[index];
    return occupied;
}

uint64_t reef_mask_neighbors(uint64_t mask)
{
    return neighbors(mask & BOARD_MASK);
}

uint64_t reef_mask_group(uint64_t seed, uint64_t color_mask)
{
    return flood_group(seed & color_mask, color_mask & BOARD_MASK);
}

int reef_mask_cells(uint64_t mask, reef_cell out[REEF_CELLS])
{
    int count = 0;
    mask &= BOARD_MASK;
    while (mask != 0) {
        int cell = __builtin_ctzll(mask);
        out[count].row = cell / REEF_COLS;
        out[count].col = cell % REEF_COLS;
        count++;
        mask &= mask - 1;
    }
    return count;
}

void reef_board_text(const reef_state *state, char out[REEF_BOARD_TEXT])
{
    char *next_letter = out;
    for (int row = 0; row < REEF_ROWS; row++) {
        for (int col = 0; col < REEF_COLS; col++)
            *next_letter++ = reef_color_letter(reef_cell_color(state, row, col));
        *next_letter++ = row + 1 < REEF_ROWS ? '\n' : '\0';
    }
}

reef_action reef_place(int row, int col, int orientation)
{
    reef_action action = {REEF_ACTION_PLACE, row, col, orientation};
    return action;
}

reef_action reef_skip(void)
{
    reef_action action = {REEF_ACTION_SKIP, 0, 0, 0};
    return action;
}

int64_t reef_score(const reef_state *state)
{
    return state->score;
}

uint32_t reef_streak(const reef_state *state)
{
    return state->streak;
}

int reef_skips_left(const reef_state *state)
{
    return state->skips_left;
}

bool reef_is_over(const reef_state *state)
{
    return state->is_over;
}

reef_piece reef_current(const reef_state *state)
{
    return state->current;
}

reef_piece reef_next(const reef_state *state)
{
    return state->next;
}

uint32_t reef_turns(const reef_state *state)
{
    return state->turns;
}

uint32_t reef_placements(const reef_state *state)
{
    return state->placements;
}

uint32_t reef_blooms(const reef_state *state)
{
    return state->blooms;
}

uint64_t reef_pieces_drawn(const reef_state *state)
{
    return state->generator.drawn;
}

/* Howard Hinnant's days_from_civil, inverted: the proleptic Gregorian date
 * of a day count, with no library call (the engine reads no clock and no
 * time zone). */
uint64_t reef_daily_seed(int64_t unix_ms)
{
    int64_t days = unix_ms / 86400000 - (unix_ms % 86400000 < 0);
    int64_t shifted = days + 719468; /* days since 0000-03-01 */
    int64_t era = (shifted >= 0 ? shifted : shifted - 146096) / 146097;
    int64_t day_of_era = shifted - era * 146097;
    int64_t year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36524 - day_of_era / 146096) / 365;
    int64_t day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    int64_t month_index = (5 * day_of_year + 2) / 153; /* March = 0 */
    int64_t day = day_of_year - (153 * month_index + 2) / 5 + 1;
    int64_t month = month_index < 10 ? month_index + 3 : month_index - 9;
    int64_t year = year_of_era + era * 400 + (month <= 2);
    return (uint64_t)(year * 10000 + month * 100 + day);
}
