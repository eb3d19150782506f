/* test_tournament.c -- the tournament rules the lobby applies before and
 * after a tournament runs (lobby/tournament.h): the places kept for the
 * admin and arenas, an account's caps, the failure paths of a creation, a
 * cancellation and an invitation (each stored, or nothing), answers that
 * come later; and
 * tournaments played to their end by built-in bots -- round-robin, fixed
 * and Swiss -- also while another room's records are being stored or a
 * result cannot be.
 * Who may be entered, and cancelling over the wire, are tested over real
 * sockets in tests/integration/test_tournament_rules.py. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lobby/lobby.h"
#include "tests/unit/lobby_harness.h"

/* Two built-in bots that play each other slowly enough to stay running. */
#define BOTS_CUP                                                                                   \
    "{\"type\":\"tournament.create\",\"name\":\"cup\",\"game\":\"blokus\",\"mode\":\"duo\","       \
    "\"format\":\"fixed\",\"games\":10,\"parallel\":%d,"                                           \
    "\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"}]}"

/* Three built-in bots in a two-round Swiss: one game and a bye a round. */
#define THREE_BOTS_SWISS                                                                           \
    "{\"type\":\"tournament.create\",\"name\":\"swiss\",\"game\":\"blokus\",\"mode\":\"duo\","     \
    "\"format\":\"swiss\",\"rounds\":2,"                                                           \
    "\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"},{\"bot\":\"mcts\"}]}"

#define PASSWORD "correct horse battery"

/* A cup of the account `friend` (entered by invitation only) and a bot. */
#define FRIENDS_CUP                                                                                \
    "{\"type\":\"tournament.create\",\"name\":\"friends\",\"game\":\"blokus\","                    \
    "\"mode\":\"duo\",\"format\":\"fixed\",\"games\":2,\"parallel\":1,"                            \
    "\"participants\":[{\"player\":\"friend\"},{\"bot\":\"greedy\"}]}"

static lobby_config caps_config(void)
{
    lobby_config config = lobby_default_config();
    config.password_cost = secret_password_cost_minimum();
    config.bot_think_ms = 5;
    config.max_tournaments = 4;
    config.tournament_reserve = 2;
    config.tournaments_per_account = 3;
    config.tournament_rooms_per_account = 3;
    config.tournament_share = 100;
    config.guest_ttl_ms = 0; /* no guest sweep: the batches a test holds are the tournament's */
    return config;
}

static int setup(void **state)
{
    (void)state;
    lobby_config config = caps_config();
    harness_start("tournament", 7, &config);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    lobby_shutdown(lob); /* the bots' games would go on for thousands of jobs */
    harness_stop();
    return 0;
}

/* The lobby's last answer to a creation or a cancellation. */
static struct answer {
    int count;
    int rc;
    int64_t id;
    char message[256];
} answer;

static void take_answer(void *context, int rc, int64_t id, const protocol_failure *failure)
{
    (void)context;
    answer.count++;
    answer.rc = rc;
    answer.id = id;
    snprintf(answer.message, sizeof(answer.message), "%s", failure ? failure->message : "");
}

/* The outcome of a request the lobby returned `rc` for: that failure, or
 * the answer it gave before returning (with the store answering at once,
 * it always has). */
static int outcome(int rc, int64_t *id)
{
    if (rc != 0)
        return rc;
    assert_int_equal(answer.count, 1);
    *id = answer.id;
    return answer.rc;
}

/* Asks for the tournament that the tournament.create message `text`
 * describes, for `creator` (0: the admin): what lobby_tournament_create
 * returned (its failure in *failure), the answer not waited for. */
static int request_tournament(const char *text, int64_t creator, protocol_failure *failure)
{
    protocol_message message;
    assert_int_equal(protocol_decode(text, strlen(text), &message, failure), 0);
    answer.count = 0;
    int rc =
        lobby_tournament_create(lob, &message.body.tournament, creator, take_answer, NULL, failure);
    protocol_message_clear(&message);
    return rc;
}

/* Creates the tournament that the tournament.create message `text`
 * describes, for `creator` (0: the admin): the lobby's code. */
static int create_tournament(const char *text, int64_t creator, int64_t *id)
{
    protocol_failure failure;
    return outcome(request_tournament(text, creator, &failure), id);
}

/* Cancels tournament `id` for `actor` (0: the admin): the lobby's code. */
static int cancel_tournament(int64_t id, int64_t actor)
{
    protocol_failure failure;
    answer.count = 0;
    int64_t cancelled = 0;
    return outcome(lobby_tournament_cancel(lob, id, actor, take_answer, NULL, &failure),
                   &cancelled);
}

/* Creates the bots' cup for `creator` (0: the admin): the lobby's code. */
static int create_cup(int64_t creator, int parallel, int64_t *id)
{
    char text[512];
    snprintf(text, sizeof(text), BOTS_CUP, parallel);
    return create_tournament(text, creator, id);
}

/* Runs bot jobs, a few at a time, until the tournament is finished (at
 * most `limit` jobs). */
static void play_until_finished(int limit)
{
    for (int i = 0; i < limit && stored_integer("SELECT count(*) FROM tournaments WHERE status = "
                                                "'finished'") == 0;
         i++)
        fake_host_run_jobs(4);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE status = 'finished'"),
                     1);
}

