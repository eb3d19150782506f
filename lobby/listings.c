/* listings.c -- rooms.list across instances sharing one PostgreSQL
 * database (docs/ARCHITECTURE.md, "Several instances").
 *
 * Every instance tells the others about its public rooms in notices
 * (store_notify: sent when their commit commits, heard through the
 * server's listener, lobby_listings_heard). A notice is a JSON object:
 *
 *   {"instance": "a", "until": MS, "rooms": [room objects], "gone": [codes],
 *    "hello": true}
 *
 * "rooms" holds the room object (as rooms.list shows it) of every listed
 * room that changed since the last notice, "gone" the codes of those no
 * longer listed; changes are gathered and told at most every TELL_MS,
 * so a busy room costs one entry per interval, and split into notices
 * under PostgreSQL's size limit. "until" says how long to believe them:
 * an instance sends a notice at least every lease_ms / 3, and one not
 * heard of past its "until" has died, so its rooms are dropped (whoever
 * takes them over lists them again; one that stops cleanly says so with a
 * last notice good only until then, on which the others look for its rooms
 * to take at once). "hello" asks every other instance to
 * tell all its rooms: an instance sends it whenever its listener
 * connects, as it may have missed notices, and when it hears again of an
 * instance whose rooms it dropped (it was the one that stalled). With the
 * hello of a listener that connects it tells all its own rooms too: when
 * the database comes back, the others' listeners connect again at about
 * the same time, and one that did before this one missed what this one
 * said meanwhile, while this one missed its hello.
 *
 * The others' rooms go in the same lists as this instance's own
 * (room_list.c), in the order this instance heard of them; a room here
 * outranks what another instance says of the same code. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"
#include "lobby/tournament.h"

#define TELL_MS         250
#define TELLS_PER_LEASE 3

/* One tell: its notices, each a record of the one batch. */
struct tell_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    int count;
    char **notices;
    store_record *records;
    /* the rooms told of, told again if the batch fails */
    char (*codes)[PROTOCOL_ROOM_ID_MAX + 1];
    int code_count;
};

static bool is_shared(const struct lobby *lobby)
{
    return lobby->config.shares_lobby && lobby->config.instance;
}

static void mark(struct lobby *lobby, const char *code)
{
    if (lobby->changed_count == lobby->changed_capacity) {
        int capacity = lobby->changed_capacity ? 2 * lobby->changed_capacity : 32;
        void *grown =
            realloc(lobby->changed_rooms, (size_t)capacity * sizeof(*lobby->changed_rooms));
        if (!grown) {
            lobby_log(lobby, "cannot tell the other instances of room %s: out of memory", code);
            return;
        }
        lobby->changed_rooms = grown;
        lobby->changed_capacity = capacity;
    }
    snprintf(lobby->changed_rooms[lobby->changed_count++], sizeof(*lobby->changed_rooms), "%s",
             code);
}

void listings_changed(struct room *room)
{
    if (!is_shared(room->lobby) || room->is_listing_changed)
        return;
    room->is_listing_changed = true;
    mark(room->lobby, room->code);
}

/* ---- telling ----------------------------------------------------------- */

static void tell_commit_free(struct tell_commit *commit)
{
    for (int i = 0; i < commit->count; i++)
        free(commit->notices[i]);
    free(commit->notices);
    free(commit->records);
    free(commit->codes);
    free(commit);
}

static void told(struct runner_commit *base, bool is_live)
{
    struct tell_commit *commit = (struct tell_commit *)base;
    struct lobby *lobby = base->lobby;
    if (is_live) {
        lobby->is_telling = false;
        if (base->rc != STORE_OK) {
            lobby_log(lobby, "could not tell the other instances of this one's rooms: %s",
                      store_strerror(base->rc));
            for (int i = 0; i < commit->code_count; i++) {
                struct room *room = room_find(lobby, commit->codes[i]);
                if (room)
                    listings_changed(room);
                else
                    mark(lobby, commit->codes[i]);
            }
        }
    }
    tell_commit_free(commit);
}

