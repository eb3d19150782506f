/* sgf.c -- a stored Blokus game as the SGF file the Pentobi program reads.
 *
 * The format (docs/ARCHITECTURE.md, "Pentobi SGF export"): one game
 * tree, a root node naming the variant, the date, the players and (two
 * players) the result, then one node per placement whose property is the
 * color that played it -- B and W in Duo, 1 to 4 otherwise -- and whose
 * value lists the covered cells, bottom row first, left to right, as a
 * column letter and a row number counted from the bottom ('a1' is the
 * lower left: our row r is number size - r). Passes are not written. The
 * moves come from replaying the stored log through the rules (lobby/rebuild.c),
 * so an export is as checked as a restart. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "history/sgf.h"
#include "protocol/json_out.h"
#include "lobby/rebuild.h"

struct sgf_file {
    json_out text;  /* the root node, then the whole file (plain text) */
    json_out moves; /* the move nodes, as the replay plays them */
    int size;       /* board side */
    blokus_mode mode;
};

/* Appends an SGF text value: ']' and '\' are escaped. */
static void put_value(json_out *text, const char *value)
{
    for (const char *c = value; *c; c++) {
        if (*c == ']' || *c == '\\')
            json_out_raw(text, "\\", 1);
        json_out_raw(text, c, 1);
    }
}

static void put_property(json_out *text, const char *name, const char *value)
{
    json_out_text(text, name);
    json_out_raw(text, "[", 1);
    put_value(text, value);
    json_out_raw(text, "]", 1);
}

static int cell_order(const void *a, const void *b)
{
    const int *left = a, *right = b; /* (row, col): a higher row is further down */
    if (left[0] != right[0])
        return right[0] - left[0];
    return left[1] - right[1];
}

static void put_move(void *context, const match_publish *moved, const store_move *stored,
                     const match *after)
{
    (void)stored;
    (void)after;
    struct sgf_file *file = context;
    if (moved->kind != MATCH_PUBLISH_MOVED)
        return; /* a resignation: SGF has no node for it */
    int cells[BLOKUS_MAX_PIECE_SIZE][2];
    int count = blokus_move_cells(moved->move.blokus, cells);
    if (count == 0)
        return; /* a pass */
    qsort(cells, (size_t)count, sizeof(cells[0]), cell_order);
    char color[2] = {(char)('1' + moved->outcome.color), '\0'};
    if (file->mode == BLOKUS_MODE_DUO)
        color[0] = moved->outcome.color == 0 ? 'B' : 'W';
    json_out_raw(&file->moves, ";", 1);
    json_out_text(&file->moves, color);
    json_out_raw(&file->moves, "[", 1);
    for (int i = 0; i < count; i++) {
        char point[8];
        int length = snprintf(point, sizeof(point), "%s%c%d", i ? "," : "", 'a' + cells[i][1],
                              file->size - cells[i][0]);
        json_out_raw(&file->moves, point, (size_t)length);
    }
    json_out_raw(&file->moves, "]", 1);
}

static const char *variant_of(blokus_mode mode)
{
    switch (mode) {
    case BLOKUS_MODE_2P:
        return "Blokus Two-Player";
    case BLOKUS_MODE_3P:
        return "Blokus Three-Player";
    case BLOKUS_MODE_DUO:
        return "Blokus Duo";
    default:
        return "Blokus";
    }
}

static void put_players(struct sgf_file *file, const store_game_record *record)
{
    static const char *const NUMBERED[] = {"P1", "P2", "P3", "P4"};
    bool is_two_players = file->mode == BLOKUS_MODE_DUO || file->mode == BLOKUS_MODE_2P;
    for (int i = 0; i < record->seat_count; i++) {
        const store_seat *seat = &record->seats[i];
        const char *name = seat->bot[0] ? seat->bot : seat->player_name;
        const char *property =
            is_two_players ? (seat->seat == 0 ? "PB" : "PW") : NUMBERED[seat->seat];
        put_property(&file->text, property, name);
    }
}

/* Two players: who won by how much, as Pentobi writes it (B+12, W+3, 0). */
static void put_result(struct sgf_file *file, const match *rebuilt)
{
    if (file->mode != BLOKUS_MODE_DUO && file->mode != BLOKUS_MODE_2P)
        return;
    match_result result;
    match_result_of(rebuilt, &result);
    int64_t margin = result.scores[0] - result.scores[1];
    char text[32];
    if (margin == 0)
        snprintf(text, sizeof(text), "0");
    else
        snprintf(text, sizeof(text), "%c+%lld", margin > 0 ? 'B' : 'W',
                 (long long)(margin > 0 ? margin : -margin));
    put_property(&file->text, "RE", text);
}

static void put_date(json_out *text, int64_t at_ms)
{
    time_t seconds = (time_t)(at_ms / 1000);
    struct tm utc;
    char date[16];
    if (at_ms >= 0 && gmtime_r(&seconds, &utc) && strftime(date, sizeof(date), "%Y-%m-%d", &utc))
        put_property(text, "DT", date);
}

int sgf_export(const store_game_record *record, char **out, char *problem, size_t size)
{
    *out = NULL;
    blokus_mode mode;
    if (strcmp(record->info.game, "blokus") != 0 || blokus_mode_parse(record->info.mode, &mode)) {
        snprintf(problem, size, "only Blokus games have an SGF");
        return -1;
    }
    if (record->started_at_ms < 0) {
        snprintf(problem, size, "the game never started");
        return -1;
    }
    struct sgf_file file = {JSON_OUT_EMPTY, JSON_OUT_EMPTY, mode == BLOKUS_MODE_DUO ? 14 : 20,
                            mode};
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    int rc = rebuild_match(record, &config, &rebuilt, put_move, &file, &failure);
    json_out *text = &file.text;
    json_out_text(text, "(;FF[4]CA[UTF-8]AP[tessera:" TESSERA_VERSION "]");
    put_property(text, "GM", variant_of(mode));
    put_date(text, record->started_at_ms);
    put_players(&file, record);
    if (rc == 0 && game_is_over(&rebuilt.game))
        put_result(&file, &rebuilt);
    json_out_text(text, "\n");
    json_out_raw(text, file.moves.data ? file.moves.data : "", file.moves.length);
    json_out_text(text, ")\n");
    bool has_failed = file.moves.has_failed;
    json_out_free(&file.moves);
    if (rc != 0) {
        snprintf(problem, size, "does not replay: %s", failure.message);
        json_out_free(text);
        return -1;
    }
    *out = has_failed ? NULL : json_out_take(text, NULL);
    json_out_free(text);
    if (!*out) {
        snprintf(problem, size, "out of memory");
        return -1;
    }
    return 0;
}
