/* runner.c -- where the lobby's writes meet the store, and the loop that
 * carries out what follows them (docs/ARCHITECTURE.md, "The runner").
 *
 * A write through the store port is a commit: one event's records,
 * submitted as one batch, and a `finish` that carries out what the event
 * leads to once the store has answered -- a room adopting its next state
 * (room_run.c), a room's game created (room.c), a guest's row
 * (player_row.c), an account (account.c), a tournament's next round or
 * its end (tournament.c). The store answers when it likes: before
 * submit returns (SQLite on the loop) or later (a store on another thread
 * or machine). An answer that comes later waits on the runner's list until
 * runner_drain takes it, so nothing runs nested inside the store's call.
 *
 * runner_drain is the loop every entry point of the lobby ends in: it
 * takes answered commits first, then clients whose waiting messages may
 * go on, then rooms with events waiting, then tournaments to carry on,
 * until nothing is left. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"
#include "lobby/tournament.h"

/* The store's answer: queued for runner_drain (or for runner_submit, when
 * it comes before submit returned). */
static void on_stored(void *context, int rc, store_batch *batch)
{
    struct runner_commit *commit = context;
    (void)batch;
    commit->rc = rc;
    commit->is_answered = true;
    fifo_push(&commit->lobby->answered, &commit->answered);
    runner_drain(commit->lobby); /* a no-op when the answer came before submit returned */
}

int runner_submit(struct runner_commit *commit)
{
    struct lobby *lobby = commit->lobby;
    bool was_draining = lobby->is_draining;
    lobby->is_draining = true; /* an answer before submit returns is ours to finish */
    if (commit->rc == STORE_OK && commit->batch.count > 0) {
        int rc =
            lobby->store_port.submit(lobby->store_port.context, &commit->batch, on_stored, commit);
        if (rc == STORE_OK && !commit->is_answered) {
            lobby->is_draining = was_draining;
            return RUNNER_PENDING;
        }
        if (commit->is_answered)
            fifo_remove(&lobby->answered, &commit->answered);
        else
            commit->rc = rc; /* refused at once: no answer comes */
    }
    int rc = commit->rc;
    commit->finish(commit, !commit->is_orphaned);
    lobby->is_draining = was_draining;
    runner_drain(lobby);
    return rc;
}

/* A record stored on its own, with nothing waiting on it. */
struct lone_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;
};

static void lone_finish(struct runner_commit *base, bool is_live)
{
    struct lone_commit *lone = (struct lone_commit *)base;
    if (is_live && base->rc != STORE_OK)
        lobby_log(base->lobby, "could not store a %s record: %s",
                  store_record_kind_name(lone->record.kind), store_strerror(base->rc));
    free(lone);
}

void runner_store_alone(struct lobby *lobby, const store_record *record)
{
    struct lone_commit *lone = calloc(1, sizeof(*lone));
    if (!lone) {
        lobby_log(lobby, "could not store a %s record: out of memory",
                  store_record_kind_name(record->kind));
        return;
    }
    lone->base = (struct runner_commit){.lobby = lobby, .finish = lone_finish};
    lone->record = *record;
    lone->base.batch = (store_batch){&lone->record, 1, STORE_ORDER_SUBMITTED};
    runner_submit(&lone->base);
}

void runner_drain(struct lobby *lobby)
{
    if (lobby->is_draining)
        return;
    lobby->is_draining = true;
    for (;;) {
        struct runner_commit *commit =
            FIFO_ITEM(fifo_pop(&lobby->answered), struct runner_commit, answered);
        if (commit) {
            commit->finish(commit, !commit->is_orphaned);
            continue;
        }
        if (player_row_resume_next(lobby))
            continue;
        if (room_run_next(lobby))
            continue;
        if (!tournaments_carry_on_posted(lobby))
            break;
    }
    lobby->is_draining = false;
}

void runner_free(struct lobby *lobby)
{
    fifo_link *link;
    while ((link = fifo_pop(&lobby->answered)) != NULL) {
        struct runner_commit *commit = FIFO_ITEM(link, struct runner_commit, answered);
        commit->finish(commit, false);
    }
}
