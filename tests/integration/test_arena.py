"""test_arena.py -- games the server arranges: quick play (and tournaments).

Every test starts the real server (port 0, a fresh database) and talks to
it as a bot or browser would; clients wait for the events they expect.
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

FAST = ("--rate", "100000", "--burst", "100000")
ADMIN_KEY = "admin-key-for-tests-0123456789"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}
# Quick bots so a tournament of a few games takes a second or two.
ARENA = FAST + ("--admin-key", ADMIN_KEY, "--bot-think-ms", "5")


def seat_names(room_event):
    return [seat.get("name") for seat in room_event["room"]["seats"]]


async def test_quick_play_pairs_two_clients(binary):
    async with TesseraServer(binary, *FAST) as server:
        ada = await Client.join(server, "ada")
        bob = await Client.join(server, "bob")
        joined = await ada.request({"type": "queue.join", "game": "blokus", "mode": "duo"})
        assert joined["type"] == "queue.joined" and joined["waiting"] == 1, joined
        await bob.request({"type": "queue.join", "game": "blokus", "mode": "duo"})
        room = await ada.expect("room")
        assert room == await bob.expect("room")
        assert room["room"]["status"] == "playing"
        assert sorted(seat_names(room)) == ["ada", "bob"]
        # the one to move plays: the match is an ordinary game
        code = room["room"]["id"]
        for client in (ada, bob):
            state = await client.expect("game.state", lambda m: m["room"] == code)
            if state.get("to_move", {}).get("seat") == state["seat"]:
                moves = await client.request({"type": "game.moves", "room": code})
                moved = await client.request({"type": "game.move", "room": code,
                                              "ply": state["ply"],
                                              "action": moves["moves"][0]})
                assert moved["type"] == "game.moved", moved
                break
        else:
            raise AssertionError("nobody was to move")


async def test_quick_play_fills_a_lone_player_with_bots(binary):
    async with TesseraServer(binary, *FAST, "--queue-fill", "1") as server:
        ada = await Client.join(server, "ada")
        await ada.request({"type": "queue.join", "game": "blokus", "mode": "4p"})
        room = await ada.expect("room")
        kinds = sorted(seat["kind"] for seat in room["room"]["seats"])
        assert kinds == ["bot", "bot", "bot", "player"], room
        assert room["room"]["status"] == "playing"


async def test_quick_play_refusals_change_nothing(binary):
    async with TesseraServer(binary, *FAST) as server:
        ada = await Client.join(server, "ada")
        cases = [
            ({"type": "queue.join", "game": "reef-builder", "mode": "solo"}, "bad_message"),
            ({"type": "queue.join", "game": "chess", "mode": "duo"}, "bad_message"),
            ({"type": "queue.join", "game": "blokus", "mode": "duo", "x": 1}, "bad_message"),
            ({"type": "queue.leave"}, "not_queued"),
        ]
        for message, code in cases:
            reply = await ada.request(message)
            assert reply["type"] == "error" and reply["code"] == code, reply
        # none of them queued ada: a second player waits alone
        bob = await Client.join(server, "bob")
        joined = await bob.request({"type": "queue.join", "game": "blokus", "mode": "duo"})
        assert joined["waiting"] == 1


# Tournaments. ------------------------------------------------------------------

async def create_tournament(server, **settings):
    status, headers, body = await server.http("POST", "/api/tournaments",
                                              json.dumps(settings).encode(), headers=ADMIN)
    assert int(headers["content-length"]) == len(body)
    return status, json.loads(body)


async def get_json(server, path):
    status, _, body = await server.http("GET", path)
    assert status == 200, (path, body)
    return json.loads(body)


async def watch_to_the_end(server, tournament_id):
    """The final view of a tournament: followed to its end, or read back
    from the REST API if it ended before the watch began."""
    client = await Client.join(server, "fan")
    view = await client.request({"type": "tournament.watch", "tournament": tournament_id})
    if view["type"] == "error":
        assert view["code"] == "no_such_tournament", view
        final = await get_json(server, f"/api/tournaments/{tournament_id}")
        assert final["status"] == "finished", final
        del final["schedule"]
        return final
    finished = await client.expect("tournament.finished",
                                   lambda m: m["tournament"]["id"] == tournament_id)
    return finished["tournament"]


def check_round_robin_standings(final, entries, games):
    """Every game gives out exactly one point per pair of seats."""
    standings = final["standings"]
    assert len(standings) == entries
    assert sum(entry["points"] for entry in standings) == games
    assert all(entry["games_left"] == 0 for entry in standings)
    ranked = [entry["points"] for entry in standings]
    assert ranked == sorted(ranked, reverse=True)


async def test_a_tournament_of_bots_plays_to_its_end(binary):
    async with TesseraServer(binary, *ARENA) as server:
        status, created = await create_tournament(
            server, name="Duo cup", game="blokus", mode="duo", format="round-robin", seed=7,
            participants=[{"bot": "greedy"}, {"bot": "random"}, {"bot": "mcts"}], parallel=2)
        assert status == 201, created
        final = await watch_to_the_end(server, created["id"])
        assert final["status"] == "finished" and final["games"]["finished"] == 6
        check_round_robin_standings(final, 3, 6)
        assert all(entry["games"] == 4 for entry in final["standings"])
        assert final["standings"][-1]["player"]["name"] == "bot:random"
        # the REST page agrees, with the whole schedule
        page = await get_json(server, f"/api/tournaments/{created['id']}")
        assert page["standings"] == final["standings"]
        assert [game["status"] for game in page["schedule"]] == ["finished"] * 6
        seatings = {tuple(game["entries"]) for game in page["schedule"]}
        assert seatings == {(0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1)}
        listed = await get_json(server, "/api/tournaments")
        assert [item["id"] for item in listed["items"]] == [created["id"]]
        games = await get_json(server, f"/api/games?tournament={created['id']}&limit=100")
        assert len(games["items"]) == 6
        # the games were rated: each built-in bot played 4 rated duo games
        with sqlite3.connect(server.db_path) as db:
            rated = db.execute("SELECT name, ratings.games FROM ratings JOIN players"
                               " ON players.id = player_id WHERE pool = 'blokus-duo'").fetchall()
        assert sorted(rated) == [("bot:greedy", 4), ("bot:mcts@5ms", 4), ("bot:random", 4)]
        # and every one of them replays through the rules to its stored result
        verify = await asyncio.create_subprocess_exec(
            binary, "replay", "verify", "--db", server.db_path, stdout=asyncio.subprocess.PIPE)
        out, _ = await verify.communicate()
        assert verify.returncode == 0, out


async def test_a_swiss_tournament_pairs_rounds_and_gives_the_bye(binary):
    async with TesseraServer(binary, *ARENA) as server:
        entries = [{"bot": kind} for kind in ("random", "greedy", "mcts")]
        status, created = await create_tournament(
            server, name="Swiss", game="blokus", mode="duo", format="swiss", rounds=3,
            participants=entries, seed=3)
        assert status == 201, created
        final = await watch_to_the_end(server, created["id"])
        page = await get_json(server, f"/api/tournaments/{created['id']}")
        rounds = {}
        for game in page["schedule"]:
            rounds.setdefault(game["round"], []).append(game)
        assert sorted(rounds) == [0, 1, 2]
        # three entries: one game and one bye a round, every pairing once
        pairs = [frozenset(g["entries"]) for g in page["schedule"] if g["status"] != "bye"]
        byes = [g["entries"][0] for g in page["schedule"] if g["status"] == "bye"]
        assert len(pairs) == 3 and len(set(pairs)) == 3
        assert sorted(byes) == [0, 1, 2]
        # a bye is a point without a game
        assert sum(entry["points"] for entry in final["standings"]) == 3 + 3
        assert all(entry["games"] == 2 for entry in final["standings"])



async def test_a_tournament_carries_on_after_a_restart(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-arena-")
    slow = ARENA[:-1] + ("100",)  # games take long enough to be cut in the middle
    first = RestartableServer(binary, folder.name, *slow)
    await first.start()
    try:
        status, created = await create_tournament(
            first, name="Restart cup", game="blokus", mode="duo", format="fixed", games=2,
            participants=[{"bot": "greedy"}, {"bot": "mcts"}, {"bot": "random"}], parallel=1)
        assert status == 201, created
        watcher = await Client.join(first, "fan")
        await watcher.request({"type": "tournament.watch", "tournament": created["id"]})
        await watcher.expect("tournament.standings")  # one game is over, others are not
    finally:
        first.process.send_signal(signal.SIGKILL)
        await first.process.wait()
    async with RestartableServer(binary, folder.name, *ARENA) as second:
        final = await watch_to_the_end(second, created["id"])
        check_round_robin_standings(final, 3, 6)
        assert all(entry["games"] == 4 for entry in final["standings"])
        page = await get_json(second, f"/api/tournaments/{created['id']}")
        assert [game["status"] for game in page["schedule"]] == ["finished"] * 6
    folder.cleanup()


async def test_tournament_refusals_create_nothing(binary):
    async with TesseraServer(binary, *ARENA) as server:
        bots = [{"bot": "greedy"}, {"bot": "random"}]
        base = dict(name="x", game="blokus", mode="duo", format="round-robin", participants=bots)
        cases = [
            (dict(base, format="knockout"), "'format'"),
            (dict(base, participants=[{"bot": "greedy"}]), "'participants'"),
            (dict(base, participants=bots + [{"bot": "greedy"}]), "already entered"),
            (dict(base, participants=bots + [{"player": "nobody"}]), "no account"),
            (dict(base, participants=bots + [{"bot": "genius"}]), "no blokus bot"),
            (dict(base, mode="4p", format="swiss"), "swiss pairs two-player games"),
            (dict(base, mode="4p"), "cannot fill games of 4 seats"),
            (dict(base, games=2), "'games' goes with format \"fixed\""),
            (dict(base, colour="red"), "unknown field"),
        ]
        for settings, words in cases:
            status, answer = await create_tournament(server, **settings)
            assert status == 400 and answer["code"] == "bad_request", (settings, answer)
            assert words in answer["message"], (words, answer)
        status, _, body = await server.http("POST", "/api/tournaments",
                                            json.dumps(base).encode())
        assert status == 401, body
        status, _, body = await server.http("POST", "/api/tournaments",
                                            json.dumps(base).encode(),
                                            headers={"Authorization": "Bearer wrong-key-123456"})
        assert status == 401, body
        status, _, body = await server.http("POST", "/api/tournaments", b"{not json",
                                            headers=ADMIN)
        assert status == 400 and json.loads(body)["code"] == "bad_json", body
        # over the websocket only named accounts may create one
        guest = await Client.join(server, "guest")
        refused = await guest.request(dict(base, type="tournament.create"))
        assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
        watched = await guest.request({"type": "tournament.watch", "tournament": 99})
        assert watched["code"] == "no_such_tournament", watched
        assert (await get_json(server, "/api/tournaments"))["items"] == []
        status, _, _ = await server.http("GET", "/api/tournaments/1")
        assert status == 404


if __name__ == "__main__":
    run_tests(globals())
