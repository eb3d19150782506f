/* main.c -- the `tessera` binary: one executable, several subcommands.
 *
 * Dispatch is a table from name to function so `tessera --help` and the
 * subcommands can never disagree about what exists. */
#include <stdio.h>
#include <string.h>

#include "cli/commands.h"
#include "storage/secret.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command COMMANDS[] = {
    {"serve", cmd_serve, "run the game server (websockets + HTTP)"},
    {"bot", cmd_bot, "bot accounts: tessera bot add|key|revoke|open|close NAME"},
    {"tournament", cmd_tournament, "cancel a running tournament: tessera tournament cancel ID"},
    {"perft", cmd_perft, "count legal Blokus move sequences from the empty board"},
    {"selfplay", cmd_selfplay, "play bots against each other and print results"},
    {"pieces", cmd_pieces, "print the Blokus orientation table (cells, sides, corners) as JSON"},
    {"bench", cmd_bench, "measure engine speed (tessera bench engine)"},
    {"replay", cmd_replay, "replay every stored game through the rules (tessera replay verify)"},
    {"query", cmd_query, "games, profiles and leaderboards from a database, as tables or JSON"},
    {"backup", cmd_backup, "copy the database, even while the server runs (tessera backup PATH)"},
    {"migrate", cmd_migrate, "copy a SQLite database into a new PostgreSQL one"},
};

#define COMMAND_COUNT ((int)(sizeof(COMMANDS) / sizeof(COMMANDS[0])))

static void print_usage(FILE *out)
{
    fprintf(out, "tessera %s -- Blokus and Reef Builder game server\n\n", TESSERA_VERSION);
    fprintf(out, "usage: tessera COMMAND [OPTIONS]   (tessera COMMAND --help for details)\n\n");
    fprintf(out, "commands:\n");
    for (int i = 0; i < COMMAND_COUNT; i++)
        fprintf(out, "  %-10s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        print_usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("tessera %s\n", TESSERA_VERSION);
        return 0;
    }
    if (secret_init() != 0) {
        fprintf(stderr, "tessera: libsodium cannot be initialised (no random source?)\n");
        return 1;
    }
    for (int i = 0; i < COMMAND_COUNT; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0)
            return COMMANDS[i].run(argc - 1, argv + 1);
    fprintf(stderr, "tessera: unknown command '%s'\n\n", argv[1]);
    print_usage(stderr);
    return 2;
}
