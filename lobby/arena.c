/* arena.c -- the `arenas` setting (arena.h), and starting arenas on time:
 * the shell of each arena's schedule (arena_schedule.h, the timing rule),
 * which reads the arena's last start and starts its tournaments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lobby/arena.h"
#include "lobby/lobby_internal.h"
#include "lobby/tournament.h"

/* Copies a word of at most size - 1 bytes: 0, or -1 if it is longer. */
static int copy_word(char *out, size_t size, const char *word)
{
    if (!word || strlen(word) >= size)
        return -1;
    memcpy(out, word, strlen(word) + 1);
    return 0;
}

static int parse_count(const char *text, int maximum, int *out)
{
    char *end;
    long value = strtol(text, &end, 10);
    if (*end || end == text || value < 1 || value > maximum)
        return -1;
    *out = (int)value;
    return 0;
}

static int parse_bots(char *list, arena_spec *out)
{
    char *save = NULL;
    for (char *bot = strtok_r(list, ",", &save); bot; bot = strtok_r(NULL, ",", &save)) {
        if (out->bot_count == ARENA_MAX_BOTS ||
            copy_word(out->bots[out->bot_count++], ARENA_WORD_SIZE, bot) != 0)
            return -1;
    }
    return out->bot_count > 0 ? 0 : -1;
}

/* One option word, "rounds=3" and the like. */
static int parse_option(char *word, arena_spec *out)
{
    char *value = strchr(word, '=');
    if (!value)
        return -1;
    *value++ = '\0';
    if (strcmp(word, "rounds") == 0)
        return parse_count(value, 63, &out->rounds);
    if (strcmp(word, "games") == 0)
        return parse_count(value, 100, &out->games);
    if (strcmp(word, "parallel") == 0)
        return parse_count(value, 64, &out->parallel);
    if (strcmp(word, "bots") == 0)
        return parse_bots(value, out);
    return -1;
}

/* One arena's words; `words` is cut in place. */
static int parse_one(char *words, arena_spec *out, const char **bad)
{
    char *word[16];
    int count = 0;
    char *save = NULL;
    for (char *next = strtok_r(words, " \t", &save); next && count < 16;
         next = strtok_r(NULL, " \t", &save))
        word[count++] = next;
    memset(out, 0, sizeof(*out));
    *bad = count ? word[0] : "(empty)";
    if (count < 6 || copy_word(out->name, sizeof(out->name), word[0]) != 0)
        return -1;
    int period = 0;
    *bad = word[2];
    if (strcmp(word[1], "every") != 0 || parse_count(word[2], 7 * 24 * 3600, &period) != 0 ||
        period < 60)
        return -1;
    out->period_s = period;
    *bad = word[3];
    if (copy_word(out->game, sizeof(out->game), word[3]) != 0 ||
        copy_word(out->mode, sizeof(out->mode), word[4]) != 0 ||
        copy_word(out->format, sizeof(out->format), word[5]) != 0)
        return -1;
    for (int i = 6; i < count; i++) {
        *bad = word[i];
        if (parse_option(word[i], out) != 0)
            return -1;
    }
    return 0;
}

int arena_parse_list(const char *text, arena_spec *out, int *count, char *error, size_t size)
{
    *count = 0;
    char *copy = strdup(text);
    if (!copy) {
        snprintf(error, size, "out of memory");
        return -1;
    }
    int rc = 0;
    char *save = NULL;
    for (char *one = strtok_r(copy, ";", &save); one && rc == 0; one = strtok_r(NULL, ";", &save)) {
        if (strspn(one, " \t") == strlen(one))
            continue; /* an empty entry, e.g. after a final ';' */
        const char *bad = NULL;
        char words[512];
        snprintf(words, sizeof(words), "%s", one);
        if (*count == ARENA_MAX) {
            snprintf(error, size, "at most %d arenas", ARENA_MAX);
            rc = -1;
        } else if (parse_one(words, &out[*count], &bad) != 0) {
            snprintf(error, size,
                     "arena %d: '%s' does not fit NAME every SECONDS(>=60) GAME MODE FORMAT "
                     "[rounds=N] [games=N] [parallel=N] [bots=KIND,...]",
                     *count + 1, bad ? bad : "");
            rc = -1;
        } else {
            (*count)++;
        }
    }
    free(copy);
    return rc;
}

/* ---- starting arenas ----------------------------------------------------- */

/* {"player": NAME} for every bot account connected now (signed in with
 * its key: a guest marked as a bot is no bot account). */
static void add_connected_bots(struct lobby *lobby, json_t *participants)
{
    size_t count;
    void **clients = id_table_values(&lobby->clients, &count);
    for (size_t i = 0; clients && i < count; i++) {
        const struct player *player = ((struct client *)clients[i])->player;
        if (player && player->is_bot_account)
            json_array_append_new(participants, json_pack("{s:s}", "player", player->name));
    }
    free(clients);
}

/* An arena's tournament on its way to the store. */
struct arena_start {
    struct lobby *lobby;
    const arena_spec *spec; /* in the lobby's config */
};

