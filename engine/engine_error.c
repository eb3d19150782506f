/* engine_error.c -- names and teaching messages for engine error codes. */
#include "engine/engine_error.h"

struct error_text {
    const char *name;
    const char *message;
};

/* Indexed by -code. */
static const struct error_text ERROR_TEXTS[] = {
    {"ok", "no error"},
    {"game_over", "the game is over; no more moves can be played"},
    {"not_your_turn", "it is another player's turn"},
    {"bad_piece", "there is no such piece or orientation"},
    {"piece_used", "that piece has already been placed by this color"},
    {"out_of_bounds", "the placement does not fit inside the board"},
    {"occupied", "a target cell is already occupied"},
    {"edge_contact", "a piece may not touch a piece of its own color along an edge"},
    {"no_corner_contact", "a piece must touch a piece of its own color at a corner"},
    {"not_on_start", "the first piece of a color must cover its start cell"},
    {"not_a_piece", "those cells do not form one of the pieces"},
    {"no_skips_left", "all three skips have been used"},
    {"bad_orientation", "orientation must be 0, 90, 180 or 270"},
    {"bad_argument", "the request is malformed: unknown action type, position or name"},
    {"no_memory", "the bot could not allocate memory for its search"},
};

#define ERROR_TEXT_COUNT ((int)(sizeof(ERROR_TEXTS) / sizeof(ERROR_TEXTS[0])))

static const struct error_text *error_text(int code)
{
    static const struct error_text unknown = {"unknown", "unknown engine error"};
    if (code > 0 || -code >= ERROR_TEXT_COUNT)
        return &unknown;
    return &ERROR_TEXTS[-code];
}

const char *engine_error_name(int code)
{
    return error_text(code)->name;
}

const char *engine_error_message(int code)
{
    return error_text(code)->message;
}
