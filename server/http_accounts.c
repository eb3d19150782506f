/* http_accounts.c -- bot accounts over REST, and who sent a REST request
 * (see http_accounts.h).
 *
 * A request goes: what it asks (the path, and for a creation the JSON
 * body, decoded strictly on the loop: an object with a string `name` and
 * an optional string `owner`, nothing else) -> a job on the reader pool
 * (reader_pool.h), which finds who asks (the Authorization header) and
 * applies the rule (bot_accounts.c), reading the database there, never on
 * the loop -> on the loop, the rule's one record, stored through the store
 * port -> the answer, once the store has answered, through the transport
 * (the request is deferred from the start). Every refusal happens before
 * the one write, so a refused request changes nothing; a record that is
 * not stored is answered 500 storage_error (409 name_taken for a name
 * taken meanwhile) and changes nothing either.
 *
 * Who asks: with an admin key configured, a Bearer equal to it is the
 * admin. Otherwise the Bearer is looked up as a session token: a named
 * account's token is that account; a guest's or a bot's is refused (403),
 * an unknown one is 401 -- or 403 when the server has no admin key, to say
 * that admin access is off rather than that the key was wrong. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/bot_accounts.h"
#include "server/http_accounts.h"
#include "server/http_error.h"

#define ADMIN_KEY_SIZE 128
#define BEARER         "Bearer "
#define ROUTE_PREFIX   "/api/bots/"
#define KEY_SUFFIX     "/key"
#define OPEN_SUFFIX    "/tournaments"

struct http_accounts {
    struct reader_pool *readers;
    store_port port;
    struct transport *transport; /* where answers go */
    int in_flight;               /* requests not answered yet */
    char admin_key[ADMIN_KEY_SIZE];
    int max_bots; /* per account; the admin is not capped */
};

/* ---- who asks ------------------------------------------------------------ */

/* A request being authorized on the reader pool: who asks, then (`after`,
 * on the worker, only when someone may) what the route reads; `finish`
 * carries on on the loop. */
struct who_job {
    reader_pool_job job; /* first: the pool's job is this one */
    struct http_accounts *accounts;
    uint64_t exchange;
    char path[128];
    char secret[ADMIN_KEY_SIZE];
    int64_t actor;                   /* the worker's answer: 0 for the admin */
    transport_http_response refusal; /* the worker's refusal; status 0: none */
    void (*after)(struct who_job *who, store *reader);
    void (*finish)(struct who_job *who);
};

/* Sends `answer` for `who`'s request (http_response_send). */
static void respond_later(struct who_job *who, transport_http_response *answer)
{
    http_response_send(who->accounts->transport, who->exchange, answer);
}

/* The HTTP answer of a bot_accounts refusal, into `response`. */
static void respond_refusal(transport_http_response *response, const char *path,
                            const http_failure *failure)
{
    http_error_respond(response, path, failure->status, failure->code, failure->message);
}

/* Who sent the request (on the worker): who->actor, or who->refusal. */
static void identify(struct who_job *who, store *reader)
{
    const struct http_accounts *accounts = who->accounts;
    who->actor = 0;
    if (accounts->admin_key[0] && secret_equal(who->secret, accounts->admin_key))
        return;
    store_player player;
    int rc = store_player_by_token(reader, who->secret, &player);
    if (rc == 0 && player.is_account)
        who->actor = player.id;
    else if (rc == 0)
        http_error_respond(&who->refusal, who->path, 403, "forbidden",
                           "only the admin and named accounts may do this");
    else if (rc != STORE_E_NOT_FOUND)
        http_error_respond(&who->refusal, who->path, 500, "storage_error", store_strerror(rc));
    else if (!accounts->admin_key[0])
        http_error_respond(&who->refusal, who->path, 403, "forbidden",
                           "this server has no admin key; only an account's session token "
                           "is accepted");
    else
        http_error_respond(&who->refusal, who->path, 401, "unauthorized",
                           "wrong admin key or session token");
}

static void run_who(reader_pool_job *job, store *reader)
{
    struct who_job *who = (struct who_job *)job;
    identify(who, reader);
    if (!who->refusal.status && who->after)
        who->after(who, reader);
}

/* On the loop: a job that could not start is answered 503; a refusal is
 * sent; else the route carries on (finish). The secret is not needed any
 * more. */
