/* rebuild.c -- the replay of rebuild.h, and lobby_verify_game. */
#include "lobby/rebuild.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/action_record.h"
#include "lobby/game_wire.h"
#include "lobby/match_records.h"
#include "lobby/lobby_internal.h"

/* The owner is not stored: the seats and the start are replayed on the
 * rules' own authority, by a member that owns the match while it is
 * rebuilt (player keys count up from 1 and never reach it). */
#define REBUILDER UINT64_MAX

struct replay {
    match *state;
    rebuild_visitor visit;
    void *context;
    const store_move *stored; /* the log entry being replayed; NULL before the log */
};

static int step(struct replay *replay, const match_event *event, protocol_failure *failure)
{
    match next;
    match_effects effects;
    int rc = match_apply(replay->state, event, &next, &effects, failure);
    if (rc != 0)
        return rc;
    *replay->state = next;
    for (int i = 0; replay->visit && replay->stored && i < effects.publish_count; i++) {
        match_publish_kind kind = effects.publishes[i].kind;
        if (kind == MATCH_PUBLISH_MOVED || kind == MATCH_PUBLISH_RESIGNED)
            replay->visit(replay->context, &effects.publishes[i], replay->stored, replay->state);
    }
    return 0;
}

static int options_of(const store_game_record *record, game_options *options,
                      protocol_failure *failure)
{
    json_t *options_json = json_loads(record->info.options, 0, NULL);
    int rc =
        game_wire_options_from_json(options_json, record->info.game, record->info.mode, options);
    json_decref(options_json);
    /* A race closes its seats up at the start: it may have stored fewer. */
    bool is_seat_count_right =
        options->kind == GAME_REEF
            ? record->seat_count >= 1 && record->seat_count <= options->seat_count
            : record->seat_count == options->seat_count;
    if (rc != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "its options do not read back");
    if (!is_seat_count_right)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "it has %d seats stored",
                             record->seat_count);
    return 0;
}

static int replay_seats(struct replay *replay, const store_game_record *record,
                        protocol_failure *failure)
{
    for (int i = 0; i < record->seat_count; i++) {
        const store_seat *stored = &record->seats[i];
        match_event event = {.now_ms = record->started_at_ms, .seat = stored->seat};
        if (stored->bot[0]) {
            event.kind = MATCH_EVENT_ADD_BOT;
            event.member = REBUILDER;
            event.bot = stored->bot;
        } else {
            event.kind = MATCH_EVENT_JOIN;
            event.player_id = stored->player_id;
        }
        int rc = step(replay, &event, failure);
        if (rc != 0)
            return rc;
    }
    match_event start = {
        .kind = MATCH_EVENT_START, .now_ms = record->started_at_ms, .member = REBUILDER};
    return step(replay, &start, failure);
}

static int replay_log(struct replay *replay, const store_game_record *record,
                      protocol_failure *failure)
{
    match *state = replay->state;
    for (int i = 0; i < record->move_count; i++) {
        const store_move *stored = &record->moves[i];
        replay->stored = stored;
        match_event event = {.kind = MATCH_EVENT_RECORD,
                             .now_ms = stored->at_ms,
                             .seat = stored->seat,
                             .ply = stored->ply};
        bool is_seat = stored->seat >= 0 && stored->seat < state->options.seat_count;
        if (!is_seat ||
            action_record_parse(state->options.kind, stored->action, &event.record) != 0)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "move %d does not read back", i);
        int rc = step(replay, &event, failure);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int rebuild_match(const store_game_record *record, const match_config *config, match *out,
                  rebuild_visitor visit, void *context, protocol_failure *failure)
{
    game_options options;
    int rc = options_of(record, &options, failure);
    if (rc != 0)
        return rc;
    match_init(out, config, &options, REBUILDER);
    struct replay replay = {out, visit, context, NULL};
    rc = replay_seats(&replay, record, failure);
    if (rc == 0)
        rc = replay_log(&replay, record, failure);
    out->owner = 0;
    return rc;
}

match_config rebuild_default_config(void)
{
    lobby_config defaults = lobby_default_config();
    return lobby_match_config(&defaults);
}

int lobby_verify_game(const store_game_record *record, char *problem, size_t size)
{
    if (record->status != STORE_GAME_FINISHED && record->status != STORE_GAME_PLAYING)
        return 0; /* waiting or aborted: nothing was played that counts */
    match_config config = rebuild_default_config();
    match rebuilt;
    protocol_failure failure;
    if (rebuild_match(record, &config, &rebuilt, NULL, NULL, &failure) != 0) {
        snprintf(problem, size, "does not replay: %s", failure.message);
        return 1;
    }
    if (record->status == STORE_GAME_PLAYING)
        return 0;
    if (!game_is_over(&rebuilt.game)) {
        snprintf(problem, size, "is stored as finished but its moves do not end it");
        return 1;
    }
    char *result = match_records_result_text(&rebuilt);
    bool is_same = result && record->result && strcmp(result, record->result) == 0;
    if (!is_same)
        snprintf(problem, size, "stored result %s, replayed %s",
                 record->result ? record->result : "none", result ? result : "none");
    free(result);
    return is_same ? 0 : 1;
}
