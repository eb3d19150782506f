"""test_tournament_rules.py -- who may enter whom in a tournament, how many
an account may run, and cancelling (docs/PROTOCOL.md, tournament.create,
tournament.invite, tournament.accept, tournament.cancel; docs/API.md).

- Consent: an account enters itself, its own bots, bots their owner opened
  to tournaments, built-in bots, and accounts or bots that accepted its
  invitation (once per invitation); the admin enters anyone.
- Caps: an account runs at most `tournaments-per-account` tournaments,
  playing at most `tournament-rooms-per-account` games at once; the last
  `tournament-reserve` places are the admin's and the arenas'.
- Cancel: by the creator (websocket, REST) or the admin (REST, CLI);
  finished games keep their results and ratings, games under way are
  aborted unrated, and the cancellation survives a restart.
"""

import asyncio
import json
import os
import signal
import sqlite3
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests, RestartableServer  # noqa: E402
from ws_client import Client  # noqa: E402

PASSWORD = "correct horse battery"
ADMIN_KEY = "admin-key-for-tests-0123456789"
FAST = ("--rate", "100000", "--burst", "100000", "--admin-key", ADMIN_KEY,
        "--bot-think-ms", "5")
# Games that outlast the test: a day on the clock, absent bot accounts.
SLOW = dict(game="blokus", mode="duo", format="fixed", games=100, parallel=1,
            clock={"initial_ms": 86400000, "increment_ms": 0})


async def account(server, name):
    """A websocket client signed up as the named account `name`."""
    client = Client(await server.connect(max_size=2 ** 22), name)
    welcome = await client.request({"type": "account.register", "name": name,
                                     "password": PASSWORD})
    assert welcome["type"] == "welcome", welcome
    client.token = welcome["token"]
    client.player_id = welcome["player"]["id"]
    return client


async def rest(server, method, path, body=None, secret=ADMIN_KEY):
    payload = json.dumps(body).encode() if body is not None else b""
    status, headers, data = await server.http(method, path, payload,
                                              headers={"Authorization": f"Bearer {secret}"})
    assert int(headers["content-length"]) == len(data), headers
    return status, json.loads(data)


async def own_bot(server, owner, name):
    status, bot = await rest(server, "POST", "/api/bots", {"name": name}, owner.token)
    assert status == 201, bot


async def create(client, name, participants, **settings):
    return await client.request(dict(SLOW, type="tournament.create", name=name,
                                     participants=participants, **settings))


def rows(db_path, sql, *args):
    with sqlite3.connect(db_path) as db:
        return db.execute(sql, args).fetchall()


def refused(reply, code):
    return reply["type"] == "error" and reply["code"] == code


async def test_an_account_enters_only_who_agreed(binary):
    async with TesseraServer(binary, *FAST, "--tournaments-per-account", "20",
                             "--tournament-rooms-per-account", "20") as server:
        mallory = await account(server, "mallory")
        victim = await account(server, "victim")
        bob = await account(server, "bob")
        await own_bot(server, mallory, "mal bot")
        await own_bot(server, bob, "bob bot")
        greedy = {"bot": "greedy"}
        # another account, or another's bot: refused, nothing stored or rated
        for entry in ({"player": "victim"}, {"player": "Bob Bot"}):
            reply = await create(mallory, "sink", [entry, greedy])
            assert refused(reply, "consent_required"), reply
            assert "participants[0]" in reply["message"], reply
        status, answer = await rest(server, "POST", "/api/tournaments",
                                    dict(SLOW, name="sink", participants=[{"player": "victim"},
                                                                         greedy]),
                                    mallory.token)
        assert status == 403 and answer["code"] == "consent_required", answer
        assert rows(server.db_path, "SELECT count(*) FROM tournaments") == [(0,)]
        assert rows(server.db_path, "SELECT count(*) FROM ratings WHERE player_id = ?",
                    victim.player_id) == [(0,)]
        # itself, its own bot and built-in bots: free
        reply = await create(mallory, "mine", [{"player": "mallory"}, {"player": "mal bot"},
                                               greedy])
        assert reply["type"] == "tournament", reply
        # a bot its owner opened to tournaments (only the owner or the admin may)
        status, answer = await rest(server, "POST", "/api/bots/bob%20bot/tournaments",
                                    secret=mallory.token)
        assert status == 403 and answer["code"] == "forbidden", answer
        status, answer = await rest(server, "POST", "/api/bots/bob%20bot/tournaments",
                                    secret=bob.token)
        assert status == 200 and answer["open_to_tournaments"] is True, answer
        reply = await create(mallory, "open bot", [{"player": "bob bot"}, greedy])
        assert reply["type"] == "tournament", reply
        status, answer = await rest(server, "DELETE", "/api/bots/bob%20bot/tournaments",
                                    secret=bob.token)
        assert status == 200 and answer["open_to_tournaments"] is False, answer
        reply = await create(mallory, "closed bot", [{"player": "bob bot"}, greedy])
        assert refused(reply, "consent_required"), reply
        # the operator opens it from the shell, the running server sees it at once
        process = await asyncio.create_subprocess_exec(
            binary, "bot", "open", "Bob Bot", "--db", server.db_path,
            stdout=asyncio.subprocess.PIPE)
        out, _ = await process.communicate()
        assert process.returncode == 0 and b"open to tournaments" in out, out
        reply = await create(mallory, "opened bot", [{"player": "bob bot"}, greedy])
        assert reply["type"] == "tournament", reply
        # an invitation, accepted, is good for one tournament
        invited = await mallory.request({"type": "tournament.invite", "player": "Victim"})
        assert invited == {"type": "tournament.invited", "player": "victim",
                           "id": invited["id"]}, invited
        heard = await victim.expect("tournament.invitation")
        assert heard["from"] == "mallory", heard
        reply = await create(mallory, "not yet", [{"player": "victim"}, greedy])
        assert refused(reply, "consent_required"), reply
        wrong = await victim.request({"type": "tournament.accept", "from": "bob"})
        assert refused(wrong, "no_such_invitation"), wrong
        accepted = await victim.request({"type": "tournament.accept", "from": "mallory"})
        assert accepted["type"] == "tournament.accepted" and accepted["from"] == "mallory"
        reply = await create(mallory, "agreed", [{"player": "victim"}, greedy])
        assert reply["type"] == "tournament", reply
        reply = await create(mallory, "again", [{"player": "victim"}, greedy])
        assert refused(reply, "consent_required"), reply
        # guests neither create nor invite; the admin enters anyone
        guest = await Client.join(server, "guest")
        reply = await guest.request({"type": "tournament.invite", "player": "victim"})
        assert refused(reply, "unauthorized"), reply
        status, answer = await rest(server, "POST", "/api/tournaments",
                                    dict(SLOW, name="admin's", participants=[
                                        {"player": "victim"}, {"player": "bob bot"}]))
        assert status == 201, answer
        names = [name for (name,) in rows(server.db_path,
                                          "SELECT name FROM tournaments ORDER BY id")]
        assert names == ["mine", "open bot", "opened bot", "agreed", "admin's"], names


