/* bots.c -- bot jobs: at most one per room, served fairly across rooms.
 *
 * A room that waits for a bot move (match's wants_bot) enters a FIFO of
 * rooms, once; at most config.bot_jobs searches run at a time on the
 * host's workers, taken from the front. So a room with a slow bot never
 * holds up another room for more than one turn of the queue, and a flood
 * of bot rooms cannot queue work without bound: the queue holds rooms,
 * not jobs.
 *
 * A bot's time counts from the start of its turn, not from the moment its
 * job starts: a job that waited in the queue thinks for what is left of
 * bot_think_ms, and one that waited longer than that plays its greedy move
 * at once. Under load bots think less instead of everyone waiting longer.
 *
 * A job searches a copy of the game and touches nothing shared; its
 * answer comes back as a MATCH_EVENT_BOT_MOVE, which match accepts only if
 * the seat still waits for exactly that move. Shutdown empties the queue
 * and sets every running job's cancel flag, which the search polls between
 * playouts, so the host's wait for running jobs is short. */
#include <stdlib.h>

#include "lobby/lobby_internal.h"

#define STORE_RETRY_MS 1000 /* a bot move that could not be stored: try again then */

static void enqueue(struct room *r)
{
    struct lobby *l = r->lobby;
    r->is_bot_queued = true;
    r->bot_queue_next = NULL;
    if (l->bot_queue_tail)
        l->bot_queue_tail->bot_queue_next = r;
    else
        l->bot_queue_head = r;
    l->bot_queue_tail = r;
}

static struct room *dequeue(struct lobby *l)
{
    struct room *r = l->bot_queue_head;
    if (!r)
        return NULL;
    l->bot_queue_head = r->bot_queue_next;
    if (!l->bot_queue_head)
        l->bot_queue_tail = NULL;
    r->is_bot_queued = false;
    r->bot_queue_next = NULL;
    return r;
}

/* Takes `r` out of the queue wherever it is (a room going away). */
static void unqueue(struct room *r)
{
    struct lobby *l = r->lobby;
    struct room **link = &l->bot_queue_head, *previous = NULL;
    while (*link && *link != r) {
        previous = *link;
        link = &(*link)->bot_queue_next;
    }
    if (!*link)
        return;
    *link = r->bot_queue_next;
    if (l->bot_queue_tail == r)
        l->bot_queue_tail = previous;
    r->is_bot_queued = false;
}

static void running_add(struct lobby *l, struct bot_job *job)
{
    job->next_running = l->running_jobs;
    l->running_jobs = job;
    l->jobs_in_flight++;
}

static void running_remove(struct lobby *l, struct bot_job *job)
{
    struct bot_job **link = &l->running_jobs;
    while (*link && *link != job)
        link = &(*link)->next_running;
    if (*link)
        *link = job->next_running;
    l->jobs_in_flight--;
}

static void bot_work(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    job->result = game_bot_move(&job->game, job->request.seat, job->request.bot, job->think_ms,
                                job->request.seed, &job->is_cancelled, &job->move);
}

static void pump(struct lobby *l);

/* Plays the job's answer (or, if the search failed, the greedy move):
 * room_run's result. */
static int play_answer(struct room *r, struct bot_job *job)
{
    struct lobby *l = r->lobby;
    int64_t now = lobby_now(l);
    if (job->result != 0)
        job->result = game_bot_move(&r->match.game, job->request.seat, "greedy", 0,
                                    job->request.seed, NULL, &job->move);
    match_event event = {.kind = MATCH_EVENT_BOT_MOVE,
                         .now_ms = now,
                         .seat = job->request.seat,
                         .ply = job->request.ply,
                         .move = job->move};
    protocol_failure failure;
    int rc = job->result == 0 ? room_run(r, &event, NULL, &failure) : PROTOCOL_E_INTERNAL;
    if (rc == PROTOCOL_E_STORAGE && (!r->wake_at_ms || r->wake_at_ms > now + STORE_RETRY_MS))
        room_wake_set(r, now + STORE_RETRY_MS); /* the timer asks for the bot again */
    return rc;
}

static void bot_done(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    struct lobby *l = job->lobby;
    running_remove(l, job);
    struct room *r = job->room_key ? id_table_get(&l->rooms, job->room_key) : NULL;
    if (r && !l->is_shutting_down) {
        r->is_bot_running = false;
        int rc = play_answer(r, job); /* may free the room */
        r = id_table_get(&l->rooms, job->room_key);
        /* A stale answer: the room still waits for a (newer) move. */
        if (r && rc != PROTOCOL_E_STORAGE && r->wants_bot && !r->is_bot_queued &&
            !r->is_bot_running)
            enqueue(r);
    }
    free(job);
    pump(l);
}

/* Thinking time left for a request at `now`: what remains of the think
 * time counted from the turn's start. */
static uint32_t think_time(const struct lobby *l, const match_bot_request *request, int64_t now)
{
    int64_t left = request->deadline_ms - now;
    if (left <= 0)
        return 0;
    return left < (int64_t)l->config.bot_think_ms ? (uint32_t)left : l->config.bot_think_ms;
}

/* Starts `r`'s job: 0, or -1 when it could not be handed to the host. */
static int start(struct room *r)
{
    struct lobby *l = r->lobby;
    struct bot_job *job = calloc(1, sizeof(*job));
    if (!job)
        return -1;
    job->base.work = bot_work;
    job->base.done = bot_done;
    job->lobby = l;
    job->room_key = r->key;
    job->request = r->bot;
    job->think_ms = think_time(l, &r->bot, lobby_now(l));
    atomic_init(&job->is_cancelled, false);
    job->game = r->match.game;
    if (l->host.queue_work(l->host.context, &job->base) != 0) {
        free(job);
        return -1;
    }
    r->is_bot_running = true;
    running_add(l, job);
    return 0;
}

static void pump(struct lobby *l)
{
    while (!l->is_shutting_down && l->jobs_in_flight < l->config.bot_jobs) {
        struct room *r = dequeue(l);
        if (!r)
            return;
        if (!r->wants_bot || r->is_bot_running)
            continue;
        if (start(r) != 0) {
            int64_t retry = lobby_now(l) + STORE_RETRY_MS; /* the timer asks again */
            if (!r->wake_at_ms || r->wake_at_ms > retry)
                room_wake_set(r, retry);
            return;
        }
    }
}

void bots_want(struct room *r, const match_effects *effects)
{
    r->wants_bot = effects->wants_bot;
    if (effects->wants_bot)
        r->bot = effects->bot;
    if (r->wants_bot && !r->is_bot_queued && !r->is_bot_running)
        enqueue(r);
    pump(r->lobby);
}

void bots_forget(struct room *r)
{
    struct lobby *l = r->lobby;
    if (r->is_bot_queued)
        unqueue(r);
    for (struct bot_job *job = l->running_jobs; job; job = job->next_running) {
        if (job->room_key != r->key)
            continue;
        job->room_key = 0; /* its answer comes back to nothing */
        atomic_store(&job->is_cancelled, true);
    }
    r->wants_bot = false;
}

void bots_cancel_all(struct lobby *l)
{
    while (dequeue(l))
        ;
    for (struct bot_job *job = l->running_jobs; job; job = job->next_running)
        atomic_store(&job->is_cancelled, true);
}
