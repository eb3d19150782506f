/* cmd_bot.c -- `tessera bot add|key|revoke|open|close NAME`: bot accounts
 * for external bots, from the operator's shell.
 *
 * An external bot may play under a session token like any player, but an
 * arena wants to know which program played: a bot account has a name (as
 * unique as an account's) and an API key, and the bot says hello with
 * {name, bot: true, key}. The key is drawn from the kernel's random source
 * and shown once, here; the database keeps only its digest. `key` gives a
 * bot a new key (the old one stops working), `revoke` takes its key away;
 * `open` lets any account enter the bot in its tournaments, `close` takes
 * that back.
 * The same rules serve the REST routes (bot_accounts.h); the operator is
 * trusted like the admin key. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/bot_accounts.h"
#include "cli/commands.h"
#include "server/config.h"

extern char **environ;

static void usage(FILE *out)
{
    fprintf(out, "usage: tessera bot add NAME [--owner ACCOUNT] [--db FILE] [--config FILE]\n"
                 "       tessera bot key NAME [--db FILE] [--config FILE]\n"
                 "       tessera bot revoke NAME [--db FILE] [--config FILE]\n"
                 "       tessera bot open|close NAME [--db FILE] [--config FILE]\n\n"
                 "add creates a bot account (owned by the named account with --owner) and\n"
                 "prints its API key, shown only once; key prints a new key (the old one\n"
                 "stops working); revoke takes the key away (the bot cannot sign in until\n"
                 "its next key); open lets any account enter the bot in its tournaments,\n"
                 "close lets only its owner, the admin and accounts whose invitation it\n"
                 "accepted. A bot signs in with\n"
                 "{\"type\":\"hello\",\"name\":NAME,\"bot\":true,\"key\":KEY}.\n"
                 "Names: 2 to 24 letters, digits, '_', '-', '.' and single spaces, unique\n"
                 "without regard to case among accounts and bots.\n"
                 "The database is the one `tessera serve` would use with the same\n"
                 "settings: --db, --config, TESSERA_DB or TESSERA_CONFIG, else\n"
                 "./data/tessera.db.\n");
}

/* Takes `--owner NAME` (or --owner=NAME) out of argv, keeping the rest in
 * order for the config loader. 0, or -1 when --owner lacks its value. */
static int take_owner(int *argc, char **argv, const char **owner)
{
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        if (strncmp(argv[i], "--owner=", 8) == 0) {
            *owner = argv[i] + 8;
        } else if (strcmp(argv[i], "--owner") == 0) {
            if (i + 1 >= *argc)
                return -1;
            *owner = argv[++i];
        } else {
            argv[kept++] = argv[i];
        }
    }
    *argc = kept;
    return 0;
}

/* The store's answer; STORE_E_INTERNAL until it comes. */
static void on_stored(void *context, int rc, store_batch *batch)
{
    (void)batch;
    *(int *)context = rc;
}

/* Stores the change's record through the SQLite port of this process's
 * own connection, which commits on the calling thread and answers before
 * submit returns (there is no loop here to wait on): 0, or the change's
 * error. */
static int store_change(store *db, bot_accounts_change *change)
{
    store_port port = store_port_of(db);
    store_batch batch = {&change->record, 1, STORE_ORDER_SUBMITTED};
    int answer = STORE_E_INTERNAL;
    int rc = port.submit(port.context, &batch, on_stored, &answer);
    return bot_accounts_stored(change, rc != STORE_OK ? rc : answer);
}

static int run(const server_config *config, const char *action, const char *name, const char *owner)
{
    int rc = server_config_make_db_folder(config);
    if (rc < 0) {
        fprintf(stderr, "bot: cannot create the folder of %s: %s\n", config->db_path,
                strerror(-rc));
        return 1;
    }
    store *db = NULL;
    rc = store_open(config->db_path, false, &db);
    if (rc != 0) {
        fprintf(stderr, "bot: cannot open %s: %s\n", config->db_path, store_strerror(rc));
        return 1;
    }
    bot_accounts_change change;
    bool is_flag = strcmp(action, "open") == 0 || strcmp(action, "close") == 0;
    if (strcmp(action, "add") == 0)
        rc = bot_accounts_create(db, name, owner, 0, 0, &change); /* the operator: no cap */
    else if (is_flag)
        rc = bot_accounts_set_open(db, name, strcmp(action, "open") == 0, 0, &change);
    else
        rc = bot_accounts_set_key(db, name, strcmp(action, "revoke") == 0, 0, &change);
    if (rc == 0)
        rc = store_change(db, &change);
    store_close(db);
    const bot_accounts_result *result = &change.result;
    if (rc != 0) {
        fprintf(stderr, "bot: %s\n", result->failure.message);
        return 1;
    }
    printf("bot %s (player %lld)%s%s\n", result->name, (long long)result->id,
           result->owner[0] ? " owned by " : "", result->owner);
    if (is_flag)
        printf("%s to tournaments\n", result->is_open_to_tournaments ? "open" : "closed");
    else if (result->key[0])
        printf("key %s\n", result->key);
    else
        printf("key revoked\n");
    bot_accounts_forget(&change);
    return 0;
}

static bool is_action(const char *word)
{
    return strcmp(word, "add") == 0 || strcmp(word, "key") == 0 || strcmp(word, "revoke") == 0 ||
           strcmp(word, "open") == 0 || strcmp(word, "close") == 0;
}

int cmd_bot(int argc, char **argv)
{
    if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        usage(stdout);
        return 0;
    }
    if (argc < 3 || !is_action(argv[1]) || argv[2][0] == '-') {
        usage(stderr);
        return 2;
    }
    const char *action = argv[1], *name = argv[2], *owner = NULL;
    /* The database is found exactly as `tessera serve` finds it: defaults,
     * --config, TESSERA_* variables, then the flags after NAME (the loader
     * reads the flags that follow its argv[0], here NAME). */
    int rest = argc - 2;
    if (take_owner(&rest, argv + 2, &owner) != 0 || (owner && strcmp(action, "add") != 0)) {
        fprintf(stderr, "bot: --owner ACCOUNT goes with add only\n");
        return 2;
    }
    server_config config;
    char error[256];
    int rc = server_config_load(&config, rest, argv + 2, environ, error, sizeof(error));
    if (rc != SERVER_CONFIG_OK) {
        fprintf(stderr, "bot: %s\n", rc == SERVER_CONFIG_HELP ? "see tessera bot --help" : error);
        return 2;
    }
    return run(&config, action, name, owner);
}
