/* tournament.c -- running tournaments (tournament.h): each one's machine
 * (tournament_machine.h) fed its events, its effects carried out; and the
 * requests about a running tournament (watch, cancel) and invitations.
 * Creating one is tournament_create.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/game_wire.h"
#include "lobby/player_name.h"
#include "lobby/room_arrange.h"
#include "lobby/match_records.h"
#include "lobby/tournament.h"
#include "lobby/tournament_plan.h"
#include "lobby/tournament_machine.h"

/* Events a tournament holds: those that come while it carries out the
 * effects of another (a room's answer), and ended games posted for the
 * runner. Each running game brings at most three (opened, created,
 * finished or discarded), so this many cannot run out. */
#define TOURNAMENT_INBOX (3 * TOURNAMENT_MAX_PARALLEL + 8)

/* Who asked for a cancellation: answered when it is stored, or not. */
struct cancel_asker {
    lobby_tournament_answer *answer; /* NULL: nobody */
    void *context;
};

struct tournament {
    int64_t id;
    tournament_state machine; /* machine.record: the tournament as stored, kept in memory */
    tournament_shape shape;
    uint64_t *watchers; /* connections; a closed one is dropped when met */
    int watcher_count, watcher_capacity;
    tournament_event inbox[TOURNAMENT_INBOX]; /* a ring */
    int inbox_first, inbox_count;
    bool is_running;           /* carrying out effects: events wait in the inbox */
    bool is_posted;            /* events of it wait for the runner: on lobby->posts */
    fifo_link posted;          /* its place there */
    struct cancel_asker asker; /* who waits for the cancellation it is about to store */
    int64_t leased_at_ms;      /* with an instance id: when it became this instance's */
};

/* ---- settings ---------------------------------------------------------- */

