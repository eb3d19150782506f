/* test_secret.c -- digests, keys and password hashes (storage/secret.h).
 *
 * The digest is checked against BLAKE2b-256 as another implementation
 * computes it (Python's hashlib.blake2b(text, digest_size=32)), so a
 * stored digest means the same on any build. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "storage/secret.h"

static void test_digest_is_blake2b_256_in_hex(void **state)
{
    (void)state;
    char hex[SECRET_DIGEST_HEX_SIZE];
    secret_digest_hex("abc", hex);
    assert_string_equal(hex, "bddd813c634239723171ef3fee98579b94964e3bb1cb3e427262c8c068d52319");
    secret_digest_hex("", hex);
    assert_string_equal(hex, "0e5751c026e543b2e8ab2eb06099daa1d1e5df47778f7787faab45cdf12fe3a8");
}

static void test_equal_compares_whole_texts(void **state)
{
    (void)state;
    assert_true(secret_equal("admin-key-123456", "admin-key-123456"));
    assert_false(secret_equal("admin-key-12345", "admin-key-123456"));
    assert_false(secret_equal("admin-key-1234567", "admin-key-123456"));
    assert_false(secret_equal("", "admin-key-123456"));
}

/* Keyed BLAKE2b-128, as Python computes it: hashlib.blake2b(b"abc",
 * digest_size=16, key=bytes(range(32))). */
static void test_mac_is_keyed_blake2b_and_needs_the_key(void **state)
{
    (void)state;
    unsigned char key[SECRET_MAC_KEY_BYTES], mac[SECRET_MAC_BYTES], other[SECRET_MAC_BYTES];
    for (int i = 0; i < SECRET_MAC_KEY_BYTES; i++)
        key[i] = (unsigned char)i;
    secret_mac(key, "abc", 3, mac);
    char hex[2 * SECRET_MAC_BYTES + 1];
    for (int i = 0; i < SECRET_MAC_BYTES; i++)
        snprintf(hex + 2 * i, 3, "%02x", mac[i]);
    assert_string_equal(hex, "1a64be47e4729d951c302ee543f97cf3");
    secret_mac(key, "abc", 3, other);
    assert_true(secret_mac_equal(mac, other));
    key[0] ^= 1;
    secret_mac(key, "abc", 3, other);
    assert_false(secret_mac_equal(mac, other));
    key[0] ^= 1;
    secret_mac(key, "abd", 3, other);
    assert_false(secret_mac_equal(mac, other));
}

static void test_new_keys_are_hex_and_differ(void **state)
{
    (void)state;
    char first[SECRET_KEY_SIZE], second[SECRET_KEY_SIZE];
    secret_new_key(first);
    secret_new_key(second);
    assert_int_equal(strlen(first), 2 * SECRET_KEY_BYTES);
    assert_int_equal(strspn(first, "0123456789abcdef"), 2 * SECRET_KEY_BYTES);
    assert_string_not_equal(first, second);
}

static void test_password_verifies_only_itself(void **state)
{
    (void)state;
    char hash[SECRET_PASSWORD_HASH_SIZE];
    assert_int_equal(secret_password_hash("correct horse", secret_password_cost_minimum(), hash),
                     0);
    assert_true(strncmp(hash, "$argon2id$", 10) == 0);
    assert_null(strstr(hash, "correct horse"));
    assert_true(secret_password_verify(hash, "correct horse"));
    assert_false(secret_password_verify(hash, "correct horsE"));
    assert_false(secret_password_verify(hash, ""));
}

static void test_same_password_gets_a_new_salt(void **state)
{
    (void)state;
    char first[SECRET_PASSWORD_HASH_SIZE], second[SECRET_PASSWORD_HASH_SIZE];
    assert_int_equal(secret_password_hash("password1", secret_password_cost_minimum(), first), 0);
    assert_int_equal(secret_password_hash("password1", secret_password_cost_minimum(), second), 0);
    assert_string_not_equal(first, second);
    assert_true(secret_password_verify(second, "password1"));
}

static void test_a_hash_that_is_no_argon2_string_verifies_nothing(void **state)
{
    (void)state;
    assert_false(secret_password_verify("", "password1"));
    assert_false(secret_password_verify("$argon2id$garbage", "password1"));
    assert_false(secret_password_verify("password1", "password1"));
}

static void test_interactive_cost_is_libsodiums(void **state)
{
    (void)state;
    secret_password_cost cost = secret_password_cost_interactive();
    assert_int_equal(cost.passes, 2);
    assert_int_equal(cost.memory_bytes, 64u * 1024 * 1024);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_digest_is_blake2b_256_in_hex),
        cmocka_unit_test(test_equal_compares_whole_texts),
        cmocka_unit_test(test_mac_is_keyed_blake2b_and_needs_the_key),
        cmocka_unit_test(test_new_keys_are_hex_and_differ),
        cmocka_unit_test(test_password_verifies_only_itself),
        cmocka_unit_test(test_same_password_gets_a_new_salt),
        cmocka_unit_test(test_a_hash_that_is_no_argon2_string_verifies_nothing),
        cmocka_unit_test(test_interactive_cost_is_libsodiums),
    };
    if (secret_init() != 0)
        return 1;
    return cmocka_run_group_tests(tests, NULL, NULL);
}
