/* blokus_book_table.h -- mcts-v2's Duo opening book: written by
 * gen_blokus_book (300000 playouts a move), not by hand. Moves are
 * {piece, orientation, row, col}. */
static const blokus_move BOOK_OPENING = {9, 4, 4, 4};

/* clang-format off */
static const struct book_answer BOOK_ANSWERS[] = {
    {{9, 3, 4, 4}, {12, 0, 8, 6}},
    {{9, 0, 3, 4}, {12, 2, 8, 6}},
    {{12, 0, 4, 4}, {12, 5, 7, 8}},
    {{17, 0, 4, 4}, {14, 3, 8, 7}},
    {{19, 1, 3, 4}, {20, 3, 7, 7}},
    {{9, 2, 4, 3}, {12, 5, 6, 8}},
    {{9, 3, 3, 4}, {12, 2, 8, 6}},
};
/* clang-format on */
