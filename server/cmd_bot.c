/* cmd_bot.c -- `tessera bot add NAME`: bot accounts for external bots.
 *
 * An external bot may play under a session token like any player, but an
 * arena wants to know which program played: a bot account has a name and
 * an API key, and the bot says hello with {name, bot: true, key}. The key
 * is drawn from the kernel's random source and shown once, here; the
 * database keeps it to check hellos against. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/player_name.h"
#include "server/commands.h"
#include "server/config.h"
#include "storage/secret.h"
#include "storage/store.h"

extern char **environ;

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera bot add NAME [--db FILE] [--config FILE]\n\n"
                 "Creates a bot account and prints its API key (shown only once). A bot\n"
                 "signs in with {\"type\":\"hello\",\"name\":NAME,\"bot\":true,\"key\":KEY}.\n"
                 "The database is the one `tessera serve` would use with the same\n"
                 "settings: --db, --config, TESSERA_DB or TESSERA_CONFIG, else\n"
                 "./data/tessera.db.\n");
}

static int add_account(const server_config *config, const char *input)
{
    char key[SECRET_KEY_SIZE], name[PLAYER_NAME_SIZE], name_key[PLAYER_NAME_SIZE];
    store *db = NULL;
    int64_t id = 0;
    protocol_failure failure;
    if (player_name_check(input, name, name_key, &failure) != 0) {
        fprintf(stderr, "bot: %s\n", failure.message);
        return 1;
    }
    int rc = server_config_make_db_folder(config);
    if (rc < 0) {
        fprintf(stderr, "bot: cannot create the folder of %s: %s\n", config->db_path,
                strerror(-rc));
        return 1;
    }
    secret_new_key(key);
    rc = store_open(config->db_path, false, &db);
    if (rc == 0)
        rc = store_bot_account_create(db, name, name_key, key, 0, &id);
    store_close(db);
    if (rc != 0) {
        fprintf(stderr, "bot: cannot create '%s' in %s: %s\n", name, config->db_path,
                store_strerror(rc));
        return 1;
    }
    printf("bot %s (player %lld)\nkey %s\n", name, (long long)id, key);
    return 0;
}

int cmd_bot(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "add") != 0 || argv[2][0] == '-') {
        usage(stderr);
        return 2;
    }
    /* The database is found exactly as `tessera serve` finds it: defaults,
     * --config, TESSERA_* variables, then the flags after NAME (the loader
     * reads the flags that follow its argv[0], here NAME). */
    const char *name = argv[2];
    server_config config;
    char error[256];
    int rc = server_config_load(&config, argc - 2, argv + 2, environ, error, sizeof(error));
    if (rc != SERVER_CONFIG_OK) {
        fprintf(stderr, "bot: %s\n", rc == SERVER_CONFIG_HELP ? "see tessera bot --help" : error);
        return 2;
    }
    return add_account(&config, name);
}
