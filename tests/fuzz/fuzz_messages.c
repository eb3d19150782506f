/* fuzz_messages.c -- every decoder a client's bytes reach, under a fuzzer.
 *
 * One input is tried as a websocket message (protocol_decode, then both
 * games' action decoders when it is a game.move, then the error reply) and
 * as a stateless Reef API request body. Nothing may crash, leak or trip a
 * sanitizer, whatever the bytes. Built for libFuzzer with clang
 * (-DTESSERA_FUZZ=ON), and replayed over the checked-in corpus by ctest. */
#include <stdint.h>
#include <stdlib.h>

#include "protocol/game_json.h"
#include "protocol/protocol.h"
#include "protocol/reef_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_as_message(const char *text, size_t size)
{
    protocol_message message;
    protocol_failure failure;
    if (protocol_decode(text, size, &message, &failure) == 0) {
        if (message.type == PROTOCOL_GAME_MOVE) {
            blokus_move blokus;
            reef_action reef;
            game_json_blokus_action(message.body.move.action, &blokus, &failure);
            game_json_reef_action(message.body.move.action, &reef, &failure);
        }
    }
    if (failure.code != 0)
        free(protocol_error_text(message.id, &failure));
    protocol_message_clear(&message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    decode_as_message(text, size);
    reef_api_response response;
    reef_api_action(text, size, &response);
    reef_api_response_clear(&response);
    return 0;
}