char *tournament_settings_text(const tournament_shape *shape)
{
    json_t *settings = json_pack(
        "{s:o, s:i, s:i, s:i}", "options", game_wire_options_json(&shape->options), "games",
        shape->games_per_group, "rounds", shape->rounds, "parallel", shape->parallel);
    char *text = settings ? json_dumps(settings, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(settings);
    return text;
}

/* The shape a stored tournament's settings (tournament_settings_text)
 * and columns say: 0, or -1 when they cannot be read. */
static int read_settings(const store_tournament_info *info, tournament_shape *shape)
{
    json_t *settings = json_loads(info->settings, 0, NULL);
    int rc = settings && tournament_format_parse(info->format, &shape->format) == 0 ? 0 : -1;
    if (rc == 0)
        rc = game_wire_options_from_json(json_object_get(settings, "options"), info->game,
                                         info->mode, &shape->options);
    shape->games_per_group = (int)json_integer_value(json_object_get(settings, "games"));
    shape->rounds = (int)json_integer_value(json_object_get(settings, "rounds"));
    shape->parallel = (int)json_integer_value(json_object_get(settings, "parallel"));
    json_decref(settings);
    return rc == 0 && shape->parallel > 0 ? 0 : -1;
}

/* ---- memory ------------------------------------------------------------ */

static void tournament_free(struct tournament *tournament)
{
    store_tournament_record_free(tournament->machine.record);
    free(tournament->watchers);
    free(tournament);
}

/* A running tournament in memory, run by its machine from `record`
 * (taken, freed on failure): NULL when it cannot be. */
static struct tournament *adopt(struct lobby *lobby, store_tournament_record *record)
{
    struct tournament *tournament = calloc(1, sizeof(*tournament));
    if (!tournament) {
        store_tournament_record_free(record);
        return NULL;
    }
    tournament->id = record->id;
    tournament->machine.record = record;
    tournament->leased_at_ms = lobby->config.instance ? lobby_now(lobby) : 0;
    if (read_settings(&record->info, &tournament->shape) != 0 ||
        id_table_put(&lobby->tournaments, (uint64_t)record->id, tournament) != 0) {
        lobby_log(lobby, "tournament %lld cannot be run", (long long)record->id);
        tournament_free(tournament);
        return NULL;
    }
    const tournament_shape *shape = &tournament->shape;
    tournament_rules rules = {shape->format, shape->rounds, shape->parallel};
    tournament->machine = tournament_machine_new(record, &rules);
    return tournament;
}

static void feed(struct lobby *lobby, struct tournament *tournament, const tournament_event *event);

int tournament_run(struct lobby *lobby, store_tournament_record *record)
{
    struct tournament *tournament = adopt(lobby, record);
    if (!tournament)
        return -1;
    tournament_event tick = {.kind = TOURNAMENT_EVENT_TICK, .now_ms = lobby_now(lobby)};
    feed(lobby, tournament, &tick); /* a Swiss pairs its first round, then games start */
    return 0;
}

/* What one account's running tournaments hold. */
struct holding {
    int64_t account;
    int tournaments;
    int rooms;
};

static void count_holding(void *value, void *context)
{
    const struct tournament *tournament = value;
    struct holding *holding = context;
    if (tournament->machine.record->info.created_by != holding->account)
        return;
    holding->tournaments++;
    holding->rooms += tournament->shape.parallel;
}

int tournaments_held(struct lobby *lobby, int64_t account, int *tournaments, int *rooms)
{
    struct holding holding = {account, 0, 0};
    id_table_each(&lobby->tournaments, count_holding, &holding);
    *tournaments = holding.tournaments;
    *rooms = holding.rooms;
    return (int)lobby->tournaments.count;
}

static void forget(struct lobby *lobby, struct tournament *tournament)
{
    if (tournament->asker.answer) { /* it ended before its cancellation was stored */
        protocol_failure ended;
        protocol_fail(&ended, PROTOCOL_E_NO_SUCH_TOURNAMENT, "tournament %lld ended meanwhile",
                      (long long)tournament->id);
        tournament->asker.answer(tournament->asker.context, ended.code, tournament->id, &ended);
    }
    if (tournament->is_posted)
        fifo_remove(&lobby->posts, &tournament->posted);
    id_table_remove(&lobby->tournaments, (uint64_t)tournament->id);
    tournament_free(tournament);
}

/* ---- telling ----------------------------------------------------------- */

static bool is_watching(const struct tournament *tournament, uint64_t connection)
{
    for (int i = 0; i < tournament->watcher_count; i++)
        if (tournament->watchers[i] == connection)
            return true;
    return false;
}

static int add_watcher(struct tournament *tournament, uint64_t connection)
{
    if (is_watching(tournament, connection))
        return 0;
    if (tournament->watcher_count == tournament->watcher_capacity) {
        int capacity = tournament->watcher_capacity ? 2 * tournament->watcher_capacity : 4;
        uint64_t *grown = realloc(tournament->watchers, sizeof(*grown) * (size_t)capacity);
        if (!grown)
            return -1;
        tournament->watchers = grown;
        tournament->watcher_capacity = capacity;
    }
    tournament->watchers[tournament->watcher_count++] = connection;
    return 0;
}

/* The TELL effect `what` (of game `number` for TOURNAMENT_TELL_GAME): to
 * the watchers still connected and the connected entries; entries
 * connected to other instances hear it through a notice
 * (tournament_notices.c). */
static void tell_effect(struct lobby *lobby, struct tournament *tournament, tournament_tell what,
                        int number)
{
    const store_tournament_record *record = tournament->machine.record;
    char *text = tournament_event_text(record, what, number);
    if (!text) {
        lobby_log(lobby, "tournament %lld: its followers are not told: out of memory",
                  (long long)tournament->id);
        return;
    }
    size_t length = strlen(text);
    for (int i = 0; i < tournament->watcher_count;) {
        if (id_table_get(&lobby->clients, tournament->watchers[i])) {
            lobby_send_text(lobby, tournament->watchers[i++], text, length);
            continue;
        }
        tournament->watchers[i] = tournament->watchers[--tournament->watcher_count];
    }
    for (int i = 0; i < record->entry_count; i++) {
        struct player *player =
            id_table_get(&lobby->players, (uint64_t)record->entries[i].player_id);
        if (player && player->connection && !is_watching(tournament, player->connection))
            lobby_send_text(lobby, player->connection, text, length);
    }
    free(text);
    tournament_notices_tell(lobby, record, what, number);
}

/* ---- events and effects -------------------------------------------------- */

/* Queues `event` in the inbox: 0, or -1 when it is full (it cannot be:
 * see TOURNAMENT_INBOX). */
static int inbox_push(struct lobby *lobby, struct tournament *tournament,
                      const tournament_event *event)
{
    if (tournament->inbox_count == TOURNAMENT_INBOX) {
        lobby_log(lobby, "tournament %lld: an event is dropped", (long long)tournament->id);
        return -1;
    }
    int slot = (tournament->inbox_first + tournament->inbox_count++) % TOURNAMENT_INBOX;
    tournament->inbox[slot] = *event;
    return 0;
}

static bool inbox_pop(struct tournament *tournament, tournament_event *out)
{
    if (tournament->inbox_count == 0)
        return false;
    *out = tournament->inbox[tournament->inbox_first];
    tournament->inbox_first = (tournament->inbox_first + 1) % TOURNAMENT_INBOX;
    tournament->inbox_count--;
    return true;
}

/* Opens the room of scheduled game `number` (OPEN): the answer is OPENED,
 * with the stored game's id if its row was stored at once (otherwise the
 * room's creation brings it: tournament_game_created), or DISCARDED. */
static tournament_event open_room(struct lobby *lobby, struct tournament *tournament, int number)
{
    const store_tournament_record *record = tournament->machine.record;
    const store_scheduled_game *scheduled = &record->games[number];
    arranged_seat seats[GAME_MAX_SEATS];
    for (int seat = 0; seat < scheduled->seat_count; seat++) {
        const store_standing *entry = &record->entries[scheduled->seats[seat]];
        seats[seat] = entry->bot[0]
                          ? (arranged_seat){0, NULL, false, entry->bot}
                          : (arranged_seat){entry->player_id, entry->name, entry->is_bot, NULL};
    }
    game_options options = tournament->shape.options;
    options.seed = tournament_game_seed(record->info.seed, number) &
                   ((1ULL << 53) - 1); /* exact as a JavaScript number */
    struct room *room = NULL;
    protocol_failure failure;
    tournament_event answer = {.kind = TOURNAMENT_EVENT_OPENED, .game = number};
    if (room_arrange(lobby, &options, seats, (room_tournament){tournament->id, number}, &room,
                     &failure) != 0) {
        lobby_log(lobby, "tournament %lld game %d cannot start: %s", (long long)tournament->id,
                  number, failure.message);
        answer.kind = TOURNAMENT_EVENT_DISCARDED; /* the next tick tries again */
        return answer;
    }
    answer.game_id = room->game_id;
    snprintf(answer.room, sizeof(answer.room), "%s", room->code);
    return answer;
}

/* A tournament's commit: a Swiss round, its end or its cancellation.
 * Its answer is the machine's STORED event; a cancellation's requester
 * hears it too. */
struct step_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    int64_t tournament_id;     /* looked up again at the answer: it may be gone */
    tournament_commit kind;
    lobby_tournament_answer *answer; /* a cancellation's requester, or NULL */
    void *answer_context;
    store_record records[TOURNAMENT_MAX_RECORDS];
};

