/* tournament_notices.c -- a tournament's events for its entries connected
 * to other instances sharing one PostgreSQL database
 * (docs/ARCHITECTURE.md, "Several instances").
 *
 * A tournament runs on the instance holding its lease, but a proxy sends
 * lobby traffic to any instance, so an entry may be connected elsewhere.
 * With each `tournament.*` event, the holder tells the entries it does not
 * see connected in a notice (store_notify, sent when its commit commits):
 *
 *   {"instance": "a", "tournament": ID, "tell": WHAT, "game": N, "to": [player ids]}
 *
 * WHAT is the event's tournament_tell, N the scheduled game of a
 * tournament.game. An instance with some of those players connected reads
 * the tournament as stored -- the notice leaves after the records its event
 * shows -- and sends them the event as the holder would have. Watchers
 * need none of this: a tournament.watch elsewhere is answered `moved` to
 * the holder (leases.c).
 *
 * A cancellation asked through REST of an instance not running the
 * tournament (the proxy sends REST anywhere) is checked against the stored
 * tournament (running, and the actor's to cancel) and sent on:
 *
 *   {"instance": "b", "tournament": ID, "cancel": ACTOR}
 *
 * The instance running it cancels it as lobby_tournament_cancel would
 * have for that actor. */
#include <stdlib.h>
#include <string.h>

#include "lobby/tournament.h"
#include "protocol/json_out.h"

/* A notice on its way to the store. */
struct notice_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;
    char *text;
};

static void notice_sent(struct runner_commit *base, bool is_live)
{
    struct notice_commit *commit = (struct notice_commit *)base;
    if (is_live && base->rc != STORE_OK)
        lobby_log(base->lobby, "could not tell another instance of a tournament event: %s",
                  store_strerror(base->rc));
    free(commit->text);
    free(commit);
}

/* Writes the notice of `what` for the entries of `record` not connected
 * here into `out`: whether there is any. */
static bool write_notice(struct lobby *lobby, const store_tournament_record *record,
                         tournament_tell what, int number, json_out *out)
{
    char instance[2] = {lobby->config.instance, '\0'};
    json_out_text(out, "{\"instance\":");
    json_out_string(out, instance);
    json_out_text(out, ",\"tournament\":");
    json_out_int(out, record->id);
    json_out_text(out, ",\"tell\":");
    json_out_int(out, what);
    json_out_text(out, ",\"game\":");
    json_out_int(out, number);
    json_out_text(out, ",\"to\":[");
    int count = 0;
    for (int i = 0; i < record->entry_count; i++) {
        int64_t id = record->entries[i].player_id;
        const struct player *player = id_table_get(&lobby->players, (uint64_t)id);
        if (id <= 0 || (player && player->connection))
            continue; /* a built-in bot, or connected here */
        if (count++ > 0)
            json_out_raw(out, ",", 1);
        json_out_int(out, id);
    }
    json_out_text(out, "]}");
    return count > 0;
}

/* Submits `base`, whose one record is `record`, finished by `finish`. */
static void submit_one(struct lobby *lobby, struct runner_commit *base, store_record *record,
                       runner_finish *finish)
{
    *base = (struct runner_commit){.lobby = lobby, .finish = finish};
    base->batch = (store_batch){record, 1, STORE_ORDER_SUBMITTED};
    runner_submit(base);
}

/* Submits `base` (embedding `record`) to send `notice`, which must live
 * until `finish` runs. */
static void send_notice(struct lobby *lobby, struct runner_commit *base, store_record *record,
                        const char *notice, runner_finish *finish)
{
    *record =
        (store_record){.kind = STORE_RECORD_NOTIFY, .at_ms = lobby_now(lobby), .notice = notice};
    submit_one(lobby, base, record, finish);
}

/* Submits `base` (embedding `record`) to read tournament `id` as stored
 * (FIND_TOURNAMENTS of that one), finished by `finish`. */
static void read_tournament(struct lobby *lobby, struct runner_commit *base, store_record *record,
                            int64_t id, runner_finish *finish)
{
    *record = (store_record){.kind = STORE_RECORD_FIND_TOURNAMENTS, .at_ms = lobby_now(lobby)};
    record->find_tournaments.id = id;
    submit_one(lobby, base, record, finish);
}

