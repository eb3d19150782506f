/* client_lookup.c -- a lookup in the store made for one client's message
 * (a hello by token or bot key, a quick-play join's rating), answered now
 * or later.
 *
 * The lookup is a commit of one lookup record (runner.c). While it is out
 * the client's next messages wait in order (player_row.c keeps them); when
 * the answer comes, the message's own handler finishes it and then the
 * waiting messages are handled as if they had just come. A client gone
 * meanwhile is forgotten with its messages, and the handler is not
 * called. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"

static void lookup_finish(struct runner_commit *base, bool is_live)
{
    struct client_lookup *lookup = (struct client_lookup *)base;
    struct lobby *lobby = base->lobby;
    struct client *client = is_live ? id_table_get(&lobby->clients, lookup->connection) : NULL;
    if (client) {
        client->is_looking_up = false;
        protocol_failure failure;
        if (lookup->answered(lobby, client, lookup, &failure) != 0)
            lobby_send_failure(lobby, client->connection, lookup->id, &failure);
        player_row_resume(lobby, client, STORE_OK);
    }
    if (lookup->context)
        lookup->drop(lookup->context);
    json_decref(lookup->id);
    free(lookup);
}

int client_lookup_submit(struct lobby *lobby, struct client *client, const json_t *id,
                         const store_record *record, client_lookup_answered *answered, int detail,
                         void *context, void (*drop)(void *context), protocol_failure *failure)
{
    struct client_lookup *lookup = calloc(1, sizeof(*lookup));
    if (!lookup) {
        if (context)
            drop(context);
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    }
    lookup->base = (struct runner_commit){.lobby = lobby, .finish = lookup_finish};
    lookup->connection = client->connection;
    lookup->id = json_incref((json_t *)id);
    lookup->answered = answered;
    lookup->detail = detail;
    lookup->context = context;
    lookup->drop = drop;
    lookup->record = *record;
    lookup->base.batch = (store_batch){&lookup->record, 1, STORE_ORDER_SUBMITTED};
    client->is_looking_up = true;
    runner_submit(&lookup->base);
    return 0;
}
