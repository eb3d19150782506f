/* lobby.c -- clients, players, message dispatch, the tick and shutdown.
 *
 * A message goes: decode (protocol) -> the sender must have said hello
 * (except hello and ping) -> a handler. A handler either fails (the sender
 * gets an `error` echoing the id, and nothing has changed) or does its
 * work, whose replies and events room_run sends.
 *
 * Players: `hello` with a token or a bot key finds a stored player;
 * `hello` with only a name makes a guest, known in memory by its token,
 * named under the account rules (player_name.h) with a name no account
 * holds, that is stored (gets an id and a row) only when it first takes a seat --
 * so a flood of anonymous connections costs memory while connected and
 * nothing after. `hello` with a password and `account.register` are named
 * accounts' (account.c): they answer later, from a worker's password job. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/arena.h"
#include "lobby/lobby_internal.h"
#include "lobby/player_name.h"
#include "lobby/queue.h"
#include "lobby/tournament.h"

#define GUEST_ADDRESSES_MAX 65536 /* addresses whose new guests are counted */

lobby_config lobby_default_config(void)
{
    lobby_config config = {
        .reconnect_grace_ms = 60 * 1000,
        .finished_room_ttl_ms = 10 * 60 * 1000,
        .bot_think_ms = 300,
        .max_rooms = 10000,
        .max_rooms_per_player = 10,
        .max_tournaments = 100,
        .tournament_reserve = 10,
        .tournaments_per_account = 2,
        .tournament_rooms_per_account = 8,
        .tournament_share = 10,
        .bot_jobs = 3,
        .password_jobs = 2,
        .password_queue = 32,
        .failures_per_name = 5,
        .failures_per_address = 20,
        .registrations_per_address = 10,
        .guests_per_address = 60,
        .guest_ttl_ms = 30LL * 24 * 3600 * 1000,
        .lease_ms = 3000,
        .password_cost = secret_password_cost_interactive(),
        .queue_window = 5.0,
        .queue_widen_ms = 10 * 1000,
        .queue_fill_ms = 30 * 1000,
    };
    return config;
}

match_config lobby_match_config(const lobby_config *config)
{
    match_config rules = {config->reconnect_grace_ms, config->finished_room_ttl_ms,
                          config->bot_think_ms};
    return rules;
}

int64_t lobby_now(const struct lobby *lobby)
{
    return lobby->host.now_ms(lobby->host.context);
}

void lobby_log(struct lobby *lobby, const char *format, ...)
{
    char line[256];
    va_list args;
    va_start(args, format);
    vsnprintf(line, sizeof(line), format, args);
    va_end(args);
    lobby->host.log(lobby->host.context, line);
}

void lobby_send_text(struct lobby *lobby, uint64_t connection, const char *text, size_t length)
{
    if (text && connection)
        lobby->host.send(lobby->host.context, connection, text, length, false);
}

void lobby_send_soon(struct lobby *lobby, uint64_t connection, const char *text, size_t length)
{
    if (text && connection)
        lobby->host.send(lobby->host.context, connection, text, length, true);
}

/* The object in `message` with the request id added before its closing
 * brace -- written into the buffer and taken out again, so a 100 KB move
 * list is not copied to add a few bytes, and the reply shares its bytes
 * with the event the other members get. */
void lobby_send_reply_out(struct lobby *lobby, uint64_t connection, json_out *message,
                          const json_t *id)
{
    if (!id) {
        lobby_send_text(lobby, connection, message->data, message->length);
        return;
    }
    size_t length = message->length;
    message->length--; /* the closing brace gives way */
    json_out_text(message, ",\"id\":");
    json_out_value(message, id);
    json_out_raw(message, "}", 1);
    if (!message->has_failed)
        lobby_send_text(lobby, connection, message->data, message->length);
    message->length = length;
    message->has_failed = false; /* the message itself is whole */
    if (message->data)
        memcpy(message->data + length - 1, "}", 2);
}

