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

static void enqueue(struct room *room)
{
    room->is_bot_queued = true;
    fifo_push(&room->lobby->bot_queue, &room->bot_waiting);
}

static struct room *dequeue(struct lobby *lobby)
{
    struct room *room = FIFO_ITEM(fifo_pop(&lobby->bot_queue), struct room, bot_waiting);
    if (room)
        room->is_bot_queued = false;
    return room;
}

/* Takes `room` out of the queue wherever it is (a room going away). */
static void unqueue(struct room *room)
{
    fifo_remove(&room->lobby->bot_queue, &room->bot_waiting);
    room->is_bot_queued = false;
}

static void running_add(struct lobby *lobby, struct bot_job *job)
{
    job->next_running = lobby->running_jobs;
    lobby->running_jobs = job;
    lobby->jobs_in_flight++;
}

static void running_remove(struct lobby *lobby, struct bot_job *job)
{
    struct bot_job **link = &lobby->running_jobs;
    while (*link && *link != job)
        link = &(*link)->next_running;
    if (*link)
        *link = job->next_running;
    lobby->jobs_in_flight--;
}

static void bot_work(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    job->result = game_bot_move(&job->game, job->request.seat, job->request.bot, job->think_ms,
                                job->request.seed, &job->is_cancelled, &job->move);
}

static void pump(struct lobby *lobby);

/* Hands the job's answer (or, if the search failed, the greedy move) to
 * its room; the runner asks again if it turns out stale. */
static void play_answer(struct room *room, struct bot_job *job)
{
    struct lobby *lobby = room->lobby;
    int64_t now = lobby_now(lobby);
    if (job->result != 0)
        job->result = game_bot_move(&room->match.game, job->request.seat, "greedy", 0,
                                    job->request.seed, NULL, &job->move);
    if (job->result != 0) {
        room_wake_retry(room, now); /* the timer asks for the bot again */
        return;
    }
    histogram_observe(&lobby->counters.bot_move, (double)(now - job->started_ms) / 1000.0);
    match_event event = {.kind = MATCH_EVENT_BOT_MOVE,
                         .now_ms = now,
                         .seat = job->request.seat,
                         .ply = job->request.ply,
                         .move = job->move};
    room_run(room, &event, NULL);
}

static void bot_done(lobby_job *base)
{
    struct bot_job *job = (struct bot_job *)base;
    struct lobby *lobby = job->lobby;
    running_remove(lobby, job);
    struct room *room = job->room_key ? id_table_get(&lobby->rooms, job->room_key) : NULL;
    if (room && !lobby->is_shutting_down) {
        room->is_bot_running = false;
        play_answer(room, job);
    }
    free(job);
    pump(lobby);
}

/* Thinking time left for a request at `now`: what remains of the think
 * time counted from the turn's start. */
static uint32_t think_time(const struct lobby *lobby, const match_bot_request *request, int64_t now)
{
    int64_t left = request->deadline_ms - now;
    if (left <= 0)
        return 0;
    return left < (int64_t)lobby->config.bot_think_ms ? (uint32_t)left : lobby->config.bot_think_ms;
}

/* Starts `room`'s job: 0, or -1 when it could not be handed to the host. */
static int start(struct room *room)
{
    struct lobby *lobby = room->lobby;
    struct bot_job *job = calloc(1, sizeof(*job));
    if (!job)
        return -1;
    job->base.work = bot_work;
    job->base.done = bot_done;
    job->lobby = lobby;
    job->room_key = room->key;
    job->request = room->bot;
    job->started_ms = lobby_now(lobby);
    job->think_ms = think_time(lobby, &room->bot, job->started_ms);
    atomic_init(&job->is_cancelled, false);
    job->game = room->match.game;
    if (lobby->host.queue_work(lobby->host.context, &job->base) != 0) {
        free(job);
        return -1;
    }
    room->is_bot_running = true;
    running_add(lobby, job);
    return 0;
}

static void pump(struct lobby *lobby)
{
    while (!lobby->is_shutting_down && lobby->jobs_in_flight < lobby->config.bot_jobs) {
        struct room *room = dequeue(lobby);
        if (!room)
            return;
        if (!room->wants_bot || room->is_bot_running)
            continue;
        if (start(room) != 0) {
            room_wake_retry(room, lobby_now(lobby)); /* the timer asks again */
            return;
        }
    }
}

void bots_want(struct room *room, const match_effects *effects)
{
    room->wants_bot = effects->wants_bot;
    if (effects->wants_bot)
        room->bot = effects->bot;
    if (room->wants_bot && !room->is_bot_queued && !room->is_bot_running)
        enqueue(room);
    pump(room->lobby);
}

void bots_requeue(struct room *room)
{
    if (room->wants_bot && !room->is_bot_queued && !room->is_bot_running)
        enqueue(room);
    pump(room->lobby);
}

void bots_forget(struct room *room)
{
    struct lobby *lobby = room->lobby;
    if (room->is_bot_queued)
        unqueue(room);
    for (struct bot_job *job = lobby->running_jobs; job; job = job->next_running) {
        if (job->room_key != room->key)
            continue;
        job->room_key = 0; /* its answer comes back to nothing */
        atomic_store(&job->is_cancelled, true);
    }
    room->wants_bot = false;
}

void bots_cancel_all(struct lobby *lobby)
{
    while (dequeue(lobby))
        ;
    for (struct bot_job *job = lobby->running_jobs; job; job = job->next_running)
        atomic_store(&job->is_cancelled, true);
}