static void test_an_account_fills_only_the_places_outside_the_reserve(void **state)
{
    (void)state;
    int64_t account = 0, id = 0;
    assert_int_equal(store_player_create(db, "organizer", false, "token-organizer", &account), 0);
    assert_int_equal(create_cup(account, 1, &id), 0);
    assert_int_equal(create_cup(account, 1, &id), 0);
    assert_int_equal(create_cup(account, 1, &id), PROTOCOL_E_TOO_MANY_ROOMS); /* 2 of 4 kept */
    assert_int_equal(create_cup(0, 1, &id), 0);
    assert_int_equal(create_cup(0, 1, &id), 0);
    assert_int_equal(create_cup(0, 1, &id), PROTOCOL_E_TOO_MANY_ROOMS); /* all 4 run */
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 4);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE created_by IS NULL"),
                     2);
}

static void test_an_account_cannot_play_more_games_at_once_than_its_cap(void **state)
{
    (void)state;
    int64_t account = 0, id = 0;
    assert_int_equal(store_player_create(db, "organizer", false, "token-organizer", &account), 0);
    assert_int_equal(create_cup(account, 4, &id), PROTOCOL_E_TOO_MANY_TOURNAMENTS);
    assert_int_equal(create_cup(account, 2, &id), 0);
    assert_int_equal(create_cup(account, 2, &id), PROTOCOL_E_TOO_MANY_TOURNAMENTS);
    assert_int_equal(create_cup(0, 64, &id), 0); /* the admin has no account cap */
    /* a cancelled tournament stops counting */
    assert_int_equal(cancel_tournament(1, account), 0);
    assert_int_equal(create_cup(account, 3, &id), 0);
}

static void test_an_account_stays_within_its_share_of_the_server(void **state)
{
    (void)state;
    lobby_config config = caps_config();
    config.max_tournaments = 8;
    config.tournament_reserve = 0;
    config.max_rooms = 8;
    config.tournament_share = 25; /* 2 tournaments, 2 games at once, whatever the caps say */
    harness_restart(&config, 0);
    int64_t account = 0, id = 0;
    assert_int_equal(store_player_create(db, "organizer", false, "token-organizer", &account), 0);
    assert_int_equal(create_cup(account, 3, &id), PROTOCOL_E_TOO_MANY_TOURNAMENTS);
    assert_int_equal(create_cup(account, 1, &id), 0);
    assert_int_equal(create_cup(account, 1, &id), 0);
    assert_int_equal(create_cup(account, 1, &id), PROTOCOL_E_TOO_MANY_TOURNAMENTS);
}

static void test_a_cancel_that_cannot_be_stored_changes_nothing(void **state)
{
    (void)state;
    int64_t id = 0, other = 0;
    assert_int_equal(create_cup(0, 1, &id), 0);
    assert_int_equal(store_player_create(db, "other", false, "token-other", &other), 0);
    assert_int_equal(cancel_tournament(id, other), PROTOCOL_E_NOT_OWNER);
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.is_failing_always = true;
    assert_int_equal(cancel_tournament(id, 0), PROTOCOL_E_STORAGE);
    fault_store_heal();
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE status = 'running'"),
                     1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 1);
    assert_int_equal(cancel_tournament(id, 0), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE cancelled_at > 0"), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 1);
    assert_int_equal(lobby_room_count(lob), 0);
    assert_int_equal(cancel_tournament(id, 0), PROTOCOL_E_NO_SUCH_TOURNAMENT);
}

