/* test_blokus.c -- the Blokus rules, one behaviour per test.
 *
 * Positions are built by playing moves through the public API, so every
 * test also exercises the incremental bitboard updates. Helper `at` names a
 * move by piece name, orientation and origin, as a player would. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/blokus.h"
#include "engine/rng.h"

static int piece_index(const char *name)
{
    int piece = -1;
    if (blokus_piece_parse(name, &piece) != 0)
        fail_msg("no piece %s", name);
    return piece;
}

static blokus_move at(const char *piece, int orientation, int row, int col)
{
    blokus_move m = {(uint8_t)piece_index(piece), (uint8_t)orientation, (int8_t)row, (int8_t)col};
    return m;
}

static blokus_state new_game(blokus_mode mode)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    return s;
}

/* Plays `m` for whoever is to move and asserts it was accepted. */
static void play_ok(blokus_state *s, blokus_move m)
{
    assert_int_equal(blokus_play(s, blokus_player_to_move(s), m), 0);
}

/* Each color's opening: a monomino on its start corner. */
static void play_corner_monominoes(blokus_state *s)
{
    play_ok(s, at("I1", 0, 0, 0));
    play_ok(s, at("I1", 0, 0, 19));
    play_ok(s, at("I1", 0, 19, 19));
    play_ok(s, at("I1", 0, 19, 0));
}

static void test_there_are_91_orientations_of_21_pieces(void **state)
{
    (void)state;
    static const int expected[BLOKUS_PIECE_COUNT] = {1, 2, 2, 4, 2, 8, 4, 1, 4, 8, 2,
                                                     8, 8, 8, 4, 4, 4, 4, 1, 8, 4};
    int by_size[6] = {0}, squares = 0, total = 0;
    for (int p = 0; p < BLOKUS_PIECE_COUNT; p++) {
        assert_int_equal(BLOKUS_PIECES[p].orientation_count, expected[p]);
        assert_int_equal(BLOKUS_PIECES[p].first_orientation, total);
        by_size[BLOKUS_PIECES[p].size] += BLOKUS_PIECES[p].orientation_count;
        squares += BLOKUS_PIECES[p].size;
        total += BLOKUS_PIECES[p].orientation_count;
    }
    assert_int_equal(total, BLOKUS_ORIENTATION_COUNT);
    assert_int_equal(by_size[1], 1);
    assert_int_equal(by_size[2], 2);
    assert_int_equal(by_size[3], 6);
    assert_int_equal(by_size[4], 19);
    assert_int_equal(by_size[5], 63);
    assert_int_equal(squares, BLOKUS_SQUARES_PER_COLOR);
}

static void test_orientations_are_distinct_and_normalised(void **state)
{
    (void)state;
    for (int a = 0; a < BLOKUS_ORIENTATION_COUNT; a++) {
        const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[a];
        assert_int_equal(o->row_masks[0] != 0, 1);
        int leftmost = 0;
        for (int r = 0; r < o->height; r++)
            leftmost |= o->row_masks[r];
        assert_int_equal(leftmost & 1, 1);
        for (int b = a + 1; b < BLOKUS_ORIENTATION_COUNT; b++)
            assert_memory_not_equal(o->row_masks, BLOKUS_ORIENTATIONS[b].row_masks,
                                    sizeof(o->row_masks));
    }
}

static int placements_on_empty_board(int size)
{
    int total = 0;
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++)
        total += (size - BLOKUS_ORIENTATIONS[id].height + 1) *
                 (size - BLOKUS_ORIENTATIONS[id].width + 1);
    return total;
}

static void test_empty_board_placement_counts(void **state)
{
    (void)state;
    assert_int_equal(placements_on_empty_board(20), 30433);
    assert_int_equal(placements_on_empty_board(14), 13729);
    assert_int_equal(placements_on_empty_board(20), BLOKUS_MAX_MOVES);
}

