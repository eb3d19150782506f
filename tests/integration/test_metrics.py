"""test_metrics.py -- GET /metrics against a real server.

The answer is checked as Prometheus reads it (metrics_scrape.py): every sample belongs to a
family declared by HELP and TYPE lines before it, every value is a number,
and every histogram's buckets are cumulative and end with le="+Inf" equal
to its _count. Then the figures are checked against what the test did: a
duo game played to its end, bad and refused messages, a message over the
size cap, a flood over the rate limit, open connections.
"""

import asyncio
import json
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_history import play_duo_against_greedy  # noqa: E402
from test_live_play import FAST, Client  # noqa: E402
from metrics_scrape import scrape, value  # noqa: E402
from test_websocket import expect_close  # noqa: E402

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
        refused = await watcher.request({"type": "game.move", "room": "nosuchroom", "ply": 0,
                                         "action": {"pass": True}})
        assert refused["type"] == "error", refused
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


if __name__ == "__main__":
    run_tests(globals())
