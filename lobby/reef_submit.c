/* reef_submit.c -- a Reef run from the stateless API joins the
 * leaderboards.
 *
 * The run was verified off the loop (reef_api_submission replays it from
 * its seed); what is left is who played it. The secret is tried as the
 * token of a guest known to this process, then as a stored session token,
 * then as a bot key, so a browser player, an account and a bot account can
 * all submit. The run is a commit of its own (runner.c): a REEF_RUN record,
 * after the guest's PLAYER_CREATE when the guest has no row yet (as on its
 * first seat), so the row and the run are stored together or not at all.
 * The record carries the run and a copy of its history, so a store on
 * another thread needs nothing of the lobby's; the answer comes back in
 * it (the run's id, whether it was a repeat) and goes to the caller's
 * `done` from `finish`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

/* A run on its way to the store. */
struct reef_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct player *guest;      /* pinned: a guest whose row is stored with the run; or NULL */
    lobby_reef_done *done;
    void *context;
    char player_name[STORE_NAME_SIZE];
    char *actions;           /* owned: the REEF_RUN record points to it */
    store_record records[2]; /* the guest's row when it has none yet, then the run */
};

/* Makes the guest's PLAYER_CREATE record, first in the batch, and pins
 * the guest until the answer. */
static void add_guest_row(struct reef_commit *commit, struct player *guest, int64_t now)
{
    store_record *row = &commit->records[0];
    *row = (store_record){.kind = STORE_RECORD_PLAYER_CREATE, .at_ms = now};
    snprintf(row->player.name, sizeof(row->player.name), "%s", guest->name);
    row->player.is_bot = guest->is_bot;
    snprintf(row->player.token, sizeof(row->player.token), "%s", guest->token);
    commit->guest = guest;
    guest->pins++;
}

/* Finds the player `secret` names for `commit`: a guest of this process
 * (its row then goes first in the batch), or a stored player, whose id is
 * set in *player_id. 0, STORE_E_NOT_FOUND or another store error. */
static int find_player(struct lobby *lobby, const char *secret, struct reef_commit *commit,
                       int64_t *player_id)
{
    struct player *guest = lobby_guest_by_token(lobby, secret);
    if (guest) {
        add_guest_row(commit, guest, lobby_now(lobby));
        snprintf(commit->player_name, sizeof(commit->player_name), "%s", guest->name);
        return STORE_OK;
    }
    const store_api *api = &lobby->store;
    store_player stored;
    int rc = api->player_by_token(api->context, secret, &stored);
    if (rc == STORE_E_NOT_FOUND)
        rc = api->player_by_bot_key(api->context, secret, &stored);
    if (rc == STORE_OK) {
        *player_id = stored.id;
        snprintf(commit->player_name, sizeof(commit->player_name), "%s", stored.name);
    }
    return rc;
}

/* Answers `done` with `rc` as a failure. */
static void answer_failure(lobby_reef_done *done, void *context, int rc)
{
    protocol_failure failure;
    if (rc == STORE_E_NOT_FOUND)
        protocol_fail(&failure, PROTOCOL_E_UNAUTHORIZED, "no player has this token or bot key");
    else
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "the run could not be saved (%s)",
                      store_strerror(rc));
    done(context, NULL, &failure);
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
        answer_failure(commit->done, commit->context, base->rc);
    }
    free(commit->actions);
    free(commit);
}

void lobby_reef_run_submit(struct lobby *lobby, const char *secret, const lobby_reef_run *run,
                           lobby_reef_done *done, void *context)
{
    struct reef_commit *commit = calloc(1, sizeof(*commit));
    char *actions = strdup(run->history_json);
    if (!commit || !actions) {
        free(commit);
        free(actions);
        answer_failure(done, context, STORE_E_NOMEM);
        return;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = reef_finish};
    commit->done = done;
    commit->context = context;
    commit->actions = actions;
    int64_t player_id = 0;
    int rc = find_player(lobby, secret, commit, &player_id);
    if (rc != STORE_OK) {
        free(actions);
        free(commit);
        answer_failure(done, context, rc);
        return;
    }
    int count = commit->guest ? 2 : 1;
    store_record *record = &commit->records[count - 1];
    *record = (store_record){.kind = STORE_RECORD_REEF_RUN, .at_ms = run->at_ms};
    record->reef_run = (store_record_reef_run){
        .player_id = player_id,
        .new_player = commit->guest ? &commit->records[0].player : NULL,
        .seed = run->seed,
        .score = run->score,
        .actions = actions,
    };
    commit->base.batch = (store_batch){commit->records, count};
    runner_submit(&commit->base);
}
