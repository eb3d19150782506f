/* ranked.h -- a bounded list of items kept best first.
 *
 * items[0 .. *count) are ordered by an int64_t key inside each item (at
 * byte `key_offset`, offsetof the member), highest first, and hold at most
 * `capacity` of them. Where a search keeps its best N lines (the Reef bots,
 * the Reef experiments in bench/), one insert is a short walk and a memmove:
 * N is small, and nothing is allocated. */
#ifndef TESSERA_RANKED_H
#define TESSERA_RANKED_H

#include <stddef.h>

/* Puts a copy of `item` (of `size` bytes) after every item whose key is
 * at least its own, so equal keys keep the order they came in; when the
 * list is full, the last item falls out, or `item` itself when it would
 * rank past `capacity`. */
void ranked_insert(void *items, size_t size, int *count, int capacity, const void *item,
                   size_t key_offset);

#endif
