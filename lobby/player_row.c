/* player_row.c -- a guest's player row, stored when it first takes a seat,
 * with its client's messages waiting for it.
 *
 * A guest lives in memory until it sits down (lobby.c); a seat, or a place
 * in quick play, needs a player row for the game to name. The row is a
 * commit of its own (runner.c), answered now or later. From the message
 * that needs it on, the client's messages wait, in order, until the row
 * is stored: then each is handled as if it had just come. If the row
 * cannot be stored, the messages that needed it are refused with
 * `storage_error` and the others are handled; the next message that needs
 * a row tries again.
 *
 * The same queue holds a client's messages while anything else it asked
 * of the store is out -- a lookup (client_lookup.c) or a room event not
 * yet answered (room_run.c) -- so that its replies come back in the order
 * its messages came (docs/PROTOCOL.md), though its store answers later. */
#include <stdio.h>
#include <stdlib.h>

#include "lobby/lobby_internal.h"

/* How many of a client's messages may wait for its row or a lookup: more
 * than the transport lets a connection send at once by default (its burst
 * of 40), so only a client whose limits were raised ever meets it, and
 * few enough that one that floods while the store is slow holds little
 * memory. The rest are refused with `rate_limited`. */
#define PLAYER_ROW_MAX_PARKED 64

/* A message waiting for its client's player row. */
struct parked_message {
    protocol_message message;
    fifo_link waiting; /* in client->parked */
};

/* The row on its way to the store. */
struct player_row {
    struct runner_commit base; /* first: the runner's commit is this one */
    uint64_t connection;       /* whose messages wait: looked up again at the answer */
    struct player *player;     /* pinned */
    store_record record;
};

/* Whether `message` needs a player row that `player` does not have: a
 * seat in a waiting room, or a place in quick play. */
static bool needs_row(struct lobby *lobby, const struct player *player,
                      const protocol_message *message)
{
    if (!player || player->player_id)
        return false;
    if (message->type == PROTOCOL_QUEUE_JOIN)
        return true;
    if (message->type != PROTOCOL_ROOM_JOIN || message->body.room.as_spectator)
        return false;
    struct room *room = room_find(lobby, protocol_message_room(message));
    return room && room->match.status == MATCH_WAITING;
}

/* Whether `client`'s next message must wait: for its row, a lookup, or
 * the answer of one of its room events. */
static bool is_waiting(const struct client *client)
{
    return client->is_storing_row || client->is_looking_up || client->events_out > 0;
}

bool player_row_awaits(struct lobby *lobby, const struct client *client,
                       const protocol_message *message)
{
    return !fifo_is_empty(&client->parked) || is_waiting(client) ||
           needs_row(lobby, client->player, message);
}

static void submit_row(struct lobby *lobby, struct client *client);

void player_row_resume(struct lobby *lobby, struct client *client, int rc)
{
    fifo_link *link;
    while (!is_waiting(client) && (link = fifo_pop(&client->parked)) != NULL) {
        struct parked_message *parked = FIFO_ITEM(link, struct parked_message, waiting);
        client->parked_count--;
        if (needs_row(lobby, client->player, &parked->message)) {
            if (rc == STORE_OK) { /* it waited on something else: its row comes first */
                fifo_push_front(&client->parked, link);
                client->parked_count++;
                submit_row(lobby, client);
                return;
            }
            protocol_failure failure;
            protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store your player: %s",
                          store_strerror(rc));
            lobby_send_failure(lobby, client->connection, parked->message.id, &failure);
        } else {
            lobby_dispatch(lobby, client, &parked->message);
        }
        protocol_message_clear(&parked->message);
        free(parked);
    }
}

