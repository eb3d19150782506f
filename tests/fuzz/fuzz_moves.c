/* fuzz_moves.c -- Blokus and Reef move parsing, and the engine's verdict,
 * on real positions.
 *
 * The input: a byte choosing the game and mode (Blokus 4p, 3p, 2p, Duo,
 * Reef solo, Reef race), 8 bytes of seed, a prefix length, the prefix's
 * choice bytes (two per Blokus ply, one per Reef action: an index into
 * the engine's legal moves), a seat byte (Reef), then the action as JSON
 * text. The prefix is played through the lobby's game layer (game.h), so
 * the position is one a room can reach. What must hold for the action:
 * - decoded as a game.move's is (game_json_action, by its shape) and
 *   checked by the lobby (game_check_action), it is accepted exactly when
 *   the room's game's codec decodes it and the move is among the engine's
 *   generated legal moves for that seat (the checker and the generator
 *   agree), and never a pass;
 * - a refusal is bad_message or illegal_move, with a message;
 * - an accepted move applies, and its stored form (action_record_write)
 *   reads back (action_record_parse) as the same move.
 * Nothing crashes or leaks. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/action_record.h"
#include "lobby/game.h"
#include "protocol/game_json.h"
#include "tests/fuzz/fuzz_check.h"

#define BLOKUS_PREFIX_MAX 84 /* every piece of every color */
#define REEF_PREFIX_MAX   80

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static blokus_move blokus_moves[BLOKUS_MAX_MOVES];

typedef struct input {
    const uint8_t *data;
    size_t size;
} input;

static uint8_t take(input *in)
{
    if (in->size == 0)
        return 0;
    in->size--;
    return *in->data++;
}

static void start(game *position, uint8_t kind, uint64_t seed)
{
    static const blokus_mode MODES[] = {BLOKUS_MODE_4P, BLOKUS_MODE_3P, BLOKUS_MODE_2P,
                                        BLOKUS_MODE_DUO};
    game_options options;
    memset(&options, 0, sizeof(options));
    options.seed = seed;
    options.timeout = GAME_TIMEOUT_PASS;
    if (kind % 6 < 4) {
        options.kind = GAME_BLOKUS;
        options.blokus_mode = MODES[kind % 6];
        options.scoring = (kind / 6) % 2 ? BLOKUS_SCORING_OFFICIAL : BLOKUS_SCORING_SQUARES;
        options.seat_count = options.blokus_mode == BLOKUS_MODE_4P   ? 4
                             : options.blokus_mode == BLOKUS_MODE_3P ? 3
                                                                     : 2;
    } else {
        options.kind = GAME_REEF;
        options.is_race = kind % 6 == 5;
        options.seat_count = options.is_race ? 1 + (kind / 6) % 4 : 1;
        options.max_turns = 1000;
    }
    game_start(position, &options);
}

/* The seat that moves next in Blokus, or -1 when the game is over. */
static int blokus_seat(const game *position)
{
    return game_is_over(position) ? -1 : blokus_player_to_move(&position->state.blokus);
}

static void play_blokus_prefix(game *position, input *in, int plies)
{
    game_outcome outcome;
    for (int i = 0; i < plies && !game_is_over(position); i++) {
        int count = blokus_generate(&position->state.blokus, blokus_moves);
        FUZZ_REQUIRE(count > 0);
        unsigned choice = take(in) | (unsigned)take(in) << 8;
        game_move move = game_move_of_blokus(blokus_moves[choice % (unsigned)count]);
        int seat = blokus_seat(position);
        FUZZ_REQUIRE(game_check_move(position, seat, move) == 0);
        game_apply(position, seat, move, &outcome);
    }
}

static void play_reef_prefix(game *position, input *in, int actions)
{
    static reef_action legal[REEF_MAX_ACTIONS];
    game_outcome outcome;
    for (int i = 0; i < actions; i++) {
        int seat = take(in) % position->options.seat_count;
        if (!game_seat_may_move(position, seat))
            continue;
        int count = reef_legal_actions(&position->state.reef[seat], legal);
        if (count == 0)
            continue;
        game_move move = game_move_of_reef(legal[take(in) % (unsigned)count]);
        FUZZ_REQUIRE(game_check_move(position, seat, move) == 0);
        game_apply(position, seat, move, &outcome);
    }
}

