/* config.c -- the key table and the four sources of server_config.
 *
 * KEYS lists every setting once: its name, how its value is parsed, where it
 * lives in server_config (an offset, so one setter serves every key), its
 * bounds and its help line. The flags, the file and the environment all go
 * through set_value(), which is why they accept exactly the same values.
 *
 * argv is read twice: a first pass only looks for --help and --config (the
 * file must be applied before the environment, and flags after both), the
 * second applies the other flags in order, so the last one wins. Checks that
 * involve two keys run once, after every source. */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lobby/arena.h"
#include "lobby/lobby.h"
#include "server/store_writer.h"
#include "server/config.h"

#include "storage/store.h"
#include "storage/secret.h"

#define KIB                1024LL
#define MIB                (1024LL * 1024LL)
#define FILE_LINE_SIZE     8192
#define SOURCE_SIZE        160
#define ENVIRONMENT_PREFIX "TESSERA_"

typedef enum value_kind {
    KIND_ADDRESS,     /* char[SERVER_CONFIG_ADDRESS_SIZE], an IP literal */
    KIND_PATH,        /* char[SERVER_CONFIG_PATH_SIZE] */
    KIND_SYNC,        /* bool: "full" or "normal" */
    KIND_LOG_LEVEL,   /* log_level */
    KIND_LOG_FORMAT,  /* log_format */
    KIND_INTEGER,     /* int */
    KIND_BYTES,       /* size_t, with an optional k or m suffix */
    KIND_SECRET,      /* char[SERVER_CONFIG_SECRET_SIZE]: "" or at least `minimum` bytes */
    KIND_SECRET_FILE, /* the same field, read from a file only its owner may read */
    KIND_ARENAS,      /* char[SERVER_CONFIG_ARENAS_SIZE]: lobby/arena.h's list */
    KIND_ORIGINS,     /* char[ORIGIN_LIST_SIZE]: origin.h's allow-list */
    KIND_PROXIES,     /* char[PROXY_LIST_SIZE]: proxy.h's trusted proxies */
    KIND_INSTANCE,    /* char: an instance id (lobby_instance_is_valid), '\0' for none */
} value_kind;

struct key {
    const char *name;
    value_kind kind;
    size_t offset;
    long long minimum, maximum;
    const char *argument; /* placeholder in the usage */
    const char *help;
};

#define FIELD(member) offsetof(server_config, member)

