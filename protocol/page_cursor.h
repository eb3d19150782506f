/* page_cursor.h -- the opaque `cursor` of a paged REST list.
 *
 * Lists are read by keyset, not by OFFSET: a page ends at some row, and
 * the next page starts after that row's sort key and id, so a page costs
 * the same however deep it is and rows added meanwhile do not shift it.
 * The cursor carries those two numbers and a tag, as 64 hexadecimal
 * digits; the tag is the writer's MAC of the list and the position
 * (history/history_parse.c), so a cursor is only taken back by the list
 * that wrote it. Clients treat it as opaque and hand back the `next` of
 * the previous page. This module only writes and reads the text. */
#ifndef TESSERA_PAGE_CURSOR_H
#define TESSERA_PAGE_CURSOR_H

#include <stdint.h>

#define PAGE_CURSOR_TAG_BYTES 16
#define PAGE_CURSOR_SIZE      65 /* 16 + 16 + 32 digits and the NUL */

typedef struct page_cursor {
    int64_t key; /* the last row's sort value (a time, a rating x 1e6, ...) */
    int64_t id;  /* the last row's id, which breaks ties */
    unsigned char tag[PAGE_CURSOR_TAG_BYTES];
} page_cursor;

/* Writes the cursor's text into out. */
void page_cursor_encode(const page_cursor *cursor, char out[PAGE_CURSOR_SIZE]);

/* Reads a cursor's text: 0 and *out, or -1 when the text is not one. */
int page_cursor_decode(const char *text, page_cursor *out);

#endif
