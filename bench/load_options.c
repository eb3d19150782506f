/* load_options.c -- getopt_long over a table, checked once at the end. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/load_options.h"

static const char USAGE[] =
    "usage: tessera-load (--tessera PATH | --echo-server PATH | --url ws://IP:PORT/ws) [options]\n"
    "\n"
    "Plays Blokus games through the real websocket protocol and prints moves/s,\n"
    "move round trip percentiles, server CPU per move and server memory.\n"
    "\n"
    "target:\n"
    "  --tessera PATH        start `PATH serve` on a free port with a temporary database;\n"
    "                        its rate, burst, http-rate, http-burst, connections-per-ip, "
    "connection-rate,\n"
    "                        max-rooms and guests-per-address limits are raised to 1000000\n"
    "                        unless --default-limits\n"
    "  --echo-server PATH    start bench/echo_server and drive it with the same pattern\n"
    "  --url ws://IP:PORT/ws a server already running (IPv4 address)\n"
    "  --server-pid PID      with --url: the process whose CPU and memory to report\n"
    "  --echo                with --url: the target is an echo server\n"
    "  --default-limits      start tessera with its default limits\n"
    "  --server-arg ARG      pass ARG to the started server (repeat for several)\n"
    "  --db FILE             the started tessera serves FILE (kept) instead of a\n"
    "                        temporary database\n"
    "scenario:\n"
    "  --mode duo|4p         game mode (default duo)\n"
    "  --games N             concurrent rooms (default 50; 0 with --history: no games)\n"
    "  --spectators N        spectators per room (default 0)\n"
    "  --rate MOVES_PER_S    paced total move rate (default 0: as fast as allowed); under\n"
    "                        tessera's default --rate 20/s a seat sends 2 messages per own\n"
    "                        move and seat 0 three more per game: keep rooms under 15\n"
    "                        moves/s each (4p: 30), e.g. --games 10 for --rate 150\n"
    "  --duration SECONDS    measured time (default 10)\n"
    "  --warmup SECONDS      time before measuring (default 1)\n"
    "  --report-every SECONDS  print a progress line (moves/s, server RSS) this often\n"
    "  --echo-sizes A,B,C,D,E  echo frame sizes: game.moves request, its reply, game.move,\n"
    "                        game.moved, game.state (default: a measured duo run)\n"
    "  --history RATE        also GET the history API's routes, RATE requests/s in all\n"
    "                        (a mix over every route; --db from bench/gen_history_db);\n"
    "                        reports latency percentiles per route\n"
    "  --history-players N   players the database was generated with (default 10000)\n"
    "  --history-connections N  keep-alive HTTP connections, at most (default 32)\n"
    "  --idle N              instead of games: N connections that say hello and stay idle;\n"
    "                        reports server RSS per connection\n"
    "  --local-addresses K   bind connections to 127.0.0.1..127.0.0.K in turn (default:\n"
    "                        enough addresses for at most 32 connections each, tessera's\n"
    "                        default --connections-per-ip)\n";

enum {
    OPTION_TESSERA = 1000,
    OPTION_ECHO_SERVER,
    OPTION_URL,
    OPTION_SERVER_PID,
    OPTION_ECHO,
    OPTION_DEFAULT_LIMITS,
    OPTION_SERVER_ARG,
    OPTION_MODE,
    OPTION_GAMES,
    OPTION_SPECTATORS,
    OPTION_RATE,
    OPTION_DURATION,
    OPTION_WARMUP,
    OPTION_REPORT_EVERY,
    OPTION_ECHO_SIZES,
    OPTION_IDLE,
    OPTION_LOCAL_ADDRESSES,
    OPTION_DB,
    OPTION_HISTORY,
    OPTION_HISTORY_PLAYERS,
    OPTION_HISTORY_CONNECTIONS,
    OPTION_HELP,
};

static const struct option OPTIONS[] = {
    {"tessera", required_argument, NULL, OPTION_TESSERA},
    {"echo-server", required_argument, NULL, OPTION_ECHO_SERVER},
    {"url", required_argument, NULL, OPTION_URL},
    {"server-pid", required_argument, NULL, OPTION_SERVER_PID},
    {"echo", no_argument, NULL, OPTION_ECHO},
    {"default-limits", no_argument, NULL, OPTION_DEFAULT_LIMITS},
    {"server-arg", required_argument, NULL, OPTION_SERVER_ARG},
    {"mode", required_argument, NULL, OPTION_MODE},
    {"games", required_argument, NULL, OPTION_GAMES},
    {"spectators", required_argument, NULL, OPTION_SPECTATORS},
    {"rate", required_argument, NULL, OPTION_RATE},
    {"duration", required_argument, NULL, OPTION_DURATION},
    {"warmup", required_argument, NULL, OPTION_WARMUP},
    {"report-every", required_argument, NULL, OPTION_REPORT_EVERY},
    {"echo-sizes", required_argument, NULL, OPTION_ECHO_SIZES},
    {"idle", required_argument, NULL, OPTION_IDLE},
    {"local-addresses", required_argument, NULL, OPTION_LOCAL_ADDRESSES},
    {"db", required_argument, NULL, OPTION_DB},
    {"history", required_argument, NULL, OPTION_HISTORY},
    {"history-players", required_argument, NULL, OPTION_HISTORY_PLAYERS},
    {"history-connections", required_argument, NULL, OPTION_HISTORY_CONNECTIONS},
    {"help", no_argument, NULL, OPTION_HELP},
    {NULL, 0, NULL, 0},
};

/* Sizes of a first-legal-move Duo run, measured with tessera 0.1.0. */
static const uint64_t DEFAULT_ECHO_SIZES[LOAD_SIZE_KINDS] = {45, 1900, 110, 150, 800};

