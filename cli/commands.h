/* commands.h -- the subcommands of the `tessera` binary.
 *
 * Each takes the arguments after its own name (argv[0] is the subcommand
 * name), prints its own --help, and returns the process exit status:
 * 0 success, 1 failure, 2 bad usage. */
#ifndef TESSERA_COMMANDS_H
#define TESSERA_COMMANDS_H

int cmd_serve(int argc, char **argv);
int cmd_bot(int argc, char **argv);
int cmd_perft(int argc, char **argv);
int cmd_selfplay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_pieces(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_query(int argc, char **argv);
int cmd_backup(int argc, char **argv);
int cmd_migrate(int argc, char **argv);
int cmd_tournament(int argc, char **argv);

/* `tessera selfplay --game reef ...`: argv as given to cmd_selfplay. */
int selfplay_reef(int argc, char **argv);

#endif