void lobby_send_reply(struct lobby *lobby, uint64_t connection, const char *text, size_t length,
                      const json_t *id)
{
    if (!text || !connection)
        return;
    json_out *reply = &lobby->reply;
    json_out_reset(reply);
    json_out_raw(reply, text, length);
    if (!reply->has_failed)
        lobby_send_reply_out(lobby, connection, reply, id);
}

void lobby_send_json(struct lobby *lobby, uint64_t connection, json_t *message, const json_t *id)
{
    char *text = protocol_finish(message, id);
    if (text)
        lobby_send_text(lobby, connection, text, strlen(text));
    free(text);
}

void lobby_send_failure(struct lobby *lobby, uint64_t connection, const json_t *id,
                        const protocol_failure *failure)
{
    if (failure->code <= 0 && -failure->code < LOBBY_ERROR_CODES)
        lobby->counters.errors[-failure->code]++;
    char *error = protocol_error_text(id, failure);
    if (error)
        lobby_send_text(lobby, connection, error, strlen(error));
    free(error);
}

int lobby_new(const lobby_host *host, const store_port *port, const lobby_config *config,
              struct lobby **out)
{
    struct lobby *lobby = calloc(1, sizeof(*lobby));
    if (!lobby)
        return PROTOCOL_E_INTERNAL;
    lobby->host = *host;
    lobby->store_port = *port;
    lobby->config = *config;
    queue_init(lobby);
    if (account_init(lobby) != 0 ||
        rate_limit_new(config->guests_per_address / 60.0, config->guests_per_address,
                       GUEST_ADDRESSES_MAX, &lobby->address_guests) != 0) {
        lobby_free(lobby);
        return PROTOCOL_E_INTERNAL;
    }
    *out = lobby;
    return 0;
}

/* ---- players ------------------------------------------------------------- */

/* A guest is found by its token: the table key is a hash of it. */
static uint64_t token_key(const char *token)
{
    uint64_t hash = 1469598103934665603ULL; /* FNV-1a */
    for (const char *client = token; *client; client++)
        hash = (hash ^ (unsigned char)*client) * 1099511628211ULL;
    return hash ? hash : 1;
}

static struct player *player_new(struct lobby *lobby, int64_t player_id, const char *name,
                                 bool is_bot)
{
    struct player *player = calloc(1, sizeof(*player));
    if (!player)
        return NULL;
    player->key = ++lobby->last_player_key;
    player->player_id = player_id;
    snprintf(player->name, sizeof(player->name), "%s", name);
    player->is_bot = is_bot;
    return player;
}

struct player *lobby_player_by_id(struct lobby *lobby, int64_t player_id, const char *name,
                                  bool is_bot)
{
    struct player *player = id_table_get(&lobby->players, (uint64_t)player_id);
    if (player)
        return player;
    player = player_new(lobby, player_id, name, is_bot);
    if (player && id_table_put(&lobby->players, (uint64_t)player_id, player) != 0) {
        free(player);
        return NULL;
    }
    return player;
}

struct player *lobby_guest_by_token(struct lobby *lobby, const char *token)
{
    struct player *player = id_table_get(&lobby->guests, token_key(token));
    return player && strcmp(player->token, token) == 0 ? player : NULL;
}

int lobby_player_stored(struct lobby *lobby, struct player *player, int64_t id)
{
    if (id_table_put(&lobby->players, (uint64_t)id, player) != 0)
        return STORE_E_NOMEM; /* the row stays; the token finds it next time */
    id_table_remove(&lobby->guests, token_key(player->token));
    player->player_id = id;
    player->token[0] = '\0';
    return 0;
}

static void player_free(void *value)
{
    struct player *player = value;
    free(player->rooms);
    free(player);
}

