/* reef_api.c -- the stateless Reef API: verify the client's state, play.
 *
 * A state is a JSON object. `seed` and `history` are what the server
 * believes; every other field (board, current, next, score, streak,
 * skipsLeft, phase, turn, piecesPlaced) is a copy for the client's
 * convenience that must come back unchanged. An action request is checked
 * in an order that gives every refusal one meaning:
 *
 *   1. decoding: not JSON -> 400 bad_json; a field missing, unknown or of
 *      the wrong JSON type, a malformed action or history -> 400 bad_request;
 *   2. replaying seed + history through the engine: an action it refuses
 *      -> 422 tampered_state;
 *   3. comparing each visible field with the replayed one: a difference
 *      -> 422 tampered_state naming the field;
 *   4. playing the action: refused -> 422 with the engine's code and
 *      teaching message (occupied, out_of_bounds, ...);
 *   5. 200 with the new state (history one action longer), legalActions
 *      and the result.
 *
 * The visible fields are one table of (name, JSON type, encoder): the same
 * rows write a state, check the shape of a client's state and compare it,
 * so adding a field cannot make those three disagree.
 *
 * `history` is a string of space-separated tokens, one per action: "s" for
 * a skip, else row digit, column digit and the side of B ('r' right = 0,
 * 'd' down = 90, 'l' left = 180, 'u' up = 270), e.g. "00r 23d s 51u". At
 * about 4 bytes per action, a 256 KiB request holds some 60,000 actions.
 * The public grammar's action objects take about 50 bytes each and even
 * [row, col, orientation] arrays about 9, each costing several jansson
 * values to decode on every request; a long run of a good bot would not fit.
 *
 * Refusals are written by error_json_render() in the nested shape; it
 * forces their messages to printable ASCII, since they may echo a client's
 * key or a jansson error cut in the middle of a UTF-8 sequence. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/error_json.h"
#include "protocol/game_json.h"
#include "protocol/reef_api.h"

enum {
    STATUS_OK = 200,
    STATUS_BAD_REQUEST = 400,
    STATUS_UNPROCESSABLE = 422,
    STATUS_INTERNAL = 500
};

/* The longest history token plus its separating space. */
#define HISTORY_TOKEN_MAX 4
#define HISTORY_SKIP      's'
/* Query parameter names are echoed up to this many bytes. */
#define ECHO_MAX 32

/* The side of B for orientation / 90. */
static const char ORIENTATION_LETTERS[REEF_ORIENTATIONS] = {'r', 'd', 'l', 'u'};

/* Why a request was refused; becomes {"error": {code, message}}. status 0
 * means nothing was refused. */
typedef struct api_failure {
    int status;
    const char *code;
    char message[200];
} api_failure;

/* A decoded request: {state, action} or {state, token}. `root` owns every
 * JSON value; `history` has room for one more action, the one being
 * played. */
typedef struct api_request {
    json_t *root;
    json_t *state;
    reef_action action; /* action requests */
    const char *token;  /* run submissions */
    uint64_t seed;
    reef_action *history;
    size_t history_count;
} api_request;

typedef struct visible_field {
    const char *name;
    json_type type;
    const char *shape; /* the type, for "must be ..." messages */
    json_t *(*encode)(const reef_state *state);
} visible_field;

static json_t *encode_board(const reef_state *state)
{
    return game_json_reef_board(state);
}

static json_t *encode_current(const reef_state *state)
{
    return game_json_reef_piece(reef_current(state));
}

static json_t *encode_next(const reef_state *state)
{
    return game_json_reef_piece(reef_next(state));
}

static json_t *encode_score(const reef_state *state)
{
    return json_integer(reef_score(state));
}

static json_t *encode_streak(const reef_state *state)
{
    return json_integer(reef_streak(state));
}

static json_t *encode_skips_left(const reef_state *state)
{
    return json_integer(reef_skips_left(state));
}

static json_t *encode_phase(const reef_state *state)
{
    return json_string(reef_is_over(state) ? "ended" : "playing");
}

static json_t *encode_turn(const reef_state *state)
{
    return json_integer(reef_turns(state));
}

static json_t *encode_pieces_placed(const reef_state *state)
{
    return json_integer(state->placements);
}

