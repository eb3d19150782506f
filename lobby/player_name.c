/* player_name.c -- the name rules of player_name.h. */
#include "lobby/player_name.h"

#include <ctype.h>
#include <string.h>

/* Keys no account or bot may take: the built-in bots and their entries. */
static const char *const RESERVED[] = {"random",  "greedy",  "mcts", "mcts-v2", "lookahead",
                                       "planner", "chainer", "bot",  NULL};

static bool is_name_character(unsigned char c)
{
    return isalnum(c) || c == '_' || c == '-' || c == '.';
}

static bool is_reserved(const char *key)
{
    if (strncmp(key, "bot:", 4) == 0 || strncmp(key, "bot ", 4) == 0)
        return true;
    for (int i = 0; RESERVED[i]; i++)
        if (strcmp(key, RESERVED[i]) == 0)
            return true;
    return false;
}

int player_name_check(const char *input, char display[PLAYER_NAME_SIZE], char key[PLAYER_NAME_SIZE],
                      protocol_failure *failure)
{
    while (*input == ' ')
        input++;
    size_t length = strlen(input);
    while (length > 0 && input[length - 1] == ' ')
        length--;
    if (length < PLAYER_NAME_MIN || length > PLAYER_NAME_MAX)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "a name has %d to %d characters",
                             PLAYER_NAME_MIN, PLAYER_NAME_MAX);
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)input[i];
        bool is_inner_space = c == ' ' && input[i + 1] != ' ';
        if (!is_name_character(c) && !is_inner_space)
            return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                                 "a name has letters, digits, '_', '-', '.' and single spaces");
        display[i] = (char)c;
        key[i] = (char)tolower(c);
    }
    display[length] = key[length] = '\0';
    if (is_reserved(key))
        return protocol_fail(failure, PROTOCOL_E_NAME_TAKEN, "'%s' is kept for built-in bots",
                             display);
    return 0;
}