/* Forgets a player nothing refers to any more. */
static void player_release_if_unused(struct lobby *lobby, struct player *player)
{
    if (player->connection || player->room_count > 0 || player->pins > 0)
        return;
    if (player->player_id)
        id_table_remove(&lobby->players, (uint64_t)player->player_id);
    else if (lobby_guest_by_token(lobby, player->token) == player)
        id_table_remove(&lobby->guests, token_key(player->token));
    player_free(player);
}

void lobby_player_unpin(struct lobby *lobby, struct player *player)
{
    player->pins--;
    player_release_if_unused(lobby, player);
}

int lobby_player_reserve(struct player *player, int more)
{
    if (player->room_count + more <= player->room_capacity)
        return 0;
    int capacity = player->room_capacity ? 2 * player->room_capacity : 4;
    while (capacity < player->room_count + more)
        capacity *= 2;
    struct room **grown = realloc(player->rooms, sizeof(*grown) * (size_t)capacity);
    if (!grown)
        return PROTOCOL_E_INTERNAL;
    player->rooms = grown;
    player->room_capacity = capacity;
    return 0;
}

int lobby_player_attach(struct player *player, struct room *room)
{
    if (lobby_player_reserve(player, 1) != 0)
        return PROTOCOL_E_INTERNAL;
    player->rooms[player->room_count++] = room;
    return 0;
}

void lobby_player_detach(struct lobby *lobby, struct player *player, struct room *room)
{
    for (int i = 0; i < player->room_count; i++) {
        if (player->rooms[i] != room)
            continue;
        player->rooms[i] = player->rooms[--player->room_count];
        break;
    }
    player_release_if_unused(lobby, player);
}

/* The distinct rooms that name `player`, copied (a walk over them may
 * change the list): a malloc'd array the caller frees, or NULL. */
static struct room **rooms_of(const struct player *player, int *count)
{
    *count = 0;
    struct room **rooms = malloc(sizeof(*rooms) * (size_t)(player->room_count + 1));
    for (int i = 0; rooms && i < player->room_count; i++) {
        int seen = 0;
        while (seen < *count && rooms[seen] != player->rooms[i])
            seen++;
        if (seen == *count)
            rooms[(*count)++] = player->rooms[i];
    }
    return rooms;
}

/* ---- hello ----------------------------------------------------------------- */

void lobby_new_token(struct lobby *lobby, char out[LOBBY_TOKEN_SIZE])
{
    unsigned char bytes[LOBBY_TOKEN_BYTES];
    lobby->host.random_bytes(lobby->host.context, bytes, sizeof(bytes));
    for (int i = 0; i < LOBBY_TOKEN_BYTES; i++)
        snprintf(out + 2 * i, 3, "%02x", bytes[i]);
}

/* A guest's hello, its name checked against the rules (so no control,
 * bidi or look-alike character reaches another player's screen), while
 * the name is looked up: no account or bot account may hold it. */
struct guest_request {
    char name[PLAYER_NAME_SIZE]; /* as the rules trimmed it */
    bool is_bot;
};

/* A new guest as `request` asks, its name free: at most
 * config.guests_per_address a minute from one address, as each may
 * become a stored row. NULL with a failure. */
static struct player *new_guest(struct lobby *lobby, const struct client *client,
                                const struct guest_request *request, protocol_failure *failure)
{
    int wait_s = rate_limit_take(lobby->address_guests, rate_limit_address_key(client->address),
                                 (uint64_t)lobby_now(lobby));
    if (wait_s > 0) {
        protocol_fail(failure, PROTOCOL_E_RATE_LIMITED,
                      "too many new guests from your address; try again in %d s", wait_s);
        return NULL;
    }
    struct player *player = player_new(lobby, 0, request->name, request->is_bot);
    if (!player) {
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        return NULL;
    }
    lobby_new_token(lobby, player->token);
    if (id_table_get(&lobby->guests, token_key(player->token)) ||
        id_table_put(&lobby->guests, token_key(player->token), player) != 0) {
        free(player);
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        return NULL;
    }
    return player;
}

