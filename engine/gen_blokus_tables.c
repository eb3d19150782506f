/* gen_blokus_tables.c -- build-time generator of blokus_tables.c.
 *
 * The pieces are drawn below once, in their standard orientation. For each
 * piece the 8 symmetries (4 rotations, each optionally mirrored) are applied,
 * normalised to the top-left corner, sorted and de-duplicated; the survivors
 * in symmetry order become the piece's orientations. Writing the result as a
 * C source keeps the engine free of initialisation code and mutable state.
 *
 * It also writes, for the classic and the Duo board, the placements through
 * each cell (engine/blokus_cell_moves.h): every (orientation, origin) that
 * covers the cell and lies on the board, grouped by which of the cell's
 * four edge neighbours they cover. The list generator walks these at a
 * color's attach cells only (engine/blokus_movelists.c).
 *
 * Usage: gen_blokus_tables OUTPUT.c */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CELLS        5
#define MAX_ORIENTATIONS 8
/* The classic board's side, the largest. */
#define MAX_SIDE 20

struct drawing {
    const char *name;
    const char *rows[MAX_CELLS + 1]; /* '#' covered, '.' empty; NULL-terminated */
};

/* The order is the engine's piece numbering (docs/ARCHITECTURE.md,
 * "Blokus piece numbering"). */
static const struct drawing DRAWINGS[] = {
    {"I1", {"#"}},
    {"I2", {"##"}},
    {"I3", {"###"}},
    {"V3", {"#.", "##"}},
    {"I4", {"####"}},
    {"L4", {"#..", "###"}},
    {"T4", {"###", ".#."}},
    {"O4", {"##", "##"}},
    {"Z4", {"##.", ".##"}},
    {"F", {".##", "##.", ".#."}},
    {"I5", {"#####"}},
    {"L5", {"#...", "####"}},
    {"N", {"##..", ".###"}},
    {"P", {"##", "##", "#."}},
    {"T5", {"###", ".#.", ".#."}},
    {"U", {"#.#", "###"}},
    {"V5", {"#..", "#..", "###"}},
    {"W", {"#..", "##.", ".##"}},
    {"X", {".#.", "###", ".#."}},
    {"Y", {"####", ".#.."}},
    {"Z5", {"##.", ".#.", ".##"}},
};

#define PIECE_COUNT ((int)(sizeof(DRAWINGS) / sizeof(DRAWINGS[0])))

struct shape {
    int size;
    int cells[MAX_CELLS][2];
};

static int compare_cells(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] != y[0] ? x[0] - y[0] : x[1] - y[1];
}

/* Shift to the top-left corner and sort row-major, so equal shapes compare
 * equal with memcmp. */
static void normalise(struct shape *shape)
{
    int min_row = 99, min_col = 99;
    for (int i = 0; i < shape->size; i++) {
        if (shape->cells[i][0] < min_row)
            min_row = shape->cells[i][0];
        if (shape->cells[i][1] < min_col)
            min_col = shape->cells[i][1];
    }
    for (int i = 0; i < shape->size; i++) {
        shape->cells[i][0] -= min_row;
        shape->cells[i][1] -= min_col;
    }
    qsort(shape->cells, (size_t)shape->size, sizeof(shape->cells[0]), compare_cells);
}

static struct shape parse(const struct drawing *drawing)
{
    struct shape shape = {0};
    for (int r = 0; drawing->rows[r]; r++)
        for (int c = 0; drawing->rows[r][c]; c++)
            if (drawing->rows[r][c] == '#') {
                shape.cells[shape.size][0] = r;
                shape.cells[shape.size][1] = c;
                shape.size++;
            }
    return shape;
}

/* Symmetry t: mirror columns when t >= 4, then rotate clockwise t % 4 times. */
static struct shape transform(const struct shape *in, int t)
{
    struct shape out = *in;
    for (int i = 0; i < out.size; i++) {
        int r = out.cells[i][0], c = out.cells[i][1];
        if (t >= 4)
            c = -c;
        for (int k = 0; k < t % 4; k++) {
            int rotated_row = c;
            c = -r;
            r = rotated_row;
        }
        out.cells[i][0] = r;
        out.cells[i][1] = c;
    }
    normalise(&out);
    return out;
}

static void write_orientation(FILE *f, int piece, int index, const struct shape *shape)
{
    int height = 0, width = 0, masks[MAX_CELLS] = {0};
    for (int i = 0; i < shape->size; i++) {
        if (shape->cells[i][0] + 1 > height)
            height = shape->cells[i][0] + 1;
        if (shape->cells[i][1] + 1 > width)
            width = shape->cells[i][1] + 1;
        masks[shape->cells[i][0]] |= 1 << shape->cells[i][1];
    }
    fprintf(f, "    {%d, %d, %d, %d, %d, {", piece, index, shape->size, height, width);
    for (int i = 0; i < MAX_CELLS; i++)
        fprintf(f, "%s{%d, %d}", i ? ", " : "", i < shape->size ? shape->cells[i][0] : 0,
                i < shape->size ? shape->cells[i][1] : 0);
    fprintf(f, "}, {");
    for (int i = 0; i < MAX_CELLS; i++)
        fprintf(f, "%s%d", i ? ", " : "", masks[i]);
    fprintf(f, "}}, /* %s #%d */\n", DRAWINGS[piece].name, index);
}

/* A cell's edge neighbours, in the order of the bits of an edge mask, and
 * its diagonal neighbours, in the order of an entry's diagonal bits
 * (engine/blokus_cell_moves.h). */
static const int EDGES[4][2] = {{-1, 0}, {0, -1}, {0, 1}, {1, 0}};
static const int DIAGONALS[4][2] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}};