static void who_done(reader_pool_job *job, int status)
{
    struct who_job *who = (struct who_job *)job;
    struct http_accounts *accounts = who->accounts;
    secret_forget(who->secret, sizeof(who->secret));
    if (status != 0)
        http_error_respond(&who->refusal, who->path, 503, "unavailable",
                           "the server cannot take this request now");
    accounts->in_flight--;
    if (who->refusal.status)
        respond_later(who, &who->refusal);
    who->finish(who); /* frees the job */
}

/* Starts `who` for `request` (its Bearer checked for form here): 0, and the
 * response is deferred; or HTTP_FAILED with the refusal in `response`. */
static int start_who(struct http_accounts *accounts, struct who_job *who,
                     const transport_http_request *request, transport_http_response *response)
{
    const char *secret = request->authorization;
    size_t length = strlen(BEARER);
    if (strncmp(secret, BEARER, length) != 0 || !secret[length] ||
        strlen(secret + length) >= sizeof(who->secret)) {
        http_error_respond(response, request->path, 401, "unauthorized",
                           "send 'Authorization: Bearer SECRET': the admin key or an account's "
                           "session token");
        return HTTP_FAILED;
    }
    who->accounts = accounts;
    who->exchange = request->exchange;
    snprintf(who->path, sizeof(who->path), "%s", request->path);
    snprintf(who->secret, sizeof(who->secret), "%s", secret + length);
    who->job = (reader_pool_job){.run = run_who, .done = who_done};
    int rc = reader_pool_submit(accounts->readers, &who->job);
    if (rc != 0) {
        secret_forget(who->secret, sizeof(who->secret));
        http_error_respond(response, request->path, 503, "unavailable",
                           rc == -EBUSY ? "too many requests at once; try again shortly"
                                        : "the server cannot take this request now");
        return HTTP_FAILED;
    }
    accounts->in_flight++;
    response->is_deferred = true;
    return 0;
}

/* What http_accounts_authorize's caller waits for. */
struct authorization {
    struct who_job who; /* first */
    http_accounts_then *then;
    void *context;
};

static void authorized(struct who_job *who)
{
    struct authorization *asked = (struct authorization *)who;
    asked->then(asked->context, who->actor, who->refusal.status == 0);
    free(asked);
}

int http_accounts_authorize(struct http_accounts *accounts, const transport_http_request *request,
                            transport_http_response *response, http_accounts_then *then,
                            void *context)
{
    struct authorization *asked = calloc(1, sizeof(*asked));
    if (!asked) {
        http_error_respond(response, request->path, 500, "internal", "out of memory");
        return HTTP_FAILED;
    }
    asked->then = then;
    asked->context = context;
    asked->who.finish = authorized;
    if (start_who(accounts, &asked->who, request, response) != 0) {
        free(asked);
        return HTTP_FAILED;
    }
    return 0;
}

/* ---- bot accounts -------------------------------------------------------- */

/* What a stored change is answered with. */
typedef enum answer_shape { ANSWER_CREATED, ANSWER_KEY, ANSWER_OPEN } answer_shape;

/* A bot-account request: authorized and ruled on the reader pool, then its
 * one record stored through the store port. */
struct bot_job {
    struct who_job who; /* first */
    answer_shape shape;
    char *body; /* a creation's, decoded once who asks may */
    size_t body_length;
    char *name;  /* as asked (the rule checks it) */
    char *owner; /* NULL: none given */
    bool is_off; /* DELETE: revoke the key, close to tournaments */
    bool is_answered;
    bool is_submitting; /* in submit: the answer is finished after it returns */
    int rc;             /* the store's answer */
    bot_accounts_change change;
    store_batch batch; /* the change's record */
};

static void respond_bot(transport_http_response *response, int status,
                        const bot_accounts_result *result, bool has_owner)
{
    json_t *body = json_pack("{s:I, s:s, s:o}", "id", (json_int_t)result->id, "name", result->name,
                             "key", result->key[0] ? json_string(result->key) : json_null());
    if (body && has_owner)
        json_object_set_new(body, "owner",
                            result->owner[0] ? json_string(result->owner) : json_null());
    http_response_json(response, status, body);
}

static void bot_free(struct bot_job *bot)
{
    bot_accounts_forget(&bot->change);
    free(bot->body);
    free(bot->name);
    free(bot->owner);
    free(bot);
}

