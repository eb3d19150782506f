/* core_without_json.c -- a build check: the lobby's pure core knows no JSON.
 *
 * lobby/match.h, lobby/game.h, lobby/game_rules.h and the other pure
 * machines (lobby/matchmaking.h, arena_schedule.h, account_limits.h,
 * tournament_machine.h), and
 * every header they include, must not bring in jansson or the JSON writer:
 * moves reach the core typed, and the JSON views are lobby/game_wire.h's.
 * Both type names are poisoned before the headers are included, so the
 * build fails (tests/CMakeLists.txt compiles this file in every build) the
 * moment one of them, or jansson.h itself, mentions either. Nothing here
 * runs. */
#pragma GCC poison json_t json_out

#include "lobby/account_limits.h"
#include "lobby/arena_schedule.h"
#include "lobby/game.h"
#include "lobby/game_rules.h"
#include "lobby/match.h"
#include "lobby/matchmaking.h"
#include "lobby/tournament_machine.h"
