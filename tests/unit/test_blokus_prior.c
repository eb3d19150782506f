/* test_blokus_prior.c -- the learned prior's features and scores.
 *
 * The features are counted with row masks over a move's footprint; here a
 * cell-by-cell count of each feature's definition (blokus_prior.h) must
 * give the same numbers for every legal move at positions of seeded games
 * in every mode, a first move is checked by hand, and the scores must be
 * the weighted sums in BLOKUS_PRIOR_UNIT. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/blokus_prior.h"
#include "engine/blokus_tables.h"
#include "engine/rng.h"
#include "unit/blokus_games.h"

/* Positions checked per game: every PLY_STRIDE-th, to keep the file fast
 * under the sanitizers. */
#define PLY_STRIDE 5

static bool has_cell(const uint32_t *rows, int row, int col, int size)
{
    return row >= 0 && row < size && col >= 0 && col < size && (rows[row] >> col & 1u);
}

/* Union over the colors another player owns (is_opponent) or the mover
 * owns besides the color to move (!is_opponent) of one of their masks. */
static bool others_have(const blokus_state *s, const uint32_t (*masks)[BLOKUS_PADDED_ROWS],
                        bool is_opponent, int row, int col)
{
    int mover = blokus_player_to_move(s);
    for (int color = 0; color < s->color_count; color++) {
        int owner = blokus_color_owner(s, color);
        if (color == s->to_move || owner < 0 || (owner != mover) != is_opponent)
            continue;
        if (has_cell(masks[color], row, col, s->size))
            return true;
    }
    return false;
}

/* The move's cells, and its edge and corner neighbours, as board masks. */
static void outline(const blokus_state *s, blokus_move m, uint32_t *cells, uint32_t *edges,
                    uint32_t *corners)
{
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[blokus_orientation_id(m)];
    memset(cells, 0, sizeof(uint32_t) * BLOKUS_PADDED_ROWS);
    memset(edges, 0, sizeof(uint32_t) * BLOKUS_PADDED_ROWS);
    memset(corners, 0, sizeof(uint32_t) * BLOKUS_PADDED_ROWS);
    for (int i = 0; i < o->size; i++)
        cells[m.row + o->cells[i][0]] |= 1u << (m.col + o->cells[i][1]);
    for (int i = 0; i < o->size; i++) {
        int row = m.row + o->cells[i][0], col = m.col + o->cells[i][1];
        for (int dr = -1; dr <= 1; dr++) {
            for (int dc = -1; dc <= 1; dc++) {
                int r = row + dr, c = col + dc;
                if (r < 0 || r >= s->size || c < 0 || c >= s->size || (cells[r] >> c & 1u))
                    continue;
                uint32_t *target = dr != 0 && dc != 0 ? corners : edges;
                target[r] |= 1u << c;
            }
        }
    }
}

/* Sides of (row, col) in `rows`. */
static int sides_in(const uint32_t *rows, int row, int col, int size)
{
    return has_cell(rows, row - 1, col, size) + has_cell(rows, row + 1, col, size) +
           has_cell(rows, row, col - 1, size) + has_cell(rows, row, col + 1, size);
}

/* Whether (row, col) shares a side with an opponent's attach cell. */
static bool is_beside_opponent_attach(const blokus_state *s, int row, int col)
{
    static const int steps[4][2] = {{-1, 0}, {1, 0}, {0, -1}, {0, 1}};
    for (int k = 0; k < 4; k++)
        if (others_have(s, s->attach, true, row + steps[k][0], col + steps[k][1]))
            return true;
    return false;
}

