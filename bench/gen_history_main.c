/* gen_history_main.c -- gen_history_db: a database of finished games for
 * the history benchmark.
 *
 *   gen_history_db --db FILE [--games N] [--players N] [--days D] [--seed S]
 *
 * Writes a new database (it refuses a file that exists) through the
 * storage layer: N players (named accounts with one password, every
 * tenth a bot account owned by the next player; bench/history_names.h
 * has the names), then N games of every Blokus mode and of Reef, each
 * played to its end through the lobby's rules and stored by the lobby's
 * own code (gen_history_game.h), with the ratings, rating history, Reef
 * runs and bests a server writes when a game finishes, and one
 * tournament per HISTORY_GAMES_PER_TOURNAMENT games with its entries,
 * schedule and standings. Games are spread evenly over the D days before
 * now (ids grow with time, as on a server), so the day's and the week's
 * Reef boards hold today's share.
 *
 * The mix, per 100 games: 30 4p, 10 2p, 10 3p, 20 Duo, 15 Reef solo, 15
 * Reef races of 2 to 4 boards. A Blokus seat is a player (85%) or a
 * built-in bot (greedy or random); seat 0 is always a player; about 3% of
 * games see a player resign. Everything is drawn from --seed, so a run
 * with the same arguments makes the same games (room codes, timestamps
 * and ratings included; only the password salt and creation times of the
 * player rows differ).
 *
 * Speed: the games are written in transactions of BATCH_GAMES games
 * (each room event's records are applied inside the batch's
 * transaction), since a commit per event would
 * make the run disk-bound. A failure stops the run: the database is then
 * incomplete and should be deleted. It prints its progress, then the time
 * it took and the size of the file. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bench/gen_history_game.h"
#include "bench/gen_history_plan.h"
#include "bench/history_names.h"
#include "storage/secret.h"

#define BATCH_GAMES   500
#define PROGRESS_STEP 10 /* percent */
#define MS_PER_DAY    86400000LL
#define PASSWORD      "bench-password"

struct options {
    const char *db_path;
    long games;
    int players;
    int days;
    uint64_t seed;
};

static const char USAGE[] =
    "usage: gen_history_db --db FILE [--games N] [--players N] [--days D] [--seed S]\n"
    "\n"
    "Writes a new database of N finished games (default 100000) between N players\n"
    "(default 10000), spread over the D days before now (default 60), drawn from\n"
    "seed S (default 1), for tessera-load --history. FILE must not exist.\n";

static int usage_error(const char *message, const char *value)
{
    fprintf(stderr, "gen_history_db: %s%s%s\n%s", message, value ? ": " : "", value ? value : "",
            USAGE);
    return 2;
}

static bool parse_long(const char *text, long minimum, long maximum, long *out)
{
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < minimum || value > maximum)
        return false;
    *out = value;
    return true;
}

/* 0, 1 after --help, or 2 after a usage error. */
static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option LONG_OPTIONS[] = {{"db", required_argument, NULL, 'd'},
                                                 {"games", required_argument, NULL, 'g'},
                                                 {"players", required_argument, NULL, 'p'},
                                                 {"days", required_argument, NULL, 'D'},
                                                 {"seed", required_argument, NULL, 's'},
                                                 {"help", no_argument, NULL, 'h'},
                                                 {NULL, 0, NULL, 0}};
    *o = (struct options){NULL, 100000, 10000, 60, 1};
    long value = 0;
    int option;
    opterr = 0;
    while ((option = getopt_long(argc, argv, "", LONG_OPTIONS, NULL)) != -1) {
        bool is_valid = true;
        if (option == 'h') {
            fputs(USAGE, stdout);
            return 1;
        } else if (option == 'd') {
            o->db_path = optarg;
        } else if (option == 'g') {
            is_valid = parse_long(optarg, 1, 10000000, &o->games);
        } else if (option == 'p') {
            is_valid = parse_long(optarg, HISTORY_BOT_EVERY, 1000000, &value);
            o->players = (int)value;
        } else if (option == 'D') {
            is_valid = parse_long(optarg, 1, 3650, &value);
            o->days = (int)value;
        } else if (option == 's') {
            is_valid = parse_long(optarg, 0, LONG_MAX, &value);
            o->seed = (uint64_t)value;
        } else {
            return usage_error("unknown option or missing value", argv[optind - 1]);
        }
        if (!is_valid)
            return usage_error("bad value", optarg);
    }
    if (optind < argc)
        return usage_error("unexpected argument", argv[optind]);
    if (!o->db_path)
        return usage_error("--db is required", NULL);
    if (access(o->db_path, F_OK) == 0)
        return usage_error("the file exists (remove it first)", o->db_path);
    return 0;
}

