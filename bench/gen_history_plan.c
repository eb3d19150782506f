/* gen_history_plan.c -- the games and tournaments gen_history_db plays
 * (see gen_history_plan.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/gen_history_plan.h"
#include "bench/history_names.h"
#include "engine/rng.h"
#include "lobby/game_wire.h"

#define TOURNAMENT_ENTRIES 8
#define TOURNAMENT_GAMES   24
#define TOURNAMENT_SEATS   4
#define BOT_SEAT_PERCENT   15
#define RESIGN_PERCENT     3
#define EARLIEST_RESIGN    4
#define RESIGN_SPREAD      40

/* One kind of game and its share of the mix, in percent. */
struct mix_entry {
    const char *game;
    const char *mode;
    int percent;
};

static const struct mix_entry MIX[] = {
    {"blokus", "4p", 30},  {"blokus", "2p", 10},         {"blokus", "3p", 10},
    {"blokus", "duo", 20}, {"reef-builder", "solo", 15}, {"reef-builder", "race", 15},
};

struct tournament {
    int64_t id;                      /* 0: none running */
    int entries[TOURNAMENT_ENTRIES]; /* player numbers */
};

struct history_plan {
    rng generator;
    int players;
    const int64_t *player_ids;
    struct tournament tournament;
};

int history_plan_new(uint64_t seed, int players, const int64_t *player_ids, history_plan **out)
{
    history_plan *plan = calloc(1, sizeof(*plan));
    if (!plan)
        return STORE_E_NOMEM;
    plan->generator = rng_seeded(seed);
    plan->players = players;
    plan->player_ids = player_ids;
    *out = plan;
    return 0;
}

void history_plan_free(history_plan *plan)
{
    free(plan);
}

/* A player's skill, fixed per player: the chance of playing the greedy move. */
static double skill_of(int player)
{
    return 0.2 + 0.7 * (double)((uint32_t)player * 2654435761u % 1000) / 1000.0;
}

/* `count` distinct player numbers into players[]. */
static void draw_players(history_plan *plan, int count, int *players)
{
    for (int i = 0; i < count; i++) {
        bool is_new;
        do {
            players[i] = history_draw_player(&plan->generator, plan->players);
            is_new = true;
            for (int other = 0; other < i; other++)
                is_new = is_new && players[other] != players[i];
        } while (!is_new);
    }
}

static const struct mix_entry *draw_kind(history_plan *plan)
{
    int roll = (int)rng_below(&plan->generator, 100);
    size_t i = 0;
    while (roll >= MIX[i].percent && i + 1 < sizeof(MIX) / sizeof(MIX[0]))
        roll -= MIX[i++].percent;
    return &MIX[i];
}

/* The options of a room created with game `kind`, `mode` and `seed` and no
 * other setting: 0, or STORE_E_INTERNAL should the rules refuse them. */
static int options_of(const char *kind, const char *mode, uint64_t seed, game_options *out)
{
    protocol_failure failure;
    if (game_wire_options_default(kind, mode, seed, out, &failure) == 0)
        return 0;
    fprintf(stderr, "gen_history_db: %s %s: %s\n", kind, mode, failure.message);
    return STORE_E_INTERNAL;
}

static void seat_player(const history_plan *plan, int player, history_seat_plan *seat)
{
    *seat = (history_seat_plan){plan->player_ids[player], NULL, skill_of(player)};
}

/* A game outside tournaments: a kind from the mix, drawn players. */
static int plan_open_game(history_plan *plan, history_game_plan *out)
{
    const struct mix_entry *kind = draw_kind(plan);
    bool is_reef = strcmp(kind->game, "reef-builder") == 0;
    uint64_t seed =
        is_reef ? 1 + rng_below(&plan->generator, HISTORY_REEF_SEEDS) : rng_next(&plan->generator);
    int rc = options_of(kind->game, kind->mode, seed, &out->options);
    if (rc != 0)
        return rc;
    if (out->options.is_race)
        out->options.seat_count = 2 + (int)rng_below(&plan->generator, 3);
    int players[GAME_MAX_SEATS];
    draw_players(plan, out->options.seat_count, players);
    for (int seat = 0; seat < out->options.seat_count; seat++) {
        seat_player(plan, players[seat], &out->seats[seat]);
        bool is_bot = !is_reef && seat > 0 && rng_below(&plan->generator, 100) < BOT_SEAT_PERCENT;
        if (is_bot)
            out->seats[seat] =
                (history_seat_plan){0, rng_below(&plan->generator, 2) ? "greedy" : "random", 0};
    }
    if (rng_below(&plan->generator, 100) < RESIGN_PERCENT) {
        out->resign_seat = 0;
        out->resign_after = EARLIEST_RESIGN + (int)rng_below(&plan->generator, RESIGN_SPREAD);
    }
    return 0;
}

