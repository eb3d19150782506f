/* sha256.h -- SHA-256 (FIPS 180-4), for storing secrets as digests.
 *
 * The store never keeps a session token or a bot key itself, only its
 * digest: a copy of the database does not let anyone sign in. None of the
 * project's libraries offers a hash function, and 100 lines are cheaper
 * than a new dependency. Not for passwords (tokens are 192 random bits, so
 * a plain digest is enough; a password would need a slow, salted KDF). */
#ifndef TESSERA_SHA256_H
#define TESSERA_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_DIGEST_BYTES 32
#define SHA256_HEX_SIZE     (2 * SHA256_DIGEST_BYTES + 1)

/* The digest of `length` bytes. */
void sha256(const void *data, size_t length, uint8_t digest[SHA256_DIGEST_BYTES]);

/* The digest of a NUL-terminated text as 64 lowercase hex digits and a NUL. */
void sha256_hex(const char *text, char hex[SHA256_HEX_SIZE]);

#endif
