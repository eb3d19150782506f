/* game_rules.h -- the table each game fills in for game.c (private to the
 * lobby). Every entry has the meaning of the game_* function of the same
 * name in game.h, and gets moves of its own game only (game.c checks the
 * kind). The games' JSON views are lobby/game_wire.c's, not entries here. */
#ifndef TESSERA_GAME_RULES_H
#define TESSERA_GAME_RULES_H

#include "lobby/game.h"

struct game_rules {
    bool (*is_over)(const game *position);
    bool (*seat_may_move)(const game *position, int seat);
    int64_t (*ply)(const game *position, int seat);
    int (*check_move)(const game *position, int seat, game_move move); /* 0 or an engine error */
    void (*apply)(game *position, int seat, game_move move, game_outcome *outcome);
    void (*resign)(game *position, int seat);
    void (*scores)(const game *position, int64_t scores[GAME_MAX_SEATS]);
    int (*bot_move)(const game *position, int seat, const char *bot, uint32_t think_ms,
                    uint64_t seed, const atomic_bool *cancel, game_move *out);
    int (*timeout_move)(const game *position, int seat, game_move *out);
};

extern const struct game_rules GAME_BLOKUS_RULES;
extern const struct game_rules GAME_REEF_RULES;

#endif
