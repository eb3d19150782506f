/* tournament_create.c -- creating a tournament (tournament.h): the
 * request checked (its games' options, its shape, who may be entered and
 * the caps), the accounts it enters looked up, then stored as one commit,
 * answered to the requester once stored. Running it is tournament.c's.
 *
 * Since entering someone plays rated games in their name, an account
 * enters only itself, its own bots, bots opened to tournaments, built-in
 * bots, and players that accepted its invitation, which the creation's
 * batch uses up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/game_wire.h"
#include "lobby/match_records.h"
#include "lobby/player_name.h"
#include "lobby/tournament.h"
#include "lobby/tournament_plan.h"

/* Tournament games' clock and policy unless the request says otherwise. */
#define DEFAULT_CLOCK_MS     60000
#define DEFAULT_INCREMENT_MS 2000
#define DEFAULT_PARALLEL     4

/* The games' options: room.create's rules, with the tournament defaults
 * (a clock and the "pass" policy) and two-seat races. */
static int parse_options(struct lobby *lobby, const protocol_tournament_create *request,
                         tournament_shape *shape, protocol_failure *failure)
{
    protocol_room_create create = request->room;
    if (!create.has_clock) {
        create.has_clock = true;
        create.clock_initial_ms = DEFAULT_CLOCK_MS;
        create.clock_increment_ms = DEFAULT_INCREMENT_MS;
    }
    if (!create.timeout[0])
        snprintf(create.timeout, sizeof(create.timeout), "pass");
    uint64_t seed;
    lobby->host.random_bytes(lobby->host.context, &seed, sizeof(seed));
    int rc = game_wire_options_parse(&create, seed & ((1ULL << 53) - 1), &shape->options, failure);
    if (rc != 0)
        return rc;
    if (shape->options.kind == GAME_REEF && !shape->options.is_race)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "reef-builder tournaments are races: mode \"race\"");
    if (shape->options.kind == GAME_REEF)
        shape->options.seat_count = 2; /* head to head */
    return 0;
}

static int parse_shape(const protocol_tournament_create *request, int entry_count,
                       tournament_shape *shape, protocol_failure *failure)
{
    if (tournament_format_parse(request->format, &shape->format) != 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'format' must be \"round-robin\", \"fixed\" or \"swiss\"");
    shape->games_per_group = request->games ? request->games : 1;
    shape->rounds = request->rounds ? request->rounds : entry_count - 1;
    shape->parallel = request->parallel ? request->parallel : DEFAULT_PARALLEL;
    int seats = shape->options.seat_count;
    if (request->games && shape->format != TOURNAMENT_FIXED)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "'games' goes with format \"fixed\"");
    if (request->rounds && shape->format != TOURNAMENT_SWISS)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'rounds' goes with format \"swiss\"");
    if (shape->format == TOURNAMENT_SWISS) {
        if (seats != 2)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "swiss pairs two-player games: blokus duo or 2p, or a reef race");
        return 0;
    }
    if (entry_count < seats)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "%d participants cannot fill games of %d seats", entry_count, seats);
    if (tournament_plan_count(shape->format, entry_count, seats, shape->games_per_group) < 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "that schedule would be more than %d games", TOURNAMENT_MAX_GAMES);
    return 0;
}

/* Whether `creator` may enter `account` without its invitation: the
 * admin (0) anyone; an account itself, its own bots, and bots their owner
 * opened to tournaments. */
static bool may_enter_freely(int64_t creator, const store_account *account)
{
    return creator == 0 || account->id == creator ||
           (account->is_bot && (account->owner_id == creator || account->is_open_to_tournaments));
}

/* A new tournament on its way to the store, in two batches on the same
 * commit (`base`): first the accounts its entries name are looked up (a
 * batch of FIND_ACCOUNT records, skipped when it names none); then one
 * batch holds the invitations it uses up (first), the tournament with its
 * entries, and a round-robin's or fixed tournament's whole schedule (a
 * Swiss pairs its first round once it runs). The TOURNAMENT_CREATE record
 * is followed by its schedule records, whose tournament id the store fills
 * in, as it finds or creates each built-in bot's rating entry
 * (store_port.h). The creation holds every string its records point to,
 * and counts against the caps until it is answered. */
