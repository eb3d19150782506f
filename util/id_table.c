/* id_table.c -- open addressing, linear probing, backward-shift delete.
 *
 * A put looks for the id first, so replacing a value never grows the
 * table: callers that swap a value on a path that must not fail (the
 * head of a collision chain kept as a value) can rely on it. */
#include "util/id_table.h"

#include <stdbool.h>
#include <stdlib.h>

/* splitmix64's finaliser: ids from a counter or random bits both spread. */
static size_t slot_of(const id_table *t, uint64_t id)
{
    id ^= id >> 30;
    id *= 0xBF58476D1CE4E5B9ULL;
    id ^= id >> 27;
    id *= 0x94D049BB133111EBULL;
    id ^= id >> 31;
    return (size_t)id & (t->capacity - 1);
}

/* The slot holding `id`, or NULL when it is absent. */
static struct id_slot *find_slot(const id_table *t, uint64_t id)
{
    if (t->capacity == 0 || id == 0)
        return NULL;
    for (size_t i = slot_of(t, id);; i = (i + 1) & (t->capacity - 1)) {
        if (t->slots[i].id == id)
            return &t->slots[i];
        if (t->slots[i].id == 0)
            return NULL;
    }
}

void *id_table_get(const id_table *t, uint64_t id)
{
    struct id_slot *slot = find_slot(t, id);
    return slot ? slot->value : NULL;
}

static void insert_slot(id_table *t, uint64_t id, void *value)
{
    size_t i = slot_of(t, id);
    while (t->slots[i].id != 0 && t->slots[i].id != id)
        i = (i + 1) & (t->capacity - 1);
    if (t->slots[i].id == 0)
        t->count++;
    t->slots[i].id = id;
    t->slots[i].value = value;
}

static int grow(id_table *t)
{
    size_t capacity = t->capacity ? t->capacity * 2 : 16;
    struct id_slot *old = t->slots;
    size_t old_capacity = t->capacity;
    t->slots = calloc(capacity, sizeof(*t->slots));
    if (!t->slots) {
        t->slots = old;
        return -1;
    }
    t->capacity = capacity;
    t->count = 0;
    for (size_t i = 0; i < old_capacity; i++)
        if (old[i].id != 0)
            insert_slot(t, old[i].id, old[i].value);
    free(old);
    return 0;
}

int id_table_put(id_table *t, uint64_t id, void *value)
{
    struct id_slot *present = find_slot(t, id);
    if (present) { /* a replacement needs no room: it cannot fail */
        present->value = value;
        return 0;
    }
    if ((t->count + 1) * 2 > t->capacity && grow(t) != 0)
        return -1;
    insert_slot(t, id, value);
    return 0;
}

/* After emptying slot `hole`, pull back later entries of the same probe run
 * whose home slot does not lie cyclically in (hole, i]. */
void id_table_remove(id_table *t, uint64_t id)
{
    if (t->capacity == 0 || id == 0)
        return;
    size_t mask = t->capacity - 1, hole = slot_of(t, id);
    while (t->slots[hole].id != id) {
        if (t->slots[hole].id == 0)
            return;
        hole = (hole + 1) & mask;
    }
    t->slots[hole].id = 0;
    t->count--;
    for (size_t i = (hole + 1) & mask; t->slots[i].id != 0; i = (i + 1) & mask) {
        size_t home = slot_of(t, t->slots[i].id);
        bool stays = ((i - home) & mask) < ((i - hole) & mask);
        if (stays)
            continue;
        t->slots[hole] = t->slots[i];
        t->slots[i].id = 0;
        hole = i;
    }
}

void id_table_each(const id_table *t, void (*visit)(void *value, void *context), void *context)
{
    for (size_t i = 0; i < t->capacity; i++)
        if (t->slots[i].id != 0)
            visit(t->slots[i].value, context);
}

void **id_table_values(const id_table *t, size_t *count)
{
    void **values = t->count ? malloc(sizeof(void *) * t->count) : NULL;
    *count = 0;
    for (size_t i = 0; values && i < t->capacity; i++)
        if (t->slots[i].id != 0)
            values[(*count)++] = t->slots[i].value;
    return values;
}

void id_table_clear(id_table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->capacity = 0;
    t->count = 0;
}
