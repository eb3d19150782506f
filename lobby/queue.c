/* queue.c -- quick play (queue.h for the rules). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/game_wire.h"
#include "lobby/queue.h"
#include "lobby/room_arrange.h"
#include "lobby/match_records.h"

/* The kinds of game one can queue for, and the players a match takes. */
static const struct queue_kind {
    const char *game;
    const char *mode;
    int players;
} KINDS[] = {
    {"blokus", "4p", 4},  {"blokus", "3p", 3},         {"blokus", "2p", 2},
    {"blokus", "duo", 2}, {"reef-builder", "race", 2},
};

#define KIND_COUNT ((int)(sizeof(KINDS) / sizeof(KINDS[0])))
/* The built-in bot that fills seats nobody came for. */
#define FILL_BOT "greedy"

static int kind_of(const protocol_queue *request)
{
    for (int kind = 0; kind < KIND_COUNT; kind++)
        if (strcmp(KINDS[kind].game, request->game) == 0 &&
            strcmp(KINDS[kind].mode, request->mode) == 0)
            return kind;
    return -1;
}

/* The options of a match of `kind`: the game's defaults, a random seed. */
static int kind_options(struct lobby *lobby, int kind, game_options *options,
                        protocol_failure *failure)
{
    uint64_t seed;
    lobby->host.random_bytes(lobby->host.context, &seed, sizeof(seed));
    int rc = game_wire_options_default(KINDS[kind].game, KINDS[kind].mode,
                                       seed & ((1ULL << 53) - 1), options, failure);
    options->seat_count = KINDS[kind].players; /* a race of the matched players */
    return rc;
}

static int entry_index(const struct lobby *lobby, const struct player *player)
{
    for (int i = 0; i < lobby->queue_count; i++)
        if (lobby->queue[i].player == player)
            return i;
    return -1;
}

/* Removes entry i, keeping the others in the order they joined. */
static void remove_at(struct lobby *lobby, int i)
{
    struct player *player = lobby->queue[i].player;
    memmove(&lobby->queue[i], &lobby->queue[i + 1],
            sizeof(lobby->queue[0]) * (size_t)(lobby->queue_count - i - 1));
    lobby->queue_count--;
    player->pins--;
}

void queue_forget(struct lobby *lobby, struct player *player)
{
    int i = entry_index(lobby, player);
    if (i >= 0)
        remove_at(lobby, i);
}

/* The rating window of an entry that has waited since `joined_ms`. */
static double window(const struct lobby *lobby, int64_t joined_ms, int64_t now_ms)
{
    double widenings = (double)(now_ms - joined_ms) / (double)lobby->config.queue_widen_ms;
    return lobby->config.queue_window * (1.0 + floor(widenings > 0 ? widenings : 0));
}

static bool fits(const struct lobby *lobby, const struct queue_entry *a,
                 const struct queue_entry *b, int64_t now_ms)
{
    int64_t longest = a->joined_ms < b->joined_ms ? a->joined_ms : b->joined_ms;
    return a->kind == b->kind && fabs(a->rating - b->rating) <= window(lobby, longest, now_ms);
}

/* Picks the anchor's opponents, closest rating first: their indexes in
 * picked[] (the anchor first); returns how many were found. */
static int pick(const struct lobby *lobby, int anchor, int wanted, int64_t now_ms, int *picked)
{
    const struct queue_entry *first = &lobby->queue[anchor];
    int count = 0;
    picked[count++] = anchor;
    while (count < wanted) {
        int best = -1;
        for (int i = 0; i < lobby->queue_count; i++) {
            bool is_taken = false;
            for (int k = 0; k < count; k++)
                is_taken |= picked[k] == i;
            if (is_taken || !fits(lobby, first, &lobby->queue[i], now_ms))
                continue;
            if (best < 0 || fabs(lobby->queue[i].rating - first->rating) <
                                fabs(lobby->queue[best].rating - first->rating))
                best = i;
        }
        if (best < 0)
            break;
        picked[count++] = best;
    }
    return count;
}

/* Deals the first `players` picked players, and fill bots in the seats
 * left, into `seats` seats in random order. */
static void deal_seats(struct lobby *lobby, const int *picked, int players, int seats,
                       arranged_seat *out)
{
    for (int seat = 0; seat < seats; seat++) {
        if (seat < players) {
            const struct player *player = lobby->queue[picked[seat]].player;
            out[seat] = (arranged_seat){player->player_id, player->name, player->is_bot, NULL};
        } else {
            out[seat] = (arranged_seat){0, NULL, false, FILL_BOT};
        }
    }
    for (int seat = seats - 1; seat > 0; seat--) {
        uint32_t random;
        lobby->host.random_bytes(lobby->host.context, &random, sizeof(random));
        int other = (int)(random % (uint32_t)(seat + 1));
        arranged_seat swap = out[seat];
        out[seat] = out[other];
        out[other] = swap;
    }
}

/* Starts the match of the anchor and the players picked for it; they
 * leave the queue either way (a match that cannot start tells them). */