void lobby_send_welcome(struct lobby *lobby, uint64_t connection, const struct player *player,
                        const char *token, const json_t *id)
{
    json_t *who = json_pack("{s:o, s:s, s:b}", "id",
                            player->player_id ? json_integer(player->player_id) : json_null(),
                            "name", player->name, "bot", player->is_bot);
    json_t *welcome = json_pack("{s:s, s:o}", "type", "welcome", "player", who);
    if (token[0])
        json_object_set_new(welcome, "token", json_string(token));
    lobby_send_json(lobby, connection, welcome, id);
}

void lobby_sign_in(struct lobby *lobby, struct client *client, struct player *player,
                   const char *token, const json_t *id, const char *how)
{
    if (player->connection && player->connection != client->connection) {
        struct client *old = id_table_get(&lobby->clients, player->connection);
        if (old)
            old->player = NULL;
        lobby->host.close(lobby->host.context, player->connection,
                          "signed in from another connection");
    }
    player->connection = client->connection;
    client->player = player;
    lobby_send_welcome(lobby, client->connection, player, token, id);
    lobby_log(lobby, "player %lld (%s) signed in on connection %llu%s",
              (long long)player->player_id, player->name, (unsigned long long)client->connection,
              how);
    int count;
    struct room **rooms = rooms_of(player, &count);
    for (int i = 0; i < count; i++)
        room_player_reconnected(rooms[i], player);
    free(rooms);
}

/* A hello's stored player, looked up by its token or bot key: signed in. */
static int player_found(struct lobby *lobby, struct client *client, struct client_lookup *lookup,
                        protocol_failure *failure)
{
    const store_record_find_player *find = &lookup->record.find_player;
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look the player up: %s",
                             store_strerror(lookup->base.rc));
    if (!find->is_found)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "unknown %s",
                             find->token[0] ? "token" : "bot key");
    struct player *player =
        lobby_player_by_id(lobby, find->player.id, find->player.name, find->player.is_bot);
    if (!player)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    player->is_account = find->player.is_account;
    player->is_bot_account = player->is_bot_account || (find->bot_key[0] && !find->token[0]);
    lobby_sign_in(lobby, client, player, find->token, lookup->id, find->token[0] ? " again" : "");
    return 0;
}

/* Looks up the stored player a hello names by token or bot key. */
static int look_player_up(struct lobby *lobby, struct client *client,
                          const protocol_message *message, protocol_failure *failure)
{
    const protocol_hello *hello = &message->body.hello;
    store_record record = {.kind = STORE_RECORD_FIND_PLAYER, .at_ms = lobby_now(lobby)};
    snprintf(record.find_player.token, sizeof(record.find_player.token), "%s", hello->token);
    snprintf(record.find_player.bot_key, sizeof(record.find_player.bot_key), "%s", hello->key);
    return client_lookup_submit(lobby, client, message->id, &record, player_found, 0, NULL, NULL,
                                failure);
}

/* A new guest's name, looked up: a name no account holds makes the guest,
 * signed in at once. */
static int guest_name_found(struct lobby *lobby, struct client *client,
                            struct client_lookup *lookup, protocol_failure *failure)
{
    const struct guest_request *request = lookup->context;
    if (account_name_free(lookup, request->name, failure) != 0)
        return failure->code;
    struct player *player = new_guest(lobby, client, request, failure);
    if (!player)
        return failure->code;
    lobby_sign_in(lobby, client, player, player->token, lookup->id, "");
    return 0;
}

/* A hello with a name alone: the name must follow the rules (answered at
 * once) and belong to no account (looked up). */
static int look_guest_name_up(struct lobby *lobby, struct client *client,
                              const protocol_message *message, protocol_failure *failure)
{
    const protocol_hello *hello = &message->body.hello;
    struct guest_request *request = calloc(1, sizeof(*request));
    if (!request)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    char name_key[PLAYER_NAME_SIZE];
    if (player_name_check(hello->name, request->name, name_key, failure) != 0) {
        free(request);
        return failure->code;
    }
    request->is_bot = hello->is_bot;
    store_record record = account_find(lobby, name_key);
    return client_lookup_submit(lobby, client, message->id, &record, guest_name_found, 0, request,
                                free, failure);
}

