/* arena.h -- scheduled arenas: recurring tournaments the server starts on
 * time, declared in the configuration.
 *
 * One arena is written
 *
 *   NAME every SECONDS GAME MODE FORMAT [rounds=N] [games=N] [parallel=N] [bots=KIND,...]
 *
 * e.g. "duo-hourly every 3600 blokus duo swiss rounds=3 bots=greedy", and
 * the setting `arenas` holds any number of them separated by ';'. An arena
 * starts at every multiple of its period since the Unix epoch (every 3600
 * s: on the hour, UTC). Its field is every bot account connected at that
 * moment, plus the built-in bots it names; with fewer than two entries it
 * skips that period (and logs why). A period in which the arena already
 * started a tournament (the database says so) is not started again, so a
 * restart within the hour does not run the hour twice; a server that comes
 * up after the first minute of a period waits for the next one (the timing
 * rule is lobby/arena_schedule.h's). The tournament is
 * named "NAME YYYY-MM-DD HH:MM" (its start, UTC) and plays with the
 * tournament defaults otherwise. */
#ifndef TESSERA_ARENA_H
#define TESSERA_ARENA_H

#include <stddef.h>
#include <stdint.h>

#define ARENA_MAX       16
#define ARENA_NAME_SIZE 33
#define ARENA_WORD_SIZE 17
#define ARENA_MAX_BOTS  8

typedef struct arena_spec {
    char name[ARENA_NAME_SIZE];
    int64_t period_s;
    char game[ARENA_WORD_SIZE];
    char mode[ARENA_WORD_SIZE];
    char format[ARENA_WORD_SIZE];
    int rounds, games, parallel; /* 0: the tournament default */
    char bots[ARENA_MAX_BOTS][ARENA_WORD_SIZE];
    int bot_count;
} arena_spec;

/* Parses the `arenas` setting: 0 with out[0 .. *count - 1], or -1 with
 * `error` saying which arena and word is wrong. The game, mode, format and
 * bots are only checked for shape here; tournament rules check the rest
 * when the arena starts. */
int arena_parse_list(const char *text, arena_spec *out, int *count, char *error, size_t size);

struct lobby;

/* Starts the arenas whose time has come (every lobby tick). */
void arenas_tick(struct lobby *lobby, int64_t now_ms);

#endif
