"""test_abuse.py -- hostile clients get clear refusals, lose the server
nothing, and do not stop anyone else.

- Slowloris: a request whose headers or body trickle in a byte at a time
  is cut when its time is up (handshake-timeout for the headers, and as
  long again for the body: 408), while others are served meanwhile.
- 10,000 malformed messages from 50 connections at once: every one gets
  the error its fault deserves (bad_json, unknown_type, bad_message), in
  order, while a real game is played to its end beside them; the figures
  in /metrics count them all.
(Per-address caps, floods over the rate, oversized and binary frames,
readers that never read, and silent handshakes are in test_websocket.py.)
"""

import asyncio
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_history import play_duo_against_greedy  # noqa: E402
from metrics_scrape import scrape, value  # noqa: E402

TIMEOUT_S = 2


async def trickle(writer, data, every_s, answered):
    """Writes `data` a byte every `every_s` seconds (a slow client, not a
    wait) until the answer has come."""
    for byte in data:
        if answered.is_set():
            return
        try:
            writer.write(bytes([byte]))
            await writer.drain()
        except ConnectionError:
            return
        await asyncio.sleep(every_s)


async def slow_request(server, head, body):
    """Sends `head` at once and `body` trickled; returns (seconds to the
    answer, the answer's bytes)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    started = time.monotonic()
    writer.write(head)
    answered = asyncio.Event()
    sender = asyncio.create_task(trickle(writer, body, 0.3, answered))
    try:
        data = await asyncio.wait_for(reader.read(), 15)
    except ConnectionError:
        data = b""
    answered.set()
    await sender
    writer.close()
    return time.monotonic() - started, data


async def test_trickled_headers_and_bodies_are_cut_in_time(binary):
    async with TesseraServer(binary, "--handshake-timeout", str(TIMEOUT_S)) as server:
        headers = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 100
        took, data = await slow_request(server, b"", headers)
        assert data == b"" and took < TIMEOUT_S + 1.5, (took, data)

        head = (b"POST /api/tournaments HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n")
        slow = asyncio.create_task(slow_request(server, head, b"{" + b" " * 999))
        status, _, _ = await server.http("GET", "/healthz")  # others are served meanwhile
        assert status == 200
        took, data = await slow
        assert data.startswith(b"HTTP/1.1 408"), data[:100]
        head, _, body = data.partition(b"\r\n\r\n")
        assert f"content-length: {len(body)}".encode() in head.lower(), data
        error = json.loads(body)
        assert error["code"] == "request_timeout" and error["message"], error
        assert TIMEOUT_S - 0.5 < took < 2 * TIMEOUT_S + 1.5, took
        await server.wait_for_log("body too slow")
        samples = await scrape(server)
        assert value(samples, "tessera_limit_hits_total", limit="slow_request") == 1


MALFORMED = [
    (b"not json at all", "bad_json"),
    (b'{"type":"ping"', "bad_json"),
    (b"[1, 2, 3]", "bad_json"),
    (b'{"type":"ping","type":"ping"}', "bad_json"),
    (b'{"type":"teleport"}', "unknown_type"),
    (b'{"type":"ping","surprise":true}', "bad_message"),
    (b'{"type":"room.create","game":"chess"}', "bad_message"),
    (b'{"type":"rooms.list","limit":1e400}', "bad_json"),
    (b'{"type":"rooms.list","limit":-5}', "bad_message"),
    (b'{"type":"game.move","room":"x","ply":"zero","action":{}}', "bad_message"),
    (b'{"type":"hello","name":""}', "bad_message"),
    (b'{"type":"ping","data":' + b"[" * 3000 + b"]" * 3000 + b"}", "bad_json"),
]


async def send_malformed(server, count):
    """`count` malformed messages on one connection, all sent before any
    answer is read; checks each answer in order."""
    async with server.connect(max_size=2 ** 20) as connection:
        sent = [MALFORMED[i % len(MALFORMED)] for i in range(count)]
        for text, _ in sent:
            await connection.send(text.decode())
        for text, code in sent:
            reply = json.loads(await asyncio.wait_for(connection.recv(), 30))
            assert reply["type"] == "error" and reply["code"] == code, (text[:60], reply)
            assert reply["message"]
        await connection.send('{"type":"ping","data":"still here"}')
        assert json.loads(await connection.recv()) == {"type": "pong", "data": "still here"}


async def test_ten_thousand_malformed_messages_are_answered_and_hurt_no_one(binary):
    flags = ("--rate", "100000", "--burst", "100000", "--connections-per-ip", "100")
    async with TesseraServer(binary, *flags) as server:
        abuse = asyncio.gather(*(send_malformed(server, 200) for _ in range(50)))
        state, over = await play_duo_against_greedy(server, "bystander")
        assert over["result"]["reason"] == "no_moves", over
        await abuse
        samples = await scrape(server)
        refused = sum(value(samples, "tessera_errors_total", code=code)
                      for code in ("bad_json", "unknown_type", "bad_message"))
        assert refused == 10000, refused
        assert value(samples, "tessera_games_finished_total", game="blokus", mode="duo") == 1
        assert not [line for line in server.log if " error " in line], server.log  # no error-level line


if __name__ == "__main__":
    run_tests(globals())