static int handle_hello(struct lobby *lobby, struct client *client, const protocol_message *message,
                        protocol_failure *failure)
{
    if (client->player)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "hello was already said");
    if (client->is_signing_in)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "a sign-in is already under way");
    const protocol_hello *hello = &message->body.hello;
    if (hello->password[0])
        return account_sign_in(lobby, client, message, failure);
    /* A guest in memory answers at once; a stored player is looked up. */
    struct player *player = hello->token[0] ? lobby_guest_by_token(lobby, hello->token) : NULL;
    if (!player && (hello->token[0] || hello->key[0]))
        return look_player_up(lobby, client, message, failure);
    if (!player)
        return look_guest_name_up(lobby, client, message, failure);
    lobby_sign_in(lobby, client, player, player->token, message->id, " again");
    return 0;
}

/* ---- dispatch ------------------------------------------------------------ */

static int handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                  protocol_failure *failure)
{
    if (message->type == PROTOCOL_HELLO)
        return handle_hello(lobby, client, message, failure);
    if (message->type == PROTOCOL_ACCOUNT_REGISTER)
        return account_register(lobby, client, message, failure);
    if (message->type == PROTOCOL_PING) {
        json_t *pong = json_pack("{s:s}", "type", "pong");
        if (message->body.ping.data)
            json_object_set(pong, "data", message->body.ping.data);
        lobby_send_json(lobby, client->connection, pong, message->id);
        return 0;
    }
    if (!client->player)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "say hello first");
    if (message->type == PROTOCOL_ROOMS_LIST) {
        json_t *page = room_list_page(lobby, &message->body.list, failure);
        if (!page)
            return failure->code;
        lobby_send_json(lobby, client->connection, page, message->id);
        return 0;
    }
    if (message->type == PROTOCOL_QUEUE_JOIN || message->type == PROTOCOL_QUEUE_LEAVE)
        return queue_handle(lobby, client, message, failure);
    if (message->type >= PROTOCOL_TOURNAMENT_CREATE && message->type <= PROTOCOL_TOURNAMENT_ACCEPT)
        return tournament_handle(lobby, client, message, failure);
    return room_handle(lobby, client, message, failure);
}

int lobby_connect(struct lobby *lobby, uint64_t connection, const char *address)
{
    if (id_table_get(&lobby->clients, connection))
        return PROTOCOL_E_INTERNAL; /* the host never reuses an id */
    struct client *client = calloc(1, sizeof(*client));
    if (!client)
        return PROTOCOL_E_INTERNAL;
    client->connection = connection;
    snprintf(client->address, sizeof(client->address), "%s", address);
    if (id_table_put(&lobby->clients, connection, client) != 0) {
        free(client);
        return PROTOCOL_E_INTERNAL;
    }
    return 0;
}

void lobby_dispatch(struct lobby *lobby, struct client *client, const protocol_message *message)
{
    protocol_failure failure;
    int rc = lobby->is_shutting_down
                 ? protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down")
                 : handle(lobby, client, message, &failure);
    if (rc != 0)
        lobby_send_failure(lobby, client->connection, message->id, &failure);
}

int lobby_message(struct lobby *lobby, uint64_t connection, const char *text, size_t length)
{
    struct client *client = id_table_get(&lobby->clients, connection);
    if (!client)
        return -1;
    protocol_message message;
    protocol_failure failure;
    if (protocol_decode(text, length, &message, &failure) != 0) {
        lobby_send_failure(lobby, connection, message.id, &failure);
        protocol_message_clear(&message);
        return -1;
    }
    int type = (int)message.type;
    if (!lobby->is_shutting_down && player_row_awaits(lobby, client, &message)) {
        player_row_park(lobby, client, &message);
        return type;
    }
    lobby_dispatch(lobby, client, &message);
    protocol_message_clear(&message);
    runner_drain(lobby);
    return type;
}

