/* decode.c -- strict decoding of client messages.
 *
 * Each message type is a table of the fields it may carry: name, kind,
 * whether it is required, and where the value goes in the decoded struct
 * (an offset into protocol_message.body). One generic walker checks every
 * key of the object against the table, so "unknown field", "missing
 * field", "wrong type" and "out of range" are handled once for all types,
 * and adding a message is adding a table. Values that need more than a
 * type check (the clock object, a 64-bit seed, "player"/"spectator", a
 * move's action) have small custom parsers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/game_json.h"
#include "protocol/json_in.h"
#include "protocol/protocol.h"
#include "util/utf8.h"

typedef enum field_kind {
    FIELD_STRING, /* char buffer of `size` bytes; at least `min` bytes (1 if 0) */
    FIELD_BOOL,
    FIELD_INT,   /* int or int64_t (size says which), within [min, max] */
    FIELD_JSON,  /* any JSON value, reference kept (json_t *) */
    FIELD_CUSTOM /* parsed by `parse` */
} field_kind;

struct field_spec {
    const char *name;
    field_kind kind;
    bool is_required;
    size_t offset; /* into protocol_message.body */
    size_t size;
    int64_t min, max;
    int (*parse)(const char *name, json_t *value, void *target, protocol_failure *failure);
};

struct message_spec {
    const char *type_name;
    protocol_type type;
    const struct field_spec *fields;
};

#define BODY(member) (offsetof(protocol_message, body.member) - offsetof(protocol_message, body))

static int parse_clock(const char *name, json_t *value, void *target, protocol_failure *failure);
static int parse_seed(const char *name, json_t *value, void *target, protocol_failure *failure);
static int parse_join_as(const char *name, json_t *value, void *target, protocol_failure *failure);
static int parse_action(const char *name, json_t *value, void *target, protocol_failure *failure);

#define STRING(field, member, required)                                                            \
    {                                                                                              \
        field, FIELD_STRING, required, BODY(member), sizeof(((protocol_message *)0)->body.member), \
            0, 0, NULL                                                                             \
    }
#define ROOM_FIELD STRING("room", room.room, true)
#define PASSWORD(member, required)                                                                 \
    {                                                                                              \
        "password", FIELD_STRING, required, BODY(member),                                          \
            sizeof(((protocol_message *)0)->body.member), PROTOCOL_PASSWORD_MIN, 0, NULL           \
    }

