/* store_records.c -- how each kind of record is stored in SQLite, and the
 * SQLite store's port (store_port.h): a batch is one transaction.
 *
 * A game's result is rated here, inside its transaction, so the ratings
 * read and the ratings written cannot be split by another game's result:
 *   - every seat is a participant, ranked by the game's ranks (ties share):
 *     a player's seat rates the player (also when a stand-in finished it),
 *     a built-in bot's seat its entry ("bot:greedy", "bot:mcts@300ms");
 *   - one participant may hold several seats (a bot): all count as
 *     opponents for everyone else, and it is rated once, by its
 *     best-placed seat (the lowest seat number among equals);
 *   - a game with an empty seat, or without a pool, rates nobody.
 * Several instances on one PostgreSQL database store results at once: a
 * game's participants are locked first, in id order (store_rating_lock),
 * and on PostgreSQL a batch with a result is a transaction of its own, so
 * the locks it waits for are never held by a batch that waits for it. */
#include <stdlib.h>
#include <string.h>

#include "storage/rating.h"
#include "storage/store_internal.h"
#include "storage/store_port.h"

/* The row a seat counts for: its player, or its bot's entry (found or
 * created); 0 for nobody. */
static int participant_of(store *s, int64_t player_id, const char *bot_entry, int64_t *id)
{
    *id = player_id;
    if (player_id || !bot_entry[0])
        return STORE_OK;
    return store_builtin_player(s, bot_entry, id);
}

static int apply_seat(store *s, const store_record_seat *seat)
{
    int64_t entry = 0;
    int rc = participant_of(s, seat->player_id, seat->bot_entry, &entry);
    if (rc != STORE_OK)
        return rc;
    return store_seat_set(s, seat->game_id, seat->seat, entry, seat->bot[0] ? seat->bot : NULL);
}

/* Whether `seat` is the one its participant is rated by (see above). */
static bool is_rated_seat(const int64_t *ids, const store_record_result *result, int seat)
{
    for (int other = 0; other < result->seat_count; other++) {
        if (other == seat || ids[other] != ids[seat])
            continue;
        int rank = result->seats[other].rank, own = result->seats[seat].rank;
        if (rank < own || (rank == own && other < seat))
            return false;
    }
    return true;
}

static int compare_ids(const void *left, const void *right)
{
    int64_t a = *(const int64_t *)left, b = *(const int64_t *)right;
    return (a > b) - (a < b);
}

/* Locks the `count` participants `ids` (0: nobody) in ascending order,
 * each once. */
static int lock_participants(store *s, const int64_t *ids, int count)
{
    int64_t sorted[STORE_MAX_SEATS];
    memcpy(sorted, ids, (size_t)count * sizeof(sorted[0]));
    qsort(sorted, (size_t)count, sizeof(sorted[0]), compare_ids);
    int rc = STORE_OK;
    for (int i = 0; rc == STORE_OK && i < count; i++)
        if (sorted[i] != 0 && (i == 0 || sorted[i] != sorted[i - 1]))
            rc = store_rating_lock(s, sorted[i]);
    return rc;
}

/* Reads every participant's rating (a newcomer's is the initial one),
 * rates the game and writes each rated participant's change. */
static int rate(store *s, const store_record_result *result, const int64_t *ids, int64_t at_ms)
{
    rating_config config = rating_default_config();
    rating before[STORE_MAX_SEATS], after[STORE_MAX_SEATS];
    int ranks[STORE_MAX_SEATS];
    int count = result->seat_count;
    for (int seat = 0; seat < count; seat++) {
        store_rating stored;
        int rc = store_rating_get(s, ids[seat], result->pool, &stored);
        if (rc == STORE_E_NOT_FOUND)
            before[seat] = rating_initial(&config);
        else if (rc == STORE_OK)
            before[seat] = (rating){stored.mu, stored.sigma};
        else
            return rc;
        ranks[seat] = result->seats[seat].rank;
    }
    int rc = rating_update(&config, count, before, ranks, after);
    if (rc != STORE_OK)
        return rc;
    for (int seat = 0; seat < count; seat++) {
        if (!is_rated_seat(ids, result, seat))
            continue;
        store_rating_change change = {
            .player_id = ids[seat],
            .pool = result->pool,
            .game_id = result->game_id,
            .mu_before = before[seat].mu,
            .sigma_before = before[seat].sigma,
            .mu_after = after[seat].mu,
            .sigma_after = after[seat].sigma,
            .score = result->seats[seat].score,
            .is_winner = result->seats[seat].is_winner,
            .at_ms = at_ms,
        };
        rc = store_rating_record(s, &change);
        if (rc != STORE_OK)
            return rc;
    }
    return STORE_OK;
}

