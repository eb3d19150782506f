/* page_cursor.h -- the opaque `cursor` of a paged REST list.
 *
 * Lists are read by keyset, not by OFFSET: a page ends at some row, and
 * the next page starts after that row's sort key and id, so a page costs
 * the same however deep it is and rows added meanwhile do not shift it.
 * The cursor carries those two numbers as 32 hexadecimal digits; clients
 * treat it as opaque and hand back the `next` of the previous page. */
#ifndef TESSERA_PAGE_CURSOR_H
#define TESSERA_PAGE_CURSOR_H

#include <stdint.h>

#define PAGE_CURSOR_SIZE 33 /* 32 digits and the NUL */

typedef struct page_cursor {
    int64_t key; /* the last row's sort value (a time, a rating x 1e6, ...) */
    int64_t id;  /* the last row's id, which breaks ties */
} page_cursor;

/* Writes the cursor's text into out. */
void page_cursor_encode(page_cursor cursor, char out[PAGE_CURSOR_SIZE]);

/* Reads a cursor's text: 0 and *out, or -1 when the text is not one. */
int page_cursor_decode(const char *text, page_cursor *out);

#endif
