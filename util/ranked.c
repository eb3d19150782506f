/* ranked.c -- a bounded list of items kept best first (ranked.h). */
#include <stdint.h>
#include <string.h>

#include "util/ranked.h"

/* The key of the item at `address` (memcpy: items need not be aligned for it). */
static int64_t key_of(const char *address, size_t key_offset)
{
    int64_t key;
    memcpy(&key, address + key_offset, sizeof(key));
    return key;
}

void ranked_insert(void *items, size_t size, int *count, int capacity, const void *item,
                   size_t key_offset)
{
    char *base = items;
    int64_t key = key_of(item, key_offset);
    int slot = *count;
    while (slot > 0 && key_of(base + (size_t)(slot - 1) * size, key_offset) < key)
        slot--;
    if (slot >= capacity)
        return;
    int last = *count < capacity ? *count : capacity - 1;
    memmove(base + (size_t)(slot + 1) * size, base + (size_t)slot * size,
            (size_t)(last - slot) * size);
    memcpy(base + (size_t)slot * size, item, size);
    if (*count < capacity)
        (*count)++;
}
