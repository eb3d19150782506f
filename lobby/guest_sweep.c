/* guest_sweep.c -- unclaimed guests expired, a batch at a time.
 *
 * A stored guest that nobody claimed and nothing stored names (no seat,
 * Reef run or rating) is deleted guest_ttl_ms after it was stored, so its
 * token stops working. The store walks the guests oldest first from a
 * cursor, through an index, a batch per commit; this file decides when a
 * batch runs and keeps the cursor. A batch is a record of its own
 * (STORE_RECORD_GUESTS_EXPIRE) that carries all it needs -- the cutoff,
 * the batch's size, the cursor and a sorted snapshot of the player ids
 * this process holds (connected, or named by a room: a waiting room's seat
 * is not stored yet) -- since a store on another thread can call nothing
 * of the lobby's. Its counts and the moved cursor come back in the record
 * and are taken only from a batch that was stored: a failed batch looks
 * at the same guests next time. One batch is out at a time.
 *
 * A guest that signs in with its token while its batch is out was idle
 * for the whole TTL and may still be deleted, as if a moment earlier: its
 * player keeps the id in memory, a write naming it fails (storage_error),
 * and its token is unknown at its next sign-in. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"

/* The sweep looks at this many stored guests at a time, once a minute, or
 * on the next tick while it finds a full batch (a backlog). */
#define GUEST_SWEEP_BATCH       100
#define GUEST_SWEEP_INTERVAL_MS (60 * 1000)

/* A batch on its way to the store. */
struct guest_sweep {
    struct runner_commit base; /* first: the runner's commit is this one */
    int64_t *held;             /* owned: the record's snapshot */
    store_record record;
};

/* A snapshot being made. */
struct held_ids {
    int64_t *ids;
    int count;
};

/* Appends the player's stored id to the snapshot. */
static void add_held(void *value, void *context)
{
    const struct player *player = value;
    struct held_ids *held = context;
    held->ids[held->count++] = player->player_id;
}

/* The sorted ids of the players this process holds into `sweep`, in an
 * array *held the caller frees: 0, or STORE_E_NOMEM. */
static int snapshot_held(struct lobby *lobby, store_record_guest_sweep *sweep, int64_t **held)
{
    size_t count = lobby->players.count;
    struct held_ids snapshot = {malloc((count ? count : 1) * sizeof(int64_t)), 0};
    if (!snapshot.ids)
        return STORE_E_NOMEM;
    id_table_each(&lobby->players, add_held, &snapshot);
    qsort(snapshot.ids, (size_t)snapshot.count, sizeof(int64_t), store_id_order);
    *held = snapshot.ids;
    sweep->held = snapshot.ids;
    sweep->held_count = snapshot.count;
    return STORE_OK;
}

/* When the next batch is due: at once while there is a backlog. */
static void schedule_next(struct lobby *lobby, int64_t now, bool has_backlog)
{
    int64_t ttl = lobby->config.guest_ttl_ms;
    lobby->guest_sweep_at_ms =
        has_backlog ? now : now + (ttl < GUEST_SWEEP_INTERVAL_MS ? ttl : GUEST_SWEEP_INTERVAL_MS);
}

/* The store's answer: a stored batch moves the cursor on. */
static void sweep_finish(struct runner_commit *base, bool is_live)
{
    struct guest_sweep *batch = (struct guest_sweep *)base;
    struct lobby *lobby = base->lobby;
    const store_record_guest_sweep *sweep = &batch->record.sweep;
    if (is_live) {
        lobby->is_sweeping_guests = false;
        if (base->rc != STORE_OK)
            lobby_log(lobby, "guest expiry failed: %s", store_strerror(base->rc));
        else
            lobby->guest_cursor = sweep->cursor;
        if (base->rc == STORE_OK && sweep->deleted > 0)
            lobby_log(lobby, "expired %d unclaimed guest%s", sweep->deleted,
                      sweep->deleted == 1 ? "" : "s");
        schedule_next(lobby, lobby_now(lobby),
                      base->rc == STORE_OK && sweep->looked_at == GUEST_SWEEP_BATCH);
    }
    free(batch->held);
    free(batch);
}

void guest_sweep_tick(struct lobby *lobby, int64_t now)
{
    int64_t ttl = lobby->config.guest_ttl_ms;
    if (ttl <= 0 || now < lobby->guest_sweep_at_ms || lobby->is_sweeping_guests)
        return;
    struct guest_sweep *batch = calloc(1, sizeof(*batch));
    int rc = batch ? STORE_OK : STORE_E_NOMEM;
    if (rc == STORE_OK) {
        batch->record = (store_record){.kind = STORE_RECORD_GUESTS_EXPIRE, .at_ms = now};
        batch->record.sweep = (store_record_guest_sweep){
            .before_ms = now - ttl, .limit = GUEST_SWEEP_BATCH, .cursor = lobby->guest_cursor};
        rc = snapshot_held(lobby, &batch->record.sweep, &batch->held);
    }
    if (rc != STORE_OK) {
        lobby_log(lobby, "guest expiry failed: %s", store_strerror(rc));
        free(batch);
        schedule_next(lobby, now, false);
        return;
    }
    batch->base = (struct runner_commit){.lobby = lobby, .finish = sweep_finish};
    batch->base.batch = (store_batch){&batch->record, 1, STORE_ORDER_SUBMITTED};
    lobby->is_sweeping_guests = true;
    runner_submit(&batch->base);
}
