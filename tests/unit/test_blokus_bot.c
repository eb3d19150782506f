/* test_blokus_bot.c -- the built-in Blokus bots, one behaviour per test.
 *
 * Whole games check legality in every mode; replays check determinism;
 * a short match checks that greedy really is stronger than random; and a
 * position built from a picture checks that MCTS reads ahead where the
 * greedy heuristic does not. MCTS runs with small playout budgets so the
 * file stays fast under the sanitizers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "engine/blokus_bot.h"
#include "engine/rng.h"

#define SMALL_PLAYOUTS 12

static const blokus_bot_budget SMALL_BUDGET = {0, SMALL_PLAYOUTS, NULL};

static int piece_index(const char *name)
{
    int piece = -1;
    if (blokus_piece_parse(name, &piece) != 0)
        fail_msg("no piece %s", name);
    return piece;
}

/* Plays one game in which `kinds[seat]` moves for each seat, checking every
 * move with the rules before applying it; returns the winners. */
static unsigned play_game(blokus_mode mode, const blokus_bot_kind *kinds, uint64_t seed,
                          blokus_move *record, int *record_length)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    rng stream = rng_seeded(seed);
    int length = 0;
    while (!s.is_over) {
        int player = blokus_player_to_move(&s);
        blokus_move m;
        assert_int_equal(blokus_bot_choose(kinds[player], &s, &SMALL_BUDGET, rng_next(&stream), &m),
                         0);
        assert_int_equal(blokus_check(&s, m), 0);
        assert_int_equal(blokus_play(&s, player, m), 0);
        if (record)
            record[length++] = m;
    }
    if (record_length)
        *record_length = length;
    return blokus_winners(&s);
}

/* A position drawn as rows of '0'..'3' (a color's cell) and '.' (empty),
 * with free and attach cells derived by the rules. The picture fixes the
 * board only; pieces left are set by the caller, and each color's squares
 * follow from them. */
static void draw_position(blokus_state *s, const char *const *picture)
{
    for (int row = 0; row < s->size; row++)
        for (int col = 0; col < s->size; col++)
            if (picture[row][col] != '.')
                s->own[picture[row][col] - '0'][row] |= 1u << col;
    uint32_t full = (1u << s->size) - 1;
    for (int color = 0; color < BLOKUS_COLORS; color++) {
        const uint32_t *own = s->own[color];
        for (int row = 0; row < s->size; row++) {
            uint32_t occupied = s->own[0][row] | s->own[1][row] | s->own[2][row] | s->own[3][row];
            uint32_t above = row > 0 ? own[row - 1] : 0, below = own[row + 1];
            uint32_t edges = above | below | (own[row] << 1) | (own[row] >> 1);
            uint32_t corners = ((above | below) << 1) | ((above | below) >> 1);
            s->free[color][row] = full & ~occupied & ~edges;
            s->attach[color][row] = s->free[color][row] & corners;
        }
    }
}

static void set_pieces_left(blokus_state *s, int color, const char *const *names, int count)
{
    s->pieces_left[color] = 0;
    s->squares[color] = BLOKUS_SQUARES_PER_COLOR;
    for (int i = 0; i < count; i++) {
        int piece = piece_index(names[i]);
        s->pieces_left[color] |= 1u << piece;
        s->squares[color] = (uint8_t)(s->squares[color] - BLOKUS_PIECES[piece].size);
    }
}

/* A 2p endgame, blue (player 0, colors 0 and 2) to move, one square behind.
 * Blue has I1 and I2 left, yellow (player 1) only I2; red and green, the
 * walls, are finished. The slot at (5,5)-(5,6) is yellow's last place for
 * its I2; blue can only put its I1 at (5,5) there, since (5,6) touches blue
 * along an edge. Blue's own slot (10,10)-(10,11) takes its I2 or its I1.
 *   I2 in its own slot:  yellow fills the shared slot, blue's I1 finds no
 *                        place: 2 squares each, yellow wins by one.
 *   I1 in the shared slot: yellow cannot move, blue adds its I2: blue wins.
 * The greedy heuristic prefers the larger piece; search must see that the
 * blocking monomino is the only winning move. */
