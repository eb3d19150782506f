/* load_echo.c -- echo_server frames in the order of a real game.
 *
 * Tags of the frames the server sends back: "j" joined, "m" the game.moves
 * reply, "D" the mover's own game.moved, "d" another member's, "sN" a
 * game.state saying seat N is to move. Requests are padded with spaces to
 * the size of the message they stand for. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/load_echo.h"
#include "bench/ws_client.h"

#define REQUEST_SIZE       1024
#define MAX_PRINTED_ERRORS 5

struct room;

struct member {
    struct room *room;
    ws_peer *peer;
    int seat; /* -1 for a spectator */
    uint64_t move_sent_ns;
    pacer_waiter waiter;
};

struct room {
    load_echo *echo;
    int index;
    struct member *members;
    int member_count, joined_count;
};

struct load_echo {
    load_echo_config config;
    pacer *pacer;
    load_stats *stats;
    ws_client *client;
    struct room *rooms;
    int lost_connections;
    bool is_stopping;
};

/* Sends "send G SELF OTHERS" padded with spaces to `size` bytes. */
static void send_request(struct member *m, const char *self, const char *others, uint64_t size)
{
    char text[REQUEST_SIZE];
    int length = snprintf(text, sizeof(text), "send %d %s %s", m->room->index, self, others);
    if (length < 0 || length >= REQUEST_SIZE)
        return;
    size_t padded = size < REQUEST_SIZE ? (size_t)size : REQUEST_SIZE - 1;
    if (padded > (size_t)length)
        memset(text + length, ' ', padded - (size_t)length);
    else
        padded = (size_t)length;
    ws_peer_send(m->peer, text, padded);
}

static struct member *member_of_waiter(pacer_waiter *waiter)
{
    return (struct member *)((char *)waiter - offsetof(struct member, waiter));
}

static void ask_moves(pacer_waiter *waiter)
{
    struct member *m = member_of_waiter(waiter);
    const uint64_t *sizes = m->room->echo->config.sizes;
    if (m->room->echo->is_stopping || !m->peer)
        return;
    char self[64];
    snprintf(self, sizeof(self), "m:%llu", (unsigned long long)sizes[LOAD_SIZE_MOVES_REPLY]);
    send_request(m, self, "-", sizes[LOAD_SIZE_MOVES_REQUEST]);
}

static void play_move(struct member *m)
{
    load_echo *echo = m->room->echo;
    const uint64_t *sizes = echo->config.sizes;
    int next = (m->seat + 1) % echo->config.seats;
    unsigned long long moved = sizes[LOAD_SIZE_MOVED], state = sizes[LOAD_SIZE_STATE];
    char self[64], others[64];
    snprintf(self, sizeof(self), "D:%llu,s%d:%llu", moved, next, state);
    snprintf(others, sizeof(others), "d:%llu,s%d:%llu", moved, next, state);
    m->move_sent_ns = uv_hrtime();
    send_request(m, self, others, sizes[LOAD_SIZE_MOVE_REQUEST]);
}

static void on_joined(struct member *m)
{
    struct room *r = m->room;
    if (++r->joined_count == r->member_count && !r->echo->is_stopping)
        pacer_request(r->echo->pacer, &r->members[0].waiter);
}

static void on_message(void *user, const char *text, size_t length)
{
    struct member *m = user;
    load_stats *stats = m->room->echo->stats;
    stats->messages_received++;
    if (length == 0)
        return;
    if (text[0] == 'j') {
        on_joined(m);
    } else if (text[0] == 'm') {
        play_move(m);
    } else if (text[0] == 'D' && stats->is_measuring) {
        stats->moves++;
        histogram_record(&stats->round_trip_us, (uv_hrtime() - m->move_sent_ns) / 1000);
    } else if (text[0] == 's' && length > 1 && text[1] - '0' == m->seat &&
               !m->room->echo->is_stopping) {
        pacer_request(m->room->echo->pacer, &m->waiter);
    }
}

static void on_open(void *user)
{
    struct member *m = user;
    char text[64];
    int length = snprintf(text, sizeof(text), "join %d", m->room->index);
    ws_peer_send(m->peer, text, (size_t)length);
}

static void on_close(void *user, bool was_open, const char *why)
{
    struct member *m = user;
    load_echo *echo = m->room->echo;
    m->peer = NULL;
    if (echo->is_stopping)
        return;
    if (echo->lost_connections++ < MAX_PRINTED_ERRORS)
        fprintf(stderr, "tessera-load: echo room %d member %d: connection %s%s%s\n", m->room->index,
                m->seat, was_open ? "closed by the server" : "failed", why[0] ? ": " : "", why);
}

static int connect_room(load_echo *echo, struct room *r)
{
    r->member_count = echo->config.seats + echo->config.spectators;
    r->members = calloc((size_t)r->member_count, sizeof(*r->members));
    if (!r->members)
        return -ENOMEM;
    for (int i = 0; i < r->member_count; i++) {
        struct member *m = &r->members[i];
        m->room = r;
        m->seat = i < echo->config.seats ? i : -1;
        m->waiter.on_granted = ask_moves;
        char address[16];
        ws_client_local_address(r->index * r->member_count + i, echo->config.local_addresses,
                                address);
        int rc = ws_client_connect(echo->client, address, m, &m->peer);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int load_echo_new(uv_loop_t *loop, const load_echo_config *config, pacer *p, load_stats *stats,
                  load_echo **out)
{
    if (config->seats < 2 || config->seats > 9 || config->rooms < 1 || config->spectators < 0)
        return -EINVAL;
    load_echo *echo = calloc(1, sizeof(*echo));
    if (!echo)
        return -ENOMEM;
    echo->config = *config;
    echo->pacer = p;
    echo->stats = stats;
    echo->rooms = calloc((size_t)config->rooms, sizeof(*echo->rooms));
    ws_client_callbacks callbacks = {on_open, on_message, on_close};
    int rc = echo->rooms
                 ? ws_client_new(loop, config->host, config->port, "/", &callbacks, &echo->client)
                 : -ENOMEM;
    for (int i = 0; rc == 0 && i < config->rooms; i++) {
        echo->rooms[i].echo = echo;
        echo->rooms[i].index = i;
        rc = connect_room(echo, &echo->rooms[i]);
    }
    if (rc < 0) {
        load_echo_free(echo);
        return rc;
    }
    *out = echo;
    return 0;
}

void load_echo_stop(load_echo *echo)
{
    echo->is_stopping = true;
}

int load_echo_lost_connections(const load_echo *echo)
{
    return echo->lost_connections;
}

void load_echo_free(load_echo *echo)
{
    if (!echo)
        return;
    echo->is_stopping = true;
    ws_client_free(echo->client);
    for (int i = 0; echo->rooms && i < echo->config.rooms; i++)
        free(echo->rooms[i].members);
    free(echo->rooms);
    free(echo);
}