static void test_perft_classic_matches_reference(void **state)
{
    (void)state;
    static blokus_move buffers[3 * BLOKUS_MAX_MOVES];
    blokus_state s = new_game(BLOKUS_MODE_4P);
    assert_int_equal(blokus_perft(&s, 0, buffers), 1);
    assert_int_equal(blokus_perft(&s, 1, buffers), 58);
    assert_int_equal(blokus_perft(&s, 2, buffers), 3364);
    assert_int_equal(blokus_perft(&s, 3, buffers), 195112);
}

/* Every (orientation, cell) pair puts a distinct placement on an interior
 * start point, and all of them fit on the Duo board. */
static void test_duo_first_move_count_is_every_orientation_cell(void **state)
{
    (void)state;
    static blokus_move buffers[BLOKUS_MAX_MOVES];
    blokus_state s = new_game(BLOKUS_MODE_DUO);
    int cells = 0;
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++)
        cells += BLOKUS_ORIENTATIONS[id].size;
    assert_int_equal(blokus_perft(&s, 1, buffers), cells);
    assert_int_equal(cells, 414);
}

static void test_first_move_must_cover_start_corner(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    assert_int_equal(blokus_play(&s, 0, at("I1", 0, 0, 1)), ENGINE_E_NOT_ON_START);
    assert_int_equal(blokus_play(&s, 0, at("I2", 0, 5, 5)), ENGINE_E_NOT_ON_START);
    assert_int_equal(s.ply, 0);
    assert_int_equal(blokus_play(&s, 0, at("I2", 0, 0, 0)), 0);
    assert_int_equal(blokus_cell(&s, 0, 0), 0);
    assert_int_equal(blokus_cell(&s, 0, 1), 0);
    assert_int_equal(s.to_move, 1);
}

static void test_each_color_starts_in_its_own_corner(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    assert_int_equal(blokus_play(&s, 0, at("I1", 0, 0, 19)), ENGINE_E_NOT_ON_START);
    play_corner_monominoes(&s);
    assert_int_equal(blokus_cell(&s, 0, 0), 0);
    assert_int_equal(blokus_cell(&s, 0, 19), 1);
    assert_int_equal(blokus_cell(&s, 19, 19), 2);
    assert_int_equal(blokus_cell(&s, 19, 0), 3);
}

static void test_edge_contact_with_own_color_is_refused(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_corner_monominoes(&s);
    /* I2 vertical at (1,0)-(2,0) touches blue's (0,0) along an edge. */
    assert_int_equal(blokus_check(&s, at("I2", 1, 1, 0)), ENGINE_E_EDGE_CONTACT);
    /* V3 at (0,1),(1,1),(1,2) covers the corner cell (1,1), but (0,1) is
     * edge-adjacent to (0,0). */
    assert_int_equal(blokus_check(&s, at("V3", 0, 0, 1)), ENGINE_E_EDGE_CONTACT);
}

static void test_corner_contact_with_own_color_is_required(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_corner_monominoes(&s);
    assert_int_equal(blokus_check(&s, at("I2", 0, 5, 5)), ENGINE_E_NO_CORNER);
    assert_int_equal(blokus_check(&s, at("I2", 0, 1, 1)), 0);
}

static void test_overlap_is_refused(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_corner_monominoes(&s);
    play_ok(&s, at("I5", 0, 1, 1));  /* blue (1,1)-(1,5) */
    play_ok(&s, at("I5", 1, 1, 18)); /* yellow (1,18)-(5,18) */
    play_ok(&s, at("I2", 0, 18, 17));
    play_ok(&s, at("I2", 0, 18, 1));
    /* Blue's I4 down yellow's column overlaps it. */
    assert_int_equal(blokus_check(&s, at("I4", 1, 2, 18)), ENGINE_E_OCCUPIED);
    assert_int_equal(blokus_check(&s, at("I1", 0, 1, 3)), ENGINE_E_PIECE_USED);
    assert_int_equal(blokus_check(&s, at("I2", 0, 1, 3)), ENGINE_E_OCCUPIED);
}