static void blocking_position(blokus_state *s, const char *const *blue_pieces, int blue_count)
{
    static const char *const picture[BLOKUS_CLASSIC_SIZE] = {
        "22222222222222222222", "22222222222222222222", "22222222222222222222",
        "22222222222222222222", "22220202222222222222", "22222..2222222222222",
        "22222221222222222222", "22222222222222222222", "22222222222222222222",
        "22222222202222222222", "2222222222..22222222", "22222222222222222222",
        "22222222222222222222", "22222222222222222222", "22222222222222222222",
        "22222222222222222222", "22222222222222222222", "22222222222222222222",
        "22222222222222222222", "22222222222222222222"};
    static const char *const yellow_pieces[] = {"I2"};
    blokus_init(s, BLOKUS_MODE_2P, BLOKUS_SCORING_SQUARES);
    draw_position(s, picture);
    set_pieces_left(s, 0, blue_pieces, blue_count);
    set_pieces_left(s, 1, yellow_pieces, 1);
    set_pieces_left(s, 2, NULL, 0);
    set_pieces_left(s, 3, NULL, 0);
    s->out_mask = (1u << 2) | (1u << 3);
    s->ply = 80;
}

static const blokus_move BLOCKING_MOVE = {0, 0, 5, 5}; /* I1 on the shared slot */

static void test_bot_names_parse_and_print(void **state)
{
    (void)state;
    static const char *const names[] = {"random", "greedy", "mcts"};
    for (int i = 0; i < 3; i++) {
        blokus_bot_kind kind;
        assert_int_equal(blokus_bot_parse(names[i], &kind), 0);
        assert_string_equal(blokus_bot_name(kind), names[i]);
    }
    blokus_bot_kind kind;
    assert_int_equal(blokus_bot_parse("alphabeta", &kind), ENGINE_E_BAD_ARGUMENT);
    assert_string_equal(blokus_bot_name((blokus_bot_kind)99), "unknown");
}

/* selfplay's levels: the lobby's four, and mcts-v1 as another name of
 * mcts, which the lobby does not accept. */
static void test_selfplay_levels_parse_and_the_lobby_offers_mcts_v2(void **state)
{
    (void)state;
    blokus_bot_kind kind;
    assert_int_equal(blokus_bot_parse_level("mcts-v1", &kind), 0);
    assert_int_equal(kind, BLOKUS_BOT_MCTS);
    assert_int_equal(blokus_bot_parse_level("mcts-v2", &kind), 0);
    assert_int_equal(kind, BLOKUS_BOT_MCTS2);
    assert_string_equal(blokus_bot_name(kind), "mcts-v2");
    assert_int_equal(blokus_bot_parse_level("greedy", &kind), 0);
    assert_int_equal(kind, BLOKUS_BOT_GREEDY);
    assert_int_equal(blokus_bot_parse("mcts-v2", &kind), 0);
    assert_int_equal(kind, BLOKUS_BOT_MCTS2);
    assert_int_equal(blokus_bot_parse("mcts-v1", &kind), ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(blokus_bot_parse_level("mcts-v3", &kind), ENGINE_E_BAD_ARGUMENT);
}

static void test_every_bot_plays_only_legal_moves_in_every_mode(void **state)
{
    (void)state;
    static const blokus_bot_kind seats[][BLOKUS_MAX_PLAYERS] = {
        {BLOKUS_BOT_RANDOM, BLOKUS_BOT_GREEDY, BLOKUS_BOT_MCTS, BLOKUS_BOT_GREEDY},
        {BLOKUS_BOT_MCTS, BLOKUS_BOT_RANDOM, BLOKUS_BOT_GREEDY, BLOKUS_BOT_RANDOM},
        {BLOKUS_BOT_GREEDY, BLOKUS_BOT_MCTS, BLOKUS_BOT_RANDOM, BLOKUS_BOT_MCTS},
        {BLOKUS_BOT_MCTS2, BLOKUS_BOT_MCTS, BLOKUS_BOT_MCTS2, BLOKUS_BOT_GREEDY},
    };
    static const blokus_mode modes[] = {BLOKUS_MODE_4P, BLOKUS_MODE_3P, BLOKUS_MODE_2P,
                                        BLOKUS_MODE_DUO};
    for (int m = 0; m < 4; m++)
        for (int i = 0; i < 4; i++)
            play_game(modes[m], seats[i], (uint64_t)(10 * m + i), NULL, NULL);
}

static void test_bots_refuse_a_finished_game(void **state)
{
    (void)state;
    blokus_state s;
    static const char *const blue_pieces[] = {"I2"};
    blocking_position(&s, blue_pieces, 1);
    s.is_over = 1;
    for (int kind = BLOKUS_BOT_RANDOM; kind <= BLOKUS_BOT_MCTS2; kind++) {
        blokus_move m;
        assert_int_equal(blokus_bot_choose((blokus_bot_kind)kind, &s, &SMALL_BUDGET, 1, &m),
                         ENGINE_E_GAME_OVER);
    }
}

static void test_mcts_needs_a_time_or_playout_limit(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget unlimited = {0, 0, NULL};
    blokus_move m;
    assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS, &s, &unlimited, 1, &m),
                     ENGINE_E_BAD_ARGUMENT);
    assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS, &s, NULL, 1, &m), ENGINE_E_BAD_ARGUMENT);
}