static const visible_field VISIBLE_FIELDS[] = {
    {"board", JSON_ARRAY, "an array of 8 strings", encode_board},
    {"current", JSON_OBJECT, "an object {a, b}", encode_current},
    {"next", JSON_OBJECT, "an object {a, b}", encode_next},
    {"score", JSON_INTEGER, "an integer", encode_score},
    {"streak", JSON_INTEGER, "an integer", encode_streak},
    {"skipsLeft", JSON_INTEGER, "an integer", encode_skips_left},
    {"phase", JSON_STRING, "a string", encode_phase},
    {"turn", JSON_INTEGER, "an integer", encode_turn},
    {"piecesPlaced", JSON_INTEGER, "an integer", encode_pieces_placed},
};

#define VISIBLE_FIELD_COUNT (sizeof(VISIBLE_FIELDS) / sizeof(VISIBLE_FIELDS[0]))

/* Records a refusal (printf-style); returns -status. */
static int api_fail(api_failure *failure, int status, const char *code, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static int api_fail(api_failure *failure, int status, const char *code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(failure->message, sizeof(failure->message), format, args);
    va_end(args);
    failure->status = status;
    failure->code = code;
    return -status;
}

static int bad_request(api_failure *failure, const char *message)
{
    return api_fail(failure, STATUS_BAD_REQUEST, "bad_request", "%s", message);
}

/* Writes the history token of `action` (no separator); returns its length. */
static size_t write_history_token(reef_action action, char *text)
{
    if (action.type == REEF_ACTION_SKIP) {
        text[0] = HISTORY_SKIP;
        return 1;
    }
    text[0] = (char)('0' + action.row);
    text[1] = (char)('0' + action.col);
    text[2] = ORIENTATION_LETTERS[action.orientation / 90];
    return 3;
}

/* Reads one history token of `length` bytes: 0, or -1 if malformed. Rows
 * and columns past the board are well-formed; the replay refuses them. */
static int read_history_token(const char *token, size_t length, reef_action *out)
{
    if (length == 1 && token[0] == HISTORY_SKIP) {
        *out = reef_skip();
        return 0;
    }
    if (length != 3 || token[0] < '0' || token[0] > '9' || token[1] < '0' || token[1] > '9')
        return -1;
    const char *letter = memchr(ORIENTATION_LETTERS, token[2], REEF_ORIENTATIONS);
    if (letter == NULL)
        return -1;
    *out = reef_place(token[0] - '0', token[1] - '0', (int)(letter - ORIENTATION_LETTERS) * 90);
    return 0;
}

static json_t *history_value(const reef_action *history, size_t count)
{
    char *text = malloc(count * HISTORY_TOKEN_MAX + 1);
    if (text == NULL)
        return NULL;
    size_t length = 0;
    for (size_t i = 0; i < count; i++) {
        if (i > 0)
            text[length++] = ' ';
        length += write_history_token(history[i], text + length);
    }
    json_t *value = json_stringn(text, length);
    free(text);
    return value;
}

/* The state object: seed, the visible fields, history. NULL if out of
 * memory. */
static json_t *state_value(const reef_state *state, uint64_t seed, const reef_action *history,
                           size_t count)
{
    json_t *value = json_object();
    int rc = json_object_set_new(value, "seed", game_json_seed_value(seed));
    for (size_t i = 0; i < VISIBLE_FIELD_COUNT; i++)
        rc |= json_object_set_new(value, VISIBLE_FIELDS[i].name, VISIBLE_FIELDS[i].encode(state));
    rc |= json_object_set_new(value, "history", history_value(history, count));
    if (rc != 0) {
        json_decref(value);
        return NULL;
    }
    return value;
}

/* {state, legalActions}, plus result when it is not NULL. */
static json_t *game_reply(const reef_state *state, uint64_t seed, const reef_action *history,
                          size_t count, const reef_result *result)
{
    json_t *reply = json_object();
    int rc = json_object_set_new(reply, "state", state_value(state, seed, history, count));
    rc |= json_object_set_new(reply, "legalActions", game_json_reef_legal_actions(state));
    if (result != NULL)
        rc |= json_object_set_new(reply, "result", game_json_reef_result(result));
    if (rc != 0) {
        json_decref(reply);
        return NULL;
    }
    return reply;
}

/* Fills *out with `reply` (consumed) or, if there is none, the failure. */
static void finish(reef_api_response *out, json_t *reply, api_failure *failure)
{
    out->status = STATUS_OK;
    out->body = reply != NULL ? json_dumps(reply, JSON_COMPACT) : NULL;
    json_decref(reply);
    if (out->body != NULL)
        return;
    if (failure->status == 0)
        api_fail(failure, STATUS_INTERNAL, "internal", "the server ran out of memory");
    out->status = failure->status;
    out->body = error_json_render(ERROR_JSON_NESTED, failure->code, failure->message, NULL);
    if (out->body == NULL)
        out->status = STATUS_INTERNAL;
}

/* The seed of the init query: `seed` once, and no other argument. */
static int parse_init_query(const url_query *query, uint64_t *seed, api_failure *failure)
{
    static const char SEED_NAME[] = "seed";
    for (size_t i = 0; i < query->count; i++) {
        const char *name = query->arguments[i].name;
        if (strcmp(name, SEED_NAME) != 0)
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request",
                            "unknown parameter '%.*s': the only parameter is seed=N", ECHO_MAX,
                            name);
    }
    const char *text = url_query_get(query, SEED_NAME);
    if (text == NULL)
        return bad_request(failure, "missing parameter 'seed': ask for init?seed=N, N from 0 to "
                                    "18446744073709551615");
    if (url_query_count(query, SEED_NAME) > 1)
        return bad_request(failure, "parameter 'seed' is given twice");
    if (game_json_seed_text(text, strlen(text), seed) != 0)
        return bad_request(failure, "'seed' must be decimal digits from 0 to 18446744073709551615");
    return 0;
}

