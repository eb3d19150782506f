/* fuzz_messages.c -- every decoder a client's bytes reach, under a fuzzer.
 *
 * One input is tried as a websocket message and as a stateless Reef API
 * request body. What must hold, whatever the bytes:
 * - protocol_decode either succeeds, or fails with a code whose error
 *   reply (protocol_error_text) is a whole error: JSON, type "error", the
 *   code's wire name, a message, and the request's id echoed when usable;
 * - a decoded game.move's action re-encodes to a value that decodes to
 *   the same move (what the lobby broadcasts is what it was sent);
 * - whatever the plain-JSON fast path reads, jansson reads the same
 *   (json_in.h), member for member;
 * - reef_api_action answers 200 with a state and legal actions, or an
 *   error status with the Reef API's whole error body.
 * Nothing may crash, leak or trip a sanitizer. Built for libFuzzer with
 * clang (-DTESSERA_FUZZ=ON), and replayed over corpus/messages by ctest. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/game_json.h"
#include "protocol/json_in.h"
#include "protocol/protocol.h"
#include "protocol/reef_api.h"
#include "tests/fuzz/fuzz_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decoded move, written as game.moved shows it, reads back the same. */
static void check_move_round_trip(game_move move)
{
    protocol_failure failure;
    game_move again;
    json_t *written = game_json_move(move);
    FUZZ_REQUIRE(written != NULL);
    FUZZ_REQUIRE(game_json_action(written, &again, &failure) == 0);
    FUZZ_REQUIRE(memcmp(&move, &again, sizeof(move)) == 0);
    json_decref(written);
}

/* The error reply is whole, with the failure's code and the request's id. */
static void check_error_reply(const protocol_message *message, const protocol_failure *failure)
{
    char *text = protocol_error_text(message->id, failure);
    fuzz_require_error(text, strlen(text), 0);
    json_t *reply = json_loads(text, 0, NULL);
    const char *code = json_string_value(json_object_get(reply, "code"));
    FUZZ_REQUIRE(strcmp(code, protocol_error_name(failure->code)) == 0);
    if (message->id)
        FUZZ_REQUIRE(json_equal(json_object_get(reply, "id"), message->id));
    json_decref(reply);
    free(text);
}

/* The fast path's value, if any, is jansson's, in the same order. */
static void check_plain_read(const char *text, size_t size)
{
    json_t *plain = json_in_plain(text, size);
    if (!plain)
        return;
    json_t *slow = json_loadb(text, size, JSON_REJECT_DUPLICATES, NULL);
    FUZZ_REQUIRE(slow != NULL && json_equal(plain, slow));
    char *fast_text = json_dumps(plain, JSON_COMPACT), *slow_text = json_dumps(slow, JSON_COMPACT);
    FUZZ_REQUIRE(fast_text && slow_text && strcmp(fast_text, slow_text) == 0);
    free(fast_text);
    free(slow_text);
    json_decref(slow);
    json_decref(plain);
}

static void decode_as_message(const char *text, size_t size)
{
    check_plain_read(text, size);
    protocol_message message;
    protocol_failure failure;
    int rc = protocol_decode(text, size, &message, &failure);
    if (rc == 0 && message.type == PROTOCOL_GAME_MOVE)
        check_move_round_trip(message.body.move.action);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == failure.code && rc < 0);
        check_error_reply(&message, &failure);
    }
    protocol_message_clear(&message);
}

static void call_reef_api(const char *text, size_t size)
{
    reef_api_response response;
    reef_api_action(text, size, &response);
    FUZZ_REQUIRE(response.body != NULL);
    if (response.status == 200) {
        json_t *answer = json_loads(response.body, 0, NULL);
        FUZZ_REQUIRE(json_is_object(json_object_get(answer, "state")));
        FUZZ_REQUIRE(json_is_array(json_object_get(answer, "legalActions")));
        json_decref(answer);
    } else {
        FUZZ_REQUIRE(response.status == 400 || response.status == 422);
        fuzz_require_error(response.body, strlen(response.body), 1);
    }
    reef_api_response_clear(&response);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    decode_as_message(text, size);
    call_reef_api(text, size);
    return 0;
}
