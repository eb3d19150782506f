"""test_accounts.py -- named accounts and bot accounts on a real server.

Accounts over the websocket: account.register, hello with a password, the
same error for a wrong password and an unknown name, the failed sign-in
limits, a guest claiming its name with its games. Bot accounts over REST:
created, rotated and revoked with the admin key or by their owner's
session token, and every refusal changing nothing. The server hashes with
Argon2id at its real cost here (about 60 ms a password).
"""

import asyncio
from contextlib import closing
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from tessera_server import TesseraServer, ask, run_tests  # noqa: E402

PASSWORD = "correct horse battery"
ADMIN_KEY = "admin-key-0123456789abcdef"


async def register(server, name, password=PASSWORD):
    """A new connection that registers `name`; returns (connection, welcome)."""
    connection = await server.connect()
    reply = await ask(connection, {"type": "account.register", "name": name,
                                   "password": password})
    return connection, reply


async def sign_in(server, name, password):
    """A new connection's hello with a password; returns the reply."""
    async with server.connect() as connection:
        return await ask(connection, {"type": "hello", "name": name, "password": password})


async def hello_with(server, **fields):
    async with server.connect() as connection:
        return await ask(connection, dict({"type": "hello", "name": "tester"}, **fields))


async def rest(server, method, path, body=None, secret=None):
    """A JSON request with an optional Bearer; returns (status, parsed body)."""
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    payload = body if isinstance(body, bytes) else json.dumps(body).encode() if body else b""
    status, answer_headers, data = await server.http(method, path, payload, headers=headers)
    assert int(answer_headers["content-length"]) == len(data), answer_headers
    return status, json.loads(data)


def players_named(db_path, name_key):
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT count(*) FROM players WHERE name_key = ?",
                          (name_key,)).fetchone()[0]


async def test_register_sign_in_and_reconnect_with_the_token(binary):
    async with TesseraServer(binary) as server:
        connection, welcome = await register(server, "  Ada Lovelace ")
        assert welcome["type"] == "welcome", welcome
        player = welcome["player"]
        assert player["name"] == "Ada Lovelace" and player["bot"] is False
        assert isinstance(player["id"], int) and len(welcome["token"]) == 48
        rooms = await ask(connection, {"type": "rooms.list"})
        assert rooms["type"] == "rooms", rooms
        again = await sign_in(server, "ada lovelace", PASSWORD)
        assert again["type"] == "welcome" and again["player"] == player, again
        assert again["token"] != welcome["token"]
        await connection.wait_closed()  # signed in from another connection
        by_token = await hello_with(server, token=again["token"])
        assert by_token["player"] == player, by_token
        stale = await hello_with(server, token=welcome["token"])
        assert stale["code"] == "unauthorized", stale
        await server.wait_for_log(r"signed in on connection \d+ with a password")


async def test_wrong_password_and_unknown_name_get_the_same_error(binary):
    async with TesseraServer(binary) as server:
        await (await register(server, "ada"))[0].close()
        wrong = await sign_in(server, "ada", "not the password")
        unknown = await sign_in(server, "nobody-here", PASSWORD)
        assert wrong["type"] == "error" and wrong["code"] == "unauthorized", wrong
        assert wrong == unknown, (wrong, unknown)
        assert wrong["message"] == "wrong name or password"
        right = await sign_in(server, "ADA", PASSWORD)
        assert right["player"]["name"] == "ada", right  # as stored, not as typed
        short = await sign_in(server, "ada", "short")
        assert short["code"] == "bad_message", short
        taken = (await register(server, "ADA"))[1]
        assert taken["code"] == "name_taken", taken
        reserved = (await register(server, "greedy"))[1]
        assert reserved["code"] == "name_taken", reserved
        assert players_named(server.db_path, "ada") == 1


async def test_failed_sign_ins_are_rate_limited(binary):
    flags = ("--sign-in-failures-per-name", "2", "--sign-in-failures-per-address", "4")
    async with TesseraServer(binary, *flags) as server:
        await (await register(server, "ada"))[0].close()
        for _ in range(2):
            assert (await sign_in(server, "ada", "wrong password"))["code"] == "unauthorized"
        limited = await sign_in(server, "ada", PASSWORD)  # even the right one, for now
        assert limited["code"] == "rate_limited", limited
        assert limited["message"].startswith("too many failed sign-ins; try again in ")
        # Another name is fine, until the address has had its four failures.
        for _ in range(2):
            assert (await sign_in(server, "bob", "wrong password"))["code"] == "unauthorized"
        limited = await sign_in(server, "carol", PASSWORD)
        assert limited["code"] == "rate_limited", limited
        await server.wait_for_log(r"sign-in as 'bob' from 127\.0\.0\.1 failed")


