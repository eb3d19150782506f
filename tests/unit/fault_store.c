/* fault_store.c -- the failing store port of fault_store.h. */
#include "tests/unit/fault_store.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct fault_store faults;

/* Whether this write of `kind` is the one to fail. */
static bool fails(fault_write kind)
{
    bool counts = faults.fail_kind == FAULT_ANY_WRITE || faults.fail_kind == kind;
    if (!counts)
        return false;
    if (faults.is_failing_always || (faults.fail_write_in > 0 && --faults.fail_write_in == 0)) {
        faults.failures++;
        return true;
    }
    return false;
}

void fault_store_heal(void)
{
    faults.fail_write_in = 0;
    faults.fail_kind = FAULT_ANY_WRITE;
    faults.is_failing_always = false;
    faults.is_failing_commit = false;
    faults.is_holding = false;
    faults.hold_game_id = 0;
    faults.is_answering_lookups = false;
    faults.is_holding_kind = false;
}

/* ---- the port: records ----------------------------------------------------- */

/* Whether one of the writes `record` makes is the one to fail: each record
 * counts as the writes it stands for, in their order. */
static bool record_fails(const store_record *record)
{
    switch (record->kind) {
    case STORE_RECORD_PLAYER_CREATE:
        return fails(FAULT_PLAYER_CREATE);
    case STORE_RECORD_ACCOUNT_CREATE:
        return fails(FAULT_ACCOUNT_CREATE);
    case STORE_RECORD_ACCOUNT_CLAIM:
        return fails(FAULT_ACCOUNT_CLAIM);
    case STORE_RECORD_TOKEN_SET:
        return fails(FAULT_PLAYER_TOKEN_SET);
    case STORE_RECORD_GAME_CREATE:
        return fails(FAULT_GAME_CREATE);
    case STORE_RECORD_SEAT:
        return (record->seat.bot_entry[0] && fails(FAULT_BUILTIN_PLAYER)) || fails(FAULT_SEAT_SET);
    case STORE_RECORD_GAME_START:
        return fails(FAULT_GAME_START);
    case STORE_RECORD_MOVE:
        return fails(FAULT_MOVE_APPEND);
    case STORE_RECORD_GAME_ABORT:
        return fails(FAULT_GAME_FINISH);
    case STORE_RECORD_TOURNAMENT_CREATE:
        for (int i = 0; i < record->created.entry_count; i++)
            if (record->created.entries[i].bot_entry && fails(FAULT_BUILTIN_PLAYER))
                return true;
        return fails(FAULT_TOURNAMENT);
    case STORE_RECORD_TOURNAMENT_RESULT:
    case STORE_RECORD_TOURNAMENT_SCHEDULE:
    case STORE_RECORD_TOURNAMENT_FINISH:
    case STORE_RECORD_TOURNAMENT_CANCEL:
    case STORE_RECORD_INVITATION_SEND:
    case STORE_RECORD_INVITATION_ACCEPT:
    case STORE_RECORD_INVITATION_USE:
        return fails(FAULT_TOURNAMENT);
    case STORE_RECORD_REEF_RUN:
        return fails(FAULT_REEF_RUN_ADD);
    case STORE_RECORD_BOT_ACCOUNT_CREATE:
    case STORE_RECORD_BOT_KEY_SET:
    case STORE_RECORD_BOT_OPEN_SET:
        return fails(FAULT_BOT_ACCOUNT);
    case STORE_RECORD_GUESTS_EXPIRE:
        return fails(FAULT_GUESTS_EXPIRE);
    case STORE_RECORD_LEASES_RENEW:
    case STORE_RECORD_ROOMS_TAKE:
        return fails(FAULT_LEASE);
    case STORE_RECORD_NOTIFY:
        return fails(FAULT_NOTIFY);
    case STORE_RECORD_FIND_LEASE:
    case STORE_RECORD_FIND_PLAYER:
    case STORE_RECORD_FIND_RATING:
    case STORE_RECORD_FIND_ARENA_START:
    case STORE_RECORD_FIND_ACCOUNT:
    case STORE_RECORD_FIND_UNFINISHED:
    case STORE_RECORD_FIND_TOURNAMENTS:
        return faults.fail_kind == FAULT_LOOKUP && fails(FAULT_LOOKUP);
    case STORE_RECORD_GAME_RESULT:
        break;
    }
    const store_record_result *result = &record->result;
    if (fails(FAULT_GAME_FINISH))
        return true;
    bool is_rated = result->pool[0] && result->seat_count >= 2;
    for (int seat = 0; seat < result->seat_count; seat++) {
        const store_result_seat *holder = &result->seats[seat];
        is_rated = is_rated && (holder->player_id || holder->bot_entry[0]);
        if (is_rated && holder->bot_entry[0] && fails(FAULT_BUILTIN_PLAYER))
            return true;
    }
    for (int seat = 0; is_rated && seat < result->seat_count; seat++)
        if (fails(FAULT_RATING_RECORD))
            return true;
    for (int seat = 0; result->has_reef_runs && seat < result->seat_count; seat++)
        if (result->seats[seat].player_id && fails(FAULT_REEF_RUN_ADD))
            return true;
    return false;
}

/* An answer held back while faults.is_holding. */
struct held_answer {
    store_done *done;
    void *context;
    store_batch *batch;
    int rc;
};

static struct held_answer held[64];

/* The stored game a record belongs to (0 for a player row, an account or
 * any tournament record). */
