/* config.h -- the settings of `tessera serve` and where they come from.
 *
 * Four sources, each overriding the one before: the defaults compiled in,
 * an optional file (`--config FILE` or TESSERA_CONFIG), environment
 * variables TESSERA_<KEY>, and command-line flags `--<key> VALUE` (or
 * `--<key>=VALUE`). One table of keys drives all four, so a key has the
 * same name everywhere: `--max-message-bytes 65536` on the command line,
 * `max-message-bytes = 65536` (or max_message_bytes) in the file,
 * TESSERA_MAX_MESSAGE_BYTES=65536 in the environment. Byte sizes accept a
 * k or m suffix (KiB, MiB). In the file, a value in double or single
 * quotes loses them (what lies between is taken as is, '#' included); a
 * value that opens a quote and does not end with it is refused.
 *
 * The admin key is a secret: a config file that sets it must be readable
 * by its owner only (else it is refused), and admin-key-file reads it from
 * a file under the same rule, such as a systemd credential
 * (LoadCredential=, docs/OPERATIONS.md).
 *
 * Loading never exits or prints: it returns a code and a one-line message
 * naming the source (flag, variable, or file and line) and the accepted
 * values, so the command decides how to report it. */
#ifndef TESSERA_CONFIG_H
#define TESSERA_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "server/log.h"
#include "server/transport.h"

#define SERVER_CONFIG_ADDRESS_SIZE 64
#define SERVER_CONFIG_PATH_SIZE    4096
#define SERVER_CONFIG_SECRET_SIZE  128
#define SERVER_CONFIG_ARENAS_SIZE  2048

typedef enum server_config_result {
    SERVER_CONFIG_OK = 0,
    SERVER_CONFIG_HELP = 1,       /* --help was given: print the usage, exit 0 */
    SERVER_CONFIG_E_INVALID = -1, /* unknown key, bad value, unreadable file */
} server_config_result;

typedef struct server_config {
    char bind_address[SERVER_CONFIG_ADDRESS_SIZE]; /* IPv4 or IPv6 literal, default 127.0.0.1 */
    int port;                                      /* default 8080; 0 picks a free port */
    char db_path[SERVER_CONFIG_PATH_SIZE];         /* default ./data/tessera.db */
    char web_dir[SERVER_CONFIG_PATH_SIZE]; /* the browser client; default the source's web/ */
    bool db_synchronous_full;              /* SQLite synchronous=FULL, default NORMAL */
    log_level log_level;                   /* default info */
    log_format log_format;                 /* default text */
    transport_limits limits;               /* default transport_default_limits() */
    int reconnect_grace_s;                 /* lobby: default 60 */
    int finished_room_ttl_s;               /* lobby: default 600 */
    int bot_think_ms;                      /* lobby: MCTS time per move, default 300 */
    int bot_jobs;                          /* lobby: bot searches at once, default 3 */
    int max_rooms;                         /* lobby: default 10,000 */
    int max_rooms_per_player;              /* lobby: open rooms one player owns, 10 */
    int max_tournaments;                   /* lobby: running tournaments, 100 */
    int tournament_reserve;                /* lobby: of those, kept for admin and arenas, 10 */
    int tournaments_per_account;           /* lobby: running ones an account created, 2 */
    int tournament_rooms_per_account;      /* lobby: their games at once (parallel), 8 */
    int tournament_share;                  /* lobby: % of the server's caps one account gets, 10 */
    int queue_window;                      /* quick play: rating window, 5 points */
    int queue_widen_s;                     /* quick play: window grows every 10 s */
    int queue_fill_s;                      /* quick play: bots fill seats after 30 s */
    int db_writers;                        /* PostgreSQL's writer connections, default 2 */
    int history_readers;           /* read-only connections for the history API, default 2 */
    int leaderboard_min_games;     /* rated games to appear on a Blokus leaderboard, default 1 */
    int failures_per_name;         /* lobby: failed sign-ins a name may have a minute, 5 */
    int failures_per_address;      /* lobby: failed sign-ins an address may have a minute, 20 */
    int registrations_per_address; /* lobby: sign-ups an address may make an hour, 10 */
    int max_bots_per_account;      /* REST: bot accounts an account may own, 10 */
    int guests_per_address;        /* lobby: new guests an address may make a minute, 60 */
    int guest_ttl_s;               /* lobby: unclaimed guests expire after, 30 days; 0: never */
    char admin_key[SERVER_CONFIG_SECRET_SIZE]; /* REST admin routes; "" (default): none */
    char arenas[SERVER_CONFIG_ARENAS_SIZE];    /* scheduled arenas (lobby/arena.h); "": none */
    char instance; /* lobby: this instance's id among several; '\0' (default): a lone server */
    int lease_ms;  /* lobby: a room's lease, 3000 */
} server_config;

/* Fills *config with the compiled-in defaults. */
void server_config_init(server_config *config);

/* Loads defaults, the config file, the TESSERA_* entries of `environment`
 * (a NULL-terminated "NAME=value" array such as `environ`) and the flags of
 * argv (argv[0] is the command name). SERVER_CONFIG_OK, SERVER_CONFIG_HELP,
 * or SERVER_CONFIG_E_INVALID with the reason in `error`. */
int server_config_load(server_config *config, int argc, char **argv, char **environment,
                       char *error, size_t error_size);

/* Creates the folders that will hold the file `path` (mkdir -p), those it
 * creates with `mode` (less the umask). 0 or -errno. */
int server_config_make_folders_of(const char *path, int mode);

/* Creates the folders that will hold the database (0755). 0 or -errno. */
int server_config_make_db_folder(const server_config *config);

/* Prints the usage of `tessera serve`: every key, its meaning and default. */
void server_config_print_usage(FILE *out);

#endif
