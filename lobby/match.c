/* match.c -- one room's rules: events in, next state and effects out.
 *
 * Every handler works on `next`, a copy of the state, and appends effects;
 * a refusal returns before any effect matters (the caller drops both).
 * After a handler, settle() brings a game under way to rest: a game that
 * is over is finished (result stored, final state, game.over); a 3p turn
 * of the shared color that falls to a resigned seat is passed at once, in
 * the same event, so no published state ever shows a resigned seat to
 * move; otherwise the new state is published once. Then schedule() says
 * which bot move the room waits for and when it wants to be woken up.
 *
 * Clocks: a seat's turn starts when it becomes able to move (or, for the
 * seat that just moved and may move again, at its move). Recording a turn
 * charges the time since then, floored at 0, and adds the increment;
 * resigning or leaving charges nothing. A seat a bot plays is never
 * flagged: its bot answers by its deadline, and is charged what it took.
 * A player's move is judged at the time in its event, when the server
 * read it: one that comes at or after the flag is refused (out_of_time),
 * whether or not the timer has played the timeout yet. A seat whose turns
 * time out MATCH_TIMEOUTS_TO_RESIGN times in a row resigns instead of
 * getting the policy's move, so every game ends in a bounded number of
 * plies: between two moves of its own a seat times out at most that often,
 * and its own moves (pieces, a Reef board's turns) are bounded.
 *
 * Replaying stored records (MATCH_EVENT_RECORD) goes through the same
 * functions with one difference: nothing is played automatically, since
 * the automatic moves of the original run are in the log themselves. */
#include "lobby/match.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

#define STAND_IN_BOT "greedy"

static const char *const STATUS_NAMES[] = {"waiting", "playing", "finished"};
static const char *const CAUSE_NAMES[] = {NULL, "timeout", "stand_in", "resigned"};
static const char *const END_REASON_NAMES[] = {"no_moves", "resignations", "boards_ended"};

const char *match_status_name(match_status status)
{
    return STATUS_NAMES[status];
}

const char *match_cause_name(match_cause cause)
{
    return CAUSE_NAMES[cause];
}

const char *match_end_reason_name(game_end reason)
{
    return END_REASON_NAMES[reason];
}

void match_init(match *room, const match_config *config, const game_options *options,
                uint64_t owner)
{
    memset(room, 0, sizeof(*room));
    room->config = *config;
    room->options = *options;
    room->owner = owner;
    room->last_bot_seat = -1;
    room->game.options = *options;
}

int match_seat_of(const match *room, int64_t player_id)
{
    for (int seat = 0; seat < room->options.seat_count; seat++)
        if (room->seats[seat].kind == MATCH_SEAT_PLAYER && room->seats[seat].player_id == player_id)
            return seat;
    return -1;
}

/* Whether `seat`'s player has been away for the whole reconnect grace. */
static bool is_away_past_grace(const match *room, int seat, int64_t now_ms)
{
    const match_seat *seat_state = &room->seats[seat];
    return seat_state->is_away &&
           now_ms - seat_state->away_since_ms >= room->config.reconnect_grace_ms;
}

bool match_seat_is_automatic(const match *room, int seat, int64_t now_ms)
{
    const match_seat *seat_state = &room->seats[seat];
    if (seat_state->kind == MATCH_SEAT_BOT || seat_state->has_left)
        return true;
    return is_away_past_grace(room, seat, now_ms);
}

bool match_awaits_owner(const match *room, int64_t now_ms)
{
    return room->status == MATCH_WAITING && room->owner_away_since_ms > 0 &&
           now_ms - room->owner_away_since_ms < room->config.reconnect_grace_ms;
}

/* ---- effects ------------------------------------------------------------- */

static match_record *add_record(match_effects *effects, match_record_kind kind, int64_t at_ms)
{
    assert(effects->record_count < MATCH_MAX_RECORDS);
    match_record *record = &effects->records[effects->record_count++];
    memset(record, 0, sizeof(*record));
    record->kind = kind;
    record->at_ms = at_ms;
    return record;
}