void lobby_disconnect(struct lobby *lobby, uint64_t connection)
{
    struct client *client = id_table_get(&lobby->clients, connection);
    if (!client)
        return;
    id_table_remove(&lobby->clients, connection);
    struct player *player = client->player;
    player_row_forget(lobby, client);
    free(client);
    if (!player || player->connection != connection)
        return;
    player->connection = 0;
    queue_forget(lobby, player);
    player->pins++; /* rooms may let go of it one by one */
    int count;
    struct room **rooms = rooms_of(player, &count);
    for (int i = 0; i < count; i++)
        room_player_disconnected(rooms[i], player); /* may free that room, no other */
    free(rooms);
    player->pins--;
    player_release_if_unused(lobby, player);
    runner_drain(lobby); /* others' messages waiting on what went with it go on */
}

void lobby_tick(struct lobby *lobby)
{
    int64_t now = lobby_now(lobby);
    struct room *room;
    while (!lobby->is_shutting_down && (room = room_wake_due(lobby, now)) != NULL) {
        match_event event = {.kind = MATCH_EVENT_TIMER, .now_ms = now};
        room_run(room, &event, NULL); /* if it cannot be stored, the runner looks again soon */
    }
    queue_tick(lobby, now);
    leases_tick(lobby, now);
    listings_tick(lobby, now);
    tournaments_tick(lobby);
    arenas_tick(lobby, now);
    if (!lobby->is_shutting_down)
        guest_sweep_tick(lobby, now);
    runner_drain(lobby);
}

static void visit_shutdown(void *value, void *context)
{
    struct client *client = value;
    lobby_send_json(context, client->connection,
                    json_pack("{s:s, s:s}", "type", "server.shutdown", "message",
                              "the server is restarting; reconnect with your token"),
                    NULL);
}

void lobby_shutdown(struct lobby *lobby)
{
    if (lobby->is_shutting_down)
        return;
    lobby->is_shutting_down = true;
    leases_let_go(lobby);
    bots_cancel_all(lobby);
    account_drop_queued(lobby);
    id_table_each(&lobby->clients, visit_shutdown, lobby);
}

int lobby_jobs_in_flight(const struct lobby *lobby)
{
    return lobby->jobs_in_flight + account_jobs_running(lobby);
}

int lobby_room_count(const struct lobby *lobby)
{
    return (int)lobby->rooms.count;
}

int lobby_player_count(const struct lobby *lobby)
{
    return (int)(lobby->players.count + lobby->guests.count);
}

/* Frees every value of a table (rooms first, as they refer to players). */
static void free_all(id_table *table, void (*free_value)(void *))
{
    size_t count;
    void **values = id_table_values(table, &count);
    for (size_t i = 0; i < count; i++)
        free_value(values[i]);
    free(values);
    id_table_clear(table);
}

static void free_room(void *value)
{
    room_free(value);
}

static void client_free(void *value)
{
    struct client *client = value;
    player_row_forget(NULL, client);
    free(client);
}

void lobby_free(struct lobby *lobby)
{
    if (!lobby)
        return;
    queue_free(lobby);
    tournaments_free(lobby);
    free_all(&lobby->rooms, free_room);
    runner_free(lobby);
    room_run_free_spares(lobby);
    free_all(&lobby->clients, client_free);
    free_all(&lobby->players, player_free);
    free_all(&lobby->guests, player_free);
    room_wake_free(lobby);
    room_list_free(lobby);
    listings_free(lobby);
    json_out_free(&lobby->state_plain);
    json_out_free(&lobby->state_hinted);
    json_out_free(&lobby->state_message);
    json_out_free(&lobby->moves_message);
    json_out_free(&lobby->event_message);
    json_out_free(&lobby->reply);
    account_free(lobby);
    rate_limit_free(lobby->address_guests);
    free(lobby);
}