/* The terms of one move, cell by cell from their definitions. */
static void reference_terms(const blokus_state *s, blokus_move m, int *terms)
{
    uint32_t cells[BLOKUS_PADDED_ROWS], edges[BLOKUS_PADDED_ROWS], corners[BLOKUS_PADDED_ROWS];
    uint32_t free_after[BLOKUS_PADDED_ROWS] = {0};
    outline(s, m, cells, edges, corners);
    for (int row = 0; row < s->size; row++)
        free_after[row] = s->free[s->to_move][row] & ~cells[row] & ~edges[row];
    int color = s->to_move, placed = BLOKUS_PIECE_COUNT - __builtin_popcount(s->pieces_left[color]);
    memset(terms, 0, sizeof(int) * BLOKUS_PRIOR_TERM_COUNT);
    for (int row = 0; row < s->size; row++) {
        for (int col = 0; col < s->size; col++) {
            bool is_cell = has_cell(cells, row, col, s->size);
            bool was_attach = has_cell(s->attach[color], row, col, s->size);
            bool is_free_after = has_cell(s->free[color], row, col, s->size) && !is_cell &&
                                 !has_cell(edges, row, col, s->size);
            bool is_attach_after =
                is_free_after && (was_attach || has_cell(corners, row, col, s->size));
            bool is_opponent_free = others_have(s, s->free, true, row, col);
            terms[BLOKUS_PRIOR_ATTACH_GAIN] += is_attach_after - was_attach;
            terms[BLOKUS_PRIOR_CONTESTED] += is_attach_after && !was_attach && is_opponent_free;
            terms[BLOKUS_PRIOR_CONTACT] +=
                has_cell(edges, row, col, s->size) && others_have(s, s->own, true, row, col);
            terms[BLOKUS_PRIOR_SIDES_GIVEN_UP] +=
                has_cell(edges, row, col, s->size) && has_cell(s->free[color], row, col, s->size);
            if (is_attach_after && !was_attach)
                terms[BLOKUS_PRIOR_NEW_ATTACH_OPEN_0 + sides_in(free_after, row, col, s->size)]++;
            if (!is_cell)
                continue;
            terms[BLOKUS_PRIOR_BLOCKED] += others_have(s, s->attach, true, row, col) -
                                           others_have(s, s->attach, false, row, col);
            terms[BLOKUS_PRIOR_OWN_ATTACH_COVER] += was_attach;
            terms[BLOKUS_PRIOR_OPPONENT_FREE] += is_opponent_free;
            terms[BLOKUS_PRIOR_NEAR_OPPONENT_ATTACH] +=
                is_opponent_free && !others_have(s, s->attach, true, row, col) &&
                is_beside_opponent_attach(s, row, col);
        }
    }
    terms[BLOKUS_PRIOR_SIZE] = BLOKUS_PIECES[m.piece].size;
    terms[BLOKUS_PRIOR_CENTRE] = blokus_centre_closeness(s, m);
    terms[BLOKUS_PRIOR_OPENING_CENTRE] = placed < 4 ? terms[BLOKUS_PRIOR_CENTRE] : 0;
}

static void assert_terms_match_reference(const blokus_state *s)
{
    static blokus_move moves[BLOKUS_MAX_MOVES];
    static int terms[BLOKUS_MAX_MOVES * BLOKUS_PRIOR_TERM_COUNT];
    int count = blokus_generate(s, moves);
    blokus_prior_terms(s, moves, count, terms);
    for (int i = 0; i < count; i++) {
        int expected[BLOKUS_PRIOR_TERM_COUNT];
        if (moves[i].piece == BLOKUS_PASS)
            continue;
        reference_terms(s, moves[i], expected);
        assert_memory_equal(&terms[i * BLOKUS_PRIOR_TERM_COUNT], expected, sizeof(expected));
    }
}

static void check_game(blokus_mode mode, uint64_t seed, blokus_games_chooser choose)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_OFFICIAL);
    rng r = rng_seeded(seed);
    for (int ply = 0; !s.is_over; ply++) {
        if (ply % PLY_STRIDE == 0)
            assert_terms_match_reference(&s);
        blokus_apply(&s, choose(&s, &r));
    }
}

static void test_terms_match_their_definitions_in_every_mode(void **state)
{
    (void)state;
    blokus_games_random_in_every_mode(check_game, 300, 2);
    blokus_games_largest_in_4p_and_duo(check_game, 300, 2);
}