static match_publish *publish(match_effects *effects, match_publish_kind kind,
                              match_audience audience, bool is_reply)
{
    assert(effects->publish_count < MATCH_MAX_PUBLISHES);
    match_publish *moved = &effects->publishes[effects->publish_count++];
    memset(moved, 0, sizeof(*moved));
    moved->kind = kind;
    moved->audience = audience;
    moved->is_reply = is_reply;
    return moved;
}

/* ---- turns, clocks and the log ------------------------------------------- */

/* Starts the turn of every seat that may now move and could not before (or
 * that just moved, `mover`); the others' clocks stop. */
static void update_turns(match *room, int mover, int64_t now)
{
    for (int seat = 0; seat < room->options.seat_count; seat++) {
        match_seat *seat_state = &room->seats[seat];
        bool may_move = game_seat_may_move(&room->game, seat);
        if (may_move && (!seat_state->is_on_turn || seat == mover))
            seat_state->turn_started_ms = now;
        seat_state->is_on_turn = may_move;
    }
}

/* Whether `seat`'s clock has run out on its turn at `now` (a seat a bot
 * plays never is). */
static bool is_flagged(const match *room, int seat, int64_t now)
{
    const match_seat *seat_state = &room->seats[seat];
    return room->options.has_clock && seat_state->is_on_turn &&
           !match_seat_is_automatic(room, seat, now) &&
           now - seat_state->turn_started_ms >= seat_state->clock_ms;
}

/* Appends `action` of `seat` to the log. A turn (a move) charges the seat's
 * clock and earns the increment; resigning or leaving leaves it alone. */
static void log_action(match *room, match_effects *effects, int seat, const match_action *action,
                       int64_t now)
{
    match_seat *seat_state = &room->seats[seat];
    bool is_turn = action->kind == MATCH_ACTION_MOVE;
    int64_t elapsed = is_turn && seat_state->is_on_turn ? now - seat_state->turn_started_ms : 0;
    match_record *record = add_record(effects, MATCH_RECORD_ACTION, now);
    record->seat = seat;
    record->seq = room->seq++;
    record->ply = game_ply(&room->game, seat);
    record->action = *action;
    record->elapsed_ms = elapsed > 0 ? elapsed : 0;
    record->clock_ms = -1;
    if (!room->options.has_clock)
        return;
    int64_t left = seat_state->clock_ms - record->elapsed_ms;
    seat_state->clock_ms = (left > 0 ? left : 0) + (is_turn ? room->options.clock_increment_ms : 0);
    record->clock_ms = seat_state->clock_ms;
}

/* Plays a checked move for `seat`: logged, applied, announced. */
static void play(match *room, match_effects *effects, int seat, game_move move, match_cause cause,
                 bool is_reply, int64_t now)
{
    match_action action = {MATCH_ACTION_MOVE, move};
    int64_t ply = game_ply(&room->game, seat);
    log_action(room, effects, seat, &action, now);
    if (cause != MATCH_CAUSE_TIMEOUT)
        room->seats[seat].timeouts_in_row = 0;
    match_publish *moved = publish(effects, MATCH_PUBLISH_MOVED, MATCH_TO_MEMBERS, is_reply);
    game_apply(&room->game, seat, move, &moved->outcome);
    update_turns(room, seat, now);
    moved->seat = seat;
    moved->ply = ply;
    moved->move = move;
    moved->cause = cause;
    game_scores(&room->game, moved->scores);
}

/* `cause`: MATCH_CAUSE_NONE when the player resigned, TIMEOUT when its
 * clock did. */
static void resign(match *room, match_effects *effects, int seat, match_cause cause, bool is_reply,
                   int64_t now)
{
    match_action action = {.kind = MATCH_ACTION_RESIGN};
    log_action(room, effects, seat, &action, now);
    game_resign(&room->game, seat);
    update_turns(room, seat, now);
    match_publish *resigned = publish(effects, MATCH_PUBLISH_RESIGNED, MATCH_TO_MEMBERS, is_reply);
    resigned->seat = seat;
    resigned->cause = cause;
}