static void commit_finish(struct runner_commit *base, bool is_live);

/* Submits the records of `effects` as one commit (STORE). Out of memory,
 * the machine hears it as a failed commit. */
static void store_effect(struct lobby *lobby, struct tournament *tournament,
                         const tournament_effects *effects, tournament_commit kind,
                         lobby_tournament_answer *answer, void *answer_context)
{
    struct step_commit *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        lobby_log(lobby, "tournament %lld: out of memory; the next tick tries again",
                  (long long)tournament->id);
        tournament_event failed = {.kind = TOURNAMENT_EVENT_STORED, .now_ms = lobby_now(lobby)};
        failed.commit = kind;
        failed.rc = STORE_E_NOMEM;
        feed(lobby, tournament, &failed);
        protocol_failure failure;
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
        if (answer)
            answer(answer_context, failure.code, tournament->id, &failure);
        return;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = commit_finish};
    commit->tournament_id = tournament->id;
    commit->kind = kind;
    commit->answer = answer;
    commit->answer_context = answer_context;
    memcpy(commit->records, effects->records, sizeof(store_record) * (size_t)effects->record_count);
    commit->base.batch =
        (store_batch){commit->records, effects->record_count, STORE_ORDER_SUBMITTED};
    runner_submit(&commit->base);
}

/* Ends the games of `tournament` under way without a result (ABORT). A
 * game whose abort cannot be stored plays on to its end, rated as any
 * game, and no longer counts for the tournament. */
static void abort_games(struct lobby *lobby, const struct tournament *tournament)
{
    const store_tournament_record *record = tournament->machine.record;
    for (int i = 0; i < record->game_count; i++) {
        const store_scheduled_game *scheduled = &record->games[i];
        struct room *room =
            tournament_step_is_running(scheduled) ? room_find(lobby, scheduled->room) : NULL;
        if (!room || room->tournament.id != tournament->id)
            continue;
        match_event event = {.kind = MATCH_EVENT_CANCEL, .now_ms = lobby_now(lobby)};
        if (room_run(room, &event, NULL) == PROTOCOL_E_STORAGE)
            lobby_log(lobby, "tournament %lld: game %lld plays on", (long long)tournament->id,
                      (long long)scheduled->game_id);
    }
}

/* Carries out `effects` in order; the events they bring wait in the
 * inbox. Whether the tournament is over. */
