"""test_sdk_moved.py -- the Python bot SDK on a server of several instances.

The SDK follows `moved` (docs/PROTOCOL.md): a bot told its room up front
connects to /ws?room=CODE; a `moved` answer to its room.join, or a `moved`
event mid-game, makes it reconnect to the url named after retry_ms, say
hello with its token and join again, and it plays its game to the end
(quick play's `moved`, likewise, with queue.join again); a room that keeps
moving is given up after 8 moves in a row, each return to
the same place waited for longer. One real server stands for every
instance, behind a stub proxy (moved_proxy.py) that says `moved` where a
test wants it.
"""

import asyncio
import itertools
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from moved_proxy import MovingProxy  # noqa: E402
from tessera_server import TesseraServer, ask, run_tests  # noqa: E402
from test_bot_sdk import (GAME_TIMEOUT_S, add_bot_account,  # noqa: E402
                          duo_against_greedy_watched, example_takes_a_seat)
from tessera_bot import Bot, RequestError  # noqa: E402

MAX_MOVES = 8


def first_legal(state, legal_moves):
    return legal_moves[0]


async def test_an_example_told_its_room_connects_to_the_rooms_instance(binary):
    async with TesseraServer(binary) as server, MovingProxy(server.port) as proxy:
        code = await example_takes_a_seat(binary, server, proxy.ws_url())
        assert [record.path for record in proxy.connections] == [f"/ws?room={code}"]


async def test_a_joined_room_that_moved_is_followed_and_played_to_the_end(binary):
    """The lobby's instance serves no room: the bot's room.join there is
    answered `moved` to instance x with retry_ms 200; the bot (a bot
    account) reconnects there, says hello with its key, joins again, and
    plays the game the room's owner starts."""
    lobby = "/ws"

    def move_to(message, record):
        return "x" if message["type"] == "room.join" and record.path == lobby else None

    async with TesseraServer(binary) as server, \
            MovingProxy(server.port, move_to, retry_ms=200) as proxy, \
            server.connect() as owner:
        await ask(owner, {"type": "hello", "name": "owner"})
        created = await ask(owner, {"type": "room.create", "game": "blokus", "mode": "duo",
                                    "seed": 4})
        code = created["room"]["id"]
        key = add_bot_account(binary, server, "moved-bot")
        async with Bot(first_legal, proxy.ws_url(lobby), key=key) as bot:
            joined = await bot.join_room(code, 1)
            assert joined["id"] == code and joined["seats"][1]["player_id"] == bot.player_id
            first, second = proxy.connections
            assert second.path == f"/ws?room={code}&instance=x", second.path
            assert second.opened_at - first.moved_at >= 0.2
            await asyncio.wait_for(first.client.wait_closed(), 5)
            assert second.sent[0]["type"] == "hello" and second.sent[0]["key"] == key
            assert {field: second.sent[1][field] for field in ("type", "room", "seat")} == \
                {"type": "room.join", "room": code, "seat": 1}, second.sent
            await ask(owner, {"type": "room.add_bot", "room": code, "seat": 0, "bot": "greedy"})
            await ask(owner, {"type": "room.start", "room": code})
            result = await asyncio.wait_for(bot.wait_game_over(code), GAME_TIMEOUT_S)
        assert result["reason"] == "no_moves", result
        assert bot.session.moves_followed == 1 and bot.session.reconnects == 0
        assert len(proxy.connections) == 2
        assert sum(message["type"] == "game.move" for message in second.sent) > 5


async def test_a_moved_event_mid_game_is_followed_and_the_game_goes_on(binary):
    """Another instance takes the room over on the third turn of a guest
    bot: it gets a `moved` event, reconnects to instance y with its token,
    joins as a spectator (its seat is kept), and plays every later turn."""
    async with TesseraServer(binary) as server, MovingProxy(server.port) as proxy:
        turns = []

        async def choose(state, legal_moves):
            turns.append(state.ply)
            if len(turns) == 3:
                await proxy.send_moved(proxy.connections[0], state["room"], "y")
            return legal_moves[0]

        async with Bot(choose, proxy.ws_url(), name="taken-over") as bot:
            code, _, watcher = await duo_against_greedy_watched(bot, server)
        first, second = proxy.connections
        assert second.path == f"/ws?room={code}&instance=y", second.path
        assert second.sent[0]["type"] == "hello" and second.sent[0]["token"] == bot.token
        assert second.sent[1]["type"] == "room.join" and second.sent[1]["room"] == code
        assert bot.session.moves_followed == 1
        ours = watcher.moves_of(0)
        assert len(ours) > 5 and all("cause" not in move for move in ours), ours
        assert any(message["type"] == "game.move" for message in second.sent)


async def test_quick_play_that_moved_is_followed_and_joined_again(binary):
    """Quick play lives on instance q: the bot's queue.join on the lobby's
    instance is answered `moved` (no room); it reconnects to
    /ws?instance=q and queues there. Then q loses quick play (a `moved`
    event): the bot follows to r and queues again with the same request."""
    lobby = "/ws"

    def move_to(message, record):
        return "q" if message["type"] == "queue.join" and record.path == lobby else None

    async with TesseraServer(binary) as server, MovingProxy(server.port, move_to) as proxy:
        async with Bot(first_legal, proxy.ws_url(lobby), name="queued") as bot:
            joined = await bot.request({"type": "queue.join", "game": "blokus", "mode": "duo"})
            assert joined["type"] == "queue.joined", joined
            # (A guest never stored is unknown there: it signs in anew, as a guest.)
            there = proxy.connections[-1]
            assert {record.path for record in proxy.connections[1:]} == {"/ws?instance=q"}
            assert [message["type"] for message in there.sent] == ["hello", "queue.join"]
            count = len(proxy.connections)
            await proxy.send_moved(there, None, "r")
            moved_on = (await proxy.until_connections(count + 1))[count]
            assert moved_on.path == "/ws?instance=r", moved_on.path
            await proxy.until_sent(moved_on, lambda sent: any(message["type"] == "queue.join"
                                                              for message in sent))
            assert bot.session.moves_followed == 2


async def test_a_room_that_keeps_moving_is_given_up_after_8_moves(binary):
    """Every instance sends the room on, to a and b in turn: the bot follows
    8 moves, waiting 250 ms (doubling) before each place it was sent to
    already, then its room.join fails with the code "moved"."""
    places = itertools.cycle("ab")

    def move_to(message, record):
        return next(places) if message["type"] == "room.join" else None

    async with TesseraServer(binary) as server, MovingProxy(server.port, move_to) as proxy:
        key = add_bot_account(binary, server, "ping-pong")
        async with Bot(first_legal, proxy.ws_url(), key=key) as bot:
            created = await bot.request({"type": "room.create", "game": "blokus",
                                         "mode": "duo"})
            code = created["room"]["id"]
            try:
                await bot.join_room(code, 0)
                raise AssertionError("the join should have been given up")
            except RequestError as error:
                assert error.code == "moved", error.error
                assert f"moved {MAX_MOVES} times in a row" in str(error), error
            assert bot.session.moves_followed == MAX_MOVES
            # The connection stays up, in the lobby.
            listed = await bot.request({"type": "rooms.list"})
            assert listed["type"] == "rooms", listed
        records = proxy.connections
        assert [record.path[-1] for record in records[1:]] == list("abababab"), \
            [record.path for record in records]
        least = [0, 0, 0.25, 0.25, 0.5, 0.5, 1, 1]
        for move, wait in enumerate(least):
            waited = records[move + 1].opened_at - records[move].moved_at
            assert waited >= wait, (move, waited, wait)


if __name__ == "__main__":
    run_tests(globals())
