/* test_player_name.c -- account and bot name rules (lobby/player_name.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lobby/player_name.h"

static void test_a_name_is_trimmed_and_keyed_without_case(void **state)
{
    (void)state;
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    protocol_failure failure;
    assert_int_equal(player_name_check("  Ada Lovelace_2.0 ", display, key, &failure), 0);
    assert_string_equal(display, "Ada Lovelace_2.0");
    assert_string_equal(key, "ada lovelace_2.0");
    assert_int_equal(player_name_check("ADA LOVELACE_2.0", display, key, &failure), 0);
    assert_string_equal(key, "ada lovelace_2.0"); /* the same key: one of them may exist */
}

static void test_names_outside_the_rules_are_refused_with_the_rule(void **state)
{
    (void)state;
    static const char *const BAD[] = {
        "", "a", "   b   ", "abcdefghijklmnopqrstuvwxy", /* 25 */
        "a  b", "tab\there", "semi;colon", "émile", "new\nline", "quote\"",
        /* what a guest could call itself before guests followed these rules */
        "esc\x1b[31mred",
        "bidi\xe2\x80\xae"
        "evil",
        "zero\xe2\x80\x8bwidth", "greedy (bot)",
        "\xd0\x90"
        "da", /* Cyrillic A */
    };
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    protocol_failure failure;
    for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
        assert_int_equal(player_name_check(BAD[i], display, key, &failure), PROTOCOL_E_BAD_MESSAGE);
        assert_true(failure.message[0] != '\0');
    }
    assert_int_equal(player_name_check("abcdefghijklmnopqrstuvwx", display, key, &failure), 0);
}

static void test_built_in_bots_names_are_kept(void **state)
{
    (void)state;
    static const char *const KEPT[] = {"greedy",    "MCTS",    "mcts-V2", "random",
                                       "lookahead", "Planner", "bot",     "Bot X"};
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    protocol_failure failure;
    for (size_t i = 0; i < sizeof(KEPT) / sizeof(KEPT[0]); i++)
        assert_int_equal(player_name_check(KEPT[i], display, key, &failure),
                         PROTOCOL_E_NAME_TAKEN); /* taken, as by an account */
    /* The built-in bots' entries ("bot:greedy") break the character rule. */
    assert_int_equal(player_name_check("bot:greedy", display, key, &failure),
                     PROTOCOL_E_BAD_MESSAGE);
    assert_int_equal(player_name_check("greedy-gus", display, key, &failure), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_name_is_trimmed_and_keyed_without_case),
        cmocka_unit_test(test_names_outside_the_rules_are_refused_with_the_rule),
        cmocka_unit_test(test_built_in_bots_names_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
