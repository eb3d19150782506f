/* store_tournaments.c -- the tournaments, tournament_entries and
 * tournament_games tables.
 *
 * A tournament row says what was asked for; its entries carry the
 * standings, which the lobby updates in the transaction that stores each
 * game's result, so standings and results never disagree; its schedule is
 * one row per game, written when the game is planned (all at creation for
 * round-robin and fixed formats, a round at a time for Swiss). Which game
 * row plays a scheduled game is found through games.tournament_game: the
 * newest row wins, so a game aborted by a restart is simply played again.
 * Loading a tournament reads all three, which is what a restart needs to
 * carry it on and what its REST page shows. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/store_internal.h"

const store_statement_text STORE_TOURNAMENT_STATEMENTS[] = {
    {STORE_SQL_TOURNAMENT_INSERT,
     "INSERT INTO tournaments (name, game, mode, format, settings, seed, status, arena, created_at,"
     " created_by) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8, nullif(?9, 0))"},
    {STORE_SQL_TOURNAMENT_ENTRY_INSERT, "INSERT INTO tournament_entries (tournament_id, entry, "
                                        "player_id, bot) VALUES (?1, ?2, ?3, ?4)"},
    {STORE_SQL_TOURNAMENT_GAME_INSERT,
     "INSERT INTO tournament_games (tournament_id, number, round, seats) VALUES (?1, ?2, ?3, ?4)"},
    {STORE_SQL_TOURNAMENT_STANDING_ADD,
     "UPDATE tournament_entries SET points = points + ?3, games = games + ?6, wins = wins + ?4,"
     " score_total = score_total + ?5 WHERE tournament_id = ?1 AND entry = ?2"},
    {STORE_SQL_TOURNAMENT_FINISH, "UPDATE tournaments SET status = 'finished', finished_at = ?2"
                                  " WHERE id = ?1 AND status = 'running'"},
    {STORE_SQL_TOURNAMENT_CANCEL,
     "UPDATE tournaments SET status = 'finished', finished_at = ?2, cancelled_at = ?2"
     " WHERE id = ?1 AND status = 'running'"},
    {STORE_SQL_TOURNAMENT_INVITE,
     "INSERT INTO tournament_invitations (invitee_id, inviter_id, created_at) VALUES (?2, ?1, ?3)"
     " ON CONFLICT DO NOTHING"},
    {STORE_SQL_TOURNAMENT_INVITATION_ACCEPT,
     "UPDATE tournament_invitations SET accepted = 1 WHERE invitee_id = ?2 AND inviter_id = ?1"},
    {STORE_SQL_TOURNAMENT_INVITATION_USE, "DELETE FROM tournament_invitations WHERE invitee_id = ?2"
                                          " AND inviter_id = ?1 AND accepted = 1"},
    {STORE_SQL_TOURNAMENTS_RUNNING,
     "SELECT id FROM tournaments WHERE status = 'running' ORDER BY id"},
    {STORE_SQL_TOURNAMENT_BY_ID,
     "SELECT name, game, mode, format, settings, seed, status, arena, created_at, finished_at,"
     " coalesce(created_by, 0), cancelled_at IS NOT NULL FROM tournaments WHERE id = ?1"},
    {STORE_SQL_TOURNAMENT_ENTRIES,
     "SELECT e.entry, e.player_id, p.name, p.is_bot, e.bot, e.points, e.games, e.wins,"
     " e.score_total FROM tournament_entries AS e JOIN players AS p ON p.id = e.player_id"
     " WHERE e.tournament_id = ?1 ORDER BY e.entry"},
    {STORE_SQL_TOURNAMENT_SCHEDULE,
     "SELECT t.number, t.round, t.seats, g.id, g.status, g.room FROM tournament_games AS t"
     " LEFT JOIN games AS g ON g.id = (SELECT max(id) FROM games WHERE tournament_id ="
     " t.tournament_id AND tournament_game = t.number) WHERE t.tournament_id = ?1"
     " ORDER BY t.number"},
    {STORE_SQL_ARENA_LAST_START, "SELECT max(created_at) FROM tournaments WHERE arena = ?1"},
    {STORE_SQL_READ_TOURNAMENTS,
     "SELECT id, name, game, mode, format, status, arena, created_at, finished_at,"
     " cancelled_at IS NOT NULL FROM tournaments WHERE id < ?1 ORDER BY id DESC LIMIT ?2"},
    {STORE_SQL_COUNT, NULL},
};

static int insert_tournament(store *storage, const store_tournament_info *info, int64_t *id)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_INSERT];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, info->name, &bound);
    store_bind_text(stmt, 2, info->game, &bound);
    store_bind_text(stmt, 3, info->mode, &bound);
    store_bind_text(stmt, 4, info->format, &bound);
    store_bind_text(stmt, 5, info->settings, &bound);
    store_bind_int64(stmt, 6, store_seed_to_column(info->seed), &bound);
    store_bind_text(stmt, 7, info->arena, &bound);
    store_bind_int64(stmt, 8, info->created_at_ms, &bound);
    store_bind_int64(stmt, 9, info->created_by, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK)
        *id = store_last_insert_id(storage);
    return rc;
}

static int insert_entry(store *storage, int64_t id, int entry, store_tournament_entry *from)
{
    if (!from->player_id && from->bot_entry) {
        int rc = store_builtin_player(storage, from->bot_entry, &from->player_id);
        if (rc != STORE_OK)
            return rc;
    }
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_ENTRY_INSERT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, id, &bound);
    store_bind_int64(stmt, 2, entry, &bound);
    store_bind_int64(stmt, 3, from->player_id, &bound);
    store_bind_text(stmt, 4, from->bot, &bound);
    return store_execute(stmt, bound);
}

int store_tournament_create(store *storage, const store_tournament_info *info, int entry_count,
                            store_tournament_entry *entries, int64_t *id)
{
    if (!info->name || !info->game || !info->mode || !info->format || !info->settings ||
        entry_count < 2)
        return STORE_E_INVALID;
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    if (rc == STORE_OK)
        rc = insert_tournament(storage, info, id);
    for (int entry = 0; rc == STORE_OK && entry < entry_count; entry++)
        rc = insert_entry(storage, *id, entry, &entries[entry]);
    return store_join_end(storage, is_own, rc);
}

int store_tournament_schedule(store *storage, int64_t tournament_id, int number, int round,
                              int seat_count, const int *entries)
{
    if (seat_count < 1 || seat_count > STORE_MAX_SEATS)
        return STORE_E_INVALID;
    char seats[64];
    size_t length = (size_t)snprintf(seats, sizeof(seats), "[");
    for (int seat = 0; seat < seat_count; seat++)
        length += (size_t)snprintf(seats + length, sizeof(seats) - length, "%s%d", seat ? "," : "",
                                   entries[seat]);
    snprintf(seats + length, sizeof(seats) - length, "]");
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_GAME_INSERT];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, tournament_id, &bound);
    store_bind_int64(stmt, 2, number, &bound);
    store_bind_int64(stmt, 3, round, &bound);
    store_bind_text(stmt, 4, seats, &bound);
    return store_execute(stmt, bound);
}

int store_tournament_result(store *storage, int64_t tournament_id, int count,
                            const store_standing_change *changes)
{
    bool is_own;
    int rc = store_join_begin(storage, &is_own);
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_STANDING_ADD];
    for (int i = 0; rc == STORE_OK && i < count; i++) {
        int bound = STORE_OK;
        store_bind_int64(stmt, 1, tournament_id, &bound);
        store_bind_int64(stmt, 2, changes[i].entry, &bound);
        store_bind_double(stmt, 3, changes[i].points, &bound);
        store_bind_int64(stmt, 4, changes[i].is_winner, &bound);
        store_bind_int64(stmt, 5, changes[i].score, &bound);
        store_bind_int64(stmt, 6, changes[i].games, &bound);
        rc = store_execute(stmt, bound);
        if (rc == STORE_OK && store_changes(storage) == 0)
            rc = STORE_E_NOT_FOUND;
    }
    return store_join_end(storage, is_own, rc);
}

/* Ends a running tournament with `statement` (finish or cancel). */
static int end_tournament(store *storage, store_statement_id statement, int64_t tournament_id,
                          int64_t at_ms)
{
    store_stmt *stmt = &storage->statements[statement];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, tournament_id, &bound);
    store_bind_int64(stmt, 2, at_ms, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && store_changes(storage) == 0)
        rc = STORE_E_CONSTRAINT;
    return rc;
}