struct creation {
    struct runner_commit base; /* first: the runner's commit is this one */
    lobby_tournament_answer *answer;
    void *answer_context;
    int64_t creator;
    tournament_shape shape;
    fifo_link creating; /* in lobby->creating until answered */
    store_tournament_info info;
    char name[PROTOCOL_TOURNAMENT_NAME_MAX + 1];
    char arena[ARENA_NAME_SIZE];
    char *settings;
    int entry_count;
    store_standing standings[TOURNAMENT_MAX_ENTRIES]; /* as it starts: the record's */
    store_tournament_entry entries[TOURNAMENT_MAX_ENTRIES];
    char asked[TOURNAMENT_MAX_ENTRIES][PROTOCOL_NAME_MAX + 1]; /* an account entry's name */
    int lookup_count;
    int looked_up[TOURNAMENT_MAX_ENTRIES]; /* the entry each lookup is for */
    store_record lookups[TOURNAMENT_MAX_ENTRIES];
    bool needs_invitation[TOURNAMENT_MAX_ENTRIES];
    int invitation_count;
    int invited[TOURNAMENT_MAX_ENTRIES]; /* the entry each invitation record is for */
    store_record *records;               /* the second batch's, malloc'd */
};

static void creation_free(struct creation *creation)
{
    free(creation->settings);
    free(creation->records);
    free(creation);
}

/* One participant: {"player": NAME} (an account or bot account, looked up
 * once the request is checked) or {"bot": KIND} (a built-in bot, rated by
 * its entry), as it stands in the tournament before its first game. Two
 * entries naming the same account or bot are refused. */
static int parse_entry(struct creation *creation, struct lobby *lobby, json_t *value, int index,
                       protocol_failure *failure)
{
    store_standing *out = &creation->standings[index];
    *out = (store_standing){.entry = index, .is_bot = true};
    json_t *player = json_object_get(value, "player");
    json_t *bot = json_object_get(value, "bot");
    if (!json_is_object(value) || json_object_size(value) != 1 ||
        !json_is_string(player ? player : bot))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'participants[%d]' must be {\"player\": NAME} or {\"bot\": KIND}",
                             index);
    const game_options *options = &creation->shape.options;
    if (bot) {
        const char *kind = json_string_value(bot);
        if (!game_is_bot_name(options, kind) || strlen(kind) >= sizeof(out->bot))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "'participants[%d]': no %s bot called '%.32s'", index,
                                 game_kind_name(options), kind);
        snprintf(out->bot, sizeof(out->bot), "%s", kind);
        match_records_bot_entry(kind, lobby->config.bot_think_ms, out->name);
        for (int other = 0; other < index; other++)
            if (!strcmp(creation->standings[other].bot, kind))
                return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                     "'participants[%d]' is already entered", index);
        return 0;
    }
    const char *name = json_string_value(player);
    char display[PLAYER_NAME_SIZE], key[PLAYER_NAME_SIZE];
    if (player_name_check(name, display, key, failure) != 0)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'participants[%d]': no account or bot account is called '%.32s'",
                             index, name);
    for (int lookup = 0; lookup < creation->lookup_count; lookup++)
        if (!strcmp(creation->lookups[lookup].find_account.name_key, key))
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "'participants[%d]' is already entered", index);
    snprintf(creation->asked[index], sizeof(creation->asked[index]), "%s", name);
    creation->looked_up[creation->lookup_count] = index;
    creation->lookups[creation->lookup_count++] = account_find(lobby, key);
    return 0;
}