static void test_random_bot_can_draw_every_legal_move(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    blokus_move moves[64];
    int count = blokus_generate(&s, moves);
    bool seen[64] = {false};
    int distinct = 0;
    for (uint64_t seed = 0; seed < 2000 && distinct < count; seed++) {
        blokus_move m;
        assert_int_equal(blokus_bot_choose(BLOKUS_BOT_RANDOM, &s, NULL, seed, &m), 0);
        for (int i = 0; i < count; i++) {
            if (blokus_move_equal(m, moves[i]) && !seen[i]) {
                seen[i] = true;
                distinct++;
            }
        }
    }
    assert_int_equal(distinct, count);
}

static void test_greedy_opens_with_a_five_square_piece(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    for (uint64_t seed = 0; seed < 8; seed++) {
        blokus_move m;
        assert_int_equal(blokus_bot_choose(BLOKUS_BOT_GREEDY, &s, NULL, seed, &m), 0);
        assert_int_equal(BLOKUS_PIECES[m.piece].size, 5);
    }
}

static void test_random_and_greedy_replay_the_same_game_for_the_same_seed(void **state)
{
    (void)state;
    static const blokus_bot_kind kinds[] = {BLOKUS_BOT_RANDOM, BLOKUS_BOT_GREEDY, BLOKUS_BOT_RANDOM,
                                            BLOKUS_BOT_GREEDY};
    blokus_move first[BLOKUS_COLORS * BLOKUS_PIECE_COUNT];
    blokus_move second[BLOKUS_COLORS * BLOKUS_PIECE_COUNT];
    int first_length, second_length;
    play_game(BLOKUS_MODE_4P, kinds, 42, first, &first_length);
    play_game(BLOKUS_MODE_4P, kinds, 42, second, &second_length);
    assert_int_equal(first_length, second_length);
    for (int i = 0; i < first_length; i++)
        assert_true(blokus_move_equal(first[i], second[i]));
}

static void test_mcts_with_a_playout_budget_is_deterministic(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_2P, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {0, 100, NULL};
    rng stream = rng_seeded(5);
    for (int ply = 0; ply < 8; ply++) {
        blokus_move first, second;
        blokus_bot_stats stats;
        uint64_t seed = rng_next(&stream);
        assert_int_equal(blokus_bot_mcts(&s, &budget, seed, &first, &stats), 0);
        assert_int_equal(stats.playouts, budget.playouts);
        assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS, &s, &budget, seed, &second), 0);
        assert_true(blokus_move_equal(first, second));
        blokus_apply(&s, first);
    }
}