static const struct key KEYS[] = {
    {"bind", KIND_ADDRESS, FIELD(bind_address), 0, 0, "ADDRESS", "address to listen on"},
    {"port", KIND_INTEGER, FIELD(port), 0, 65535, "N", "port to listen on; 0 picks a free one"},
    {"db", KIND_PATH, FIELD(db_path), 0, 0, "FILE|URL",
     "SQLite database file (its folder is created), or a postgresql:// URL"},
    {"web-dir", KIND_PATH, FIELD(web_dir), 0, 0, "FOLDER",
     "the browser client's files, served at / and /web/"},
    {"db-sync", KIND_SYNC, FIELD(db_synchronous_full), 0, 0, "full|normal",
     "SQLite synchronous mode"},
    {"log-level", KIND_LOG_LEVEL, FIELD(log_level), 0, 0, "LEVEL", "error, warn, info or debug"},
    {"log-format", KIND_LOG_FORMAT, FIELD(log_format), 0, 0, "text|json",
     "log lines as text, or as one JSON object each"},
    {"max-message-bytes", KIND_BYTES, FIELD(limits.max_message_bytes), 64, 64 * MIB, "BYTES",
     "largest websocket message accepted (bigger: close 1009)"},
    {"max-http-body-bytes", KIND_BYTES, FIELD(limits.max_http_body_bytes), 64, 64 * MIB, "BYTES",
     "largest HTTP request body accepted (bigger: 413)"},
    {"rate", KIND_INTEGER, FIELD(limits.messages_per_second), 1, 1000000, "N",
     "messages per second a connection may send, on average"},
    {"burst", KIND_INTEGER, FIELD(limits.message_burst), 1, 1000000, "N",
     "messages a connection may send at once"},
    {"rate-strikes", KIND_INTEGER, FIELD(limits.rate_strikes_to_close), 1, 1000000, "N",
     "refused messages in a row before close 1008"},
    {"connections-per-ip", KIND_INTEGER, FIELD(limits.connections_per_ip), 1, 1000000, "N",
     "connections (HTTP or websocket) open at once from one address"},
    {"connection-rate", KIND_INTEGER, FIELD(limits.connection_rate), 1, 1000000, "N",
     "new connections (HTTP or websocket) one address may open a second, in bursts of three "
     "times as many (more: closed at accept)"},
    {"send-queue-bytes", KIND_BYTES, FIELD(limits.send_queue_bytes), 1 * KIB, 1024 * MIB, "BYTES",
     "queued outbound bytes after which a connection is not read"},
    {"send-queue-max-bytes", KIND_BYTES, FIELD(limits.send_queue_max_bytes), 1 * KIB, 1024 * MIB,
     "BYTES", "queued outbound bytes after which a connection is dropped (1013)"},
    {"send-queue-budget-bytes", KIND_BYTES, FIELD(limits.send_queue_budget_bytes), 1 * MIB,
     1024 * 1024 * MIB, "BYTES",
     "outbound bytes queued for all connections together; past it the largest queues are "
     "dropped first (1013)"},
    {"ping-interval", KIND_INTEGER, FIELD(limits.ping_interval_s), 0, 86400, "SECONDS",
     "ping a connection silent this long; 0: never"},
    {"idle-timeout", KIND_INTEGER, FIELD(limits.idle_timeout_s), 0, 86400, "SECONDS",
     "close a connection silent this long (pongs count); 0: never"},
    {"handshake-timeout", KIND_INTEGER, FIELD(limits.handshake_timeout_s), 1, 3600, "SECONDS",
     "time allowed to send the HTTP request headers, and again its body"},
    {"http-rate", KIND_INTEGER, FIELD(limits.http_requests_per_second), 1, 1000000, "N",
     "HTTP requests per second one address may make, on average (over: 429)"},
    {"http-burst", KIND_INTEGER, FIELD(limits.http_burst), 1, 1000000, "N",
     "HTTP requests one address may make at once"},
    {"instance", KIND_INSTANCE, FIELD(instance), 0, 0, "ID",
     "this instance's id among several sharing one PostgreSQL database (one of 0-9 and a-z but "
     "i, l, o, u; the first character of its rooms' codes); none: a lone server"},
    {"lease-ms", KIND_INTEGER, FIELD(lease_ms), 500, 600000, "MS",
     "with an instance id: a room whose instance stopped renewing its lease this long is taken "
     "over by another"},
    {"reconnect-grace", KIND_INTEGER, FIELD(reconnect_grace_s), 0, 86400, "SECONDS",
     "a dropped player keeps the seat this long before a bot stands in"},
    {"finished-room-ttl", KIND_INTEGER, FIELD(finished_room_ttl_s), 0, 86400, "SECONDS",
     "a finished room stays on display (joinable, listed) this long"},
    {"bot-think-ms", KIND_INTEGER, FIELD(bot_think_ms), 1, 60000, "MS",
     "time the built-in MCTS bot thinks per move"},
    {"bot-jobs", KIND_INTEGER, FIELD(bot_jobs), 1, 64, "N",
     "bot searches running at once (rooms take turns for them)"},
    {"max-rooms", KIND_INTEGER, FIELD(max_rooms), 1, 1000000, "N",
     "rooms not finished the server hosts at most"},
    {"max-rooms-per-player", KIND_INTEGER, FIELD(max_rooms_per_player), 1, 1000000, "N",
     "rooms one player may own that are not finished"},
    {"max-tournaments", KIND_INTEGER, FIELD(max_tournaments), 1, 100000, "N",
     "running tournaments the server holds at most"},
    {"tournament-reserve", KIND_INTEGER, FIELD(tournament_reserve), 0, 100000, "N",
     "of max-tournaments, places only the admin and arenas may fill"},
    {"tournaments-per-account", KIND_INTEGER, FIELD(tournaments_per_account), 0, 100000, "N",
     "running tournaments one account may have created"},
    {"tournament-rooms-per-account", KIND_INTEGER, FIELD(tournament_rooms_per_account), 1, 1000000,
     "N", "games one account's running tournaments may play at once (their 'parallel' summed)"},
    {"tournament-share", KIND_INTEGER, FIELD(tournament_share), 1, 100, "PERCENT",
     "one account's tournaments stay within this share of max-tournaments and max-rooms"},
    {"queue-window", KIND_INTEGER, FIELD(queue_window), 0, 1000, "POINTS",
     "quick play matches players whose ratings differ by this much"},
    {"queue-widen", KIND_INTEGER, FIELD(queue_widen_s), 1, 3600, "SECONDS",
     "quick play widens the window by as much again each time a player waits this long"},
    {"queue-fill", KIND_INTEGER, FIELD(queue_fill_s), 0, 86400, "SECONDS",
     "quick play fills the empty seats of a player who waited this long with bots"},
    {"db-writers", KIND_INTEGER, FIELD(db_writers), 1, STORE_WRITER_CONNECTIONS_MAX, "N",
     "PostgreSQL: connections storing commits at once, so one room's slow commit holds up no "
     "other room (SQLite stores on one)"},
    {"history-readers", KIND_INTEGER, FIELD(history_readers), 1, 64, "N",
     "read-only database connections serving the REST reads: history, who asks (each a worker "
     "at a time)"},
    {"leaderboard-min-games", KIND_INTEGER, FIELD(leaderboard_min_games), 0, 1000000, "N",
     "rated games a player needs to appear on a Blokus leaderboard"},
    {"sign-in-failures-per-name", KIND_INTEGER, FIELD(failures_per_name), 1, 1000000, "N",
     "failed password sign-ins a name may have a minute (then rate_limited)"},
    {"sign-in-failures-per-address", KIND_INTEGER, FIELD(failures_per_address), 1, 1000000, "N",
     "failed password sign-ins an address may have a minute (then rate_limited)"},
    {"registrations-per-address", KIND_INTEGER, FIELD(registrations_per_address), 1, 1000000, "N",
     "accounts an address may register an hour (then rate_limited)"},
    {"max-bots-per-account", KIND_INTEGER, FIELD(max_bots_per_account), 0, 1000000, "N",
     "bot accounts an account may create over REST (the admin key is not capped)"},
    {"guests-per-address", KIND_INTEGER, FIELD(guests_per_address), 1, 1000000, "N",
     "new guests (hello without a token) an address may make a minute (then rate_limited)"},
    {"guest-ttl", KIND_INTEGER, FIELD(guest_ttl_s), 0, 10 * 365 * 86400, "SECONDS",
     "a stored guest nobody claimed and no stored game names is deleted this long after it "
     "first sat; 0: never"},
    {"allowed-origins", KIND_ORIGINS, FIELD(limits.allowed_origins), 0, 0, "LIST",
     "web pages (scheme://host[:port], comma-separated, or *) whose scripts may open a "
     "websocket; empty: any; the server's own page always may"},
    {"trusted-proxies", KIND_PROXIES, FIELD(limits.trusted_proxies), 0, 0, "LIST",
     "addresses of reverse proxies (comma-separated IPs) whose X-Forwarded-For names the client"},
    {"arenas", KIND_ARENAS, FIELD(arenas), 0, 0, "LIST",
     "scheduled arenas: 'NAME every SECONDS GAME MODE FORMAT [rounds=N] [games=N] [parallel=N] "
     "[bots=KIND,...]', several separated by ';'"},
    {"admin-key", KIND_SECRET, FIELD(admin_key), 16, SERVER_CONFIG_SECRET_SIZE - 1, "KEY",
     "secret of the REST admin routes (Authorization: Bearer KEY); empty: none"},
    {"admin-key-file", KIND_SECRET_FILE, FIELD(admin_key), 16, SERVER_CONFIG_SECRET_SIZE - 1,
     "FILE", "admin-key read from FILE (e.g. a systemd credential), which only its owner may read"},
};