/* The most a notice's envelope (all but its entries) takes, "hello" included. */
#define ENVELOPE_MAX 100

/* A notice being written: its entries, each written once, in two lists. */
struct notice_parts {
    json_out rooms, gone; /* comma-separated room objects, codes */
};

/* Appends the notice of `parts` (and the hello, if `is_last` and wanted)
 * to `commit`, and empties `parts`: 0, or -1 out of memory. */
static int add_notice(struct lobby *lobby, struct tell_commit *commit, struct notice_parts *parts,
                      int64_t until, bool is_last)
{
    json_out notice = JSON_OUT_EMPTY;
    char instance[2] = {lobby->config.instance, '\0'};
    json_out_text(&notice, "{\"instance\":");
    json_out_string(&notice, instance);
    json_out_text(&notice, ",\"until\":");
    json_out_int(&notice, until);
    json_out_text(&notice, ",\"rooms\":[");
    json_out_raw(&notice, parts->rooms.data ? parts->rooms.data : "", parts->rooms.length);
    json_out_text(&notice, "],\"gone\":[");
    json_out_raw(&notice, parts->gone.data ? parts->gone.data : "", parts->gone.length);
    json_out_text(&notice, is_last && lobby->wants_hello ? "],\"hello\":true}" : "]}");
    json_out_reset(&parts->rooms);
    json_out_reset(&parts->gone);
    char **notices = realloc(commit->notices, (size_t)(commit->count + 1) * sizeof(*notices));
    if (notices)
        commit->notices = notices;
    char *text = json_out_take(&notice, NULL); /* NULL if it ran out of memory */
    if (!text || !notices) {
        free(text);
        return -1;
    }
    commit->notices[commit->count++] = text;
    return 0;
}

/* Writes into `entry` what a notice says of the room `code`: its room
 * object while it is listed, else its code (gone). Whether it is listed. */
static bool write_entry(struct lobby *lobby, const char *code, json_out *entry)
{
    struct room *room = room_find(lobby, code);
    bool is_listed = room && room->listed.index >= 0;
    json_out_reset(entry);
    if (is_listed)
        room_view_write_room(room, entry);
    else
        json_out_string(entry, code);
    return is_listed;
}

/* The notices telling the changes gathered (and the hello, if wanted),
 * each under STORE_NOTICE_SIZE_MAX: 0, or -1 when out of memory. */
static int write_notices(struct lobby *lobby, struct tell_commit *commit, int64_t until)
{
    struct notice_parts parts = {JSON_OUT_EMPTY, JSON_OUT_EMPTY};
    json_out entry = JSON_OUT_EMPTY;
    int rc = 0;
    for (int i = 0; rc == 0 && i < commit->code_count; i++) {
        json_out *list = write_entry(lobby, commit->codes[i], &entry) ? &parts.rooms : &parts.gone;
        size_t size = ENVELOPE_MAX + parts.rooms.length + parts.gone.length + entry.length + 1;
        if (entry.has_failed)
            rc = -1;
        else if (size > STORE_NOTICE_SIZE_MAX && parts.rooms.length + parts.gone.length > 0)
            rc = add_notice(lobby, commit, &parts, until,
                            false); /* full: the entry starts the next */
        if (rc == 0 && list->length > 0)
            json_out_raw(list, ",", 1);
        if (rc == 0)
            json_out_raw(list, entry.data, entry.length);
        rc = rc == 0 && list->has_failed ? -1 : rc;
    }
    if (rc == 0)
        rc = add_notice(lobby, commit, &parts, until, true);
    json_out_free(&parts.rooms);
    json_out_free(&parts.gone);
    json_out_free(&entry);
    return rc;
}