static void start_match(struct lobby *lobby, const int *picked, int players)
{
    int kind = lobby->queue[picked[0]].kind;
    arranged_seat seats[GAME_MAX_SEATS];
    game_options options;
    protocol_failure failure;
    struct player *matched[GAME_MAX_SEATS];
    for (int i = 0; i < players; i++)
        matched[i] = lobby->queue[picked[i]].player;
    deal_seats(lobby, picked, players, KINDS[kind].players, seats);
    struct room *room = NULL;
    int rc = kind_options(lobby, kind, &options, &failure);
    if (rc == 0)
        rc = room_arrange(lobby, &options, seats, (room_tournament){0, 0}, &room, &failure);
    for (int i = 0; i < players; i++) {
        if (rc != 0 && matched[i]->connection)
            lobby_send_failure(lobby, matched[i]->connection, NULL, &failure);
        queue_forget(lobby, matched[i]);
    }
    if (rc == 0)
        lobby_log(lobby, "quick play: room %s, %s %s, %d players", room->code, KINDS[kind].game,
                  KINDS[kind].mode, players);
}

void queue_tick(struct lobby *lobby, int64_t now_ms)
{
    int anchor = 0;
    while (!lobby->is_shutting_down && anchor < lobby->queue_count) {
        const struct queue_entry *entry = &lobby->queue[anchor];
        int wanted = KINDS[entry->kind].players;
        int picked[GAME_MAX_SEATS];
        int found = pick(lobby, anchor, wanted, now_ms, picked);
        bool is_filled = now_ms - entry->joined_ms >= lobby->config.queue_fill_ms;
        if (found == wanted || is_filled)
            start_match(lobby, picked, found); /* the entries shift: look at `anchor` again */
        else
            anchor++;
    }
}

/* The conservative rating of `player` in the pool of `kind`. */
static int rating_of(struct lobby *lobby, const struct player *player, int kind, double *out)
{
    game_options options;
    protocol_failure ignored;
    if (kind_options(lobby, kind, &options, &ignored) != 0)
        return STORE_E_INTERNAL;
    store_rating stored;
    int rc = lobby->store.rating_get(lobby->store.context, player->player_id,
                                     match_records_pool(&options), &stored);
    *out = 0.0;
    if (rc == 0)
        *out = stored.mu - 3.0 * stored.sigma;
    return rc == STORE_E_NOT_FOUND ? 0 : rc;
}

static int join(struct lobby *lobby, struct client *client, const protocol_message *message,
                protocol_failure *failure)
{
    const protocol_queue *request = &message->body.queue;
    struct player *player = client->player;
    int kind = kind_of(request);
    if (kind < 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "no quick play for %s %s: blokus 4p, 3p, 2p or duo, or reef-builder "
                             "race",
                             request->game, request->mode);
    double rating = 0.0;
    int rc = player->player_id ? rating_of(lobby, player, kind, &rating) /* player_row.c's row */
                               : STORE_E_NOT_FOUND;
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look your rating up: %s",
                             store_strerror(rc));
    queue_forget(lobby, player); /* one queue at a time */
    if (lobby->queue_count == lobby->queue_capacity) {
        int capacity = lobby->queue_capacity ? 2 * lobby->queue_capacity : 16;
        struct queue_entry *grown = realloc(lobby->queue, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        lobby->queue = grown;
        lobby->queue_capacity = capacity;
    }
    int64_t now = lobby_now(lobby);
    lobby->queue[lobby->queue_count++] = (struct queue_entry){player, kind, rating, now};
    player->pins++;
    int waiting = 0;
    for (int i = 0; i < lobby->queue_count; i++)
        waiting += lobby->queue[i].kind == kind;
    lobby_send_json(lobby, client->connection,
                    json_pack("{s:s, s:s, s:s, s:I, s:f, s:i}", "type", "queue.joined", "game",
                              KINDS[kind].game, "mode", KINDS[kind].mode, "player_id",
                              (json_int_t)player->player_id, "rating", rating, "waiting", waiting),
                    message->id);
    queue_tick(lobby, now);
    return 0;
}

static int leave(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    int i = entry_index(lobby, client->player);
    if (i < 0)
        return protocol_fail(failure, PROTOCOL_E_NOT_QUEUED, "you are not in a queue");
    int kind = lobby->queue[i].kind;
    remove_at(lobby, i);
    lobby_send_json(lobby, client->connection,
                    json_pack("{s:s, s:s, s:s}", "type", "queue.left", "game", KINDS[kind].game,
                              "mode", KINDS[kind].mode),
                    message->id);
    return 0;
}

int queue_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    if (message->type == PROTOCOL_QUEUE_JOIN)
        return join(lobby, client, message, failure);
    return leave(lobby, client, message, failure);
}

void queue_free(struct lobby *lobby)
{
    while (lobby->queue_count > 0)
        remove_at(lobby, lobby->queue_count - 1);
    free(lobby->queue);
    lobby->queue = NULL;
    lobby->queue_capacity = 0;
}
