"""test_live_play.py -- whole games over real websockets against `tessera serve`.

Every test starts the real server (port 0, a fresh database) and plays
through the protocol exactly as a browser or a bot would: hello, rooms,
seats, moves, and the events everyone in the room receives. Clients never
sleep to synchronize; they wait for the message they expect.
"""

import asyncio
import json
import os
import signal
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests, RestartableServer  # noqa: E402
from stored_moves import wire_action  # noqa: E402
from ws_client import Client, WAIT_S  # noqa: E402

# Games here are played as fast as the event loop allows: two requests per
# move is far past the default 20 messages/s, so these servers allow more.
FAST = ("--rate", "100000", "--burst", "100000")


async def create_room(owner, **settings):
    reply = await owner.request(dict({"type": "room.create"}, **settings))
    assert reply["type"] == "room", reply
    return reply["room"]["id"]


async def seat_players(room, clients, owner):
    await take_seats(room, clients)
    started = await owner.request({"type": "room.start", "room": room})
    assert started["type"] == "room.started", started


async def take_seats(room, clients):
    """Seats clients[i] in seat i of the waiting `room`."""
    for seat, client in enumerate(clients):
        reply = await client.request({"type": "room.join", "room": room, "seat": seat})
        assert reply["type"] == "room", reply
        # A guest is stored, and gets its id, when it first takes a seat.
        client.player_id = reply["room"]["seats"][seat]["player_id"]
        assert isinstance(client.player_id, int) and client.player_id > 0


async def play_first_legal(client, room, ply):
    moves = await client.request({"type": "game.moves", "room": room})
    assert moves["type"] == "game.moves" and moves["moves"], moves
    reply = await client.request({"type": "game.move", "room": room, "ply": ply,
                                  "action": moves["moves"][0]})
    assert reply["type"] == "game.moved", reply
    return reply


async def watch(server, room):
    """A spectator of `room`: its event stream is what everyone saw."""
    watcher = await Client.join(server, "watcher")
    reply = await watcher.request({"type": "room.join", "room": room, "as": "spectator"})
    assert reply["type"] == "room", reply
    return watcher


async def play_blokus_to_the_end(clients, watcher, room, mover_seats=None):
    """After each position the watcher sees, the seat to move plays its
    first legal move (seats outside `mover_seats` are bots: just wait)."""
    while True:
        state = await watcher.expect("game.state", lambda m: m["room"] == room)
        if state["to_move"] is None:
            return await watcher.expect("game.over")
        seat = state["to_move"]["seat"]
        if mover_seats is None or seat in mover_seats:
            await play_first_legal(clients[seat], room, state["ply"])


async def blokus_game_of_humans(binary, mode, players):
    async with TesseraServer(binary, *FAST) as server:
        clients = [await Client.join(server, f"p{i}") for i in range(players)]
        room = await create_room(clients[0], game="blokus", mode=mode)
        watcher = await watch(server, room)
        await seat_players(room, clients, clients[0])
        over = await play_blokus_to_the_end(clients, watcher, room)
        seen = [m for m in watcher.inbox if m.get("type") == "game.moved"]
        assert len(seen) > 8 and [m["ply"] for m in seen] == list(range(len(seen)))
        assert len(over["result"]["scores"]) == players
        assert min(over["result"]["ranks"]) == 1
        for client in clients:
            got = await client.expect("game.over")
            assert got["result"] == over["result"]
            await client.close()


async def instant_bot(client, room, seat):
    """Answers every turn at once with game.moves then game.move, the way a
    fast bot does; returns every error it was sent."""
    errors = []
    while True:
        message = await client._receive()
        kind = message.get("type")
        if kind == "error":
            errors.append(message)
        elif kind == "game.over":
            return errors
        elif kind == "game.state" and (message.get("to_move") or {}).get("seat") == seat:
            await client.send({"type": "game.moves", "room": room, "id": "moves"})
        elif kind == "game.moves" and message["moves"]:
            await client.send({"type": "game.move", "room": room, "ply": message["ply"],
                               "action": message["moves"][0]})