/* Rank 1 is best. Blokus: a resigned seat ranks below every seat still in
 * play; Reef: by score alone (resigning just ends your run). */
static bool ranks_above(const match *room, const int64_t *scores, int a, int b)
{
    bool a_resigned = game_has_resigned(&room->game, a);
    bool b_resigned = game_has_resigned(&room->game, b);
    if (room->options.kind == GAME_BLOKUS && a_resigned != b_resigned)
        return !a_resigned;
    return scores[a] > scores[b];
}

void match_result_of(const match *room, match_result *out)
{
    memset(out, 0, sizeof(*out));
    out->seat_count = room->options.seat_count;
    game_scores(&room->game, out->scores);
    for (int seat = 0; seat < out->seat_count; seat++) {
        out->ranks[seat] = 1;
        for (int other = 0; other < out->seat_count; other++)
            out->ranks[seat] += ranks_above(room, out->scores, other, seat);
        out->is_winner[seat] = out->ranks[seat] == 1 && out->seat_count > 1;
    }
    out->reason = game_end_reason(&room->game);
}

static void finish(match *room, match_effects *effects, int64_t now)
{
    add_record(effects, MATCH_RECORD_FINISH, now);
    room->status = MATCH_FINISHED;
    room->finished_at_ms = now;
    for (int seat = 0; seat < room->options.seat_count; seat++)
        room->seats[seat].is_on_turn = false;
    publish(effects, MATCH_PUBLISH_STATE, MATCH_TO_MEMBERS, false);
    publish(effects, MATCH_PUBLISH_OVER, MATCH_TO_MEMBERS, false);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_MEMBERS, false);
}

/* 3p: the seat whose turn of the shared color came although it resigned. */
static int resigned_seat_to_move(const match *room)
{
    for (int seat = 0; seat < room->options.seat_count; seat++)
        if (game_has_resigned(&room->game, seat) && game_seat_may_move(&room->game, seat))
            return seat;
    return -1;
}

/* Brings a game under way to rest after a change (see the file comment). */
static void settle(match *room, match_effects *effects, bool may_play, int64_t now)
{
    if (room->status != MATCH_PLAYING)
        return;
    int seat;
    while (may_play && !game_is_over(&room->game) && (seat = resigned_seat_to_move(room)) >= 0)
        play(room, effects, seat, game_pass(), MATCH_CAUSE_RESIGNED, false, now);
    if (may_play && game_is_over(&room->game))
        finish(room, effects, now);
    else
        publish(effects, MATCH_PUBLISH_STATE, MATCH_TO_MEMBERS, false);
}

/* ---- schedule -------------------------------------------------------------- */

static void earliest(int64_t *wake, int64_t at)
{
    if (*wake == 0 || at < *wake)
        *wake = at;
}

/* The first automatic seat that may move, starting after the last one a
 * bot played (so the bots of a race take turns), or -1. */
static int bot_seat(const match *room, int64_t now)
{
    int count = room->options.seat_count;
    for (int step = 1; step <= count; step++) {
        int seat = (room->last_bot_seat + step + count) % count;
        if (game_seat_may_move(&room->game, seat) && match_seat_is_automatic(room, seat, now))
            return seat;
    }
    return -1;
}

static void schedule_bot(const match *room, match_effects *effects, int64_t now)
{
    int seat = bot_seat(room, now);
    if (seat < 0)
        return;
    const match_seat *seat_state = &room->seats[seat];
    effects->wants_bot = true;
    effects->bot.seat = seat;
    effects->bot.ply = game_ply(&room->game, seat);
    snprintf(effects->bot.bot, sizeof(effects->bot.bot), "%s",
             seat_state->kind == MATCH_SEAT_BOT ? seat_state->bot : STAND_IN_BOT);
    effects->bot.deadline_ms = seat_state->turn_started_ms + room->config.bot_think_ms;
    effects->bot.seed = room->options.seed ^ ((uint64_t)room->seq << 8) ^ (uint64_t)seat;
}

