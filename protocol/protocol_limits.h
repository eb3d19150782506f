/* protocol_limits.h -- the sizes of a message's fields, in bytes.
 *
 * The decoder refuses longer fields (protocol.h), and the structs that keep
 * a decoded field -- a message's, or the lobby's (a bot kind in a match
 * seat) -- size their buffers from these. No JSON here: the pure core
 * includes it. */
#ifndef TESSERA_PROTOCOL_LIMITS_H
#define TESSERA_PROTOCOL_LIMITS_H

#define PROTOCOL_NAME_MAX           32 /* player and bot names, in bytes */
#define PROTOCOL_TOKEN_MAX          64 /* session tokens and bot keys */
#define PROTOCOL_PASSWORD_MIN       8  /* account passwords, in bytes */
#define PROTOCOL_PASSWORD_MAX       128
#define PROTOCOL_ROOM_ID_MAX        16
#define PROTOCOL_WORD_MAX           16 /* game, mode, scoring, bot kind, ... */
#define PROTOCOL_MAX_CLOCK_MS       (24 * 3600 * 1000)
#define PROTOCOL_CURSOR_MAX         24 /* rooms.list cursors */
#define PROTOCOL_LIST_LIMIT_MAX     100
#define PROTOCOL_LIST_LIMIT_DEFAULT 50

#endif
