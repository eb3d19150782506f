/* message.c -- error names and the envelope of server messages.
 *
 * Every server message is a JSON object with a `type`; a reply also carries
 * the `id` of the request it answers. Building messages as jansson values
 * and serialising them in one place (protocol_finish) keeps the compact
 * encoding and the id echo identical for every message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_error.h"

#include "protocol/protocol.h"

static const char *const ERROR_NAMES[] = {
    "ok",
    "bad_json",
    "bad_message",
    "unknown_type",
    "unauthorized",
    "no_such_room",
    "not_in_room",
    "room_full",
    "seat_taken",
    "not_your_turn",
    "stale_ply",
    "illegal_move",
    "not_started",
    "already_started",
    "game_over",
    "not_owner",
    "seats_empty",
    "rate_limited",
    "internal",
    "shutting_down",
    "too_many_rooms",
    "storage_error",
    "not_queued",
    "name_taken",
    "no_such_tournament",
    "consent_required",
    "too_many_tournaments",
    "no_such_invitation",
    "out_of_time",
    "not_finished",
};

#define ERROR_NAME_COUNT ((int)(sizeof(ERROR_NAMES) / sizeof(ERROR_NAMES[0])))
_Static_assert(ERROR_NAME_COUNT == PROTOCOL_ERROR_COUNT, "every protocol_error has a name");

const char *protocol_error_name(int code)
{
    if (code > 0 || -code >= ERROR_NAME_COUNT)
        return "internal";
    return ERROR_NAMES[-code];
}

char *protocol_finish(json_t *message, const json_t *id)
{
    if (!message)
        return NULL;
    if (id)
        json_object_set_new(message, "id", json_deep_copy(id));
    char *text = json_dumps(message, JSON_COMPACT);
    json_decref(message);
    return text;
}

int protocol_fail_engine(protocol_failure *failure, int engine_code)
{
    protocol_fail(failure, PROTOCOL_E_ILLEGAL_MOVE, "%s", engine_error_message(engine_code));
    snprintf(failure->reason, sizeof(failure->reason), "%s", engine_error_name(engine_code));
    return PROTOCOL_E_ILLEGAL_MOVE;
}

char *protocol_finish_with_text(json_t *message, const char *key, char *value, const json_t *id)
{
    char *head = protocol_finish(message, id);
    size_t head_length = head ? strlen(head) : 0;
    size_t length = head_length + strlen(key) + (value ? strlen(value) : 0) + 8;
    char *text = head && value ? malloc(length) : NULL;
    if (text) {
        /* head is an object: "{...}" or "{}"; its closing brace gives way */
        head[head_length - 1] = '\0';
        snprintf(text, length, "%s%s\"%s\":%s}", head, head_length > 2 ? "," : "", key, value);
    }
    free(head);
    free(value);
    return text;
}

char *protocol_error_text(const json_t *id, const protocol_failure *failure)
{
    json_t *error = json_pack("{s:s, s:s, s:s}", "type", "error", "code",
                              protocol_error_name(failure->code), "message", failure->message);
    if (error && failure->reason[0])
        json_object_set_new(error, "reason", json_string(failure->reason));
    return protocol_finish(error, id);
}