/* The row each seat counts for (participant_of), into ids. */
static int participants(store *s, const store_record_result *result, int64_t *ids)
{
    int rc = STORE_OK;
    for (int seat = 0; rc == STORE_OK && seat < result->seat_count; seat++)
        rc = participant_of(s, result->seats[seat].player_id, result->seats[seat].bot_entry,
                            &ids[seat]);
    return rc;
}

static int store_ratings(store *s, const store_record_result *result, const int64_t *ids,
                         int64_t at_ms)
{
    if (!result->pool[0] || result->seat_count < 2)
        return STORE_OK;
    for (int seat = 0; seat < result->seat_count; seat++)
        if (ids[seat] == 0)
            return STORE_OK;
    return rate(s, result, ids, at_ms);
}

static int store_reef_runs(store *s, const store_record_result *result, int64_t at_ms)
{
    for (int seat = 0; result->has_reef_runs && seat < result->seat_count; seat++) {
        const store_result_seat *holder = &result->seats[seat];
        if (!holder->player_id)
            continue;
        store_reef_run run = {
            holder->player_id, result->reef_seed, holder->score, result->game_id, NULL, at_ms};
        int64_t run_id;
        int rc = store_reef_run_add(s, &run, &run_id, NULL);
        if (rc != STORE_OK)
            return rc;
    }
    return STORE_OK;
}

static int apply_result(store *s, const store_record_result *result, int64_t at_ms)
{
    store_seat_result seats[STORE_MAX_SEATS];
    for (int seat = 0; seat < result->seat_count; seat++)
        seats[seat] = (store_seat_result){seat, result->seats[seat].score, result->seats[seat].rank,
                                          result->seats[seat].is_winner};
    int64_t ids[STORE_MAX_SEATS];
    int rc = participants(s, result, ids);
    if (rc == STORE_OK) /* before any of their rows is written: see the header comment */
        rc = lock_participants(s, ids, result->seat_count);
    if (rc == STORE_OK)
        rc = store_game_finish(s, result->game_id, STORE_GAME_FINISHED, result->result_json,
                               result->seat_count, seats, at_ms);
    if (rc == STORE_OK)
        rc = store_ratings(s, result, ids, at_ms);
    return rc == STORE_OK ? store_reef_runs(s, result, at_ms) : rc;
}

static int apply_game(store *s, store_record_game *game, int64_t at_ms)
{
    store_game_info info = {game->room, game->game, game->mode,          game->options,
                            game->seed, at_ms,      game->tournament_id, game->tournament_game};
    int rc = store_game_create(s, &info, &game->id);
    if (rc == STORE_OK && game->lease_instance)
        rc = store_lease_set(s, game->room, game->lease_instance, game->lease_until_ms);
    return rc;
}

/* A game's end: its room needs no lease any more. */
static int end_game(store *s, store_record *record)
{
    int rc = record->kind == STORE_RECORD_GAME_RESULT
                 ? apply_result(s, &record->result, record->at_ms)
                 : store_game_finish(s, record->game_id, STORE_GAME_ABORTED, NULL, 0, NULL,
                                     record->at_ms);
    int64_t game_id =
        record->kind == STORE_RECORD_GAME_RESULT ? record->result.game_id : record->game_id;
    return rc == STORE_OK ? store_lease_drop_of_game(s, game_id) : rc;
}

static int apply_reef_run(store *s, store_record_reef_run *run, int64_t at_ms)
{
    int64_t player_id = run->new_player ? run->new_player->id : run->player_id;
    if (player_id <= 0)
        return STORE_E_INVALID; /* a guest whose row was not in the batch before the run */
    store_reef_run stored = {player_id, run->seed, run->score, 0, run->actions, at_ms};
    return store_reef_run_add(s, &stored, &run->id, &run->is_repeat);
}