static int usage_error(const char *message, const char *value)
{
    fprintf(stderr, "tessera-load: %s%s%s\n(tessera-load --help lists the options)\n", message,
            value ? ": " : "", value ? value : "");
    return 2;
}

static bool parse_number(const char *text, double minimum, double maximum, double *out)
{
    char *end;
    double value = strtod(text, &end);
    if (end == text || *end != '\0' || value < minimum || value > maximum)
        return false;
    *out = value;
    return true;
}

static bool parse_int(const char *text, int minimum, int maximum, int *out)
{
    double value;
    if (!parse_number(text, minimum, maximum, &value) || value != (int)value)
        return false;
    *out = (int)value;
    return true;
}

static bool parse_url(const char *url, load_options *o)
{
    return sscanf(url, "ws://%63[0-9.]:%d", o->host, &o->port) == 2 && o->port > 0 &&
           o->port < 65536;
}

static bool parse_sizes(const char *text, uint64_t sizes[LOAD_SIZE_KINDS])
{
    unsigned long long s[LOAD_SIZE_KINDS];
    if (sscanf(text, "%llu,%llu,%llu,%llu,%llu", &s[0], &s[1], &s[2], &s[3], &s[4]) != 5)
        return false;
    for (int i = 0; i < LOAD_SIZE_KINDS; i++) {
        if (s[i] < 1 || s[i] > 1000000)
            return false;
        sizes[i] = s[i];
    }
    return true;
}

static void set_defaults(load_options *o)
{
    memset(o, 0, sizeof(*o));
    snprintf(o->host, sizeof(o->host), "127.0.0.1");
    o->mode = "duo";
    o->rooms = 50;
    o->duration_s = 10;
    o->warmup_s = 1;
    o->history_players = 10000;
    o->history_connections = 32;
    memcpy(o->echo_sizes, DEFAULT_ECHO_SIZES, sizeof(DEFAULT_ECHO_SIZES));
}