static void test_out_of_turn_is_refused_and_changes_nothing(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    blokus_state before = s;
    assert_int_equal(blokus_play(&s, 1, at("I1", 0, 0, 19)), ENGINE_E_NOT_YOUR_TURN);
    assert_memory_equal(&s, &before, sizeof(s));
}

static void test_bad_piece_bounds_and_reuse_are_refused(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    blokus_move bad_piece = {BLOKUS_PIECE_COUNT, 0, 0, 0};
    assert_int_equal(blokus_check(&s, bad_piece), ENGINE_E_BAD_PIECE);
    assert_int_equal(blokus_check(&s, at("I1", 1, 0, 0)), ENGINE_E_BAD_PIECE);
    assert_int_equal(blokus_check(&s, at("I1", 0, -1, 0)), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(blokus_check(&s, at("I5", 0, 0, 16)), ENGINE_E_OUT_OF_BOUNDS);
    play_corner_monominoes(&s);
    assert_int_equal(blokus_check(&s, at("I1", 0, 1, 1)), ENGINE_E_PIECE_USED);
}

static void test_2p_players_own_colors_0_2_and_1_3(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_2P);
    assert_int_equal(blokus_player_count(BLOKUS_MODE_2P), 2);
    int expected_players[] = {0, 1, 0, 1};
    for (int turn = 0; turn < 4; turn++) {
        assert_int_equal(blokus_player_to_move(&s), expected_players[turn]);
        assert_int_equal(blokus_play(&s, 1 - expected_players[turn], at("I1", 0, 0, 0)),
                         ENGINE_E_NOT_YOUR_TURN);
        int row, col;
        blokus_start_cell(&s, s.to_move, &row, &col);
        play_ok(&s, at("I1", 0, row, col));
    }
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&s, scores);
    assert_int_equal(scores[0], 2);
    assert_int_equal(scores[1], 2);
}

static void test_3p_shared_color_rotates_between_players(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_3P);
    static const char *const pieces[] = {"I1", "I2", "I3", "I4"};
    /* Each round the colors 0, 1, 2 step diagonally away from their corner;
     * color 3 is played by players 0, 1, 2, 0 in its successive turns. */
    int expected_shared_player[] = {0, 1, 2, 0};
    for (int round = 0; round < 4; round++) {
        for (int color = 0; color < 4; color++) {
            assert_int_equal(s.to_move, color);
            int expected = color < 3 ? color : expected_shared_player[round];
            assert_int_equal(blokus_player_to_move(&s), expected);
            blokus_move moves[BLOKUS_MAX_MOVES];
            int count = blokus_generate(&s, moves);
            assert_true(count > 0);
            blokus_move chosen = moves[0];
            for (int i = 0; i < count; i++)
                if (strcmp(BLOKUS_PIECES[moves[i].piece].name, pieces[round]) == 0)
                    chosen = moves[i];
            play_ok(&s, chosen);
        }
    }
}

static void test_3p_shared_color_scores_for_nobody(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_3P);
    play_ok(&s, at("I1", 0, 0, 0));
    play_ok(&s, at("I2", 0, 0, 18));
    play_ok(&s, at("I3", 0, 19, 17));
    play_ok(&s, at("I5", 0, 19, 0));
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&s, scores);
    assert_int_equal(scores[0], 1);
    assert_int_equal(scores[1], 2);
    assert_int_equal(scores[2], 3);
    assert_int_equal(scores[3], 0);
    assert_int_equal(blokus_color_owner(&s, 3), -1);
    assert_int_equal(blokus_color_score(&s, 3), 5);
}

static void test_duo_colors_start_on_their_points(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_DUO);
    assert_int_equal(s.size, 14);
    assert_int_equal(blokus_play(&s, 0, at("I1", 0, 0, 0)), ENGINE_E_NOT_ON_START);
    assert_int_equal(blokus_play(&s, 0, at("I1", 0, 9, 9)), ENGINE_E_NOT_ON_START);
    play_ok(&s, at("I1", 0, 4, 4));
    assert_int_equal(blokus_player_to_move(&s), 1);
    assert_int_equal(blokus_play(&s, 1, at("I5", 0, 9, 10)), ENGINE_E_OUT_OF_BOUNDS);
    play_ok(&s, at("I1", 0, 9, 9));
    assert_int_equal(blokus_player_to_move(&s), 0);
}

