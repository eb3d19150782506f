/* reef_submit.c -- a Reef run from the stateless API joins the
 * leaderboards.
 *
 * The run was verified off the loop (reef_api_submission replays it from
 * its seed); what is left is who played it. The secret is tried as the
 * token of a guest known to this process, then as a stored session token,
 * then as a bot key, so a browser player, an account and a bot account can
 * all submit. A guest is stored on its first run, as on its first seat, so
 * the run has a player row to belong to. One write, its own transaction:
 * the run and its player's new bests are stored together. */
#include <stdio.h>

#include "lobby/lobby_internal.h"

/* The stored id and name of the player `secret` names, storing a guest. */
static int find_player(struct lobby *lobby, const char *secret, int64_t *id, char *name)
{
    struct player *guest = lobby_guest_by_token(lobby, secret);
    if (guest) {
        int rc = lobby_player_store(lobby, guest);
        *id = guest->player_id;
        snprintf(name, STORE_NAME_SIZE, "%s", guest->name);
        return rc;
    }
    const store_api *api = &lobby->store;
    store_player stored;
    int rc = api->player_by_token(api->context, secret, &stored);
    if (rc == STORE_E_NOT_FOUND)
        rc = api->player_by_bot_key(api->context, secret, &stored);
    if (rc == 0) {
        *id = stored.id;
        snprintf(name, STORE_NAME_SIZE, "%s", stored.name);
    }
    return rc;
}

int lobby_reef_run_submit(struct lobby *lobby, const char *secret, const lobby_reef_run *run,
                          int64_t *run_id, bool *is_repeat, char *player_name,
                          protocol_failure *failure)
{
    int64_t player_id = 0;
    int rc = find_player(lobby, secret, &player_id, player_name);
    if (rc == STORE_E_NOT_FOUND)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED,
                             "no player has this token or bot key");
    if (rc == 0) {
        const store_api *api = &lobby->store;
        store_reef_run stored = {player_id, run->seed,         run->score,
                                 0,         run->history_json, run->at_ms};
        rc = api->reef_run_add(api->context, &stored, run_id, is_repeat);
    }
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "the run could not be saved (%s)",
                             store_strerror(rc));
    return 0;
}
