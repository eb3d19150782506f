/* account.c -- named accounts: sign-up (account.register), sign-in (hello
 * with a password), and a guest's claim of a name.
 *
 * A password is hashed or checked with Argon2id, which takes tens of
 * milliseconds and 64 MiB on purpose, so never on the loop: each request
 * becomes a job whose work() runs on a host worker and touches nothing
 * shared (it reads its own copy of the password and of the stored hash),
 * and whose done() runs back on the loop, where the store is read and
 * written and the client answered. At most config.password_jobs run at
 * once (memory is the limit); the others wait in a FIFO of at most
 * config.password_queue jobs, and past that a request is refused at once
 * with rate_limited. A connection has at most one request in flight.
 *
 * A job names its client by connection id, never by pointer: the client
 * may be gone when done() runs (ids are never reused), and then nothing
 * changes -- no account is created, no token issued.
 *
 * Sign-in gives nothing away: an unknown name, a bot account's name and a
 * wrong password all get the same `unauthorized` "wrong name or password",
 * after the same work (for a name without a password, work() hashes the
 * given one at the same cost instead of checking it). Failures are counted
 * per name and per address: past config.failures_per_name or
 * failures_per_address a minute, sign-ins are refused with rate_limited
 * before any hashing (the counting rules are lobby/account_limits.h's, a
 * pure machine this file feeds). A successful sign-in gives
 * the account a new session token (the store keeps one per player), so
 * `hello {token}` reconnects work as for guests.
 *
 * Sign-ups are limited per address by the same machine: past
 * config.registrations_per_address an hour, account.register is refused
 * with rate_limited before the name is even looked up. A sign-up counts
 * when it is queued for hashing (a taken or malformed name costs nothing),
 * so names cannot be squatted by the thousand from one address.
 *
 * A guest that registers claims the name: its stored row (or, if it never
 * sat, a new row) becomes the account, so its games stay its own. */
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"
#include "lobby/player_name.h"
#include "storage/secret.h"

#define WRONG_NAME_OR_PASSWORD "wrong name or password"

typedef enum account_job_kind {
    ACCOUNT_SIGN_IN,  /* hello {name, password} */
    ACCOUNT_REGISTER, /* account.register, before hello or by a guest */
} account_job_kind;

struct account_job {
    lobby_job base; /* first, so the host's lobby_job * is this job */
    struct lobby *lobby;
    account_job_kind kind;
    uint64_t connection;
    char address[LOBBY_ADDRESS_SIZE];
    json_t *id; /* the request's, for the reply; a reference */
    char name[PLAYER_NAME_SIZE], name_key[PLAYER_NAME_SIZE];
    char stored_name[STORE_NAME_SIZE];        /* sign-in: the account's name as stored */
    char password[PROTOCOL_PASSWORD_MAX + 1]; /* wiped by work() */
    /* Sign-in: the stored hash ("" when the name has no password) and the
     * account's id; register: the new hash, made by work(). */
    char hash[SECRET_PASSWORD_HASH_SIZE];
    int64_t account_id;
    int hash_result;   /* register: secret_password_hash's */
    bool is_verified;  /* sign-in: the password is the account's */
    fifo_link waiting; /* in lobby->account_queue */
};

int account_init(struct lobby *lobby)
{
    const lobby_config *config = &lobby->config;
    account_limits_config limits = {config->failures_per_name, config->failures_per_address,
                                    config->registrations_per_address};
    return account_limits_init(&lobby->account_limits, &limits);
}

static void job_free(struct account_job *job)
{
    secret_forget(job->password, sizeof(job->password));
    json_decref(job->id);
    free(job);
}

/* Runs on a worker: only the job's own memory. */
static void account_work(lobby_job *base)
{
    struct account_job *job = (struct account_job *)base;
    secret_password_cost cost = job->lobby->config.password_cost;
    if (job->kind == ACCOUNT_REGISTER)
        job->hash_result = secret_password_hash(job->password, cost, job->hash);
    else if (job->hash[0])
        job->is_verified = secret_password_verify(job->hash, job->password);
    else
        (void)secret_password_hash(job->password, cost, job->hash); /* as long as a check */
    secret_forget(job->password, sizeof(job->password));
}