void reef_api_init(const url_query *query, reef_api_response *out)
{
    api_failure failure = {0};
    json_t *reply = NULL;
    uint64_t seed;
    if (parse_init_query(query, &seed, &failure) == 0) {
        reef_state state;
        reef_init(&state, seed);
        reply = game_reply(&state, seed, NULL, 0, NULL);
    }
    finish(out, reply, &failure);
}

static bool is_state_field(const char *name)
{
    if (strcmp(name, "seed") == 0 || strcmp(name, "history") == 0)
        return true;
    for (size_t i = 0; i < VISIBLE_FIELD_COUNT; i++) {
        if (strcmp(name, VISIBLE_FIELDS[i].name) == 0)
            return true;
    }
    return false;
}

/* Every field present, known and of the right JSON type. */
static int check_state_shape(const json_t *state, api_failure *failure)
{
    const char *key;
    json_t *value;
    if (!json_is_object(state))
        return bad_request(failure, "'state' must be the object init or the last action returned");
    json_object_foreach((json_t *)state, key, value)
    {
        if (!is_state_field(key))
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request", "unknown field 'state.%s'",
                            key);
    }
    if (!json_object_get(state, "seed"))
        return bad_request(failure, "missing field 'state.seed'");
    if (!json_is_string(json_object_get(state, "history")))
        return bad_request(failure, "'state.history' must be a string such as \"00r 23d s\"");
    for (size_t i = 0; i < VISIBLE_FIELD_COUNT; i++) {
        const visible_field *field = &VISIBLE_FIELDS[i];
        value = json_object_get(state, field->name);
        if (value == NULL)
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request", "missing field 'state.%s'",
                            field->name);
        if (json_typeof(value) != field->type)
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request",
                            "'state.%s' must be %s, as the server wrote it", field->name,
                            field->shape);
    }
    return 0;
}

/* The body has exactly `state` and `other` ("action" or "token"). */
static int check_request_fields(const json_t *root, const char *other, api_failure *failure)
{
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)root, key, value)
    {
        if (strcmp(key, "state") != 0 && strcmp(key, other) != 0)
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request",
                            "unknown field '%s': the body is {state, %s}", key, other);
    }
    if (!json_object_get(root, "state"))
        return bad_request(failure, "missing field 'state': send back the state init or the "
                                    "last action returned");
    if (!json_object_get(root, other))
        return api_fail(failure, STATUS_BAD_REQUEST, "bad_request", "missing field '%s'", other);
    return 0;
}