#define KEY_COUNT (sizeof(KEYS) / sizeof(KEYS[0]))

void server_config_init(server_config *config)
{
    memset(config, 0, sizeof(*config));
    strcpy(config->bind_address, "127.0.0.1");
    config->port = 8080;
    strcpy(config->db_path, "./data/tessera.db");
    snprintf(config->web_dir, sizeof(config->web_dir), "%s", TESSERA_WEB_DIR);
    config->db_synchronous_full = false;
    config->log_level = LOG_LEVEL_INFO;
    config->log_format = LOG_FORMAT_TEXT;
    config->limits = transport_default_limits();
    config->reconnect_grace_s = 60;
    config->lease_ms = 3000;
    config->finished_room_ttl_s = 600;
    config->bot_think_ms = 300;
    config->bot_jobs = 3;
    config->max_rooms = 10000;
    config->max_rooms_per_player = 10;
    config->max_tournaments = 100;
    config->tournament_reserve = 10;
    config->tournaments_per_account = 2;
    config->tournament_rooms_per_account = 8;
    config->tournament_share = 10;
    config->queue_window = 5;
    config->queue_widen_s = 10;
    config->queue_fill_s = 30;
    config->db_writers = 2;
    config->history_readers = 2;
    config->leaderboard_min_games = 1;
    config->failures_per_name = 5;
    config->failures_per_address = 20;
    config->registrations_per_address = 10;
    config->max_bots_per_account = 10;
    config->guests_per_address = 60;
    config->guest_ttl_s = 30 * 86400;
}