static double now_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + now.tv_nsec / 1e9;
}

static int64_t epoch_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* Players: the accounts first, then the bot accounts (each owned by the
 * account after it, which then exists). */
static int create_players(store *storage, int count, int64_t *ids)
{
    char hash[SECRET_PASSWORD_HASH_SIZE], name[HISTORY_NAME_SIZE], secret[32];
    if (secret_password_hash(PASSWORD, secret_password_cost_minimum(), hash) != 0)
        return STORE_E_NOMEM;
    int rc = store_begin(storage);
    for (int pass = 0; pass < 2; pass++) {
        for (int i = 0; rc == 0 && i < count; i++) {
            if (history_is_bot(i) != (pass == 1))
                continue;
            history_player_name(i, name);
            snprintf(secret, sizeof(secret), "bench-secret-%d", i);
            int owner = i + 1 < count ? i + 1 : i - 1;
            rc = pass == 0
                     ? store_account_create(storage, name, name, hash, secret, &ids[i])
                     : store_bot_account_create(storage, name, name, secret, ids[owner], &ids[i]);
        }
    }
    if (rc == 0)
        return store_commit(storage);
    store_rollback(storage);
    return rc;
}

/* Plays and stores every game, BATCH_GAMES per transaction. */
static int create_games(store *storage, const struct options *o, history_plan *plan, int64_t *moves)
{
    int64_t now = epoch_ms(), first_ms = now - o->days * MS_PER_DAY;
    int rc = store_begin(storage);
    for (long i = 0; rc == 0 && i < o->games; i++) {
        history_game_plan planned;
        history_game_outcome outcome;
        rc = history_plan_game(plan, storage, i, first_ms + (now - first_ms) * i / o->games,
                               &planned);
        if (rc == 0)
            rc = history_game_play(storage, &planned, &outcome);
        if (rc == 0)
            rc = history_plan_finished(plan, storage, &planned, &outcome);
        *moves += rc == 0 ? outcome.moves : 0;
        if (rc == 0 && (i + 1) % BATCH_GAMES == 0 && (rc = store_commit(storage)) == 0)
            rc = store_begin(storage);
        if ((i + 1) * 100 / o->games / PROGRESS_STEP != i * 100 / o->games / PROGRESS_STEP) {
            printf("  %3ld%%  %ld games, %lld moves\n", (i + 1) * 100 / o->games, i + 1,
                   (long long)*moves);
            fflush(stdout);
        }
    }
    if (rc == 0)
        return store_commit(storage);
    store_rollback(storage);
    return rc;
}

static int generate(const struct options *o, int64_t *moves)
{
    store *storage = NULL;
    history_plan *plan = NULL;
    int64_t *ids = calloc((size_t)o->players, sizeof(*ids));
    int rc = ids ? store_open(o->db_path, false, &storage) : STORE_E_NOMEM;
    if (rc == 0)
        rc = create_players(storage, o->players, ids);
    if (rc == 0)
        rc = history_plan_new(o->seed, o->players, ids, &plan);
    if (rc == 0)
        rc = create_games(storage, o, plan, moves);
    history_plan_free(plan);
    store_close(storage);
    free(ids);
    return rc;
}

int main(int argc, char **argv)
{
    struct options o;
    int rc = parse_options(argc, argv, &o);
    if (rc != 0)
        return rc == 1 ? 0 : rc;
    if (secret_init() != 0) {
        fprintf(stderr, "gen_history_db: libsodium cannot start\n");
        return 1;
    }
    printf("gen_history_db: %ld games, %d players, over %d days, seed %llu, into %s\n", o.games,
           o.players, o.days, (unsigned long long)o.seed, o.db_path);
    double start = now_seconds();
    int64_t moves = 0;
    rc = generate(&o, &moves);
    if (rc != 0) {
        fprintf(stderr, "gen_history_db: stopped: %s (any database left at %s is incomplete)\n",
                rc == HISTORY_GAME_REFUSED ? "the rules refused a move" : store_strerror(rc),
                o.db_path);
        return 1;
    }
    double seconds = now_seconds() - start;
    struct stat info;
    double megabytes = stat(o.db_path, &info) == 0 ? (double)info.st_size / 1e6 : 0;
    printf("generated %ld games (%lld moves) and %d players in %.1f s (%.0f games/s); "
           "%s is %.1f MB\n",
           o.games, (long long)moves, o.players, seconds, o.games / seconds, o.db_path, megabytes);
    printf("RESULT games=%ld moves=%lld players=%d seconds=%.1f db_bytes=%lld\n", o.games,
           (long long)moves, o.players, seconds, (long long)(megabytes * 1e6));
    return 0;
}
