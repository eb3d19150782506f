/* cmd_migrate.c -- `tessera migrate --from FILE --to URL`: a SQLite
 * database copied into a new PostgreSQL one (storage/store_migrate.h), to
 * move a server onto PostgreSQL (docs/OPERATIONS.md, "PostgreSQL"). */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/commands.h"
#include "server/config.h"
#include "storage/store.h"
#include "storage/store_migrate.h"

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera migrate --from FILE --to postgresql://...\n\n"
                 "Copies every row of the SQLite database FILE (brought to this version's\n"
                 "schema first, as `tessera serve` would) into the PostgreSQL database the\n"
                 "URL names, which must hold no tessera data yet (its tables are made if it\n"
                 "has none). FILE is read in one transaction, so a server may keep running on\n"
                 "it, but what it stores after the copy began is not copied: stop it first to\n"
                 "move it. The PostgreSQL side is written in one transaction: all or nothing.\n"
                 "Ids, page cursors and the id sequences carry over.\n");
}

int cmd_migrate(int argc, char **argv)
{
    const char *from = NULL, *to = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        if (strcmp(argv[i], "--from") == 0 && i + 1 < argc)
            from = argv[++i];
        else if (strcmp(argv[i], "--to") == 0 && i + 1 < argc)
            to = argv[++i];
        else {
            usage(stderr);
            return 2;
        }
    }
    if (!from || !to) {
        usage(stderr);
        return 2;
    }
    if (access(from, R_OK) != 0) { /* opening would make an empty one and copy nothing */
        fprintf(stderr, "migrate: no database at %s\n", from);
        return 2;
    }
    char shown[SERVER_CONFIG_PATH_SIZE], problem[512];
    store_path_for_log(to, shown, sizeof(shown));
    store_migrate_report report;
    int rc = store_migrate(from, to, &report, problem, sizeof(problem));
    if (rc != STORE_OK) {
        fprintf(stderr, "migrate: %s; nothing was copied\n", problem);
        return rc == STORE_E_INVALID ? 2 : 1;
    }
    printf("copied %s to %s: %d tables, %lld rows (%lld games, %lld moves), %.1f s\n", from, shown,
           report.tables, (long long)report.rows, (long long)report.games, (long long)report.moves,
           report.elapsed_s);
    return 0;
}