static void account_done(lobby_job *base);

/* Hands waiting jobs to the host while fewer than password_jobs run. A job
 * the host refuses is answered with an error at once. */
static void pump(struct lobby *lobby)
{
    while (!fifo_is_empty(&lobby->account_queue) &&
           lobby->account_running < lobby->config.password_jobs) {
        struct account_job *job =
            FIFO_ITEM(fifo_pop(&lobby->account_queue), struct account_job, waiting);
        lobby->account_queued--;
        if (lobby->host.queue_work(lobby->host.context, &job->base) == 0) {
            lobby->account_running++;
            continue;
        }
        struct client *client = id_table_get(&lobby->clients, job->connection);
        if (client) {
            client->is_signing_in = false;
            protocol_failure failure = {0};
            protocol_fail(&failure, PROTOCOL_E_INTERNAL, "the server cannot check passwords now");
            lobby_send_failure(lobby, job->connection, job->id, &failure);
        }
        job_free(job);
    }
}

/* Queues a job made from `client`'s request: 0, or a failure (nothing
 * queued; the job is freed). */
static int enqueue(struct lobby *lobby, struct client *client, struct account_job *job,
                   protocol_failure *failure)
{
    if (lobby->account_queued >= lobby->config.password_queue) {
        job_free(job);
        return protocol_fail(failure, PROTOCOL_E_RATE_LIMITED,
                             "too many sign-ins at once; try again in a moment");
    }
    job->base.work = account_work;
    job->base.done = account_done;
    job->lobby = lobby;
    job->connection = client->connection;
    snprintf(job->address, sizeof(job->address), "%s", client->address);
    fifo_push(&lobby->account_queue, &job->waiting);
    lobby->account_queued++;
    client->is_signing_in = true;
    pump(lobby);
    return 0;
}

/* A new job for `name` (checked against the name rules) and `password`;
 * NULL with a failure. */
static struct account_job *job_new(const protocol_message *message, const char *name,
                                   const char *password, account_job_kind kind,
                                   protocol_failure *failure)
{
    struct account_job *job = calloc(1, sizeof(*job));
    if (!job) {
        protocol_fail(failure, PROTOCOL_E_INTERNAL, "out of memory");
        return NULL;
    }
    if (player_name_check(name, job->name, job->name_key, failure) != 0) {
        free(job);
        return NULL;
    }
    job->kind = kind;
    job->id = json_incref(message->id);
    snprintf(job->password, sizeof(job->password), "%s", password);
    return job;
}

/* ---- sign-in ------------------------------------------------------------- */

/* Runs `kind` for `name_key` (or NULL) from `address` through the limits,
 * now: the seconds to wait before the request may go on (0: now). */
static int limits_apply(struct lobby *lobby, account_limits_event_kind kind, const char *name_key,
                        const char *address)
{
    account_limits_event event = {kind, lobby_now(lobby), name_key, address};
    return account_limits_apply(&lobby->account_limits, &event);
}

static void count_failure(struct lobby *lobby, const struct account_job *job)
{
    limits_apply(lobby, ACCOUNT_LIMITS_FAILED, job->name_key, job->address);
    lobby_log(lobby, "sign-in as '%s' from %s failed", job->name, job->address);
}

store_record account_find(struct lobby *lobby, const char *name_key)
{
    store_record record = {.kind = STORE_RECORD_FIND_ACCOUNT, .at_ms = lobby_now(lobby)};
    snprintf(record.find_account.name_key, sizeof(record.find_account.name_key), "%s", name_key);
    return record;
}

/* Drops a job a lookup still holds (its client went away). */
static void job_drop(void *job)
{
    job_free(job);
}

/* Looks the account of `job`'s name up for `client`; `answered` goes on
 * with the job (lookup->context) once the store has answered. */