/* When the room must look at the time again: a clock that runs out, a
 * grace that expires (before or after the start), a finished room's end
 * of visibility. */
static int64_t wake_time(const match *room, int64_t now)
{
    int64_t wake = 0;
    if (room->status == MATCH_FINISHED)
        return room->finished_at_ms + room->config.finished_room_ttl_ms;
    if (match_awaits_owner(room, now))
        earliest(&wake, room->owner_away_since_ms + room->config.reconnect_grace_ms);
    for (int seat = 0; seat < room->options.seat_count; seat++) {
        const match_seat *seat_state = &room->seats[seat];
        bool is_automatic = match_seat_is_automatic(room, seat, now);
        if (seat_state->is_on_turn && room->options.has_clock && !is_automatic)
            earliest(&wake, seat_state->turn_started_ms + seat_state->clock_ms);
        if (seat_state->kind == MATCH_SEAT_PLAYER && seat_state->is_away && !is_automatic)
            earliest(&wake, seat_state->away_since_ms + room->config.reconnect_grace_ms);
    }
    return wake;
}

static void schedule(const match *room, match_effects *effects, int64_t now)
{
    if (effects->is_closed)
        return;
    if (room->status == MATCH_PLAYING)
        schedule_bot(room, effects, now);
    effects->wake_at_ms = wake_time(room, now);
}

/* ---- who may do what ------------------------------------------------------- */

/* The seat `player_id` holds and has not left, or not_in_room saying
 * `refusal`. */
static int held_seat(const match *room, int64_t player_id, const char *refusal,
                     protocol_failure *failure)
{
    int seat = match_seat_of(room, player_id);
    if (seat < 0 || room->seats[seat].has_left)
        return protocol_fail(failure, PROTOCOL_E_NOT_IN_ROOM, "%s", refusal);
    return seat;
}

/* The seat of a player in a game under way, or a failure. */
static int playing_seat(const match *room, int64_t player_id, protocol_failure *failure)
{
    int seat = held_seat(room, player_id, "you have no seat in this game", failure);
    if (seat < 0)
        return seat;
    if (room->status == MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_NOT_STARTED, "the game has not started");
    if (room->status == MATCH_FINISHED)
        return protocol_fail(failure, PROTOCOL_E_GAME_OVER, "the game is over");
    return seat;
}

/* The owner's checks before changing a waiting room: 0 or a failure. */
static int check_owner_waiting(const match *room, uint64_t member, protocol_failure *failure)
{
    if (room->owner == 0 || room->owner != member)
        return protocol_fail(failure, PROTOCOL_E_NOT_OWNER, "only the room's creator may");
    if (room->status != MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_ALREADY_STARTED, "the game has started");
    return 0;
}

static int check_seat_range(const match *room, int seat, protocol_failure *failure)
{
    if (seat >= room->options.seat_count)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "this room has seats 0 to %d",
                             room->options.seat_count - 1);
    return 0;
}

static int first_empty_seat(const match *room)
{
    for (int seat = 0; seat < room->options.seat_count; seat++)
        if (room->seats[seat].kind == MATCH_SEAT_EMPTY)
            return seat;
    return -1;
}

/* ---- events ---------------------------------------------------------------- */

static int on_join(match *room, const match_event *event, match_effects *effects,
                   protocol_failure *failure)
{
    if (room->status != MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_ALREADY_STARTED,
                             "the game has started; join as a spectator");
    if (match_seat_of(room, event->player_id) >= 0)
        return protocol_fail(failure, PROTOCOL_E_SEAT_TAKEN, "you already have a seat here");
    int rc = check_seat_range(room, event->seat, failure);
    if (rc != 0)
        return rc;
    int seat = event->seat >= 0 ? event->seat : first_empty_seat(room);
    if (event->seat >= 0 && room->seats[seat].kind != MATCH_SEAT_EMPTY)
        return protocol_fail(failure, PROTOCOL_E_SEAT_TAKEN, "seat %d is taken", seat);
    if (seat < 0)
        return protocol_fail(failure, PROTOCOL_E_ROOM_FULL, "every seat is taken");
    room->seats[seat].kind = MATCH_SEAT_PLAYER;
    room->seats[seat].player_id = event->player_id;
    publish(effects, MATCH_PUBLISH_VIEW, MATCH_TO_SENDER, true);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_OTHER_MEMBERS, false);
    return 0;
}