static void test_mcts_v2_with_a_playout_budget_is_deterministic(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {0, 100, NULL};
    rng stream = rng_seeded(6);
    for (int ply = 0; ply < 8; ply++) {
        blokus_move first, second;
        blokus_bot_stats stats;
        uint64_t seed = rng_next(&stream);
        assert_int_equal(blokus_bot_search(BLOKUS_BOT_MCTS2, &s, &budget, seed, &first, &stats), 0);
        assert_true(stats.playouts <= budget.playouts);
        assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS2, &s, &budget, seed, &second), 0);
        assert_true(blokus_move_equal(first, second));
        assert_int_equal(blokus_check(&s, first), 0);
        blokus_apply(&s, first);
    }
}

/* The FNV-1a hash of the moves of a game `kind` plays against itself with
 * 60 playouts a move, seed 19; *plies gets the game's length. */
static uint64_t self_game_hash(blokus_bot_kind kind, blokus_mode mode, int *plies)
{
    blokus_state s;
    blokus_init(&s, mode, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {0, 60, NULL};
    rng stream = rng_seeded(19);
    uint64_t hash = 1469598103934665603ull;
    for (*plies = 0; !s.is_over; ++*plies) {
        blokus_move m;
        assert_int_equal(blokus_bot_choose(kind, &s, &budget, rng_next(&stream), &m), 0);
        hash = (hash ^ (uint64_t)(blokus_move_key(m) + 1)) * 1099511628211ull;
        blokus_apply(&s, m);
    }
    return hash;
}

/* mcts-v1 is the fixed reference level: the games it played before mcts-v2
 * changed (recorded from that build) must replay move for move. */
static void test_mcts_v1_replays_its_recorded_games(void **state)
{
    (void)state;
    int plies;
    assert_true(self_game_hash(BLOKUS_BOT_MCTS, BLOKUS_MODE_DUO, &plies) == 0xbafd7f831c4cbe0full);
    assert_int_equal(plies, 29);
    assert_true(self_game_hash(BLOKUS_BOT_MCTS, BLOKUS_MODE_4P, &plies) == 0x8af052878a729745ull);
    assert_int_equal(plies, 73);
}

static void test_search_refuses_a_kind_that_does_not_search(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_move m;
    assert_int_equal(blokus_bot_search(BLOKUS_BOT_GREEDY, &s, &SMALL_BUDGET, 1, &m, NULL),
                     ENGINE_E_BAD_ARGUMENT);
}

static void test_mcts_stops_at_its_time_limit(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {20, 0, NULL};
    blokus_bot_stats stats;
    blokus_move m;
    assert_int_equal(blokus_bot_mcts(&s, &budget, 1, &m, &stats), 0);
    assert_true(stats.playouts > 0);
    assert_true(stats.seconds >= 0.020);
    assert_true(stats.seconds < 1.0); /* one playout past the deadline, even under sanitizers */
    assert_int_equal(blokus_check(&s, m), 0);
}

static void test_mcts_stops_at_once_when_cancelled(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_4P, BLOKUS_SCORING_SQUARES);
    atomic_bool cancel = true;
    blokus_bot_budget budget = {60 * 1000, 0, &cancel}; /* a minute, unless cancelled */
    blokus_bot_stats stats;
    blokus_move m;
    assert_int_equal(blokus_bot_mcts(&s, &budget, 1, &m, &stats), 0);
    assert_int_equal(stats.playouts, 0);
    assert_true(stats.seconds < 1.0);
    assert_int_equal(blokus_check(&s, m), 0); /* the best move so far is still legal */
}

static void test_mcts_plays_a_forced_move_without_searching(void **state)
{
    (void)state;
    blokus_state s;
    static const char *const blue_pieces[] = {"I2"};
    blocking_position(&s, blue_pieces, 1);
    blokus_move moves[8];
    assert_int_equal(blokus_generate(&s, moves), 1);
    blokus_bot_stats stats;
    blokus_move m;
    assert_int_equal(blokus_bot_mcts(&s, &SMALL_BUDGET, 1, &m, &stats), 0);
    assert_true(blokus_move_equal(m, moves[0]));
    assert_int_equal(stats.playouts, 0);
}