static int shape_covers(const struct shape *shape, int row, int col)
{
    for (int i = 0; i < shape->size; i++)
        if (shape->cells[i][0] == row && shape->cells[i][1] == col)
            return 1;
    return 0;
}

static int shape_extent(const struct shape *shape, int axis)
{
    int extent = 0;
    for (int i = 0; i < shape->size; i++)
        if (shape->cells[i][axis] + 1 > extent)
            extent = shape->cells[i][axis] + 1;
    return extent;
}

/* Which of `neighbours` (offsets from the shape's cell `anchor`) the shape
 * covers, one bit each. */
static unsigned covered(const struct shape *shape, int anchor, const int neighbours[4][2])
{
    unsigned bits = 0;
    for (int k = 0; k < 4; k++)
        if (shape_covers(shape, shape->cells[anchor][0] + neighbours[k][0],
                         shape->cells[anchor][1] + neighbours[k][1]))
            bits |= 1u << k;
    return bits;
}

/* Writes the entries through cell (cell_row, cell_col) whose edge mask is
 * `edge_mask`, by piece, orientation and anchor; returns how many. */
static int write_cell_entries(FILE *f, int size, int cell_row, int cell_col, unsigned edge_mask,
                              struct shape orientations[][MAX_ORIENTATIONS], const int *counts)
{
    int written = 0, id = 0;
    for (int p = 0; p < PIECE_COUNT; p++)
        for (int k = 0; k < counts[p]; k++, id++) {
            const struct shape *shape = &orientations[p][k];
            for (int anchor = 0; anchor < shape->size; anchor++) {
                int row = cell_row - shape->cells[anchor][0];
                int col = cell_col - shape->cells[anchor][1];
                if (row < 0 || col < 0 || row + shape_extent(shape, 0) > size ||
                    col + shape_extent(shape, 1) > size ||
                    covered(shape, anchor, EDGES) != edge_mask)
                    continue;
                unsigned entry = (unsigned)id | (unsigned)row << 7 | (unsigned)col << 12 |
                                 covered(shape, anchor, DIAGONALS) << 17 | (unsigned)p << 21 |
                                 (unsigned)k << 26;
                fprintf(f, "%u,%s", entry, ++written % 8 ? "" : "\n");
            }
        }
    return written;
}

/* The entries and the per-(cell, edge mask) starts of a board of side
 * `size`. */
static void write_cell_moves(FILE *f, const char *name, int size,
                             struct shape orientations[][MAX_ORIENTATIONS], const int *counts)
{
    static unsigned starts[MAX_SIDE * MAX_SIDE * 16 + 1];
    int total = 0, index = 0;
    fprintf(f, "\nstatic const uint32_t %s_ENTRIES[] = {\n", name);
    for (int cell = 0; cell < size * size; cell++)
        for (unsigned edge_mask = 0; edge_mask < 16; edge_mask++) {
            starts[index++] = (unsigned)total;
            total += write_cell_entries(f, size, cell / size, cell % size, edge_mask, orientations,
                                        counts);
        }
    starts[index++] = (unsigned)total;
    fprintf(f, "\n};\n\nstatic const uint32_t %s_STARTS[] = {\n", name);
    for (int i = 0; i < index; i++)
        fprintf(f, "%u,%s", starts[i], (i + 1) % 8 ? "" : "\n");
    fprintf(f,
            "\n};\n\nconst struct blokus_cell_moves BLOKUS_CELL_MOVES_%s = {%d, %s_STARTS, "
            "%s_ENTRIES};\n",
            name, size, name, name);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTPUT.c\n", argv[0]);
        return 2;
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    struct shape orientations[PIECE_COUNT][MAX_ORIENTATIONS];
    int counts[PIECE_COUNT] = {0};
    for (int p = 0; p < PIECE_COUNT; p++) {
        struct shape base = parse(&DRAWINGS[p]);
        for (int t = 0; t < 8; t++) {
            struct shape shape = transform(&base, t);
            int is_new = 1;
            for (int k = 0; k < counts[p] && is_new; k++)
                is_new = memcmp(&orientations[p][k], &shape, sizeof(shape)) != 0;
            if (is_new)
                orientations[p][counts[p]++] = shape;
        }
    }
    fprintf(f, "/* Generated by gen_blokus_tables.c -- do not edit. */\n");
    fprintf(f, "#include \"engine/blokus_cell_moves.h\"\n");
    fprintf(f, "#include \"engine/blokus_tables.h\"\n\n");
    fprintf(f, "const struct blokus_piece BLOKUS_PIECES[BLOKUS_PIECE_COUNT] = {\n");
    int first = 0;
    for (int p = 0; p < PIECE_COUNT; p++) {
        struct shape base = parse(&DRAWINGS[p]);
        fprintf(f, "    {\"%s\", %d, %d, %d},\n", DRAWINGS[p].name, base.size, first, counts[p]);
        first += counts[p];
    }
    fprintf(f, "};\n\n");
    fprintf(f,
            "const struct blokus_orientation BLOKUS_ORIENTATIONS[BLOKUS_ORIENTATION_COUNT] = {\n");
    for (int p = 0; p < PIECE_COUNT; p++)
        for (int k = 0; k < counts[p]; k++)
            write_orientation(f, p, k, &orientations[p][k]);
    fprintf(f, "};\n");
    write_cell_moves(f, "CLASSIC", 20, orientations, counts);
    write_cell_moves(f, "DUO", 14, orientations, counts);
    if (fclose(f) != 0) {
        perror(argv[1]);
        return 1;
    }
    return first == 91 ? 0 : 1;
}
