/* secret.h -- the stored forms of secrets, and fresh secrets.
 *
 * The store never keeps a session token, a bot key or a password itself:
 *   - tokens and bot keys (192 random bits) are kept as a plain digest,
 *     BLAKE2b-256 (libsodium's crypto_generichash) in hex: so many random
 *     bits need no salt nor slowness, and the digest is one index probe;
 *   - passwords, which people choose and may reuse, are kept as Argon2id
 *     strings (crypto_pwhash_str): salted, and deliberately slow and
 *     memory-hard, so a stolen database is costly to guess from. Hashing
 *     and verifying take tens of milliseconds and 64 MiB each: callers run
 *     them off the event loop, a few at a time.
 * A copy of the database thus lets nobody sign in.
 *
 * libsodium is initialised once, by secret_init() at start-up; every
 * function here is safe on any thread after that. */
#ifndef TESSERA_SECRET_H
#define TESSERA_SECRET_H

#include <stdbool.h>
#include <stddef.h>

#define SECRET_DIGEST_BYTES    32
#define SECRET_DIGEST_HEX_SIZE (2 * SECRET_DIGEST_BYTES + 1)
/* Bot keys: 24 random bytes in hex, 48 digits. */
#define SECRET_KEY_BYTES 24
#define SECRET_KEY_SIZE  (2 * SECRET_KEY_BYTES + 1)
/* An Argon2id string with its NUL (crypto_pwhash_STRBYTES). */
#define SECRET_PASSWORD_HASH_SIZE 128

/* A MAC's key and the MAC (keyed BLAKE2b). */
#define SECRET_MAC_KEY_BYTES 32
#define SECRET_MAC_BYTES     16

/* How costly a new password hash is: Argon2id passes and memory. */
typedef struct secret_password_cost {
    unsigned long long passes;
    size_t memory_bytes;
} secret_password_cost;

/* Initialises libsodium; call once before anything else. 0, or
 * STORE_E_INTERNAL when it cannot (the process must not go on without a
 * random source). */
int secret_init(void);

/* The digest of a NUL-terminated text as 64 lowercase hex digits and a NUL. */
void secret_digest_hex(const char *text, char hex[SECRET_DIGEST_HEX_SIZE]);

/* Whether `given` equals `expected`, in a time that depends on neither:
 * their digests are compared in constant time (sodium_memcmp). */
bool secret_equal(const char *given, const char *expected);

/* The MAC of `length` bytes at `message` under `key`: keyed BLAKE2b
 * (crypto_generichash with a key), so only the key's holder makes one. */
void secret_mac(const unsigned char key[SECRET_MAC_KEY_BYTES], const void *message, size_t length,
                unsigned char mac[SECRET_MAC_BYTES]);

/* Whether two MACs are equal, in a time that does not depend on where they
 * differ (sodium_memcmp). */
bool secret_mac_equal(const unsigned char given[SECRET_MAC_BYTES],
                      const unsigned char expected[SECRET_MAC_BYTES]);

/* A new bot key from the kernel's random source. */
void secret_new_key(char key[SECRET_KEY_SIZE]);

/* libsodium's interactive cost (2 passes, 64 MiB): the server's. */
secret_password_cost secret_password_cost_interactive(void);

/* The least cost libsodium allows: for tests, which hash many passwords. */
secret_password_cost secret_password_cost_minimum(void);

/* The Argon2id string of `password` at `cost`, with a fresh salt. 0, or
 * STORE_E_NOMEM when memory ran out. */
int secret_password_hash(const char *password, secret_password_cost cost,
                         char hash[SECRET_PASSWORD_HASH_SIZE]);

/* Whether `password` is the one `hash` was made from; false for a hash
 * that is not an Argon2 string. Costs what making `hash` cost. */
bool secret_password_verify(const char *hash, const char *password);

/* Overwrites `length` bytes at `memory` with zeros in a way the compiler
 * cannot drop: a password is wiped once it is no longer needed. */
void secret_forget(void *memory, size_t length);

#endif
