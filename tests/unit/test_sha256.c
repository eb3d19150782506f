/* test_sha256.c -- SHA-256 against the FIPS 180-4 examples and the
 * padding boundaries (a message of 55 bytes still fits one final block,
 * 56 does not). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "storage/sha256.h"

static void assert_digest(const char *text, const char *expected)
{
    char hex[SHA256_HEX_SIZE];
    sha256_hex(text, hex);
    assert_string_equal(hex, expected);
}

static char *repeated(char c, size_t count)
{
    char *text = malloc(count + 1);
    assert_non_null(text);
    memset(text, c, count);
    text[count] = '\0';
    return text;
}

static void test_fips_180_4_examples(void **state)
{
    (void)state;
    assert_digest("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assert_digest("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert_digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
                  "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = repeated('a', 1000000);
    assert_digest(million, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(million);
}

static void test_padding_boundaries(void **state)
{
    (void)state;
    char *text = repeated('a', 55);
    assert_digest(text, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    free(text);
    text = repeated('a', 56);
    assert_digest(text, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    free(text);
    text = repeated('a', 64);
    assert_digest(text, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fips_180_4_examples),
        cmocka_unit_test(test_padding_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
