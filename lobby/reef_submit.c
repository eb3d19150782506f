/* reef_submit.c -- a Reef run from the stateless API joins the
 * leaderboards.
 *
 * The run was verified off the loop (reef_api_submission replays it from
 * its seed); what is left is who played it. The secret is tried as the
 * token of a guest known to this process, then as a stored session token,
 * then as a bot key, so a browser player, an account and a bot account can
 * all submit; a stored player is looked up through the store port first
 * (a FIND_PLAYER record in a commit of its own, token then bot key). The
 * run is a commit of its own (runner.c): a REEF_RUN record,
 * after the guest's PLAYER_CREATE when the guest has no row yet (as on its
 * first seat), so the row and the run are stored together or not at all.
 * The record carries the run and a copy of its history, so a store on
 * another thread needs nothing of the lobby's; the answer comes back in
 * it (the run's id, whether it was a repeat) and goes to the caller's
 * `done` from `finish`. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

/* A run on its way to the store: first, unless its player is a guest in
 * memory, the lookup of the player its secret names (`lookup`), then the
 * run itself (`base`). */
struct reef_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct runner_commit lookup;
    struct player *guest; /* pinned: a guest whose row is stored with the run; or NULL */
    lobby_reef_done *done;
    void *context;
    char player_name[STORE_NAME_SIZE];
    char *actions;           /* owned: the REEF_RUN record points to it */
    store_record records[2]; /* the guest's row when it has none yet, then the run */
    store_record run;        /* the run's record, until its player is known */
    store_record find;       /* the lookup of the secret's player */
};

/* Answers `done` with `rc` as a failure (the lobby's, when it is going
 * away: `rc` is then ignored). */
static void answer_failure(lobby_reef_done *done, void *context, int rc, bool is_live)
{
    protocol_failure failure;
    if (!is_live)
        protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    else if (rc == STORE_E_NOT_FOUND)
        protocol_fail(&failure, PROTOCOL_E_UNAUTHORIZED, "no player has this token or bot key");
    else
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "the run could not be saved (%s)",
                      store_strerror(rc));
    done(context, NULL, &failure);
}

/* Frees a commit, its run's history with it. */
static void reef_free(struct reef_commit *commit)
{
    free(commit->actions);
    free(commit);
}

/* The store's answer: the guest, if stored with the run, is known by its
 * row from now on (while the lobby lives), and the caller hears where the
 * run landed. A stored run is answered as stored even when the guest
 * could not be adopted in memory: its row stays, and its token finds it. */
static void reef_finish(struct runner_commit *base, bool is_live)
{
    struct reef_commit *commit = (struct reef_commit *)base;
    struct lobby *lobby = base->lobby;
    const store_record_reef_run *run = &commit->records[base->batch.count - 1].reef_run;
    if (commit->guest) {
        if (is_live && base->rc == STORE_OK && !commit->guest->player_id &&
            lobby_player_stored(lobby, commit->guest, commit->records[0].player.id) != STORE_OK)
            lobby_log(lobby, "guest %s stored with a Reef run but not adopted: out of memory",
                      commit->guest->name);
        lobby_player_unpin(lobby, commit->guest);
    }
    if (base->rc == STORE_OK) {
        lobby_reef_stored stored = {.run_id = run->id, .is_repeat = run->is_repeat};
        memcpy(stored.player_name, commit->player_name, sizeof(stored.player_name));
        commit->done(commit->context, &stored, NULL);
    } else {
        answer_failure(commit->done, commit->context, base->rc, true);
    }
    reef_free(commit);
}

/* Submits the run of `commit` as the player `player_id`, or as its
 * guest, whose row goes first in the same batch. */
static void submit_run(struct reef_commit *commit, int64_t player_id)
{
    int count = commit->guest ? 2 : 1;
    store_record *record = &commit->records[count - 1];
    *record = commit->run;
    record->reef_run.player_id = player_id;
    record->reef_run.new_player = commit->guest ? &commit->records[0].player : NULL;
    commit->base.batch = (store_batch){commit->records, count, STORE_ORDER_SUBMITTED};
    runner_submit(&commit->base);
}

/* The lookup's answer: the run goes on as the player found, or the
 * caller hears why not. */
static void player_found(struct runner_commit *lookup, bool is_live)
{
    struct reef_commit *commit =
        (struct reef_commit *)((char *)lookup - offsetof(struct reef_commit, lookup));
    const store_record_find_player *find = &commit->find.find_player;
    int rc = lookup->rc == STORE_OK && !find->is_found ? STORE_E_NOT_FOUND : lookup->rc;
    if (!is_live || rc != STORE_OK) {
        answer_failure(commit->done, commit->context, rc, is_live);
        reef_free(commit);
        return;
    }
    snprintf(commit->player_name, sizeof(commit->player_name), "%s", find->player.name);
    submit_run(commit, find->player.id);
}

void lobby_reef_run_submit(struct lobby *lobby, const char *secret, const lobby_reef_run *run,
                           lobby_reef_done *done, void *context)
{
    struct reef_commit *commit = calloc(1, sizeof(*commit));
    char *actions = strdup(run->history_json);
    if (!commit || !actions) {
        free(commit);
        free(actions);
        answer_failure(done, context, STORE_E_NOMEM, true);
        return;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = reef_finish};
    commit->done = done;
    commit->context = context;
    commit->actions = actions;
    commit->run = (store_record){.kind = STORE_RECORD_REEF_RUN, .at_ms = run->at_ms};
    commit->run.reef_run =
        (store_record_reef_run){.seed = run->seed, .score = run->score, .actions = actions};
    struct player *guest = lobby_guest_by_token(lobby, secret);
    if (guest) { /* its row goes with the run */
        commit->records[0] = player_row_record(guest, lobby_now(lobby));
        commit->guest = guest;
        guest->pins++;
        snprintf(commit->player_name, sizeof(commit->player_name), "%s", guest->name);
        submit_run(commit, 0);
        return;
    }
    commit->lookup = (struct runner_commit){.lobby = lobby, .finish = player_found};
    commit->find = (store_record){.kind = STORE_RECORD_FIND_PLAYER, .at_ms = run->at_ms};
    snprintf(commit->find.find_player.token, sizeof(commit->find.find_player.token), "%s", secret);
    snprintf(commit->find.find_player.bot_key, sizeof(commit->find.find_player.bot_key), "%s",
             secret);
    commit->lookup.batch = (store_batch){&commit->find, 1, STORE_ORDER_SUBMITTED};
    runner_submit(&commit->lookup);
}