int store_tournament_finish(store *storage, int64_t tournament_id, int64_t at_ms)
{
    return end_tournament(storage, STORE_SQL_TOURNAMENT_FINISH, tournament_id, at_ms);
}

int store_tournament_cancel(store *storage, int64_t tournament_id, int64_t at_ms)
{
    return end_tournament(storage, STORE_SQL_TOURNAMENT_CANCEL, tournament_id, at_ms);
}

/* Runs an invitation statement on (inviter, invitee[, at]): STORE_E_NOT_FOUND
 * when `must_change` and no row changed. */
static int invitation(store *storage, store_statement_id statement, int64_t inviter_id,
                      int64_t invitee_id, int64_t at_ms, bool must_change)
{
    store_stmt *stmt = &storage->statements[statement];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, inviter_id, &bound);
    store_bind_int64(stmt, 2, invitee_id, &bound);
    if (statement == STORE_SQL_TOURNAMENT_INVITE)
        store_bind_int64(stmt, 3, at_ms, &bound);
    int rc = store_execute(stmt, bound);
    if (rc == STORE_OK && must_change && store_changes(storage) == 0)
        rc = STORE_E_NOT_FOUND;
    return rc;
}

int store_tournament_invite(store *storage, int64_t inviter_id, int64_t invitee_id, int64_t at_ms)
{
    if (inviter_id == invitee_id)
        return STORE_E_INVALID;
    return invitation(storage, STORE_SQL_TOURNAMENT_INVITE, inviter_id, invitee_id, at_ms, false);
}

