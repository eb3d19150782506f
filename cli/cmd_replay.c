/* cmd_replay.c -- `tessera replay verify` and `tessera replay export`.
 *
 * verify: each game is read from the database and fed through the rules
 * exactly as a restart would rebuild it (lobby_verify_game): every move is
 * checked again, and a finished game must end where it was stored as
 * ending, with the stored result. Each Reef run submitted through the
 * stateless API is replayed from its seed and must reach its stored score. A damaged or edited
 * database shows up here, game by game, and the exit status says whether anything did.
 *
 * export: one Blokus game as the SGF file Pentobi opens (sgf_export),
 * on standard output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history/sgf.h"
#include "lobby/lobby.h"
#include "protocol/reef_api.h"
#include "cli/commands.h"
#include "cli/open_database.h"
#include "storage/store.h"

#define PAGE 256

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera replay verify --db FILE\n"
                 "       tessera replay export GAME_ID --db FILE > GAME.blksgf\n\n"
                 "verify replays every game stored in FILE through the rules and prints each\n"
                 "one that does not re-validate or whose stored result differs, and every\n"
                 "submitted Reef run that does not replay to its score, then a summary;\n"
                 "exit status 0 when everything checks out, 1 when something does not.\n"
                 "export prints a Blokus game as Pentobi's SGF (Pentobi opens .blksgf files).\n");
}

struct tally {
    int checked, failed;
    int runs_checked, runs_failed;
};

static int verify_one(store *db, int64_t id, struct tally *tally)
{
    store_game_record *record = NULL;
    int rc = store_game_load(db, id, &record);
    if (rc != 0) {
        fprintf(stderr, "replay: cannot load game %lld: %s\n", (long long)id, store_strerror(rc));
        return rc;
    }
    char problem[256];
    if (lobby_verify_game(record, problem, sizeof(problem)) != 0) {
        printf("game %lld (room %s, %s %s): %s\n", (long long)id, record->info.room,
               record->info.game, record->info.mode, problem);
        tally->failed++;
    }
    tally->checked++;
    store_game_record_free(record);
    return 0;
}

static int export_one(const char *id_text, const char *path)
{
    char *end;
    long long id = strtoll(id_text, &end, 10);
    if (*end || id <= 0) {
        fprintf(stderr, "replay: '%s' is not a game id\n", id_text);
        return 2;
    }
    store *db = NULL;
    int status = cli_open_existing("replay", path, false, &db);
    if (status != 0)
        return status;
    store_game_record *record = NULL;
    int rc = store_game_load(db, id, &record);
    char problem[256], *sgf = NULL;
    if (rc != 0)
        snprintf(problem, sizeof(problem), "%s", store_strerror(rc));
    else if (sgf_export(record, &sgf, problem, sizeof(problem)) == 0)
        fputs(sgf, stdout);
    if (rc != 0 || !sgf)
        fprintf(stderr, "replay: game %lld: %s\n", id, problem);
    free(sgf);
    store_game_record_free(record);
    store_close(db);
    return sgf ? 0 : 1;
}

/* A submitted Reef run must replay from its seed to its stored score. */
static void verify_run(const store_submitted_run *run, struct tally *tally)
{
    reef_state state;
    char problem[200];
    if (reef_api_replay(run->seed, run->history, &state, problem, sizeof(problem)) != 0) {
        printf("reef run %lld: %s\n", (long long)run->id, problem);
        tally->runs_failed++;
    } else if (reef_score(&state) != run->score) {
        printf("reef run %lld: replays to %lld points, stored as %lld\n", (long long)run->id,
               (long long)reef_score(&state), (long long)run->score);
        tally->runs_failed++;
    }
    tally->runs_checked++;
}

static int verify_runs(store *db, struct tally *tally)
{
    store_submitted_run runs[PAGE];
    int64_t after = 0;
    int count = PAGE, rc = 0;
    while (rc == 0 && count == PAGE) {
        rc = store_submitted_runs_after(db, after, PAGE, runs, &count);
        for (int i = 0; i < count; i++) {
            if (rc == 0)
                verify_run(&runs[i], tally);
            free(runs[i].history);
        }
        after = count > 0 ? runs[count - 1].id : after;
    }
    if (rc != 0)
        fprintf(stderr, "replay: cannot read the Reef runs: %s\n", store_strerror(rc));
    return rc;
}

static int verify_all(const char *path)
{
    store *db = NULL;
    int rc = cli_open_existing("replay", path, false, &db);
    if (rc != 0)
        return rc;
    struct tally tally = {0, 0, 0, 0};
    int64_t ids[PAGE], after = 0;
    int count = PAGE;
    while (rc == 0 && count == PAGE) {
        rc = store_game_ids_after(db, after, PAGE, ids, &count);
        for (int i = 0; rc == 0 && i < count; i++)
            rc = verify_one(db, ids[i], &tally);
        after = count > 0 ? ids[count - 1] : after;
    }
    if (rc == 0)
        rc = verify_runs(db, &tally);
    store_close(db);
    if (rc != 0)
        return 1;
    printf("%d games checked, %d failed; %d submitted Reef runs checked, %d failed\n",
           tally.checked, tally.failed, tally.runs_checked, tally.runs_failed);
    return tally.failed == 0 && tally.runs_failed == 0 ? 0 : 1;
}

int cmd_replay(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "verify") == 0 && strcmp(argv[2], "--db") == 0)
        return verify_all(argv[3]);
    if (argc == 5 && strcmp(argv[1], "export") == 0 && strcmp(argv[3], "--db") == 0)
        return export_one(argv[2], argv[4]);
    usage(stderr);
    return 2;
}