/* A connection that registers the account `name`: its id. */
static int64_t register_account(uint64_t connection, const char *name)
{
    lobby_connect(lob, connection, "127.0.0.1");
    say(connection, "{\"type\":\"account.register\",\"name\":\"%s\",\"password\":\"%s\"}", name,
        PASSWORD);
    fake_host_run_jobs(10);
    store_account account;
    assert_int_equal(store_account_by_name(db, name, &account), 0);
    return account.id;
}

/* `organizer` (connection 1) and `friend` (connection 2), who accepted
 * the organizer's invitation: the organizer's id. */
static int64_t invited_friend(void)
{
    int64_t organizer = register_account(1, "organizer");
    register_account(2, "friend");
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    assert_non_null(last(1, "tournament.invited"));
    say(2, "{\"type\":\"tournament.accept\",\"from\":\"organizer\"}");
    assert_non_null(last(2, "tournament.accepted"));
    return organizer;
}

/* A creation whose records cannot all be stored (a built-in bot's rating
 * row, the tournament's row, or a row of its schedule) answers
 * storage_error and leaves nothing: no tournament stored or running, no
 * room, no rating row; once the store works, the same request creates it. */
static void test_a_creation_that_is_not_stored_leaves_nothing(void **state)
{
    (void)state;
    int64_t id = 0;
    faults.fail_kind = FAULT_TOURNAMENT;
    for (int write = 1; write <= 6; write += 5) { /* its row; its fifth scheduled game */
        faults.fail_write_in = write;
        assert_int_equal(create_cup(0, 1, &id), PROTOCOL_E_STORAGE);
        assert_non_null(strstr(answer.message, "could not store the tournament"));
        assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
        assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 0);
        assert_int_equal(stored_integer("SELECT count(*) FROM games"), 0);
        assert_int_equal(lobby_room_count(lob), 0);
        assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name LIKE 'bot:%'"), 0);
    }
    faults.fail_kind = FAULT_BUILTIN_PLAYER;
    faults.fail_write_in = 2; /* the second bot's rating row */
    assert_int_equal(create_cup(0, 1, &id), PROTOCOL_E_STORAGE);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name LIKE 'bot:%'"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    fault_store_heal();
    assert_int_equal(create_cup(0, 1, &id), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 10);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 1);
    lobby_connect(lob, 3, "127.0.0.1");
    say(3, "{\"type\":\"hello\",\"name\":\"watcher\"}");
    say(3, "{\"type\":\"tournament.watch\",\"tournament\":%lld}", (long long)id);
    assert_non_null(last(3, "tournament"));
}

/* An accepted invitation is used up in the creation's batch: a creation
 * that is not stored leaves it for the next, and one that is stored uses
 * it, so the third creation is refused, naming the entry. */
static void test_an_invitation_is_used_up_only_by_a_stored_creation(void **state)
{
    (void)state;
    int64_t organizer = invited_friend(), id = 0;
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.fail_write_in = 2; /* the invitation is used, the tournament's row fails */
    assert_int_equal(create_tournament(FRIENDS_CUP, organizer, &id), PROTOCOL_E_STORAGE);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations WHERE accepted"),
                     1);
    fault_store_heal();
    assert_int_equal(create_tournament(FRIENDS_CUP, organizer, &id), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations"), 0);
    assert_int_equal(create_tournament(FRIENDS_CUP, organizer, &id), PROTOCOL_E_CONSENT_REQUIRED);
    assert_non_null(strstr(answer.message, "'participants[0]': friend has not accepted"));
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
}

/* An invitation or an acceptance that cannot be stored is refused with
 * storage_error and told to nobody else; sent again, it is stored. */
static void test_an_invitation_that_is_not_stored_is_not_told(void **state)
{
    (void)state;
    register_account(1, "organizer");
    register_account(2, "friend");
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.is_failing_always = true;
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    assert_string_equal(last_error_code(1), "storage_error");
    assert_int_equal(count(2, "tournament.invitation"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations"), 0);
    fault_store_heal();
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    assert_non_null(last(1, "tournament.invited"));
    assert_int_equal(count(2, "tournament.invitation"), 1);
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.is_failing_always = true;
    say(2, "{\"type\":\"tournament.accept\",\"from\":\"organizer\"}");
    assert_string_equal(last_error_code(2), "storage_error");
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations WHERE accepted"),
                     0);
    fault_store_heal();
    say(2, "{\"type\":\"tournament.accept\",\"from\":\"organizer\"}");
    assert_non_null(last(2, "tournament.accepted"));
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations WHERE accepted"),
                     1);
}