static bool carry_out(struct lobby *lobby, struct tournament *tournament,
                      const tournament_effects *effects)
{
    bool is_over = false;
    for (int i = 0; i < effects->count; i++) {
        const tournament_effect *effect = &effects->items[i];
        tournament_event opened;
        struct cancel_asker asker;
        switch (effect->kind) {
        case TOURNAMENT_EFFECT_OPEN:
            opened = open_room(lobby, tournament, effect->game);
            inbox_push(lobby, tournament, &opened);
            break;
        case TOURNAMENT_EFFECT_STORE:
            asker = effect->commit == TOURNAMENT_COMMIT_CANCEL ? tournament->asker
                                                               : (struct cancel_asker){0};
            if (effect->commit == TOURNAMENT_COMMIT_CANCEL)
                tournament->asker = (struct cancel_asker){0};
            store_effect(lobby, tournament, effects, effect->commit, asker.answer, asker.context);
            break;
        case TOURNAMENT_EFFECT_TELL:
            tell_effect(lobby, tournament, effect->tell, effect->game);
            break;
        case TOURNAMENT_EFFECT_ABORT:
            abort_games(lobby, tournament);
            break;
        case TOURNAMENT_EFFECT_OVER:
            is_over = true;
            break;
        }
    }
    return is_over;
}

/* Runs the events in the inbox, each with its effects, until none is
 * left. A tournament that is over goes from memory. */
static void run_inbox(struct lobby *lobby, struct tournament *tournament)
{
    tournament->is_running = true;
    tournament_event event;
    tournament_effects effects;
    bool is_over = false;
    while (!is_over && inbox_pop(tournament, &event)) {
        tournament_machine_apply(&tournament->machine, &event, &effects);
        is_over = carry_out(lobby, tournament, &effects);
    }
    tournament->is_running = false;
    if (is_over) {
        lobby_log(lobby, "tournament %lld %s", (long long)tournament->id,
                  tournament->machine.record->is_cancelled ? "cancelled" : "finished");
        forget(lobby, tournament);
    }
}

/* Hands `event` to the tournament: run now, or after the effects it is
 * carrying out (never nested). */
static void feed(struct lobby *lobby, struct tournament *tournament, const tournament_event *event)
{
    if (inbox_push(lobby, tournament, event) == 0 && !tournament->is_running)
        run_inbox(lobby, tournament);
}

/* Hands `event` to the tournament for the runner, which runs it after
 * the room events before it (tournaments_carry_on_posted). */
static void post(struct lobby *lobby, int64_t tournament_id, const tournament_event *event)
{
    struct tournament *tournament = id_table_get(&lobby->tournaments, (uint64_t)tournament_id);
    if (!tournament || inbox_push(lobby, tournament, event) != 0)
        return; /* not running any more: cancelled or finished */
    if (!tournament->is_running && !tournament->is_posted) {
        tournament->is_posted = true;
        fifo_push(&lobby->posts, &tournament->posted);
    }
}

static void commit_finish(struct runner_commit *base, bool is_live)
{
    struct step_commit *commit = (struct step_commit *)base;
    struct lobby *lobby = base->lobby;
    int64_t id = commit->tournament_id;
    struct tournament *tournament =
        is_live ? id_table_get(&lobby->tournaments, (uint64_t)id) : NULL;
    protocol_failure failure;
    int rc = 0;
    if (!is_live)
        rc = protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    else if (base->rc == STORE_E_CONSTRAINT || !tournament) /* it ended meanwhile */
        rc = protocol_fail(&failure, PROTOCOL_E_NO_SUCH_TOURNAMENT,
                           "tournament %lld is no longer running", (long long)id);
    else if (base->rc != STORE_OK)
        rc = protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the tournament's %s: %s",
                           commit->kind == TOURNAMENT_COMMIT_ROUND    ? "next round"
                           : commit->kind == TOURNAMENT_COMMIT_FINISH ? "end"
                                                                      : "cancellation",
                           store_strerror(base->rc));
    if (rc == PROTOCOL_E_STORAGE)
        lobby_log(lobby, "tournament %lld: %s; %s", (long long)id, failure.message,
                  commit->answer ? "nothing changed" : "the next tick tries again");
    if (tournament) {
        tournament_event stored = {.kind = TOURNAMENT_EVENT_STORED, .now_ms = lobby_now(lobby)};
        stored.commit = commit->kind;
        stored.rc = base->rc;
        feed(lobby, tournament, &stored);
    }
    if (commit->answer)
        commit->answer(commit->answer_context, rc, id, rc ? &failure : NULL);
    free(commit);
}

/* ---- the lobby's side ------------------------------------------------------ */