static int look_up(struct lobby *lobby, struct client *client, struct account_job *job,
                   client_lookup_answered *answered, protocol_failure *failure)
{
    store_record record = account_find(lobby, job->name_key);
    return client_lookup_submit(lobby, client, job->id, &record, answered, 0, job, job_drop,
                                failure);
}

/* A sign-in's account, looked up: what the store knows of the name (its
 * hash and id, or nothing for an unknown name or a bot account) goes with
 * the job to be checked on a worker. */
static int sign_in_found(struct lobby *lobby, struct client *client, struct client_lookup *lookup,
                         protocol_failure *failure)
{
    const store_record_find_account *find = &lookup->record.find_account;
    struct account_job *job = lookup->context;
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look the account up: %s",
                             store_strerror(lookup->base.rc));
    if (find->is_found && !find->account.is_bot) {
        snprintf(job->hash, sizeof(job->hash), "%s", find->account.password_hash);
        snprintf(job->stored_name, sizeof(job->stored_name), "%s", find->account.name);
        job->account_id = find->account.id;
    }
    lookup->context = NULL; /* the queue's now */
    return enqueue(lobby, client, job, failure);
}

int account_sign_in(struct lobby *lobby, struct client *client, const protocol_message *message,
                    protocol_failure *failure)
{
    const protocol_hello *hello = &message->body.hello;
    if (hello->token[0] || hello->key[0])
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'password' goes with a name alone, not with 'token' or 'key'");
    if (client->is_signing_in)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "a sign-in is already under way");
    struct account_job *job =
        job_new(message, hello->name, hello->password, ACCOUNT_SIGN_IN, failure);
    if (!job) /* a reserved name is nobody's account */
        return failure->code == PROTOCOL_E_NAME_TAKEN
                   ? protocol_fail(failure, PROTOCOL_E_UNAUTHORIZED, WRONG_NAME_OR_PASSWORD)
                   : failure->code;
    int wait_s = limits_apply(lobby, ACCOUNT_LIMITS_SIGN_IN, job->name_key, client->address);
    if (wait_s > 0) {
        job_free(job);
        return protocol_fail(failure, PROTOCOL_E_RATE_LIMITED,
                             "too many failed sign-ins; try again in %d s", wait_s);
    }
    return look_up(lobby, client, job, sign_in_found, failure);
}

/* ---- sign-up and claims --------------------------------------------------- */

int account_name_free(const struct client_lookup *lookup, const char *name,
                      protocol_failure *failure)
{
    if (lookup->base.rc != STORE_OK)
        return protocol_fail(failure, PROTOCOL_E_STORAGE, "could not look the name up: %s",
                             store_strerror(lookup->base.rc));
    if (lookup->record.find_account.is_found)
        return protocol_fail(failure, PROTOCOL_E_NAME_TAKEN, "the name '%s' is taken", name);
    return 0;
}

/* A sign-up's name, looked up: a free one goes on to be hashed. */
static int register_found(struct lobby *lobby, struct client *client, struct client_lookup *lookup,
                          protocol_failure *failure)
{
    struct account_job *job = lookup->context;
    if (account_name_free(lookup, job->name, failure) != 0)
        return failure->code;
    lookup->context = NULL; /* the queue's now */
    int rc = enqueue(lobby, client, job, failure);
    if (rc == 0) /* a sign-up counts once it is on its way to be hashed */
        limits_apply(lobby, ACCOUNT_LIMITS_REGISTERED, NULL, client->address);
    return rc;
}

