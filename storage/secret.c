/* secret.c -- digests, keys and password hashes on libsodium (secret.h).
 *
 * Only these functions call libsodium, so the rest of the project sees
 * plain strings: hex digests, hex keys and Argon2id strings (which carry
 * their own salt and cost, so a hash made at one cost still verifies after
 * the server's cost changes). */
#include <sodium.h>
#include <string.h>

#include "storage/secret.h"
#include "storage/store.h"

_Static_assert(SECRET_PASSWORD_HASH_SIZE == crypto_pwhash_STRBYTES, "Argon2id string size");

int secret_init(void)
{
    return sodium_init() < 0 ? STORE_E_INTERNAL : STORE_OK;
}

static void digest(const char *text, unsigned char out[SECRET_DIGEST_BYTES])
{
    crypto_generichash(out, SECRET_DIGEST_BYTES, (const unsigned char *)text, strlen(text), NULL,
                       0);
}

void secret_digest_hex(const char *text, char hex[SECRET_DIGEST_HEX_SIZE])
{
    unsigned char bytes[SECRET_DIGEST_BYTES];
    digest(text, bytes);
    sodium_bin2hex(hex, SECRET_DIGEST_HEX_SIZE, bytes, sizeof(bytes));
}

void secret_mac(const unsigned char key[SECRET_MAC_KEY_BYTES], const void *message, size_t length,
                unsigned char mac[SECRET_MAC_BYTES])
{
    crypto_generichash(mac, SECRET_MAC_BYTES, message, length, key, SECRET_MAC_KEY_BYTES);
}

bool secret_mac_equal(const unsigned char given[SECRET_MAC_BYTES],
                      const unsigned char expected[SECRET_MAC_BYTES])
{
    return sodium_memcmp(given, expected, SECRET_MAC_BYTES) == 0;
}

bool secret_equal(const char *given, const char *expected)
{
    unsigned char given_digest[SECRET_DIGEST_BYTES], expected_digest[SECRET_DIGEST_BYTES];
    digest(given, given_digest);
    digest(expected, expected_digest);
    return sodium_memcmp(given_digest, expected_digest, SECRET_DIGEST_BYTES) == 0;
}

void secret_new_key(char key[SECRET_KEY_SIZE])
{
    unsigned char bytes[SECRET_KEY_BYTES];
    randombytes_buf(bytes, sizeof(bytes));
    sodium_bin2hex(key, SECRET_KEY_SIZE, bytes, sizeof(bytes));
}

secret_password_cost secret_password_cost_interactive(void)
{
    secret_password_cost cost = {crypto_pwhash_OPSLIMIT_INTERACTIVE,
                                 crypto_pwhash_MEMLIMIT_INTERACTIVE};
    return cost;
}

secret_password_cost secret_password_cost_minimum(void)
{
    secret_password_cost cost = {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN};
    return cost;
}

int secret_password_hash(const char *password, secret_password_cost cost,
                         char hash[SECRET_PASSWORD_HASH_SIZE])
{
    return crypto_pwhash_str(hash, password, strlen(password), cost.passes, cost.memory_bytes) == 0
               ? STORE_OK
               : STORE_E_NOMEM;
}

bool secret_password_verify(const char *hash, const char *password)
{
    return crypto_pwhash_str_verify(hash, password, strlen(password)) == 0;
}

void secret_forget(void *memory, size_t length)
{
    sodium_memzero(memory, length);
}