/* An invitation's other account is looked up through the store port: a
 * lookup that fails refuses it with storage_error and stores nothing; an
 * unknown name is bad_message to invite, no_such_invitation to accept. */
static void test_an_invitations_account_is_looked_up_first(void **state)
{
    (void)state;
    register_account(1, "organizer");
    register_account(2, "friend");
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    assert_string_equal(last_error_code(1), "storage_error");
    assert_int_equal(count(2, "tournament.invitation"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations"), 0);
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"nobody\"}");
    assert_string_equal(last_error_code(1), "bad_message");
    say(2, "{\"type\":\"tournament.accept\",\"from\":\"nobody\"}");
    assert_string_equal(last_error_code(2), "no_such_invitation");
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    assert_non_null(last(1, "tournament.invited"));
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_invitations"), 1);
}

/* A creation's entries are looked up through the store port before
 * anything is stored: a lookup that fails answers storage_error, an
 * unknown name bad_message naming the entry, and neither stores anything;
 * an entry named twice (in any case) is refused at once. While its lookup
 * is under way, the creation counts against the caps. */
static void test_a_creations_accounts_are_looked_up_first(void **state)
{
    (void)state;
    int64_t organizer = invited_friend(), id = 0;
    faults.fail_kind = FAULT_LOOKUP;
    faults.fail_write_in = 1;
    assert_int_equal(create_tournament(FRIENDS_CUP, organizer, &id), PROTOCOL_E_STORAGE);
    assert_non_null(strstr(answer.message, "could not look 'friend' up"));
    fault_store_heal();
    const char *nobody =
        "{\"type\":\"tournament.create\",\"name\":\"c\",\"game\":\"blokus\","
        "\"mode\":\"duo\",\"format\":\"fixed\",\"games\":2,\"parallel\":1,\"participants\":"
        "[{\"bot\":\"greedy\"},{\"player\":\"nobody\"}]}";
    assert_int_equal(create_tournament(nobody, organizer, &id), PROTOCOL_E_BAD_MESSAGE);
    assert_non_null(strstr(answer.message, "'participants[1]': no account"));
    const char *twice =
        "{\"type\":\"tournament.create\",\"name\":\"c\",\"game\":\"blokus\","
        "\"mode\":\"duo\",\"format\":\"fixed\",\"games\":2,\"parallel\":1,\"participants\":"
        "[{\"player\":\"friend\"},{\"player\":\"FRIEND\"}]}";
    protocol_failure failure;
    assert_int_equal(request_tournament(twice, organizer, &failure), PROTOCOL_E_BAD_MESSAGE);
    assert_non_null(strstr(failure.message, "'participants[1]' is already entered"));
    assert_int_equal(answer.count, 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM players WHERE name LIKE 'bot:%'"), 0);
    faults.is_holding = true; /* the lookups wait: each creation counts meanwhile */
    for (int i = 0; i < 2; i++)
        assert_int_equal(request_tournament(FRIENDS_CUP, organizer, &failure), 0);
    assert_int_equal(answer.count, 0);
    assert_int_equal(request_tournament(FRIENDS_CUP, organizer, &failure),
                     PROTOCOL_E_TOO_MANY_ROOMS); /* two places for accounts */
    assert_int_equal(fault_store_release(), 2);
    assert_int_equal(answer.count, 2); /* the second finds the invitation used up */
    assert_int_equal(answer.rc, PROTOCOL_E_CONSENT_REQUIRED);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments"), 1);
}

/* Runs bot jobs until `sql` counts more than `than` (at most `limit`). */
static void play_until_more(const char *sql, int64_t than, int limit)
{
    for (int i = 0; i < limit && stored_integer(sql) <= than; i++)
        fake_host_run_jobs(1);
    assert_true(stored_integer(sql) > than);
}

/* A store that answers later: an invitation, a creation and a
 * cancellation are answered once their answers come, while a running
 * tournament's room plays on meanwhile; until then the new tournament
 * does not run, and the cancelled one starts no game. */
static void test_tournament_answers_that_come_later_hold_no_room_up(void **state)
{
    (void)state;
    register_account(1, "organizer");
    register_account(2, "friend");
    int64_t cup = 0, other = 0;
    assert_int_equal(create_cup(0, 1, &cup), 0);
    const char *moves = "SELECT count(*) FROM moves";
    faults.hold_game_id = FAULT_HOLD_NO_GAME;
    faults.is_holding = true;
    say(1, "{\"type\":\"tournament.invite\",\"player\":\"friend\"}");
    protocol_message message;
    protocol_failure failure;
    char text[512];
    snprintf(text, sizeof(text), BOTS_CUP, 1);
    assert_int_equal(protocol_decode(text, strlen(text), &message, &failure), 0);
    answer.count = 0;
    assert_int_equal(
        lobby_tournament_create(lob, &message.body.tournament, 0, take_answer, NULL, &failure), 0);
    protocol_message_clear(&message);
    assert_int_equal(faults.held_count, 2);
    assert_int_equal(answer.count, 0);
    assert_int_equal(count(1, "tournament.invited"), 0);
    assert_int_equal(count(2, "tournament.invitation"), 0);
    play_until_more(moves, stored_integer(moves), 400); /* the cup's game plays on */
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 1);
    assert_int_equal(fault_store_release(), 2);
    assert_int_equal(count(1, "tournament.invited"), 1);
    assert_int_equal(count(2, "tournament.invitation"), 1);
    assert_int_equal(answer.count, 1);
    assert_int_equal(answer.rc, 0);
    other = answer.id;
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 2);
    /* a cancellation answered later: the cup's game plays on until then */
    faults.hold_game_id = FAULT_HOLD_NO_GAME;
    faults.is_holding = true;
    answer.count = 0;
    assert_int_equal(lobby_tournament_cancel(lob, cup, 0, take_answer, NULL, &failure), 0);
    assert_int_equal(answer.count, 0);
    play_until_more(moves, stored_integer(moves), 400);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 0);
    assert_int_equal(fault_store_release(), 1);
    assert_int_equal(answer.count, 1);
    assert_int_equal(answer.rc, 0);
    assert_int_equal(answer.id, cup);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 1);
    assert_int_equal(cancel_tournament(other, 0), 0);
}