static int fail(char *error, size_t error_size, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(char *error, size_t error_size, const char *format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(error, error_size, format, arguments);
    va_end(arguments);
    return SERVER_CONFIG_E_INVALID;
}

/* The key called `name` (its first `length` bytes; '_' matches '-'), or NULL. */
static const struct key *find_key(const char *name, size_t length)
{
    for (size_t k = 0; k < KEY_COUNT; k++) {
        const char *candidate = KEYS[k].name;
        if (strlen(candidate) != length)
            continue;
        size_t i = 0;
        while (i < length && (name[i] == candidate[i] || (name[i] == '_' && candidate[i] == '-')))
            i++;
        if (i == length)
            return &KEYS[k];
    }
    return NULL;
}

/* Parses a whole decimal integer with an optional k/m suffix when
 * `has_suffix`. 0, or -1 for anything else (sign, junk, overflow). */
static int parse_integer(const char *text, bool has_suffix, long long *out)
{
    if (!isdigit((unsigned char)text[0]))
        return -1;
    char *end;
    errno = 0;
    long long value = strtoll(text, &end, 10);
    if (errno != 0)
        return -1;
    long long scale = 1;
    if (has_suffix && (*end == 'k' || *end == 'K'))
        scale = KIB;
    else if (has_suffix && (*end == 'm' || *end == 'M'))
        scale = MIB;
    if (scale != 1)
        end++;
    if (*end != '\0' || value > INT64_MAX / scale)
        return -1;
    *out = value * scale;
    return 0;
}

static int set_number(server_config *config, const struct key *key, const char *value,
                      const char *source, char *error, size_t error_size)
{
    bool is_bytes = key->kind == KIND_BYTES;
    long long number;
    if (parse_integer(value, is_bytes, &number) < 0 || number < key->minimum ||
        number > key->maximum)
        return fail(error, error_size, "%s: expected %s from %lld to %lld%s, got '%s'", source,
                    is_bytes ? "a size in bytes" : "an integer", key->minimum, key->maximum,
                    is_bytes ? " (k and m suffixes allowed)" : "", value);
    char *field = (char *)config + key->offset;
    if (is_bytes)
        *(size_t *)field = (size_t)number;
    else
        *(int *)field = (int)number;
    return SERVER_CONFIG_OK;
}

static int set_address(char *field, const char *value, const char *source, char *error,
                       size_t error_size)
{
    unsigned char address[sizeof(struct in6_addr)];
    if (strlen(value) >= SERVER_CONFIG_ADDRESS_SIZE ||
        (inet_pton(AF_INET, value, address) != 1 && inet_pton(AF_INET6, value, address) != 1))
        return fail(error, error_size,
                    "%s: expected an IPv4 or IPv6 address such as 127.0.0.1 or ::1, got '%s'",
                    source, value);
    strcpy(field, value);
    return SERVER_CONFIG_OK;
}

/* arena_parse_list as a plain check of a setting's value. */
static int check_arenas(const char *value, char *problem, size_t size)
{
    arena_spec specs[ARENA_MAX];
    int count = 0;
    return arena_parse_list(value, specs, &count, problem, size);
}

/* A list setting (arenas, origins, proxies): at most `capacity` bytes with
 * its NUL, and `check` must accept it. */
static int set_list(char *field, size_t capacity, int (*check)(const char *, char *, size_t),
                    const char *value, const char *source, char *error, size_t error_size)
{
    char problem[200];
    if (strlen(value) >= capacity)
        return fail(error, error_size, "%s: at most %zu bytes", source, capacity - 1);
    if (check(value, problem, sizeof(problem)) != 0)
        return fail(error, error_size, "%s: %s", source, problem);
    strcpy(field, value);
    return SERVER_CONFIG_OK;
}

static int set_secret(char *field, const struct key *key, const char *value, const char *source,
                      char *error, size_t error_size)
{
    if (value[0] != '\0' &&
        (strlen(value) < (size_t)key->minimum || strlen(value) > (size_t)key->maximum))
        return fail(error, error_size, "%s: expected nothing or %lld to %lld bytes, got %zu",
                    source, key->minimum, key->maximum, strlen(value));
    strcpy(field, value);
    return SERVER_CONFIG_OK;
}

/* True when only the owner of the open `file` may read it. A file that
 * holds the admin key and fails this is refused, not warned about: a
 * warning in a log nobody reads leaves the admin routes open to every
 * local user. */
static bool is_owner_only(FILE *file)
{
    struct stat status;
    return fstat(fileno(file), &status) == 0 && !(status.st_mode & (S_IRGRP | S_IROTH));
}

/* Cuts the trailing blanks of `text` in place; returns it past its leading ones. */
static char *trim(char *text)
{
    while (isspace((unsigned char)*text))
        text++;
    size_t length = strlen(text);
    while (length > 0 && isspace((unsigned char)text[length - 1]))
        text[--length] = '\0';
    return text;
}

/* admin-key-file: the key is the file's one line (blanks around it dropped). */
static int set_secret_file(char *field, const struct key *key, const char *path, const char *source,
                           char *error, size_t error_size)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return fail(error, error_size, "%s: cannot read '%s': %s", source, path, strerror(errno));
    char secret[SERVER_CONFIG_SECRET_SIZE + 1];
    int rc = SERVER_CONFIG_OK;
    if (!is_owner_only(file)) {
        rc = fail(error, error_size, "%s: group or others may read '%s'; chmod 600 it", source,
                  path);
    } else {
        size_t length = fread(secret, 1, sizeof(secret) - 1, file);
        secret[length] = '\0';
        char *line = trim(secret);
        if (ferror(file))
            rc = fail(error, error_size, "%s: error reading '%s'", source, path);
        else if (strchr(line, '\n'))
            rc = fail(error, error_size, "%s: '%s' must hold the key on one line", source, path);
        else
            rc = set_secret(field, key, line, source, error, error_size);
        secret_forget(secret, sizeof(secret));
    }
    fclose(file);
    return rc;
}

