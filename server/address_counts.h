/* address_counts.h -- open connections per peer address, in O(1).
 *
 * The transport admits a connection only while its address has fewer than
 * connections_per_ip open, so it counts them here: one acquire when a
 * connection opens, one release when it is gone. An address with
 * no connection left is forgotten, so the memory follows the open
 * connections, not every address ever seen.
 *
 * Addresses are the text form (inet_ntop) and are found through the one
 * hash map of the project (util/id_table), keyed by a 64-bit hash of the
 * text; addresses whose hashes collide share a chain, so a collision costs
 * a string compare, never a wrong count. The hash can be replaced (tests
 * force collisions with a constant one). */
#ifndef TESSERA_ADDRESS_COUNTS_H
#define TESSERA_ADDRESS_COUNTS_H

#include <stddef.h>
#include <stdint.h>

typedef struct address_counts address_counts;

/* One address and its count: borrowed from the table, valid until the
 * release that brings its count to zero. */
typedef struct address_count address_count;

/* A 64-bit hash of an address's text. */
typedef uint64_t (*address_hash)(const char *address);

/* An empty table hashing with `hash` (NULL: the default FNV-1a). 0 and
 * *out, or -ENOMEM. */
int address_counts_new(address_hash hash, address_counts **out);

/* Frees the table and every entry, whatever its count. NULL is allowed. */
void address_counts_free(address_counts *counts);

/* Counts one more connection from `address` (at most 63 bytes are kept).
 * 0 and *out, its entry, or -ENOMEM with nothing counted. */
int address_counts_acquire(address_counts *counts, const char *address, address_count **out);

/* Counts one connection less for `entry` (from acquire), which is freed
 * when its count reaches zero. */
void address_counts_release(address_counts *counts, address_count *entry);

/* The number of connections counted for `entry`. */
int address_count_value(const address_count *entry);

/* The address of `entry` (borrowed, like the entry). */
const char *address_count_address(const address_count *entry);

/* The number of connections counted for `address`; 0 when unknown. */
int address_counts_of(const address_counts *counts, const char *address);

/* The number of addresses with a connection counted. */
size_t address_counts_size(const address_counts *counts);

#endif
