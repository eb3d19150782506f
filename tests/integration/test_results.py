"""test_results.py -- what games leave behind: ratings and Reef runs.

Games are played on the real server (port 0, a fresh database) through
the protocol and the stateless Reef API; what they stored is then read
straight from the database file, so these tests hold the storage
contract the REST API and the leaderboards read from.
"""

import asyncio
from contextlib import closing
import json
import os
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from ws_client import Client  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000")
# Many runs through the stateless API: no HTTP rate limit in the way.
HTTP_FAST = ("--http-rate", "1000000", "--http-burst", "1000000")
SUBMIT = "/api/games/reef-builder/submit"


def rows(db_path, sql, *args):
    with sqlite3.connect(db_path) as db:
        return db.execute(sql, args).fetchall()


async def replay_verify(binary, db_path):
    """`tessera replay verify`: (exit status, printed lines)."""
    process = await asyncio.create_subprocess_exec(
        binary, "replay", "verify", "--db", db_path, stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    return process.returncode, out.decode().splitlines()


async def play_reef_run(server, seed, turns=None):
    """Plays the first legal action until the run ends (or `turns`)."""
    status, _, body = await server.http("GET", f"/api/games/reef-builder/init?seed={seed}")
    assert status == 200, body
    reply = json.loads(body)
    while reply["legalActions"] and (turns is None or reply["state"]["turn"] < turns):
        status, _, body = await server.http(
            "POST", "/api/games/reef-builder/action",
            json.dumps({"state": reply["state"], "action": reply["legalActions"][0]}).encode())
        assert status == 200, body
        reply = json.loads(body)
    return reply["state"]


async def submit(server, token, state):
    status, headers, body = await server.http(
        "POST", SUBMIT, json.dumps({"token": token, "state": state}).encode())
    assert int(headers["content-length"]) == len(body)
    return status, json.loads(body)


async def test_a_finished_stateless_run_is_ranked_for_its_player(binary):
    async with TesseraServer(binary) as server:
        guest = await Client.join(server, "diver")
        state = await play_reef_run(server, 7)
        assert state["phase"] == "ended" or state["turn"] == 1000
        status, reply = await submit(server, guest.token, state)
        assert status == 201, reply
        assert reply["player"] == "diver" and reply["seed"] == "7"
        assert reply["score"] == state["score"] and reply["turns"] == state["turn"]
        stored = rows(server.db_path, "SELECT score, json_extract(actions, '$') FROM reef_runs"
                      " WHERE id = ?", reply["run"])
        assert stored == [(state["score"], state["history"])]
        boards = dict(rows(server.db_path, "SELECT board, score FROM reef_best"))
        assert boards["seed:7"] == state["score"] and boards["all"] == state["score"]
        assert len(boards) == 2  # seed and all: 7 is no day's nor week's seed
        # replay verify replays the submitted runs; an edited score is caught
        status, out = await replay_verify(binary, server.db_path)
        assert status == 0 and out[-1].endswith("1 submitted Reef runs checked, 0 failed"), out
        with sqlite3.connect(server.db_path) as db:
            db.execute("UPDATE reef_runs SET score = score + 1 WHERE id = ?", (reply["run"],))
        status, out = await replay_verify(binary, server.db_path)
        assert status == 1 and out[-1].endswith("1 submitted Reef runs checked, 1 failed"), out
        assert out[0].startswith(f"reef run {reply['run']}: replays to {state['score']} points")


async def test_the_same_run_submitted_again_is_stored_once(binary):
    """The same player, seed and actions are one run: 30 submissions store
    one row and each repeat is answered 200 with the stored run."""
    async with TesseraServer(binary, *HTTP_FAST) as server:
        guest = await Client.join(server, "diver")
        other = await Client.join(server, "snorkel")
        state = await play_reef_run(server, 7)
        status, first = await submit(server, guest.token, state)
        assert status == 201, first
        for _ in range(29):
            status, again = await submit(server, guest.token, state)
            assert status == 200 and again == first, again
        assert rows(server.db_path, "SELECT count(*) FROM reef_runs") == [(1,)]
        # another player's copy of the run is that player's run
        status, theirs = await submit(server, other.token, state)
        assert status == 201 and theirs["run"] != first["run"] and theirs["player"] == "snorkel"
        assert rows(server.db_path, "SELECT count(*) FROM reef_runs") == [(2,)]
        assert rows(server.db_path, "SELECT count(*) FROM reef_best WHERE board = 'seed:7'") \
            == [(2,)]


async def test_refused_submissions_store_nothing(binary):
    async with TesseraServer(binary) as server:
        guest = await Client.join(server, "cheat")
        state = await play_reef_run(server, 3)
        tampered = dict(state, score=state["score"] + 100)
        short = await play_reef_run(server, 3, turns=5)
        cases = [
            (json.dumps({"token": guest.token, "state": tampered}).encode(), 422,
             "tampered_state"),
            (json.dumps({"token": guest.token, "state": short}).encode(), 422, "run_not_over"),
            (json.dumps({"token": "nobody", "state": state}).encode(), 401, "unauthorized"),
            (json.dumps({"token": guest.token}).encode(), 400, "bad_request"),
            (json.dumps({"token": "", "state": state}).encode(), 400, "bad_request"),
            (json.dumps({"token": guest.token, "state": state, "x": 1}).encode(), 400,
             "bad_request"),
            (b"{not json", 400, "bad_json"),
        ]
        for body, status, code in cases:
            answer_status, headers, answer = await server.http("POST", SUBMIT, body)
            assert answer_status == status, (code, answer)
            assert int(headers["content-length"]) == len(answer)
            assert json.loads(answer)["error"]["code"] == code, answer
        assert rows(server.db_path, "SELECT count(*) FROM reef_runs") == [(0,)]
        assert rows(server.db_path, "SELECT count(*) FROM reef_best") == [(0,)]


async def test_a_run_that_cannot_be_stored_is_answered_whole_and_may_be_retried(binary):
    """Another connection holds the database's write lock past the busy
    timeout: the run's commit fails, the answer is a whole 503
    storage_error (status, length and body agree: `submit` checks the
    length) and nothing is stored, not even the guest's row that would
    have come with the run. Once the lock is gone the same run is stored."""
    async with TesseraServer(binary) as server:
        guest = await Client.join(server, "locked")
        state = await play_reef_run(server, 3)
        with closing(sqlite3.connect(server.db_path, isolation_level=None)) as holder:
            holder.execute("BEGIN IMMEDIATE")
            status, reply = await submit(server, guest.token, state)
            holder.execute("ROLLBACK")
        assert status == 503 and reply["error"]["code"] == "storage_error", reply
        assert rows(server.db_path, "SELECT count(*) FROM reef_runs") == [(0,)]
        assert rows(server.db_path, "SELECT count(*) FROM players WHERE name = 'locked'") == [(0,)]
        status, reply = await submit(server, guest.token, state)
        assert status == 201 and reply["player"] == "locked", reply
        assert rows(server.db_path, "SELECT count(*) FROM reef_runs") == [(1,)]


async def test_a_finished_blokus_game_rates_players_and_bots(binary):
    async with TesseraServer(binary, *FAST) as server:
        ada = await Client.join(server, "ada")
        room = (await ada.request({"type": "room.create", "game": "blokus", "mode": "duo"}))
        code = room["room"]["id"]
        await ada.request({"type": "room.join", "room": code, "seat": 0})
        await ada.request({"type": "room.add_bot", "room": code, "seat": 1, "bot": "greedy"})
        await ada.request({"type": "room.start", "room": code})
        resigned = await ada.request({"type": "game.resign", "room": code})
        assert resigned["type"] != "error", resigned
        over = await ada.expect("game.over")
        assert over["result"]["winners"] == [1]
        ratings = dict((name, (mu, sigma, games, wins)) for name, mu, sigma, games, wins in rows(
            server.db_path, "SELECT name, mu, sigma, ratings.games, ratings.wins FROM ratings"
            " JOIN players ON players.id = player_id WHERE pool = 'blokus-duo'"))
        assert set(ratings) == {"ada", "bot:greedy"}
        assert ratings["ada"][0] < 25 < ratings["bot:greedy"][0]
        assert ratings["ada"][1] < 25 / 3 and ratings["ada"][2:] == (1, 0)
        assert ratings["bot:greedy"][2:] == (1, 1)
        history = rows(server.db_path, "SELECT mu_before, mu_after FROM rating_history"
                       " JOIN players ON players.id = player_id WHERE name = 'ada'")
        assert history == [(25.0, ratings["ada"][0])]


async def test_the_room_names_its_stored_game_whose_rating_changes_follow_the_end(binary):
    """A client's game-over summary reads the rating changes by the room's game_id."""
    async with TesseraServer(binary, *FAST) as server:
        ada = await Client.join(server, "ada")
        created = (await ada.request({"type": "room.create", "game": "blokus", "mode": "duo"}))
        code, game_id = created["room"]["id"], created["room"]["game_id"]
        assert isinstance(game_id, int) and game_id > 0, created
        await ada.request({"type": "room.join", "room": code, "seat": 0})
        await ada.request({"type": "room.add_bot", "room": code, "seat": 1, "bot": "greedy"})
        await ada.request({"type": "room.start", "room": code})
        await ada.request({"type": "game.resign", "room": code})
        await ada.expect("game.over")
        finished = await ada.expect("room", lambda m: m["room"]["status"] == "finished")
        assert finished["room"]["game_id"] == game_id
        status, _, body = await server.http("GET", f"/api/games/{game_id}")
        assert status == 200, body
        game = json.loads(body)
        assert game["id"] == game_id and game["status"] == "finished"
        assert {change["player"]["name"] for change in game["rating_changes"]} == {"ada", "bot:greedy"}


if __name__ == "__main__":
    run_tests(globals())