async def test_instant_bots_play_a_whole_2p_game_within_the_default_rate_limit(binary):
    async with TesseraServer(binary) as server:  # the default limits: 20/s, burst 40
        a, b = await Client.join(server, "fast-a"), await Client.join(server, "fast-b")
        room = await create_room(a, game="blokus", mode="2p")
        await seat_players(room, [a, b], a)
        a.inbox.clear()
        b.inbox.clear()
        errors = await asyncio.gather(instant_bot(a, room, 0), instant_bot(b, room, 1))
        assert errors == [[], []], errors  # each played ~40 turns of 2 messages, no rate_limited


async def test_a_slow_bot_room_does_not_hold_up_another_rooms_bots(binary):
    """One worker for bots, 600 ms of thinking: three rooms of MCTS bots use
    all of it, room B's greedy bots none. Rooms take turns for the worker
    and a bot's time counts from its turn's start, so every search queued
    ahead of B's ends within 600 ms of B's turn starting: B never waits
    behind a queue of full searches (3 x 600 ms). The bound sits halfway
    between one search and that queue, so a loaded machine (the test's own
    bots share its cores) does not fail it while the queue still would."""
    think_ms, slack_ms = 600, 600
    async with TesseraServer(binary, "--bot-think-ms", str(think_ms), "--bot-jobs", "1",
                             *FAST) as server:
        owner = await Client.join(server, "owner")
        rooms = []
        for mode, bot in (("4p", "mcts"), ("4p", "mcts"), ("4p", "mcts"), ("duo", "greedy")):
            rooms.append(await create_room(owner, game="blokus", mode=mode))
            for seat in range(4 if mode == "4p" else 2):
                await owner.request({"type": "room.add_bot", "room": rooms[-1], "seat": seat,
                                     "bot": bot})
        for room in rooms:
            await owner.request({"type": "room.start", "room": room})
        fast = rooms[-1]
        turn_started = time.monotonic()
        for _ in range(8):
            await owner.expect("game.moved", lambda m: m["room"] == fast)
            now = time.monotonic()
            waited_ms = (now - turn_started) * 1000
            assert waited_ms < think_ms + slack_ms, f"a fast bot waited {waited_ms:.0f} ms"
            turn_started = now


async def test_repeated_requests_are_idempotent_or_refused(binary):
    async with TesseraServer(binary) as server:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        room = await create_room(a, game="blokus", mode="4p")
        watcher = await watch(server, room)
        for seat, client in enumerate((a, b)):
            await client.request({"type": "room.join", "room": room, "seat": seat})
        for seat in (2, 3):
            await a.request({"type": "room.add_bot", "room": room, "seat": seat, "bot": "greedy"})
        started = await a.request({"type": "room.start", "room": room})
        assert started["type"] == "room.started"
        again = await a.request({"type": "room.start", "room": room})
        assert again["code"] == "already_started", again
        # A page refresh: the view comes back to b alone. (The pong shows
        # the watcher has read everything sent to it before.)
        await watcher.request({"type": "ping"})
        watcher.inbox.clear()
        watcher.cursor = 0
        view = await b.request({"type": "room.join", "room": room, "seat": 1})
        assert view["type"] == "room" and view["room"]["seats"][1]["name"] == "bob", view
        pong = await watcher.request({"type": "ping"})
        assert pong["type"] == "pong" and watcher.inbox == [], watcher.inbox
        left = await b.request({"type": "room.leave", "room": room})
        assert left["type"] == "room.left", left
        twice = await b.request({"type": "room.leave", "room": room})
        assert twice["type"] == "error" and twice["code"] == "not_in_room", twice


