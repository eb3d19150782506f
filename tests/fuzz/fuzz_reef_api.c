/* fuzz_reef_api.c -- the stateless Reef API's state and action, fuzzed.
 *
 * The first byte chooses how the rest is read:
 * - even: the rest is a whole request body, given to reef_api_action and
 *   to reef_api_submission (as the action and submit routes do);
 * - odd, the structured mode: 8 bytes of seed, a prefix length (0-31) and
 *   that many choice bytes play a legal prefix through the API itself
 *   (init, then the chosen legal action each time, carrying the returned
 *   state forward as a client does); then one byte picks what is fuzzed
 *   and the remaining bytes are spliced, as raw JSON text, into the last
 *   good state: as the action, as one state field's value, appended to the
 *   history, or as the submission's token.
 * What must hold: every answer is 200 with a state and legal actions (and,
 * for an action, a result), or a refusal (400 or 422) with the Reef API's
 * whole error {"error":{"code","message"}}; a refused submission gives no
 * run; a legal prefix is never refused. Nothing crashes or leaks. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/reef_api.h"
#include "tests/fuzz/fuzz_check.h"

#define PREFIX_MAX 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The state fields a client sends back; the structured mode fuzzes one. */
static const char *const FIELDS[] = {"seed",  "board",        "current",   "next",
                                     "score", "streak",       "skipsLeft", "phase",
                                     "turn",  "piecesPlaced", "history"};
#define FIELD_COUNT (sizeof(FIELDS) / sizeof(FIELDS[0]))

/* Checks an answer's shape; returns the parsed body when it is a 200. */
static json_t *check_answer(const reef_api_response *response, int is_action)
{
    FUZZ_REQUIRE(response->body != NULL);
    if (response->status != 200) {
        FUZZ_REQUIRE(response->status == 400 || response->status == 422);
        fuzz_require_error(response->body, strlen(response->body), 1);
        return NULL;
    }
    json_t *answer = json_loads(response->body, 0, NULL);
    FUZZ_REQUIRE(json_is_object(json_object_get(answer, "state")));
    FUZZ_REQUIRE(json_is_array(json_object_get(answer, "legalActions")));
    if (is_action)
        FUZZ_REQUIRE(json_is_object(json_object_get(answer, "result")));
    return answer;
}

static void submit(const char *body, size_t length)
{
    reef_api_run run;
    reef_api_response refusal = {0, NULL};
    memset(&run, 0, sizeof(run));
    if (reef_api_submission(body, length, &run, &refusal) == 0) {
        FUZZ_REQUIRE(run.token != NULL && run.history_json != NULL);
        FUZZ_REQUIRE(refusal.body == NULL);
    } else {
        FUZZ_REQUIRE(run.token == NULL && run.history_json == NULL);
        json_decref(check_answer(&refusal, 0));
        FUZZ_REQUIRE(refusal.status != 200);
    }
    reef_api_run_clear(&run);
    reef_api_response_clear(&refusal);
}

/* Sends {"state": state, "action": action}; returns the answer when 200. */
static json_t *act(const json_t *state, const char *action, size_t length)
{
    char *state_text = json_dumps(state, JSON_COMPACT);
    size_t size = strlen(state_text) + length + 32;
    char *body = malloc(size);
    int written =
        snprintf(body, size, "{\"state\":%s,\"action\":%.*s}", state_text, (int)length, action);
    reef_api_response response;
    reef_api_action(body, (size_t)written, &response);
    json_t *answer = check_answer(&response, 1);
    reef_api_response_clear(&response);
    free(body);
    free(state_text);
    return answer;
}

/* Plays the prefix the choice bytes pick; returns the last answer (a new
 * reference): {state, legalActions}. */
