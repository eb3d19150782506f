/* room_list.c -- the index behind rooms.list.
 *
 * Public rooms are kept in one list per (game mode, status): 6 modes times
 * waiting/playing/finished. A room enters a list at its end with a fresh
 * sequence number whenever its status changes, so every list is sorted by
 * sequence, and a page is "the next `limit` rooms after the cursor's
 * sequence" in the lists the filters select, merged by sequence. Finding
 * the cursor is a binary search and a page costs O(limit x lists): the
 * same with 10 rooms or 100,000.
 *
 * A room that leaves a list leaves a hole (its sequence stays, so binary
 * search still works); a list is compacted when half of it is holes.
 *
 * With several instances, the lists also hold the rooms the others serve
 * (listings.c), in the order this one heard of them: a cursor is this
 * instance's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lobby/lobby_internal.h"

#define STATUS_COUNT LOBBY_STATUS_COUNT

static int list_of(const struct room *room)
{
    if (room->is_private)
        return -1;
    return lobby_kind_of(&room->match.options) * STATUS_COUNT + (int)room->match.status;
}

static struct list_place *place_of(const struct room_listing *item)
{
    return item->room ? &item->room->listed : &item->remote->listed;
}

static void compact(struct room_list *list)
{
    size_t kept = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (!list->items[i].room && !list->items[i].remote)
            continue;
        list->items[kept] = list->items[i];
        place_of(&list->items[kept])->position = kept;
        kept++;
    }
    list->count = kept;
}

/* Takes what stands at `place` out of its list, leaving a hole. */
static void leave(struct lobby *lobby, struct list_place *place)
{
    if (place->index < 0)
        return;
    struct room_list *list = &lobby->lists[place->index];
    list->items[place->position] = (struct room_listing){0};
    list->live--;
    place->index = -1;
    if (list->count > 32 && list->live * 2 < list->count)
        compact(list);
}

/* Files `item` at the end of list `wanted` with a fresh sequence (out of
 * memory, it is simply not listed). */
static void enter(struct lobby *lobby, int wanted, struct room_listing item)
{
    struct room_list *list = &lobby->lists[wanted];
    if (list->count == list->capacity) {
        size_t capacity = list->capacity ? 2 * list->capacity : 16;
        struct room_listing *grown = realloc(list->items, capacity * sizeof(*grown));
        if (!grown)
            return;
        list->items = grown;
        list->capacity = capacity;
    }
    item.seq = ++lobby->last_list_seq;
    list->items[list->count] = item;
    struct list_place *place = place_of(&item);
    place->index = wanted;
    place->position = list->count++;
    list->live++;
}

void room_list_remove(struct room *room)
{
    if (room->listed.index >= 0)
        listings_changed(room);
    leave(room->lobby, &room->listed);
}

/* Files `room` where its privacy and status say. */
void room_list_update(struct room *room)
{
    int wanted = list_of(room);
    if (wanted == room->listed.index)
        return;
    room_list_remove(room);
    if (wanted < 0)
        return;
    listings_forget_remote(room->lobby, room->key);
    enter(room->lobby, wanted, (struct room_listing){.room = room});
    listings_changed(room);
}

void room_list_place_remote(struct lobby *lobby, struct remote_room *remote, int wanted)
{
    if (wanted == remote->listed.index)
        return;
    leave(lobby, &remote->listed);
    if (wanted >= 0)
        enter(lobby, wanted, (struct room_listing){.remote = remote});
}

int room_list_of_names(const char *mode, const char *status)
{
    for (int kind = 0; kind < ROOM_LIST_MODES; kind++)
        for (int at = 0; at < STATUS_COUNT; at++)
            if (strcmp(mode, LOBBY_KIND_MODES[kind]) == 0 &&
                strcmp(status, LOBBY_STATUS_NAMES[at]) == 0)
                return kind * STATUS_COUNT + at;
    return -1;
}

void room_list_free(struct lobby *lobby)
{
    for (int i = 0; i < ROOM_LIST_COUNT; i++)
        free(lobby->lists[i].items);
    memset(lobby->lists, 0, sizeof(lobby->lists));
}

/* ---- pages -------------------------------------------------------------- */

#define MODE_GAMES   LOBBY_KIND_GAMES
#define MODE_NAMES   LOBBY_KIND_MODES
#define STATUS_NAMES LOBBY_STATUS_NAMES

