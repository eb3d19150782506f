/* lobby.c -- connections, sessions, message dispatch and the tick.
 *
 * A message goes: decode (protocol) -> the sender must have said hello
 * (except hello, ping, rooms.list) -> one handler per type. A handler
 * either fails (the sender gets an `error` echoing the id, and nothing has
 * changed) or does its work and sends its own replies and events. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

#define TOKEN_BYTES 24

lobby_config lobby_default_config(void)
{
    lobby_config config = {60 * 1000, 10 * 60 * 1000, 300, 10000, 10};
    return config;
}

int64_t lobby_now(const struct lobby *l)
{
    return l->host.now_ms(l->host.context);
}

void lobby_log(struct lobby *l, const char *format, ...)
{
    char line[256];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    l->host.log(l->host.context, line);
}

void lobby_send(struct lobby *l, const struct session *to, char *text)
{
    if (text && to && to->connection)
        l->host.send(l->host.context, to->connection, text);
    free(text);
}

void lobby_send_text(struct lobby *l, uint64_t connection, char *text)
{
    if (text)
        l->host.send(l->host.context, connection, text);
    free(text);
}

void lobby_reply(struct lobby *l, uint64_t connection, json_t *message, const json_t *id)
{
    lobby_send_text(l, connection, protocol_finish(message, id));
}

static void reply_failure(struct lobby *l, uint64_t connection, const json_t *id,
                          const protocol_failure *failure)
{
    lobby_send_text(l, connection, protocol_error_text(id, failure));
}

int lobby_new(const lobby_host *host, store *db, const lobby_config *config, lobby **out)
{
    struct lobby *l = calloc(1, sizeof(*l));
    if (!l)
        return PROTOCOL_E_INTERNAL;
    l->host = *host;
    l->db = db;
    l->config = *config;
    *out = l;
    return 0;
}

struct session *session_find_or_add(struct lobby *l, int64_t player_id, const char *name,
                                    bool is_bot)
{
    struct session *s = id_table_get(&l->sessions, (uint64_t)player_id);
    if (s)
        return s;
    s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->player_id = player_id;
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->is_bot = is_bot;
    if (id_table_put(&l->sessions, (uint64_t)player_id, s) != 0) {
        free(s);
        return NULL;
    }
    return s;
}

/* Forgets a session nothing refers to any more. */
static void session_release_if_unused(struct lobby *l, struct session *s)
{
    if (s->connection || s->room_refs > 0)
        return;
    id_table_remove(&l->sessions, (uint64_t)s->player_id);
    free(s);
}

void session_unref(struct lobby *l, struct session *s)
{
    s->room_refs--;
    session_release_if_unused(l, s);
}

void lobby_connect(lobby *l, uint64_t connection)
{
    struct connection *c = calloc(1, sizeof(*c));
    if (!c)
        return;
    c->id = connection;
    if (id_table_put(&l->connections, connection, c) != 0)
        free(c);
}

static void hex_token(struct lobby *l, char out[2 * TOKEN_BYTES + 1])
{
    unsigned char bytes[TOKEN_BYTES];
    l->host.random_bytes(l->host.context, bytes, sizeof(bytes));
    for (int i = 0; i < TOKEN_BYTES; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* Finds the player a hello names (token or bot key) or creates a new one;
 * *token receives the token to hand back ("" for bot-key accounts). */
static int identify(struct lobby *l, const protocol_hello *hello, store_player *player,
                    char token[PROTOCOL_TOKEN_MAX + 1], protocol_failure *failure)
{
    int rc;
    token[0] = '\0';
    if (hello->token[0]) {
        rc = store_player_by_token(l->db, hello->token, player);
        snprintf(token, PROTOCOL_TOKEN_MAX + 1, "%s", hello->token);
    } else if (hello->key[0]) {
        rc = store_player_by_bot_key(l->db, hello->key, player);
    } else {
        hex_token(l, token);
        memset(player, 0, sizeof(*player));
        snprintf(player->name, sizeof(player->name), "%s", hello->name);
        player->is_bot = hello->is_bot;
        rc = store_player_create(l->db, hello->name, hello->is_bot, token, &player->id);
    }
    if (rc == STORE_E_NOT_FOUND)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "unknown %s",
                             hello->token[0] ? "token" : "bot key");
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "could not record the player: %s",
                             store_strerror(rc));
    return 0;
}

static void visit_reconnected(void *value, void *context)
{
    struct room *r = value;
    if (room_is_member(r, context))
        room_member_reconnected(r, context);
}

static int handle_hello(struct lobby *l, struct connection *c, const protocol_message *m,
                        protocol_failure *failure)
{
    if (c->session)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "hello was already said");
    store_player player;
    char token[PROTOCOL_TOKEN_MAX + 1];
    int rc = identify(l, &m->body.hello, &player, token, failure);
    if (rc != 0)
        return rc;
    struct session *s = session_find_or_add(l, player.id, player.name, player.is_bot);
    if (!s)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (s->connection && s->connection != c->id) {
        struct connection *old = id_table_get(&l->connections, s->connection);
        if (old)
            old->session = NULL;
        l->host.close(l->host.context, s->connection, "signed in from another connection");
    }
    s->connection = c->id;
    c->session = s;
    json_t *welcome = json_pack("{s:s, s:{s:I, s:s, s:b}}", "type", "welcome", "player", "id",
                                (json_int_t)s->player_id, "name", s->name, "bot", s->is_bot);
    if (token[0])
        json_object_set_new(welcome, "token", json_string(token));
    lobby_reply(l, c->id, welcome, m->id);
    lobby_log(l, "player %lld (%s) signed in on connection %llu%s", (long long)s->player_id,
              s->name, (unsigned long long)c->id,
              token[0] && m->body.hello.token[0] ? " again" : "");
    id_table_each(&l->rooms, visit_reconnected, s);
    return 0;
}