void tournament_notices_tell(struct lobby *lobby, const store_tournament_record *record,
                             tournament_tell what, int number)
{
    if (!lobby->config.shares_lobby || !lobby->config.instance)
        return;
    json_out text = JSON_OUT_EMPTY;
    if (!write_notice(lobby, record, what, number, &text)) {
        json_out_free(&text);
        return; /* every entry is connected here, or a built-in bot */
    }
    struct notice_commit *commit = calloc(1, sizeof(*commit));
    if (commit)
        commit->text = json_out_take(&text, NULL);
    json_out_free(&text);
    if (!commit || !commit->text) {
        lobby_log(lobby, "tournament %lld: entries elsewhere are not told: out of memory",
                  (long long)record->id);
        free(commit);
        return;
    }
    send_notice(lobby, &commit->base, &commit->record, commit->text, notice_sent);
}

/* ---- hearing ----------------------------------------------------------- */

/* A heard event on its way: the tournament being read, then sent to `to`. */
struct relay {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;       /* FIND_TOURNAMENTS of the one tournament */
    int64_t id;
    tournament_tell what;
    int number;
    int count;
    int64_t to[TOURNAMENT_MAX_ENTRIES];
};

/* The tournament is read: its event goes to those of `to` still connected. */
static void relay_read(struct runner_commit *base, bool is_live)
{
    struct relay *relay = (struct relay *)base;
    struct lobby *lobby = base->lobby;
    store_record_find_tournaments *found = &relay->record.find_tournaments;
    const store_tournament_record *record = found->count == 1 ? found->tournaments[0] : NULL;
    bool is_known =
        record && (relay->what != TOURNAMENT_TELL_GAME || relay->number < record->game_count);
    char *text =
        is_live && is_known ? tournament_event_text(record, relay->what, relay->number) : NULL;
    if (is_live && !text)
        lobby_log(lobby, "tournament %lld: an event for entries here is lost: %s",
                  (long long)relay->id,
                  base->rc != STORE_OK ? store_strerror(base->rc)
                  : is_known           ? "out of memory"
                  : record             ? "the notice names no such game"
                                       : "it could not be read");
    for (int i = 0; text && i < relay->count; i++) {
        const struct player *player = id_table_get(&lobby->players, (uint64_t)relay->to[i]);
        if (player && player->connection)
            lobby_send_text(lobby, player->connection, text, strlen(text));
    }
    free(text);
    store_found_tournaments_free(found);
    free(relay);
}

/* The players of `to` (a JSON array) connected here, into relay->to. */
static void keep_connected(struct lobby *lobby, const json_t *to, struct relay *relay)
{
    size_t i;
    const json_t *id;
    json_array_foreach(to, i, id)
    {
        const struct player *player =
            json_is_integer(id) ? id_table_get(&lobby->players, (uint64_t)json_integer_value(id))
                                : NULL;
        if (player && player->connection && relay->count < TOURNAMENT_MAX_ENTRIES)
            relay->to[relay->count++] = json_integer_value(id);
    }
}

/* A cancellation sent on (see the module comment), answered when logged. */
static void cancel_logged(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    struct lobby *lobby = context;
    if (rc != 0)
        lobby_log(lobby, "tournament %lld: a cancellation sent on by another instance failed: %s",
                  (long long)id, failure->message);
}

/* {"cancel": ACTOR}: the tournament is cancelled here if it runs here. */
static void hear_cancel(struct lobby *lobby, const json_t *notice)
{
    json_int_t id = 0, actor = -1;
    if (json_unpack((json_t *)notice, "{s:I, s:I}", "tournament", &id, "cancel", &actor) != 0 ||
        id <= 0 || actor < 0) {
        lobby_log(lobby, "a tournament notice from another instance is not understood");
        return;
    }
    protocol_failure failure;
    if (id_table_get(&lobby->tournaments, (uint64_t)id) &&
        lobby_tournament_cancel(lobby, id, actor, cancel_logged, lobby, &failure) != 0)
        cancel_logged(lobby, failure.code, id, &failure);
}