async def test_sign_ups_are_limited_per_address(binary):
    """Names cannot be squatted by the thousand: an address registers
    `--registrations-per-address` accounts an hour, then gets rate_limited
    before its name is even looked up (issue 16, item 5)."""
    async with TesseraServer(binary) as server:  # the default: 10 an hour
        for number in range(10):
            connection, welcome = await register(server, f"squatter{number}")
            assert welcome["type"] == "welcome", welcome
            await connection.close()
        connection, refused = await register(server, "squatter10")
        assert refused["code"] == "rate_limited", refused
        assert refused["message"].startswith("too many new accounts from your address; "
                                             "try again in "), refused
        await connection.close()
        assert players_named(server.db_path, "squatter10") == 0
        # A taken name costs the address nothing, and signing in is not limited.
        assert (await sign_in(server, "squatter0", PASSWORD))["type"] == "welcome"


async def test_an_account_owns_a_capped_number_of_bots(binary):
    """An account's session token creates at most `--max-bots-per-account`
    bot accounts; the admin key is not capped (issue 16, item 5)."""
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:  # the default: 10
        connection, ada = await register(server, "ada")
        for number in range(10):
            status, created = await rest(server, "POST", "/api/bots", {"name": f"ada-bot{number}"},
                                         ada["token"])
            assert status == 201, created
        status, answer = await rest(server, "POST", "/api/bots", {"name": "ada-bot10"},
                                    ada["token"])
        assert (status, answer["code"]) == (403, "too_many_bots"), answer
        assert answer["message"] == "an account may own at most 10 bot accounts", answer
        assert players_named(server.db_path, "ada-bot10") == 0
        status, revoked = await rest(server, "DELETE", "/api/bots/ada-bot0/key", None,
                                     ada["token"])
        assert status == 200, revoked
        status, answer = await rest(server, "POST", "/api/bots", {"name": "ada-bot10"},
                                    ada["token"])
        assert status == 403, answer  # a revoked bot keeps its name, and counts
        status, created = await rest(server, "POST", "/api/bots",
                                     {"name": "ada-bot10", "owner": "ada"}, ADMIN_KEY)
        assert status == 201 and created["owner"] == "ada", created
        await connection.close()


async def test_guests_follow_the_name_rules_and_take_no_account_name(binary):
    """A guest's name is an account's under the same rules: no control
    or bidi character, nothing posing as a bot, no account's or bot's name;
    and the REST API marks a guest's seat, so no client links it to the
    profile of whoever holds the name (issue 16, item 10)."""
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:
        connection, ada = await register(server, "Ada")
        status, _ = await rest(server, "POST", "/api/bots", {"name": "Reef Bot"}, ADMIN_KEY)
        assert status == 201
        for name in ("two\nlines", "\x1b[2Jcleared", "bidi\u202eevil", "greedy (bot)",
                     "x", "\u0410da"):
            refused = await hello_with(server, name=name)
            assert refused["code"] == "bad_message", (name, refused)
        for name in ("ada", "  ADA ", "reef bot", "greedy", "Bot mcts"):
            refused = await hello_with(server, name=name)
            assert refused["code"] == "name_taken", (name, refused)
            refused = await hello_with(server, name=name, bot=True)
            assert refused["code"] == "name_taken", (name, refused)
        async with server.connect() as guest:
            welcome = await ask(guest, {"type": "hello", "name": " Ada L. "})
            assert welcome["player"]["name"] == "Ada L.", welcome
            room = (await ask(guest, {"type": "room.create", "game": "blokus",
                                      "mode": "duo"}))["room"]["id"]
            await ask(guest, {"type": "room.join", "room": room, "seat": 0})
            joined = await ask(connection, {"type": "room.join", "room": room, "seat": 1})
            assert joined["type"] == "room", joined
            started = await ask(guest, {"type": "room.start", "room": room})
            assert started["type"] == "room.started", started
            status, games = await rest(server, "GET", "/api/games")
            assert status == 200, games
        seats = games["items"][0]["seats"]
        assert seats[0]["player"] == {"id": seats[0]["player"]["id"], "name": "Ada L.",
                                      "guest": True}, seats
        assert seats[1]["player"] == {"id": ada["player"]["id"], "name": "Ada",
                                      "guest": False}, seats
        await connection.close()