/* Duo's first move, I1 on the start cell (4,4) of the 14x14 board. */
static void test_a_first_monomino_by_hand(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_OFFICIAL);
    int piece = -1;
    assert_int_equal(blokus_piece_parse("I1", &piece), 0);
    blokus_move m = {(uint8_t)piece, 0, 4, 4};
    int terms[BLOKUS_PRIOR_TERM_COUNT];
    blokus_prior_terms(&s, &m, 1, terms);
    assert_int_equal(terms[BLOKUS_PRIOR_SIZE], 1);
    assert_int_equal(terms[BLOKUS_PRIOR_ATTACH_GAIN], 3);      /* 4 corners for the start cell */
    assert_int_equal(terms[BLOKUS_PRIOR_BLOCKED], 0);          /* (9,9) is far */
    assert_int_equal(terms[BLOKUS_PRIOR_OWN_ATTACH_COVER], 1); /* the start cell */
    assert_int_equal(terms[BLOKUS_PRIOR_OPPONENT_FREE], 1);
    assert_int_equal(terms[BLOKUS_PRIOR_CENTRE], 8); /* 13 - (|8 - 13| + |8 - 13|) / 2 */
    assert_int_equal(terms[BLOKUS_PRIOR_OPENING_CENTRE], 8);
    assert_int_equal(terms[BLOKUS_PRIOR_CONTESTED], 4);
    assert_int_equal(terms[BLOKUS_PRIOR_CONTACT], 0);
    assert_int_equal(terms[BLOKUS_PRIOR_NEW_ATTACH_OPEN_2], 4); /* each corner's two far sides */
    assert_int_equal(terms[BLOKUS_PRIOR_NEAR_OPPONENT_ATTACH], 0);
    assert_int_equal(terms[BLOKUS_PRIOR_SIDES_GIVEN_UP], 4);
}

static void test_scores_are_weighted_sums_in_fixed_point(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_OFFICIAL);
    static blokus_move moves[BLOKUS_MAX_MOVES];
    static int terms[BLOKUS_MAX_MOVES * BLOKUS_PRIOR_TERM_COUNT], scores[BLOKUS_MAX_MOVES];
    int count = blokus_generate(&s, moves);
    blokus_prior_weights weights = {{0}};
    weights.weights[BLOKUS_PRIOR_SIZE] = 0.5;
    weights.weights[BLOKUS_PRIOR_ATTACH_GAIN] = -0.25;
    weights.weights[BLOKUS_PRIOR_TERM_COUNT + 20] = 1.0; /* the last piece, Z5 */
    blokus_prior_terms(&s, moves, count, terms);
    blokus_prior_score_moves(&s, &weights, moves, count, scores);
    for (int i = 0; i < count; i++) {
        const int *t = &terms[i * BLOKUS_PRIOR_TERM_COUNT];
        double logit = 0.5 * t[BLOKUS_PRIOR_SIZE] - 0.25 * t[BLOKUS_PRIOR_ATTACH_GAIN] +
                       (moves[i].piece == 20 ? 1.0 : 0.0);
        assert_int_equal(scores[i], (int)(logit * BLOKUS_PRIOR_UNIT));
    }
}

static void test_a_pass_scores_zero(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_OFFICIAL);
    blokus_move pass = {BLOKUS_PASS, 0, 0, 0};
    int terms[BLOKUS_PRIOR_TERM_COUNT], score = -1;
    blokus_prior_terms(&s, &pass, 1, terms);
    blokus_prior_score_moves(&s, NULL, &pass, 1, &score);
    for (int k = 0; k < BLOKUS_PRIOR_TERM_COUNT; k++)
        assert_int_equal(terms[k], 0);
    assert_int_equal(score, 0);
}

static void test_duo_and_the_large_board_have_their_own_weights(void **state)
{
    (void)state;
    blokus_state duo, four, two;
    blokus_init(&duo, BLOKUS_MODE_DUO, BLOKUS_SCORING_OFFICIAL);
    blokus_init(&four, BLOKUS_MODE_4P, BLOKUS_SCORING_OFFICIAL);
    blokus_init(&two, BLOKUS_MODE_2P, BLOKUS_SCORING_OFFICIAL);
    assert_ptr_not_equal(blokus_prior_weights_for(&duo), blokus_prior_weights_for(&four));
    assert_ptr_equal(blokus_prior_weights_for(&two), blokus_prior_weights_for(&four));
    /* fitted weights: a larger piece is likelier, all else equal */
    assert_true(blokus_prior_weights_for(&duo)->weights[BLOKUS_PRIOR_SIZE] > 0.0);
    assert_true(blokus_prior_weights_for(&four)->weights[BLOKUS_PRIOR_SIZE] > 0.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_match_their_definitions_in_every_mode),
        cmocka_unit_test(test_a_first_monomino_by_hand),
        cmocka_unit_test(test_scores_are_weighted_sums_in_fixed_point),
        cmocka_unit_test(test_a_pass_scores_zero),
        cmocka_unit_test(test_duo_and_the_large_board_have_their_own_weights),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
