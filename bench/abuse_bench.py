"""abuse_bench.py -- does one abusive client slow everyone else's moves?

    /usr/bin/python3 bench/abuse_bench.py --build build-release [--duration 20]
        [--rate 2000] [--abusers 50] [--attack bad-messages|clock] [--default-limits] [--pin]

Starts one `tessera serve` and measures paced Duo play with `tessera-load
--url` twice: alone, then with `--abusers` connections beside it sending
malformed messages (bad JSON, unknown types and fields, deep nesting) as
fast as the server answers them, reconnecting whenever they are closed.
By default the server's per-connection limits are raised (as tessera-load
does for its own clients), so nothing throttles the abuse: the worst case.
With --default-limits the server keeps its defaults, as in production:
the abusers are rate-limited and closed, and the paced play must stay
under 20 messages a second per connection (--rate 800 or less with 50
rooms). Prints both runs' move round trip p50/p99/max, the server CPU per
move, and the abuse rate. Figures, not assertions: the p99 goal is the
live core's (< 10 ms for paced play). --pin gives the server CPU 0 to
itself and runs the load generator and the abusers on CPU 1, so what is
measured is the server's fairness, not a machine short of cores.

--attack clock runs issue 16's clock attack instead of malformed messages:
each abuser is a guest that creates a Duo with a one-second clock, no
increment and the `pass` policy, seats the greedy bot, plays one move and
then never again, and starts over once its game has ended (the third
timeout in a row resigns its seat). Before that rule and the one-visit
tick, a single such guest froze the server.
"""

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
import time

import websockets

GENEROUS = "1000000"
BAD = [
    "not json",
    '{"type":"ping"',
    '{"type":"teleport"}',
    '{"type":"ping","surprise":1}',
    '{"type":"room.create","game":"chess"}',
    '{"type":"rooms.list","limit":-1}',
    '{"type":"ping","data":' + "[" * 3000 + "]" * 3000 + "}",
]


async def abuse(url, stop, counter, window=32):
    """Sends malformed messages `window` at a time, reading the answers;
    connects again whenever the server closes the connection."""
    index = 0
    while not stop.is_set():
        try:
            async with websockets.connect(url, max_size=2 ** 20) as connection:
                while not stop.is_set():
                    for _ in range(window):
                        await connection.send(BAD[index % len(BAD)])
                        index += 1
                    for _ in range(window):
                        await connection.recv()
                    counter[0] += window
        except (websockets.ConnectionClosed, websockets.InvalidHandshake, OSError):
            counter[1] += 1


CLOCK_ROOM = {"type": "room.create", "game": "blokus", "mode": "duo",
              "clock": {"initial_ms": 1000}, "timeout": "pass"}


async def ask(connection, message):
    """Sends `message`; returns the reply that echoes its id."""
    await connection.send(json.dumps(message))
    while True:
        reply = json.loads(await connection.recv())
        if reply.get("id") == message["id"]:
            return reply


async def clock_attack(url, stop, counter):
    """The clock attack, over and over; counts the attack games that ended."""
    while not stop.is_set():
        try:
            async with websockets.connect(url, max_size=2 ** 22) as connection:
                await ask(connection, {"type": "hello", "name": "idle", "id": 1})
                room = (await ask(connection, dict(CLOCK_ROOM, id=2)))["room"]["id"]
                steps = [{"type": "room.join", "seat": 0},
                         {"type": "room.add_bot", "seat": 1, "bot": "greedy"},
                         {"type": "room.start"}]
                for number, step in enumerate(steps, start=3):
                    await ask(connection, dict(step, room=room, id=number))
                moves = await ask(connection, {"type": "game.moves", "room": room, "id": 6})
                await ask(connection, {"type": "game.move", "room": room, "ply": 0,
                                       "action": moves["moves"][0], "id": 7})
                while json.loads(await connection.recv()).get("type") != "game.over":
                    pass  # idle: the clock plays (and resigns) for this seat
                counter[0] += 1
        except (websockets.ConnectionClosed, websockets.InvalidHandshake, OSError):
            counter[1] += 1


ATTACKS = {"bad-messages": abuse, "clock": clock_attack}