static json_t *play_prefix(uint64_t seed, const uint8_t *choices, size_t count)
{
    char seed_text[32];
    snprintf(seed_text, sizeof(seed_text), "seed=%" PRIu64, seed);
    url_query query = {NULL, 0};
    url_query_add(&query, seed_text, strlen(seed_text));
    reef_api_response response;
    reef_api_init(&query, &response);
    url_query_clear(&query);
    FUZZ_REQUIRE(response.status == 200);
    json_t *answer = check_answer(&response, 0);
    reef_api_response_clear(&response);
    for (size_t i = 0; i < count; i++) {
        json_t *legal = json_object_get(answer, "legalActions");
        if (json_array_size(legal) == 0)
            break;
        char *action =
            json_dumps(json_array_get(legal, choices[i] % json_array_size(legal)), JSON_COMPACT);
        json_t *next = act(json_object_get(answer, "state"), action, strlen(action));
        free(action);
        FUZZ_REQUIRE(next != NULL); /* a legal action of a true state is never refused */
        json_decref(answer);
        answer = next;
    }
    return answer;
}

/* The state with `field` set to the raw JSON `text`, as a body text:
 * {"state":{...,"field":text},"action":{"type":"skip"}} or, for a
 * submission, {"token":"t","state":{...}}. */
static char *splice_field(const json_t *state, const char *field, const char *text, size_t length,
                          int is_submission, size_t *body_length)
{
    json_t *copy = json_deep_copy(state);
    json_object_del(copy, field);
    char *rest = json_dumps(copy, JSON_COMPACT); /* "{...}" */
    json_decref(copy);
    size_t size = strlen(rest) + strlen(field) + length + 64;
    char *body = malloc(size);
    rest[strlen(rest) - 1] = '\0'; /* drop the closing brace */
    const char *comma = strlen(rest) > 1 ? "," : "";
    int written =
        is_submission
            ? snprintf(body, size, "{\"token\":\"t\",\"state\":%s%s\"%s\":%.*s}}", rest, comma,
                       field, (int)length, text)
            : snprintf(body, size, "{\"state\":%s%s\"%s\":%.*s},\"action\":{\"type\":\"skip\"}}",
                       rest, comma, field, (int)length, text);
    free(rest);
    *body_length = (size_t)written;
    return body;
}

static void fuzz_structured(const uint8_t *data, size_t size)
{
    if (size < 10)
        return;
    uint64_t seed = 0;
    memcpy(&seed, data, sizeof(seed));
    size_t count = data[8] % PREFIX_MAX;
    data += 9;
    size -= 9;
    if (count > size)
        count = size;
    json_t *answer = play_prefix(seed, data, count);
    data += count;
    size -= count;
    if (size == 0) {
        json_decref(answer);
        return;
    }
    uint8_t what = data[0];
    const char *text = (const char *)data + 1;
    size_t length = size - 1;
    const json_t *state = json_object_get(answer, "state");
    size_t body_length;
    char *body;
    switch (what % 4) {
    case 0:
        json_decref(act(state, text, length));
        break;
    case 1:
    case 2:
        body = splice_field(state, FIELDS[(what / 4) % FIELD_COUNT], text, length, what % 4 == 2,
                            &body_length);
        if (what % 4 == 2) {
            submit(body, body_length);
        } else {
            reef_api_response response;
            reef_api_action(body, body_length, &response);
            json_decref(check_answer(&response, 1));
            reef_api_response_clear(&response);
        }
        free(body);
        break;
    default: {
        const char *history = json_string_value(json_object_get(state, "history"));
        char *longer = malloc(strlen(history) + length + 1);
        memcpy(longer, history, strlen(history));
        memcpy(longer + strlen(history), text, length);
        longer[strlen(history) + length] = '\0';
        json_t *copy = json_deep_copy(state);
        json_object_set_new(copy, "history", json_stringn(longer, strlen(history) + length));
        if (json_is_string(json_object_get(copy, "history")))
            json_decref(act(copy, "{\"type\":\"skip\"}", 15));
        json_decref(copy);
        free(longer);
        break;
    }
    }
    json_decref(answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    if (data[0] % 2 == 1) {
        fuzz_structured(data + 1, size - 1);
        return 0;
    }
    const char *body = (const char *)data + 1;
    reef_api_response response;
    reef_api_action(body, size - 1, &response);
    json_decref(check_answer(&response, 1));
    reef_api_response_clear(&response);
    submit(body, size - 1);
    return 0;
}
