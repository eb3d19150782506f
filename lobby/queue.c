/* queue.c -- quick play's shell (queue.h): the machine of matchmaking.h
 * fed with requests, the time and random numbers, its effects carried out.
 *
 * Matching runs on a join and on every lobby tick. One event makes at most
 * one match, so after an event that made one the shell ticks the machine
 * again at the same time, drawing fresh random numbers for the next. */
#include <assert.h>
#include <stdio.h>

#include "lobby/game_wire.h"
#include "lobby/match_records.h"
#include "lobby/queue.h"
#include "lobby/room_arrange.h"

_Static_assert(MATCHMAKING_MAX_SEATS <= GAME_MAX_SEATS, "a quick-play match fits in a room");

void queue_init(struct lobby *lobby)
{
    matchmaking_config config = {lobby->config.queue_window, lobby->config.queue_widen_ms,
                                 lobby->config.queue_fill_ms};
    matchmaking_init(&lobby->queue, &config);
}

/* The options of a match of `kind` with `seed`: the game's defaults. */
static int kind_options(int kind, uint64_t seed, game_options *options, protocol_failure *failure)
{
    const matchmaking_kind *of_kind = matchmaking_kind_at(kind);
    int rc = game_wire_options_default(of_kind->game, of_kind->mode, seed & ((1ULL << 53) - 1),
                                       options, failure);
    options->seat_count = of_kind->seats; /* a race of the matched players */
    return rc;
}

/* The player of a waiting entry: in memory, as the queue pins it. */
static struct player *player_of(struct lobby *lobby, int64_t player_id)
{
    struct player *player = id_table_get(&lobby->players, (uint64_t)player_id);
    assert(player);
    return player;
}

/* Arranges `made`; its players (out of the queue already) are unpinned
 * either way, and told when no room could be arranged. */
static void start_match(struct lobby *lobby, const matchmaking_match *made)
{
    arranged_seat seats[GAME_MAX_SEATS];
    struct player *matched[MATCHMAKING_MAX_SEATS];
    int players = 0;
    for (int seat = 0; seat < made->seat_count; seat++) {
        if (made->seats[seat] == 0) {
            seats[seat] = (arranged_seat){0, NULL, false, MATCHMAKING_FILL_BOT};
            continue;
        }
        struct player *player = player_of(lobby, made->seats[seat]);
        matched[players++] = player;
        seats[seat] = (arranged_seat){player->player_id, player->name, player->is_bot, NULL};
    }
    game_options options;
    protocol_failure failure;
    struct room *room = NULL;
    uint64_t seed;
    lobby->host.random_bytes(lobby->host.context, &seed, sizeof(seed));
    int rc = kind_options(made->kind, seed, &options, &failure);
    if (rc == 0)
        rc = room_arrange(lobby, &options, seats, (room_tournament){0, 0}, &room, &failure);
    for (int i = 0; i < players; i++) {
        if (rc != 0 && matched[i]->connection)
            lobby_send_failure(lobby, matched[i]->connection, NULL, &failure);
        matched[i]->pins--;
    }
    const matchmaking_kind *kind = matchmaking_kind_at(made->kind);
    if (rc == 0)
        lobby_log(lobby, "quick play: room %s, %s %s, %d players", room->code, kind->game,
                  kind->mode, players);
}

/* Carries `effects` out in order; a reply goes to `connection`, answering
 * request `id`. Returns whether they hold a match. */
static bool carry_out(struct lobby *lobby, const matchmaking_effects *effects, uint64_t connection,
                      const json_t *id)
{
    bool has_match = false;
    for (int i = 0; i < effects->count; i++) {
        const matchmaking_effect *effect = &effects->items[i];
        const matchmaking_kind *kind = matchmaking_kind_at(effect->queue);
        switch (effect->kind) {
        case MATCHMAKING_JOINED:
            if (!effect->has_moved)
                player_of(lobby, effect->player_id)->pins++;
            lobby_send_json(lobby, connection,
                            json_pack("{s:s, s:s, s:s, s:I, s:f, s:i}", "type", "queue.joined",
                                      "game", kind->game, "mode", kind->mode, "player_id",
                                      (json_int_t)effect->player_id, "rating", effect->rating,
                                      "waiting", effect->waiting),
                            id);
            break;
        case MATCHMAKING_LEFT:
            player_of(lobby, effect->player_id)->pins--;
            lobby_send_json(lobby, connection,
                            json_pack("{s:s, s:s, s:s}", "type", "queue.left", "game", kind->game,
                                      "mode", kind->mode),
                            id);
            break;
        case MATCHMAKING_DROPPED:
            player_of(lobby, effect->player_id)->pins--; /* the disconnection releases it */
            break;
        case MATCHMAKING_MATCHED:
            start_match(lobby, &effect->match);
            has_match = true;
            break;
        }
    }
    return has_match;
}

/* Runs `event` (answering `connection`'s request `id`) and then, while the
 * last run made a match, ticks at the same time for the next. */