static void row_finish(struct runner_commit *base, bool is_live)
{
    struct player_row *row = (struct player_row *)base;
    struct lobby *lobby = base->lobby;
    int rc = base->rc;
    if (is_live && rc == STORE_OK && !row->player->player_id)
        rc = lobby_player_stored(lobby, row->player, row->record.player.id);
    struct client *client = is_live ? id_table_get(&lobby->clients, row->connection) : NULL;
    if (rc != STORE_OK && is_live)
        lobby_log(lobby, "player %s could not be stored: %s", row->player->name,
                  store_strerror(rc));
    if (client) {
        client->is_storing_row = false;
        player_row_resume(lobby, client, rc);
    }
    lobby_player_unpin(lobby, row->player);
    free(row);
}

store_record player_row_record(const struct player *guest, int64_t now)
{
    store_record record = {.kind = STORE_RECORD_PLAYER_CREATE, .at_ms = now};
    snprintf(record.player.name, sizeof(record.player.name), "%s", guest->name);
    record.player.is_bot = guest->is_bot;
    snprintf(record.player.token, sizeof(record.player.token), "%s", guest->token);
    return record;
}

/* Submits the row of `client`'s player. */
static void submit_row(struct lobby *lobby, struct client *client)
{
    struct player *player = client->player;
    struct player_row *row = calloc(1, sizeof(*row));
    if (!row) {
        player_row_resume(lobby, client, STORE_E_NOMEM);
        return;
    }
    row->base = (struct runner_commit){.lobby = lobby, .finish = row_finish};
    row->connection = client->connection;
    row->player = player;
    player->pins++;
    row->record = player_row_record(player, lobby_now(lobby));
    row->base.batch = (store_batch){&row->record, 1, STORE_ORDER_SUBMITTED};
    client->is_storing_row = true;
    runner_submit(&row->base);
}

void player_row_park(struct lobby *lobby, struct client *client, protocol_message *message)
{
    protocol_failure failure;
    struct parked_message *parked = NULL;
    if (client->parked_count >= PLAYER_ROW_MAX_PARKED)
        protocol_fail(&failure, PROTOCOL_E_RATE_LIMITED,
                      "%d messages already wait for your player to be stored: wait for their "
                      "answers",
                      PLAYER_ROW_MAX_PARKED);
    else if (!(parked = calloc(1, sizeof(*parked))))
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (!parked) {
        lobby_send_failure(lobby, client->connection, message->id, &failure);
        protocol_message_clear(message);
        return;
    }
    parked->message = *message; /* the message is the parked copy's now */
    fifo_push(&client->parked, &parked->waiting);
    client->parked_count++;
    if (!is_waiting(client))
        submit_row(lobby, client);
}

void player_row_event_out(struct lobby *lobby, uint64_t connection)
{
    struct client *client = connection ? id_table_get(&lobby->clients, connection) : NULL;
    if (client)
        client->events_out++;
}

void player_row_event_answered(struct lobby *lobby, uint64_t connection)
{
    struct client *client = connection ? id_table_get(&lobby->clients, connection) : NULL;
    if (!client || client->events_out == 0)
        return;
    if (--client->events_out == 0 && !fifo_is_empty(&client->parked) && !client->is_resumable) {
        client->is_resumable = true;
        fifo_push(&lobby->resumable, &client->resumable);
    }
}

bool player_row_resume_next(struct lobby *lobby)
{
    struct client *client = FIFO_ITEM(fifo_pop(&lobby->resumable), struct client, resumable);
    if (!client)
        return false;
    client->is_resumable = false;
    player_row_resume(lobby, client, STORE_OK);
    return true;
}

void player_row_forget(struct lobby *lobby, struct client *client)
{
    if (lobby && client->is_resumable)
        fifo_remove(&lobby->resumable, &client->resumable);
    client->is_resumable = false;
    client->parked_count = 0;
    fifo_link *link;
    while ((link = fifo_pop(&client->parked)) != NULL) {
        struct parked_message *parked = FIFO_ITEM(link, struct parked_message, waiting);
        protocol_message_clear(&parked->message);
        free(parked);
    }
}
