#!/usr/bin/python3
"""bot_rooms.py -- bots under load: turn-to-move latency, then the stop.

Starts `tessera serve` with its default bot settings (MCTS 300 ms a move,
3 searches at once on libuv's pool), creates ROOMS 4-player rooms of four
MCTS bots and starts them, and watches them all for SECONDS: for every
bot move, the time from its turn beginning (the previous move of the room
reaching the watcher, or the start) to the move reaching the watcher.
Prints p50/p99/max of that against the goal (think time + 250 ms), then
sends SIGTERM and prints how long the server took to exit (goal 2 s).
Run with Debian's python3 (python3-websockets):

    /usr/bin/python3 bench/bot_rooms.py --tessera build-release/tessera --rooms 200 [--bot mcts-v2]

It prints figures; it asserts nothing.
"""

import argparse
import asyncio
import json
import os
import signal
import sys
import time

import websockets

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from tessera_server import TesseraServer, ask  # noqa: E402

THINK_MS = 300


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def drain(connection):
    """Reads `connection` until it closes."""
    try:
        async for _ in connection:
            pass
    except websockets.ConnectionClosed:
        pass


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--rooms", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--bot", default="mcts", choices=("mcts", "mcts-v2"),
                        help="the search bot in every seat")
    arguments = parser.parse_args()
    flags = ("--rate", "1000000", "--burst", "1000000", "--max-rooms-per-player", "1000000",
             "--log-level", "warn")
    server = await TesseraServer(arguments.tessera, *flags).start()
    try:
        watcher = await server.connect(max_size=2 ** 24)
        turn_began = {}
        waits = []

        def note(event):
            if event.get("type") != "game.moved":
                return
            now = time.monotonic()
            room = event["room"]
            if room in turn_began:
                waits.append((now - turn_began[room]) * 1000)
            turn_began[room] = now

        await ask(watcher, {"type": "hello", "name": "watcher"})
        for _ in range(arguments.rooms):
            room = (await ask(watcher, {"type": "room.create", "game": "blokus", "mode": "4p"},
                              note))["room"]["id"]
            for seat in range(4):
                await ask(watcher, {"type": "room.add_bot", "room": room, "seat": seat,
                                    "bot": arguments.bot}, note)
            await ask(watcher, {"type": "room.start", "room": room}, note)
            turn_began[room] = time.monotonic()
        deadline = time.monotonic() + arguments.seconds
        while time.monotonic() < deadline:
            try:
                note(json.loads(await asyncio.wait_for(watcher.recv(), 1)))
            except asyncio.TimeoutError:
                pass
        print(f"bot rooms       {arguments.rooms} x 4 {arguments.bot} bots, {THINK_MS} ms think, "
              f"{arguments.seconds:.0f} s watched, {len(waits)} bot moves")
        print(f"turn to move    p50 {percentile(waits, 0.5):.0f} ms, "
              f"p99 {percentile(waits, 0.99):.0f} ms, max {max(waits):.0f} ms "
              f"(goal p99 <= {THINK_MS + 250} ms)")
        # The watcher goes on reading while the server stops, as a client does:
        # a connection that stops reading is a slow reader, which the server
        # waits for until its shutdown deadline (4 s).
        draining = asyncio.create_task(drain(watcher))
        started = time.monotonic()
        status = await server.stop(signal.SIGTERM, timeout=30)
        draining.cancel()
        print(f"SIGTERM         exit {status} after {time.monotonic() - started:.2f} s "
              f"(goal 2 s)")
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()


if __name__ == "__main__":
    asyncio.run(main())
