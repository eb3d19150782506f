/* gen_blokus_book.c -- writes mcts-v2's Duo opening book
 * (engine/blokus_book_table.h) to stdout:
 *
 *   build/engine/gen_blokus_book > engine/blokus_book_table.h
 *
 * Every move of the book is the choice of one long mcts-v2 search without
 * the book (up to BOOK_PLAYOUTS playouts, fewer once its early stop finds
 * the choice settled; seed 1), so the output depends on the engine alone
 * and a rerun writes the same table. The book answers the
 * first moves the built-in bots play: the book's own opening, greedy's,
 * and the openings of mcts-v1 and mcts-v2 at the playouts the lobby's
 * think time gives them, over SAMPLE_SEEDS seeds each. It takes a few
 * minutes on one core; it is not part of the build. */
#include <stdio.h>

#include "engine/blokus_book.h"
#include "engine/blokus_bot.h"
#include "engine/rng.h"

#define BOOK_PLAYOUTS 300000
#define SAMPLE_SEEDS  8
/* The first moves to answer: at most this many distinct ones. */
#define MAX_FIRSTS 64

/* A first move's sampler: a bot and its playouts a move (0: no search). */
struct sampler {
    blokus_bot_kind kind;
    uint32_t playouts;
};

/* mcts-v1 near the lobby's 300 ms and 1 s, mcts-v2 near 300 ms, greedy. */
static const struct sampler SAMPLERS[] = {
    {BLOKUS_BOT_MCTS, 10000},
    {BLOKUS_BOT_MCTS, 40000},
    {BLOKUS_BOT_MCTS2, 5000},
    {BLOKUS_BOT_GREEDY, 0},
};

/* The long search of the book, without the book. */
static blokus_move book_search(const blokus_state *state)
{
    blokus_bot_budget budget = {0, BOOK_PLAYOUTS, NULL};
    blokus_move move = {BLOKUS_PASS, 0, 0, 0};
    if (blokus_bot_search_unbooked(state, &budget, 1, &move, NULL) != 0)
        fprintf(stderr, "gen_blokus_book: search failed\n");
    return move;
}

/* Adds the stored form of `move` to `firsts` unless there; returns the count. */
static int add_first(blokus_move *firsts, int count, blokus_move move)
{
    blokus_move stored = blokus_book_canonical(move);
    for (int i = 0; i < count; i++)
        if (blokus_move_equal(firsts[i], stored))
            return count;
    if (count < MAX_FIRSTS)
        firsts[count++] = stored;
    return count;
}

/* The first move one sampler plays on the empty board with `seed`. */
static blokus_move sample_first(const struct sampler *sampler, uint64_t seed)
{
    blokus_state state;
    blokus_init(&state, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_bot_budget budget = {0, sampler->playouts, NULL};
    blokus_move move = {BLOKUS_PASS, 0, 0, 0};
    if (sampler->kind == BLOKUS_BOT_MCTS2)
        blokus_bot_search_unbooked(&state, &budget, seed, &move, NULL);
    else
        blokus_bot_choose(sampler->kind, &state, &budget, seed, &move);
    return move;
}

static void print_move(const char *prefix, blokus_move move, const char *suffix)
{
    printf("%s{%d, %d, %d, %d}%s", prefix, move.piece, move.orientation, move.row, move.col,
           suffix);
}

int main(void)
{
    blokus_state empty;
    blokus_init(&empty, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    blokus_move opening = book_search(&empty);
    blokus_move firsts[MAX_FIRSTS];
    int count = add_first(firsts, 0, opening);
    rng seeds = rng_seeded(19);
    for (size_t s = 0; s < sizeof(SAMPLERS) / sizeof(SAMPLERS[0]); s++)
        for (int i = 0; i < SAMPLE_SEEDS; i++)
            count = add_first(firsts, count, sample_first(&SAMPLERS[s], rng_next(&seeds)));
    printf("/* blokus_book_table.h -- mcts-v2's Duo opening book: written by\n"
           " * gen_blokus_book (searches of up to %d playouts), not by hand. Moves are\n"
           " * {piece, orientation, row, col}. */\n",
           BOOK_PLAYOUTS);
    print_move("static const blokus_move BOOK_OPENING = ", opening, ";\n\n");
    printf("/* clang-format off */\n");
    printf("static const struct book_answer BOOK_ANSWERS[] = {\n");
    for (int i = 0; i < count; i++) {
        blokus_state state = empty;
        blokus_apply(&state, firsts[i]);
        print_move("    {", firsts[i], ", ");
        print_move("", book_search(&state), "},\n");
        fflush(stdout);
    }
    printf("};\n/* clang-format on */\n");
    return 0;
}