async def start_server(binary, folder, default_limits):
    limits = [] if default_limits else ["--rate", GENEROUS, "--burst", GENEROUS]
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--port", "0", "--db", os.path.join(folder, "abuse.db"), *limits,
        "--connections-per-ip", GENEROUS, "--connection-rate", GENEROUS, "--max-rooms", GENEROUS,
        "--max-rooms-per-player", GENEROUS, "--guests-per-address", GENEROUS,
        "--log-level", "error",
        stdout=asyncio.subprocess.PIPE)
    line = (await process.stdout.readline()).decode()
    port = int(re.search(r":(\d+)$", line.strip()).group(1))
    return process, port


async def measure(build, port, pid, duration, rate):
    process = await asyncio.create_subprocess_exec(
        os.path.join(build, "tessera-load"), "--url", f"ws://127.0.0.1:{port}/ws",
        "--server-pid", str(pid), "--mode", "duo", "--games", "50", "--rate", str(rate),
        "--duration", str(duration), stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL)
    out, _ = await process.communicate()
    result = next(line for line in out.decode().splitlines() if line.startswith("RESULT "))
    return dict(pair.split("=", 1) for pair in result.split()[1:])


def show(name, figures, extra=""):
    print(f"{name:<22} moves/s {float(figures['moves_per_s']):>7.0f}   p50 "
          f"{int(figures['p50_us']) / 1000:5.2f} ms   p99 {int(figures['p99_us']) / 1000:6.2f} ms"
          f"   max {int(figures['max_us']) / 1000:6.2f} ms   server CPU/move "
          f"{float(figures['server_cpu_us_per_move']):6.1f} us   errors {figures['errors']}{extra}")


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True, help="folder with tessera and tessera-load")
    parser.add_argument("--duration", type=int, default=20)
    parser.add_argument("--rate", type=int, default=2000, help="paced Duo moves per second")
    parser.add_argument("--abusers", type=int, default=50)
    parser.add_argument("--attack", choices=sorted(ATTACKS), default="bad-messages")
    parser.add_argument("--default-limits", action="store_true")
    parser.add_argument("--pin", action="store_true", help="server on CPU 0, the rest on CPU 1")
    arguments = parser.parse_args()
    if arguments.pin:
        os.sched_setaffinity(0, {1})  # this process and the tessera-load it starts
    folder = tempfile.TemporaryDirectory(prefix="tessera-abuse-")
    server, port = await start_server(os.path.join(arguments.build, "tessera"), folder.name,
                                      arguments.default_limits)
    if arguments.pin:
        os.sched_setaffinity(server.pid, {0})
    try:
        alone = await measure(arguments.build, port, server.pid, arguments.duration,
                              arguments.rate)
        stop, counter = asyncio.Event(), [0, 0]  # bad messages answered, closes
        url = f"ws://127.0.0.1:{port}/ws"
        attack = ATTACKS[arguments.attack]
        abusers = [asyncio.create_task(attack(url, stop, counter))
                   for _ in range(arguments.abusers)]
        started = time.monotonic()
        beside = await measure(arguments.build, port, server.pid, arguments.duration,
                               arguments.rate)
        stop.set()
        abuse_rate = counter[0] / (time.monotonic() - started)
        for abuser in abusers:  # a clock attacker may be waiting for its game's end
            abuser.cancel()
        await asyncio.gather(*abusers, return_exceptions=True)
    finally:
        server.terminate()
        await server.wait()
    limits = "default limits" if arguments.default_limits else "limits raised"
    limits += ", server pinned to CPU 0" if arguments.pin else ""
    print(f"paced Duo at {arguments.rate} moves/s, 50 rooms, {arguments.duration} s each, "
          f"server {limits}:")
    show("alone", alone)
    if arguments.attack == "clock":
        show("beside the clock attack", beside,
             f"   ({arguments.abusers} idle guests: {abuse_rate:.1f} attack games ended/s, "
             f"{counter[1]} connections lost)")
    else:
        show("beside the abusers", beside,
             f"   ({arguments.abusers} abusive connections: {abuse_rate:.0f} bad messages/s "
             f"answered, closed {counter[1]} times)")


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
