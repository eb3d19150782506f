/* blokus_book_table.h -- mcts-v2's Duo opening book: written by
 * gen_blokus_book (searches of up to 300000 playouts), not by hand. Moves are
 * {piece, orientation, row, col}. */
static const blokus_move BOOK_OPENING = {9, 3, 4, 4};

/* clang-format off */
static const struct book_answer BOOK_ANSWERS[] = {
    {{9, 3, 4, 4}, {19, 0, 9, 6}},
    {{9, 0, 3, 4}, {12, 2, 8, 6}},
    {{12, 0, 4, 4}, {14, 0, 7, 8}},
    {{17, 0, 4, 4}, {14, 3, 8, 7}},
    {{19, 3, 4, 4}, {9, 2, 8, 7}},
    {{14, 0, 4, 4}, {9, 1, 7, 7}},
    {{12, 2, 4, 4}, {18, 0, 7, 8}},
    {{17, 0, 3, 4}, {18, 0, 8, 7}},
    {{20, 0, 4, 4}, {9, 4, 7, 8}},
    {{9, 1, 4, 3}, {19, 0, 9, 6}},
};
/* clang-format on */
