#!/usr/bin/python3
"""finished_rooms.py -- server memory per finished room.

Starts `tessera serve` (fresh database), signs one client in, then plays
N one-seat Reef Builder games to their end (create, join, start, resign),
so N finished rooms stay on display. Prints the server's RSS before and
after and the difference per room. Run it with Debian's python3 (it needs
python3-websockets):

    /usr/bin/python3 bench/finished_rooms.py --tessera build-release/tessera --rooms 5000

It prints figures; it asserts nothing.
"""

import argparse
import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from tessera_server import TesseraServer, ask  # noqa: E402


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


async def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--rooms", type=int, default=5000)
    arguments = parser.parse_args()
    flags = ("--rate", "1000000", "--burst", "1000000", "--max-rooms-per-player", "1000000",
             "--log-level", "warn")
    async with TesseraServer(arguments.tessera, *flags) as server:
        client = await server.connect(max_size=2 ** 24)
        await ask(client, {"type": "hello", "name": "bench"})
        pid = server.process.pid
        warm = 200  # allocator and tables settle first
        before = 0
        for index in range(warm + arguments.rooms):
            if index == warm:
                before = rss_kib(pid)
            room = (await ask(client, {"type": "room.create", "game": "reef-builder",
                               "mode": "solo"}))["room"]["id"]
            await ask(client, {"type": "room.join", "room": room})
            await ask(client, {"type": "room.start", "room": room})
            await ask(client, {"type": "game.resign", "room": room})
            await ask(client, {"type": "room.leave", "room": room})
        after = rss_kib(pid)
        per_room = (after - before) * 1024 / arguments.rooms
        print(f"finished rooms  {arguments.rooms} on display")
        print(f"server RSS      {before} KiB -> {after} KiB")
        print(f"per room        {per_room:.0f} bytes")


if __name__ == "__main__":
    asyncio.run(main())