/* The games played of the tournament's entries, all together. */
/* Runs bot jobs until a fault was injected (at most `limit` jobs). */
static void play_until_a_failure(int limit)
{
    for (int i = 0; i < limit && faults.failures == 0; i++)
        fake_host_run_jobs(1);
    assert_true(faults.failures > 0);
}

static int64_t games_counted(void)
{
    return stored_integer("SELECT coalesce(sum(games), 0) FROM tournament_entries");
}

/* One game of a tournament ends while another room's records are being
 * stored: the result counts, the tournament starts its next game, and the
 * other room goes on from where it was once its store answers. */
static void test_a_game_ends_while_another_rooms_commit_is_in_flight(void **state)
{
    (void)state;
    int64_t id = 0;
    assert_int_equal(create_cup(0, 2, &id), 0);
    faults.hold_game_id = stored_integer("SELECT max(id) FROM games");
    faults.is_holding = true;
    for (int i = 0; i < 4000 && stored_integer("SELECT count(*) FROM games WHERE status = "
                                               "'finished'") == 0;
         i++)
        fake_host_run_jobs(1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 1);
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(games_counted(), 2);
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 3); /* the next one started */
    assert_int_equal(fault_store_release(), 1);
    for (int i = 0; i < 40000 && stored_integer("SELECT count(*) FROM tournaments WHERE status = "
                                                "'finished'") == 0;
         i++)
        fake_host_run_jobs(1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 10);
    assert_int_equal(games_counted(), 20);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE status = 'finished'"),
                     1);
}

/* A tournament game's last event cannot be stored (its standings, stored
 * in the same batch as its result, fail): the game is not over, nothing
 * counts; once the store works, the room's retry ends it and it counts. */
static void test_a_result_whose_standings_are_not_stored_is_not_over(void **state)
{
    (void)state;
    int64_t id = 0;
    assert_int_equal(create_cup(0, 1, &id), 0);
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.is_failing_always = true;
    play_until_a_failure(4000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 0);
    assert_int_equal(games_counted(), 0);
    fault_store_heal();
    for (int i = 0; i < 100 && stored_integer("SELECT count(*) FROM games WHERE status = "
                                              "'finished'") == 0;
         i++) {
        host.now += 1000; /* LOBBY_RETRY_MS: the room tries again */
        lobby_tick(lob);
        fake_host_run_jobs(8);
    }
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 1);
    assert_int_equal(games_counted(), 2);
}

