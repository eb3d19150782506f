/* game_rules.h -- the table each game fills in for game.c (private to the
 * lobby). Every entry has the meaning of the game_* function of the same
 * name in game.h. */
#ifndef TESSERA_GAME_RULES_H
#define TESSERA_GAME_RULES_H

#include "lobby/game.h"

struct game_rules {
    bool (*is_over)(const game *g);
    bool (*seat_may_move)(const game *g, int seat);
    int64_t (*ply)(const game *g, int seat);
    int (*parse_move)(const json_t *action, game_move *out, protocol_failure *failure);
    int (*check_move)(const game *g, int seat, game_move m); /* 0 or an engine error */
    void (*apply)(game *g, int seat, game_move m, game_outcome *outcome);
    json_t *(*move_json)(game_move m);
    void (*resign)(game *g, int seat);
    void (*scores)(const game *g, int64_t scores[GAME_MAX_SEATS]);
    int (*bot_move)(const game *g, int seat, const char *bot, uint32_t think_ms, uint64_t seed,
                    const atomic_bool *cancel, game_move *out);
    int (*timeout_move)(const game *g, int seat, game_move *out);
    void (*write_state)(const game *g, int viewer_seat, json_out *out);
    void (*write_legal_moves)(const game *g, int seat, json_out *out);
    void (*describe_outcome)(const game_outcome *outcome, json_t *event);
};

extern const struct game_rules GAME_BLOKUS_RULES;
extern const struct game_rules GAME_REEF_RULES;

#endif
