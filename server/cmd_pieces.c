/* cmd_pieces.c -- `tessera pieces`: the orientation table as JSON.
 *
 * Clients and bot authors draw and pre-compute with the same table the
 * engine uses: for each of the 91 orientations, its piece, orientation
 * index, cells, and Botpot-style sides and corners, all as (row, col)
 * offsets from the orientation's origin (the top-left of its bounding box).
 * The output is generated from the engine's constant tables, never kept by
 * hand, so it cannot drift. */
#include <stdio.h>
#include <string.h>

#include "engine/blokus.h"
#include "server/commands.h"

static void print_cells(const char *key, const int cells[][2], int count)
{
    printf(", \"%s\": [", key);
    for (int i = 0; i < count; i++)
        printf("%s[%d, %d]", i ? ", " : "", cells[i][0], cells[i][1]);
    printf("]");
}

static void print_orientation(int id)
{
    const struct blokus_orientation *o = &BLOKUS_ORIENTATIONS[id];
    int cells[BLOKUS_MAX_PIECE_SIZE][2], outline[BLOKUS_MAX_OUTLINE][2];
    for (int i = 0; i < o->size; i++) {
        cells[i][0] = o->cells[i][0];
        cells[i][1] = o->cells[i][1];
    }
    printf("  {\"id\": %d, \"piece\": \"%s\", \"orientation\": %d, \"size\": %d", id,
           BLOKUS_PIECES[o->piece].name, o->index, o->size);
    print_cells("cells", (const int(*)[2])cells, o->size);
    print_cells("sides", (const int(*)[2])outline, blokus_orientation_sides(id, outline));
    print_cells("corners", (const int(*)[2])outline, blokus_orientation_corners(id, outline));
    printf("}%s\n", id + 1 < BLOKUS_ORIENTATION_COUNT ? "," : "");
}

int cmd_pieces(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("usage: tessera pieces\n\n"
               "Prints the 91 Blokus orientations as a JSON array: id, piece name,\n"
               "orientation index, size, and cells, sides and corners as [row, col]\n"
               "offsets from the orientation's origin (top-left of its bounding box).\n");
        return 0;
    }
    if (argc != 1) {
        fprintf(stderr, "usage: tessera pieces\n");
        return 2;
    }
    printf("[\n");
    for (int id = 0; id < BLOKUS_ORIENTATION_COUNT; id++)
        print_orientation(id);
    printf("]\n");
    return 0;
}