static int parse_entries(struct creation *creation, struct lobby *lobby,
                         const protocol_tournament_create *request, protocol_failure *failure)
{
    json_t *list = request->participants;
    size_t size = json_array_size(list);
    if (!json_is_array(list) || size < 2 || size > TOURNAMENT_MAX_ENTRIES)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'participants' must be an array of 2 to %d entries",
                             TOURNAMENT_MAX_ENTRIES);
    for (size_t i = 0; i < size; i++) {
        int rc = parse_entry(creation, lobby, json_array_get(list, i), (int)i, failure);
        if (rc != 0)
            return rc;
    }
    creation->entry_count = (int)size;
    return 0;
}

/* The second batch of `creation`, whose entries are all known: 0, or -1
 * out of memory. */
static int creation_records(struct creation *creation, int64_t now)
{
    const tournament_shape *shape = &creation->shape;
    int seats = shape->options.seat_count, count = creation->entry_count;
    int games = shape->format == TOURNAMENT_SWISS
                    ? 0
                    : tournament_plan_count(shape->format, count, seats, shape->games_per_group);
    int total = creation->invitation_count + 1 + games;
    store_record *records = calloc((size_t)total, sizeof(*records));
    if (!records)
        return -1;
    int at = 0;
    for (int i = 0; i < creation->invitation_count; i++, at++) {
        records[at] = (store_record){.kind = STORE_RECORD_INVITATION_USE, .at_ms = now};
        records[at].invitation = (store_record_invite){
            creation->creator, creation->entries[creation->invited[i]].player_id, false};
    }
    records[at] = (store_record){.kind = STORE_RECORD_TOURNAMENT_CREATE, .at_ms = now};
    /* With an instance id, the tournament is leased to this instance
     * (lobby/leases.c renews it with the rooms). */
    const lobby_config *config = &creation->base.lobby->config;
    records[at++].created = (store_record_tournament){&creation->info,
                                                      count,
                                                      creation->entries,
                                                      games,
                                                      config->instance,
                                                      config->instance ? now + config->lease_ms : 0,
                                                      0};
    for (int number = 0; number < games; number++, at++) {
        records[at] = (store_record){.kind = STORE_RECORD_TOURNAMENT_SCHEDULE, .at_ms = now};
        store_record_scheduled *scheduled = &records[at].scheduled;
        *scheduled = (store_record_scheduled){0, number, 0, seats, {0}}; /* the id: the store's */
        tournament_plan_game(shape->format, count, seats, shape->games_per_group, number,
                             scheduled->seats);
    }
    creation->records = records;
    creation->base.batch = (store_batch){records, total, STORE_ORDER_SUBMITTED};
    return 0;
}

/* The stored parts of what the creator asked for, copied into `creation`
 * so that the records outlive the request: 0, or -1 out of memory. */
static int creation_fill(struct creation *creation, const protocol_tournament_create *request,
                         const char *arena, int64_t created_at)
{
    const tournament_shape *shape = &creation->shape;
    snprintf(creation->name, sizeof(creation->name), "%s", request->name);
    snprintf(creation->arena, sizeof(creation->arena), "%s", arena ? arena : "");
    creation->settings = tournament_settings_text(shape);
    if (!creation->settings)
        return -1;
    creation->info = (store_tournament_info){creation->name,
                                             game_kind_name(&shape->options),
                                             game_mode_name(&shape->options),
                                             tournament_format_name(shape->format),
                                             creation->settings,
                                             shape->options.seed,
                                             arena ? creation->arena : NULL,
                                             created_at,
                                             creation->creator};
    return 0;
}

/* The entries as the second batch stores them, with the invitations it
 * uses up: built-in bots by their rating entry, accounts by id. */
static void creation_entries(struct creation *creation)
{
    for (int i = 0; i < creation->entry_count; i++) {
        const store_standing *entry = &creation->standings[i];
        creation->entries[i] = entry->bot[0]
                                   ? (store_tournament_entry){0, entry->bot, entry->name}
                                   : (store_tournament_entry){entry->player_id, NULL, NULL};
        if (creation->needs_invitation[i])
            creation->invited[creation->invitation_count++] = i;
    }
}