/* Sends the changes gathered since the last notice, in one batch. */
static void tell(struct lobby *lobby, int64_t now)
{
    struct tell_commit *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        lobby_log(lobby, "cannot tell the other instances of this one's rooms: out of memory");
        return;
    }
    /* The gathered codes go with the commit: changes from now on gather anew. */
    commit->codes = lobby->changed_rooms;
    commit->code_count = lobby->changed_count;
    lobby->changed_rooms = NULL;
    lobby->changed_count = lobby->changed_capacity = 0;
    for (int i = 0; i < commit->code_count; i++) {
        struct room *room = room_find(lobby, commit->codes[i]);
        if (room)
            room->is_listing_changed = false;
    }
    int64_t until = now + lobby->config.lease_ms;
    if (write_notices(lobby, commit, until) != 0 ||
        !(commit->records = calloc((size_t)commit->count, sizeof(*commit->records)))) {
        lobby_log(lobby, "cannot tell the other instances of this one's rooms: out of memory");
        commit->base = (struct runner_commit){.lobby = lobby};
        commit->base.rc = STORE_E_NOMEM;
        told(&commit->base, true); /* told again at the next tick */
        return;
    }
    for (int i = 0; i < commit->count; i++)
        commit->records[i] =
            (store_record){.kind = STORE_RECORD_NOTIFY, .at_ms = now, .notice = commit->notices[i]};
    commit->base = (struct runner_commit){.lobby = lobby, .finish = told};
    commit->base.batch = (store_batch){commit->records, commit->count, STORE_ORDER_SUBMITTED};
    lobby->wants_hello = false;
    lobby->is_telling = true;
    lobby->heartbeat_at_ms = now + lobby->config.lease_ms / TELLS_PER_LEASE;
    runner_submit(&commit->base);
}

char *listings_farewell(struct lobby *lobby, int64_t now)
{
    if (!is_shared(lobby))
        return NULL;
    char text[ENVELOPE_MAX];
    snprintf(text, sizeof(text), "{\"instance\":\"%c\",\"until\":%lld}", lobby->config.instance,
             (long long)now);
    return strdup(text);
}

/* ---- hearing ----------------------------------------------------------- */

static void remote_free(struct lobby *lobby, struct remote_room *remote)
{
    room_list_place_remote(lobby, remote, -1);
    id_table_remove(&lobby->remote_rooms, remote->key);
    json_decref(remote->room);
    free(remote);
}

void listings_forget_remote(struct lobby *lobby, uint64_t key)
{
    struct remote_room *remote = id_table_get(&lobby->remote_rooms, key);
    if (remote)
        remote_free(lobby, remote);
}

/* What `instance` tells of one of its rooms (`room`, a room object). */
static void hear_room(struct lobby *lobby, char instance, json_t *room)
{
    const char *code = NULL, *mode = NULL, *status = NULL;
    int is_private = 0;
    if (json_unpack(room, "{s:s, s:s, s:s, s:b}", "id", &code, "mode", &mode, "status", &status,
                    "private", &is_private) != 0)
        return;
    uint64_t key = room_code_key(code);
    if (!key || id_table_get(&lobby->rooms, key))
        return; /* no code, or the room is here: this instance says what it is */
    struct remote_room *remote = id_table_get(&lobby->remote_rooms, key);
    if (!remote) {
        remote = calloc(1, sizeof(*remote));
        if (!remote || id_table_put(&lobby->remote_rooms, key, remote) != 0) {
            free(remote);
            return;
        }
        *remote = (struct remote_room){.key = key, .listed = {.index = -1}};
    }
    remote->instance = instance;
    json_decref(remote->room);
    remote->room = json_incref(room);
    room_list_place_remote(lobby, remote, is_private ? -1 : room_list_of_names(mode, status));
}

static void hear_gone(struct lobby *lobby, char instance, const char *code)
{
    struct remote_room *remote = id_table_get(&lobby->remote_rooms, room_code_key(code));
    if (remote && remote->instance == instance)
        remote_free(lobby, remote);
}

static void mark_listed(void *value, void *context)
{
    struct room *room = value;
    (void)context;
    if (room->listed.index >= 0)
        listings_changed(room);
}