void tournament_game_created(struct lobby *lobby, room_tournament scheduled_game, int64_t game_id)
{
    tournament_event created = {.kind = TOURNAMENT_EVENT_GAME_CREATED, .now_ms = lobby_now(lobby)};
    created.game = scheduled_game.game;
    created.game_id = game_id;
    post(lobby, scheduled_game.id, &created);
}

int tournament_entries(struct lobby *lobby, room_tournament scheduled_game,
                       match_records_tournament *out)
{
    struct tournament *tournament = id_table_get(&lobby->tournaments, (uint64_t)scheduled_game.id);
    if (!tournament || scheduled_game.game >= tournament->machine.record->game_count)
        return -1; /* not in memory: cancelled or finished, its standings stay */
    const store_scheduled_game *scheduled = &tournament->machine.record->games[scheduled_game.game];
    out->id = scheduled_game.id;
    out->seat_count = scheduled->seat_count;
    for (int seat = 0; seat < scheduled->seat_count && seat < GAME_MAX_SEATS; seat++)
        out->entries[seat] = scheduled->seats[seat];
    return 0;
}

void tournament_game_discarded(struct lobby *lobby, int64_t tournament_id, int number)
{
    tournament_event discarded = {.kind = TOURNAMENT_EVENT_DISCARDED, .now_ms = lobby_now(lobby)};
    discarded.game = number;
    post(lobby, tournament_id, &discarded);
}

void tournament_post_game_over(struct lobby *lobby, room_tournament scheduled_game,
                               const store_batch *stored)
{
    tournament_event over = {.kind = TOURNAMENT_EVENT_FINISHED, .now_ms = lobby_now(lobby)};
    over.game = scheduled_game.game;
    for (int i = 0; i < stored->count; i++) {
        const store_record *record = &stored->records[i];
        over.has_result = over.has_result || record->kind == STORE_RECORD_GAME_RESULT;
        if (record->kind != STORE_RECORD_TOURNAMENT_RESULT)
            continue;
        over.standings_count = record->standings.count;
        memcpy(over.standings, record->standings.changes,
               sizeof(store_standing_change) * (size_t)record->standings.count);
    }
    post(lobby, scheduled_game.id, &over);
}

bool tournaments_carry_on_posted(struct lobby *lobby)
{
    struct tournament *tournament = FIFO_ITEM(fifo_pop(&lobby->posts), struct tournament, posted);
    if (!tournament)
        return false;
    tournament->is_posted = false;
    if (!tournament->is_running) /* else its events run where it is running */
        run_inbox(lobby, tournament);
    return true;
}

/* Hands `kind` (TICK or RESTORED) to every running tournament (out of
 * memory, to none: the next tick tries again). */
static void tick_all(struct lobby *lobby, tournament_event_kind kind)
{
    size_t count = 0;
    void **values = id_table_values(&lobby->tournaments, &count);
    int64_t *ids = values ? malloc(sizeof(*ids) * count) : NULL;
    for (size_t i = 0; ids && i < count; i++) /* by id: one may end, and go, meanwhile */
        ids[i] = ((const struct tournament *)values[i])->id;
    free(values);
    tournament_event tick = {.kind = kind, .now_ms = lobby_now(lobby)};
    for (size_t i = 0; ids && i < count; i++) {
        struct tournament *tournament = id_table_get(&lobby->tournaments, (uint64_t)ids[i]);
        if (tournament)
            feed(lobby, tournament, &tick);
    }
    free(ids);
}

void tournaments_tick(struct lobby *lobby)
{
    if (lobby->tournaments.count > 0 && !lobby->is_shutting_down)
        tick_all(lobby, TOURNAMENT_EVENT_TICK);
}

void tournaments_restore(struct lobby *lobby, store_record_find_tournaments *found)
{
    for (int i = 0; i < found->count; i++) {
        if (id_table_get(&lobby->tournaments, (uint64_t)found->ids[i]))
            continue; /* run here already (a takeover names every tournament this instance holds) */
        if (!found->tournaments[i]) {
            lobby_log(lobby, "tournament %lld cannot be loaded", (long long)found->ids[i]);
            continue;
        }
        adopt(lobby, found->tournaments[i]);
        found->tournaments[i] = NULL; /* taken */
    }
    tick_all(lobby, TOURNAMENT_EVENT_RESTORED); /* one stopped after a result carries on */
}

