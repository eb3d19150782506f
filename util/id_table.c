/* id_table.c -- open addressing, linear probing, backward-shift delete.
 *
 * A put looks for the id first, so replacing a value never grows the
 * table: callers that swap a value on a path that must not fail (the
 * head of a collision chain kept as a value) can rely on it. */
#include "util/id_table.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

/* splitmix64's finaliser: ids from a counter or random bits both spread. */
static size_t slot_of(const id_table *table, uint64_t id)
{
    id ^= id >> 30;
    id *= 0xBF58476D1CE4E5B9ULL;
    id ^= id >> 27;
    id *= 0x94D049BB133111EBULL;
    id ^= id >> 31;
    return (size_t)id & (table->capacity - 1);
}

/* The slot holding `id`, or NULL when it is absent. */
static struct id_slot *find_slot(const id_table *table, uint64_t id)
{
    if (table->capacity == 0 || id == 0)
        return NULL;
    for (size_t i = slot_of(table, id);; i = (i + 1) & (table->capacity - 1)) {
        if (table->slots[i].id == id)
            return &table->slots[i];
        if (table->slots[i].id == 0)
            return NULL;
    }
}

void *id_table_get(const id_table *table, uint64_t id)
{
    struct id_slot *slot = find_slot(table, id);
    return slot ? slot->value : NULL;
}

static void insert_slot(id_table *table, uint64_t id, void *value)
{
    size_t i = slot_of(table, id);
    while (table->slots[i].id != 0 && table->slots[i].id != id)
        i = (i + 1) & (table->capacity - 1);
    if (table->slots[i].id == 0)
        table->count++;
    table->slots[i].id = id;
    table->slots[i].value = value;
}

static int grow(id_table *table)
{
    size_t capacity = table->capacity ? table->capacity * 2 : 16;
    struct id_slot *old = table->slots;
    size_t old_capacity = table->capacity;
    table->slots = calloc(capacity, sizeof(*table->slots));
    if (!table->slots) {
        table->slots = old;
        return -ENOMEM;
    }
    table->capacity = capacity;
    table->count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].id != 0)
            insert_slot(table, old[i].id, old[i].value);
    free(old);
    return 0;
}

int id_table_put(id_table *table, uint64_t id, void *value)
{
    struct id_slot *present = find_slot(table, id);
    if (present) { /* a replacement needs no room: it cannot fail */
        present->value = value;
        return 0;
    }
    if ((table->count + 1) * 2 > table->capacity && grow(table) != 0)
        return -ENOMEM;
    insert_slot(table, id, value);
    return 0;
}

/* After emptying slot `hole`, pull back later entries of the same probe run
 * whose home slot does not lie cyclically in (hole, i]. */
void id_table_remove(id_table *table, uint64_t id)
{
    if (table->capacity == 0 || id == 0)
        return;
    size_t mask = table->capacity - 1, hole = slot_of(table, id);
    while (table->slots[hole].id != id) {
        if (table->slots[hole].id == 0)
            return;
        hole = (hole + 1) & mask;
    }
    table->slots[hole].id = 0;
    table->count--;
    for (size_t i = (hole + 1) & mask; table->slots[i].id != 0; i = (i + 1) & mask) {
        size_t home = slot_of(table, table->slots[i].id);
        bool stays = ((i - home) & mask) < ((i - hole) & mask);
        if (stays)
            continue;
        table->slots[hole] = table->slots[i];
        table->slots[i].id = 0;
        hole = i;
    }
}

void id_table_each(const id_table *table, void (*visit)(void *value, void *context), void *context)
{
    for (size_t i = 0; i < table->capacity; i++)
        if (table->slots[i].id != 0)
            visit(table->slots[i].value, context);
}

void **id_table_values(const id_table *table, size_t *count)
{
    void **values = table->count ? malloc(sizeof(void *) * table->count) : NULL;
    *count = 0;
    for (size_t i = 0; values && i < table->capacity; i++)
        if (table->slots[i].id != 0)
            values[(*count)++] = table->slots[i].value;
    return values;
}

void id_table_clear(id_table *table)
{
    free(table->slots);
    table->slots = NULL;
    table->capacity = 0;
    table->count = 0;
}
