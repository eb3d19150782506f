/* fuzz_check.h -- what the harnesses assert, and how an assertion fails.
 *
 * A harness states its properties with FUZZ_REQUIRE: a broken one prints
 * the condition and aborts, which libFuzzer reports as a crash (keeping
 * the input) and the corpus replay under ctest as a failed test. Asserts
 * are not used, so a release build checks the properties too.
 *
 * fuzz_require_error() checks an error answer is whole: JSON in the shape
 * asked for, a non-empty code and a non-empty message, both strings. */
#ifndef TESSERA_FUZZ_CHECK_H
#define TESSERA_FUZZ_CHECK_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_REQUIRE(condition) ((condition) ? (void)0 : fuzz_fail(#condition, __FILE__, __LINE__))

static inline void fuzz_fail(const char *condition, const char *file, int line)
{
    fprintf(stderr, "%s:%d: property broken: %s\n", file, line, condition);
    abort();
}

static inline int fuzz_is_nonempty_string(const json_t *value)
{
    return json_is_string(value) && json_string_length(value) > 0;
}

/* `body` (`length` bytes) is {"type":"error","code","message"} when
 * `is_nested` is 0, else the Reef API's {"error":{"code","message"}}. */
static inline void fuzz_require_error(const char *body, size_t length, int is_nested)
{
    FUZZ_REQUIRE(body != NULL);
    json_t *root = json_loadb(body, length, 0, NULL);
    FUZZ_REQUIRE(json_is_object(root));
    const json_t *fields = is_nested ? json_object_get(root, "error") : root;
    FUZZ_REQUIRE(json_is_object(fields));
    const char *type = json_string_value(json_object_get(root, "type"));
    FUZZ_REQUIRE(is_nested || (type && strcmp(type, "error") == 0));
    FUZZ_REQUIRE(fuzz_is_nonempty_string(json_object_get(fields, "code")));
    FUZZ_REQUIRE(fuzz_is_nonempty_string(json_object_get(fields, "message")));
    json_decref(root);
}

#endif