int account_register(struct lobby *lobby, struct client *client, const protocol_message *message,
                     protocol_failure *failure)
{
    const struct player *player = client->player;
    if (client->is_signing_in)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "a sign-in is already under way");
    if (player && (player->is_account || player->is_bot))
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "only a guest can register: you are signed in as %s",
                             player->is_bot ? "a bot" : "an account");
    struct account_job *job = job_new(message, message->body.account.name,
                                      message->body.account.password, ACCOUNT_REGISTER, failure);
    if (!job)
        return failure->code;
    int wait_s = limits_apply(lobby, ACCOUNT_LIMITS_REGISTER, NULL, client->address);
    if (wait_s > 0) {
        job_free(job);
        return protocol_fail(failure, PROTOCOL_E_RATE_LIMITED,
                             "too many new accounts from your address; try again in %d s", wait_s);
    }
    return look_up(lobby, client, job, register_found, failure);
}

/* ---- the write ------------------------------------------------------------ */

/* A verified sign-in's new session token, or a new account, on its way
 * to the store; the client stays `is_signing_in` until the answer. */
struct account_commit {
    struct runner_commit base; /* first: the runner's commit is this one */
    struct account_job *job;   /* owned: the request, the names, the hash */
    struct player *guest;      /* a sign-up: the guest it is for (pinned), or NULL */
    char token[LOBBY_TOKEN_SIZE];
    store_record record;
};

/* The session token is stored: the client is signed in as the account. */
static void signed_in(struct lobby *lobby, struct client *client,
                      const struct account_commit *commit)
{
    const struct account_job *job = commit->job;
    protocol_failure failure = {0};
    struct player *player =
        commit->base.rc == 0 ? lobby_player_by_id(lobby, job->account_id, job->stored_name, false)
                             : NULL;
    if (commit->base.rc != 0)
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the session: %s",
                      store_strerror(commit->base.rc));
    else if (!player)
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (!player) {
        lobby_send_failure(lobby, client->connection, job->id, &failure);
        return;
    }
    player->is_account = true;
    lobby_sign_in(lobby, client, player, commit->token, job->id, " with a password");
}

/* The account is stored: its client is signed in (a guest that claimed
 * its row already is: only its token and name are new). */
static void registered(struct lobby *lobby, struct client *client,
                       const struct account_commit *commit)
{
    const struct account_job *job = commit->job;
    struct player *guest = commit->guest;
    protocol_failure failure = {0};
    int64_t id = commit->record.account.player_id;
    int rc = commit->base.rc;
    if (rc == 0 && guest && !guest->player_id)
        rc = lobby_player_stored(lobby, guest, id);
    struct player *player = guest     ? guest
                            : rc == 0 ? lobby_player_by_id(lobby, id, job->name, false)
                                      : NULL;
    if (rc == STORE_E_CONSTRAINT)
        protocol_fail(&failure, PROTOCOL_E_NAME_TAKEN, "the name '%s' is taken", job->name);
    else if (rc != 0)
        protocol_fail(&failure, PROTOCOL_E_STORAGE, "could not store the account: %s",
                      store_strerror(rc));
    else if (!player)
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
    if (rc != 0 || !player) {
        lobby_send_failure(lobby, client->connection, job->id, &failure);
        return;
    }
    snprintf(player->name, sizeof(player->name), "%s", job->name);
    player->is_account = true;
    lobby_log(lobby, "player %lld registered the account '%s'%s", (long long)id, job->name,
              guest ? ", claimed by the guest" : "");
    if (guest)
        lobby_send_welcome(lobby, client->connection, player, commit->token, job->id);
    else
        lobby_sign_in(lobby, client, player, commit->token, job->id, " as a new account");
}

static void account_commit_finish(struct runner_commit *base, bool is_live)
{
    struct account_commit *commit = (struct account_commit *)base;
    struct lobby *lobby = base->lobby;
    struct client *client = is_live && !lobby->is_shutting_down
                                ? id_table_get(&lobby->clients, commit->job->connection)
                                : NULL;
    if (client) {
        client->is_signing_in = false;
        if (commit->job->kind == ACCOUNT_SIGN_IN)
            signed_in(lobby, client, commit);
        else
            registered(lobby, client, commit);
    }
    if (commit->guest)
        lobby_player_unpin(lobby, commit->guest);
    job_free(commit->job);
    free(commit);
}

