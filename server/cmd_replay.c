/* cmd_replay.c -- `tessera replay verify`: every stored game, replayed.
 *
 * Each game is read from the database and fed through the rules exactly
 * as a restart would rebuild it (lobby_verify_game): every move is checked
 * again, and a finished game must end where it was stored as ending, with
 * the stored result. A damaged or edited database shows up here, game by
 * game, and the exit status says whether anything did. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "lobby/lobby.h"
#include "server/commands.h"
#include "storage/store.h"

#define PAGE 256

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera replay verify --db FILE\n\n"
                 "Replays every game stored in FILE through the rules and prints each one\n"
                 "that does not re-validate or whose stored result differs, then a summary.\n"
                 "Exit status 0 when every game checks out, 1 when one does not.\n");
}

struct tally {
    int checked, failed;
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

static int verify_all(const char *path)
{
    if (access(path, R_OK) != 0) {
        fprintf(stderr, "replay: no database at %s\n", path);
        return 2;
    }
    store *db = NULL;
    int rc = store_open(path, false, &db);
    if (rc != 0) {
        fprintf(stderr, "replay: cannot open %s: %s\n", path, store_strerror(rc));
        return 1;
    }
    struct tally tally = {0, 0};
    int64_t ids[PAGE], after = 0;
    int count = PAGE;
    while (rc == 0 && count == PAGE) {
        rc = store_game_ids_after(db, after, PAGE, ids, &count);
        for (int i = 0; rc == 0 && i < count; i++)
            rc = verify_one(db, ids[i], &tally);
        after = count > 0 ? ids[count - 1] : after;
    }
    store_close(db);
    if (rc != 0)
        return 1;
    printf("%d games checked, %d failed\n", tally.checked, tally.failed);
    return tally.failed == 0 ? 0 : 1;
}

int cmd_replay(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc != 4 || strcmp(argv[1], "verify") != 0 || strcmp(argv[2], "--db") != 0) {
        usage(stderr);
        return 2;
    }
    return verify_all(argv[3]);
}