static void test_greedy_misses_the_blocking_move_that_mcts_finds(void **state)
{
    (void)state;
    blokus_state s;
    static const char *const blue_pieces[] = {"I1", "I2"};
    blocking_position(&s, blue_pieces, 2);
    blokus_move moves[8];
    assert_int_equal(blokus_generate(&s, moves), 3);
    blokus_move m;
    assert_int_equal(blokus_bot_choose(BLOKUS_BOT_GREEDY, &s, NULL, 1, &m), 0);
    assert_int_equal(BLOKUS_PIECES[m.piece].name[1], '2');
    for (uint64_t seed = 1; seed <= 5; seed++) {
        assert_int_equal(blokus_bot_choose(BLOKUS_BOT_MCTS, &s, &SMALL_BUDGET, seed, &m), 0);
        assert_true(blokus_move_equal(m, BLOCKING_MOVE));
    }
    blokus_apply(&s, BLOCKING_MOVE);
    assert_int_equal(s.to_move, 0); /* yellow is out: the slot is blocked */
}

/* The blocking position again, for mcts-v2 with a budget it does not need:
 * the blocking move wins every playout, so it soon leads the others by
 * more visits than are left, and the search stops before its limit. */
static void test_mcts_v2_finds_the_blocking_move_and_stops_early(void **state)
{
    (void)state;
    blokus_state s;
    static const char *const blue_pieces[] = {"I1", "I2"};
    blocking_position(&s, blue_pieces, 2);
    blokus_bot_budget budget = {0, 2000, NULL};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        blokus_move m;
        blokus_bot_stats stats;
        assert_int_equal(blokus_bot_search(BLOKUS_BOT_MCTS2, &s, &budget, seed, &m, &stats), 0);
        assert_true(blokus_move_equal(m, BLOCKING_MOVE));
        assert_true(stats.playouts < budget.playouts);
        assert_true(stats.playouts > budget.playouts / 2); /* a lead is worth half the rest */
    }
}

static void test_greedy_wins_at_least_80_percent_of_2p_games_against_random(void **state)
{
    (void)state;
    const int games = 20;
    double greedy_wins = 0;
    for (int game = 0; game < games; game++) {
        /* Seats alternate, so greedy moves first in half of the games. */
        int greedy_seat = game % 2;
        blokus_bot_kind kinds[2];
        kinds[greedy_seat] = BLOKUS_BOT_GREEDY;
        kinds[1 - greedy_seat] = BLOKUS_BOT_RANDOM;
        unsigned winners = play_game(BLOKUS_MODE_2P, kinds, (uint64_t)game, NULL, NULL);
        if (winners & (1u << greedy_seat))
            greedy_wins += 1.0 / __builtin_popcount(winners);
    }
    assert_true(greedy_wins >= 0.8 * games);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bot_names_parse_and_print),
        cmocka_unit_test(test_selfplay_levels_parse_and_the_lobby_offers_mcts_v2),
        cmocka_unit_test(test_every_bot_plays_only_legal_moves_in_every_mode),
        cmocka_unit_test(test_bots_refuse_a_finished_game),
        cmocka_unit_test(test_mcts_needs_a_time_or_playout_limit),
        cmocka_unit_test(test_random_bot_can_draw_every_legal_move),
        cmocka_unit_test(test_greedy_opens_with_a_five_square_piece),
        cmocka_unit_test(test_random_and_greedy_replay_the_same_game_for_the_same_seed),
        cmocka_unit_test(test_mcts_with_a_playout_budget_is_deterministic),
        cmocka_unit_test(test_mcts_v2_with_a_playout_budget_is_deterministic),
        cmocka_unit_test(test_mcts_v1_replays_its_recorded_games),
        cmocka_unit_test(test_search_refuses_a_kind_that_does_not_search),
        cmocka_unit_test(test_mcts_stops_at_its_time_limit),
        cmocka_unit_test(test_mcts_stops_at_once_when_cancelled),
        cmocka_unit_test(test_mcts_plays_a_forced_move_without_searching),
        cmocka_unit_test(test_greedy_misses_the_blocking_move_that_mcts_finds),
        cmocka_unit_test(test_mcts_v2_finds_the_blocking_move_and_stops_early),
        cmocka_unit_test(test_greedy_wins_at_least_80_percent_of_2p_games_against_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
