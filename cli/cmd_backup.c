/* cmd_backup.c -- `tessera backup PATH [--db FILE]`: a consistent copy of
 * the database, taken while the server runs (storage/store_backup.h).
 *
 * A backup holds password hashes and key digests: every file and folder
 * the command creates is its owner's alone (umask 077, so SQLite's 0644
 * becomes 0600 for the copy and its journal, and new folders are 0700).
 *
 * Restoring is copying the backup back while the server is stopped
 * (README, "Backing up and restoring"). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli/commands.h"
#include "server/config.h"
#include "storage/store.h"
#include "storage/store_backup.h"

extern char **environ;

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera backup PATH [--db FILE] [--config FILE]\n\n"
                 "Copies the database to the new file PATH with SQLite's online backup API;\n"
                 "the server may keep running meanwhile. The copy is checked (integrity_check)\n"
                 "before it gets its name; PATH must not exist. The copy is readable by its\n"
                 "owner only (0600); missing folders of PATH are created (0700). The database\n"
                 "is the one `tessera serve` would use with the same settings: --db, --config,\n"
                 "TESSERA_DB or TESSERA_CONFIG, else ./data/tessera.db.\n");
}

static double elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) * 1e3 +
           (double)(now.tv_nsec - start->tv_nsec) / 1e6;
}

int cmd_backup(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 2 || argv[1][0] == '-') {
        usage(stderr);
        return 2;
    }
    /* The loader reads the flags after its argv[0], here PATH. */
    server_config config;
    char error[256];
    int loaded = server_config_load(&config, argc - 1, argv + 1, environ, error, sizeof(error));
    if (loaded != SERVER_CONFIG_OK) {
        fprintf(stderr, "backup: %s\n",
                loaded == SERVER_CONFIG_HELP ? "see tessera backup --help" : error);
        return 2;
    }
    const char *db_path = config.db_path;
    if (store_path_is_postgres(db_path)) {
        fprintf(stderr, "backup: the database is on a PostgreSQL server: back it up with "
                        "pg_dump (docs/OPERATIONS.md, \"PostgreSQL\")\n");
        return 2;
    }
    umask(077);
    int made = server_config_make_folders_of(argv[1], 0700);
    if (made < 0) {
        fprintf(stderr, "backup: cannot create the folder of %s: %s\n", argv[1], strerror(-made));
        return 1;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    store_backup_report report;
    char problem[512] = "";
    int rc = store_backup(db_path, argv[1], &report, problem, sizeof(problem));
    if (rc != STORE_OK) {
        fprintf(stderr, "backup: %s\n", problem[0] ? problem : store_strerror(rc));
        return 1;
    }
    printf("backed up %s to %s: %lld pages, %lld bytes, %lld games, %lld moves, "
           "integrity ok, %.0f ms\n",
           db_path, argv[1], (long long)report.pages, (long long)report.bytes,
           (long long)report.games, (long long)report.moves, elapsed_ms(&start));
    return 0;
}
