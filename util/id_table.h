/* id_table.h -- the one hash table from 64-bit ids to pointers.
 *
 * Connections, players and rooms are all found by a 64-bit id, so one
 * small table serves them all: open addressing with linear probing and
 * backward-shift deletion (no tombstones), grown at 50% load. Values are
 * borrowed; the table never frees them. Id 0 is reserved (it marks an
 * empty slot). */
#ifndef TESSERA_ID_TABLE_H
#define TESSERA_ID_TABLE_H

#include <stddef.h>
#include <stdint.h>

typedef struct id_table {
    struct id_slot {
        uint64_t id;
        void *value;
    } * slots;
    size_t capacity; /* a power of two, or 0 before the first insert */
    size_t count;
} id_table;

/* The value stored for `id`, or NULL. */
void *id_table_get(const id_table *table, uint64_t id);

/* Stores or replaces `value` for `id` (non-zero). 0, or -ENOMEM;
 * replacing the value of an id already present never allocates, so it
 * always succeeds. */
int id_table_put(id_table *table, uint64_t id, void *value);

/* Removes `id` if present. */
void id_table_remove(id_table *table, uint64_t id);

/* Calls visit(value, context) for every entry; the table must not change
 * during the walk. */
void id_table_each(const id_table *table, void (*visit)(void *value, void *context), void *context);

/* A snapshot of the values, for a walk that may change the table (freeing
 * what it visits): a malloc'd array the caller frees, *count entries;
 * NULL with *count 0 when the table is empty or memory ran out. */
void **id_table_values(const id_table *table, size_t *count);

/* Frees the slots (not the values). */
void id_table_clear(id_table *table);

#endif
