/* cmd_pieces.c -- `tessera pieces`: the orientation table as JSON.
 *
 * Clients and bot authors draw and pre-compute with the same table the
 * engine uses: for each of the 91 orientations, its piece, orientation
 * index, cells, and Botpot-style sides and corners, all as (row, col)
 * offsets from the orientation's origin (the top-left of its bounding box).
 * The server serves the same JSON at GET /api/games/blokus/pieces; both
 * come from game_json_blokus_orientations, built from the engine's
 * constant tables, so it cannot drift. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/game_json.h"
#include "cli/commands.h"

int cmd_pieces(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: tessera pieces\n\n"
               "Prints the 91 Blokus orientations as a JSON array: id, piece name,\n"
               "orientation index, size, and cells, sides and corners as [row, col]\n"
               "offsets from the orientation's origin (top-left of its bounding box).\n"
               "The server serves the same table at GET /api/games/blokus/pieces.\n");
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: tessera pieces\n");
        return 2;
    }
    /* One orientation per line: readable, and still one JSON array. */
    json_t *table = game_json_blokus_orientations(), *orientation;
    size_t index;
    printf("[\n");
    json_array_foreach(table, index, orientation)
    {
        char *line = json_dumps(orientation, JSON_COMPACT);
        printf("  %s%s\n", line ? line : "null", index + 1 < json_array_size(table) ? "," : "");
        free(line);
    }
    printf("]\n");
    json_decref(table);
    return 0;
}
