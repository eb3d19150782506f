"""test_clock.py -- a player who stays and never moves cannot keep a game,
or the server, going.

The attack of issue 16 (item 2), over real sockets: a guest creates a Duo
with a one-second clock and the `pass` timeout policy, seats the greedy
bot, starts, plays one move and then never again -- staying connected, or
gone. Every later turn of that seat times out; its third timeout in a row
resigns it (PROTOCOL.md, "Clocks and timeout policies"), so the game ends
after a bounded number of plies. Before, the seat passed forever: once the
bot had no moves left, a tick handled the room again and again at the
same instant, /healthz and every client went unanswered, the log grew by
thousands of passes a second and SIGTERM could not stop the server.

Here: both variants run at once (no increment, connected; an increment,
disconnected), a spectator of each sees it end, /healthz is probed all
along and must answer every time within HEALTHZ_LIMIT_S, the games' stored
logs are short, and the server exits 0 on SIGTERM (TesseraServer's exit).
"""

import asyncio
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_live_play import FAST, Client, create_room, play_first_legal  # noqa: E402
from test_history import get  # noqa: E402

GAME_OVER_WAIT_S = 20
HEALTHZ_LIMIT_S = 1.0
PROBE_EVERY_S = 0.05
TIMEOUTS_TO_RESIGN = 3
# One move of the attacker, the bot's answers, two timeout passes and the
# resignation: a little room for the bot, none for a runaway log.
MAX_STORED_MOVES = 10


async def start_attack(server, name, clock):
    """The attacker's room, started, after its one move: (attacker, room, spectator)."""
    attacker = await Client.join(server, name)
    room = await create_room(attacker, game="blokus", mode="duo", clock=clock, timeout="pass")
    await attacker.request({"type": "room.join", "room": room, "seat": 0})
    await attacker.request({"type": "room.add_bot", "room": room, "seat": 1, "bot": "greedy"})
    await attacker.request({"type": "room.start", "room": room})
    spectator = await Client.join(server, f"{name} watcher")
    await spectator.request({"type": "room.join", "room": room, "as": "spectator"})
    await play_first_legal(attacker, room, 0)
    return attacker, room, spectator


async def probe_healthz(server, stop):
    """Asks /healthz until `stop`; returns every answer's time. A pace of
    probes, not a wait for something: the server must answer each."""
    took = []
    while not stop.is_set():
        started = time.monotonic()
        status, _, _ = await server.http("GET", "/healthz", timeout=5)
        took.append(time.monotonic() - started)
        assert status == 200, status
        try:
            await asyncio.wait_for(stop.wait(), PROBE_EVERY_S)
        except asyncio.TimeoutError:
            pass
    return took


async def watch_the_end(spectator, room):
    """The spectator's view of the game's end: its timeouts and its resignation."""
    over = await asyncio.wait_for(spectator.expect("game.over"), GAME_OVER_WAIT_S)
    moved = [m for m in spectator.inbox if m.get("type") == "game.moved" and m["room"] == room]
    resigned = [m for m in spectator.inbox if m.get("type") == "game.resigned"]
    return over, moved, resigned


async def test_an_idle_seat_with_an_empty_clock_cannot_freeze_the_server(binary):
    async with TesseraServer(binary, *FAST) as server:
        stop = asyncio.Event()
        probe = asyncio.create_task(probe_healthz(server, stop))
        idle, idle_room, idle_watcher = await start_attack(server, "idle", {"initial_ms": 1000})
        gone, gone_room, gone_watcher = await start_attack(
            server, "gone", {"initial_ms": 1000, "increment_ms": 500})
        await gone.close()
        ends = await asyncio.gather(watch_the_end(idle_watcher, idle_room),
                                    watch_the_end(gone_watcher, gone_room))
        stop.set()
        took = await probe
        for over, moved, resigned in ends:
            assert over["result"]["reason"] == "resignations", over
            assert over["result"]["winners"] == [1], over
            assert [(m["seat"], m.get("cause")) for m in resigned] == [(0, "timeout")], resigned
            timeouts = [m for m in moved if m.get("cause") == "timeout"]
            assert len(timeouts) == TIMEOUTS_TO_RESIGN - 1, moved
            assert all(m["seat"] == 0 and m["action"] == {"pass": True} for m in timeouts), moved
        games = (await get(server, "/api/games?limit=10"))["items"]
        assert len(games) == 2, games
        for game in games:
            stored = await get(server, f"/api/games/{game['id']}")
            assert stored["status"] == "finished", stored
            assert stored["moves"] <= MAX_STORED_MOVES, stored
        took.sort()
        print(f"  /healthz during the attack: {len(took)} answers, "
              f"p50 {took[len(took) // 2] * 1000:.1f} ms, max {took[-1] * 1000:.1f} ms")
        assert took[-1] < HEALTHZ_LIMIT_S, took[-1]
        await idle.close()


if __name__ == "__main__":
    run_tests(globals())