/* Parses `value` for `key` into *config; `source` names where it came from. */
static int set_value(server_config *config, const struct key *key, const char *value,
                     const char *source, char *error, size_t error_size)
{
    char *field = (char *)config + key->offset;
    switch (key->kind) {
    case KIND_ADDRESS:
        return set_address(field, value, source, error, error_size);
    case KIND_PATH:
        if (value[0] == '\0' || strlen(value) >= SERVER_CONFIG_PATH_SIZE)
            return fail(error, error_size, "%s: expected a file path, got '%s'", source, value);
        strcpy(field, value);
        return SERVER_CONFIG_OK;
    case KIND_SYNC:
        if (strcmp(value, "full") != 0 && strcmp(value, "normal") != 0)
            return fail(error, error_size, "%s: expected full or normal, got '%s'", source, value);
        *(bool *)field = strcmp(value, "full") == 0;
        return SERVER_CONFIG_OK;
    case KIND_LOG_LEVEL:
        if (log_level_parse(value, (log_level *)field) < 0)
            return fail(error, error_size, "%s: expected error, warn, info or debug, got '%s'",
                        source, value);
        return SERVER_CONFIG_OK;
    case KIND_LOG_FORMAT:
        if (log_format_parse(value, (log_format *)field) < 0)
            return fail(error, error_size, "%s: expected text or json, got '%s'", source, value);
        return SERVER_CONFIG_OK;
    case KIND_SECRET:
        return set_secret(field, key, value, source, error, error_size);
    case KIND_SECRET_FILE:
        return set_secret_file(field, key, value, source, error, error_size);
    case KIND_ARENAS:
        return set_list(field, SERVER_CONFIG_ARENAS_SIZE, check_arenas, value, source, error,
                        error_size);
    case KIND_ORIGINS:
        return set_list(field, ORIGIN_LIST_SIZE, origin_list_check, value, source, error,
                        error_size);
    case KIND_PROXIES:
        return set_list(field, PROXY_LIST_SIZE, proxy_list_check, value, source, error, error_size);
    case KIND_INSTANCE:
        if (strcmp(value, "none") != 0 &&
            (strlen(value) != 1 || !lobby_instance_is_valid(value[0])))
            return fail(error, error_size,
                        "%s: expected none or one of 0-9 and a-z but i, l, o, u, got '%s'", source,
                        value);
        *field = strcmp(value, "none") == 0 ? '\0' : value[0];
        return SERVER_CONFIG_OK;
    case KIND_INTEGER:
    case KIND_BYTES:
        break;
    }
    return set_number(config, key, value, source, error, error_size);
}