/* Creates a round-robin of the greedy, random and mcts bots in Duo,
 * `parallel` games at a time. */
static void create_three_bot_round_robin(int parallel)
{
    char request[400];
    snprintf(request, sizeof(request),
             "{\"type\":\"tournament.create\",\"name\":\"rr\",\"game\":\"blokus\","
             "\"mode\":\"duo\",\"format\":\"round-robin\",\"parallel\":%d,"
             "\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"},"
             "{\"bot\":\"mcts\"}]}",
             parallel);
    int64_t id = 0;
    assert_int_equal(create_tournament(request, 0, &id), 0);
}

/* A round-robin of three bots in Duo plays every pair in both seatings,
 * two at a time, and ends with the standings of all six games. */
static void test_a_round_robin_plays_every_pair_both_ways_to_the_end(void **state)
{
    (void)state;
    create_three_bot_round_robin(2);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 6);
    assert_true(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'") <= 2);
    play_until_finished(20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 6);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_entries WHERE games = 4"), 3);
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 6);
    /* each pair, both ways: six distinct seatings */
    assert_int_equal(stored_integer("SELECT count(DISTINCT seats) FROM tournament_games"), 6);
}

/* A Swiss of three bots plays two rounds, each of one game and a bye,
 * each round paired once the one before has ended. */
static void test_a_swiss_pairs_each_round_after_the_last_to_the_end(void **state)
{
    (void)state;
    int64_t id = 0;
    assert_int_equal(create_tournament(THREE_BOTS_SWISS, 0, &id), 0);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 2); /* round 0 */
    play_until_finished(20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 4);
    assert_int_equal(stored_integer("SELECT count(DISTINCT round) FROM tournament_games"), 2);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 2);
    assert_int_equal(stored_integer("SELECT sum(games) FROM tournament_entries"), 4);
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 4); /* byes: 1 */
}

/* A tournament game's room whose game row is answered after room_arrange
 * returned: the game runs meanwhile (the tick opens no second room for
 * it), and its followers hear `tournament.game` with the stored id once
 * the answer comes. */
static void test_a_game_whose_row_is_stored_later_is_told_then(void **state)
{
    (void)state;
    lobby_connect(lob, 1, "127.0.0.1");
    say(1, "{\"type\":\"hello\",\"name\":\"watcher\"}");
    faults.hold_game_id = stored_integer("SELECT coalesce(max(id), 0) + 1 FROM games");
    faults.is_holding = true; /* the first game's row: the tournament's own batch is answered */
    int64_t id = 0;
    assert_int_equal(create_cup(0, 1, &id), 0);
    say(1, "{\"type\":\"tournament.watch\",\"tournament\":%lld}", (long long)id);
    assert_int_equal(faults.held_count, 1); /* the first game's creation */
    lobby_tick(lob);
    assert_int_equal(lobby_room_count(lob), 1);
    assert_int_equal(faults.held_count, 1);
    assert_null(last(1, "tournament.game"));
    assert_int_equal(fault_store_release(), 1);
    json_t *told = last(1, "tournament.game");
    assert_non_null(told);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(told, "game"), "game_id")),
                     stored_integer("SELECT min(id) FROM games"));
    play_until_finished(40000);
}

/* The next Swiss round is a commit of its own after the last result: if
 * it cannot be stored, nothing of it is, and the next tick pairs it. */
static void test_a_swiss_round_that_is_not_stored_is_paired_at_the_next_tick(void **state)
{
    (void)state;
    int64_t id = 0;
    assert_int_equal(create_tournament(THREE_BOTS_SWISS, 0, &id), 0);
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.fail_write_in = 2; /* round 0's result passes, round 1's first row fails */
    play_until_a_failure(20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 2); /* round 0 */
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 2);
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_games"), 4);
    play_until_finished(20000);
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 4);
}

/* A tournament's end is a commit of its own after the last result: if it
 * cannot be stored, the tournament runs on, and the next tick ends it. */