void lobby_listings_heard(struct lobby *lobby, const char *text)
{
    if (!is_shared(lobby))
        return;
    json_error_t error;
    json_t *notice = json_loads(text, 0, &error);
    if (notice && tournament_notices_heard(lobby, notice)) {
        json_decref(notice);
        runner_drain(lobby);
        return;
    }
    const char *instance = NULL;
    json_int_t until = 0;
    json_t *rooms = NULL, *gone = NULL;
    int is_hello = 0;
    if (!notice ||
        json_unpack(notice, "{s:s, s:I, s?o, s?o, s?b}", "instance", &instance, "until", &until,
                    "rooms", &rooms, "gone", &gone, "hello", &is_hello) != 0 ||
        strlen(instance) != 1 || !lobby_instance_is_valid(instance[0])) {
        lobby_log(lobby, "a notice from another instance is not understood: %.80s", text);
        json_decref(notice);
        return;
    }
    char from = instance[0];
    if (from != lobby->config.instance) {
        /* Heard of again after its rooms were dropped: this instance
         * stalled, or missed notices; ask for everything again. */
        lobby->wants_hello |= lobby->instance_until_ms[(unsigned char)from] < 0;
        lobby->instance_until_ms[(unsigned char)from] = until;
        if (until <= lobby_now(lobby))
            leases_take_now(lobby); /* its farewell: its leases have run out */
        size_t i;
        json_t *entry;
        json_array_foreach(rooms, i, entry) hear_room(lobby, from, entry);
        json_array_foreach(gone, i, entry)
        {
            if (json_is_string(entry))
                hear_gone(lobby, from, json_string_value(entry));
        }
        if (is_hello)
            id_table_each(&lobby->rooms, mark_listed, NULL);
    }
    json_decref(notice);
    runner_drain(lobby);
}

void lobby_listings_connected(struct lobby *lobby)
{
    if (!is_shared(lobby))
        return;
    lobby->wants_hello = true;
    id_table_each(&lobby->rooms, mark_listed, NULL);
    lobby->tell_at_ms = 0;
    runner_drain(lobby);
}

/* ---- the clock --------------------------------------------------------- */

/* Drops the rooms of every instance not heard of for too long. */
static void drop_silent(struct lobby *lobby, int64_t now)
{
    bool is_any_silent = false;
    for (int id = 0; id < 128; id++)
        is_any_silent |= lobby->instance_until_ms[id] > 0 && lobby->instance_until_ms[id] < now;
    if (!is_any_silent)
        return;
    size_t count;
    void **values = id_table_values(&lobby->remote_rooms, &count);
    for (size_t i = 0; values && i < count; i++) {
        struct remote_room *remote = values[i];
        int64_t until = lobby->instance_until_ms[(unsigned char)remote->instance];
        if (until > 0 && until < now)
            remote_free(lobby, remote);
    }
    if (!values && count > 0)
        return; /* out of memory: tried again at the next tick */
    free(values);
    for (int id = 0; id < 128; id++)
        if (lobby->instance_until_ms[id] > 0 && lobby->instance_until_ms[id] < now)
            lobby->instance_until_ms[id] = -1; /* dropped: see lobby_listings_heard */
}

void listings_tick(struct lobby *lobby, int64_t now)
{
    if (!is_shared(lobby) || lobby->is_shutting_down)
        return;
    drop_silent(lobby, now);
    bool has_news = lobby->changed_count > 0 || lobby->wants_hello;
    if (lobby->is_telling || now < lobby->tell_at_ms || (!has_news && now < lobby->heartbeat_at_ms))
        return;
    lobby->tell_at_ms = now + TELL_MS;
    tell(lobby, now);
}

static void free_remote(void *value, void *context)
{
    struct remote_room *remote = value;
    (void)context;
    json_decref(remote->room);
    free(remote);
}

void listings_free(struct lobby *lobby)
{
    id_table_each(&lobby->remote_rooms, free_remote, NULL);
    id_table_clear(&lobby->remote_rooms);
    free(lobby->changed_rooms);
    lobby->changed_rooms = NULL;
    lobby->changed_count = lobby->changed_capacity = 0;
}