/* The answer of a change the store has answered, sent; the job freed. */
static void answer_stored(struct bot_job *bot)
{
    const bot_accounts_result *result = &bot->change.result;
    transport_http_response response;
    memset(&response, 0, sizeof(response));
    if (bot_accounts_stored(&bot->change, bot->rc) != 0)
        respond_refusal(&response, ROUTE_PREFIX, &result->failure);
    else if (bot->shape != ANSWER_OPEN)
        respond_bot(&response, bot->shape == ANSWER_CREATED ? 201 : 200, result,
                    bot->shape == ANSWER_CREATED);
    else
        http_response_json(&response, 200,
                           json_pack("{s:I, s:s, s:b}", "id", (json_int_t)result->id, "name",
                                     result->name, "open_to_tournaments",
                                     result->is_open_to_tournaments));
    respond_later(&bot->who, &response);
    bot->who.accounts->in_flight--;
    bot_free(bot);
}

/* The store's answer: finished here, or after submit returns. */
static void on_stored(void *context, int rc, store_batch *batch)
{
    struct bot_job *bot = context;
    (void)batch;
    bot->rc = rc;
    bot->is_answered = true;
    if (!bot->is_submitting)
        answer_stored(bot);
}

/* The body of a creation: {name, owner?} into `bot`; 0, or HTTP_FAILED
 * with the refusal in `refusal` (on the worker: who asks is known). */
static int decode_creation(struct bot_job *bot, transport_http_response *refusal)
{
    const char *path = bot->who.path;
    json_error_t error;
    char message[256];
    json_t *body = json_loadb(bot->body, bot->body_length, JSON_REJECT_DUPLICATES, &error);
    int rc = HTTP_FAILED;
    const char *key;
    json_t *value;
    if (!json_is_object(body)) {
        snprintf(message, sizeof(message), "the body must be a JSON object {name, owner?}%s%s",
                 body ? "" : ": ", body ? "" : error.text);
        http_error_respond(refusal, path, 400, "bad_json", message);
        json_decref(body);
        return HTTP_FAILED;
    }
    json_object_foreach(body, key, value)
    {
        if ((strcmp(key, "name") != 0 && strcmp(key, "owner") != 0) || !json_is_string(value)) {
            snprintf(message, sizeof(message), "'%s' %s", key,
                     strcmp(key, "name") == 0 || strcmp(key, "owner") == 0 ? "must be a string"
                                                                           : "is not a field");
            http_error_respond(refusal, path, 400, "bad_request", message);
            json_decref(body);
            return HTTP_FAILED;
        }
    }
    const char *name = json_string_value(json_object_get(body, "name"));
    const char *owner = json_string_value(json_object_get(body, "owner"));
    if (!name) {
        http_error_respond(refusal, path, 400, "bad_request", "'name' is missing");
    } else if (!(bot->name = strdup(name)) || (owner && !(bot->owner = strdup(owner)))) {
        http_error_respond(refusal, path, 500, "internal", "out of memory");
    } else {
        rc = 0;
    }
    json_decref(body);
    return rc;
}

/* The rule of the route (on the worker, once who asks may): a creation's
 * body decoded, then the change, or who->refusal. */
static void rule(struct who_job *who, store *reader)
{
    struct bot_job *bot = (struct bot_job *)who;
    const struct http_accounts *accounts = who->accounts;
    if (bot->shape == ANSWER_CREATED && decode_creation(bot, &who->refusal) != 0)
        return;
    int rc = bot->shape == ANSWER_CREATED
                 ? bot_accounts_create(reader, bot->name, bot->owner, who->actor,
                                       accounts->max_bots, &bot->change)
             : bot->shape == ANSWER_KEY
                 ? bot_accounts_set_key(reader, bot->name, bot->is_off, who->actor, &bot->change)
                 : bot_accounts_set_open(reader, bot->name, !bot->is_off, who->actor, &bot->change);
    if (rc != 0)
        respond_refusal(&who->refusal, who->path, &bot->change.result.failure);
}

/* On the loop, the rule allowed the change: its record goes to the store. */
static void store_change(struct who_job *who)
{
    struct bot_job *bot = (struct bot_job *)who;
    struct http_accounts *accounts = who->accounts;
    if (who->refusal.status) {
        bot_free(bot);
        return;
    }
    accounts->in_flight++; /* until the store answers */
    bot->batch = (store_batch){&bot->change.record, 1, STORE_ORDER_SUBMITTED};
    bot->is_submitting = true;
    int rc = accounts->port.submit(accounts->port.context, &bot->batch, on_stored, bot);
    bot->is_submitting = false;
    if (rc != STORE_OK && !bot->is_answered) {
        bot->rc = rc; /* refused at once: no answer comes */
        bot->is_answered = true;
    }
    if (bot->is_answered)
        answer_stored(bot);
}