static int on_leave(match *room, const match_event *event, match_effects *effects,
                    protocol_failure *failure)
{
    int seat = held_seat(room, event->player_id, "you are not in this room", failure);
    if (seat < 0)
        return seat;
    if (room->status == MATCH_WAITING) {
        memset(&room->seats[seat], 0, sizeof(room->seats[seat]));
    } else if (room->status == MATCH_PLAYING) {
        match_action action = {.kind = MATCH_ACTION_LEAVE};
        log_action(room, effects, seat, &action, event->now_ms);
        room->seats[seat].has_left = true;
    } else {
        room->seats[seat].has_left = true; /* the result remembers who sat there */
    }
    publish(effects, MATCH_PUBLISH_LEFT, MATCH_TO_SENDER, true);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_OTHER_MEMBERS, false);
    return 0;
}

static int on_add_bot(match *room, const match_event *event, match_effects *effects,
                      protocol_failure *failure)
{
    int rc = check_owner_waiting(room, event->member, failure);
    if (rc != 0)
        return rc;
    if (!game_is_bot_name(&room->options, event->bot))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "no %s bot called '%s'",
                             game_kind_name(&room->options), event->bot);
    rc = check_seat_range(room, event->seat, failure);
    if (rc != 0)
        return rc;
    if (event->seat < 0 || room->seats[event->seat].kind != MATCH_SEAT_EMPTY)
        return protocol_fail(failure, PROTOCOL_E_SEAT_TAKEN, "seat %d is taken", event->seat);
    room->seats[event->seat].kind = MATCH_SEAT_BOT;
    snprintf(room->seats[event->seat].bot, sizeof(room->seats[event->seat].bot), "%s", event->bot);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_MEMBERS, true);
    return 0;
}

/* A race starts with whoever is seated: the seats close up to 0..n-1. */
static void close_up_seats(match *room)
{
    int filled = 0;
    for (int seat = 0; seat < room->options.seat_count; seat++)
        if (room->seats[seat].kind != MATCH_SEAT_EMPTY)
            room->seats[filled++] = room->seats[seat];
    for (int seat = filled; seat < GAME_MAX_SEATS; seat++)
        memset(&room->seats[seat], 0, sizeof(room->seats[seat]));
    room->options.seat_count = filled;
}

static int on_start(match *room, const match_event *event, match_effects *effects,
                    protocol_failure *failure)
{
    int rc = check_owner_waiting(room, event->member, failure);
    if (rc != 0)
        return rc;
    int empty = first_empty_seat(room);
    if (room->options.kind != GAME_REEF && empty >= 0)
        return protocol_fail(failure, PROTOCOL_E_SEATS_EMPTY,
                             "every seat needs a player or a bot (seat %d is empty)", empty);
    if (room->options.kind == GAME_REEF)
        close_up_seats(room);
    if (room->options.seat_count == 0)
        return protocol_fail(failure, PROTOCOL_E_SEATS_EMPTY, "nobody is seated");
    for (int seat = 0; seat < room->options.seat_count; seat++) {
        add_record(effects, MATCH_RECORD_SEAT, event->now_ms)->seat = seat;
        room->seats[seat].clock_ms = room->options.clock_initial_ms;
    }
    add_record(effects, MATCH_RECORD_START, event->now_ms);
    room->status = MATCH_PLAYING;
    game_start(&room->game, &room->options);
    update_turns(room, -1, event->now_ms);
    publish(effects, MATCH_PUBLISH_STARTED, MATCH_TO_SENDER, true);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_MEMBERS, false);
    return 0;
}