/* Why the creation's batch was not stored: consent_required naming the
 * first entry whose invitation was not there, or storage_error (for an
 * arena's, maybe that its period is another instance's). */
static void creation_failure(const struct creation *creation, protocol_failure *failure)
{
    for (int i = 0; creation->base.rc == STORE_E_NOT_FOUND && i < creation->invitation_count; i++)
        if (creation->records[i].invitation.is_missing) {
            int entry = creation->invited[i];
            protocol_fail(failure, PROTOCOL_E_CONSENT_REQUIRED,
                          "'participants[%d]': %.32s has not accepted an invitation of yours "
                          "(tournament.invite, then its tournament.accept)",
                          entry, creation->asked[entry]);
            return;
        }
    if (creation->base.rc == STORE_E_CONSTRAINT && creation->arena[0])
        protocol_fail(failure, PROTOCOL_E_STORAGE,
                      "its period was started already (by another instance)");
    else
        protocol_fail(failure, PROTOCOL_E_STORAGE, "could not store the tournament: %s",
                      store_strerror(creation->base.rc));
}

/* A copy of `text` (NULL stays NULL) into *out: whether it was made. */
static bool copy_text(const char *text, const char **out)
{
    *out = text ? strdup(text) : NULL;
    return !text || *out;
}

/* The record of tournament `id` as `creation` stored it, built in memory
 * (nothing is read back): NULL out of memory. */
static store_tournament_record *stored_record(const struct creation *creation, int64_t id)
{
    store_tournament_record *record = calloc(1, sizeof(*record));
    if (!record)
        return NULL;
    const store_tournament_info *info = &creation->info;
    const store_record *schedule = &creation->records[creation->invitation_count + 1];
    int games = creation->base.batch.count - creation->invitation_count - 1;
    record->id = id;
    record->info = *info;
    /* Every text is copied, even after one fails, so none is left
     * pointing at the creation's when the record is freed. */
    const char *const texts[] = {info->name,   info->game,     info->mode,
                                 info->format, info->settings, info->arena};
    const char **copies[] = {&record->info.name,   &record->info.game,     &record->info.mode,
                             &record->info.format, &record->info.settings, &record->info.arena};
    bool is_whole = true;
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++)
        is_whole = copy_text(texts[i], copies[i]) && is_whole;
    record->finished_at_ms = -1;
    record->entry_count = creation->entry_count;
    record->entries = malloc(sizeof(*record->entries) * (size_t)creation->entry_count);
    record->game_count = games;
    record->games = calloc((size_t)(games ? games : 1), sizeof(*record->games));
    if (!is_whole || !record->entries || !record->games) {
        store_tournament_record_free(record);
        return NULL;
    }
    for (int i = 0; i < creation->entry_count; i++) {
        record->entries[i] = creation->standings[i];
        record->entries[i].player_id = creation->entries[i].player_id; /* a bot's: the store's */
    }
    for (int number = 0; number < games; number++) {
        const store_record_scheduled *scheduled = &schedule[number].scheduled;
        store_scheduled_game *scheduled_game = &record->games[number];
        *scheduled_game = (store_scheduled_game){.number = number,
                                                 .round = scheduled->round,
                                                 .seat_count = scheduled->seat_count,
                                                 .status = STORE_GAME_WAITING};
        memcpy(scheduled_game->seats, scheduled->seats,
               sizeof(int) * (size_t)scheduled->seat_count);
    }
    return record;
}

/* The creation is stored: the tournament runs from its record (a Swiss
 * pairs its first round, then games start). 0 and *id, or a failure (the
 * tournament is stored, and runs after a restart). */