static const struct field_spec HELLO_FIELDS[] = {
    STRING("name", hello.name, true),
    STRING("token", hello.token, false),
    STRING("key", hello.key, false),
    PASSWORD(hello.password, false),
    {"bot", FIELD_BOOL, false, BODY(hello.is_bot), sizeof(bool), 0, 0, NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec ACCOUNT_FIELDS[] = {
    STRING("name", account.name, true),
    PASSWORD(account.password, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec PING_FIELDS[] = {
    {"data", FIELD_JSON, false, BODY(ping.data), sizeof(json_t *), 0, 0, NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec CREATE_FIELDS[] = {
    STRING("game", create.game, true),
    STRING("mode", create.mode, true),
    STRING("scoring", create.scoring, false),
    STRING("timeout", create.timeout, false),
    {"clock", FIELD_CUSTOM, false, BODY(create), 0, 0, 0, parse_clock},
    {"seed", FIELD_CUSTOM, false, BODY(create), 0, 0, 0, parse_seed},
    {"private", FIELD_BOOL, false, BODY(create.is_private), sizeof(bool), 0, 0, NULL},
    {"max_turns", FIELD_INT, false, BODY(create.max_turns), sizeof(int64_t), 1, 1000000, NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec JOIN_FIELDS[] = {
    ROOM_FIELD,
    {"as", FIELD_CUSTOM, false, BODY(room.as_spectator), 0, 0, 0, parse_join_as},
    {"seat", FIELD_INT, false, BODY(room.seat), sizeof(int), 0, 3, NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec ROOM_FIELDS[] = {
    ROOM_FIELD,
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec ADD_BOT_FIELDS[] = {
    ROOM_FIELD,
    {"seat", FIELD_INT, true, BODY(room.seat), sizeof(int), 0, 3, NULL},
    STRING("bot", room.bot, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec REMATCH_FIELDS[] = {
    ROOM_FIELD,
    STRING("rematch", room.rematch, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec LIST_FIELDS[] = {
    STRING("cursor", list.cursor, false),
    {"limit", FIELD_INT, false, BODY(list.limit), sizeof(int), 1, PROTOCOL_LIST_LIMIT_MAX, NULL},
    STRING("game", list.game, false),
    STRING("mode", list.mode, false),
    STRING("status", list.status, false),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec MOVE_FIELDS[] = {
    STRING("room", move.room, true),
    {"ply", FIELD_INT, true, BODY(move.ply), sizeof(int64_t), 0, 1000000, NULL},
    {"action", FIELD_CUSTOM, true, BODY(move.action), 0, 0, 0, parse_action},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec QUEUE_JOIN_FIELDS[] = {
    STRING("game", queue.game, true),
    STRING("mode", queue.mode, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec TOURNAMENT_CREATE_FIELDS[] = {
    STRING("name", tournament.name, true),
    STRING("game", tournament.room.game, true),
    STRING("mode", tournament.room.mode, true),
    STRING("format", tournament.format, true),
    {"participants", FIELD_JSON, true, BODY(tournament.participants), sizeof(json_t *), 0, 0, NULL},
    {"games", FIELD_INT, false, BODY(tournament.games), sizeof(int), 1, 100, NULL},
    {"rounds", FIELD_INT, false, BODY(tournament.rounds), sizeof(int), 1, 63, NULL},
    {"parallel", FIELD_INT, false, BODY(tournament.parallel), sizeof(int), 1, 64, NULL},
    STRING("scoring", tournament.room.scoring, false),
    STRING("timeout", tournament.room.timeout, false),
    {"clock", FIELD_CUSTOM, false, BODY(tournament.room), 0, 0, 0, parse_clock},
    {"seed", FIELD_CUSTOM, false, BODY(tournament.room), 0, 0, 0, parse_seed},
    {"max_turns", FIELD_INT, false, BODY(tournament.room.max_turns), sizeof(int64_t), 1, 1000000,
     NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec TOURNAMENT_WATCH_FIELDS[] = {
    {"tournament", FIELD_INT, true, BODY(tournament_id), sizeof(int64_t), 1, INT64_MAX, NULL},
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec TOURNAMENT_INVITE_FIELDS[] = {
    STRING("player", player_name, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec TOURNAMENT_ACCEPT_FIELDS[] = {
    STRING("from", player_name, true),
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct field_spec NO_FIELDS[] = {
    {NULL, 0, 0, 0, 0, 0, 0, NULL},
};

static const struct message_spec MESSAGES[] = {
    {"hello", PROTOCOL_HELLO, HELLO_FIELDS},
    {"account.register", PROTOCOL_ACCOUNT_REGISTER, ACCOUNT_FIELDS},
    {"ping", PROTOCOL_PING, PING_FIELDS},
    {"rooms.list", PROTOCOL_ROOMS_LIST, LIST_FIELDS},
    {"room.create", PROTOCOL_ROOM_CREATE, CREATE_FIELDS},
    {"room.join", PROTOCOL_ROOM_JOIN, JOIN_FIELDS},
    {"room.leave", PROTOCOL_ROOM_LEAVE, ROOM_FIELDS},
    {"room.add_bot", PROTOCOL_ROOM_ADD_BOT, ADD_BOT_FIELDS},
    {"room.start", PROTOCOL_ROOM_START, ROOM_FIELDS},
    {"game.move", PROTOCOL_GAME_MOVE, MOVE_FIELDS},
    {"game.moves", PROTOCOL_GAME_MOVES, ROOM_FIELDS},
    {"game.resign", PROTOCOL_GAME_RESIGN, ROOM_FIELDS},
    {"queue.join", PROTOCOL_QUEUE_JOIN, QUEUE_JOIN_FIELDS},
    {"queue.leave", PROTOCOL_QUEUE_LEAVE, NO_FIELDS},
    {"tournament.create", PROTOCOL_TOURNAMENT_CREATE, TOURNAMENT_CREATE_FIELDS},
    {"tournament.watch", PROTOCOL_TOURNAMENT_WATCH, TOURNAMENT_WATCH_FIELDS},
    {"tournament.cancel", PROTOCOL_TOURNAMENT_CANCEL, TOURNAMENT_WATCH_FIELDS},
    {"tournament.invite", PROTOCOL_TOURNAMENT_INVITE, TOURNAMENT_INVITE_FIELDS},
    {"tournament.accept", PROTOCOL_TOURNAMENT_ACCEPT, TOURNAMENT_ACCEPT_FIELDS},
    {"room.rematch", PROTOCOL_ROOM_REMATCH, REMATCH_FIELDS},
};

#define MESSAGE_COUNT (sizeof(MESSAGES) / sizeof(MESSAGES[0]))

int protocol_fail(protocol_failure *failure, int code, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(failure->message, sizeof(failure->message), format, args);
    va_end(args);
    /* A message may echo client bytes (jansson's "near '...'") or be cut
     * inside a sequence: it must stay UTF-8, or the error reply, a JSON
     * string, could not be written and the client would hear nothing. */
    utf8_repair(failure->message);
    failure->code = code;
    failure->reason[0] = '\0'; /* a failure may be filled again: no earlier reason stays */
    return code;
}

static int parse_int_range(const char *name, json_t *value, int64_t min, int64_t max, int64_t *out,
                           protocol_failure *failure)
{
    if (!json_is_integer(value))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'%s' must be an integer", name);
    json_int_t number = json_integer_value(value);
    if (number < min || number > max)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'%s' must be between %lld and %lld",
                             name, (long long)min, (long long)max);
    *out = number;
    return 0;
}

static int parse_clock(const char *name, json_t *value, void *target, protocol_failure *failure)
{
    protocol_room_create *create = target;
    const char *key;
    json_t *field;
    if (!json_is_object(value))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'%s' must be an object {initial_ms, increment_ms}", name);
    json_object_foreach(value, key, field)
    {
        if (strcmp(key, "initial_ms") != 0 && strcmp(key, "increment_ms") != 0)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field 'clock.%s'", key);
    }
    json_t *initial = json_object_get(value, "initial_ms");
    json_t *increment = json_object_get(value, "increment_ms");
    if (!initial)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "missing field 'clock.initial_ms'");
    int rc = parse_int_range("clock.initial_ms", initial, 1000, PROTOCOL_MAX_CLOCK_MS,
                             &create->clock_initial_ms, failure);
    if (rc == 0 && increment)
        rc = parse_int_range("clock.increment_ms", increment, 0, 3600 * 1000,
                             &create->clock_increment_ms, failure);
    create->has_clock = rc == 0;
    return rc;
}

/* A seed travels as an integer, or as a decimal string past 2^63 - 1. */
static int parse_seed(const char *name, json_t *value, void *target, protocol_failure *failure)
{
    protocol_room_create *create = target;
    int rc = game_json_seed(value, name, &create->seed, failure);
    create->has_seed = rc == 0;
    return rc;
}

static int parse_join_as(const char *name, json_t *value, void *target, protocol_failure *failure)
{
    bool *as_spectator = target;
    const char *text = json_string_value(value);
    if (text && strcmp(text, "player") == 0)
        *as_spectator = false;
    else if (text && strcmp(text, "spectator") == 0)
        *as_spectator = true;
    else
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'%s' must be \"player\" or \"spectator\"", name);
    return 0;
}

/* A move's action, of the game its shape names (game_json.h). */
static int parse_action(const char *name, json_t *value, void *target, protocol_failure *failure)
{
    (void)name; /* the codecs name the action's fields themselves */
    return game_json_action(value, target, failure);
}

static int parse_string(const struct field_spec *spec, json_t *value, char *target,
                        protocol_failure *failure)
{
    const char *text = json_string_value(value);
    if (!text)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'%s' must be a string", spec->name);
    size_t length = strlen(text);
    size_t least = spec->min > 0 ? (size_t)spec->min : 1;
    if (length < least || length >= spec->size)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'%s' must be %zu to %zu bytes",
                             spec->name, least, spec->size - 1);
    memcpy(target, text, length + 1);
    return 0;
}

static int parse_field(const struct field_spec *spec, json_t *value, char *body,
                       protocol_failure *failure)
{
    void *target = body + spec->offset;
    int64_t number = 0;
    int rc;
    switch (spec->kind) {
    case FIELD_STRING:
        return parse_string(spec, value, target, failure);
    case FIELD_BOOL:
        if (!json_is_boolean(value))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'%s' must be true or false",
                                 spec->name);
        *(bool *)target = json_is_true(value);
        return 0;
    case FIELD_INT:
        rc = parse_int_range(spec->name, value, spec->min, spec->max, &number, failure);
        if (rc == 0 && spec->size == sizeof(int))
            *(int *)target = (int)number;
        else if (rc == 0)
            *(int64_t *)target = number;
        return rc;
    case FIELD_JSON:
        *(json_t **)target = json_incref(value);
        return 0;
    case FIELD_CUSTOM:
        return spec->parse(spec->name, value, target, failure);
    }
    return protocol_fail(failure, PROTOCOL_E_INTERNAL, "bad field table");
}

static const struct field_spec *find_field(const struct field_spec *fields, const char *name)
{
    for (; fields->name; fields++)
        if (strcmp(fields->name, name) == 0)
            return fields;
    return NULL;
}

static int decode_fields(const struct message_spec *spec, json_t *object, protocol_message *out,
                         protocol_failure *failure)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value)
    {
        if (strcmp(key, "type") == 0 || strcmp(key, "id") == 0)
            continue;
        const struct field_spec *field = find_field(spec->fields, key);
        if (!field)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "unknown field '%s' in %s", key,
                                 spec->type_name);
        int rc = parse_field(field, value, (char *)&out->body, failure);
        if (rc != 0)
            return rc;
    }
    for (const struct field_spec *field = spec->fields; field->name; field++)
        if (field->is_required && !json_object_get(object, field->name))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "missing field '%s' in %s",
                                 field->name, spec->type_name);
    return 0;
}

/* Keeps a usable id (a string of at most 64 bytes, or an integer) for the
 * reply; anything else is refused but the error cannot echo it. */
static int take_id(json_t *object, protocol_message *out, protocol_failure *failure)
{
    json_t *id = json_object_get(object, "id");
    if (!id)
        return 0;
    bool is_usable = json_is_integer(id) || (json_is_string(id) && json_string_length(id) <= 64);
    if (!is_usable)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'id' must be an integer or a string of at most 64 bytes");
    out->id = json_incref(id);
    return 0;
}

const char *protocol_type_name(protocol_type type)
{
    for (size_t i = 0; i < MESSAGE_COUNT; i++)
        if (MESSAGES[i].type == type)
            return MESSAGES[i].type_name;
    return "unknown";
}

static const struct message_spec *find_message(const char *type_name)
{
    for (size_t i = 0; i < MESSAGE_COUNT; i++)
        if (strcmp(MESSAGES[i].type_name, type_name) == 0)
            return &MESSAGES[i];
    return NULL;
}

static int decode_object(json_t *object, protocol_message *out, protocol_failure *failure)
{
    int rc = take_id(object, out, failure);
    if (rc != 0)
        return rc;
    json_t *type = json_object_get(object, "type");
    if (!type)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "missing field 'type'");
    if (!json_is_string(type))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'type' must be a string");
    const struct message_spec *spec = find_message(json_string_value(type));
    if (!spec)
        return protocol_fail(failure, PROTOCOL_E_UNKNOWN_TYPE, "unknown message type '%s'",
                             json_string_value(type));
    out->type = spec->type;
    if (spec->type == PROTOCOL_ROOM_JOIN)
        out->body.room.seat = -1; /* any seat, unless the message names one */
    return decode_fields(spec, object, out, failure);
}

int protocol_decode(const char *text, size_t length, protocol_message *out,
                    protocol_failure *failure)
{
    memset(out, 0, sizeof(*out));
    memset(failure, 0, sizeof(*failure));
    json_error_t error;
    json_t *root = json_in_plain(text, length); /* the fast path; jansson for the rest */
    if (!root)
        root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &error);
    if (!root)
        return protocol_fail(failure, PROTOCOL_E_BAD_JSON, "invalid JSON at line %d column %d: %s",
                             error.line, error.column, error.text);
    int rc;
    if (json_is_object(root))
        rc = decode_object(root, out, failure);
    else
        rc = protocol_fail(failure, PROTOCOL_E_BAD_JSON, "a message must be a JSON object");
    json_decref(root);
    if (rc != 0) {
        json_t *id = out->id;
        out->id = NULL;
        protocol_message_clear(out);
        out->id = id;
    }
    return rc;
}

const char *protocol_message_room(const protocol_message *message)
{
    switch (message->type) {
    case PROTOCOL_GAME_MOVE:
        return message->body.move.room;
    case PROTOCOL_ROOM_JOIN:
    case PROTOCOL_ROOM_LEAVE:
    case PROTOCOL_ROOM_ADD_BOT:
    case PROTOCOL_ROOM_START:
    case PROTOCOL_GAME_MOVES:
    case PROTOCOL_GAME_RESIGN:
    case PROTOCOL_ROOM_REMATCH:
        return message->body.room.room;
    default:
        return "";
    }
}

void protocol_message_clear(protocol_message *message)
{
    json_decref(message->id);
    message->id = NULL;
    if (message->type == PROTOCOL_PING) {
        json_decref(message->body.ping.data);
        message->body.ping.data = NULL;
    }
    if (message->type == PROTOCOL_TOURNAMENT_CREATE) {
        json_decref(message->body.tournament.participants);
        message->body.tournament.participants = NULL;
    }
}