/* A submission's token: the player's session token or bot key. */
static int decode_token(const json_t *value, api_request *out, api_failure *failure)
{
    size_t length = json_string_length(value);
    if (!json_is_string(value) || length == 0 || length > REEF_API_TOKEN_MAX)
        return api_fail(failure, STATUS_BAD_REQUEST, "bad_request",
                        "'token' must be your session token or bot key, a string of 1 to %d "
                        "bytes",
                        REEF_API_TOKEN_MAX);
    out->token = json_string_value(value);
    return 0;
}

static int decode_history(const json_t *value, api_request *out, api_failure *failure)
{
    const char *text = json_string_value(value);
    size_t length = json_string_length(value);
    /* Tokens are at least 2 bytes apart: at most length / 2 + 1 of them. */
    out->history = malloc(sizeof(reef_action) * (length / 2 + 2));
    if (out->history == NULL)
        return api_fail(failure, STATUS_INTERNAL, "internal", "the server ran out of memory");
    for (size_t start = 0; start < length;) {
        size_t end = start;
        while (end < length && text[end] != ' ')
            end++;
        bool is_trailing_space = end + 1 == length;
        if (is_trailing_space ||
            read_history_token(text + start, end - start, &out->history[out->history_count]) != 0)
            return api_fail(failure, STATUS_BAD_REQUEST, "bad_request",
                            "'state.history' action %zu is not a token such as \"23d\" (row, "
                            "col, r/d/l/u) or \"s\", separated by single spaces",
                            out->history_count + 1);
        out->history_count++;
        start = end + 1;
    }
    return 0;
}

/* Parses the body -- {state, action}, or {state, token} when `is_submission`
 * -- and decodes everything in it; nothing is replayed yet. */
static int decode_request(const char *body, size_t length, bool is_submission, api_request *out,
                          api_failure *failure)
{
    json_error_t error;
    protocol_failure decoding;
    const char *other = is_submission ? "token" : "action";
    out->root = json_loadb(body, length, JSON_REJECT_DUPLICATES, &error);
    if (out->root == NULL)
        return api_fail(failure, STATUS_BAD_REQUEST, "bad_json",
                        "invalid JSON at line %d column %d: %s", error.line, error.column,
                        error.text);
    if (!json_is_object(out->root))
        return api_fail(failure, STATUS_BAD_REQUEST, "bad_json",
                        "the body must be a JSON object {state, %s}", other);
    int rc = check_request_fields(out->root, other, failure);
    out->state = json_object_get(out->root, "state");
    if (rc == 0)
        rc = check_state_shape(out->state, failure);
    if (rc == 0 && game_json_seed(json_object_get(out->state, "seed"), "state.seed", &out->seed,
                                  &decoding) != 0)
        rc = bad_request(failure, decoding.message);
    if (rc == 0 && is_submission)
        rc = decode_token(json_object_get(out->root, "token"), out, failure);
    else if (rc == 0 && game_json_reef_action(json_object_get(out->root, "action"), &out->action,
                                              &decoding) != 0)
        rc = bad_request(failure, decoding.message);
    if (rc == 0)
        rc = decode_history(json_object_get(out->state, "history"), out, failure);
    return rc;
}

static int replay(const api_request *request, reef_state *state, api_failure *failure)
{
    reef_init(state, request->seed);
    for (size_t i = 0; i < request->history_count; i++) {
        int error = reef_play(state, request->history[i], NULL);
        if (error < 0)
            return api_fail(failure, STATUS_UNPROCESSABLE, "tampered_state",
                            "'state.history' action %zu cannot be played in the game of "
                            "'state.seed': %s",
                            i + 1, engine_error_message(error));
    }
    return 0;
}

/* Every visible field the client sent equals the replayed one. */
static int check_visible_fields(const json_t *claimed, const reef_state *state,
                                api_failure *failure)
{
    for (size_t i = 0; i < VISIBLE_FIELD_COUNT; i++) {
        const visible_field *field = &VISIBLE_FIELDS[i];
        json_t *expected = field->encode(state);
        if (expected == NULL)
            return api_fail(failure, STATUS_INTERNAL, "internal", "the server ran out of memory");
        bool is_equal = json_equal(expected, json_object_get(claimed, field->name));
        json_decref(expected);
        if (!is_equal)
            return api_fail(failure, STATUS_UNPROCESSABLE, "tampered_state",
                            "'state.%s' is not what 'state.seed' and 'state.history' give; "
                            "send the state back as the server wrote it",
                            field->name);
    }
    return 0;
}