static int creation_start(struct creation *creation, int64_t *id, protocol_failure *failure)
{
    struct lobby *lobby = creation->base.lobby;
    *id = creation->records[creation->invitation_count].created.id;
    const store_tournament_info *info = &creation->info;
    lobby_log(lobby, "tournament %lld created: %s, %s %s, %s, %d entries", (long long)*id,
              info->name, info->game, info->mode, info->format, creation->entry_count);
    store_tournament_record *record = stored_record(creation, *id);
    if (!record || tournament_run(lobby, record) != 0)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL,
                             "out of memory: the tournament is stored, and runs after a restart");
    return 0;
}

/* The creator hears how the creation ended (rc 0 and `id`, or `failure`),
 * and the creation is gone. */
static void creation_answer(struct creation *creation, int rc, int64_t id,
                            const protocol_failure *failure)
{
    fifo_remove(&creation->base.lobby->creating, &creation->creating);
    if (rc != 0 && rc != PROTOCOL_E_SHUTTING_DOWN)
        lobby_log(creation->base.lobby, "tournament %s not created: %s", creation->name,
                  failure->message);
    creation->answer(creation->answer_context, rc, id, rc ? failure : NULL);
    creation_free(creation);
}

static void creation_finish(struct runner_commit *base, bool is_live)
{
    struct creation *creation = (struct creation *)base;
    protocol_failure failure;
    int64_t id = 0;
    int rc = 0;
    if (!is_live)
        rc = protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    else if (base->rc != STORE_OK)
        creation_failure(creation, &failure);
    else
        rc = creation_start(creation, &id, &failure);
    if (is_live && base->rc != STORE_OK)
        rc = failure.code;
    creation_answer(creation, rc, id, &failure);
}

/* Each looked-up entry's account, into its standing: 0, or the failure
 * (an entry nobody is called, or the lookup's storage_error). */
static int accounts_take(struct creation *creation, protocol_failure *failure)
{
    for (int lookup = 0; lookup < creation->lookup_count; lookup++) {
        int index = creation->looked_up[lookup];
        const store_record_find_account *find = &creation->lookups[lookup].find_account;
        if (creation->base.rc != STORE_OK)
            return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look '%.32s' up: %s",
                                 creation->asked[index], store_strerror(creation->base.rc));
        if (!find->is_found)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "'participants[%d]': no account or bot account is called "
                                 "'%.32s'",
                                 index, creation->asked[index]);
        store_standing *out = &creation->standings[index];
        out->player_id = find->account.id;
        out->is_bot = find->account.is_bot;
        snprintf(out->name, sizeof(out->name), "%s", find->account.name);
        creation->needs_invitation[index] = !may_enter_freely(creation->creator, &find->account);
    }
    return 0;
}

/* The first batch's answer: the creation goes on to its second batch on
 * the same commit, or the creator hears why not. */
static void accounts_found(struct runner_commit *base, bool is_live)
{
    struct creation *creation = (struct creation *)base;
    protocol_failure failure;
    int rc = is_live
                 ? accounts_take(creation, &failure)
                 : protocol_fail(&failure, PROTOCOL_E_SHUTTING_DOWN, "the server is shutting down");
    if (rc != 0) {
        creation_answer(creation, rc, 0, &failure);
        return;
    }
    creation_entries(creation);
    creation->base = (struct runner_commit){.lobby = base->lobby, .finish = creation_finish};
    if (creation_records(creation, lobby_now(base->lobby)) != 0) {
        creation_answer(creation, protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory"), 0,
                        &failure);
        return;
    }
    runner_submit(&creation->base);
}

/* ---- caps ------------------------------------------------------------------ */

/* The tournaments running and being created: how many, and how many of
 * them `account` holds with how many games at once (their `parallel`). */
static int count_all(struct lobby *lobby, int64_t account, int *tournaments, int *rooms)
{
    int count = tournaments_held(lobby, account, tournaments, rooms);
    for (fifo_link *link = lobby->creating.head; link; link = link->next, count++) {
        const struct creation *creation = FIFO_ITEM(link, struct creation, creating);
        if (creation->creator != account)
            continue;
        (*tournaments)++;
        *rooms += creation->shape.parallel;
    }
    return count;
}

