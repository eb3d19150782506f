/* player_name.h -- the rules for account and bot names.
 *
 * A name is what people see and what the leaderboards list, so it is kept
 * plain: 2 to 24 characters, ASCII letters and digits, and '_', '-', '.'
 * or single spaces between them; spaces around it are trimmed. Names are
 * unique without regard to case: the key (the name in lower case) is what
 * a store compares. Names that look like the built-in bots' entries
 * ("bot:greedy", "greedy", "mcts", ...) are reserved, so nobody can pass
 * for one: they are taken (name_taken), as if an account had them.
 *
 * Guests follow the same rules (so no newline, escape, bidi override or
 * non-ASCII look-alike of a letter ever reaches a screen as a name) and may
 * not take a name an account or a bot holds; they need no uniqueness among
 * themselves. Look-alikes within ASCII (l, I and 1; O and 0) are not
 * folded: keys are the names in lower case, as stored since schema 2. */
#ifndef TESSERA_PLAYER_NAME_H
#define TESSERA_PLAYER_NAME_H

#include "protocol/protocol.h"

#define PLAYER_NAME_MIN  2
#define PLAYER_NAME_MAX  24
#define PLAYER_NAME_SIZE (PLAYER_NAME_MAX + 1)

/* Checks `input` against the rules: 0 with the trimmed name in `display`
 * and its key in `key`, or a bad_message failure saying which rule it
 * breaks (name_taken for a reserved name). */
int player_name_check(const char *input, char display[PLAYER_NAME_SIZE], char key[PLAYER_NAME_SIZE],
                      protocol_failure *failure);

#endif