async def test_new_guests_are_limited_per_address(binary):
    """Each guest may become a stored row: an address makes at most
    `--guests-per-address` new guests a minute (issue 16, item 12). The
    bucket refills at that many a minute, one every 12 s with 5: the six
    hellos cannot be slow enough, even under a sanitizer on a loaded
    machine, for a refill to let the sixth in (with the default 60, one
    comes back every second, and a slow run let the 61st in)."""
    async with TesseraServer(binary, "--guests-per-address", "5") as server:
        for number in range(5):
            welcome = await hello_with(server, name=f"guest{number}")
            assert welcome["type"] == "welcome", (number, welcome)
        refused = await hello_with(server, name="guest5")
        assert refused["code"] == "rate_limited", refused
        assert refused["message"].startswith("too many new guests from your address; "
                                             "try again in "), refused


async def test_unclaimed_guests_expire_and_their_tokens_stop_working(binary):
    """A stored guest nobody claimed and no stored game names is deleted
    `--guest-ttl` seconds after it first sat, by a sweep on the loop; a
    guest still seated stays (issue 16, item 12)."""
    async with TesseraServer(binary, "--guest-ttl", "1", "--reconnect-grace", "1") as server:
        async with server.connect() as stays, server.connect() as leaves:
            await ask(stays, {"type": "hello", "name": "stays"})
            room = (await ask(stays, {"type": "room.create", "game": "blokus",
                                      "mode": "duo"}))["room"]["id"]
            assert (await ask(stays, {"type": "room.join", "room": room,
                                      "seat": 0}))["type"] == "room"
            welcome = await ask(leaves, {"type": "hello", "name": "leaves"})
            assert (await ask(leaves, {"type": "room.join", "room": room,
                                       "seat": 1}))["type"] == "room"
            with sqlite3.connect(server.db_path) as db:
                assert db.execute("SELECT count(*) FROM players").fetchone()[0] == 2
            await leaves.close()  # its waiting seat is given up after the grace: nothing names it
            await server.wait_for_log(r"expired 1 unclaimed guest$", timeout=10)
            with sqlite3.connect(server.db_path) as db:
                names = [row[0] for row in db.execute("SELECT name FROM players")]
            assert names == ["stays"], names
            again = await hello_with(server, token=welcome["token"])
            assert (again["code"], again["message"]) == ("unauthorized", "unknown token"), again


