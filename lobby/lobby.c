/* lobby.c -- clients, players, message dispatch, the tick and shutdown.
 *
 * A message goes: decode (protocol) -> the sender must have said hello
 * (except hello and ping) -> a handler. A handler either fails (the sender
 * gets an `error` echoing the id, and nothing has changed) or does its
 * work, whose replies and events room_run sends.
 *
 * Players: `hello` with a token or a bot key finds a stored player;
 * `hello` with only a name makes a guest, known in memory by its token,
 * that is stored (gets an id and a row) only when it first takes a seat --
 * so a flood of anonymous connections costs memory while connected and
 * nothing after. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

lobby_config lobby_default_config(void)
{
    lobby_config config = {60 * 1000, 10 * 60 * 1000, 300, 10000, 10, 3};
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

void lobby_send_text(struct lobby *l, uint64_t connection, const char *text, size_t length)
{
    if (text && connection)
        l->host.send(l->host.context, connection, text, length);
}

/* `text` (a JSON object) with the request id added before its closing
 * brace, so the reply and the event other members get share their bytes. */
void lobby_send_reply(struct lobby *l, uint64_t connection, const char *text, size_t length,
                      const json_t *id)
{
    if (!text || !connection)
        return;
    char *id_text = id ? json_dumps(id, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    if (!id_text) {
        lobby_send_text(l, connection, text, length);
        return;
    }
    size_t id_length = strlen(id_text);
    char *reply = malloc(length + id_length + 8);
    if (reply) {
        memcpy(reply, text, length - 1);
        size_t used = length - 1;
        used += (size_t)sprintf(reply + used, ",\"id\":%s}", id_text);
        lobby_send_text(l, connection, reply, used);
    }
    free(reply);
    free(id_text);
}

static void send_json(struct lobby *l, uint64_t connection, json_t *message, const json_t *id)
{
    char *text = protocol_finish(message, id);
    if (text)
        lobby_send_text(l, connection, text, strlen(text));
    free(text);
}

int lobby_new(const lobby_host *host, const store_api *storage, const lobby_config *config,
              lobby **out)
{
    struct lobby *l = calloc(1, sizeof(*l));
    if (!l)
        return PROTOCOL_E_INTERNAL;
    l->host = *host;
    l->store = *storage;
    l->config = *config;
    *out = l;
    return 0;
}

/* ---- players ------------------------------------------------------------- */

/* A guest is found by its token: the table key is a hash of it. */
static uint64_t token_key(const char *token)
{
    uint64_t hash = 1469598103934665603ULL; /* FNV-1a */
    for (const char *c = token; *c; c++)
        hash = (hash ^ (unsigned char)*c) * 1099511628211ULL;
    return hash ? hash : 1;
}

static struct player *player_new(struct lobby *l, int64_t player_id, const char *name, bool is_bot)
{
    struct player *p = calloc(1, sizeof(*p));
    if (!p)
        return NULL;
    p->key = ++l->last_player_key;
    p->player_id = player_id;
    snprintf(p->name, sizeof(p->name), "%s", name);
    p->is_bot = is_bot;
    return p;
}

struct player *lobby_player_by_id(struct lobby *l, int64_t player_id, const char *name, bool is_bot)
{
    struct player *p = id_table_get(&l->players, (uint64_t)player_id);
    if (p)
        return p;
    p = player_new(l, player_id, name, is_bot);
    if (p && id_table_put(&l->players, (uint64_t)player_id, p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* A guest found by its token; a guest whose token collides in the table
 * with another's is not found (the other one is, or nobody). */
static struct player *guest_by_token(struct lobby *l, const char *token)
{
    struct player *p = id_table_get(&l->guests, token_key(token));
    return p && strcmp(p->token, token) == 0 ? p : NULL;
}

int lobby_player_store(struct lobby *l, struct player *p)
{
    if (p->player_id)
        return 0;
    int64_t id = 0;
    int rc = l->store.player_create(l->store.context, p->name, p->is_bot, p->token, &id);
    if (rc != 0)
        return rc;
    if (id_table_put(&l->players, (uint64_t)id, p) != 0)
        return STORE_E_NOMEM; /* the row stays; the token finds it next time */
    id_table_remove(&l->guests, token_key(p->token));
    p->player_id = id;
    p->token[0] = '\0';
    return 0;
}

/* Forgets a player nothing refers to any more. */
static void player_release_if_unused(struct lobby *l, struct player *p)
{
    if (p->connection || p->room_refs > 0)
        return;
    if (p->player_id)
        id_table_remove(&l->players, (uint64_t)p->player_id);
    else if (guest_by_token(l, p->token) == p)
        id_table_remove(&l->guests, token_key(p->token));
    free(p);
}

void lobby_player_unref(struct lobby *l, struct player *p)
{
    p->room_refs--;
    player_release_if_unused(l, p);
}

/* ---- hello ----------------------------------------------------------------- */

static void new_token(struct lobby *l, char out[LOBBY_TOKEN_SIZE])
{
    unsigned char bytes[LOBBY_TOKEN_BYTES];
    l->host.random_bytes(l->host.context, bytes, sizeof(bytes));
    for (int i = 0; i < LOBBY_TOKEN_BYTES; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

static struct player *new_guest(struct lobby *l, const protocol_hello *hello)
{
    struct player *p = player_new(l, 0, hello->name, hello->is_bot);
    if (!p)
        return NULL;
    new_token(l, p->token);
    if (id_table_get(&l->guests, token_key(p->token)) ||
        id_table_put(&l->guests, token_key(p->token), p) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* The player a hello names (token or bot key), or a new guest. */
static struct player *identify(struct lobby *l, const protocol_hello *hello,
                               protocol_failure *failure)
{
    if (!hello->token[0] && !hello->key[0]) {
        struct player *guest = new_guest(l, hello);
        if (!guest)
            protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        return guest;
    }
    struct player *guest = hello->token[0] ? guest_by_token(l, hello->token) : NULL;
    if (guest)
        return guest;
    store_player stored;
    void *context = l->store.context;
    int rc = hello->token[0] ? l->store.player_by_token(context, hello->token, &stored)
                             : l->store.player_by_bot_key(context, hello->key, &stored);
    if (rc == STORE_E_NOT_FOUND) {
        protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "unknown %s",
                      hello->token[0] ? "token" : "bot key");
        return NULL;
    }
    struct player *p =
        rc == 0 ? lobby_player_by_id(l, stored.id, stored.name, stored.is_bot) : NULL;
    if (rc != 0)
        protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look the player up: %s",
                      store_strerror(rc));
    else if (!p)
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    return p;
}

static json_t *welcome_json(const struct player *p, const char *token)
{
    json_t *player =
        json_pack("{s:o, s:s, s:b}", "id", p->player_id ? json_integer(p->player_id) : json_null(),
                  "name", p->name, "bot", p->is_bot);
    json_t *welcome = json_pack("{s:s, s:o}", "type", "welcome", "player", player);
    if (token[0])
        json_object_set_new(welcome, "token", json_string(token));
    return welcome;
}

static int handle_hello(struct lobby *l, struct client *c, const protocol_message *m,
                        protocol_failure *failure)
{
    if (c->player)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "hello was already said");
    struct player *p = identify(l, &m->body.hello, failure);
    if (!p)
        return failure->code;
    if (p->connection && p->connection != c->connection) {
        struct client *old = id_table_get(&l->clients, p->connection);
        if (old)
            old->player = NULL;
        l->host.close(l->host.context, p->connection, "signed in from another connection");
    }
    p->connection = c->connection;
    c->player = p;
    const char *token = p->player_id ? m->body.hello.token : p->token;
    send_json(l, c->connection, welcome_json(p, token), m->id);
    lobby_log(l, "player %lld (%s) signed in on connection %llu%s", (long long)p->player_id,
              p->name, (unsigned long long)c->connection, m->body.hello.token[0] ? " again" : "");
    /* A snapshot: coming back may change rooms (none is freed by it). */
    size_t count;
    void **rooms = id_table_values(&l->rooms, &count);
    for (size_t i = 0; i < count; i++)
        room_player_reconnected(rooms[i], p);
    free(rooms);
    return 0;
}

/* ---- dispatch ------------------------------------------------------------ */

static int dispatch(struct lobby *l, struct client *c, const protocol_message *m,
                    protocol_failure *failure)
{
    if (m->type == PROTOCOL_HELLO)
        return handle_hello(l, c, m, failure);
    if (m->type == PROTOCOL_PING) {
        json_t *pong = json_pack("{s:s}", "type", "pong");
        if (m->body.ping.data)
            json_object_set(pong, "data", m->body.ping.data);
        send_json(l, c->connection, pong, m->id);
        return 0;
    }
    if (!c->player)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "say hello first");
    if (m->type == PROTOCOL_ROOMS_LIST) {
        json_t *page = room_list_page(l, &m->body.list, failure);
        if (!page)
            return failure->code;
        send_json(l, c->connection, page, m->id);
        return 0;
    }
    return room_handle(l, c, m, failure);
}

int lobby_connect(lobby *l, uint64_t connection)
{
    if (id_table_get(&l->clients, connection))
        return -1; /* the host never reuses an id */
    struct client *c = calloc(1, sizeof(*c));
    if (!c)
        return -1;
    c->connection = connection;
    if (id_table_put(&l->clients, connection, c) != 0) {
        free(c);
        return -1;
    }
    return 0;
}

void lobby_message(lobby *l, uint64_t connection, const char *text, size_t length)
{
    struct client *c = id_table_get(&l->clients, connection);
    if (!c)
        return;
    protocol_message message;
    protocol_failure failure;
    int rc = protocol_decode(text, length, &message, &failure);
    if (rc == 0 && l->is_shutting_down)
        rc = protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    if (rc == 0)
        rc = dispatch(l, c, &message, &failure);
    if (rc != 0) {
        char *error = protocol_error_text(message.id, &failure);
        if (error)
            lobby_send_text(l, connection, error, strlen(error));
        free(error);
    }
    protocol_message_clear(&message);
}

void lobby_disconnect(lobby *l, uint64_t connection)
{
    struct client *c = id_table_get(&l->clients, connection);
    if (!c)
        return;
    id_table_remove(&l->clients, connection);
    struct player *p = c->player;
    free(c);
    if (!p || p->connection != connection)
        return;
    p->connection = 0;
    p->room_refs++; /* rooms may drop their references one by one */
    /* A snapshot: leaving may close (free) an abandoned room mid-walk. */
    size_t count;
    void **rooms = id_table_values(&l->rooms, &count);
    for (size_t i = 0; i < count; i++)
        room_player_disconnected(rooms[i], p);
    free(rooms);
    lobby_player_unref(l, p);
}

void lobby_tick(lobby *l)
{
    int64_t now = lobby_now(l);
    struct room *r;
    while (!l->is_shutting_down && (r = room_wake_due(l, now)) != NULL) {
        match_event event = {.kind = MATCH_EVENT_TIMER, .now_ms = now};
        protocol_failure failure;
        if (room_run(r, &event, NULL, &failure) != 0)
            room_wake_set(r, now + 1000); /* storage failed: look again in a second */
    }
}

static void visit_shutdown(void *value, void *context)
{
    struct client *c = value;
    send_json(context, c->connection,
              json_pack("{s:s, s:s}", "type", "server.shutdown", "message",
                        "the server is restarting; reconnect with your token"),
              NULL);
}

void lobby_shutdown(lobby *l)
{
    if (l->is_shutting_down)
        return;
    l->is_shutting_down = true;
    bots_cancel_all(l);
    id_table_each(&l->clients, visit_shutdown, l);
}

int lobby_jobs_in_flight(const lobby *l)
{
    return l->jobs_in_flight;
}

int lobby_room_count(const lobby *l)
{
    return (int)l->rooms.count;
}

int lobby_player_count(const lobby *l)
{
    return (int)(l->players.count + l->guests.count);
}

/* Frees every value of a table (rooms first, as they refer to players). */
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
    free_all(&l->clients, free);
    free_all(&l->players, free);
    free_all(&l->guests, free);
    room_wake_free(l);
    room_list_free(l);
    json_out_free(&l->state_plain);
    json_out_free(&l->state_hinted);
    json_out_free(&l->state_message);
    json_out_free(&l->moves_message);
    free(l);
}