static int play_action(reef_state *state, reef_action action, reef_result *result,
                       api_failure *failure)
{
    int error = reef_play(state, action, result);
    if (error < 0)
        return api_fail(failure, STATUS_UNPROCESSABLE, engine_error_name(error), "%s",
                        engine_error_message(error));
    return 0;
}

void reef_api_action(const char *body, size_t length, reef_api_response *out)
{
    api_failure failure = {0};
    api_request request = {0};
    reef_state state;
    reef_result result;
    json_t *reply = NULL;
    int rc = decode_request(body, length, false, &request, &failure);
    if (rc == 0)
        rc = replay(&request, &state, &failure);
    if (rc == 0)
        rc = check_visible_fields(request.state, &state, &failure);
    if (rc == 0)
        rc = play_action(&state, request.action, &result, &failure);
    if (rc == 0) {
        request.history[request.history_count++] = request.action;
        reply = game_reply(&state, request.seed, request.history, request.history_count, &result);
    }
    finish(out, reply, &failure);
    json_decref(request.root);
    free(request.history);
}

int reef_api_replay(uint64_t seed, const char *history, reef_state *out, char *problem, size_t size)
{
    api_failure failure = {0};
    api_request request = {0};
    request.seed = seed;
    json_t *text = json_string(history);
    int rc = text ? decode_history(text, &request, &failure) : -1;
    if (rc == 0)
        rc = replay(&request, out, &failure);
    if (rc != 0)
        snprintf(problem, size, "%s", text ? failure.message : "out of memory");
    json_decref(text);
    free(request.history);
    return rc == 0 ? 0 : -1;
}

/* A run counts as played to its end: over, or at the standard turn limit. */
static int check_run_complete(const reef_state *state, api_failure *failure)
{
    uint32_t turns = reef_turns(state);
    if (turns > REEF_STANDARD_TURNS)
        return api_fail(failure, STATUS_UNPROCESSABLE, "run_too_long",
                        "the leaderboards compare runs of at most %d turns and this one has %u: "
                        "submit the state of its turn %d",
                        REEF_STANDARD_TURNS, (unsigned)turns, REEF_STANDARD_TURNS);
    if (!reef_is_over(state) && turns < REEF_STANDARD_TURNS)
        return api_fail(failure, STATUS_UNPROCESSABLE, "run_not_over",
                        "the run is still going (turn %u): submit it when its phase is "
                        "\"ended\" or at turn %d",
                        (unsigned)turns, REEF_STANDARD_TURNS);
    return 0;
}

/* Copies what the lobby stores of a verified run; the history is kept as
 * the JSON string the client sent. */
static int take_run(const api_request *request, const reef_state *state, reef_api_run *run,
                    api_failure *failure)
{
    run->seed = request->seed;
    run->score = reef_score(state);
    run->turns = reef_turns(state);
    run->token = strdup(request->token);
    run->history_json =
        json_dumps(json_object_get(request->state, "history"), JSON_COMPACT | JSON_ENCODE_ANY);
    if (!run->token || !run->history_json)
        return api_fail(failure, STATUS_INTERNAL, "internal", "the server ran out of memory");
    return 0;
}

int reef_api_submission(const char *body, size_t length, reef_api_run *run,
                        reef_api_response *refusal)
{
    api_failure failure = {0};
    api_request request = {0};
    reef_state state;
    memset(run, 0, sizeof(*run));
    int rc = decode_request(body, length, true, &request, &failure);
    if (rc == 0)
        rc = replay(&request, &state, &failure);
    if (rc == 0)
        rc = check_visible_fields(request.state, &state, &failure);
    if (rc == 0)
        rc = check_run_complete(&state, &failure);
    if (rc == 0)
        rc = take_run(&request, &state, run, &failure);
    json_decref(request.root);
    free(request.history);
    if (rc == 0)
        return 0;
    reef_api_run_clear(run);
    finish(refusal, NULL, &failure);
    return -1;
}

void reef_api_run_clear(reef_api_run *run)
{
    free(run->token);
    free(run->history_json);
    run->token = NULL;
    run->history_json = NULL;
}

void reef_api_response_clear(reef_api_response *response)
{
    free(response->body);
    response->body = NULL;
}
