"""test_metrics.py -- GET /metrics against a real server.

The answer is checked as Prometheus reads it (metrics_scrape.py): every sample belongs to a
family declared by HELP and TYPE lines before it, every value is a number,
and every histogram's buckets are cumulative and end with le="+Inf" equal
to its _count. Then the figures are checked against what the test did: a
duo game played to its end, bad and refused messages, a message over the
size cap, a flood over the rate limit, open connections. The process
figures (process_*, the names of the official client libraries) agree with
what /proc says of the server's process.
"""

import asyncio
import json
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_history import play_duo_against_greedy  # noqa: E402
from test_live_play import FAST, Client  # noqa: E402
from metrics_scrape import scrape, value  # noqa: E402
from test_websocket import expect_close, never_reading_socket  # noqa: E402

async def test_the_answer_is_valid_prometheus_text_from_the_start(binary):
    async with TesseraServer(binary) as server:
        samples = await scrape(server)
        assert value(samples, "tessera_build_info", version="0.1.0") == 1
        assert value(samples, "tessera_connections") == 0
        assert value(samples, "tessera_sqlite_commit_seconds_count") >= 0
        assert not any(name == "tessera_message_seconds_bucket" for name, _ in samples)
        status, headers, _ = await server.http("POST", "/metrics")
        assert status == 405 and headers["allow"] == "GET"


async def test_a_played_game_and_refusals_are_counted(binary):
    async with TesseraServer(binary, *FAST) as server:
        state, over = await play_duo_against_greedy(server, "counted")
        game = (await server.http("GET", "/api/games?limit=1"))[2]
        game_id = json.loads(game)["items"][0]["id"]
        replay = json.loads((await server.http("GET", f"/api/games/{game_id}/replay"))[2])
        plies = len(replay["plies"])
        human_moves = sum(1 for ply in replay["plies"] if ply["seat"] == 0 and "cause" not in ply)

        watcher = await Client.join(server, "watcher")
        # A well-formed action: a malformed one is refused (bad_message) with its message,
        # before the room is looked for.
        refused = await watcher.request({"type": "game.move", "room": "nosuchroom", "ply": 0,
                                         "action": {"piece": "I1", "orientation": 0, "row": 0,
                                                    "col": 0}})
        assert refused["type"] == "error" and refused["code"] == "no_such_room", refused
        unknown_field = await watcher.request({"type": "ping", "bogus": 1})
        assert unknown_field["code"] == "bad_message", unknown_field

        samples = await scrape(server)
        assert value(samples, "tessera_games_started_total", game="blokus", mode="duo") == 1
        assert value(samples, "tessera_games_finished_total", game="blokus", mode="duo") == 1
        assert value(samples, "tessera_games_started_total", game="blokus", mode="4p") == 0
        assert value(samples, "tessera_moves_total", game="blokus", mode="duo") == plies
        assert value(samples, "tessera_rooms", game="blokus", mode="duo", status="finished") == 1
        assert value(samples, "tessera_rooms", game="blokus", mode="duo", status="playing") == 0
        moves = value(samples, "tessera_message_seconds_count", type="game.move")
        assert moves >= human_moves > 0, (moves, human_moves)
        assert value(samples, "tessera_bot_move_seconds_count") >= plies - moves - 2
        assert value(samples, "tessera_sqlite_commit_seconds_count") >= plies
        assert value(samples, "tessera_sqlite_commit_failures_total") == 0
        assert value(samples, "tessera_errors_total", code=refused["code"]) == 1
        assert value(samples, "tessera_errors_total", code="bad_message") == 1
        assert value(samples, "tessera_connections") == 1
        assert value(samples, "tessera_http_responses_total", **{"class": "2xx"}) == 2
        await watcher.close()