/* A lookup's outcome: not found is an answer (`is_found` false). */
static int found(int rc, bool *is_found)
{
    *is_found = rc == STORE_OK;
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

static int find_player(store *s, store_record_find_player *find)
{
    if (!find->token[0] && !find->bot_key[0])
        return found(store_player_by_id(s, find->id, &find->player), &find->is_found);
    int rc =
        find->token[0] ? store_player_by_token(s, find->token, &find->player) : STORE_E_NOT_FOUND;
    if (rc == STORE_E_NOT_FOUND && find->bot_key[0])
        rc = store_player_by_bot_key(s, find->bot_key, &find->player);
    return found(rc, &find->is_found);
}

/* A new tournament, then its id into the schedule records after it. */
static int apply_tournament(store *s, store_record *record)
{
    store_record_tournament *created = &record->created;
    int rc = store_tournament_create(s, created->info, created->entry_count, created->entries,
                                     &created->id);
    char lease[STORE_CODE_SIZE];
    store_tournament_lease(created->id, lease);
    if (rc == STORE_OK && created->lease_instance)
        rc = store_lease_set(s, lease, created->lease_instance, created->lease_until_ms);
    for (int i = 1; rc == STORE_OK && i <= created->schedule_count; i++) {
        if (record[i].kind != STORE_RECORD_TOURNAMENT_SCHEDULE)
            return STORE_E_INVALID;
        record[i].scheduled.tournament_id = created->id;
    }
    return rc;
}

/* A tournament's end, finished or cancelled: nobody needs its lease. */
static int end_tournament(store *s, const store_record *record)
{
    int rc = record->kind == STORE_RECORD_TOURNAMENT_FINISH
                 ? store_tournament_finish(s, record->tournament_id, record->at_ms)
                 : store_tournament_cancel(s, record->tournament_id, record->at_ms);
    char lease[STORE_CODE_SIZE];
    store_tournament_lease(record->tournament_id, lease);
    return rc == STORE_OK ? store_lease_drop(s, lease) : rc;
}

/* The games `ids` (malloc'd: freed here), loaded: all of them, or none. */
static int load_games(store *s, int64_t *ids, int count, store_record_find_games *found)
{
    int rc = STORE_OK;
    if (count > 0 && !(found->games = calloc((size_t)count, sizeof(*found->games))))
        rc = STORE_E_NOMEM;
    while (rc == STORE_OK && found->count < count) {
        rc = store_game_load(s, ids[found->count], &found->games[found->count]);
        found->count += rc == STORE_OK;
    }
    free(ids);
    if (rc != STORE_OK)
        store_found_games_free(found);
    return rc;
}

/* Every unfinished game, loaded. */
static int find_unfinished(store *s, store_record_find_games *found)
{
    int64_t *ids = NULL;
    int count = 0;
    int rc = store_unfinished_games(s, &ids, &count);
    return rc == STORE_OK ? load_games(s, ids, count, found) : rc;
}

/* The rooms taken over, with their unfinished games loaded. */
static int take_rooms(store *s, store_record_take *take, int64_t now_ms)
{
    int64_t *ids = NULL;
    int count = 0;
    int rc = store_leases_take(s, take->instance, now_ms, take->until_ms, take->take_own, &ids,
                               &count, &take->taken_too);
    return rc == STORE_OK ? load_games(s, ids, count, &take->found) : rc;
}

/* The ids found->id names: itself alone. */
static int the_one_tournament(store_record_find_tournaments *found)
{
    if (!(found->ids = malloc(sizeof(*found->ids))))
        return STORE_E_NOMEM;
    found->ids[0] = found->id;
    found->count = 1;
    return STORE_OK;
}

/* Every running tournament (or those found->instance holds, or found->id),
 * loaded where it can be. */
static int find_tournaments(store *s, store_record_find_tournaments *found)
{
    int rc = found->id ? the_one_tournament(found)
             : found->instance
                 ? store_tournaments_leased(s, found->instance, &found->ids, &found->count)
                 : store_tournaments_running(s, &found->ids, &found->count);
    if (rc == STORE_OK && found->count > 0 &&
        !(found->tournaments = calloc((size_t)found->count, sizeof(*found->tournaments))))
        rc = STORE_E_NOMEM;
    for (int i = 0; rc == STORE_OK && i < found->count; i++)
        if (store_tournament_load(s, found->ids[i], &found->tournaments[i]) != STORE_OK)
            found->tournaments[i] = NULL;
    if (rc != STORE_OK)
        store_found_tournaments_free(found);
    return rc;
}

void store_found_games_free(store_record_find_games *found)
{
    for (int i = 0; found->games && i < found->count; i++)
        store_game_record_free(found->games[i]);
    free(found->games);
    *found = (store_record_find_games){0};
}

void store_found_tournaments_free(store_record_find_tournaments *found)
{
    for (int i = 0; found->tournaments && i < found->count; i++)
        store_tournament_record_free(found->tournaments[i]);
    free(found->tournaments);
    free(found->ids);
    *found = (store_record_find_tournaments){0};
}

/* An invitation accepted or used up: is_missing when there was none. */
static int apply_invitation(store *s, store_record *record)
{
    store_record_invite *invitation = &record->invitation;
    int rc =
        record->kind == STORE_RECORD_INVITATION_ACCEPT
            ? store_tournament_invitation_accept(s, invitation->inviter_id, invitation->invitee_id)
            : store_tournament_invitation_use(s, invitation->inviter_id, invitation->invitee_id);
    invitation->is_missing = rc == STORE_E_NOT_FOUND;
    return rc;
}

int store_record_apply(store *s, store_record *record)
{
    switch (record->kind) {
    case STORE_RECORD_PLAYER_CREATE:
        return store_player_create(s, record->player.name, record->player.is_bot,
                                   record->player.token, &record->player.id);
    case STORE_RECORD_ACCOUNT_CREATE:
        return store_account_create(s, record->account.name, record->account.name_key,
                                    record->account.password_hash, record->account.token,
                                    &record->account.player_id);
    case STORE_RECORD_ACCOUNT_CLAIM:
        return store_account_claim(s, record->account.player_id, record->account.name,
                                   record->account.name_key, record->account.password_hash,
                                   record->account.token);
    case STORE_RECORD_TOKEN_SET:
        return store_player_token_set(s, record->token.player_id, record->token.token);
    case STORE_RECORD_GAME_CREATE:
        return apply_game(s, &record->game, record->at_ms);
    case STORE_RECORD_SEAT:
        return apply_seat(s, &record->seat);
    case STORE_RECORD_GAME_START:
        return store_game_start(s, record->game_id, record->at_ms);
    case STORE_RECORD_MOVE:
        record->move.action = record->action_text;
        return store_move_append(s, &record->move);
    case STORE_RECORD_GAME_RESULT:
    case STORE_RECORD_GAME_ABORT:
        return end_game(s, record);
    case STORE_RECORD_TOURNAMENT_RESULT:
        return store_tournament_result(s, record->standings.tournament_id, record->standings.count,
                                       record->standings.changes);
    case STORE_RECORD_TOURNAMENT_SCHEDULE:
        return store_tournament_schedule(s, record->scheduled.tournament_id,
                                         record->scheduled.number, record->scheduled.round,
                                         record->scheduled.seat_count, record->scheduled.seats);
    case STORE_RECORD_TOURNAMENT_FINISH:
    case STORE_RECORD_TOURNAMENT_CANCEL:
        return end_tournament(s, record);
    case STORE_RECORD_REEF_RUN:
        return apply_reef_run(s, &record->reef_run, record->at_ms);
    case STORE_RECORD_BOT_ACCOUNT_CREATE:
        return store_bot_account_create(s, record->bot.name, record->bot.name_key, record->bot.key,
                                        record->bot.owner_id, &record->bot.id);
    case STORE_RECORD_BOT_KEY_SET:
        return store_bot_key_set(s, record->token.player_id,
                                 record->token.token[0] ? record->token.token : NULL);
    case STORE_RECORD_BOT_OPEN_SET:
        return store_bot_open_set(s, record->bot_open.bot_id, record->bot_open.is_open);
    case STORE_RECORD_GUESTS_EXPIRE:
        return store_guests_expire(s, record->sweep.before_ms, record->sweep.limit,
                                   &record->sweep.cursor, record->sweep.held,
                                   record->sweep.held_count, &record->sweep.looked_at,
                                   &record->sweep.deleted);
    case STORE_RECORD_FIND_PLAYER:
        return find_player(s, &record->find_player);
    case STORE_RECORD_FIND_RATING:
        return found(store_rating_get(s, record->find_rating.player_id, record->find_rating.pool,
                                      &record->find_rating.rating),
                     &record->find_rating.is_found);
    case STORE_RECORD_FIND_ARENA_START:
        return found(
            store_arena_last_start(s, record->find_arena.arena, &record->find_arena.last_start_ms),
            &record->find_arena.is_found);
    case STORE_RECORD_FIND_ACCOUNT:
        return found(
            store_account_by_name(s, record->find_account.name_key, &record->find_account.account),
            &record->find_account.is_found);
    case STORE_RECORD_FIND_UNFINISHED:
        return find_unfinished(s, &record->find_games);
    case STORE_RECORD_LEASES_RENEW:
        return store_leases_renew(s, record->renew.instance, record->renew.until_ms,
                                  &record->renew.held);
    case STORE_RECORD_ROOMS_TAKE:
        return take_rooms(s, &record->take, record->at_ms);
    case STORE_RECORD_NOTIFY:
        return store_notify(s, record->notice);
    case STORE_RECORD_FIND_LEASE:
        return found(store_lease_of_room(s, record->find_lease.room, &record->find_lease.lease),
                     &record->find_lease.is_found);
    case STORE_RECORD_FIND_TOURNAMENTS:
        return find_tournaments(s, &record->find_tournaments);
    case STORE_RECORD_TOURNAMENT_CREATE:
        return apply_tournament(s, record);
    case STORE_RECORD_INVITATION_SEND:
        return store_tournament_invite(s, record->invitation.inviter_id,
                                       record->invitation.invitee_id, record->at_ms);
    case STORE_RECORD_INVITATION_ACCEPT:
    case STORE_RECORD_INVITATION_USE:
        return apply_invitation(s, record);
    }
    return STORE_E_INVALID;
}

const char *store_record_kind_name(store_record_kind kind)
{
    static const char *const NAMES[STORE_RECORD_KIND_COUNT] = {
        "player_create",      "account_create",
        "account_claim",      "token_set",
        "game_create",        "seat",
        "game_start",         "move",
        "game_result",        "game_abort",
        "tournament_result",  "tournament_schedule",
        "tournament_finish",  "reef_run",
        "bot_account_create", "bot_key_set",
        "bot_open_set",       "guests_expire",
        "tournament_create",  "tournament_cancel",
        "invitation_send",    "invitation_accept",
        "invitation_use",     "leases_renew",
        "rooms_take",         "notify",
        "find_player",        "find_rating",
        "find_arena_start",   "find_account",
        "find_unfinished",    "find_tournaments",
        "find_lease"};
    return (unsigned)kind < STORE_RECORD_KIND_COUNT ? NAMES[kind] : "unknown";
}

bool store_record_is_lookup(store_record_kind kind)
{
    return kind >= STORE_RECORD_FIND_PLAYER; /* the lookups come last */
}

static int apply_records(store *s, const store_batch *batch)
{
    int rc = STORE_OK;
    for (int i = 0; rc == STORE_OK && i < batch->count; i++)
        rc = store_record_apply(s, &batch->records[i]);
    return rc;
}

static bool is_lookups_only(store_batch *const *batches, int count)
{
    for (int b = 0; b < count; b++)
        for (int i = 0; i < batches[b]->count; i++)
            if (!store_record_is_lookup(batches[b]->records[i].kind))
                return false;
    return true;
}

/* Batches first .. count-1 in one transaction, until one's failure rolls
 * it back whole (SQLite does so on a full disk, say): the index after
 * that one, whose outcome the batches before it share; or `count` once
 * the rest are committed (or not, together). */
static int apply_group(store *s, store_batch *const *batches, int first, int count, int *rcs)
{
    int rc = store_begin(s);
    for (int b = first; b < count; b++) {
        if (rc != STORE_OK) {
            rcs[b] = rc;
            continue;
        }
        int part = store_part_begin(s);
        rcs[b] = store_part_end(s, part == STORE_OK ? apply_records(s, batches[b]) : part);
        if (!store_is_in_transaction(s)) { /* everything since BEGIN is undone */
            int lost = rcs[b] != STORE_OK ? rcs[b] : STORE_E_INTERNAL;
            for (int before = first; before <= b; before++)
                rcs[before] = lost;
            return b + 1;
        }
    }
    if (rc == STORE_OK) {
        rc = store_commit(s); /* a failed commit rolls back */
        for (int b = first; b < count; b++)
            if (rcs[b] == STORE_OK)
                rcs[b] = rc;
    }
    return count;
}

/* Whether every record of `batch` may be applied again after a rollback
 * undid it: its outputs are written afresh, never added to. A guest sweep
 * moves its cursor on, and a loading lookup fills lists it allocates, so
 * their groups are stored once, each batch in its savepoint. */
static bool is_safe_to_redo(const store_batch *batch)
{
    for (int i = 0; i < batch->count; i++) {
        store_record_kind kind = batch->records[i].kind;
        if (kind == STORE_RECORD_GUESTS_EXPIRE || kind == STORE_RECORD_ROOMS_TAKE ||
            kind == STORE_RECORD_FIND_UNFINISHED || kind == STORE_RECORD_FIND_TOURNAMENTS)
            return false;
    }
    return true;
}

/* The whole group as one transaction without a savepoint per batch, on
 * PostgreSQL in one pipeline: every statement sent without waiting but
 * where a result is read, one round trip for the commit. Whether the whole
 * group was stored. When a batch fails -- a refusal the code reads, or a
 * statement the server refuses (after which a pipeline sends nothing
 * more) -- nothing of the group is kept, and the caller does it again with
 * a savepoint per batch to learn which failed. A refusal is rare (the
 * lobby checks first), and two statements a batch are saved (SQLite: about
 * 1 µs of the writer's ~30 a move at full speed). */
static bool apply_whole(store *s, store_batch *const *batches, int count, int *rcs)
{
    for (int b = 0; b < count; b++)
        if (!is_safe_to_redo(batches[b]))
            return false;
    bool is_pipelined = s->pg && store_pipeline_begin(s) == STORE_OK;
    if (s->pg && !is_pipelined)
        return false;
    bool is_whole = store_begin(s) == STORE_OK;
    for (int b = 0; is_whole && b < count; b++)
        is_whole = (rcs[b] = apply_records(s, batches[b])) == STORE_OK;
    if (is_whole)
        is_whole = store_commit(s) == STORE_OK;
    if (is_pipelined && store_pipeline_end(s) != STORE_OK)
        is_whole = false;
    if (!is_whole)
        store_rollback(s); /* the transaction the group left open, if any */
    return is_whole;
}

/* Batches in one transaction: whole where it can be, else each batch in
 * its savepoint. */
static void apply_batches(store *s, store_batch *const *batches, int count, int *rcs)
{
    if (apply_whole(s, batches, count, rcs))
        return;
    for (int first = 0; first < count;)
        first = apply_group(s, batches, first, count, rcs);
}

/* Whether `batch` is stored in a transaction of its own: on PostgreSQL,
 * one that rates a game (see the header comment). */
static bool is_alone(const store *s, const store_batch *batch)
{
    for (int i = 0; s->pg && i < batch->count; i++)
        if (batch->records[i].kind == STORE_RECORD_GAME_RESULT)
            return true;
    return false;
}

void store_batches_apply(store *s, store_batch *const *batches, int count, int *rcs)
{
    if (is_lookups_only(batches, count)) {
        for (int b = 0; b < count; b++)
            rcs[b] = apply_records(s, batches[b]);
        return;
    }
    for (int first = 0; first < count;) {
        int end = first + 1;
        while (!is_alone(s, batches[first]) && end < count && !is_alone(s, batches[end]))
            end++;
        apply_batches(s, batches + first, end - first, rcs + first);
        first = end;
    }
}

int store_batch_apply(store *s, store_batch *batch)
{
    int rc;
    store_batches_apply(s, &batch, 1, &rc);
    return rc;
}

/* The caller's-thread port: the batch is one transaction, answered before
 * submit returns. */
static int caller_submit(void *context, store_batch *batch, store_done *done, void *done_context)
{
    done(done_context, store_batch_apply(context, batch), batch);
    return STORE_OK;
}

store_port store_port_of(store *s)
{
    return (store_port){s, caller_submit};
}