/* Plays uniformly random legal moves until `stop` holds or the game ends. */
static void play_random_until(blokus_state *s, rng *r, int (*stop)(const blokus_state *))
{
    static blokus_move moves[BLOKUS_MAX_MOVES];
    while (!s->is_over && !stop(s)) {
        int count = blokus_generate(s, moves);
        assert_true(count > 0);
        blokus_apply(s, moves[rng_below(r, (uint32_t)count)]);
    }
}

static int some_color_is_out(const blokus_state *s)
{
    return s->out_mask != 0;
}

static int never(const blokus_state *s)
{
    (void)s;
    return 0;
}

static void test_color_without_moves_passes_automatically(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        rng r = rng_seeded(seed);
        blokus_state s = new_game(BLOKUS_MODE_4P);
        play_random_until(&s, &r, some_color_is_out);
        if (s.is_over)
            continue;
        int out = __builtin_ctz(s.out_mask);
        assert_false(blokus_has_move(&s, out));
        assert_int_not_equal(s.to_move, out);
        blokus_move moves[BLOKUS_MAX_MOVES];
        assert_int_equal(blokus_generate_for(&s, out, moves), 0);
        play_random_until(&s, &r, never);
        return;
    }
    fail_msg("no random game had a color run out before the end");
}

static void test_game_ends_when_no_color_can_move(void **state)
{
    (void)state;
    rng r = rng_seeded(42);
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_random_until(&s, &r, never);
    assert_true(s.is_over);
    for (int color = 0; color < 4; color++)
        assert_false(blokus_has_move(&s, color));
    blokus_move moves[BLOKUS_MAX_MOVES];
    assert_int_equal(blokus_generate(&s, moves), 0);
    assert_int_equal(blokus_player_to_move(&s), -1);
    assert_int_equal(blokus_play(&s, 0, at("I1", 0, 10, 10)), ENGINE_E_GAME_OVER);
}

static void test_explicit_pass_hands_turn_on(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    blokus_move pass = {BLOKUS_PASS, 0, 0, 0};
    assert_int_equal(blokus_play(&s, 1, pass), ENGINE_E_NOT_YOUR_TURN);
    assert_int_equal(blokus_play(&s, 0, pass), 0);
    assert_int_equal(s.to_move, 1);
    assert_int_equal(s.ply, 1);
    assert_true(blokus_has_move(&s, 0));
}

static void test_squares_scoring_counts_placed_squares(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_ok(&s, at("I5", 0, 0, 0));
    play_ok(&s, at("I3", 0, 0, 17));
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&s, scores);
    assert_int_equal(scores[0], 5);
    assert_int_equal(scores[1], 3);
    assert_int_equal(scores[2], 0);
    assert_int_equal(blokus_winners(&s), 1u);
}

static void test_official_scoring_penalties_and_bonuses(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_OFFICIAL);
    assert_int_equal(blokus_color_score(&s, 0), -89);
    s.squares[1] = 80;
    s.pieces_left[1] = 1u << piece_index("X");
    assert_int_equal(blokus_color_score(&s, 1), -9);
    s.squares[2] = BLOKUS_SQUARES_PER_COLOR;
    s.pieces_left[2] = 0;
    s.last_piece[2] = (uint8_t)piece_index("F");
    assert_int_equal(blokus_color_score(&s, 2), 15);
    s.squares[3] = BLOKUS_SQUARES_PER_COLOR;
    s.pieces_left[3] = 0;
    s.last_piece[3] = (uint8_t)piece_index("I1");
    assert_int_equal(blokus_color_score(&s, 3), 20);
    assert_int_equal(blokus_winners(&s), 1u << 3);
}