/* Starts the job of a bot request: the response is deferred, or refused. */
static void start_bot(struct http_accounts *accounts, struct bot_job *bot,
                      const transport_http_request *request, transport_http_response *response)
{
    bot->who.after = rule;
    bot->who.finish = store_change;
    if (start_who(accounts, &bot->who, request, response) != 0)
        bot_free(bot);
}

static void create_route(void *context, const transport_http_request *request,
                         transport_http_response *response)
{
    struct http_accounts *accounts = context;
    struct bot_job *bot = calloc(1, sizeof(*bot));
    if (!bot) {
        http_error_respond(response, request->path, 500, "internal", "out of memory");
        return;
    }
    bot->shape = ANSWER_CREATED;
    if (!(bot->body = http_request_body_copy(request, response, &bot->body_length)))
        bot_free(bot);
    else
        start_bot(accounts, bot, request, response);
}

/* The bot name of /api/bots/{name}{ending} into `name`; false for any
 * other path. */
static bool bot_path_name(const char *path, const char *ending, char *name, size_t size)
{
    const char *start = path + strlen(ROUTE_PREFIX);
    size_t length = strlen(start), suffix = strlen(ending);
    if (length <= suffix || length - suffix >= size || strcmp(start + length - suffix, ending) != 0)
        return false;
    memcpy(name, start, length - suffix);
    name[length - suffix] = '\0';
    return strchr(name, '/') == NULL;
}

/* POST (a new key) or DELETE (revoked) /api/bots/{name}/key, and POST
 * (open) or DELETE (closed) /api/bots/{name}/tournaments. */
static void bot_route(void *context, const transport_http_request *request,
                      transport_http_response *response)
{
    struct http_accounts *accounts = context;
    char name[STORE_NAME_SIZE];
    bool is_key = bot_path_name(request->path, KEY_SUFFIX, name, sizeof(name));
    if (!is_key && !bot_path_name(request->path, OPEN_SUFFIX, name, sizeof(name))) {
        char message[256];
        snprintf(message, sizeof(message), "no route for %s %s", request->method, request->path);
        http_error_respond(response, request->path, 404, "not_found", message);
        return;
    }
    struct bot_job *bot = calloc(1, sizeof(*bot));
    if (!bot || !(bot->name = strdup(name))) {
        http_error_respond(response, request->path, 500, "internal", "out of memory");
        free(bot);
        return;
    }
    bot->shape = is_key ? ANSWER_KEY : ANSWER_OPEN;
    bot->is_off = strcmp(request->method, "DELETE") == 0;
    start_bot(accounts, bot, request, response);
}

/* ---- the module ---------------------------------------------------------- */

int http_accounts_new(struct reader_pool *readers, const store_port *port, const char *admin_key,
                      int max_bots, struct http_accounts **out)
{
    struct http_accounts *accounts = calloc(1, sizeof(*accounts));
    if (!accounts)
        return -ENOMEM;
    accounts->readers = readers;
    accounts->port = *port;
    accounts->max_bots = max_bots;
    snprintf(accounts->admin_key, sizeof(accounts->admin_key), "%s", admin_key);
    *out = accounts;
    return 0;
}

void http_accounts_attach(struct http_accounts *accounts, struct transport *transport)
{
    accounts->transport = transport;
}

int http_accounts_in_flight(const struct http_accounts *accounts)
{
    return accounts->in_flight;
}

void http_accounts_free(struct http_accounts *accounts)
{
    if (!accounts)
        return;
    secret_forget(accounts->admin_key, sizeof(accounts->admin_key));
    free(accounts);
}

int http_accounts_add_routes(http_routes *routes, struct http_accounts *accounts)
{
    int rc = http_routes_add(routes, "POST", "/api/bots", create_route, accounts);
    if (rc == 0)
        rc = http_routes_add(routes, "POST", ROUTE_PREFIX "*", bot_route, accounts);
    if (rc == 0)
        rc = http_routes_add(routes, "DELETE", ROUTE_PREFIX "*", bot_route, accounts);
    return rc;
}