/* The answer to an arena's tournament creation: a line of the log. */
static void arena_started(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    struct arena_start *start = context;
    if (rc == 0)
        lobby_log(start->lobby, "arena %s started tournament %lld", start->spec->name,
                  (long long)id);
    else if (rc != PROTOCOL_E_SHUTTING_DOWN)
        lobby_log(start->lobby, "arena %s cannot start: %s", start->spec->name, failure->message);
    free(start);
}

static void start_arena(struct lobby *lobby, const arena_spec *spec, int64_t start_ms)
{
    protocol_tournament_create request;
    memset(&request, 0, sizeof(request));
    time_t start = (time_t)(start_ms / 1000);
    struct tm utc;
    gmtime_r(&start, &utc);
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &utc);
    snprintf(request.name, sizeof(request.name), "%s %s", spec->name, when);
    snprintf(request.room.game, sizeof(request.room.game), "%s", spec->game);
    snprintf(request.room.mode, sizeof(request.room.mode), "%s", spec->mode);
    snprintf(request.format, sizeof(request.format), "%s", spec->format);
    request.rounds = spec->rounds;
    request.games = spec->games;
    request.parallel = spec->parallel;
    request.participants = json_array();
    add_connected_bots(lobby, request.participants);
    for (int i = 0; i < spec->bot_count; i++)
        json_array_append_new(request.participants, json_pack("{s:s}", "bot", spec->bots[i]));
    protocol_failure failure;
    struct arena_start *answer = malloc(sizeof(*answer));
    if (answer)
        *answer = (struct arena_start){lobby, spec};
    if (json_array_size(request.participants) < 2) {
        lobby_log(lobby, "arena %s skips %s: fewer than two bots are here", spec->name, when);
        free(answer);
    } else if (!answer) {
        lobby_log(lobby, "arena %s cannot start: out of memory", spec->name);
    } else if (tournament_create(lobby, &request, spec->name, start_ms, 0, arena_started, answer,
                                 &failure) != 0) {
        arena_started(answer, failure.code, 0, &failure);
    }
    json_decref(request.participants);
}

/* A read of an arena's last start, on its way to the store. */
struct arena_read {
    struct runner_commit base; /* first: the runner's commit is this one */
    int arena;                 /* its index in the lobby's arenas */
    store_record record;
};

/* Runs `event` on arena `index`'s schedule and carries its effect out. */
static void run_schedule(struct lobby *lobby, int index, const arena_schedule_event *event);

/* The store's answer to a read, as the event that gives it to the arena's
 * schedule. */
static void arena_read_finish(struct runner_commit *base, bool is_live)
{
    struct arena_read *read = (struct arena_read *)base;
    const store_record_find_arena *find = &read->record.find_arena;
    arena_schedule_event event = {.kind = ARENA_SCHEDULE_READ_FAILED};
    if (base->rc == STORE_OK)
        event = find->is_found ? (arena_schedule_event){.kind = ARENA_SCHEDULE_LAST_START,
                                                        .last_start_ms = find->last_start_ms}
                               : (arena_schedule_event){.kind = ARENA_SCHEDULE_NEVER};
    if (is_live && !base->lobby->is_shutting_down)
        run_schedule(base->lobby, read->arena, &event);
    free(read);
}

/* Asks the store when arena `index` last started; the answer comes back
 * as an event. Out of memory is a failed read: the next tick asks again. */
static void read_last_start(struct lobby *lobby, int index)
{
    struct arena_read *read = calloc(1, sizeof(*read));
    if (!read) {
        arena_schedule_event failed = {.kind = ARENA_SCHEDULE_READ_FAILED};
        run_schedule(lobby, index, &failed);
        return;
    }
    read->base = (struct runner_commit){.lobby = lobby, .finish = arena_read_finish};
    read->arena = index;
    read->record = (store_record){.kind = STORE_RECORD_FIND_ARENA_START, .at_ms = lobby_now(lobby)};
    snprintf(read->record.find_arena.arena, sizeof(read->record.find_arena.arena), "%s",
             lobby->config.arenas[index].name);
    read->base.batch = (store_batch){&read->record, 1, STORE_ORDER_SUBMITTED};
    runner_submit(&read->base);
}

static void run_schedule(struct lobby *lobby, int index, const arena_schedule_event *event)
{
    arena_schedule_effect effect;
    arena_schedule_apply(&lobby->arenas[index], event, &effect);
    if (effect.action == ARENA_SCHEDULE_READ)
        read_last_start(lobby, index);
    else if (effect.action == ARENA_SCHEDULE_START)
        start_arena(lobby, &lobby->config.arenas[index], effect.period_start_ms);
}

void arenas_tick(struct lobby *lobby, int64_t now_ms)
{
    for (int i = 0; i < lobby->config.arena_count && !lobby->is_shutting_down; i++) {
        arena_schedule_event event = {.kind = ARENA_SCHEDULE_TICK,
                                      .now_ms = now_ms,
                                      .period_ms = lobby->config.arenas[i].period_s * 1000};
        run_schedule(lobby, i, &event);
    }
}
