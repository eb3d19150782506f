"""test_arena.py -- games the server arranges: quick play (and tournaments).

Every test starts the real server (port 0, a fresh database) and talks to
it as a bot or browser would; clients wait for the events they expect.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from ws_client import Client  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000")


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


if __name__ == "__main__":
    run_tests(globals())