static void test_a_tournaments_end_that_is_not_stored_is_stored_at_the_next_tick(void **state)
{
    (void)state;
    int64_t id = 0;
    assert_int_equal(
        create_tournament("{\"type\":\"tournament.create\",\"name\":\"rr\",\"game\":\"blokus\","
                          "\"mode\":\"duo\",\"format\":\"round-robin\",\"parallel\":1,"
                          "\"participants\":[{\"bot\":\"greedy\"},{\"bot\":\"random\"}]}",
                          0, &id),
        0);
    faults.fail_kind = FAULT_TOURNAMENT;
    faults.fail_write_in = 3; /* the two games' results pass, the end fails */
    play_until_a_failure(20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 2);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE status = 'finished'"),
                     0);
    lobby_tick(lob);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournaments WHERE status = 'finished'"),
                     1);
}

/* A restart midway: the running tournament is loaded from the store (its
 * standings, its schedule, its running game) and its machine plays it to
 * its end from there, every game counted once. */
static void test_a_restart_midway_carries_the_tournament_on_to_its_end(void **state)
{
    (void)state;
    create_three_bot_round_robin(1);
    play_until_more("SELECT count(*) FROM games WHERE status = 'finished'", 1, 20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'playing'"), 1);
    lobby_config config = caps_config();
    harness_restart(&config, 1);
    lobby_tick(lob);
    play_until_finished(20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 6);
    assert_int_equal(stored_integer("SELECT count(*) FROM tournament_entries WHERE games = 4"), 3);
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 6);
}

/* Instance a (the harness's lobby) runs a round-robin of three bots, one
 * game at a time; b is lobby_config b_config on the same database. */
static lobby_config start_round_robin_on_a(void)
{
    lobby_config a_config = caps_config(), b_config = caps_config();
    a_config.instance = 'a';
    b_config.instance = 'b';
    a_config.lease_ms = b_config.lease_ms = 3000;
    harness_restart(&a_config, 0);
    create_three_bot_round_robin(1);
    return b_config;
}

/* Instance b, started (restored) beside a. */
static struct lobby *start_b(const lobby_config *b_config)
{
    struct lobby *b = NULL;
    assert_int_equal(lobby_new(&FAKE_HOST, &port, b_config, &b), 0);
    assert_int_equal(fake_host_restore(b), 0);
    return b;
}

/* b plays the tournament on, ticking, to its end: six games finished, each
 * pairing's points counted once; then b stops. */
static void play_on_b_to_the_end(struct lobby *b)
{
    for (int i = 0; i < 20000 && stored_integer("SELECT count(*) FROM tournaments WHERE status ="
                                                " 'finished'") == 0;
         i++) {
        fake_host_run_jobs(4);
        host.now += 100;
        lobby_tick(b);
    }
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'finished'"), 6);
    assert_int_equal(stored_integer("SELECT sum(points) FROM tournament_entries"), 6);
    lobby_shutdown(b);
    lobby_free(b);
}

/* Instances a and b on one database: a's tournament is a's alone (b's
 * restart leaves it); when a stops, b takes its rooms and the tournament
 * over together, and plays it to its end; the tournament's lease goes
 * with its end. */
static void test_an_instances_tournament_is_taken_over_with_its_rooms(void **state)
{
    (void)state;
    lobby_config b_config = start_round_robin_on_a();
    play_until_more("SELECT count(*) FROM games WHERE status = 'finished'", 1, 20000);
    assert_int_equal(stored_integer("SELECT count(*) FROM room_leases WHERE instance = 'a'"
                                    " AND room LIKE 't:%'"),
                     1);
    struct lobby *b = start_b(&b_config);
    assert_int_equal(lobby_room_count(b), 0); /* a's game and tournament are a's */
    lobby_shutdown(lob);                      /* a stops: it renews nothing more */
    host.now += 3001;
    lobby_tick(b);
    assert_int_equal(lobby_room_count(b), 1);
    assert_int_equal(stored_integer("SELECT count(*) FROM room_leases WHERE instance = 'b'"
                                    " AND room LIKE 't:%'"),
                     1);
    play_on_b_to_the_end(b);
    assert_int_equal(stored_integer("SELECT count(*) FROM room_leases WHERE room <> 'q:'"), 0);
}

/* a dies (it never ticks again) while a tournament game's room is stored
 * but its game never started (the creation's answer had not come back).
 * The tournament's lease runs out first (the room's was written after the
 * last renewal), so b takes the tournament, which waits for that game;
 * then the room, whose game it aborts: the tournament starts the game
 * again and plays on to its end. The answer reaching a late stores nothing
 * more. */