static int on_move(match *room, const match_event *event, match_effects *effects,
                   protocol_failure *failure)
{
    int seat = playing_seat(room, event->player_id, failure);
    if (seat < 0)
        return seat;
    int64_t ply = game_ply(&room->game, seat);
    if (event->ply != ply)
        return protocol_fail(failure, PROTOCOL_E_STALE_PLY,
                             "the move names ply %lld but the game is at ply %lld",
                             (long long)event->ply, (long long)ply);
    if (!game_seat_may_move(&room->game, seat))
        return protocol_fail(failure, PROTOCOL_E_NOT_YOUR_TURN, "it is not your turn");
    if (is_flagged(room, seat, event->now_ms)) {
        const match_seat *seat_state = &room->seats[seat];
        int64_t late = event->now_ms - seat_state->turn_started_ms - seat_state->clock_ms;
        return protocol_fail(failure, PROTOCOL_E_OUT_OF_TIME,
                             "your clock ran out %lld ms before this move was read",
                             (long long)late);
    }
    int rc = game_check_action(&room->game, seat, event->move, failure);
    if (rc != 0)
        return rc;
    room->seats[seat].is_away = false;
    play(room, effects, seat, event->move, MATCH_CAUSE_NONE, true, event->now_ms);
    return 0;
}

static int on_resign(match *room, const match_event *event, match_effects *effects,
                     protocol_failure *failure)
{
    int seat = playing_seat(room, event->player_id, failure);
    if (seat < 0)
        return seat;
    if (game_has_resigned(&room->game, seat))
        return protocol_fail(failure, PROTOCOL_E_GAME_OVER, "you have already resigned");
    resign(room, effects, seat, MATCH_CAUSE_NONE, true, event->now_ms);
    return 0;
}

/* A bot's answer counts only if the seat still waits for exactly it. */
static int on_bot_move(match *room, const match_event *event, match_effects *effects,
                       protocol_failure *failure)
{
    int seat = event->seat;
    bool is_wanted = room->status == MATCH_PLAYING && seat >= 0 &&
                     seat < room->options.seat_count && game_seat_may_move(&room->game, seat) &&
                     game_ply(&room->game, seat) == event->ply &&
                     match_seat_is_automatic(room, seat, event->now_ms);
    if (!is_wanted)
        return protocol_fail(failure, PROTOCOL_E_STALE_PLY, "the bot's move is no longer wanted");
    match_cause cause =
        room->seats[seat].kind == MATCH_SEAT_BOT ? MATCH_CAUSE_NONE : MATCH_CAUSE_STAND_IN;
    room->last_bot_seat = seat;
    play(room, effects, seat, event->move, cause, false, event->now_ms);
    return 0;
}

static int on_reconnect(match *room, const match_event *event, match_effects *effects,
                        protocol_failure *failure)
{
    int seat = held_seat(room, event->player_id, "no seat to come back to", failure);
    if (seat < 0)
        return seat;
    room->seats[seat].is_away = false;
    publish(effects, MATCH_PUBLISH_VIEW, MATCH_TO_SENDER, false);
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_OTHER_MEMBERS, false);
    return 0;
}

/* The seat waits for its player for the reconnect grace (a reload, a
 * network drop): before the start it is then given up (on_timer), in a
 * game under way a stand-in plays it. */
static int on_disconnect(match *room, const match_event *event, match_effects *effects,
                         protocol_failure *failure)
{
    int seat = held_seat(room, event->player_id, "no seat here", failure);
    if (seat < 0)
        return seat;
    if (room->status != MATCH_FINISHED) {
        room->seats[seat].is_away = true;
        room->seats[seat].away_since_ms = event->now_ms;
    }
    publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_OTHER_MEMBERS, false);
    return 0;
}

/* Before the start, the seats whose players have been away for the whole
 * grace are given up, so others can sit (the runner then closes the room
 * if nobody is left in it). */