/* Where the comment of a file line starts ('#' at the start or after a
 * blank, outside a quoted value), or NULL. */
static char *find_comment(char *line)
{
    char *equals = strchr(line, '=');
    for (char *c = line; *c; c++) {
        if (*c == '#' && (c == line || isspace((unsigned char)c[-1])))
            return c;
        if (c != equals)
            continue;
        char *value = c + 1;
        while (isblank((unsigned char)*value))
            value++;
        char *closing = *value == '"' || *value == '\'' ? strchr(value + 1, *value) : NULL;
        if (closing)
            c = closing;
    }
    return NULL;
}

/* A value in double or single quotes loses them: the value is what lies
 * between, blanks and '#' included. A value that opens a quote and does
 * not end with it is refused rather than kept with a stray quote. */
static int unquote(char **value, const char *where, char *error, size_t error_size)
{
    char quote = (*value)[0];
    if (quote != '"' && quote != '\'')
        return SERVER_CONFIG_OK;
    size_t length = strlen(*value);
    if (length < 2 || (*value)[length - 1] != quote)
        return fail(error, error_size, "%s: a value that opens a quote must end with it, got %s",
                    where, *value);
    (*value)[length - 1] = '\0';
    (*value)++;
    return SERVER_CONFIG_OK;
}

/* Applies one `key = value` line; blank lines and # comments are skipped.
 * `is_private`: only the file's owner may read it (admin-key needs that). */
static int apply_file_line(server_config *config, char *line, bool is_private, const char *where,
                           char *error, size_t error_size)
{
    char *comment = find_comment(line);
    if (comment)
        *comment = '\0';
    char *text = trim(line);
    if (*text == '\0')
        return SERVER_CONFIG_OK;
    char *equals = strchr(text, '=');
    if (!equals)
        return fail(error, error_size, "%s: expected 'key = value', got '%s'", where, text);
    *equals = '\0';
    char *name = trim(text), *value = trim(equals + 1);
    const struct key *key = find_key(name, strlen(name));
    if (!key)
        return fail(error, error_size, "%s: unknown key '%s'", where, name);
    int rc = unquote(&value, where, error, error_size);
    if (rc < 0)
        return rc;
    if (key->kind == KIND_SECRET && value[0] != '\0' && !is_private)
        return fail(error, error_size,
                    "%s: admin-key in a file group or others may read; chmod 600 the file, or "
                    "use admin-key-file or TESSERA_ADMIN_KEY (docs/OPERATIONS.md)",
                    where);
    char source[2 * SOURCE_SIZE];
    snprintf(source, sizeof(source), "%s: %s", where, key->name);
    return set_value(config, key, value, source, error, error_size);
}

static int apply_file(server_config *config, const char *path, char *error, size_t error_size)
{
    FILE *file = fopen(path, "r");
    if (!file)
        return fail(error, error_size, "--config: cannot read '%s': %s", path, strerror(errno));
    bool is_private = is_owner_only(file);
    char line[FILE_LINE_SIZE], where[SOURCE_SIZE];
    int rc = SERVER_CONFIG_OK;
    for (int number = 1; rc == SERVER_CONFIG_OK && fgets(line, sizeof(line), file); number++) {
        snprintf(where, sizeof(where), "%s:%d", path, number);
        if (!strchr(line, '\n') && !feof(file))
            rc = fail(error, error_size, "%s: line too long", where);
        else
            rc = apply_file_line(config, line, is_private, where, error, error_size);
    }
    if (rc == SERVER_CONFIG_OK && ferror(file))
        rc = fail(error, error_size, "--config: error reading '%s'", path);
    fclose(file);
    return rc;
}

/* The value of variable `name` in `environment`, or NULL. */
static const char *find_variable(char **environment, const char *name)
{
    size_t length = strlen(name);
    for (char **entry = environment; entry && *entry; entry++)
        if (strncmp(*entry, name, length) == 0 && (*entry)[length] == '=')
            return *entry + length + 1;
    return NULL;
}

