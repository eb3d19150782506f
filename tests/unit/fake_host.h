/* fake_host.h -- a lobby host for tests: messages kept, jobs queued, a
 * clock moved by hand.
 *
 * Every message the lobby sends is parsed on arrival (it must be a JSON
 * object with a string "type") and kept in its connection's inbox. Bot
 * jobs wait in a queue until the test runs them, so "a bot is thinking"
 * is a real state a test can act in. Randomness comes from a seeded
 * generator, so room codes and tokens repeat from run to run. */
#ifndef TESSERA_FAKE_HOST_H
#define TESSERA_FAKE_HOST_H

#include <jansson.h>
#include <stdbool.h>

#include "engine/rng.h"
#include "lobby/lobby.h"

#define FAKE_HOST_CONNECTIONS 16
#define FAKE_HOST_JOBS        256

struct fake_host {
    json_t *inbox[FAKE_HOST_CONNECTIONS]; /* arrays of received messages */
    bool is_closed[FAKE_HOST_CONNECTIONS];
    int granted[FAKE_HOST_CONNECTIONS]; /* messages granted free of rate credits */
    lobby_job *jobs[FAKE_HOST_JOBS];
    int job_count;
    bool is_queue_refusing; /* queue_work fails, as when the pool is out of memory */
    int64_t now;
    rng random;
};

extern struct fake_host host;
extern const lobby_host FAKE_HOST;

/* Empty inboxes and queue, the clock at a fixed date, randomness from `seed`. */
void fake_host_reset(uint64_t seed);

/* Frees the inboxes (jobs must have been run). */
void fake_host_release(void);

/* Runs queued jobs, oldest first, including the jobs they queue, until
 * none is left or `limit` ran; returns how many ran. */
int fake_host_run_jobs(int limit);

/* Restores `lobby` (lobby_restore) over a store port that answers at
 * once: what it ended with (the games restored, or a store error). */
int fake_host_restore(struct lobby *lobby);

#endif