async def test_rooms_list_needs_hello_and_comes_in_pages(binary):
    async with TesseraServer(binary, *FAST) as server:
        stranger = Client(await server.connect(), "stranger")
        refused = await stranger.request({"type": "rooms.list"})
        assert refused["type"] == "error" and refused["code"] == "unauthorized", refused
        owners = [await Client.join(server, f"o{i}") for i in range(3)]
        for owner in owners:
            for mode in ("4p", "duo", "2p"):
                await create_room(owner, game="blokus", mode=mode)
        seen, cursor = [], None
        while True:
            query = {"type": "rooms.list", "limit": 4}
            if cursor:
                query["cursor"] = cursor
            page = await owners[0].request(query)
            assert page["type"] == "rooms" and len(page["rooms"]) <= 4, page
            seen += [room["id"] for room in page["rooms"]]
            cursor = page["next"]
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) == 9
        duo = await owners[1].request({"type": "rooms.list", "mode": "duo", "status": "waiting"})
        assert len(duo["rooms"]) == 3 and {r["mode"] for r in duo["rooms"]} == {"duo"}


async def test_full_4p_game_of_four_clients(binary):
    await blokus_game_of_humans(binary, "4p", 4)


async def test_full_3p_game(binary):
    await blokus_game_of_humans(binary, "3p", 3)


async def test_full_2p_game(binary):
    await blokus_game_of_humans(binary, "2p", 2)


async def test_full_duo_game(binary):
    await blokus_game_of_humans(binary, "duo", 2)


async def test_bots_in_seats_and_a_spectator_who_sees_every_move(binary):
    async with TesseraServer(binary, *FAST) as server:
        human = await Client.join(server, "human")
        room = await create_room(human, game="blokus", mode="4p")
        watcher = await watch(server, room)
        await human.request({"type": "room.join", "room": room, "seat": 0})
        for seat, bot in ((1, "mcts"), (2, "greedy"), (3, "random")):
            reply = await human.request({"type": "room.add_bot", "room": room, "seat": seat,
                                         "bot": bot})
            assert reply["type"] == "room", reply
        await human.request({"type": "room.start", "room": room})
        over = await play_blokus_to_the_end([human], watcher, room, mover_seats={0})
        assert over["room"] == room
        seen = [m for m in watcher.inbox if m.get("type") == "game.moved"]
        assert [m["ply"] for m in seen] == list(range(len(seen)))
        assert {m["seat"] for m in seen} == {0, 1, 2, 3}
        states = [m for m in watcher.inbox if m.get("type") == "game.state"]
        assert all("hints" not in state for state in states)


async def test_reef_race_of_two_players_and_a_bot(binary):
    async with TesseraServer(binary, *FAST) as server:
        ann = await Client.join(server, "ann")
        bob = await Client.join(server, "bob")
        room = await create_room(ann, game="reef-builder", mode="race", seed=7, max_turns=12)
        await ann.request({"type": "room.join", "room": room})
        await bob.request({"type": "room.join", "room": room})
        await ann.request({"type": "room.add_bot", "room": room, "seat": 2, "bot": "lookahead"})
        await ann.request({"type": "room.start", "room": room})
        for ply in range(12):
            for client in (ann, bob):
                reply = await play_first_legal(client, room, ply)
                assert reply["ply"] == ply
        over = await ann.expect("game.over")
        assert (await bob.expect("game.over"))["result"] == over["result"]
        states = [m for m in bob.inbox if m.get("type") == "game.state"]
        final = states[-1]["boards"]
        assert [board["phase"] for board in final] == ["ended"] * 3
        assert [board["ply"] for board in final] == [12, 12, 12]
        assert over["result"]["scores"] == [board["score"] for board in final]