int store_tournament_invitation_accept(store *storage, int64_t inviter_id, int64_t invitee_id)
{
    return invitation(storage, STORE_SQL_TOURNAMENT_INVITATION_ACCEPT, inviter_id, invitee_id, 0,
                      true);
}

int store_tournament_invitation_use(store *storage, int64_t inviter_id, int64_t invitee_id)
{
    return invitation(storage, STORE_SQL_TOURNAMENT_INVITATION_USE, inviter_id, invitee_id, 0,
                      true);
}

const char *store_tournament_status(bool is_finished, bool is_cancelled)
{
    return is_cancelled ? "cancelled" : is_finished ? "finished" : "running";
}

int store_tournaments_running(store *storage, int64_t **ids, int *count)
{
    return store_collect_ids(&storage->statements[STORE_SQL_TOURNAMENTS_RUNNING], ids, count);
}

int store_arena_last_start(store *storage, const char *arena, int64_t *at_ms)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_ARENA_LAST_START];
    int bound = STORE_OK;
    store_bind_text(stmt, 1, arena, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK && store_column_is_null(stmt, 0))
        rc = STORE_E_NOT_FOUND;
    else if (rc == STORE_OK)
        *at_ms = store_column_int64(stmt, 0);
    store_statement_reset(stmt);
    return rc;
}

static int read_tournament(store *storage, store_tournament_record *record)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_BY_ID];
    int bound = STORE_OK;
    store_bind_int64(stmt, 1, record->id, &bound);
    int rc = store_step_row(stmt, bound);
    if (rc == STORE_OK) {
        store_tournament_info *info = &record->info;
        info->name = store_column_strdup(stmt, 0, &rc);
        info->game = store_column_strdup(stmt, 1, &rc);
        info->mode = store_column_strdup(stmt, 2, &rc);
        info->format = store_column_strdup(stmt, 3, &rc);
        info->settings = store_column_strdup(stmt, 4, &rc);
        info->seed = store_seed_from_column(store_column_int64(stmt, 5));
        record->is_finished = strcmp(store_column_text(stmt, 6), "finished") == 0;
        info->arena = store_column_strdup(stmt, 7, &rc);
        info->created_at_ms = store_column_int64(stmt, 8);
        record->finished_at_ms = store_column_is_null(stmt, 9) ? -1 : store_column_int64(stmt, 9);
        info->created_by = store_column_int64(stmt, 10);
        record->is_cancelled = store_column_int(stmt, 11) != 0;
    }
    store_statement_reset(stmt);
    return rc;
}

/* Grows an array of `size`-byte items to hold one more: 0 or NOMEM. */
static int grow(void **items, int count, size_t size)
{
    if (count & (count - 1)) /* capacities are powers of two: not full */
        return STORE_OK;
    void *larger = realloc(*items, size * (size_t)(count ? 2 * count : 1));
    if (!larger)
        return STORE_E_NOMEM;
    *items = larger;
    return STORE_OK;
}

static int read_entries(store *storage, store_tournament_record *record)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_ENTRIES];
    int bound = STORE_OK, rc;
    store_bind_int64(stmt, 1, record->id, &bound);
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        rc = grow((void **)&record->entries, record->entry_count, sizeof(*record->entries));
        if (rc != STORE_OK)
            break;
        store_standing *entry = &record->entries[record->entry_count++];
        entry->entry = store_column_int(stmt, 0);
        entry->player_id = store_column_int64(stmt, 1);
        store_column_copy(stmt, 2, entry->name, sizeof(entry->name));
        entry->is_bot = store_column_int(stmt, 3) != 0;
        store_column_copy(stmt, 4, entry->bot, sizeof(entry->bot));
        entry->points = store_column_double(stmt, 5);
        entry->games = store_column_int64(stmt, 6);
        entry->wins = store_column_int64(stmt, 7);
        entry->score_total = store_column_int64(stmt, 8);
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