/* Opens tournament number `index / HISTORY_GAMES_PER_TOURNAMENT` with its
 * entries and whole schedule. */
static int open_tournament(history_plan *plan, store *storage, long index, int64_t at_ms)
{
    struct tournament *t = &plan->tournament;
    store_tournament_entry entries[TOURNAMENT_ENTRIES];
    char name[64];
    draw_players(plan, TOURNAMENT_ENTRIES, t->entries);
    for (int i = 0; i < TOURNAMENT_ENTRIES; i++)
        entries[i] = (store_tournament_entry){plan->player_ids[t->entries[i]], NULL, NULL};
    snprintf(name, sizeof(name), "Bench cup %ld", index / HISTORY_GAMES_PER_TOURNAMENT + 1);
    store_tournament_info info = {name,
                                  "blokus",
                                  "4p",
                                  "fixed",
                                  "{\"games\":24,\"scoring\":\"squares\"}",
                                  rng_next(&plan->generator),
                                  NULL,
                                  at_ms,
                                  0};
    int rc = store_tournament_create(storage, &info, TOURNAMENT_ENTRIES, entries, &t->id);
    for (int number = 0; rc == 0 && number < TOURNAMENT_GAMES; number++) {
        int seats[TOURNAMENT_SEATS];
        for (int seat = 0; seat < TOURNAMENT_SEATS; seat++)
            seats[seat] = (number + 2 * seat) % TOURNAMENT_ENTRIES;
        rc = store_tournament_schedule(storage, t->id, number, number / 2, TOURNAMENT_SEATS, seats);
    }
    return rc;
}

/* Game `number` of the running tournament: its scheduled seating. */
static int plan_tournament_game(history_plan *plan, int number, history_game_plan *out)
{
    const struct tournament *t = &plan->tournament;
    int rc = options_of("blokus", "4p", rng_next(&plan->generator), &out->options);
    for (int seat = 0; seat < TOURNAMENT_SEATS; seat++)
        seat_player(plan, t->entries[(number + 2 * seat) % TOURNAMENT_ENTRIES], &out->seats[seat]);
    out->tournament_id = t->id;
    out->tournament_game = number;
    return rc;
}

int history_plan_game(history_plan *plan, store *storage, long index, int64_t created_at_ms,
                      history_game_plan *out)
{
    memset(out, 0, sizeof(*out));
    out->created_at_ms = created_at_ms;
    out->resign_seat = -1;
    long number = index % HISTORY_GAMES_PER_TOURNAMENT;
    int rc = 0;
    if (number == 0)
        rc = open_tournament(plan, storage, index, created_at_ms);
    if (rc == 0 && plan->tournament.id && number < TOURNAMENT_GAMES)
        rc = plan_tournament_game(plan, (int)number, out);
    else if (rc == 0)
        rc = plan_open_game(plan, out);
    out->seed = rng_next(&plan->generator);
    return rc;
}

int history_plan_finished(history_plan *plan, store *storage, const history_game_plan *planned,
                          const history_game_outcome *outcome)
{
    struct tournament *t = &plan->tournament;
    if (!planned->tournament_id)
        return 0;
    const match_result *result = &outcome->result;
    store_standing_change changes[TOURNAMENT_SEATS];
    int winners = 0;
    for (int seat = 0; seat < TOURNAMENT_SEATS; seat++)
        winners += result->is_winner[seat];
    for (int seat = 0; seat < TOURNAMENT_SEATS; seat++) {
        bool is_winner = result->is_winner[seat];
        changes[seat] = (store_standing_change){
            (planned->tournament_game + 2 * seat) % TOURNAMENT_ENTRIES,
            is_winner ? 1.0 / winners : 0, 1, is_winner, result->scores[seat]};
    }
    int rc = store_tournament_result(storage, t->id, TOURNAMENT_SEATS, changes);
    if (rc == 0 && planned->tournament_game == TOURNAMENT_GAMES - 1) {
        rc = store_tournament_finish(storage, t->id, outcome->finished_at_ms);
        t->id = 0;
    }
    return rc;
}
