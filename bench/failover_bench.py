#!/usr/bin/python3
"""failover_bench.py -- how long a game stops when its instance is killed.

Starts a throw-away PostgreSQL server (tests/tools/pg_cluster.sh) and two
instances of `tessera serve`, `a` and `b`, with the given lease (default
the server's, 3000 ms). Then ROUNDS times: a player plays a few moves of a
Duo game against the greedy bot on one instance; that instance is killed
(SIGKILL); the player reconnects to the other with its token and asks for
the room, as the clients do (following `moved` after its retry_ms, at
least 100 ms when it names the same instance again), until the room is
back and a move of its is accepted. The time from the kill to that move
is one sample. The killed instance is started again (the next round's
victim is the other one). Prints p50 / p99 / max. Run with Debian's python3:

    /usr/bin/python3 bench/failover_bench.py --tessera build-release/tessera --rounds 20

It prints figures; it asserts nothing but that each game came back.
"""

import argparse
import asyncio
import os
import signal
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from tessera_server import TesseraServer  # noqa: E402
from test_disk_full import duo_against_greedy, first_legal, my_turn  # noqa: E402
from test_live_play import Client  # noqa: E402
from test_postgres import Cluster  # noqa: E402


async def back_on(server, token, room):
    """Reconnects to `server` and asks for `room` until it is there; then
    plays a move: the player's client."""
    last = None
    while True:
        client = Client(await server.connect(max_size=2 ** 22), "steady")
        await client.request({"type": "hello", "name": "steady", "token": token})
        reply = await client.request({"type": "room.join", "room": room})
        if reply["type"] == "room":
            client.cursor = len(client.inbox)
            state = await client.expect("game.state", lambda m: m["room"] == room)
            move = await client.request({"type": "game.move", "room": room, "ply": state["ply"],
                                         "action": await first_legal(client, room)})
            assert move["type"] == "game.moved", move
            return client
        assert reply["type"] == "moved", reply
        await client.close()
        wait = reply["retry_ms"] / 1000
        await asyncio.sleep(max(wait, 0.1) if reply["instance"] == last else wait)
        last = reply["instance"]


def start(binary, cluster, name, lease_ms):
    flags = ["--rate", "100000", "--burst", "100000", "--instance", name, "--log-level", "warn"]
    if lease_ms:
        flags += ["--lease-ms", str(lease_ms)]
    return TesseraServer(binary, *flags, db_path=cluster.url).start()


async def main(arguments):
    samples = []
    with Cluster() as cluster:
        servers = {name: await start(arguments.tessera, cluster, name, arguments.lease_ms)
                   for name in "ab"}
        try:
            for round_number in range(arguments.rounds):
                victim, survivor = ("a", "b") if round_number % 2 == 0 else ("b", "a")
                player, room = await duo_against_greedy(servers[victim], moves=2)
                await my_turn(player, room)
                await servers[victim].stop(signal.SIGKILL)
                killed = time.monotonic()
                client = await back_on(servers[survivor], player.token, room)
                samples.append(time.monotonic() - killed)
                print(f"round {round_number + 1}: {samples[-1]:.2f} s", file=sys.stderr)
                await client.close()
                servers[victim] = await start(arguments.tessera, cluster, victim,
                                              arguments.lease_ms)
        finally:
            for server in servers.values():
                if server.process.returncode is None:
                    await server.stop()
    samples.sort()

    def at(share):
        return samples[min(len(samples) - 1, int(share * len(samples)))]

    lease = arguments.lease_ms or 3000
    print(f"failover, SIGKILL to the first move accepted on the other instance, lease {lease} ms,"
          f" {len(samples)} rounds: p50 {at(0.5):.2f} s, p99 {at(0.99):.2f} s,"
          f" max {samples[-1]:.2f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--lease-ms", type=int, default=0, help="default: the server's")
    asyncio.run(main(parser.parse_args()))