void tournaments_give_up_lost(struct lobby *lobby, const store_rooms *held,
                              int64_t leased_before_ms)
{
    size_t count;
    void **values = id_table_values(&lobby->tournaments, &count);
    for (size_t i = 0; values && i < count; i++) {
        struct tournament *tournament = values[i];
        char lease[STORE_CODE_SIZE];
        store_tournament_lease(tournament->id, lease);
        bool is_idle = !tournament->is_running && !tournament->is_posted &&
                       !tournament->asker.answer; /* else: at the next renewal */
        if (tournament->leased_at_ms == 0 || tournament->leased_at_ms >= leased_before_ms ||
            store_rooms_hold(held, lease) || !is_idle)
            continue;
        lobby_log(lobby, "tournament %lld was taken over by another instance: it runs there",
                  (long long)tournament->id);
        id_table_remove(&lobby->tournaments, (uint64_t)tournament->id);
        tournament_free(tournament);
    }
    free(values);
}

static void free_one(void *value, void *context)
{
    (void)context;
    tournament_free(value);
}

void tournaments_free(struct lobby *lobby)
{
    id_table_each(&lobby->tournaments, free_one, NULL);
    id_table_clear(&lobby->tournaments);
    lobby->posts = (fifo){0};
}

/* ---- requests ------------------------------------------------------------ */

/* A websocket request answered once its records are stored: where the
 * answer goes (the request's id held). */
struct asker {
    struct lobby *lobby;
    uint64_t connection;
    json_t *id;
};

/* The asker of `message` from `client`, or NULL out of memory. */
static struct asker *asker_new(struct lobby *lobby, const struct client *client,
                               const protocol_message *message)
{
    struct asker *asker = malloc(sizeof(*asker));
    if (asker)
        *asker = (struct asker){lobby, client->connection, json_incref(message->id)};
    return asker;
}

static void asker_free(struct asker *asker)
{
    json_decref(asker->id);
    free(asker);
}

/* Sends `failure` to the asker, unless the lobby is going away. */
static void asker_fail(const struct asker *asker, const protocol_failure *failure)
{
    if (failure->code != PROTOCOL_E_SHUTTING_DOWN)
        lobby_send_failure(asker->lobby, asker->connection, asker->id, failure);
}

static void reply_view(struct lobby *lobby, uint64_t connection, struct tournament *tournament,
                       const json_t *id)
{
    lobby_send_json(lobby, connection,
                    json_pack("{s:s, s:o}", "type", "tournament", "tournament",
                              tournament_view_json(tournament->machine.record, true)),
                    id);
}

/* tournament.create's answer: the creator watches the tournament and gets
 * its view. */
static void created(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    struct asker *asker = context;
    struct tournament *tournament =
        rc == 0 ? id_table_get(&asker->lobby->tournaments, (uint64_t)id) : NULL;
    protocol_failure ended;
    if (rc == 0 && !tournament) { /* it was over at once (an empty Swiss field cannot be) */
        protocol_fail(&ended, PROTOCOL_E_INTERNAL, "the tournament ended at once");
        failure = &ended;
    }
    if (failure) {
        asker_fail(asker, failure);
    } else {
        add_watcher(tournament, asker->connection);
        reply_view(asker->lobby, asker->connection, tournament, asker->id);
    }
    asker_free(asker);
}

static int create(struct lobby *lobby, struct client *client, const protocol_message *message,
                  protocol_failure *failure)
{
    if (!client->player->is_account)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED,
                             "only named accounts create tournaments (account.register)");
    struct asker *asker = asker_new(lobby, client, message);
    if (!asker)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    int rc = lobby_tournament_create(lobby, &message->body.tournament, client->player->player_id,
                                     created, asker, failure);
    if (rc != 0)
        asker_free(asker);
    return rc;
}

static int watch(struct lobby *lobby, struct client *client, const protocol_message *message,
                 protocol_failure *failure)
{
    struct tournament *tournament =
        id_table_get(&lobby->tournaments, (uint64_t)message->body.tournament_id);
    if (!tournament && lobby->config.instance)
        return leases_find_tournament(lobby, client, message, failure); /* run elsewhere? */
    if (!tournament)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_TOURNAMENT,
                             "no running tournament %lld (finished ones are at "
                             "/api/tournaments/ID)",
                             (long long)message->body.tournament_id);
    if (add_watcher(tournament, client->connection) != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    reply_view(lobby, client->connection, tournament, message->id);
    return 0;
}

int tournament_check_owner(const store_tournament_info *info, int64_t id, int64_t actor,
                           protocol_failure *failure)
{
    if (!actor || info->created_by == actor)
        return 0;
    return protocol_fail(failure, PROTOCOL_E_NOT_OWNER,
                         "only the account that created tournament %lld, or the admin, may "
                         "cancel it",
                         (long long)id);
}