/* "max-message-bytes" -> "TESSERA_MAX_MESSAGE_BYTES". */
static void variable_name(const char *key_name, char *out, size_t size)
{
    size_t length = (size_t)snprintf(out, size, "%s", ENVIRONMENT_PREFIX);
    for (const char *c = key_name; *c && length + 1 < size; c++)
        out[length++] = *c == '-' ? '_' : (char)toupper((unsigned char)*c);
    out[length] = '\0';
}

static int apply_environment(server_config *config, char **environment, char *error,
                             size_t error_size)
{
    for (size_t k = 0; k < KEY_COUNT; k++) {
        char name[SOURCE_SIZE];
        variable_name(KEYS[k].name, name, sizeof(name));
        const char *value = find_variable(environment, name);
        if (!value)
            continue;
        int rc = set_value(config, &KEYS[k], value, name, error, error_size);
        if (rc < 0)
            return rc;
    }
    return SERVER_CONFIG_OK;
}

/* One flag of argv at *index: its name (after "--", up to '=' if any) and
 * value (after '=', or the next argument unless the flag is --help). */
struct flag {
    const char *name;
    size_t name_length;
    const char *value;
};

static int next_flag(int argc, char **argv, int *index, struct flag *flag, char *error,
                     size_t error_size)
{
    const char *argument = argv[*index];
    if (strncmp(argument, "--", 2) != 0 || argument[2] == '\0')
        return fail(error, error_size, "unexpected argument '%s'", argument);
    flag->name = argument + 2;
    const char *equals = strchr(flag->name, '=');
    flag->name_length = equals ? (size_t)(equals - flag->name) : strlen(flag->name);
    flag->value = equals ? equals + 1 : NULL;
    (*index)++;
    if (flag->value || (flag->name_length == 4 && strncmp(flag->name, "help", 4) == 0))
        return SERVER_CONFIG_OK;
    if (*index >= argc)
        return fail(error, error_size, "--%s: missing value", flag->name);
    flag->value = argv[(*index)++];
    return SERVER_CONFIG_OK;
}

static bool flag_is(const struct flag *flag, const char *name)
{
    return flag->name_length == strlen(name) && strncmp(flag->name, name, flag->name_length) == 0;
}

/* First pass: --help, --config, and the syntax and names of all flags. */
static int scan_flags(int argc, char **argv, const char **config_path, char *error,
                      size_t error_size)
{
    struct flag flag;
    for (int index = 1; index < argc;) {
        int rc = next_flag(argc, argv, &index, &flag, error, error_size);
        if (rc < 0)
            return rc;
        if (flag_is(&flag, "help"))
            return SERVER_CONFIG_HELP;
        if (flag_is(&flag, "config"))
            *config_path = flag.value;
        else if (!find_key(flag.name, flag.name_length))
            return fail(error, error_size, "unknown option '--%.*s'", (int)flag.name_length,
                        flag.name);
    }
    return SERVER_CONFIG_OK;
}

/* Second pass: every flag but --config, in order. */
static int apply_flags(server_config *config, int argc, char **argv, char *error, size_t error_size)
{
    struct flag flag;
    for (int index = 1; index < argc;) {
        next_flag(argc, argv, &index, &flag, error, error_size);
        if (flag_is(&flag, "config"))
            continue;
        char source[SOURCE_SIZE];
        snprintf(source, sizeof(source), "--%.*s", (int)flag.name_length, flag.name);
        int rc = set_value(config, find_key(flag.name, flag.name_length), flag.value, source, error,
                           error_size);
        if (rc < 0)
            return rc;
    }
    return SERVER_CONFIG_OK;
}

/* The rules that involve two keys. */
static int check_consistency(const server_config *config, char *error, size_t error_size)
{
    const transport_limits *limits = &config->limits;
    if (limits->send_queue_max_bytes < limits->send_queue_bytes)
        return fail(error, error_size,
                    "send-queue-max-bytes (%zu) must not be below send-queue-bytes (%zu)",
                    limits->send_queue_max_bytes, limits->send_queue_bytes);
    if (limits->send_queue_budget_bytes < limits->send_queue_max_bytes)
        return fail(error, error_size,
                    "send-queue-budget-bytes (%zu) must not be below send-queue-max-bytes (%zu)",
                    limits->send_queue_budget_bytes, limits->send_queue_max_bytes);
    if (limits->ping_interval_s > 0 && limits->idle_timeout_s > 0 &&
        limits->idle_timeout_s <= limits->ping_interval_s)
        return fail(error, error_size,
                    "idle-timeout (%d s) must be longer than ping-interval (%d s), or a client "
                    "could not answer a ping in time",
                    limits->idle_timeout_s, limits->ping_interval_s);
    return SERVER_CONFIG_OK;
}