async def test_refusals_change_nothing(binary):
    async with TesseraServer(binary) as server:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        room = await create_room(a, game="blokus", mode="duo")
        await seat_players(room, [a, b], a)
        first = {"piece": "I2", "orientation": 0, "row": 4, "col": 4}
        cases = [
            (b, {"type": "game.move", "room": room, "ply": 0, "action": first}, "not_your_turn"),
            (a, {"type": "game.move", "room": room, "ply": 5, "action": first}, "stale_ply"),
            (a, {"type": "game.move", "room": room, "ply": 0,
                 "action": {"piece": "I2", "orientation": 0, "row": 0, "col": 0}},
             "illegal_move"),
            (a, {"type": "game.move", "room": room, "ply": 0,
                 "action": {"piece": "Q9", "orientation": 0, "row": 4, "col": 4}}, "bad_message"),
            (a, {"type": "game.move", "room": room, "ply": 0, "action": first, "extra": 1},
             "bad_message"),
            (a, {"type": "teleport"}, "unknown_type"),
            (a, {"type": "game.move", "room": "nosuchrm", "ply": 0, "action": first},
             "no_such_room"),
        ]
        for client, message, code in cases:
            reply = await client.request(message)
            assert reply["type"] == "error" and reply["code"] == code, (message, reply)
        await a.send("{this is not json")
        error = await a.expect("error", lambda m: m["code"] == "bad_json")
        assert "message" in error
        assert a.count("game.moved") == 0 and b.count("game.moved") == 0
        moved = await a.request({"type": "game.move", "room": room, "ply": 0, "action": first})
        assert moved["type"] == "game.moved"
        duplicate = await a.request({"type": "game.move", "room": room, "ply": 0,
                                     "action": first})
        assert duplicate["code"] == "stale_ply"
        await b.expect("game.moved")
        assert b.count("game.moved") == 1


async def test_an_action_of_the_other_game_is_refused_naming_the_rooms_game(binary):
    """A move's action is read by its shape (a "type" makes it a Reef action);
    sent to a room of the other game it is bad_message saying what the room's
    game takes, and nothing is played."""
    async with TesseraServer(binary) as server:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        blokus = await create_room(a, game="blokus", mode="duo")
        await seat_players(blokus, [a, b], a)
        reef = await create_room(a, game="reef-builder", mode="solo", seed=7)
        await a.request({"type": "room.join", "room": reef})
        await a.request({"type": "room.start", "room": reef})
        cases = [
            (blokus, {"type": "place", "row": 4, "col": 4, "orientation": 0},
             "this room plays blokus: an action is {piece, orientation, row, col} or "
             "{cells: [[row, col], ...]}"),
            (blokus, {"type": "skip"}, "this room plays blokus"),
            (reef, {"piece": "I1", "orientation": 0, "row": 0, "col": 0},
             "this room plays reef-builder: an action is "
             "{type:\"place\", row, col, orientation} or {type:\"skip\"}"),
            (reef, {"cells": [[0, 0]]}, "this room plays reef-builder"),
        ]
        for room, action, message in cases:
            reply = await a.request({"type": "game.move", "room": room, "ply": 0,
                                     "action": action})
            assert reply["type"] == "error" and reply["code"] == "bad_message", reply
            assert reply["message"].startswith(message), reply
        assert a.count("game.moved") == 0 and b.count("game.moved") == 0
        first = {"type": "place", "row": 0, "col": 0, "orientation": 0}
        moved = await a.request({"type": "game.move", "room": reef, "ply": 0, "action": first})
        assert moved["type"] == "game.moved" and moved["action"] == first, moved


async def test_oversized_message_closes_only_that_client(binary):
    async with TesseraServer(binary, "--max-message-bytes", "4096") as server:
        big, other = await Client.join(server, "big"), await Client.join(server, "other")
        await big.send(json.dumps({"type": "hello", "name": "x" * 5000}))
        try:
            await asyncio.wait_for(big.connection.recv(), WAIT_S)
            raise AssertionError("the server answered an oversized message")
        except Exception as closed:  # websockets.ConnectionClosed
            assert getattr(closed, "code", None) == 1009, closed
        pong = await other.request({"type": "ping"})
        assert pong["type"] == "pong"


async def test_reconnect_mid_game_returns_seat_and_state(binary):
    async with TesseraServer(binary) as server:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        room = await create_room(a, game="blokus", mode="duo")
        await seat_players(room, [a, b], a)
        await play_first_legal(a, room, 0)
        await b.expect("game.moved")
        await b.close()
        back = Client(await server.connect(), "b")
        welcome = await back.request({"type": "hello", "name": "b", "token": b.token})
        assert welcome["player"]["id"] == b.player_id
        state = await back.expect("game.state")
        assert state["seat"] == 1 and state["ply"] == 1 and "hints" in state
        await play_first_legal(back, room, 1)
        await a.expect("game.moved", lambda m: m["ply"] == 1)