static void free_departed_seats(match *room, const match_event *event, match_effects *effects)
{
    bool is_changed = false;
    for (int seat = 0; seat < room->options.seat_count; seat++) {
        if (room->seats[seat].kind != MATCH_SEAT_PLAYER ||
            !is_away_past_grace(room, seat, event->now_ms))
            continue;
        memset(&room->seats[seat], 0, sizeof(room->seats[seat]));
        is_changed = true;
    }
    if (is_changed)
        publish(effects, MATCH_PUBLISH_ROOM, MATCH_TO_MEMBERS, false);
}

/* Clocks that ran out get the timeout policy's move (or, the seat's
 * MATCH_TIMEOUTS_TO_RESIGN-th in a row, its resignation); a finished room
 * whose visibility is over closes; a waiting room gives up the seats of
 * the players away past the grace. In a game under way graces need
 * nothing: schedule() sees them. */
static int on_timer(match *room, const match_event *event, match_effects *effects)
{
    if (room->status == MATCH_FINISHED) {
        effects->is_closed =
            event->now_ms >= room->finished_at_ms + room->config.finished_room_ttl_ms;
        return 0;
    }
    if (room->status == MATCH_WAITING) {
        free_departed_seats(room, event, effects);
        return 0;
    }
    for (int seat = 0; seat < room->options.seat_count && !game_is_over(&room->game); seat++) {
        if (!is_flagged(room, seat, event->now_ms))
            continue;
        game_move move;
        if (++room->seats[seat].timeouts_in_row >= MATCH_TIMEOUTS_TO_RESIGN)
            resign(room, effects, seat, MATCH_CAUSE_TIMEOUT, false, event->now_ms);
        else if (game_timeout_move(&room->game, seat, &move) == 0)
            play(room, effects, seat, move, MATCH_CAUSE_TIMEOUT, false, event->now_ms);
    }
    return 0;
}

/* The owner's connection dropped while it watched (a reload): the room
 * waits for it for the grace before it may be abandoned (match_awaits_owner;
 * the runner looks again when the timer wakes it). */
static int on_owner_away(match *room, const match_event *event, protocol_failure *failure)
{
    if (room->status != MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "only a waiting room awaits its owner");
    room->owner_away_since_ms = event->now_ms;
    return 0;
}

static int on_abandon(match *room, const match_event *event, match_effects *effects,
                      protocol_failure *failure)
{
    if (room->status != MATCH_WAITING)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "only a waiting room is abandoned");
    for (int seat = 0; seat < room->options.seat_count; seat++)
        if (room->seats[seat].kind == MATCH_SEAT_PLAYER)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "a player is still seated");
    add_record(effects, MATCH_RECORD_ABORT, event->now_ms);
    effects->is_closed = true;
    return 0;
}

/* A cancelled tournament's game: it ends without a result, unrated, and
 * its room closes. */
static int on_cancel(match *room, const match_event *event, match_effects *effects,
                     protocol_failure *failure)
{
    if (room->status == MATCH_FINISHED)
        return protocol_fail(failure, PROTOCOL_E_GAME_OVER, "the game is over");
    add_record(effects, MATCH_RECORD_ABORT, event->now_ms);
    effects->is_closed = true;
    return 0;
}

/* A stored action, checked like a new one. */
static int on_record(match *room, const match_event *event, match_effects *effects,
                     protocol_failure *failure)
{
    int seat = event->seat;
    bool is_in_order = room->status == MATCH_PLAYING && seat >= 0 &&
                       seat < room->options.seat_count && game_ply(&room->game, seat) == event->ply;
    if (!is_in_order)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "record %d is out of order", room->seq);
    switch (event->record.kind) {
    case MATCH_ACTION_MOVE:
        if (!game_seat_may_move(&room->game, seat) ||
            game_check_move(&room->game, seat, event->record.move) != 0)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "record %d is illegal", room->seq);
        play(room, effects, seat, event->record.move, MATCH_CAUSE_NONE, false, event->now_ms);
        return 0;
    case MATCH_ACTION_RESIGN:
        if (game_has_resigned(&room->game, seat))
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "record %d resigns twice",
                                 room->seq);
        resign(room, effects, seat, MATCH_CAUSE_NONE, false, event->now_ms);
        return 0;
    case MATCH_ACTION_LEAVE:
        if (room->seats[seat].has_left)
            return protocol_fail(failure, PROTOCOL_E_INTERNAL, "record %d leaves twice", room->seq);
        log_action(room, effects, seat, &event->record, event->now_ms);
        room->seats[seat].has_left = true;
        return 0;
    }
    return protocol_fail(failure, PROTOCOL_E_INTERNAL, "record %d has no known kind", room->seq);
}