int server_config_load(server_config *config, int argc, char **argv, char **environment,
                       char *error, size_t error_size)
{
    server_config_init(config);
    error[0] = '\0';
    const char *config_path = find_variable(environment, ENVIRONMENT_PREFIX "CONFIG");
    int rc = scan_flags(argc, argv, &config_path, error, error_size);
    if (rc != SERVER_CONFIG_OK)
        return rc;
    if (config_path && (rc = apply_file(config, config_path, error, error_size)) < 0)
        return rc;
    if ((rc = apply_environment(config, environment, error, error_size)) < 0)
        return rc;
    if ((rc = apply_flags(config, argc, argv, error, error_size)) < 0)
        return rc;
    return check_consistency(config, error, error_size);
}

/* The default of `key`, as text. */
static void default_text(const struct key *key, const server_config *defaults, char *out,
                         size_t size)
{
    const char *field = (const char *)defaults + key->offset;
    switch (key->kind) {
    case KIND_ADDRESS:
    case KIND_PATH:
        snprintf(out, size, "%s", field);
        return;
    case KIND_SYNC:
        snprintf(out, size, "%s", *(const bool *)field ? "full" : "normal");
        return;
    case KIND_LOG_LEVEL:
        snprintf(out, size, "%s", log_level_name(*(const log_level *)field));
        return;
    case KIND_LOG_FORMAT:
        snprintf(out, size, "%s", log_format_name(*(const log_format *)field));
        return;
    case KIND_INTEGER:
        snprintf(out, size, "%d", *(const int *)field);
        return;
    case KIND_BYTES:
        snprintf(out, size, "%zu", *(const size_t *)field);
        return;
    case KIND_SECRET:
    case KIND_SECRET_FILE:
        snprintf(out, size, "%s", field[0] ? "set" : "none");
        return;
    case KIND_ARENAS:
        snprintf(out, size, "%s", field[0] ? field : "none");
        return;
    case KIND_ORIGINS:
        snprintf(out, size, "%s", field[0] ? field : "any");
        return;
    case KIND_PROXIES:
        snprintf(out, size, "%s", field[0] ? field : "none");
        return;
    case KIND_INSTANCE:
        snprintf(out, size, "%s", field[0] ? (char[2]){field[0], '\0'} : "none");
        return;
    }
}

void server_config_print_usage(FILE *out)
{
    server_config defaults;
    server_config_init(&defaults);
    fprintf(out, "usage: tessera serve [--config FILE] [--KEY VALUE]...\n\n"
                 "Runs the game server: websockets and HTTP on one port. Settings come from,\n"
                 "in increasing priority: defaults, the --config file (or TESSERA_CONFIG) with\n"
                 "'key = value' lines (a value in quotes loses them), variables TESSERA_KEY\n"
                 "(e.g. TESSERA_PORT), and flags.\n\n");
    for (size_t k = 0; k < KEY_COUNT; k++) {
        char flag[64], value[SERVER_CONFIG_PATH_SIZE];
        snprintf(flag, sizeof(flag), "--%s %s", KEYS[k].name, KEYS[k].argument);
        default_text(&KEYS[k], &defaults, value, sizeof(value));
        fprintf(out, "  %-32s %s (default %s)\n", flag, KEYS[k].help, value);
    }
    fprintf(out, "  %-32s %s\n", "--help", "print this help");
    fprintf(out, "\nThe first line on standard output is 'listening on http://ADDRESS:PORT'.\n"
                 "SIGINT or SIGTERM stop the server gracefully (exit status 0); SIGHUP is\n"
                 "ignored (and logged): settings are read at start only.\n");
}

int server_config_make_folders_of(const char *path, int mode)
{
    char folder[SERVER_CONFIG_PATH_SIZE];
    if (snprintf(folder, sizeof(folder), "%s", path) >= (int)sizeof(folder))
        return -ENAMETOOLONG;
    for (char *slash = strchr(folder + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        if (mkdir(folder, (mode_t)mode) < 0 && errno != EEXIST)
            return -errno;
        *slash = '/';
    }
    return 0;
}

int server_config_make_db_folder(const server_config *config)
{
    if (store_path_is_postgres(config->db_path))
        return 0; /* a database on a server: no folder of ours */
    return server_config_make_folders_of(config->db_path, 0755);
}