/* An account's cap: the setting, within `share` percent of the server's. */
static int account_cap(int setting, int server_cap, int share)
{
    int shared = (int)((int64_t)server_cap * share / 100);
    if (shared < 1)
        shared = 1;
    return setting < shared ? setting : shared;
}

/* The server's places: the admin and arenas (creator 0) may fill them all,
 * an account all but the reserve. */
static int check_places(struct lobby *lobby, int64_t creator, protocol_failure *failure)
{
    const lobby_config *config = &lobby->config;
    int held = 0, rooms = 0;
    int running = count_all(lobby, creator, &held, &rooms);
    if (running >= config->max_tournaments)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "the server runs its maximum of %d tournaments",
                             config->max_tournaments);
    if (creator && running >= config->max_tournaments - config->tournament_reserve)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_ROOMS,
                             "the server runs %d tournaments; its last %d places are kept for the "
                             "admin and arenas",
                             running, config->tournament_reserve);
    return 0;
}

/* An account's caps, for a new tournament playing `parallel` games at once. */
static int check_account(struct lobby *lobby, int64_t creator, int parallel,
                         protocol_failure *failure)
{
    if (!creator)
        return 0;
    const lobby_config *config = &lobby->config;
    int held = 0, held_rooms = 0;
    count_all(lobby, creator, &held, &held_rooms);
    int tournaments = account_cap(config->tournaments_per_account, config->max_tournaments,
                                  config->tournament_share);
    int rooms = account_cap(config->tournament_rooms_per_account, config->max_rooms,
                            config->tournament_share);
    if (held >= tournaments)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_TOURNAMENTS,
                             "an account runs at most %d tournaments at once and you run %d: "
                             "cancel one first (tournament.cancel)",
                             tournaments, held);
    if (held_rooms + parallel > rooms)
        return protocol_fail(failure, PROTOCOL_E_TOO_MANY_TOURNAMENTS,
                             "your tournaments would play %d games at once, an account's most "
                             "is %d: lower 'parallel' or cancel one",
                             held_rooms + parallel, rooms);
    return 0;
}

int lobby_tournament_create(struct lobby *lobby, const protocol_tournament_create *request,
                            int64_t creator, lobby_tournament_answer *answer, void *context,
                            protocol_failure *failure)
{
    return tournament_create(lobby, request, NULL, 0, creator, answer, context, failure);
}

int tournament_create(struct lobby *lobby, const protocol_tournament_create *request,
                      const char *arena, int64_t period_ms, int64_t creator,
                      lobby_tournament_answer *answer, void *context, protocol_failure *failure)
{
    int rc = check_places(lobby, creator, failure);
    if (rc != 0)
        return rc;
    struct creation *creation = calloc(1, sizeof(*creation));
    if (!creation)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    *creation = (struct creation){.base = {.lobby = lobby, .finish = accounts_found},
                                  .answer = answer,
                                  .answer_context = context,
                                  .creator = creator};
    rc = parse_options(lobby, request, &creation->shape, failure);
    if (rc == 0)
        rc = parse_entries(creation, lobby, request, failure);
    if (rc == 0)
        rc = parse_shape(request, creation->entry_count, &creation->shape, failure);
    if (rc == 0)
        rc = check_account(lobby, creator, creation->shape.parallel, failure);
    /* An arena's tournament is created at its period's start: instances
     * sharing a database cannot both store one period (the schema's
     * tournaments_by_arena). */
    int64_t created_at = arena ? period_ms : lobby_now(lobby);
    if (rc == 0 && creation_fill(creation, request, arena, created_at) != 0)
        rc = protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (rc != 0) {
        creation_free(creation);
        return rc;
    }
    creation->base.batch =
        (store_batch){creation->lookups, creation->lookup_count, STORE_ORDER_SUBMITTED};
    fifo_push(&lobby->creating, &creation->creating);
    runner_submit(&creation->base);
    return 0;
}