static int dispatch(struct lobby *l, struct connection *c, const protocol_message *m,
                    protocol_failure *failure)
{
    if (m->type == PROTOCOL_HELLO)
        return handle_hello(l, c, m, failure);
    if (m->type == PROTOCOL_PING) {
        json_t *pong = json_pack("{s:s}", "type", "pong");
        if (m->body.ping.data)
            json_object_set(pong, "data", m->body.ping.data);
        lobby_reply(l, c->id, pong, m->id);
        return 0;
    }
    if (m->type == PROTOCOL_ROOMS_LIST) {
        lobby_reply(l, c->id, json_pack("{s:s, s:o}", "type", "rooms", "rooms", room_list_json(l)),
                    m->id);
        return 0;
    }
    if (!c->session)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "say hello first");
    protocol_request request = {c->id, c->session, m, failure};
    switch (m->type) {
    case PROTOCOL_ROOM_CREATE:
        return room_create(l, &request);
    case PROTOCOL_ROOM_JOIN:
        return room_join(l, &request);
    case PROTOCOL_ROOM_LEAVE:
        return room_leave(l, &request);
    case PROTOCOL_ROOM_ADD_BOT:
        return room_add_bot(l, &request);
    case PROTOCOL_ROOM_START:
        return room_start(l, &request);
    case PROTOCOL_GAME_MOVE:
        return play_move(l, &request);
    case PROTOCOL_GAME_MOVES:
        return play_moves_list(l, &request);
    case PROTOCOL_GAME_RESIGN:
        return play_resign(l, &request);
    default:
        return protocol_fail(failure, PROTOCOL_E_UNKNOWN_TYPE, "unhandled message type");
    }
}

void lobby_message(lobby *l, uint64_t connection, const char *text, size_t length)
{
    struct connection *c = id_table_get(&l->connections, connection);
    if (!c)
        return;
    protocol_message message;
    protocol_failure failure;
    int rc = protocol_decode(text, length, &message, &failure);
    if (rc == 0 && l->is_shutting_down)
        rc = protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    if (rc == 0)
        rc = dispatch(l, c, &message, &failure);
    if (rc != 0)
        reply_failure(l, connection, message.id, &failure);
    protocol_message_clear(&message);
}

void lobby_disconnect(lobby *l, uint64_t connection)
{
    struct connection *c = id_table_get(&l->connections, connection);
    if (!c)
        return;
    id_table_remove(&l->connections, connection);
    struct session *s = c->session;
    free(c);
    if (!s || s->connection != connection)
        return;
    s->connection = 0;
    s->room_refs++; /* rooms may drop their references one by one */
    /* A snapshot: leaving may close (free) an abandoned room mid-walk. */
    size_t count;
    void **rooms = id_table_values(&l->rooms, &count);
    for (size_t i = 0; i < count; i++)
        if (room_is_member(rooms[i], s))
            room_member_disconnected(rooms[i], s);
    free(rooms);
    session_unref(l, s);
}

/* Over a snapshot of the rooms, since expired ones are freed on the way. */
void lobby_tick(lobby *l)
{
    int64_t now = lobby_now(l);
    size_t count;
    void **rooms = id_table_values(&l->rooms, &count);
    for (size_t i = 0; i < count; i++) {
        struct room *r = rooms[i];
        if (r->status == ROOM_PLAYING)
            play_tick(r);
        else if (r->status == ROOM_FINISHED &&
                 now - r->finished_at_ms >= l->config.finished_room_ttl_ms)
            room_free(r);
    }
    free(rooms);
}

static void visit_shutdown(void *value, void *context)
{
    struct connection *c = value;
    struct lobby *l = context;
    json_t *event = json_pack("{s:s, s:s}", "type", "server.shutdown", "message",
                              "the server is restarting; reconnect with your token");
    lobby_reply(l, c->id, event, NULL);
}

void lobby_shutdown(lobby *l)
{
    if (l->is_shutting_down)
        return;
    l->is_shutting_down = true;
    id_table_each(&l->connections, visit_shutdown, l);
}

int lobby_jobs_in_flight(const lobby *l)
{
    return l->jobs_in_flight;
}

int lobby_room_count(const lobby *l)
{
    return (int)l->rooms.count;
}

/* Frees every value of a table (rooms first, as they refer to sessions). */
static void free_all(id_table *t, void (*free_value)(void *))
{
    size_t count;
    void **values = id_table_values(t, &count);
    for (size_t i = 0; i < count; i++)
        free_value(values[i]);
    free(values);
    id_table_clear(t);
}

static void free_room(void *value)
{
    room_free(value);
}

void lobby_free(lobby *l)
{
    if (!l)
        return;
    free_all(&l->rooms, free_room);
    free_all(&l->connections, free);
    free_all(&l->sessions, free);
    free(l);
}