/* "[2,0,1]" into seats[]: 0, or STORE_E_CORRUPT. */
static int parse_seats(const char *text, store_scheduled_game *game)
{
    game->seat_count = 0;
    if (!text || *text++ != '[')
        return STORE_E_CORRUPT;
    while (*text && *text != ']' && game->seat_count < STORE_MAX_SEATS) {
        char *end;
        long entry = strtol(text, &end, 10);
        if (end == text || entry < 0 || entry > 1000000)
            return STORE_E_CORRUPT;
        game->seats[game->seat_count++] = (int)entry;
        text = *end == ',' ? end + 1 : end;
    }
    return *text == ']' && game->seat_count > 0 ? STORE_OK : STORE_E_CORRUPT;
}

static int read_schedule(store *storage, store_tournament_record *record)
{
    store_stmt *stmt = &storage->statements[STORE_SQL_TOURNAMENT_SCHEDULE];
    int bound = STORE_OK, rc;
    store_bind_int64(stmt, 1, record->id, &bound);
    while ((rc = store_step_row(stmt, bound)) == STORE_OK) {
        rc = grow((void **)&record->games, record->game_count, sizeof(*record->games));
        if (rc != STORE_OK)
            break;
        store_scheduled_game *game = &record->games[record->game_count++];
        memset(game, 0, sizeof(*game));
        game->number = store_column_int(stmt, 0);
        game->round = store_column_int(stmt, 1);
        rc = parse_seats(store_column_text(stmt, 2), game);
        game->game_id = store_column_int64(stmt, 3);
        if (rc == STORE_OK && game->game_id)
            rc = store_game_status_parse(store_column_text(stmt, 4), &game->status);
        store_column_copy(stmt, 5, game->room, sizeof(game->room));
        if (rc != STORE_OK)
            break;
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND ? STORE_OK : rc;
}

int store_tournament_load(store *storage, int64_t id, store_tournament_record **out)
{
    store_tournament_record *record = calloc(1, sizeof(*record));
    if (!record)
        return STORE_E_NOMEM;
    record->id = id;
    int rc = read_tournament(storage, record);
    if (rc == STORE_OK)
        rc = read_entries(storage, record);
    if (rc == STORE_OK)
        rc = read_schedule(storage, record);
    if (rc != STORE_OK) {
        store_tournament_record_free(record);
        return rc;
    }
    *out = record;
    return STORE_OK;
}

void store_tournament_record_free(store_tournament_record *record)
{
    if (!record)
        return;
    free((char *)record->info.name);
    free((char *)record->info.game);
    free((char *)record->info.mode);
    free((char *)record->info.format);
    free((char *)record->info.settings);
    free((char *)record->info.arena);
    free(record->entries);
    free(record->games);
    free(record);
}

int store_read_tournaments(store *reader, int64_t before_id, int limit,
                           store_tournament_summary *items, int *count)
{
    store_stmt *stmt = &reader->statements[STORE_SQL_READ_TOURNAMENTS];
    int bound = STORE_OK, rc = STORE_OK;
    store_bind_int64(stmt, 1, before_id, &bound);
    store_bind_int64(stmt, 2, limit, &bound);
    *count = 0;
    while (*count < limit && (rc = store_step_row(stmt, bound)) == STORE_OK) {
        store_tournament_summary *item = &items[(*count)++];
        item->id = store_column_int64(stmt, 0);
        store_column_copy(stmt, 1, item->name, sizeof(item->name));
        store_column_copy(stmt, 2, item->game, sizeof(item->game));
        store_column_copy(stmt, 3, item->mode, sizeof(item->mode));
        store_column_copy(stmt, 4, item->format, sizeof(item->format));
        item->is_finished = strcmp(store_column_text(stmt, 5), "finished") == 0;
        store_column_copy(stmt, 6, item->arena, sizeof(item->arena));
        item->created_at_ms = store_column_int64(stmt, 7);
        item->finished_at_ms = store_column_is_null(stmt, 8) ? -1 : store_column_int64(stmt, 8);
        item->is_cancelled = store_column_int(stmt, 9) != 0;
    }
    store_statement_reset(stmt);
    return rc == STORE_E_NOT_FOUND || *count == limit ? STORE_OK : rc;
}