bool tournament_notices_heard(struct lobby *lobby, const json_t *notice)
{
    json_int_t id = 0, what = -1, number = -1;
    const json_t *to = NULL;
    if (json_object_get(notice, "cancel")) {
        hear_cancel(lobby, notice);
        return true;
    }
    if (!json_object_get(notice, "tell"))
        return false;
    if (json_unpack((json_t *)notice, "{s:I, s:I, s:I, s:o}", "tournament", &id, "tell", &what,
                    "game", &number, "to", &to) != 0 ||
        id <= 0 || what < TOURNAMENT_TELL_GAME || what > TOURNAMENT_TELL_CANCELLED || number < -1 ||
        number >= TOURNAMENT_MAX_GAMES || !json_is_array(to)) {
        lobby_log(lobby, "a tournament notice from another instance is not understood");
        return true;
    }
    struct relay *relay = calloc(1, sizeof(*relay));
    if (!relay) {
        lobby_log(lobby, "tournament %lld: an event for entries here is lost: out of memory",
                  (long long)id);
        return true;
    }
    keep_connected(lobby, to, relay);
    if (relay->count == 0 || (what == TOURNAMENT_TELL_GAME && number < 0)) {
        free(relay);
        return true;
    }
    relay->id = id;
    relay->what = (tournament_tell)what;
    relay->number = (int)number;
    read_tournament(lobby, &relay->base, &relay->record, id, relay_read);
    return true;
}

/* ---- cancelling elsewhere ---------------------------------------------- */

/* A cancellation on its way to the instance running the tournament: the
 * tournament read, then the notice stored. */
struct cancel_on {
    struct runner_commit base; /* first: the runner's commit is this one */
    store_record record;       /* FIND_TOURNAMENTS of the one tournament, then NOTIFY */
    int64_t id, actor;
    lobby_tournament_answer *answer;
    void *context;
    char notice[96];
};

static void cancel_sent(struct runner_commit *base, bool is_live)
{
    struct cancel_on *asked = (struct cancel_on *)base;
    protocol_failure failure;
    if (is_live && base->rc != STORE_OK) {
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not reach the instance running it: %s",
                      store_strerror(base->rc));
        asked->answer(asked->context, failure.code, asked->id, &failure);
    } else if (is_live) {
        asked->answer(asked->context, LOBBY_TOURNAMENT_SENT_ON, asked->id, NULL);
    }
    free(asked);
}

/* Whether the stored tournament `record` may be cancelled by `actor`: 0,
 * or why not in *failure (it is not running, or not the actor's). */
static int check_cancel(const store_tournament_record *record, int64_t id, int64_t actor,
                        protocol_failure *failure)
{
    if (!record || record->is_finished || record->is_cancelled)
        return protocol_fail(failure, PROTOCOL_E_NO_SUCH_TOURNAMENT, "no running tournament %lld",
                             (long long)id);
    return tournament_check_owner(&record->info, id, actor, failure);
}

/* The tournament is read: the cancellation is refused, done here (taken
 * over here meanwhile) or sent on. */
static void cancel_read(struct runner_commit *base, bool is_live)
{
    struct cancel_on *asked = (struct cancel_on *)base;
    struct lobby *lobby = base->lobby;
    store_record_find_tournaments *found = &asked->record.find_tournaments;
    const store_tournament_record *record = found->count == 1 ? found->tournaments[0] : NULL;
    protocol_failure failure;
    int rc = 0;
    bool is_here = id_table_get(&lobby->tournaments, (uint64_t)asked->id) != NULL;
    if (is_live && base->rc != STORE_OK)
        rc = protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not read the tournament: %s",
                           store_strerror(base->rc));
    else if (is_live)
        rc = check_cancel(record, asked->id, asked->actor, &failure);
    if (rc == 0 && is_live && is_here)
        rc = lobby_tournament_cancel(lobby, asked->id, asked->actor, asked->answer, asked->context,
                                     &failure);
    store_found_tournaments_free(found);
    if (rc != 0)
        asked->answer(asked->context, rc, asked->id, &failure);
    if (!is_live || rc != 0 || is_here) {
        free(asked);
        return;
    }
    char instance[2] = {lobby->config.instance, '\0'};
    snprintf(asked->notice, sizeof(asked->notice),
             "{\"instance\":\"%s\",\"tournament\":%lld,\"cancel\":%lld}", instance,
             (long long)asked->id, (long long)asked->actor);
    send_notice(lobby, &asked->base, &asked->record, asked->notice, cancel_sent);
}

int tournament_notices_cancel(struct lobby *lobby, int64_t id, int64_t actor,
                              lobby_tournament_answer *answer, void *context,
                              protocol_failure *failure)
{
    struct cancel_on *asked = calloc(1, sizeof(*asked));
    if (!asked)
        return protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
    *asked = (struct cancel_on){.id = id, .actor = actor, .answer = answer, .context = context};
    read_tournament(lobby, &asked->base, &asked->record, id, cancel_read);
    return 0;
}