static int64_t game_of(const store_record *record)
{
    switch (record->kind) {
    case STORE_RECORD_PLAYER_CREATE:
    case STORE_RECORD_ACCOUNT_CREATE:
    case STORE_RECORD_ACCOUNT_CLAIM:
    case STORE_RECORD_TOKEN_SET:
        break;
    case STORE_RECORD_GAME_CREATE:
        return record->game.id; /* known by now: the batch was stored before it is held */
    case STORE_RECORD_SEAT:
        return record->seat.game_id;
    case STORE_RECORD_GAME_START:
    case STORE_RECORD_GAME_ABORT:
        return record->game_id;
    case STORE_RECORD_MOVE:
        return record->move.game_id;
    case STORE_RECORD_GAME_RESULT:
        return record->result.game_id;
    case STORE_RECORD_TOURNAMENT_RESULT:
    case STORE_RECORD_TOURNAMENT_SCHEDULE:
    case STORE_RECORD_TOURNAMENT_FINISH:
    case STORE_RECORD_REEF_RUN:
    case STORE_RECORD_BOT_ACCOUNT_CREATE:
    case STORE_RECORD_BOT_KEY_SET:
    case STORE_RECORD_BOT_OPEN_SET:
    case STORE_RECORD_GUESTS_EXPIRE:
    case STORE_RECORD_LEASES_RENEW:
    case STORE_RECORD_ROOMS_TAKE:
    case STORE_RECORD_NOTIFY:
    case STORE_RECORD_FIND_LEASE:
    case STORE_RECORD_FIND_PLAYER:
    case STORE_RECORD_FIND_RATING:
    case STORE_RECORD_FIND_ARENA_START:
    case STORE_RECORD_FIND_ACCOUNT:
    case STORE_RECORD_FIND_UNFINISHED:
    case STORE_RECORD_FIND_TOURNAMENTS:
    case STORE_RECORD_TOURNAMENT_CREATE:
    case STORE_RECORD_TOURNAMENT_CANCEL:
    case STORE_RECORD_INVITATION_SEND:
    case STORE_RECORD_INVITATION_ACCEPT:
    case STORE_RECORD_INVITATION_USE:
        break;
    }
    return 0;
}

static bool is_held(const store_batch *batch)
{
    if (!faults.is_holding)
        return false;
    if (faults.is_holding_kind)
        return batch->count > 0 && batch->records[0].kind == faults.hold_kind;
    if (faults.is_answering_lookups && batch->count > 0 &&
        store_record_is_lookup(batch->records[0].kind))
        return false;
    bool is_of_no_game = true;
    for (int i = 0; i < batch->count; i++) {
        int64_t game = game_of(&batch->records[i]);
        if (!faults.hold_game_id || (game && game == faults.hold_game_id))
            return true;
        is_of_no_game = is_of_no_game && !game;
    }
    return faults.hold_game_id == FAULT_HOLD_NO_GAME && is_of_no_game;
}

/* Committed notices, a ring: more than fit before a test reads them is a
 * test that forgot to. */
static char *notices[256];
static int notice_first, notice_count;

static void keep_notices(const store_batch *batch)
{
    for (int i = 0; i < batch->count; i++) {
        if (batch->records[i].kind != STORE_RECORD_NOTIFY)
            continue;
        assert(notice_count < (int)(sizeof(notices) / sizeof(notices[0])));
        int at = (notice_first + notice_count++) % (int)(sizeof(notices) / sizeof(notices[0]));
        notices[at] = strdup(batch->records[i].notice);
        assert(notices[at]);
    }
}

char *fault_store_next_notice(void)
{
    if (notice_count == 0)
        return NULL;
    char *notice = notices[notice_first];
    notice_first = (notice_first + 1) % (int)(sizeof(notices) / sizeof(notices[0]));
    notice_count--;
    return notice;
}

static int fault_submit(void *context, store_batch *batch, store_done *done, void *done_context)
{
    store *real = context;
    int rc = store_begin(real);
    if (rc == STORE_OK) {
        for (int i = 0; rc == STORE_OK && i < batch->count; i++) {
            rc = record_fails(&batch->records[i]) ? STORE_E_IO
                                                  : store_record_apply(real, &batch->records[i]);
            faults.writes += rc == STORE_OK && !store_record_is_lookup(batch->records[i].kind);
        }
        if (rc == STORE_OK && faults.is_failing_commit) {
            faults.is_failing_commit = false;
            faults.failures++;
            rc = STORE_E_IO;
        }
        if (rc == STORE_OK)
            rc = store_commit(real);
        else
            store_rollback(real);
        if (rc == STORE_OK)
            keep_notices(batch);
    }
    if (is_held(batch) && faults.held_count < (int)(sizeof(held) / sizeof(held[0]))) {
        held[faults.held_count++] = (struct held_answer){done, done_context, batch, rc};
        return STORE_OK;
    }
    done(done_context, rc, batch);
    return STORE_OK;
}

store_port fault_store_port(store *real)
{
    fault_store_heal();
    char *left;
    while ((left = fault_store_next_notice()))
        free(left); /* an earlier test's */
    faults.real = real;
    faults.writes = 0;
    faults.failures = 0;
    return (store_port){real, fault_submit};
}

const store_batch *fault_store_held(int index)
{
    return index >= 0 && index < faults.held_count ? held[index].batch : NULL;
}

int fault_store_release(void)
{
    int count = faults.held_count;
    faults.is_holding = false;
    faults.is_holding_kind = false;
    faults.hold_game_id = 0;
    faults.held_count = 0;
    struct held_answer answers[sizeof(held) / sizeof(held[0])];
    memcpy(answers, held, sizeof(answers[0]) * (size_t)count);
    for (int i = 0; i < count; i++)
        answers[i].done(answers[i].context, answers[i].rc, answers[i].batch);
    return count;
}