async def hog(client, bots, count):
    """The attack: `count` day-long tournaments of the account's two bots;
    returns the replies."""
    participants = [{"player": bot} for bot in bots]
    return [await create(client, f"hog {i}", participants) for i in range(count)]



async def tournament_statuses(server):
    status, listed = await rest(server, "GET", "/api/tournaments?limit=100")
    assert status == 200, listed
    return {item["name"]: item["status"] for item in listed["items"]}


async def cli_cancel(binary, server, tournament_id):
    process = await asyncio.create_subprocess_exec(
        binary, "tournament", "cancel", str(tournament_id), "--port", str(server.port),
        "--admin-key", ADMIN_KEY, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    return process.returncode, json.loads(out or err)


async def test_one_account_cannot_hog_the_tournament_places(binary):
    caps = FAST + ("--max-tournaments", "6", "--tournament-reserve", "2",
                   "--tournament-share", "50")
    folder = tempfile.TemporaryDirectory(prefix="tessera-hog-")
    first = RestartableServer(binary, folder.name, *caps)
    await first.start()
    ids = {}
    try:
        mallory = await account(first, "mallory")
        await own_bot(first, mallory, "hog one")
        await own_bot(first, mallory, "hog two")
        replies = await hog(mallory, ["hog one", "hog two"], 100)
        created = [reply for reply in replies if reply["type"] == "tournament"]
        assert len(created) == 2, [reply.get("message") for reply in replies[:3]]
        assert all(refused(reply, "too_many_tournaments") for reply in replies[2:]), replies[2]
        ids["hog 0"], ids["hog 1"] = (reply["tournament"]["id"] for reply in created)
        # the games they hold at once are capped too
        eve = await account(first, "eve")
        greedy_random = [{"bot": "greedy"}, {"bot": "random"}]
        reply = await create(eve, "wide", greedy_random, parallel=9)
        assert refused(reply, "too_many_tournaments") and "at once" in reply["message"], reply
        # other accounts get the places left for accounts, then no more
        for name in ("carol", "dave"):
            client = await account(first, name)
            reply = await create(client, name, [{"player": name}, {"bot": "greedy"}])
            assert reply["type"] == "tournament", reply
            ids[name] = reply["tournament"]["id"]
        reply = await create(eve, "late", greedy_random)
        assert refused(reply, "too_many_rooms") and "admin and arenas" in reply["message"], reply
        status, answer = await rest(first, "POST", "/api/tournaments",
                                    dict(SLOW, name="late", participants=greedy_random),
                                    eve.token)
        assert status == 503 and answer["code"] == "too_many_rooms", answer
        # the admin still can
        status, answer = await rest(first, "POST", "/api/tournaments",
                                    dict(SLOW, name="admin's", participants=[
                                        {"player": "hog one"}, {"bot": "greedy"}]))
        assert status == 201, answer
        ids["admin's"] = answer["id"]
    finally:
        first.process.send_signal(signal.SIGKILL)
        await first.process.wait()
    arena = ("--arenas", "nightly every 60 blokus duo fixed games=100 parallel=1 "
             "bots=greedy,random")
    second = RestartableServer(binary, folder.name, *caps, *arena)
    await second.start()
    try:
        # the tournaments survived the restart, and an arena still starts
        await second.wait_for_log(r"arena nightly started tournament \d+")
        statuses = await tournament_statuses(second)
        assert sorted(statuses.values()) == ["running"] * 6, statuses
        mallory = await account_sign_in(second, "mallory")
        # cancelling: the creator over the websocket, only its own
        reply = await mallory.request({"type": "tournament.cancel", "tournament": ids["dave"]})
        assert refused(reply, "not_owner"), reply
        reply = await mallory.request({"type": "tournament.cancel", "tournament": ids["hog 0"]})
        assert reply["type"] == "tournament.cancelled", reply
        reply = await mallory.request({"type": "tournament.cancel", "tournament": ids["hog 0"]})
        assert refused(reply, "no_such_tournament"), reply
        # the admin over REST and from the shell
        status, answer = await rest(second, "DELETE", f"/api/tournaments/{ids['carol']}")
        assert status == 200 and answer["status"] == "cancelled", answer
        status, answer = await rest(second, "DELETE", f"/api/tournaments/{ids['dave']}",
                                    secret=mallory.token)
        assert status == 403, answer
        code, answer = await cli_cancel(binary, second, ids["dave"])
        assert code == 0 and answer["status"] == "cancelled", answer
        code, answer = await cli_cancel(binary, second, ids["dave"])
        assert code == 1 and answer["code"] == "not_found", answer
        # a place is free again for mallory
        reply = await create(mallory, "hog again", [{"player": "hog one"},
                                                    {"player": "hog two"}])
        assert reply["type"] == "tournament", reply
    finally:
        await second.stop()
    # the games under way were aborted, unrated; the cancellations stay (a
    # game tried twice -- its first room discarded, or cut off by the kill
    # and tried again -- leaves two aborted rows: none finished, none rated)
    cancelled = (ids["hog 0"], ids["carol"], ids["dave"])
    for tournament_id in cancelled:
        games = rows(second.db_path, "SELECT status FROM games WHERE tournament_id = ?",
                     tournament_id)
        assert games and set(games) == {("aborted",)}, (tournament_id, games)
    assert rows(second.db_path, "SELECT count(*) FROM rating_history JOIN games ON games.id ="
                " game_id WHERE tournament_id IN (?, ?, ?)", *cancelled) == [(0,)]
    async with RestartableServer(binary, folder.name, *caps) as third:
        statuses = await tournament_statuses(third)
        assert [statuses[name] for name in ("hog 0", "carol", "dave")] == ["cancelled"] * 3
        assert statuses["hog 1"] == statuses["admin's"] == "running", statuses
        watcher = await Client.join(third, "fan")
        reply = await watcher.request({"type": "tournament.watch", "tournament": ids["carol"]})
        assert refused(reply, "no_such_tournament"), reply
    folder.cleanup()


async def account_sign_in(server, name):
    client = Client(await server.connect(max_size=2 ** 22), name)
    welcome = await client.request({"type": "hello", "name": name, "password": PASSWORD})
    assert welcome["type"] == "welcome", welcome
    client.token = welcome["token"]
    return client


async def test_cancel_keeps_finished_games_and_aborts_the_rest(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-cancel-")
    async with RestartableServer(binary, folder.name, *FAST) as server:
        organizer = await account(server, "organizer")
        reply = await organizer.request({
            "type": "tournament.create", "name": "cup", "game": "blokus", "mode": "duo",
            "format": "fixed", "games": 100, "parallel": 1,
            "participants": [{"bot": "greedy"}, {"bot": "random"}]})
        assert reply["type"] == "tournament", reply
        tournament_id = reply["tournament"]["id"]
        await organizer.expect("tournament.standings")  # a game is over
        reply = await organizer.request({"type": "tournament.cancel",
                                         "tournament": tournament_id})
        assert reply["type"] == "tournament.cancelled", reply
        event = await organizer.expect("tournament.cancelled")
        assert event["tournament"]["status"] == "cancelled", event
        # the page says so at once, though the game under way may be
        # aborted a moment later: it is an event of its own room
        status, page = await rest(server, "GET", f"/api/tournaments/{tournament_id}")
        assert page["status"] == "cancelled" and page["finished_at_ms"], page
        shown = [game["status"] for game in page["schedule"]]
        played = shown.count("finished")
        assert played and shown == ["finished"] * played + ["cancelled"] * (100 - played), shown
    # stopped: every write the cancellation led to was stored before it did
    games = rows(server.db_path, "SELECT id, status FROM games WHERE tournament_id = ?"
                 " ORDER BY id", tournament_id)
    finished = [game for game, status in games if status == "finished"]
    assert len(finished) == played, (games, shown)
    assert [status for _, status in games[played:]] == ["aborted"], games
    # finished games keep their ratings; the aborted one has none
    rated = {game for (game,) in rows(server.db_path,
                                      "SELECT DISTINCT game_id FROM rating_history")}
    assert rated == set(finished), (rated, games)
    folder.cleanup()


if __name__ == "__main__":
    run_tests(globals())