/* Whether the engine's generator lists `move` for `seat`. */
static bool is_generated(const game *position, int seat, game_move move)
{
    if (position->options.kind == GAME_BLOKUS) {
        if (seat != blokus_seat(position))
            return false;
        int count = blokus_generate(&position->state.blokus, blokus_moves);
        for (int i = 0; i < count; i++)
            if (memcmp(&blokus_moves[i], &move.blokus, sizeof(move.blokus)) == 0)
                return true;
        return false;
    }
    static reef_action legal[REEF_MAX_ACTIONS];
    if (!game_seat_may_move(position, seat))
        return false;
    int count = reef_legal_actions(&position->state.reef[seat], legal);
    for (int i = 0; i < count; i++)
        if (legal[i].type == move.reef.type &&
            (move.reef.type == REEF_ACTION_SKIP ||
             (legal[i].row == move.reef.row && legal[i].col == move.reef.col &&
              legal[i].orientation == move.reef.orientation)))
            return true;
    return false;
}

/* The codec alone (the shape), without the rules. */
static int codec_decode(const game *position, const json_t *action, game_move *out)
{
    protocol_failure failure;
    memset(out, 0, sizeof(*out));
    if (position->options.kind == GAME_BLOKUS)
        return game_json_blokus_action(action, &out->blokus, &failure);
    return game_json_reef_action(action, &out->reef, &failure);
}

static void check_action(game *position, int seat, const json_t *action)
{
    game_move move, shape;
    memset(&move, 0, sizeof(move));
    protocol_failure failure;
    int rc = game_json_action(action, &move, &failure);
    if (rc == 0)
        rc = game_check_action(position, seat, move, &failure);
    bool is_shaped = codec_decode(position, action, &shape) == 0;
    bool is_legal = is_shaped && is_generated(position, seat, shape);
    FUZZ_REQUIRE((rc == 0) == is_legal);
    if (rc != 0) {
        FUZZ_REQUIRE(rc == PROTOCOL_E_BAD_MESSAGE || rc == PROTOCOL_E_ILLEGAL_MOVE);
        FUZZ_REQUIRE(failure.code == rc && failure.message[0] != '\0');
        return;
    }
    FUZZ_REQUIRE(position->options.kind != GAME_BLOKUS || move.blokus.piece != BLOKUS_PASS);
    match_action logged = {MATCH_ACTION_MOVE, move}, again;
    char stored[ACTION_RECORD_TEXT_MAX];
    action_record_write(&logged, stored);
    FUZZ_REQUIRE(action_record_parse(position->options.kind, stored, &again) == 0);
    FUZZ_REQUIRE(again.kind == MATCH_ACTION_MOVE && memcmp(&again.move, &move, sizeof(move)) == 0);
    game_outcome outcome;
    game_apply(position, seat, move, &outcome);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    input in = {data, size};
    uint8_t kind = take(&in);
    uint64_t seed = 0;
    for (int i = 0; i < 8; i++)
        seed = seed << 8 | take(&in);
    int prefix = take(&in);
    game position;
    start(&position, kind, seed);
    if (position.options.kind == GAME_BLOKUS)
        play_blokus_prefix(&position, &in, prefix % BLOKUS_PREFIX_MAX);
    else
        play_reef_prefix(&position, &in, prefix % REEF_PREFIX_MAX);
    uint8_t seat_byte = take(&in);
    int seat = position.options.kind == GAME_BLOKUS ? blokus_seat(&position)
                                                    : seat_byte % position.options.seat_count;
    json_t *action = json_loadb((const char *)in.data, in.size, JSON_DECODE_ANY, NULL);
    if (action && seat >= 0)
        check_action(&position, seat, action);
    json_decref(action);
    return 0;
}