int lobby_tournament_cancel(struct lobby *lobby, int64_t id, int64_t actor,
                            lobby_tournament_answer *answer, void *context,
                            protocol_failure *failure)
{
    struct tournament *tournament = id_table_get(&lobby->tournaments, (uint64_t)id);
    if (!tournament && lobby->config.shares_lobby && lobby->config.instance)
        return tournament_notices_cancel(lobby, id, actor, answer, context, failure);
    if (!tournament)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_TOURNAMENT, "no running tournament %lld",
                             (long long)id);
    int refused = tournament_check_owner(&tournament->machine.record->info, id, actor, failure);
    if (refused)
        return refused;
    if (tournament->is_running || tournament->asker.answer) /* not from a request: defensive */
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "the tournament is busy; try again");
    lobby_log(lobby, "tournament %lld: cancelled by %s", (long long)id,
              actor ? "its creator" : "the admin");
    tournament->asker = (struct cancel_asker){answer, context};
    feed(lobby, tournament,
         &(tournament_event){.kind = TOURNAMENT_EVENT_CANCEL, .now_ms = lobby_now(lobby)});
    return 0;
}

/* tournament.cancel's answer. */
static void cancel_answered(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    struct asker *asker = context;
    if (rc != 0)
        asker_fail(asker, failure);
    else
        lobby_send_json(asker->lobby, asker->connection,
                        json_pack("{s:s, s:I}", "type", "tournament.cancelled", "tournament_id",
                                  (json_int_t)id),
                        asker->id);
    asker_free(asker);
}

static int cancel(struct lobby *lobby, struct client *client, const protocol_message *message,
                  protocol_failure *failure)
{
    if (!client->player->is_account)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED,
                             "only named accounts cancel tournaments, their own");
    if (lobby->config.instance &&
        !id_table_get(&lobby->tournaments, (uint64_t)message->body.tournament_id))
        return leases_find_tournament(lobby, client, message, failure); /* run elsewhere? */
    struct asker *asker = asker_new(lobby, client, message);
    if (!asker)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    int rc = lobby_tournament_cancel(lobby, message->body.tournament_id, client->player->player_id,
                                     cancel_answered, asker, failure);
    if (rc != 0)
        asker_free(asker);
    return rc;
}

/* ---- invitations --------------------------------------------------------- */

/* An invitation sent or accepted, on its way to the store: the asker is
 * answered once it is stored. */
struct invitation {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct asker asker;        /* its id held */
    char inviter[STORE_NAME_SIZE];
    char invitee[STORE_NAME_SIZE];
    store_record record;
};

/* The asker hears why the invitation was not stored. */
static void invitation_refused(const struct invitation *invitation)
{
    protocol_failure failure;
    int rc = invitation->base.rc;
    if (invitation->record.kind == STORE_RECORD_INVITATION_SEND)
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the invitation: %s",
                      store_strerror(rc));
    else if (rc == STORE_E_NOT_FOUND)
        protocol_fail(&failure, PROTOCOL_E_NO_SUCH_INVITATION,
                      "%s has not invited you to its tournaments", invitation->inviter);
    else
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the acceptance: %s",
                      store_strerror(rc));
    asker_fail(&invitation->asker, &failure);
}

/* The invitation is stored: the asker hears it, and so does a connected
 * invitee of a new invitation. */
static void invitation_stored(const struct invitation *invitation)
{
    const struct asker *asker = &invitation->asker;
    if (invitation->record.kind == STORE_RECORD_INVITATION_ACCEPT) {
        lobby_send_json(
            asker->lobby, asker->connection,
            json_pack("{s:s, s:s}", "type", "tournament.accepted", "from", invitation->inviter),
            asker->id);
        return;
    }
    lobby_send_json(
        asker->lobby, asker->connection,
        json_pack("{s:s, s:s}", "type", "tournament.invited", "player", invitation->invitee),
        asker->id);
    struct player *present =
        id_table_get(&asker->lobby->players, (uint64_t)invitation->record.invitation.invitee_id);
    if (present && present->connection)
        lobby_send_json(
            asker->lobby, present->connection,
            json_pack("{s:s, s:s}", "type", "tournament.invitation", "from", invitation->inviter),
            NULL);
}

static void invitation_finish(struct runner_commit *base, bool is_live)
{
    struct invitation *invitation = (struct invitation *)base;
    if (is_live && base->rc != STORE_OK)
        invitation_refused(invitation);
    else if (is_live)
        invitation_stored(invitation);
    json_decref(invitation->asker.id);
    free(invitation);
}