static void test_official_scoring_in_2p_sums_both_colors(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_2P, BLOKUS_SCORING_OFFICIAL);
    play_ok(&s, at("I5", 0, 0, 0));
    int scores[BLOKUS_MAX_PLAYERS];
    blokus_scores(&s, scores);
    assert_int_equal(scores[0], -89 * 2 + 5);
    assert_int_equal(scores[1], -89 * 2);
}

static void test_ties_share_the_win(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    play_corner_monominoes(&s);
    assert_int_equal(blokus_winners(&s), 0xFu);
}

static void test_move_from_cells_finds_piece_and_orientation(void **state)
{
    (void)state;
    blokus_move m = at("F", 3, 7, 9), found;
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(m, cells);
    assert_int_equal(count, 5);
    int reversed[BLOKUS_MAX_PIECE_SIZE][2];
    for (int i = 0; i < count; i++) {
        reversed[i][0] = cells[count - 1 - i][0];
        reversed[i][1] = cells[count - 1 - i][1];
    }
    assert_int_equal(blokus_move_from_cells((const int(*)[2])reversed, count, &found), 0);
    assert_memory_equal(&found, &m, sizeof(m));
}

static void test_move_from_cells_refuses_non_pieces(void **state)
{
    (void)state;
    blokus_move found;
    const int gap[][2] = {{0, 0}, {0, 2}};
    const int twice[][2] = {{3, 3}, {3, 3}};
    const int square3[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 2}};
    const int far[][2] = {{0, 0}, {9, 9}};
    assert_int_equal(blokus_move_from_cells(gap, 2, &found), ENGINE_E_NOT_A_PIECE);
    assert_int_equal(blokus_move_from_cells(twice, 2, &found), ENGINE_E_NOT_A_PIECE);
    assert_int_equal(blokus_move_from_cells(square3, 5, &found), ENGINE_E_NOT_A_PIECE);
    assert_int_equal(blokus_move_from_cells(far, 2, &found), ENGINE_E_NOT_A_PIECE);
    assert_int_equal(blokus_move_from_cells(gap, 0, &found), ENGINE_E_NOT_A_PIECE);
}

static void test_cells_far_off_the_board_are_out_of_bounds(void **state)
{
    (void)state;
    blokus_move found;
    const int far[][2] = {{256, 256}};
    const int huge[][2] = {{2147483647, 0}, {-2147483647, 0}};
    assert_int_equal(blokus_move_from_cells(far, 1, &found), ENGINE_E_OUT_OF_BOUNDS);
    assert_int_equal(blokus_move_from_cells(huge, 2, &found), ENGINE_E_OUT_OF_BOUNDS);
}

/* The shared color's owner keeps rotating 0, 1, 2 however long the game:
 * here hundreds of rounds of explicit passes (a timeout policy). */
static void test_3p_shared_rotation_survives_long_games(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_3P);
    blokus_move pass = {BLOKUS_PASS, 0, 0, 0};
    for (int round = 0; round < 600; round++) {
        for (int color = 0; color < 3; color++)
            assert_int_equal(blokus_play(&s, color, pass), 0);
        assert_int_equal(blokus_player_to_move(&s), round % 3);
        assert_int_equal(blokus_play(&s, round % 3, pass), 0);
    }
    assert_int_equal(s.ply, 2400);
}

static void test_hints_list_attach_and_forbidden_cells(void **state)
{
    (void)state;
    blokus_state s = new_game(BLOKUS_MODE_4P);
    assert_true(blokus_is_attach_cell(&s, 0, 0, 0));
    assert_false(blokus_is_attach_cell(&s, 0, 1, 1));
    play_ok(&s, at("I2", 0, 0, 0)); /* blue (0,0),(0,1) */
    assert_false(blokus_is_free_cell(&s, 0, 0, 0));
    assert_false(blokus_is_free_cell(&s, 0, 1, 0));
    assert_false(blokus_is_free_cell(&s, 0, 0, 2));
    assert_true(blokus_is_free_cell(&s, 1, 0, 2));
    assert_true(blokus_is_attach_cell(&s, 0, 1, 2));
    assert_false(blokus_is_attach_cell(&s, 0, 0, 0));
    assert_false(blokus_is_attach_cell(&s, 0, 1, 1));
    assert_false(blokus_is_free_cell(&s, 1, 0, 1));
    assert_false(blokus_is_free_cell(&s, 0, 20, 0));
}

