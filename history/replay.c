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
    json_out *out;
    bool is_first; /* no ply written yet */
};

/* Where half B of a Reef placement goes, by orientation / 90. */
static const int REEF_OFFSETS[4][2] = {{0, 1}, {1, 0}, {0, -1}, {-1, 0}};

static void write_cell(json_out *out, int row, int col)
{
    json_out_text(out, "[");
    json_out_int(out, row);
    json_out_text(out, ",");
    json_out_int(out, col);
}

static void write_blokus_cells(json_out *out, const match_publish *moved)
{
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(moved->move.blokus, cells);
    json_out_text(out, "[");
    for (int i = 0; i < count; i++) {
        if (i > 0)
            json_out_text(out, ",");
        write_cell(out, cells[i][0], cells[i][1]);
        json_out_text(out, "]");
    }
    json_out_text(out, "]");
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

/* A placement's two cells, each with the color it took. */
static void write_reef_cells(json_out *out, const match_publish *moved, const match *after)
{
    reef_action action = moved->move.reef;
    json_out_text(out, "[");
    if (action.type == REEF_ACTION_PLACE) {
        const int *offset = REEF_OFFSETS[(action.orientation / 90) & 3];
        int rows[2] = {action.row, action.row + offset[0]};
        int cols[2] = {action.col, action.col + offset[1]};
        for (int half = 0; half < 2; half++) {
            char color[2] = {reef_placed_color(moved, after, rows[half], cols[half]), '\0'};
            json_out_text(out, half > 0 ? "," : "");
            write_cell(out, rows[half], cols[half]);
            json_out_text(out, ",");
            json_out_string(out, color);
            json_out_text(out, "]");
        }
    }
    json_out_text(out, "]");
}

/* A move's ply up to its outcome: "ply", "seat", "action", "cells",
 * "scores", then "color" or "result". */
static void write_moved(json_out *out, const match_publish *moved, const match *after)
{
    json_out_text(out, "{\"ply\":");
    json_out_int(out, moved->ply);
    json_out_text(out, ",\"seat\":");
    json_out_int(out, moved->seat);
    json_out_text(out, ",\"action\":");
    game_json_write_move(out, moved->move);
    json_out_text(out, ",\"cells\":");
    if (after->options.kind == GAME_BLOKUS)
        write_blokus_cells(out, moved);
    else
        write_reef_cells(out, moved, after);
    json_out_text(out, ",\"scores\":[");
    for (int seat = 0; seat < after->options.seat_count; seat++) {
        if (seat > 0)
            json_out_text(out, ",");
        json_out_int(out, moved->scores[seat]);
    }
    json_out_text(out, "]");
    game_wire_write_outcome(&after->game, &moved->outcome, out);
}

static void put_ply(void *context, const match_publish *publish, const store_move *stored,
                    const match *after)
{
    struct replay_file *file = context;
    json_out *out = file->out;
    if (!file->is_first)
        json_out_text(out, ",");
    file->is_first = false;
    if (publish->kind == MATCH_PUBLISH_MOVED) {
        write_moved(out, publish, after);
    } else {
        json_out_text(out, "{\"seat\":");
        json_out_int(out, publish->seat);
        json_out_text(out, ",\"resign\":true");
    }
    json_out_text(out, ",\"seq\":");
    json_out_int(out, stored->seq);
    json_out_text(out, ",\"time_ms\":");
    json_out_int(out, stored->elapsed_ms);
    json_out_text(out, ",\"clock_ms\":");
    json_out_int_or_null(out, stored->clock_ms);
    json_out_text(out, ",\"at_ms\":");
    json_out_int(out, stored->at_ms);
    json_out_text(out, "}");
}

/* The board's dimensions, as game.state gives them. */
static void write_board(json_out *out, const match *rebuilt)
{
    int rows = REEF_ROWS, cols = REEF_COLS;
    if (rebuilt->options.kind == GAME_BLOKUS)
        rows = cols = rebuilt->options.blokus_mode == BLOKUS_MODE_DUO ? 14 : 20;
    json_out_text(out, "{\"rows\":");
    json_out_int(out, rows);
    json_out_text(out, ",\"cols\":");
    json_out_int(out, cols);
    json_out_text(out, "}");
}

int replay_write(const store_game_record *record, json_out *out, char *problem, size_t size)
{
    if (record->started_at_ms < 0) {
        snprintf(problem, size, "the game never started");
        return -1;
    }
    json_out plies = JSON_OUT_EMPTY; /* the board comes first, known once replayed */
    struct replay_file file = {&plies, true};
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    int rc = rebuild_match(record, &config, &rebuilt, put_ply, &file, &failure);
    if (rc != 0) {
        snprintf(problem, size, "does not replay: %s", failure.message);
    } else {
        json_out_text(out, ",\"board\":");
        write_board(out, &rebuilt);
        json_out_text(out, ",\"plies\":[");
        json_out_raw(out, plies.data ? plies.data : "", plies.length);
        json_out_text(out, "]");
        if (plies.has_failed)
            json_out_value(out, NULL); /* marks the writer failed */
    }
    json_out_free(&plies);
    return rc == 0 ? 0 : -1;
}