static bool matches(const char *filter, const char *value)
{
    return !filter[0] || strcmp(filter, value) == 0;
}

/* The lists the filters select, as a bit set; a filter naming nothing
 * that exists is a bad message, so a typo is not an empty page. */
static int selected_lists(const protocol_rooms_list *query, uint32_t *lists,
                          protocol_failure *failure)
{
    *lists = 0;
    bool is_game_known = !query->game[0], is_mode_known = !query->mode[0];
    bool is_status_known = !query->status[0];
    for (int mode = 0; mode < ROOM_LIST_MODES; mode++) {
        is_game_known |= strcmp(query->game, MODE_GAMES[mode]) == 0;
        is_mode_known |= strcmp(query->mode, MODE_NAMES[mode]) == 0;
        for (int status = 0; status < STATUS_COUNT; status++) {
            is_status_known |= strcmp(query->status, STATUS_NAMES[status]) == 0;
            if (matches(query->game, MODE_GAMES[mode]) && matches(query->mode, MODE_NAMES[mode]) &&
                matches(query->status, STATUS_NAMES[status]))
                *lists |= 1u << (mode * STATUS_COUNT + status);
        }
    }
    if (!is_game_known)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'game' must be \"blokus\" or \"reef-builder\"");
    if (!is_mode_known)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE, "no mode called '%s'", query->mode);
    if (!is_status_known)
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'status' must be \"waiting\", \"playing\" or \"finished\"");
    return 0;
}

static int parse_cursor(const char *text, uint64_t *cursor, protocol_failure *failure)
{
    *cursor = 0;
    if (!text[0])
        return 0;
    char *end;
    unsigned long long value = strtoull(text, &end, 10);
    if (*end || text[0] < '0' || text[0] > '9')
        return protocol_fail(failure, PROTOCOL_E_BAD_MESSAGE,
                             "'cursor' must be a 'next' from an earlier page");
    *cursor = value;
    return 0;
}

/* The first position of `list` whose sequence is after `cursor`. */
static size_t first_after(const struct room_list *list, uint64_t cursor)
{
    size_t low = 0, high = list->count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (list->items[middle].seq <= cursor)
            low = middle + 1;
        else
            high = middle;
    }
    return low;
}

/* The list whose next live room has the lowest sequence, or -1. */
static int next_list(const struct lobby *lobby, uint32_t lists, size_t *positions)
{
    int best = -1;
    uint64_t best_seq = 0;
    for (int i = 0; i < ROOM_LIST_COUNT; i++) {
        if (!(lists & (1u << i)))
            continue;
        const struct room_list *list = &lobby->lists[i];
        while (positions[i] < list->count && !list->items[positions[i]].room &&
               !list->items[positions[i]].remote)
            positions[i]++;
        if (positions[i] < list->count && (best < 0 || list->items[positions[i]].seq < best_seq)) {
            best = i;
            best_seq = list->items[positions[i]].seq;
        }
    }
    return best;
}

json_t *room_list_page(struct lobby *lobby, const protocol_rooms_list *query,
                       protocol_failure *failure)
{
    uint32_t lists;
    uint64_t cursor;
    if (selected_lists(query, &lists, failure) != 0 ||
        parse_cursor(query->cursor, &cursor, failure) != 0)
        return NULL;
    size_t positions[ROOM_LIST_COUNT];
    for (int i = 0; i < ROOM_LIST_COUNT; i++)
        positions[i] = first_after(&lobby->lists[i], cursor);
    int limit = query->limit ? query->limit : PROTOCOL_LIST_LIMIT_DEFAULT;
    json_t *rooms = json_array();
    uint64_t last_seq = 0;
    int list;
    while (json_array_size(rooms) < (size_t)limit &&
           (list = next_list(lobby, lists, positions)) >= 0) {
        const struct room_listing *item = &lobby->lists[list].items[positions[list]++];
        if (item->room)
            json_array_append_new(rooms, room_view_room_json(item->room));
        else
            json_array_append(rooms, item->remote->room);
        last_seq = item->seq;
    }
    char next[24];
    snprintf(next, sizeof(next), "%llu", (unsigned long long)last_seq);
    bool has_more = next_list(lobby, lists, positions) >= 0;
    return json_pack("{s:s, s:o, s:o}", "type", "rooms", "rooms", rooms, "next",
                     has_more ? json_string(next) : json_null());
}
