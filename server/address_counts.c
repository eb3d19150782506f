/* address_counts.c -- a count per address: id_table buckets with chains.
 *
 * The table maps hash(address) to the first entry of a chain of the
 * addresses sharing that hash (almost always one). Removing the first
 * entry of a longer chain replaces the table's value, which id_table
 * guarantees never allocates, so a release cannot fail. Hash 0 is
 * id_table's empty mark and becomes 1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/address_counts.h"
#include "util/id_table.h"

#define ADDRESS_SIZE 64 /* an IPv6 text form with a zone fits */

#define FNV_OFFSET_BASIS 0xcbf29ce484222325ULL
#define FNV_PRIME        0x100000001b3ULL

struct address_count {
    struct address_count *next; /* same hash */
    int count;
    char address[ADDRESS_SIZE];
};

struct address_counts {
    id_table chains; /* hash -> first address_count of its chain */
    address_hash hash;
    size_t size;
};

static uint64_t fnv1a(const char *address)
{
    uint64_t hash = FNV_OFFSET_BASIS;
    for (const unsigned char *p = (const unsigned char *)address; *p; p++)
        hash = (hash ^ *p) * FNV_PRIME;
    return hash;
}

static uint64_t key_of(const address_counts *counts, const char *address)
{
    uint64_t key = counts->hash(address);
    return key ? key : 1;
}

int address_counts_new(address_hash hash, address_counts **out)
{
    address_counts *counts = calloc(1, sizeof(*counts));
    if (!counts)
        return -ENOMEM;
    counts->hash = hash ? hash : fnv1a;
    *out = counts;
    return 0;
}

static void free_chain(void *value, void *context)
{
    (void)context;
    for (address_count *entry = value, *next; entry; entry = next) {
        next = entry->next;
        free(entry);
    }
}

void address_counts_free(address_counts *counts)
{
    if (!counts)
        return;
    id_table_each(&counts->chains, free_chain, NULL);
    id_table_clear(&counts->chains);
    free(counts);
}

/* The entry of `address` (already cut to ADDRESS_SIZE), or NULL. */
static address_count *find(const address_counts *counts, uint64_t key, const char *address)
{
    address_count *entry = id_table_get(&counts->chains, key);
    while (entry && strcmp(entry->address, address) != 0)
        entry = entry->next;
    return entry;
}

int address_counts_acquire(address_counts *counts, const char *address, address_count **out)
{
    char kept[ADDRESS_SIZE]; /* hashed as stored, so a release finds it again */
    snprintf(kept, sizeof(kept), "%s", address);
    uint64_t key = key_of(counts, kept);
    address_count *entry = find(counts, key, kept);
    if (entry) {
        entry->count++;
        *out = entry;
        return 0;
    }
    entry = calloc(1, sizeof(*entry));
    if (!entry)
        return -ENOMEM;
    memcpy(entry->address, kept, sizeof(kept));
    entry->count = 1;
    entry->next = id_table_get(&counts->chains, key);
    if (id_table_put(&counts->chains, key, entry) != 0) {
        free(entry);
        return -ENOMEM;
    }
    counts->size++;
    *out = entry;
    return 0;
}

/* Takes `entry` out of its chain. */
static void unlink_entry(address_counts *counts, address_count *entry)
{
    uint64_t key = key_of(counts, entry->address);
    address_count *first = id_table_get(&counts->chains, key);
    if (first == entry && !entry->next) {
        id_table_remove(&counts->chains, key);
        return;
    }
    if (first == entry) {
        (void)id_table_put(&counts->chains, key, entry->next); /* a replacement: cannot fail */
        return;
    }
    address_count *before = first;
    while (before->next != entry)
        before = before->next;
    before->next = entry->next;
}

void address_counts_release(address_counts *counts, address_count *entry)
{
    if (--entry->count > 0)
        return;
    unlink_entry(counts, entry);
    counts->size--;
    free(entry);
}

int address_count_value(const address_count *entry)
{
    return entry->count;
}

const char *address_count_address(const address_count *entry)
{
    return entry->address;
}

int address_counts_of(const address_counts *counts, const char *address)
{
    char kept[ADDRESS_SIZE];
    snprintf(kept, sizeof(kept), "%s", address);
    const address_count *entry = find(counts, key_of(counts, kept), kept);
    return entry ? entry->count : 0;
}

size_t address_counts_size(const address_counts *counts)
{
    return counts->size;
}