async def test_limits_are_counted_when_they_bite(binary):
    async with TesseraServer(binary, "--max-message-bytes", "1024") as server:
        async with server.connect() as offender:
            await offender.send("x" * 5000)
            await expect_close(offender, 1009)
        async with server.connect() as flooder:
            for _ in range(60):  # the burst is 40
                await flooder.send('{"type":"ping"}')
            replies = [json.loads(await asyncio.wait_for(flooder.recv(), 5)) for _ in range(60)]
            limited = sum(1 for reply in replies if reply.get("code") == "rate_limited")
            assert limited > 0, replies
        samples = await scrape(server)
        assert value(samples, "tessera_limit_hits_total", limit="message_size") == 1
        assert value(samples, "tessera_limit_hits_total", limit="message_rate") == limited
        assert value(samples, "tessera_messages_total") == 60 - limited
        assert value(samples, "tessera_websockets_opened_total") == 2


async def test_the_send_budget_in_use_is_a_gauge(binary):
    """A client that never reads holds its queue: reading from it pauses
    past send-queue-bytes (1 MiB), and lws keeps part of a send the kernel
    refused (at most 256 KiB), so the gauge stays between the two and the
    budget. Once the client resets its connection, it is 0 again."""
    flags = ("--max-message-bytes", "64k", "--rate", "100000", "--burst", "100000",
             "--send-queue-bytes", "1m", "--send-queue-max-bytes", "8m",
             "--send-queue-budget-bytes", "8m")
    async with TesseraServer(binary, *flags) as server:
        assert value(await scrape(server), "tessera_send_queue_bytes") == 0
        reader = await never_reading_socket(server, 100, half_close=False)
        deadline = time.monotonic() + 5
        while (held := value(await scrape(server), "tessera_send_queue_bytes")) <= 1024 * 1024:
            assert time.monotonic() < deadline, f"{held} bytes held, reading not paused"
        assert held <= (1024 + 256 + 64) * 1024, held
        reader.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        reader.close()  # a reset, which the server sees although it reads no more
        deadline = time.monotonic() + 5
        while value(await scrape(server), "tessera_send_queue_bytes") != 0:
            assert time.monotonic() < deadline, "the queue outlived its connection"


def proc_figures(pid):
    """What /proc says of the process: (start time since the epoch, resident
    bytes, CPU seconds of every thread, open descriptors)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rpartition(")")[2].split()
    with open("/proc/stat") as stat:
        boot = next(int(line.split()[1]) for line in stat if line.startswith("btime "))
    ticks = os.sysconf("SC_CLK_TCK")
    return (boot + int(fields[19]) / ticks, int(fields[21]) * os.sysconf("SC_PAGE_SIZE"),
            (int(fields[11]) + int(fields[12])) / ticks, len(os.listdir(f"/proc/{pid}/fd")))


async def test_process_figures_agree_with_proc(binary):
    async with TesseraServer(binary, descriptor_limit=512) as server:
        await play_duo_against_greedy(server, "busy")  # some CPU time
        before = proc_figures(server.process.pid)
        samples = await scrape(server)
        after = proc_figures(server.process.pid)
        start = value(samples, "process_start_time_seconds")
        assert abs(start - before[0]) < 0.02 and start <= time.time(), (start, before)
        resident = value(samples, "process_resident_memory_bytes")
        assert 0.8 * before[1] < resident < 1.25 * after[1], (resident, before, after)
        assert value(samples, "process_virtual_memory_bytes") > resident
        cpu = value(samples, "process_cpu_seconds_total")
        # /proc counts whole clock ticks, getrusage microseconds.
        assert before[2] - 0.02 <= cpu <= after[2] + 0.02 and cpu > 0, (cpu, before, after)
        assert value(samples, "process_max_fds") == 512
        # The scrape's own connection is open while it is answered, closed
        # (or closing) when /proc is read after it.
        open_fds = value(samples, "process_open_fds")
        assert after[3] <= open_fds <= after[3] + 1, (open_fds, after)

        clients = [await server.connect() for _ in range(5)]
        for client in clients:  # each connection is accepted once it answers
            await client.send('{"type":"ping"}')
            assert json.loads(await asyncio.wait_for(client.recv(), 5))["type"] == "pong"
        more = await scrape(server)
        assert value(more, "process_open_fds") == open_fds + 5, (open_fds, more)
        for client in clients:
            await client.close()


if __name__ == "__main__":
    run_tests(globals())