/* One option; 0, or 2 after printing a usage error. */
static int apply(int option, const char *value, load_options *o)
{
    double number = 0;
    bool is_valid = true;
    switch (option) {
    case OPTION_TESSERA:
        o->tessera_path = value;
        break;
    case OPTION_ECHO_SERVER:
        o->echo_server_path = value, o->is_echo = true;
        break;
    case OPTION_URL:
        is_valid = parse_url(value, o);
        break;
    case OPTION_SERVER_PID:
        is_valid = parse_number(value, 1, 1e9, &number), o->server_pid = (pid_t)number;
        break;
    case OPTION_ECHO:
        o->is_echo = true;
        break;
    case OPTION_DEFAULT_LIMITS:
        o->has_default_limits = true;
        break;
    case OPTION_SERVER_ARG:
        is_valid = o->server_arg_count < LOAD_MAX_SERVER_ARGS;
        if (is_valid)
            o->server_args[o->server_arg_count++] = value;
        break;
    case OPTION_MODE:
        o->mode = value, is_valid = !strcmp(value, "duo") || !strcmp(value, "4p");
        break;
    case OPTION_GAMES:
        is_valid = parse_int(value, 0, 100000, &o->rooms);
        break;
    case OPTION_SPECTATORS:
        is_valid = parse_int(value, 0, 10000, &o->spectators);
        break;
    case OPTION_RATE:
        is_valid = parse_number(value, 0, 1e7, &o->rate);
        break;
    case OPTION_DURATION:
        is_valid = parse_number(value, 0.1, 86400, &o->duration_s);
        break;
    case OPTION_WARMUP:
        is_valid = parse_number(value, 0, 3600, &o->warmup_s);
        break;
    case OPTION_REPORT_EVERY:
        is_valid = parse_number(value, 0.1, 3600, &o->report_every_s);
        break;
    case OPTION_ECHO_SIZES:
        is_valid = parse_sizes(value, o->echo_sizes);
        break;
    case OPTION_IDLE:
        is_valid = parse_int(value, 1, 1000000, &o->idle_connections);
        break;
    case OPTION_LOCAL_ADDRESSES:
        is_valid = parse_int(value, 1, 254, &o->local_addresses);
        break;
    case OPTION_DB:
        o->db_path = value;
        break;
    case OPTION_HISTORY:
        is_valid = parse_number(value, 0.1, 1e6, &o->history_rate);
        break;
    case OPTION_HISTORY_PLAYERS:
        is_valid = parse_int(value, 1, 10000000, &o->history_players);
        break;
    case OPTION_HISTORY_CONNECTIONS:
        is_valid = parse_int(value, 1, 10000, &o->history_connections);
        break;
    default:
        return usage_error("unknown option", NULL);
    }
    return is_valid ? 0 : usage_error("bad value", value);
}

static int check(const load_options *o)
{
    int targets = (o->tessera_path != NULL) + (o->echo_server_path != NULL) + (o->port != 0);
    if (targets != 1)
        return usage_error("give exactly one of --tessera, --echo-server, --url", NULL);
    if (o->server_pid && !o->port)
        return usage_error("--server-pid goes with --url", NULL);
    if (o->is_echo && o->idle_connections)
        return usage_error("--idle measures tessera, not the echo server", NULL);
    if (o->db_path && !o->tessera_path)
        return usage_error("--db goes with --tessera", NULL);
    if (o->history_rate > 0 && (o->is_echo || o->idle_connections))
        return usage_error("--history queries tessera during games, not --echo or --idle", NULL);
    if (o->rooms == 0 && o->history_rate == 0)
        return usage_error("--games 0 needs --history", NULL);
    return 0;
}

int load_options_parse(int argc, char **argv, load_options *o)
{
    set_defaults(o);
    int option;
    opterr = 0;
    while ((option = getopt_long(argc, argv, "", OPTIONS, NULL)) != -1) {
        if (option == OPTION_HELP) {
            fputs(USAGE, stdout);
            return 1;
        }
        if (option == '?')
            return usage_error("unknown option or missing value", argv[optind - 1]);
        int rc = apply(option, optarg, o);
        if (rc != 0)
            return rc;
    }
    if (optind < argc)
        return usage_error("unexpected argument", argv[optind]);
    return check(o);
}
