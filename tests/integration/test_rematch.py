"""test_rematch.py -- room.rematch over real websockets (docs/PROTOCOL.md).

A finished game's player builds the rematch room with the usual requests
(create, take its old seat, the bots back in theirs), names it with
room.rematch, and the other members get the finished room with `rematch`
set; the other player accepts by taking its old seat there. Every way a
client can get the offer wrong is refused with its own error, and nobody
can send the players a second offer.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from ws_client import Client  # noqa: E402

FLAGS = ("--rate", "100000", "--burst", "100000", "--bot-think-ms", "5")
SETTINGS = {"game": "blokus", "mode": "4p", "scoring": "official", "timeout": "pass",
            "clock": {"initial_ms": 600000, "increment_ms": 1000}}


async def create(client, **settings):
    reply = await client.request(dict({"type": "room.create"}, **(settings or SETTINGS)))
    assert reply["type"] == "room", reply
    return reply["room"]["id"]


async def ok(client, message):
    reply = await client.request(message)
    assert reply["type"] != "error", (message, reply)
    return reply


async def refused(client, message, code, words=""):
    reply = await client.request(message)
    assert reply["type"] == "error" and reply["code"] == code, (message, reply)
    assert words in reply["message"], (words, reply)
    return reply


def rematch(room, new):
    return {"type": "room.rematch", "room": room, "rematch": new}


async def build(owner, seat, bots, settings=None):
    """A waiting room of `settings` with `owner` in `seat` and `bots` ({seat: kind})."""
    room = await create(owner, **(settings or SETTINGS))
    await ok(owner, {"type": "room.join", "room": room, "seat": seat})
    for bot_seat, kind in bots.items():
        await ok(owner, {"type": "room.add_bot", "room": room, "seat": bot_seat, "bot": kind})
    return room


async def finished_game(server):
    """ann (seat 0) and bob (seat 1) against greedy and random; both resign
    and the bots play on to the end. Returns (ann, bob, watcher, room)."""
    ann, bob = await Client.join(server, "ann"), await Client.join(server, "bob")
    room = await build(ann, 0, {2: "greedy", 3: "random"})
    await ok(bob, {"type": "room.join", "room": room, "seat": 1})
    await refused(ann, rematch(room, room), "not_finished", "has not ended")
    await ok(ann, {"type": "room.start", "room": room})
    watcher = await Client.join(server, "watcher")
    await ok(watcher, {"type": "room.join", "room": room, "as": "spectator"})
    await refused(ann, rematch(room, room), "not_finished")
    await ok(ann, {"type": "game.resign", "room": room})
    await ok(bob, {"type": "game.resign", "room": room})
    for client in (ann, bob, watcher):
        await client.expect("game.over", lambda m: m["room"] == room)
    return ann, bob, watcher, room


async def quiet(client):
    """Whether nothing came to `client` since its last read (a ping's pong
    is the first thing it gets)."""
    before = len(client.inbox)
    await ok(client, {"type": "ping"})
    return len(client.inbox) == before


async def test_a_rematch_is_offered_to_the_members_and_accepted_by_taking_the_old_seat(binary):
    async with TesseraServer(binary, *FLAGS) as server:
        ann, bob, watcher, room = await finished_game(server)
        new = await build(ann, 0, {2: "greedy", 3: "random"})
        reply = await ok(ann, rematch(room, new))
        assert reply["type"] == "room" and reply["room"]["id"] == room, reply
        assert reply["room"]["rematch"] == new and reply["room"]["status"] == "finished"
        for member in (bob, watcher):
            event = await member.expect("room", lambda m: m["room"].get("rematch") == new)
            assert event["room"]["id"] == room
        # The same offer again answers ann alone: nobody is told twice.
        again = await ok(ann, rematch(room, new))
        assert again["room"]["rematch"] == new
        assert await quiet(bob) and await quiet(watcher)
        # A page reload of the finished room still shows the offer.
        view = await ok(bob, {"type": "room.join", "room": room, "as": "spectator"})
        assert view["room"]["rematch"] == new
        accepted = await ok(bob, {"type": "room.join", "room": new, "seat": 1})
        seats = accepted["room"]["seats"]
        assert [s["kind"] for s in seats] == ["player", "player", "bot", "bot"], seats
        assert seats[1]["name"] == "bob" and seats[3]["bot"] == "random"
        assert accepted["room"]["options"]["scoring"] == "official"
        started = await ok(ann, {"type": "room.start", "room": new})
        assert started["type"] == "room.started"
        await refused(ann, rematch(room, new), "already_started", "has started")


async def test_a_second_rematch_room_is_refused(binary):
    async with TesseraServer(binary, *FLAGS) as server:
        ann, bob, watcher, room = await finished_game(server)
        first = await build(ann, 0, {2: "greedy", 3: "random"})
        await ok(ann, rematch(room, first))
        second = await build(ann, 0, {2: "greedy", 3: "random"})
        await refused(ann, rematch(room, second), "bad_message", f"rematch is room {first}")
        # bob's own room, offered after ann's: refused the same way.
        own = await build(bob, 1, {2: "greedy", 3: "random"})
        await refused(bob, rematch(room, own), "bad_message", f"rematch is room {first}")


async def test_an_offer_that_is_not_this_games_rematch_is_refused(binary):
    async with TesseraServer(binary, *FLAGS) as server:
        ann, bob, watcher, room = await finished_game(server)
        stranger = await Client.join(server, "stranger")
        good = await build(ann, 0, {2: "greedy", 3: "random"})
        # Who may offer: a player of the finished game, with a room of its own.
        await refused(stranger, rematch(room, good), "not_in_room", "no seat in this game")
        await refused(watcher, rematch(room, good), "not_in_room")
        await refused(bob, rematch(room, good), "not_owner", f"room {good} is not yours")
        await refused(ann, rematch("zzzzzzzz", good), "no_such_room", "zzzzzzzz")
        await refused(ann, rematch(room, "zzzzzzzz"), "no_such_room", "zzzzzzzz")
        # What the room must be: the same game and mode, the offerer seated
        # where it sat, the bots back in their seats, nobody else in bob's.
        duo = await build(ann, 0, {1: "greedy"}, {"game": "blokus", "mode": "duo"})
        await refused(ann, rematch(room, duo), "bad_message", "must be blokus 4p")
        unseated = await create(ann)
        await refused(ann, rematch(room, unseated), "bad_message", "take your seat 0")
        moved = await build(ann, 1, {2: "greedy", 3: "random"})
        await refused(ann, rematch(room, moved), "bad_message", "take your seat 0")
        swapped = await build(ann, 0, {2: "random", 3: "greedy"})
        await refused(ann, rematch(room, swapped), "bad_message", "seat 2 of room")
        missing = await build(ann, 0, {2: "greedy"})
        await refused(ann, rematch(room, missing), "bad_message", "seat 3 of room")
        taken = await build(ann, 0, {2: "greedy", 3: "random"})
        await ok(stranger, {"type": "room.join", "room": taken, "seat": 1})
        await refused(ann, rematch(room, taken), "bad_message", "kept for the player")
        # None of that told bob or the watcher anything.
        assert await quiet(bob) and await quiet(watcher)
        assert "rematch" not in (await ok(bob, {"type": "room.join", "room": room,
                                                "as": "spectator"}))["room"]


async def test_malformed_rematch_messages_are_refused(binary):
    async with TesseraServer(binary, *FLAGS) as server:
        ann = await Client.join(server, "ann")
        for message, words in (
            ({"type": "room.rematch", "room": "abcdefgh"}, "missing field 'rematch'"),
            ({"type": "room.rematch", "rematch": "abcdefgh"}, "missing field 'room'"),
            (rematch("abcdefgh", 7), "'rematch' must be a string"),
            (rematch("abcdefgh", ""), "'rematch' must be 1 to 16 bytes"),
            (rematch("abcdefgh", "x" * 17), "'rematch' must be 1 to 16 bytes"),
            (dict(rematch("abcdefgh", "abcdefgh"), seat=1), "unknown field 'seat'"),
        ):
            await refused(ann, message, "bad_message", words)
        guest = Client(await server.connect(), "nobody")
        await refused(guest, rematch("abcdefgh", "abcdefgh"), "unauthorized", "say hello first")


if __name__ == "__main__":
    run_tests(globals())