async def test_a_waiting_seat_is_kept_through_a_reconnect(binary):
    """A reload before the start: the guest's socket closes, the seat waits
    for the reconnect grace, and the guest, back with its token, still holds
    it and starts the game."""
    async with TesseraServer(binary) as server:
        guest = await Client.join(server, "ann")
        room = await create_room(guest, game="blokus", mode="duo")
        await take_seats(room, [guest])
        added = await guest.request({"type": "room.add_bot", "room": room, "seat": 1,
                                     "bot": "greedy"})
        assert added["type"] == "room", added
        await guest.close()
        back = Client(await server.connect(), "ann again")
        welcome = await back.request({"type": "hello", "name": "ann", "token": guest.token})
        assert welcome["player"]["id"] == guest.player_id, welcome
        seats = (await back.expect("room"))["room"]["seats"]
        assert seats[0]["player_id"] == guest.player_id and seats[0]["connected"], seats
        started = await back.request({"type": "room.start", "room": room})
        assert started["type"] == "room.started", started
        state = await back.expect("game.state")
        assert state["seat"] == 0 and state["status"] == "playing", state


async def test_a_watching_owner_finds_its_waiting_room_after_a_reload(binary):
    """The owner seats two bots and only watches; its page reloads (the
    socket closes) before the start: the room waits for it for the grace,
    and the owner, back with its token, watches it again and starts it."""
    async with TesseraServer(binary) as server:
        owner = await Client.join(server, "host")
        room = await create_room(owner, game="blokus", mode="duo")
        for seat in (0, 1):
            added = await owner.request({"type": "room.add_bot", "room": room, "seat": seat,
                                         "bot": "greedy"})
            assert added["type"] == "room", added
        await owner.close()
        back = Client(await server.connect(), "host again")
        welcome = await back.request({"type": "hello", "name": "host", "token": owner.token})
        assert welcome["player"]["id"] == owner.player_id, welcome
        watched = await back.request({"type": "room.join", "room": room, "as": "spectator"})
        assert watched["type"] == "room" and watched["room"]["status"] == "waiting", watched
        started = await back.request({"type": "room.start", "room": room})
        assert started["type"] == "room.started", started
        state = await back.expect("game.state")
        assert state["status"] == "playing", state


async def test_a_waiting_seat_away_past_the_grace_is_freed(binary):
    """Past the grace (1 s here) a departed player's waiting seat is given
    up: the others see it empty and can take it."""
    async with TesseraServer(binary, "--reconnect-grace", "1") as server:
        gone, other = await Client.join(server, "gone"), await Client.join(server, "other")
        room = await create_room(gone, game="blokus", mode="duo")
        await take_seats(room, [gone])
        watched = await other.request({"type": "room.join", "room": room, "as": "spectator"})
        assert watched["type"] == "room", watched
        await gone.close()
        away = await other.expect("room")
        assert away["room"]["seats"][0]["connected"] is False, away
        freed = await other.expect("room", lambda m: m["room"]["seats"][0]["kind"] == "empty")
        assert freed["room"]["status"] == "waiting", freed
        taken = await other.request({"type": "room.join", "room": room, "seat": 0})
        assert taken["type"] == "room" and taken["room"]["seats"][0]["name"] == "other", taken


async def test_clock_timeout_plays_for_the_slow_player(binary):
    async with TesseraServer(binary) as server:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        room = await create_room(a, game="blokus", mode="duo", timeout="bot",
                                 clock={"initial_ms": 1000, "increment_ms": 0})
        await seat_players(room, [a, b], a)
        moved = await b.expect("game.moved")  # a never moves: its clock runs out
        assert moved["seat"] == 0 and moved["cause"] == "timeout"
        state = await b.expect("game.state", lambda m: m["ply"] == 1)
        assert state["clocks"][0]["ms"] == 0 and state["to_move"]["seat"] == 1



async def replay_verify(binary, db_path):
    """Runs `tessera replay verify`: (exit status, printed lines)."""
    process = await asyncio.create_subprocess_exec(
        binary, "replay", "verify", "--db", db_path, stdout=asyncio.subprocess.PIPE)
    out, _ = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode, out.decode().splitlines()