static int outline_of(const char *piece, bool sides)
{
    int cells[BLOKUS_MAX_OUTLINE][2];
    int id = BLOKUS_PIECES[piece_index(piece)].first_orientation;
    return sides ? blokus_orientation_sides(id, cells) : blokus_orientation_corners(id, cells);
}

static void test_orientation_outline_lists_sides_and_corners(void **state)
{
    (void)state;
    assert_int_equal(outline_of("I1", true), 4);
    assert_int_equal(outline_of("I1", false), 4);
    assert_int_equal(outline_of("I5", true), 12);
    assert_int_equal(outline_of("I5", false), 4);
    assert_int_equal(outline_of("X", true), 8);
    assert_int_equal(outline_of("X", false), 8);
    int cells[BLOKUS_MAX_OUTLINE][2];
    int count =
        blokus_orientation_corners(BLOKUS_PIECES[piece_index("V3")].first_orientation, cells);
    /* V3 is (0,0),(1,0),(1,1): corners (-1,-1),(-1,1),(0,2),(2,-1),(2,2). */
    const int expected[][2] = {{-1, -1}, {-1, 1}, {0, 2}, {2, -1}, {2, 2}};
    assert_int_equal(count, 5);
    assert_memory_equal(cells, expected, sizeof(expected));
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++) {
        assert_in_range(blokus_orientation_sides(id, cells), 4, BLOKUS_MAX_OUTLINE);
        assert_in_range(blokus_orientation_corners(id, cells), 4, BLOKUS_MAX_OUTLINE);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_there_are_91_orientations_of_21_pieces),
        cmocka_unit_test(test_orientations_are_distinct_and_normalised),
        cmocka_unit_test(test_empty_board_placement_counts),
        cmocka_unit_test(test_perft_classic_matches_reference),
        cmocka_unit_test(test_duo_first_move_count_is_every_orientation_cell),
        cmocka_unit_test(test_first_move_must_cover_start_corner),
        cmocka_unit_test(test_each_color_starts_in_its_own_corner),
        cmocka_unit_test(test_edge_contact_with_own_color_is_refused),
        cmocka_unit_test(test_corner_contact_with_own_color_is_required),
        cmocka_unit_test(test_overlap_is_refused),
        cmocka_unit_test(test_out_of_turn_is_refused_and_changes_nothing),
        cmocka_unit_test(test_bad_piece_bounds_and_reuse_are_refused),
        cmocka_unit_test(test_2p_players_own_colors_0_2_and_1_3),
        cmocka_unit_test(test_3p_shared_color_rotates_between_players),
        cmocka_unit_test(test_3p_shared_color_scores_for_nobody),
        cmocka_unit_test(test_duo_colors_start_on_their_points),
        cmocka_unit_test(test_color_without_moves_passes_automatically),
        cmocka_unit_test(test_game_ends_when_no_color_can_move),
        cmocka_unit_test(test_explicit_pass_hands_turn_on),
        cmocka_unit_test(test_squares_scoring_counts_placed_squares),
        cmocka_unit_test(test_official_scoring_penalties_and_bonuses),
        cmocka_unit_test(test_official_scoring_in_2p_sums_both_colors),
        cmocka_unit_test(test_ties_share_the_win),
        cmocka_unit_test(test_move_from_cells_finds_piece_and_orientation),
        cmocka_unit_test(test_move_from_cells_refuses_non_pieces),
        cmocka_unit_test(test_cells_far_off_the_board_are_out_of_bounds),
        cmocka_unit_test(test_3p_shared_rotation_survives_long_games),
        cmocka_unit_test(test_hints_list_attach_and_forbidden_cells),
        cmocka_unit_test(test_orientation_outline_lists_sides_and_corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