/* Submits `kind` between the two accounts for `client`'s message `id`. */
static int submit_invitation(struct lobby *lobby, struct client *client, const json_t *id,
                             store_record_kind kind, const store_account *inviter,
                             const store_account *invitee, protocol_failure *failure)
{
    struct invitation *invitation = calloc(1, sizeof(*invitation));
    if (!invitation)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    invitation->base = (struct runner_commit){.lobby = lobby, .finish = invitation_finish};
    invitation->asker = (struct asker){lobby, client->connection, json_incref((json_t *)id)};
    snprintf(invitation->inviter, sizeof(invitation->inviter), "%s", inviter->name);
    snprintf(invitation->invitee, sizeof(invitation->invitee), "%s", invitee->name);
    invitation->record = (store_record){.kind = kind, .at_ms = lobby_now(lobby)};
    invitation->record.invitation = (store_record_invite){inviter->id, invitee->id, false};
    invitation->base.batch = (store_batch){&invitation->record, 1, STORE_ORDER_SUBMITTED};
    runner_submit(&invitation->base);
    return 0;
}

/* The other account of an invitation, looked up (lookup->detail: the
 * record kind, lookup->context: the name asked for): the invitation goes
 * on to the store. */
static int invitation_account_found(struct lobby *lobby, struct client *client,
                                    struct client_lookup *lookup, protocol_failure *failure)
{
    const char *name = lookup->context;
    const store_record_find_account *find = &lookup->record.find_account;
    bool is_invite = lookup->detail == STORE_RECORD_INVITATION_SEND;
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look '%.32s' up: %s", name,
                             store_strerror(lookup->base.rc));
    if (!find->is_found)
        return protocol_fail(failure,
                             is_invite ? PROTOCOL_E_BAD_MESSAGE : PROTOCOL_E_NO_SUCH_INVITATION,
                             "no account or bot account is called '%.32s'", name);
    const struct player *player = client->player;
    if (!player || (is_invite && !player->is_account))
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, "signed in elsewhere meanwhile");
    if (is_invite && find->account.id == player->player_id)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "you may enter yourself without an invitation");
    store_account self = {.id = player->player_id};
    snprintf(self.name, sizeof(self.name), "%s", player->name);
    return is_invite ? submit_invitation(lobby, client, lookup->id, STORE_RECORD_INVITATION_SEND,
                                         &self, &find->account, failure)
                     : submit_invitation(lobby, client, lookup->id, STORE_RECORD_INVITATION_ACCEPT,
                                         &find->account, &self, failure);
}

/* Looks up the account `message` names for an invitation of `kind`; one
 * whose name breaks the rules is nobody (`missing`). */
static int look_invitation_up(struct lobby *lobby, struct client *client,
                              const protocol_message *message, store_record_kind kind, int missing,
                              protocol_failure *failure)
{
    const char *name = message->body.player_name;
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    if (player_name_check(name, display, key, failure) != 0)
        return protocol_fail(failure, missing, "no account or bot account is called '%.32s'", name);
    char *asked = strdup(name);
    if (!asked)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    store_record record = account_find(lobby, key);
    return client_lookup_submit(lobby, client, message->id, &record, invitation_account_found,
                                (int)kind, asked, free, failure);
}

/* tournament.invite: the invitee hears of it at once when connected. */
static int invite(struct lobby *lobby, struct client *client, const protocol_message *message,
                  protocol_failure *failure)
{
    if (!client->player->is_account)
        return protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED,
                             "only named accounts invite players to tournaments");
    return look_invitation_up(lobby, client, message, STORE_RECORD_INVITATION_SEND,
                              PROTOCOL_E_BAD_MESSAGE, failure);
}

/* tournament.accept: by the invitee, of a stored player's invitation. */
static int accept_invitation(struct lobby *lobby, struct client *client,
                             const protocol_message *message, protocol_failure *failure)
{
    if (!client->player->player_id)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_INVITATION, "nobody invited you");
    return look_invitation_up(lobby, client, message, STORE_RECORD_INVITATION_ACCEPT,
                              PROTOCOL_E_NO_SUCH_INVITATION, failure);
}

int tournament_handle(struct lobby *lobby, struct client *client, const protocol_message *message,
                      protocol_failure *failure)
{
    switch (message->type) {
    case PROTOCOL_TOURNAMENT_CREATE:
        return create(lobby, client, message, failure);
    case PROTOCOL_TOURNAMENT_CANCEL:
        return cancel(lobby, client, message, failure);
    case PROTOCOL_TOURNAMENT_INVITE:
        return invite(lobby, client, message, failure);
    case PROTOCOL_TOURNAMENT_ACCEPT:
        return accept_invitation(lobby, client, message, failure);
    default:
        return watch(lobby, client, message, failure);
    }
}
