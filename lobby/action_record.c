/* action_record.c -- match_action <-> the move log's text (action_record.h).
 *
 * Reading is split from exactness: the text is cut into words and read
 * leniently (strtol), then written back, and only a text equal to what
 * the writer gives is a record. So there is one spelling per action by
 * construction, and the reader cannot drift from the writer. */
#include "lobby/action_record.h"

#include <assert.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_WORDS 4

void action_record_write(const match_action *action, char *text)
{
    const game_move *move = &action->move;
    if (action->kind != MATCH_ACTION_MOVE)
        snprintf(text, ACTION_RECORD_TEXT_MAX, "%s",
                 action->kind == MATCH_ACTION_RESIGN ? "resign" : "leave");
    else if (move->kind == GAME_MOVE_BLOKUS && move->blokus.piece == BLOKUS_PASS)
        snprintf(text, ACTION_RECORD_TEXT_MAX, "pass");
    else if (move->kind == GAME_MOVE_BLOKUS) {
        assert(move->blokus.piece < BLOKUS_PIECE_COUNT);
        snprintf(text, ACTION_RECORD_TEXT_MAX, "%s %d %d %d",
                 BLOKUS_PIECES[move->blokus.piece].name, move->blokus.orientation, move->blokus.row,
                 move->blokus.col);
    } else if (move->reef.type == REEF_ACTION_SKIP)
        snprintf(text, ACTION_RECORD_TEXT_MAX, "skip");
    else
        snprintf(text, ACTION_RECORD_TEXT_MAX, "%d %d %d", move->reef.row, move->reef.col,
                 move->reef.orientation);
}

/* Reads a decimal integer word within [min, max]. */
static bool read_int(const char *word, long min, long max, int *out)
{
    char *end;
    errno = 0;
    long value = strtol(word, &end, 10);
    if (errno != 0 || end == word || *end != '\0' || value < min || value > max)
        return false;
    *out = (int)value;
    return true;
}

static bool read_blokus(char *const *words, int count, game_move *out)
{
    int piece, orientation, row, col;
    if (count == 1 && strcmp(words[0], "pass") == 0) {
        *out = game_pass();
        return true;
    }
    if (count != 4 || blokus_piece_parse(words[0], &piece) != 0 ||
        !read_int(words[1], 0, UINT8_MAX, &orientation) ||
        !read_int(words[2], INT8_MIN, INT8_MAX, &row) ||
        !read_int(words[3], INT8_MIN, INT8_MAX, &col))
        return false;
    blokus_move move = {(uint8_t)piece, (uint8_t)orientation, (int8_t)row, (int8_t)col};
    *out = game_move_of_blokus(move);
    return true;
}

static bool read_reef(char *const *words, int count, game_move *out)
{
    int row, col, orientation;
    if (count == 1 && strcmp(words[0], "skip") == 0) {
        *out = game_move_of_reef(reef_skip());
        return true;
    }
    if (count != 3 || !read_int(words[0], INT_MIN, INT_MAX, &row) ||
        !read_int(words[1], INT_MIN, INT_MAX, &col) ||
        !read_int(words[2], INT_MIN, INT_MAX, &orientation))
        return false;
    *out = game_move_of_reef(reef_place(row, col, orientation));
    return true;
}

/* Cuts `line` at each space into at most MAX_WORDS words: their count, or
 * -1 when there are more. */
static int split_words(char *line, char **words)
{
    int count = 0;
    for (char *word = line; word; count++) {
        if (count == MAX_WORDS)
            return -1;
        words[count] = word;
        word = strchr(word, ' ');
        if (word)
            *word++ = '\0';
    }
    return count;
}

int action_record_parse(game_kind kind, const char *text, match_action *out)
{
    char line[ACTION_RECORD_TEXT_MAX], *words[MAX_WORDS];
    memset(out, 0, sizeof(*out));
    if (strlen(text) >= sizeof(line))
        return -1;
    memcpy(line, text, strlen(text) + 1);
    int count = split_words(line, words);
    bool is_read = count > 0;
    if (is_read && count == 1 && strcmp(words[0], "resign") == 0)
        out->kind = MATCH_ACTION_RESIGN;
    else if (is_read && count == 1 && strcmp(words[0], "leave") == 0)
        out->kind = MATCH_ACTION_LEAVE;
    else if (is_read)
        is_read = kind == GAME_BLOKUS ? read_blokus(words, count, &out->move)
                                      : read_reef(words, count, &out->move);
    if (!is_read)
        return -1;
    char again[ACTION_RECORD_TEXT_MAX];
    action_record_write(out, again);
    return strcmp(again, text) == 0 ? 0 : -1;
}