static void test_a_taken_over_tournament_starts_again_a_game_that_never_started(void **state)
{
    (void)state;
    lobby_config b_config = start_round_robin_on_a();
    faults.is_holding = true; /* the next game's creation is stored, its answer held */
    faults.hold_game_id = stored_integer("SELECT max(id) FROM games") + 1;
    play_until_more("SELECT count(*) FROM games WHERE status = 'finished'", 0, 20000);
    lobby_tick(lob); /* the next game's room */
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'waiting'"), 1);
    faults.is_holding = false; /* what is held stays held: a is gone */
    struct lobby *b = start_b(&b_config);
    host.now += 3001;
    stored_execute("UPDATE room_leases SET expires_at = expires_at + 100000 WHERE room NOT LIKE"
                   " 't:%' AND room <> 'q:'");
    lobby_tick(b); /* takes the tournament */
    assert_int_equal(stored_integer("SELECT count(*) FROM room_leases WHERE instance = 'b'"
                                    " AND room LIKE 't:%'"),
                     1);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'waiting'"), 1);
    stored_execute("UPDATE room_leases SET expires_at = 0 WHERE instance = 'a'");
    host.now += 1000;
    lobby_tick(b); /* takes the room */
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'waiting'"), 0);
    play_on_b_to_the_end(b);
    assert_int_equal(stored_integer("SELECT count(*) FROM games WHERE status = 'aborted'"), 1);
    assert_int_equal(fault_store_release(), 1); /* a hears of its creation at last */
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 7);
    assert_int_equal(stored_integer("SELECT count(*) FROM moves WHERE game_id = 2"), 0);
}

/* b takes a's tournament with its game under way: the rebuilt room goes
 * on only once the tournament is loaded (its read held here, its game's
 * bots do not move meanwhile), so the game's end finds the tournament and
 * every game counts once. */
static void test_a_taken_over_game_goes_on_only_once_its_tournament_is_loaded(void **state)
{
    (void)state;
    lobby_config b_config = start_round_robin_on_a();
    play_until_more("SELECT count(*) FROM games WHERE status = 'finished'", 0, 20000);
    play_until_more("SELECT count(*) FROM moves WHERE game_id = (SELECT max(id) FROM games)", 1,
                    20000);
    struct lobby *b = start_b(&b_config);
    faults.is_holding = true; /* a is gone; b's tournament read waits */
    faults.is_holding_kind = true;
    faults.hold_kind = STORE_RECORD_FIND_TOURNAMENTS;
    host.now += 3001;
    lobby_tick(b);
    assert_int_equal(faults.held_count, 1);
    assert_int_equal(lobby_room_count(b), 1);
    int64_t moves = stored_integer("SELECT count(*) FROM moves");
    fake_host_run_jobs(50);
    assert_int_equal(stored_integer("SELECT count(*) FROM moves"), moves); /* not resumed yet */
    assert_int_equal(fault_store_release(), 1);
    play_on_b_to_the_end(b);
    assert_int_equal(stored_integer("SELECT count(*) FROM games"), 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_an_account_fills_only_the_places_outside_the_reserve,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_account_cannot_play_more_games_at_once_than_its_cap,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_account_stays_within_its_share_of_the_server, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_game_ends_while_another_rooms_commit_is_in_flight,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_result_whose_standings_are_not_stored_is_not_over,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_round_robin_plays_every_pair_both_ways_to_the_end,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_swiss_pairs_each_round_after_the_last_to_the_end,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_cancel_that_cannot_be_stored_changes_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_game_whose_row_is_stored_later_is_told_then, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_a_swiss_round_that_is_not_stored_is_paired_at_the_next_tick, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_tournaments_end_that_is_not_stored_is_stored_at_the_next_tick, setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_creations_accounts_are_looked_up_first, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_a_creation_that_is_not_stored_leaves_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_invitation_is_used_up_only_by_a_stored_creation,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_invitations_account_is_looked_up_first, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_an_invitation_that_is_not_stored_is_not_told, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tournament_answers_that_come_later_hold_no_room_up,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_a_restart_midway_carries_the_tournament_on_to_its_end,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_an_instances_tournament_is_taken_over_with_its_rooms,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_taken_over_tournament_starts_again_a_game_that_never_started, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_a_taken_over_game_goes_on_only_once_its_tournament_is_loaded, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
