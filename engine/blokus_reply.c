/* blokus_reply.c -- last-good-reply tables (see blokus_reply.h).
 *
 * A move is keyed by its orientation id and origin on a classic board (a
 * Duo move fits the same key space), so a table is a flat array of
 * BLOKUS_COLORS x BLOKUS_MOVE_KEYS moves: some 580 KB, allocated once per search
 * and indexed without hashing. An empty entry holds a pass. */
#include "engine/blokus_reply.h"

#include <stdlib.h>

struct blokus_reply_table {
    blokus_move replies[BLOKUS_COLORS][BLOKUS_MOVE_KEYS];
};

static bool is_pass(blokus_move move)
{
    return move.piece == BLOKUS_PASS;
}

blokus_reply_table *blokus_reply_new(void)
{
    blokus_reply_table *table = malloc(sizeof(*table));
    if (!table)
        return NULL;
    blokus_move pass = {BLOKUS_PASS, 0, 0, 0};
    for (int color = 0; color < BLOKUS_COLORS; color++)
        for (int key = 0; key < BLOKUS_MOVE_KEYS; key++)
            table->replies[color][key] = pass;
    return table;
}

void blokus_reply_free(blokus_reply_table *table)
{
    free(table);
}

void blokus_reply_learn(blokus_reply_table *table, const blokus_move *moves, const uint8_t *colors,
                        const bool *is_win, int count)
{
    for (int i = 1; i < count; i++) {
        if (is_pass(moves[i - 1]) || is_pass(moves[i]))
            continue;
        blokus_move *reply = &table->replies[colors[i]][blokus_move_key(moves[i - 1])];
        if (is_win[i]) {
            *reply = moves[i];
        } else if (blokus_move_equal(*reply, moves[i])) {
            reply->piece = BLOKUS_PASS;
        }
    }
}

bool blokus_reply_find(const blokus_reply_table *table, int color, blokus_move previous,
                       blokus_move *out)
{
    if (is_pass(previous))
        return false;
    *out = table->replies[color][blokus_move_key(previous)];
    return !is_pass(*out);
}