static int run(struct lobby *lobby, matchmaking_event event, uint64_t connection, const json_t *id,
               protocol_failure *failure)
{
    bool has_match;
    do {
        lobby->host.random_bytes(lobby->host.context, event.shuffle, sizeof(event.shuffle));
        matchmaking_effects effects;
        int rc = matchmaking_apply(&lobby->queue, &event, &effects, failure);
        if (rc != 0)
            return rc;
        has_match = carry_out(lobby, &effects, connection, id);
        event = (matchmaking_event){.kind = MATCHMAKING_EVENT_TICK, .now_ms = event.now_ms};
    } while (has_match && lobby->queue.count > 0 && !lobby->is_shutting_down);
    return 0;
}

void queue_tick(struct lobby *lobby, int64_t now_ms)
{
    if (lobby->queue.count == 0 || lobby->is_shutting_down)
        return;
    protocol_failure ignored; /* a tick is never refused */
    run(lobby, (matchmaking_event){.kind = MATCHMAKING_EVENT_TICK, .now_ms = now_ms}, 0, NULL,
        &ignored);
}

void queue_forget(struct lobby *lobby, struct player *player)
{
    if (!player->player_id)
        return; /* never stored: never queued */
    matchmaking_event event = {.kind = MATCHMAKING_EVENT_GONE, .player_id = player->player_id};
    matchmaking_effects effects;
    protocol_failure ignored; /* a disconnection is never refused */
    if (matchmaking_apply(&lobby->queue, &event, &effects, &ignored) == 0)
        carry_out(lobby, &effects, 0, NULL);
}

/* A join's rating, looked up: the player joins the queue with it (a
 * player with no rating in the pool yet joins with 0). */
static int rating_found(struct lobby *lobby, struct client *client, struct client_lookup *lookup,
                        protocol_failure *failure)
{
    const store_record_find_rating *find = &lookup->record.find_rating;
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look your rating up: %s",
                             store_strerror(lookup->base.rc));
    if (lobby->is_shutting_down)
        return protocol_fail(failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    if (!client->player || client->player->player_id != find->player_id)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "signed in elsewhere meanwhile");
    double rating = find->is_found ? find->rating.mu - 3.0 * find->rating.sigma : 0.0;
    matchmaking_event event = {.kind = MATCHMAKING_EVENT_JOIN,
                               .now_ms = lobby_now(lobby),
                               .player_id = find->player_id,
                               .queue = lookup->detail,
                               .rating = rating};
    return run(lobby, event, client->connection, lookup->id, failure);
}

/* queue.join: the player's rating in the pool is looked up first (the
 * player has its row: player_row.c stored it before this ran). */
static int join(struct lobby *lobby, struct client *client, const protocol_message *message,
                protocol_failure *failure)
{
    const protocol_queue *request = &message->body.queue;
    int kind = matchmaking_kind_of(request->game, request->mode);
    if (kind < 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "no quick play for %s %s: blokus 4p, 3p, 2p or duo, or reef-builder "
                             "race",
                             request->game, request->mode);
    if (lobby->config.instance && !lobby->holds_queue) /* quick play is another instance's */
        return leases_find_queue(lobby, client, message, failure);
    if (!client->player->player_id) /* its row could not be stored */
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "your player is not stored");
    game_options options; /* for its rating pool: the seed does not matter */
    if (kind_options(kind, 0, &options, failure) != 0)
        return failure->code;
    store_record record = {.kind = STORE_RECORD_FIND_RATING, .at_ms = lobby_now(lobby)};
    record.find_rating.player_id = client->player->player_id;
    snprintf(record.find_rating.pool, sizeof(record.find_rating.pool), "%s",
             match_records_pool(&options));
    return client_lookup_submit(lobby, client, message->id, &record, rating_found, kind, NULL, NULL,
                                failure);
}

static int leave(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    matchmaking_event event = {.kind = MATCHMAKING_EVENT_LEAVE,
                               .player_id = client->player->player_id};
    matchmaking_effects effects;
    int rc = matchmaking_apply(&lobby->queue, &event, &effects, failure);
    if (rc == 0)
        carry_out(lobby, &effects, client->connection, message->id);
    return rc;
}

int queue_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    if (message->type == PROTOCOL_QUEUE_JOIN)
        return join(lobby, client, message, failure);
    return leave(lobby, client, message, failure);
}

void queue_give_up(struct lobby *lobby)
{
    while (lobby->queue.count > 0) {
        struct player *player = player_of(lobby, lobby->queue.entries[0].player_id);
        if (player->connection)
            leases_send_queue_away(lobby, player->connection);
        queue_forget(lobby, player);
    }
}

void queue_free(struct lobby *lobby)
{
    for (int i = 0; i < lobby->queue.count; i++)
        player_of(lobby, lobby->queue.entries[i].player_id)->pins--;
    matchmaking_free(&lobby->queue);
}
