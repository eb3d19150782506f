/* test_game_json.c -- the games on the wire (protocol/game_json.c) and the
 * message splice helper.
 *
 * The Blokus move-list writer bypasses jansson for speed, so it is checked
 * against the jansson encoding of the same moves, position after position
 * of seeded games in every mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "engine/rng.h"
#include "protocol/game_json.h"

static json_t *moves_through_jansson(const blokus_state *s)
{
    static blokus_move moves[BLOKUS_MAX_MOVES];
    int count = blokus_generate(s, moves);
    json_t *list = json_array();
    for (int i = 0; i < count; i++)
        json_array_append_new(list, game_json_blokus_move(moves[i]));
    return list;
}

static void test_move_list_text_equals_the_jansson_encoding(void **state)
{
    (void)state;
    static const blokus_mode modes[] = {BLOKUS_MODE_4P, BLOKUS_MODE_3P, BLOKUS_MODE_2P,
                                        BLOKUS_MODE_DUO};
    static blokus_move moves[BLOKUS_MAX_MOVES];
    int positions = 0;
    for (int m = 0; m < 4; m++) {
        rng r = rng_seeded((uint64_t)m + 1);
        blokus_state s;
        blokus_init(&s, modes[m], BLOKUS_SCORING_SQUARES);
        for (;;) {
            char *text = game_json_blokus_legal_moves_text(&s);
            json_t *parsed = json_loads(text, 0, NULL), *expected = moves_through_jansson(&s);
            assert_non_null(parsed);
            assert_true(json_equal(parsed, expected));
            json_decref(parsed);
            json_decref(expected);
            free(text);
            positions++;
            int count = blokus_generate(&s, moves);
            if (count == 0)
                break;
            blokus_apply(&s, moves[rng_below(&r, (uint32_t)count)]);
        }
    }
    assert_true(positions > 100);
}

/* The board and the hints, read from the bitboards a row at a time, say
 * what the engine says of each cell, position after position. */
static void test_board_and_hints_agree_with_the_engine_cell_by_cell(void **state)
{
    (void)state;
    static const blokus_mode modes[] = {BLOKUS_MODE_4P, BLOKUS_MODE_DUO};
    static blokus_move moves[BLOKUS_MAX_MOVES];
    for (int m = 0; m < 2; m++) {
        rng r = rng_seeded((uint64_t)m + 7);
        blokus_state s;
        blokus_init(&s, modes[m], BLOKUS_SCORING_SQUARES);
        for (int count = 1; count > 0;) {
            json_out out = JSON_OUT_EMPTY;
            json_out_raw(&out, "[", 1);
            game_json_write_blokus_board(&out, &s);
            json_out_raw(&out, ",", 1);
            game_json_write_blokus_hints(&out, &s, s.to_move);
            json_out_raw(&out, "]", 1);
            json_t *written = json_loads(out.data, 0, NULL);
            assert_non_null(written);
            json_t *board = json_array_get(written, 0), *hints = json_array_get(written, 1);
            size_t attach = 0, unavailable = 0;
            for (int row = 0; row < s.size; row++)
                for (int col = 0; col < s.size; col++) {
                    int color = blokus_cell(&s, row, col);
                    char expected = color < 0 ? '.' : (char)('0' + color);
                    assert_int_equal(json_string_value(json_array_get(board, (size_t)row))[col],
                                     expected);
                    attach += blokus_is_attach_cell(&s, s.to_move, row, col);
                    unavailable += !blokus_is_free_cell(&s, s.to_move, row, col);
                }
            json_t *listed = json_object_get(hints, "attach");
            assert_int_equal(json_array_size(listed), attach);
            for (size_t i = 0; i < attach; i++) {
                json_t *cell = json_array_get(listed, i);
                assert_true(blokus_is_attach_cell(
                    &s, s.to_move, (int)json_integer_value(json_array_get(cell, 0)),
                    (int)json_integer_value(json_array_get(cell, 1))));
            }
            listed = json_object_get(hints, "unavailable");
            assert_int_equal(json_array_size(listed), unavailable);
            for (size_t i = 0; i < unavailable; i++) {
                json_t *cell = json_array_get(listed, i);
                assert_false(blokus_is_free_cell(&s, s.to_move,
                                                 (int)json_integer_value(json_array_get(cell, 0)),
                                                 (int)json_integer_value(json_array_get(cell, 1))));
            }
            json_decref(written);
            json_out_free(&out);
            count = blokus_generate(&s, moves);
            if (count > 0)
                blokus_apply(&s, moves[rng_below(&r, (uint32_t)count)]);
        }
    }
}

static void test_finished_game_has_an_empty_move_list(void **state)
{
    (void)state;
    blokus_state s;
    blokus_init(&s, BLOKUS_MODE_DUO, BLOKUS_SCORING_SQUARES);
    s.is_over = 1;
    char *text = game_json_blokus_legal_moves_text(&s);
    assert_string_equal(text, "[]");
    free(text);
}

static void test_encoded_moves_decode_to_the_same_move(void **state)
{
    (void)state;
    blokus_move m = {9, 3, 12, 7}, back;
    protocol_failure failure;
    json_t *json = game_json_blokus_move(m);
    assert_int_equal(game_json_blokus_action(json, &back, &failure), 0);
    assert_memory_equal(&m, &back, sizeof(m));
    json_decref(json);
}

static void test_spliced_member_joins_the_message_with_its_id(void **state)
{
    (void)state;
    json_t *id = json_string("q1");
    char *text =
        protocol_finish_with_text(json_pack("{s:s}", "type", "t"), "moves", strdup("[1,2]"), id);
    json_t *parsed = json_loads(text, 0, NULL);
    json_t *expected = json_pack("{s:s, s:s, s:[i, i]}", "type", "t", "id", "q1", "moves", 1, 2);
    assert_true(json_equal(parsed, expected));
    free(text);
    json_decref(parsed);
    json_decref(expected);
    text = protocol_finish_with_text(json_object(), "moves", strdup("[]"), NULL);
    assert_string_equal(text, "{\"moves\":[]}");
    free(text);
    json_decref(id);
}

static void test_piece_given_as_an_index_out_of_range_names_both_forms(void **state)
{
    (void)state;
    json_t *action =
        json_pack("{s:i, s:i, s:i, s:i}", "piece", 21, "orientation", 0, "row", 0, "col", 0);
    blokus_move move;
    protocol_failure failure;
    assert_int_equal(game_json_blokus_action(action, &move, &failure), PROTOCOL_E_BAD_MESSAGE);
    assert_non_null(strstr(failure.message, "piece index from 0 to 20"));
    json_object_set_new(action, "piece", json_integer(20));
    assert_int_equal(game_json_blokus_action(action, &move, &failure), 0);
    assert_int_equal(move.piece, 20);
    json_decref(action);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_move_list_text_equals_the_jansson_encoding),
        cmocka_unit_test(test_board_and_hints_agree_with_the_engine_cell_by_cell),
        cmocka_unit_test(test_finished_game_has_an_empty_move_list),
        cmocka_unit_test(test_encoded_moves_decode_to_the_same_move),
        cmocka_unit_test(test_spliced_member_joins_the_message_with_its_id),
        cmocka_unit_test(test_piece_given_as_an_index_out_of_range_names_both_forms),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
