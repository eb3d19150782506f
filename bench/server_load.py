#!/usr/bin/python3
"""server_load.py -- moves per second and move latency of a real `tessera serve`.

Starts the server on a free port with a fresh database (or uses --url), then
plays GAMES concurrent Duo games, two websocket clients each, every move the
first legal one from game.moves. Reports completed games, moves per second
through the whole stack (decode, rules, SQLite commit, broadcast), and the
round trip of game.move -> game.moved as the mover sees it. It prints
figures; it asserts nothing. The clients share one Python process, so at
high loads the figure may be the client's limit: watch the server's CPU.

usage: bench/server_load.py --tessera build-release/tessera [--games 50]
"""

import argparse
import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from tessera_server import TesseraServer  # noqa: E402

import websockets  # noqa: E402


class Player:
    def __init__(self, connection):
        self.connection = connection
        self.next_id = 1

    async def request(self, message):
        message = dict(message, id=self.next_id)
        self.next_id += 1
        await self.connection.send(json.dumps(message))
        while True:
            reply = json.loads(await self.connection.recv())
            if reply.get("id") == message["id"]:
                return reply


async def sign_in(url, name):
    player = Player(await websockets.connect(url, max_size=2 ** 22))
    await player.request({"type": "hello", "name": name})
    return player


async def play_game(url, index, latencies):
    a, b = await sign_in(url, f"a{index}"), await sign_in(url, f"b{index}")
    room = (await a.request({"type": "room.create", "game": "blokus", "mode": "duo"}))["room"]["id"]
    await a.request({"type": "room.join", "room": room, "seat": 0})
    await b.request({"type": "room.join", "room": room, "seat": 1})
    await a.request({"type": "room.start", "room": room})
    players, ply, moves = (a, b), 0, 0
    while True:
        mover = players[ply % 2]
        offered = await mover.request({"type": "game.moves", "room": room})
        if offered.get("type") != "game.moves" or not offered["moves"]:
            other = await players[(ply + 1) % 2].request({"type": "game.moves", "room": room})
            if other.get("type") != "game.moves" or not other["moves"]:
                break  # neither can move: the game is over
            mover, offered = players[(ply + 1) % 2], other
        started = time.perf_counter()
        reply = await mover.request({"type": "game.move", "room": room, "ply": offered["ply"],
                                     "action": offered["moves"][0]})
        latencies.append(time.perf_counter() - started)
        if reply.get("type") != "game.moved":
            raise RuntimeError(f"move refused: {reply}")
        ply, moves = offered["ply"] + 1, moves + 1
    await a.connection.close()
    await b.connection.close()
    return moves


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


async def run(url, games):
    latencies = []
    started = time.perf_counter()
    moves = await asyncio.gather(*(play_game(url, i, latencies) for i in range(games)))
    elapsed = time.perf_counter() - started
    total = sum(moves)
    run.elapsed = elapsed
    print(f"games            {games} concurrent Duo games, {total} moves in {elapsed:.2f} s")
    print(f"throughput       {total / elapsed:.0f} moves/s (each: decode, check, commit, broadcast)")
    print(f"move round trip  p50 {percentile(latencies, 0.5) * 1000:.2f} ms, "
          f"p99 {percentile(latencies, 0.99) * 1000:.2f} ms")


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tessera", help="tessera binary to start (on a free port)")
    parser.add_argument("--url", help="an already running server, e.g. ws://127.0.0.1:8080/ws")
    parser.add_argument("--games", type=int, default=50)
    arguments = parser.parse_args()
    if arguments.url:
        await run(arguments.url, arguments.games)
        return
    if not arguments.tessera:
        parser.error("give --tessera or --url")
    flags = ("--rate", "1000000", "--burst", "1000000", "--connections-per-ip", "100000",
             "--log-level", "warn")
    before = os.times()
    async with TesseraServer(arguments.tessera, *flags) as server:
        await run(server.ws_url(), arguments.games)
    after = os.times()  # the server has exited: its CPU time is in `children`
    server_cpu = (after.children_user - before.children_user
                  + after.children_system - before.children_system)
    print(f"server CPU       {server_cpu:.2f} s for {run.elapsed:.2f} s of play "
          f"({100 * server_cpu / run.elapsed:.0f}% of one core; the rest is the clients)")


if __name__ == "__main__":
    asyncio.run(main())
