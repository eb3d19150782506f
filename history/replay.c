/* replay.c -- a stored game as the plies a viewer redraws it from.
 *
 * The log holds actions, not positions: a Blokus placement names a piece,
 * an orientation and an origin, and which cells that covers is the rules'
 * business. So the replay is played through the rules (lobby/rebuild.c, the same
 * replay a restart and the SGF export use), and each ply is written with
 * what it did in plain terms: the cells it covered (Reef: with their
 * colors, and the groups it cleared), every seat's score after it, and the
 * time it took. A viewer needs no engine to rebuild every position. */
#include <stdio.h>
#include <string.h>

#include "history/replay.h"
#include "lobby/game_wire.h"
#include "lobby/rebuild.h"
#include "protocol/game_json.h"

struct replay_file {
    json_t *plies;
    bool has_failed; /* an allocation failed on the way */
};

/* Where half B of a Reef placement goes, by orientation / 90. */
static const int REEF_OFFSETS[4][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};

static json_t *blokus_cells(const match_publish *moved)
{
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(moved->move.blokus, cells);
    json_t *list = json_array();
    for (int i = 0; list && i < count; i++)
        json_array_append_new(list, json_pack("[i,i]", cells[i][0], cells[i][1]));
    return list;
}

/* The color a placed Reef cell took: the group's that cleared it, else the
 * cell's on the board after the move. */
static char reef_placed_color(const match_publish *moved, const match *after, int row, int col)
{
    const reef_result *result = &moved->outcome.reef;
    for (int i = 0; i < result->bloom_count; i++)
        if (result->blooms[i].cells >> (row * REEF_COLS + col) & 1)
            return reef_color_letter(result->blooms[i].color);
    return reef_color_letter(reef_cell_color(&after->game.state.reef[moved->seat], row, col));
}

static json_t *reef_cells(const match_publish *moved, const match *after)
{
    json_t *list = json_array();
    reef_action action = moved->move.reef;
    if (!list || action.type != REEF_ACTION_PLACE)
        return list;
    const int *offset = REEF_OFFSETS[(action.orientation / 90) & 3];
    int rows[2] = {action.row, action.row + offset[0]};
    int cols[2] = {action.col, action.col + offset[1]};
    for (int half = 0; half < 2; half++) {
        char color[2] = {reef_placed_color(moved, after, rows[half], cols[half]), '\0'};
        json_array_append_new(list, json_pack("[i,i,s]", rows[half], cols[half], color));
    }
    return list;
}

static json_t *scores_json(const match_publish *moved, int seat_count)
{
    json_t *scores = json_array();
    for (int seat = 0; scores && seat < seat_count; seat++)
        json_array_append_new(scores, json_integer(moved->scores[seat]));
    return scores;
}

static json_t *moved_json(const match_publish *moved, const match *after)
{
    bool is_blokus = after->options.kind == GAME_BLOKUS;
    json_t *ply = json_pack("{s:I, s:i, s:o, s:o, s:o}", "ply", (json_int_t)moved->ply, "seat",
                            moved->seat, "action", game_json_move(moved->move), "cells",
                            is_blokus ? blokus_cells(moved) : reef_cells(moved, after), "scores",
                            scores_json(moved, after->options.seat_count));
    if (ply)
        game_wire_describe_outcome(&after->game, &moved->outcome, ply);
    return ply;
}

static void put_ply(void *context, const match_publish *publish, const store_move *stored,
                    const match *after)
{
    struct replay_file *file = context;
    json_t *ply = publish->kind == MATCH_PUBLISH_MOVED
                      ? moved_json(publish, after)
                      : json_pack("{s:i, s:b}", "seat", publish->seat, "resign", 1);
    json_t *clock = stored->clock_ms >= 0 ? json_integer(stored->clock_ms) : json_null();
    if (!ply || json_object_set_new(ply, "seq", json_integer(stored->seq)) != 0 ||
        json_object_set_new(ply, "time_ms", json_integer(stored->elapsed_ms)) != 0 ||
        json_object_set_new(ply, "clock_ms", clock) != 0 ||
        json_object_set_new(ply, "at_ms", json_integer(stored->at_ms)) != 0 ||
        json_array_append_new(file->plies, ply) != 0)
        file->has_failed = true;
}

/* The board's dimensions, as game.state gives them. */
static json_t *board_json(const match *rebuilt)
{
    if (rebuilt->options.kind == GAME_REEF)
        return json_pack("{s:i, s:i}", "rows", REEF_ROWS, "cols", REEF_COLS);
    int size = rebuilt->options.blokus_mode == BLOKUS_MODE_DUO ? 14 : 20;
    return json_pack("{s:i, s:i}", "rows", size, "cols", size);
}

int replay_export(const store_game_record *record, json_t **out, char *problem, size_t size)
{
    *out = NULL;
    if (record->started_at_ms < 0) {
        snprintf(problem, size, "the game never started");
        return -1;
    }
    struct replay_file file = {json_array(), false};
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    int rc = file.plies ? rebuild_match(record, &config, &rebuilt, put_ply, &file, &failure) : 0;
    if (rc != 0) {
        snprintf(problem, size, "does not replay: %s", failure.message);
        json_decref(file.plies);
        return -1;
    }
    json_t *answer =
        file.plies && !file.has_failed
            ? json_pack("{s:o, s:o}", "board", board_json(&rebuilt), "plies", file.plies)
            : NULL;
    if (!answer) {
        if (file.has_failed)
            json_decref(file.plies);
        snprintf(problem, size, "out of memory");
        return -1;
    }
    *out = answer;
    return 0;
}