async def test_a_guest_claims_its_name_and_keeps_its_history(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as guest:
            welcome = await ask(guest, {"type": "hello", "name": "ada"})
            room = (await ask(guest, {"type": "room.create", "game": "blokus",
                                      "mode": "duo"}))["room"]["id"]
            await ask(guest, {"type": "room.join", "room": room, "seat": 0})
            await ask(guest, {"type": "room.add_bot", "room": room, "seat": 1,
                              "bot": "greedy"})
            await ask(guest, {"type": "room.start", "room": room})
            over = await ask(guest, {"type": "game.resign", "room": room})
            assert over["type"] != "error", over
            with sqlite3.connect(server.db_path) as db:
                guest_id, status = db.execute(
                    "SELECT seats.player_id, games.status FROM seats JOIN games"
                    " ON games.id = seats.game_id WHERE seats.seat = 0").fetchone()
            assert status == "finished"
            claimed = await ask(guest, {"type": "account.register", "name": "Ada",
                                        "password": PASSWORD})
            assert claimed["type"] == "welcome", claimed
            assert claimed["player"] == {"id": guest_id, "name": "Ada", "bot": False}
            assert claimed["token"] != welcome["token"]
            again = await ask(guest, {"type": "account.register", "name": "Ada2",
                                      "password": PASSWORD})
            assert again["code"] == "bad_message", again
        signed_in = await sign_in(server, "ADA", PASSWORD)
        assert signed_in["player"]["id"] == guest_id, signed_in
        with sqlite3.connect(server.db_path) as db:
            row = db.execute("SELECT name, name_key, games_played FROM players WHERE id = ?",
                             (guest_id,)).fetchone()
        assert row == ("Ada", "ada", 1), row


async def test_bot_accounts_with_the_admin_key(binary):
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:
        status, created = await rest(server, "POST", "/api/bots", {"name": "Reef Bot"},
                                     ADMIN_KEY)
        assert status == 201, created
        assert created["name"] == "Reef Bot" and created["owner"] is None
        first_key = created["key"]
        bot = await hello_with(server, bot=True, key=first_key)
        assert bot["player"] == {"id": created["id"], "name": "Reef Bot", "bot": True}, bot
        status, rotated = await rest(server, "POST", "/api/bots/reef%20bot/key", None,
                                     ADMIN_KEY)
        assert status == 200 and rotated["key"] != first_key, rotated
        assert (await hello_with(server, bot=True, key=first_key))["code"] == "unauthorized"
        assert (await hello_with(server, bot=True, key=rotated["key"]))["type"] == "welcome"
        status, revoked = await rest(server, "DELETE", "/api/bots/Reef Bot/key".replace(
            " ", "%20"), None, ADMIN_KEY)
        assert status == 200 and revoked == {"id": created["id"], "name": "Reef Bot",
                                             "key": None}, revoked
        assert (await hello_with(server, bot=True, key=rotated["key"]))["code"] == "unauthorized"
        status, taken = await rest(server, "POST", "/api/bots", {"name": "REEF BOT"}, ADMIN_KEY)
        assert (status, taken["code"]) == (409, "name_taken"), taken
        status, missing = await rest(server, "POST", "/api/bots/nobody/key", None, ADMIN_KEY)
        assert (status, missing["code"]) == (404, "not_found"), missing


async def test_bot_account_refusals_change_nothing(binary):
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:
        refusals = [
            ({"name": "robot one"}, None, 401, "unauthorized"),
            ({"name": "robot one"}, "wrong-admin-key-0123456789", 401, "unauthorized"),
            (b'{"name": "robot one"', ADMIN_KEY, 400, "bad_json"),
            (b'["robot one"]', ADMIN_KEY, 400, "bad_json"),
            ({"name": "robot one", "colour": "red"}, ADMIN_KEY, 400, "bad_request"),
            ({"name": 7}, ADMIN_KEY, 400, "bad_request"),
            ({"owner": "ada"}, ADMIN_KEY, 400, "bad_request"),
            ({"name": "b"}, ADMIN_KEY, 400, "bad_request"),
            ({"name": "robot one", "owner": "nobody"}, ADMIN_KEY, 404, "not_found"),
            ({"name": "mcts"}, ADMIN_KEY, 409, "name_taken"),
        ]
        for body, secret, expected_status, code in refusals:
            status, answer = await rest(server, "POST", "/api/bots", body, secret)
            assert (status, answer["code"]) == (expected_status, code), (body, status, answer)
            assert answer["type"] == "error" and answer["message"], answer
        assert players_named(server.db_path, "robot one") == 0
        status, _ = await rest(server, "POST", "/api/bots", {"name": "robot one"}, ADMIN_KEY)
        assert status == 201
        status, answer = await rest(server, "POST", "/api/bots/bot%20one/key", None,
                                    "wrong-admin-key-0123456789")
        assert (status, answer["code"]) == (401, "unauthorized"), answer
        status, answer = await rest(server, "GET", "/api/bots", None, ADMIN_KEY)
        assert status == 405, answer


async def test_bot_account_changes_that_cannot_be_stored_change_nothing(binary):
    """Another connection holds the database's write lock past the busy
    timeout: a creation, a new key, a revocation and the tournament flag
    are each answered with a whole 500 storage_error (`rest` checks the
    length), and nothing changed: no bot, the old key still works, the flag
    is as it was. Once the lock is gone the same requests go through."""
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:
        status, created = await rest(server, "POST", "/api/bots", {"name": "robot"}, ADMIN_KEY)
        assert status == 201, created
        changes = [("POST", "/api/bots", {"name": "robot two"}),
                   ("POST", "/api/bots/robot/key", None),
                   ("DELETE", "/api/bots/robot/key", None),
                   ("POST", "/api/bots/robot/tournaments", None)]
        with closing(sqlite3.connect(server.db_path, isolation_level=None)) as holder:
            holder.execute("BEGIN IMMEDIATE")
            answers = [await rest(server, method, path, body, ADMIN_KEY)
                       for method, path, body in changes]
            holder.execute("ROLLBACK")
        for status, answer in answers:
            assert (status, answer["code"]) == (500, "storage_error"), answer
        assert players_named(server.db_path, "robot two") == 0
        assert (await hello_with(server, bot=True, key=created["key"]))["type"] == "welcome"
        with sqlite3.connect(server.db_path) as db:
            assert db.execute("SELECT open_to_tournaments FROM players WHERE name_key = 'robot'"
                              ).fetchone() == (0,)
        statuses = [(await rest(server, method, path, body, ADMIN_KEY))[0]
                    for method, path, body in changes]
        assert statuses == [201, 200, 200, 200], statuses
        assert players_named(server.db_path, "robot two") == 1
        assert (await hello_with(server, bot=True, key=created["key"]))["code"] == "unauthorized"


async def test_an_account_manages_only_its_own_bots(binary):
    async with TesseraServer(binary, "--admin-key", ADMIN_KEY) as server:
        ada_connection, ada = await register(server, "ada")
        bob_connection, bob = await register(server, "bob")
        status, created = await rest(server, "POST", "/api/bots", {"name": "ada-bot"},
                                     ada["token"])
        assert status == 201 and created["owner"] == "ada", created
        status, answer = await rest(server, "POST", "/api/bots/ada-bot/key", None, bob["token"])
        assert (status, answer["code"]) == (403, "forbidden"), answer
        status, answer = await rest(server, "POST", "/api/bots",
                                    {"name": "bob-bot", "owner": "bob"}, ada["token"])
        assert (status, answer["code"]) == (403, "forbidden"), answer
        assert players_named(server.db_path, "bob-bot") == 0
        status, rotated = await rest(server, "POST", "/api/bots/ada-bot/key", None,
                                     ada["token"])
        assert status == 200, rotated
        assert (await hello_with(server, bot=True, key=rotated["key"]))["type"] == "welcome"
        status, owned = await rest(server, "POST", "/api/bots",
                                   {"name": "bob-bot", "owner": "bob"}, ADMIN_KEY)
        assert status == 201 and owned["owner"] == "bob", owned
        guest = await hello_with(server)
        status, answer = await rest(server, "POST", "/api/bots", {"name": "guest-bot"},
                                    guest["token"])
        assert (status, answer["code"]) == (401, "unauthorized"), answer  # a guest not stored
        await ada_connection.close()
        await bob_connection.close()


async def test_without_an_admin_key_only_accounts_manage_bots(binary):
    async with TesseraServer(binary) as server:
        status, answer = await rest(server, "POST", "/api/bots", {"name": "a-bot"}, ADMIN_KEY)
        assert (status, answer["code"]) == (403, "forbidden"), answer
        assert "no admin key" in answer["message"]
        connection, ada = await register(server, "ada")
        status, created = await rest(server, "POST", "/api/bots", {"name": "a-bot"},
                                     ada["token"])
        assert status == 201 and created["owner"] == "ada", created
        await connection.close()


async def run_cli(binary, *arguments):
    process = await asyncio.create_subprocess_exec(
        binary, "bot", *arguments, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    output, errors = await process.communicate()
    return process.returncode, output.decode(), errors.decode()


async def test_the_command_line_adds_rotates_and_revokes(binary):
    async with TesseraServer(binary) as server:
        await (await register(server, "ada"))[0].close()
        db = ("--db", server.db_path)
        status, output, _ = await run_cli(binary, "add", "cli-bot", "--owner", "ADA", *db)
        assert status == 0 and "owned by ada" in output, output
        first_key = output.split("key ")[1].strip()
        status, output, _ = await run_cli(binary, "key", "CLI-BOT", *db)
        assert status == 0, output
        second_key = output.split("key ")[1].strip()
        assert (await hello_with(server, bot=True, key=first_key))["code"] == "unauthorized"
        assert (await hello_with(server, bot=True, key=second_key))["type"] == "welcome"
        status, output, _ = await run_cli(binary, "revoke", "cli-bot", *db)
        assert status == 0 and "key revoked" in output, output
        assert (await hello_with(server, bot=True, key=second_key))["code"] == "unauthorized"
        status, _, errors = await run_cli(binary, "add", "ada", *db)
        assert status == 1 and "the name 'ada' is taken" in errors, errors
        status, _, errors = await run_cli(binary, "revoke", "ada", *db)
        assert status == 1 and "no bot account is named 'ada'" in errors, errors


if __name__ == "__main__":
    run_tests(globals())
