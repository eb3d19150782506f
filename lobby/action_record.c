/* action_record.c -- match_action <-> the move log's JSON text. */
#include "lobby/action_record.h"

#include <string.h>

char *action_record_text(const game *position, const match_action *action)
{
    json_t *json = NULL;
    if (action->kind == MATCH_ACTION_MOVE)
        json = game_move_json(position, action->move);
    else
        json = json_pack("{s:b}", action->kind == MATCH_ACTION_RESIGN ? "resign" : "leave", 1);
    char *text = json ? json_dumps(json, JSON_COMPACT) : NULL;
    json_decref(json);
    return text;
}

int action_record_parse(const game *position, int seat, const char *text, match_action *out)
{
    json_t *json = json_loads(text, 0, NULL);
    int rc = json_is_object(json) ? 0 : -1;
    memset(out, 0, sizeof(*out));
    if (rc == 0 && json_is_true(json_object_get(json, "resign")))
        out->kind = MATCH_ACTION_RESIGN;
    else if (rc == 0 && json_is_true(json_object_get(json, "leave")))
        out->kind = MATCH_ACTION_LEAVE;
    else if (rc == 0)
        rc = game_move_from_json(position, seat, json, &out->move);
    json_decref(json);
    return rc;
}