/* After a restart: players come back disconnected (their grace starts
 * now), and the interrupted turns start again now. */
static int on_resume(match *room, const match_event *event, protocol_failure *failure)
{
    if (room->status != MATCH_PLAYING)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "only a game under way resumes");
    for (int seat = 0; seat < room->options.seat_count; seat++) {
        match_seat *seat_state = &room->seats[seat];
        seat_state->is_away = seat_state->kind == MATCH_SEAT_PLAYER && !seat_state->has_left;
        seat_state->away_since_ms = event->now_ms;
        seat_state->is_on_turn = false;
    }
    update_turns(room, -1, event->now_ms);
    return 0;
}

static int dispatch(match *room, const match_event *event, match_effects *effects,
                    protocol_failure *failure)
{
    switch (event->kind) {
    case MATCH_EVENT_JOIN:
        return on_join(room, event, effects, failure);
    case MATCH_EVENT_LEAVE:
        return on_leave(room, event, effects, failure);
    case MATCH_EVENT_ADD_BOT:
        return on_add_bot(room, event, effects, failure);
    case MATCH_EVENT_START:
        return on_start(room, event, effects, failure);
    case MATCH_EVENT_MOVE:
        return on_move(room, event, effects, failure);
    case MATCH_EVENT_RESIGN:
        return on_resign(room, event, effects, failure);
    case MATCH_EVENT_BOT_MOVE:
        return on_bot_move(room, event, effects, failure);
    case MATCH_EVENT_RECONNECT:
        return on_reconnect(room, event, effects, failure);
    case MATCH_EVENT_DISCONNECT:
        return on_disconnect(room, event, effects, failure);
    case MATCH_EVENT_TIMER:
        return on_timer(room, event, effects);
    case MATCH_EVENT_OWNER_AWAY:
        return on_owner_away(room, event, failure);
    case MATCH_EVENT_ABANDON:
        return on_abandon(room, event, effects, failure);
    case MATCH_EVENT_RECORD:
        return on_record(room, event, effects, failure);
    case MATCH_EVENT_RESUME:
        return on_resume(room, event, failure);
    case MATCH_EVENT_CANCEL:
        return on_cancel(room, event, effects, failure);
    }
    return protocol_fail(failure, PROTOCOL_E_INTERNAL, "unknown event");
}

/* Whether an event changes the game so that it must be brought to rest. */
static bool is_game_event(match_event_kind kind, const match_effects *effects)
{
    switch (kind) {
    case MATCH_EVENT_START:
    case MATCH_EVENT_MOVE:
    case MATCH_EVENT_RESIGN:
    case MATCH_EVENT_BOT_MOVE:
    case MATCH_EVENT_RECORD:
    case MATCH_EVENT_RESUME:
        return true;
    case MATCH_EVENT_TIMER:
        return effects->record_count > 0; /* a clock ran out */
    default:
        return false;
    }
}

int match_apply(const match *state, const match_event *event, match *next, match_effects *effects,
                protocol_failure *failure)
{
    assert(state != next);
    *next = *state;
    memset(effects, 0, sizeof(*effects));
    int rc = dispatch(next, event, effects, failure);
    if (rc != 0)
        return rc;
    if (is_game_event(event->kind, effects))
        settle(next, effects, event->kind != MATCH_EVENT_RECORD, event->now_ms);
    schedule(next, effects, event->now_ms);
    return 0;
}