/* The record of a verified sign-in (a new token) or of a sign-up (a new
 * row, or the guest's row claimed). */
static void account_record(const struct account_commit *commit, store_record *out)
{
    const struct account_job *job = commit->job;
    if (job->kind == ACCOUNT_SIGN_IN) {
        *out = (store_record){.kind = STORE_RECORD_TOKEN_SET};
        out->token.player_id = job->account_id;
        snprintf(out->token.token, sizeof(out->token.token), "%s", commit->token);
        return;
    }
    bool is_claim = commit->guest && commit->guest->player_id;
    *out =
        (store_record){.kind = is_claim ? STORE_RECORD_ACCOUNT_CLAIM : STORE_RECORD_ACCOUNT_CREATE};
    store_record_account *account = &out->account;
    account->player_id = is_claim ? commit->guest->player_id : 0;
    snprintf(account->name, sizeof(account->name), "%s", job->name);
    snprintf(account->name_key, sizeof(account->name_key), "%s", job->name_key);
    snprintf(account->password_hash, sizeof(account->password_hash), "%s", job->hash);
    snprintf(account->token, sizeof(account->token), "%s", commit->token);
}

/* Stores what a finished job leads to; the commit owns `job` from here
 * (true), or nothing was started (false: out of memory, told). */
static bool submit_write(struct lobby *lobby, struct client *client, struct account_job *job)
{
    struct account_commit *commit = calloc(1, sizeof(*commit));
    if (!commit) {
        protocol_failure failure;
        protocol_fail(&failure, PROTOCOL_E_INTERNAL, "out of memory");
        lobby_send_failure(lobby, client->connection, job->id, &failure);
        return false;
    }
    commit->base = (struct runner_commit){.lobby = lobby, .finish = account_commit_finish};
    commit->job = job;
    if (job->kind == ACCOUNT_REGISTER && client->player) {
        commit->guest = client->player;
        commit->guest->pins++;
    }
    lobby_new_token(lobby, commit->token);
    account_record(commit, &commit->record);
    commit->base.batch = (store_batch){&commit->record, 1, STORE_ORDER_SUBMITTED};
    if (job->kind == ACCOUNT_REGISTER && job->hash_result != 0)
        commit->base.rc = STORE_E_NOMEM; /* no hash to store */
    client->is_signing_in = true;        /* until the answer */
    runner_submit(&commit->base);
    return true;
}

/* ---- back on the loop ---------------------------------------------------- */

static void account_done(lobby_job *base)
{
    struct account_job *job = (struct account_job *)base;
    struct lobby *lobby = job->lobby;
    bool is_kept = false; /* the job went on with the write it leads to */
    lobby->account_running--;
    struct client *client =
        lobby->is_shutting_down ? NULL : id_table_get(&lobby->clients, job->connection);
    if (client)
        client->is_signing_in = false;
    if (job->kind == ACCOUNT_SIGN_IN && !job->is_verified && !lobby->is_shutting_down) {
        count_failure(lobby, job);
        if (client) {
            protocol_failure failure = {0};
            protocol_fail(&failure, PROTOCOL_E_UNAUTHORIZED, WRONG_NAME_OR_PASSWORD);
            lobby_send_failure(lobby, client->connection, job->id, &failure);
        }
    } else if (client && (job->kind == ACCOUNT_REGISTER || !client->player)) {
        is_kept = submit_write(lobby, client, job);
    }
    if (!is_kept)
        job_free(job);
    if (!lobby->is_shutting_down)
        pump(lobby);
}

int account_jobs_running(const struct lobby *lobby)
{
    return lobby->account_running;
}

void account_drop_queued(struct lobby *lobby)
{
    fifo_link *link;
    while ((link = fifo_pop(&lobby->account_queue)) != NULL)
        job_free(FIFO_ITEM(link, struct account_job, waiting));
    lobby->account_queued = 0;
}

void account_free(struct lobby *lobby)
{
    account_drop_queued(lobby);
    account_limits_free(&lobby->account_limits);
}
