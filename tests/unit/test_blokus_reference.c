/* test_blokus_reference.c -- the fast engine against a slow, obviously
 * correct one.
 *
 * The reference below knows nothing of bitboards: it keeps a plain grid,
 * tries every orientation at every origin, and checks the rules cell by
 * cell as docs/ARCHITECTURE.md, "Blokus rules" writes them. Over many
 * seeded games in every mode, played by random choice and by the greedy
 * and MCTS bots, it must agree with the engine on the full legal move set
 * of every color at every ply, on every move played, and on whose turn it
 * is (automatic passes included) until the end of the game. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/blokus.h"
#include "engine/blokus_bot.h"
#include "engine/rng.h"
#include "unit/blokus_games.h"

#define EMPTY (-1)

struct reference {
    int size;
    int colors;
    int grid[BLOKUS_CLASSIC_SIZE][BLOKUS_CLASSIC_SIZE];
    bool used[BLOKUS_COLORS][BLOKUS_PIECE_COUNT];
    int placed[BLOKUS_COLORS];
    int start[BLOKUS_COLORS][2];
};

static void reference_init(struct reference *ref, const blokus_state *s)
{
    memset(ref, 0, sizeof(*ref));
    ref->size = s->size;
    ref->colors = s->color_count;
    for (int r = 0; r < BLOKUS_CLASSIC_SIZE; r++)
        for (int c = 0; c < BLOKUS_CLASSIC_SIZE; c++)
            ref->grid[r][c] = EMPTY;
    for (int color = 0; color < ref->colors; color++)
        blokus_start_cell(s, color, &ref->start[color][0], &ref->start[color][1]);
}

static int grid_at(const struct reference *ref, int r, int c)
{
    if (r < 0 || c < 0 || r >= ref->size || c >= ref->size)
        return EMPTY;
    return ref->grid[r][c];
}

static bool reference_is_legal(const struct reference *ref, int color, int id, int row, int col)
{
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[id];
    if (ref->used[color][o->piece])
        return false;
    bool touches_corner = false, covers_start = false;
    for (int i = 0; i < o->size; i++) {
        int r = row + o->cells[i][0], c = col + o->cells[i][1];
        if (r < 0 || c < 0 || r >= ref->size || c >= ref->size || ref->grid[r][c] != EMPTY)
            return false;
        if (grid_at(ref, r - 1, c) == color || grid_at(ref, r + 1, c) == color ||
            grid_at(ref, r, c - 1) == color || grid_at(ref, r, c + 1) == color)
            return false;
        touches_corner |=
            grid_at(ref, r - 1, c - 1) == color || grid_at(ref, r - 1, c + 1) == color ||
            grid_at(ref, r + 1, c - 1) == color || grid_at(ref, r + 1, c + 1) == color;
        covers_start |= r == ref->start[color][0] && c == ref->start[color][1];
    }
    return ref->placed[color] == 0 ? covers_start : touches_corner;
}

/* Writes every legal (orientation id, row, col) of `color` as an int
 * triple key id * 10000 + row * 100 + col, ascending. */
static int reference_moves(const struct reference *ref, int color, int *keys)
{
    int count = 0;
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++)
        for (int row = 0; row < ref->size; row++)
            for (int col = 0; col < ref->size; col++)
                if (reference_is_legal(ref, color, id, row, col))
                    keys[count++] = id * 10000 + row * 100 + col;
    return count;
}

static void reference_place(struct reference *ref, int color, blokus_move m)
{
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(m, cells);
    for (int i = 0; i < count; i++)
        ref->grid[cells[i][0]][cells[i][1]] = color;
    ref->used[color][m.piece] = true;
    ref->placed[color]++;
}

static int compare_ints(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

static int engine_moves(const blokus_state *s, int color, int *keys)
{
    static blokus_move moves[BLOKUS_MAX_MOVES];
    int count = blokus_generate_for(s, color, moves);
    for (int i = 0; i < count; i++)
        keys[i] = blokus_orientation_id(moves[i]) * 10000 + moves[i].row * 100 + moves[i].col;
    qsort(keys, (size_t)count, sizeof(int), compare_ints);
    return count;
}

/* Compares the full move sets of every color; returns which have moves. */
static unsigned assert_move_sets_agree(const struct reference *ref, const blokus_state *s)
{
    static int expected[BLOKUS_MAX_MOVES], actual[BLOKUS_MAX_MOVES];
    unsigned movable = 0;
    for (int color = 0; color < ref->colors; color++) {
        int expected_count = reference_moves(ref, color, expected);
        int actual_count = engine_moves(s, color, actual);
        assert_int_equal(actual_count, expected_count);
        assert_memory_equal(actual, expected, sizeof(int) * (size_t)expected_count);
        assert_int_equal(blokus_has_move(s, color), expected_count > 0);
        if (expected_count > 0)
            movable |= 1u << color;
    }
    return movable;
}

/* The color after `color` in rotation that can move, or -1 when none can. */
static int reference_next_color(const struct reference *ref, int color, unsigned movable)
{
    for (int step = 1; step <= ref->colors; step++) {
        int next = (color + step) % ref->colors;
        if (movable & (1u << next))
            return next;
    }
    return -1;
}

static blokus_move choose_greedy(const blokus_state *s, rng *r)
{
    blokus_move m;
    assert_int_equal(blokus_bot_choose(BLOKUS_BOT_GREEDY, s, NULL, rng_next(r), &m), 0);
    return m;
}

/* A small fixed playout budget keeps the game deterministic and quick. */
static blokus_move choose_mcts(const blokus_state *s, rng *r)
{
    blokus_bot_budget budget = {0, 40, NULL};
    blokus_move m;
    assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS, s, &budget, rng_next(r), &m), 0);
    return m;
}

static void check_game(blokus_mode mode, uint64_t seed, blokus_games_chooser choose)
{
    blokus_state s;
    struct reference ref;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    reference_init(&ref, &s);
    rng r = rng_seeded(seed);
    unsigned movable = assert_move_sets_agree(&ref, &s);
    while (movable) {
        assert_false(s.is_over);
        int color = s.to_move;
        blokus_move m = choose(&s, &r);
        int id = blokus_orientation_id(m);
        assert_true(reference_is_legal(&ref, color, id, m.row, m.col));
        assert_int_equal(blokus_check(&s, m), 0);
        blokus_apply(&s, m);
        reference_place(&ref, color, m);
        movable = assert_move_sets_agree(&ref, &s);
        int next = reference_next_color(&ref, color, movable);
        if (next >= 0)
            assert_int_equal(s.to_move, next);
    }
    assert_true(s.is_over);
}

static void test_random_games_agree_with_reference_in_every_mode(void **state)
{
    (void)state;
    blokus_games_random_in_every_mode(check_game, 1, 6);
}

static void test_largest_piece_games_agree_with_reference(void **state)
{
    (void)state;
    blokus_games_largest_in_4p_and_duo(check_game, 100, 4);
}

static void test_bot_games_agree_with_reference(void **state)
{
    (void)state;
    check_game(BLOKUS_MODE_4P, 7, choose_greedy);
    check_game(BLOKUS_MODE_3P, 8, choose_greedy);
    check_game(BLOKUS_MODE_2P, 9, choose_mcts);
    check_game(BLOKUS_MODE_DUO, 10, choose_mcts);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_games_agree_with_reference_in_every_mode),
        cmocka_unit_test(test_largest_piece_games_agree_with_reference),
        cmocka_unit_test(test_bot_games_agree_with_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