async def test_replay_verify_checks_every_stored_game(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-verify-")
    server = await RestartableServer(binary, folder.name).start()
    try:
        a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
        room = await create_room(a, game="blokus", mode="duo")
        watcher = await watch(server, room)
        await seat_players(room, [a, b], a)
        await play_blokus_to_the_end([a, b], watcher, room)
        resigned = await create_room(a, game="blokus", mode="2p")
        for seat, client in enumerate((a, b)):
            await client.request({"type": "room.join", "room": resigned, "seat": seat})
        await a.request({"type": "room.start", "room": resigned})
        await play_first_legal(a, resigned, 0)
        over = await b.request({"type": "game.resign", "room": resigned})
        assert over["type"] == "game.resigned", over
        unfinished = await create_room(a, game="blokus", mode="duo")
        for seat, client in enumerate((a, b)):
            await client.request({"type": "room.join", "room": unfinished, "seat": seat})
        await a.request({"type": "room.start", "room": unfinished})
        await play_first_legal(a, unfinished, 0)
    finally:
        assert await server.stop() == 0
    db_path = os.path.join(folder.name, "t.db")
    status, lines = await replay_verify(binary, db_path)
    assert status == 0, lines
    assert lines[-1] == "3 games checked, 0 failed; 0 submitted Reef runs checked, 0 failed"
    with sqlite3.connect(db_path) as db:  # the first game's result, edited
        db.execute("UPDATE games SET result = replace(result, '\"ranks\":[', "
                   "'\"ranks\":[9,') WHERE id = 1")
    status, lines = await replay_verify(binary, db_path)
    assert status == 1 and "stored result" in lines[0] and lines[-1].startswith("3 games checked, 1 failed;"), lines
    with sqlite3.connect(db_path) as db:  # a move of the unfinished game, forged
        db.execute("UPDATE moves SET action = 'X 0 0 0' WHERE game_id = 3 AND seq = 0")
    status, lines = await replay_verify(binary, db_path)
    assert status == 1 and any("does not replay" in line for line in lines), lines
    assert lines[-1] == "3 games checked, 2 failed; 0 submitted Reef runs checked, 0 failed", \
        lines
    status, _ = await replay_verify(binary, os.path.join(folder.name, "missing.db"))
    assert status == 2
    folder.cleanup()


async def bots_play_a_game(owner, mode, seats):
    """A room of greedy bots plays `mode` to its end, watched by `owner`."""
    room = await create_room(owner, game="blokus", mode=mode)
    for seat in range(seats):
        await owner.request({"type": "room.add_bot", "room": room, "seat": seat, "bot": "greedy"})
    await owner.request({"type": "room.start", "room": room})
    return await owner.expect("game.over", lambda m: m["room"] == room)


def sgf_moves(text):
    """The (color property, sorted cells) of each move node of an SGF."""
    import re
    return [(color, sorted(cells.split(","))) for color, cells in
            re.findall(r";([BW1-4])\[([a-t0-9,]+)\]", text)]


async def test_sgf_export_opens_in_pentobi_and_is_the_stored_game(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-sgf-")
    server = await RestartableServer(binary, folder.name).start()
    modes = (("4p", 4), ("3p", 3), ("2p", 2), ("duo", 2))
    try:
        owner = await Client.join(server, "owner")
        for mode, seats in modes:
            await bots_play_a_game(owner, mode, seats)
    finally:
        assert await server.stop() == 0
    printed = await asyncio.create_subprocess_exec(binary, "pieces", stdout=asyncio.subprocess.PIPE)
    shapes = {(o["piece"], o["orientation"]): o["cells"]
              for o in json.loads((await printed.communicate())[0])}
    db_path = os.path.join(folder.name, "t.db")
    with sqlite3.connect(db_path) as db:
        stored = {game: [wire_action("blokus", action) for (action,) in db.execute(
            "SELECT action FROM moves WHERE game_id = ? ORDER BY seq", (game,))]
            for game in range(1, len(modes) + 1)}
    for game, (mode, _) in enumerate(modes, start=1):
        process = await asyncio.create_subprocess_exec(
            binary, "replay", "export", str(game), "--db", db_path, stdout=asyncio.subprocess.PIPE)
        text = (await process.communicate())[0].decode()
        assert process.returncode == 0 and text.startswith("(;FF[4]"), text[:200]
        variant = {"4p": "Blokus", "3p": "Blokus Three-Player", "2p": "Blokus Two-Player",
                   "duo": "Blokus Duo"}[mode]
        assert f"GM[{variant}]" in text, text[:200]
        sgf_path = os.path.join(folder.name, f"{mode}.blksgf")
        with open(sgf_path, "w") as out:
            out.write(text)
        png_path = os.path.join(folder.name, f"{mode}.png")
        thumbnailer = await asyncio.create_subprocess_exec(
            "/usr/games/pentobi-thumbnailer", "-s", "128", sgf_path, png_path,
            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"),
            stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        assert await thumbnailer.wait() == 0, f"Pentobi does not open the {mode} export"
        assert os.path.getsize(png_path) > 0
        # The file read back is the stored game: the same placements in the same order.
        size = 14 if mode == "duo" else 20
        want = []
        for action in stored[game]:
            if "piece" not in action:
                continue  # passes are not written; resignations and leaves are not moves
            cells = shapes[(action["piece"], action["orientation"])]
            want.append(sorted(f"{chr(ord('a') + action['col'] + dc)}{size - action['row'] - dr}"
                               for dr, dc in cells))
        assert [cells for _, cells in sgf_moves(text)] == want, mode
    folder.cleanup()


async def test_kill_9_mid_game_loses_no_move_anyone_saw(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-restart-")
    first = await RestartableServer(binary, folder.name).start()
    a, b = await Client.join(first, "ann"), await Client.join(first, "bob")
    room = await create_room(a, game="blokus", mode="duo")
    watcher = await watch(first, room)
    await seat_players(room, [a, b], a)
    for ply in range(6):
        await play_first_legal(a if ply % 2 == 0 else b, room, ply)
    await watcher.expect("game.moved", lambda m: m["ply"] == 5)
    seen = [m["action"] for m in watcher.inbox if m.get("type") == "game.moved"]
    assert await first.stop(signal.SIGKILL) == -signal.SIGKILL
    second = await RestartableServer(binary, folder.name).start()
    try:
        back_a = Client(await second.connect(), "a")
        await back_a.request({"type": "hello", "name": "a", "token": a.token})
        state = await back_a.expect("game.state")
        assert state["ply"] == len(seen) == 6 and state["seat"] == 0
        back_watcher = Client(await second.connect(), "watcher")
        # The watcher never sat, so it was never stored: it signs in anew.
        refused = await back_watcher.request({"type": "hello", "name": "w",
                                              "token": watcher.token})
        assert refused["type"] == "error" and refused["code"] == "unauthorized"
        await back_watcher.request({"type": "hello", "name": "watcher"})
        await back_watcher.request({"type": "room.join", "room": room, "as": "spectator"})
        await play_first_legal(back_a, room, 6)
        moved = await back_watcher.expect("game.moved")
        assert moved["ply"] == 6
    finally:
        assert await second.stop() == 0
        folder.cleanup()


async def test_sigint_stops_a_server_with_a_game_in_progress(binary):
    server = await TesseraServer(binary).start()
    a, b = await Client.join(server, "ann"), await Client.join(server, "bob")
    room = await create_room(a, game="blokus", mode="duo")
    await seat_players(room, [a, b], a)
    assert await server.stop(signal.SIGINT) == 0


async def test_bot_account_signs_in_with_its_key(binary):
    async with TesseraServer(binary) as server:
        made = await asyncio.create_subprocess_exec(
            binary, "bot", "add", "arena-bot", "--db", server.db_path,
            stdout=asyncio.subprocess.PIPE)
        output = (await made.communicate())[0].decode()
        assert made.returncode == 0, output
        key = output.split("key ")[1].strip()
        bot = Client(await server.connect(), "arena-bot")
        welcome = await bot.request({"type": "hello", "name": "x", "bot": True, "key": key})
        assert welcome["player"] == {"id": welcome["player"]["id"], "name": "arena-bot",
                                     "bot": True}
        assert "token" not in welcome
        impostor = Client(await server.connect(), "impostor")
        refused = await impostor.request({"type": "hello", "name": "x", "bot": True,
                                          "key": "0" * 48})
        assert refused["code"] == "unauthorized"


async def test_bot_add_finds_the_database_as_serve_does(binary):
    """`tessera bot add --config F` writes where F says; a server on that
    database then knows the bot."""
    folder = tempfile.TemporaryDirectory(prefix="tessera-bot-")
    server = RestartableServer(binary, folder.name)
    config = os.path.join(folder.name, "tessera.conf")
    with open(config, "w") as file:
        file.write(f"db = {server.db_path}\n")
    made = await asyncio.create_subprocess_exec(binary, "bot", "add", "conf-bot", "--config",
                                                config, stdout=asyncio.subprocess.PIPE)
    output = (await made.communicate())[0].decode()
    assert made.returncode == 0, output
    key = output.split("key ")[1].strip()
    await server.start()
    try:
        bot = Client(await server.connect(), "conf-bot")
        welcome = await bot.request({"type": "hello", "name": "x", "bot": True, "key": key})
        assert welcome["type"] == "welcome" and welcome["player"]["name"] == "conf-bot", welcome
    finally:
        assert await server.stop() == 0
        folder.cleanup()


async def test_reef_api_plays_a_scripted_game_to_its_end(binary):
    async with TesseraServer(binary) as server:
        status, _, body = await server.http("GET", "/api/games/reef-builder/init?seed=7")
        assert status == 200, body
        reply = json.loads(body)
        assert reply["state"]["phase"] == "playing" and reply["state"]["skipsLeft"] == 3
        score = 0
        while reply["legalActions"]:
            action = reply["legalActions"][0]  # the script: always the first legal action
            status, _, body = await server.http(
                "POST", "/api/games/reef-builder/action",
                json.dumps({"state": reply["state"], "action": action}).encode())
            assert status == 200, body
            reply = json.loads(body)
            score = max(0, score + reply["result"]["points"])
            assert reply["state"]["score"] == score
            assert reply["state"]["turn"] < 2000
        assert reply["state"]["phase"] == "ended"


async def test_orientation_table_is_served_as_the_cli_prints_it(binary):
    printed = await asyncio.create_subprocess_exec(binary, "pieces",
                                                   stdout=asyncio.subprocess.PIPE)
    table = json.loads((await printed.communicate())[0])
    async with TesseraServer(binary) as server:
        status, headers, body = await server.http("GET", "/api/games/blokus/pieces")
        assert status == 200 and headers["content-type"].startswith("application/json")
        served = json.loads(body)
        assert served == table and len(served) == 91
        assert {o["piece"] for o in served} >= {"I1", "F", "X", "Z5"}


async def test_reef_api_refuses_illegal_and_tampered(binary):
    async with TesseraServer(binary) as server:
        _, _, body = await server.http("GET", "/api/games/reef-builder/init?seed=1")
        state = json.loads(body)["state"]
        place = {"type": "place", "row": 0, "col": 0, "orientation": 0}
        _, _, body = await server.http("POST", "/api/games/reef-builder/action",
                                       json.dumps({"state": state, "action": place}).encode())
        after = json.loads(body)["state"]
        status, _, body = await server.http(
            "POST", "/api/games/reef-builder/action",
            json.dumps({"state": after, "action": place}).encode())
        assert status == 422 and json.loads(body)["error"]["code"] == "occupied", body
        forged = dict(after, score=999999)
        status, _, body = await server.http(
            "POST", "/api/games/reef-builder/action",
            json.dumps({"state": forged, "action": {"type": "skip"}}).encode())
        assert status == 422 and json.loads(body)["error"]["code"] == "tampered_state", body


if __name__ == "__main__":
    run_tests(globals())
