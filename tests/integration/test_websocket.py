"""test_websocket.py -- the transport's websocket rules, against a real server.

Each test starts `tessera serve` with small limits so a rule is reached in
a few messages, and most check that a second client is unaffected by what
happened to the first. Messages of a known reply size are pings carrying
data, which the pong brings back.
"""

import asyncio
import json
import os
import socket
import time

import websockets

from tessera_server import (ask, UPGRADE_REQUEST, TesseraServer, echo_round_trip, ping_text,
                            raw_websocket, run_tests)
from metrics_scrape import scrape, value


async def expect_close(connection, code, timeout=5):
    """Reads until the server closes the connection; checks the code."""
    try:
        while True:
            await asyncio.wait_for(connection.recv(), timeout)
    except websockets.ConnectionClosed as closed:
        assert closed.rcvd is not None, f"no close frame received ({closed})"
        assert closed.rcvd.code == code, f"close code {closed.rcvd.code}, expected {code}"


async def test_websocket_on_any_path(binary):
    async with TesseraServer(binary) as server:
        for path in ("/ws", "/", "/any/path?x=1"):
            async with server.connect(path) as client:
                await echo_round_trip(client, f"hello {path}")


async def test_fragmented_message_is_reassembled(binary):
    async with TesseraServer(binary, "--max-message-bytes", "1024") as server:
        async with server.connect() as client:
            await client.send(['{"type":"ping",', '"data":"frag', 'mented"}'])
            reply = json.loads(await asyncio.wait_for(client.recv(), 5))
            assert reply == {"type": "pong", "data": "fragmented"}, reply
            frame = ping_text("x" * (1024 - len(ping_text(""))))
            exactly_the_cap = [frame[:512], frame[512:]]
            await client.send(exactly_the_cap)
            reply = json.loads(await asyncio.wait_for(client.recv(), 5))
            assert reply["data"] == "x" * (1024 - len(ping_text("")))


async def test_only_allowed_origins_may_open_a_websocket(binary):
    async with TesseraServer(binary, "--allowed-origins", "https://play.example") as server:
        own_page = f"http://127.0.0.1:{server.port}"
        for origin in ("https://play.example", own_page, None):
            async with server.connect(origin=origin) as client:
                await echo_round_trip(client, f"from {origin}")
        try:
            async with server.connect(origin="https://evil.example") as client:
                await client.recv()
            raise AssertionError("a websocket from an origin not allowed was opened")
        except (websockets.InvalidHandshake, websockets.ConnectionClosed, EOFError):
            pass
        await server.wait_for_log("origin https://evil.example is not allowed")
        async with server.connect() as client:  # the server goes on
            await echo_round_trip(client)


async def test_oversized_message_closes_1009_and_others_keep_working(binary):
    async with TesseraServer(binary, "--max-message-bytes", "1024") as server:
        async with server.connect() as bystander, server.connect() as offender:
            await offender.send("x" * 5000)
            await expect_close(offender, 1009)
            await echo_round_trip(bystander)


async def test_oversized_fragmented_message_closes_1009(binary):
    async with TesseraServer(binary, "--max-message-bytes", "1024") as server:
        async with server.connect() as offender:
            await offender.send(["x" * 600, "y" * 600])
            await expect_close(offender, 1009)


async def test_binary_frame_is_refused_with_1003(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as bystander, server.connect() as offender:
            await offender.send(b"\x00\x01\x02")
            await expect_close(offender, 1003)
            await echo_round_trip(bystander)


async def test_invalid_utf8_text_closes_1007(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as offender:
            await offender.write_frame(True, websockets.frames.OP_TEXT, b"\xff\xfe")
            await expect_close(offender, 1007)


async def test_flood_is_rate_limited_then_closed_1008(binary):
    flags = ("--rate", "1", "--burst", "3", "--rate-strikes", "5")
    async with TesseraServer(binary, *flags) as server:
        async with server.connect() as bystander, server.connect() as flooder:
            for n in range(20):
                await flooder.send(ping_text(f"message {n}"))
            replies = []
            try:
                while True:
                    replies.append(json.loads(await asyncio.wait_for(flooder.recv(), 5)))
            except websockets.ConnectionClosed as closed:
                assert closed.rcvd is not None and closed.rcvd.code == 1008, closed
            echoes = [r for r in replies if r["type"] == "pong"]
            errors = [r for r in replies if r["type"] == "error"]
            assert 3 <= len(echoes) <= 4, replies  # the burst, maybe one refill
            assert len(errors) == 5, replies
            assert errors[0] == {"type": "error", "code": "rate_limited",
                                 "message": "too many messages; slow down"}
            await echo_round_trip(bystander)


async def pipeline_behind_a_first_seat(server, ping_count):
    """A guest that sends its hello, a seat in another guest's room and
    `ping_count` pings at once, without waiting: the hello's name is looked
    up and the seat waits for the guest's player row, so the pings wait in
    the server too. Returns every message the guest receives up to its
    last expected answer (or a 5 s silence)."""
    owner = await server.connect()
    assert (await ask(owner, {"type": "hello", "name": "owner"}))["type"] == "welcome"
    room = (await ask(owner, {"type": "room.create", "game": "blokus", "mode": "duo"}))["room"]
    guest = await server.connect()
    texts = [json.dumps({"type": "hello", "name": "guest", "id": "hello"}),
             json.dumps({"type": "room.join", "room": room["id"], "seat": 1, "id": "seat"})]
    texts += [json.dumps({"type": "ping", "id": n}) for n in range(ping_count)]
    for text in texts:
        await guest.send(text)
    replies = []
    try:
        while len({reply.get("id") for reply in replies}) < len(texts):
            replies.append(json.loads(await asyncio.wait_for(guest.recv(), 5)))
    except asyncio.TimeoutError:
        pass
    return guest, replies  # the owner stays: its leaving would be news to the guest


async def test_messages_pipelined_behind_a_first_seat_are_answered_in_order(binary):
    async with TesseraServer(binary) as server:
        # 39 messages, and the echo below: the default burst of 40
        guest, replies = await pipeline_behind_a_first_seat(server, 37)
        answers = [reply for reply in replies if "id" in reply]
        assert [reply["type"] for reply in answers[:2]] == ["welcome", "room"], answers[:3]
        assert [reply["id"] for reply in answers] == ["hello", "seat"] + list(range(37)), replies
        assert all(reply["type"] == "pong" for reply in answers[2:]), answers
        await echo_round_trip(guest)


async def test_a_flood_behind_a_first_seat_waits_capped_and_the_server_serves_on(binary):
    async with TesseraServer(binary, "--rate", "100000", "--burst", "100000") as server:
        async with server.connect() as bystander:
            guest, replies = await pipeline_behind_a_first_seat(server, 300)
            answers = [reply for reply in replies if "id" in reply]
            ids = [reply["id"] for reply in answers]
            assert sorted(map(str, ids)) == sorted(map(str, ["hello", "seat"] + list(range(300)))), \
                "every message is answered exactly once"
            types = [reply["type"] for reply in answers]
            assert types.index("welcome") < types.index("pong"), types[:5]
            refused = [reply for reply in answers if reply["type"] == "error"]
            assert all(reply["code"] == "rate_limited" for reply in refused), refused[:3]
            assert len(refused) <= 300 - 62, len(refused)  # at least the waiting ones get through
            pongs = [reply["id"] for reply in answers if reply["type"] == "pong"]
            assert pongs == sorted(pongs), pongs  # the waiting ones in order
            await echo_round_trip(guest)
            await echo_round_trip(bystander)


async def test_connections_beyond_the_per_ip_limit_are_refused(binary):
    async with TesseraServer(binary, "--connections-per-ip", "3",
                             "--log-level", "debug") as server:
        clients = [await server.connect() for _ in range(3)]
        for client in clients:
            await echo_round_trip(client)
        try:
            extra = await server.connect()
            await echo_round_trip(extra)
            raise AssertionError("a fourth connection from one address was accepted")
        except (websockets.InvalidHandshake, websockets.ConnectionClosed, OSError):
            pass
        await server.wait_for_log(r"refusing connection from 127\.0\.0\.1: "
                                  r"it has 3 connections already")
        try:  # every TCP connection counts, an HTTP request too
            status, _, _ = await server.http("GET", "/healthz")
            raise AssertionError(f"an HTTP request over the limit got {status}")
        except (ConnectionError, IndexError, ValueError):
            pass
        await clients[0].close()
        await server.wait_for_log(r"connection 1 closed")
        async with server.connect() as replacement:
            await echo_round_trip(replacement)
        for client in clients[1:]:
            await client.close()


async def refused(server, **options):
    """Whether a new connection is refused (closed before its handshake)."""
    try:
        async with server.connect(**options) as client:
            await echo_round_trip(client)
        return False
    except (websockets.InvalidHandshake, websockets.ConnectionClosed, OSError):
        return True


async def test_new_connections_beyond_the_per_ip_rate_are_refused(binary):
    # 1 a second in bursts of 3: a client reconnecting to get fresh message
    # credits is stopped at accept; another address is not affected.
    async with TesseraServer(binary, "--connection-rate", "1") as server:
        outcomes = [await refused(server) for _ in range(6)]
        assert outcomes[:3] == [False] * 3 and True in outcomes[3:], outcomes
        await server.wait_for_log(r"refusing connection from 127\.0\.0\.1: "
                                  r"more than 1 new connections a second")
        assert not await refused(server, local_addr=("127.0.0.2", 0))
        samples = await scrape(server, source="127.0.0.3")
        assert value(samples, "tessera_limit_hits_total", limit="connection_rate") >= 1


async def test_a_trusted_proxy_is_not_capped_per_address(binary):
    flags = ("--trusted-proxies", "127.0.0.1", "--connection-rate", "1",
             "--connections-per-ip", "2")
    async with TesseraServer(binary, *flags) as server:
        clients = [await server.connect() for _ in range(5)]  # five players behind nginx
        for client in clients:
            await echo_round_trip(client)
        for client in clients:
            await client.close()


def small_receive_buffer_socket(port):
    """A connected socket whose receive window stays small, so a client that
    stops reading makes the server's send queue grow quickly."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect(("127.0.0.1", port))
    sock.setblocking(False)
    return sock


async def test_slow_reader_is_dropped_and_others_unaffected(binary):
    flags = ("--max-message-bytes", "64k", "--send-queue-bytes", "64k",
             "--send-queue-max-bytes", "256k", "--ping-interval", "1", "--idle-timeout", "2",
             "--rate", "100000", "--burst", "100000")
    async with TesseraServer(binary, *flags) as server:
        async with server.connect() as bystander:
            slow = await websockets.connect(server.ws_url(), open_timeout=5,
                                            sock=small_receive_buffer_socket(server.port),
                                            max_queue=1, read_limit=4096, ping_interval=None)
            text = ping_text("z" * 60000)
            started = time.monotonic()
            sent = 0
            try:  # never reads: the echoes pile up until the server gives up on it
                while time.monotonic() - started < 20:
                    await asyncio.wait_for(slow.send(text), 10)
                    sent += 1
                raise AssertionError(f"slow reader still connected after {sent} messages")
            except (websockets.ConnectionClosed, ConnectionError):
                pass
            await server.wait_for_log(r"dropping connection \d+: reader too slow")
            await echo_round_trip(bystander)
            assert time.monotonic() - started < 15
            slow.transport.abort()


def memory_kib(pid, field):
    """A figure of /proc/PID/status in KiB: VmRSS (resident now), VmHWM (its peak)."""
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith(field + ":"))


async def flood_without_reading(server, text, count):
    """A client that sends `count` messages whose replies are as big and
    never reads one; returned open (unless the server dropped it), so what
    the server holds for it is still held."""
    client = await websockets.connect(server.ws_url(), open_timeout=5,
                                      sock=small_receive_buffer_socket(server.port),
                                      max_queue=1, read_limit=4096, ping_interval=None)
    try:
        for _ in range(count):
            await asyncio.wait_for(client.send(text), 10)
    except (websockets.ConnectionClosed, ConnectionError, asyncio.TimeoutError):
        pass  # dropped, or no longer read: lws reads little while its sends wait
    return client


def is_address_sanitized(binary):
    """Whether the binary links AddressSanitizer, whose quarantine keeps
    freed memory resident on purpose."""
    with open(binary, "rb") as file:
        return b"libasan.so" in file.read()


SEND_ATTACK_FLAGS = ("--max-message-bytes", "64k", "--send-queue-bytes", "4m",
                     "--send-queue-max-bytes", "4m", "--rate", "100000", "--burst", "100000")


async def test_send_budget_bounds_the_memory_of_many_slow_readers(binary):
    """10 never-reading clients ask for 5 MiB of replies each (60 KB pings)
    at once; reading is not paused before a queue is dropped, so only the
    limits decide what the server holds. Without a budget it held some 30
    MiB more (the kernel's socket buffers take about 2 MiB a reader); with
    8 MiB the largest queues are dropped first, and the server's resident
    memory stays within the budget, and a little slack, of where it began."""
    text = ping_text("z" * 60000)
    count = 5 * 1024 * 1024 // len(text)
    async with TesseraServer(binary, *SEND_ATTACK_FLAGS,
                             "--send-queue-budget-bytes", "8m") as server:
        async with server.connect() as bystander:
            await echo_round_trip(bystander)
            before = memory_kib(server.process.pid, "VmRSS")
            floods = await asyncio.gather(*(flood_without_reading(server, text, count)
                                            for _ in range(10)))
            await server.wait_for_log(r"the send budget \(8388608 bytes, \d+ in use\) is full",
                                      timeout=30)
            drops = value(await scrape(server), "tessera_limit_hits_total", limit="slow_reader")
            for client in floods:
                client.transport.abort()
            await echo_round_trip(bystander)
            peak = memory_kib(server.process.pid, "VmHWM")  # the attack is over
    print(f"  send budget 8 MiB, 10 never-reading clients: resident {before / 1024:.1f} MiB "
          f"before, peak {peak / 1024:.1f} MiB, {drops:.0f} readers dropped")
    if not is_address_sanitized(binary):
        assert peak - before < (8 + 4) * 1024, (before, peak)


def masked_text_frame(text):
    """A client's text frame, masked with a zero key (the payload as is)."""
    payload = text.encode()
    length = len(payload)
    if length < 126:
        head = bytes([0x81, 0x80 | length])
    elif length < 65536:
        head = bytes([0x81, 0x80 | 126]) + length.to_bytes(2, "big")
    else:
        head = bytes([0x81, 0x80 | 127]) + length.to_bytes(8, "big")
    return head + bytes(4) + payload


async def never_reading_socket(server, replies, half_close, send_timeout=1):
    """A websocket client on a raw socket with a small receive window that
    asks for `replies` 60 KB replies and never reads one. Sending ends when
    the kernel took it all, when the server's reset ends it, or, for a
    reader whose requests the server stopped reading, after `send_timeout`;
    then it half-closes if asked (shutdown(SHUT_WR), unless the server has
    reset the connection already). The socket is returned open."""
    loop = asyncio.get_running_loop()
    sock = small_receive_buffer_socket(server.port)
    await loop.sock_sendall(sock, UPGRADE_REQUEST)
    head = b""
    while b"\r\n\r\n" not in head:
        head += await asyncio.wait_for(loop.sock_recv(sock, 1), 5)
    assert head.startswith(b"HTTP/1.1 101"), head
    try:
        await asyncio.wait_for(
            loop.sock_sendall(sock, masked_text_frame(ping_text("z" * 60000)) * replies),
            send_timeout)
    except (asyncio.TimeoutError, ConnectionError):
        pass
    if half_close:
        try:
            sock.shutdown(socket.SHUT_WR)
        except OSError:  # ENOTCONN: reset by the server
            pass
    return sock


def open_descriptors(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def unsent_bytes_on_port(port):
    """What the kernel holds unsent on the TCP sockets of local `port`
    (tx_queue in /proc/net/tcp), including those no process holds any more."""
    total = 0
    with open("/proc/net/tcp") as table:
        for line in list(table)[1:]:
            fields = line.split()
            if int(fields[1].rpartition(":")[2], 16) == port:
                total += int(fields[4].partition(":")[0], 16)
    return total


async def check_dropped_readers_are_released(binary, flags, replies, bound_s, half_close,
                                             drop_log=r"dropping connection \d+: .*reader too slow"):
    """Three clients that never read are dropped by a rule of `flags` (its
    log line `drop_log`, if it is the rule that drops them); they
    keep their sockets open (or half-close them). Within `bound_s` of the end
    of their requests the server is back to its descriptors of before, without
    being asked anything meanwhile (an HTTP request would wake lws's timers
    and hide a late close); the kernel holds nothing unsent for them, and
    the server counts no connection."""
    async with TesseraServer(binary, *flags) as server:
        pid = server.process.pid
        baseline = open_descriptors(pid)
        clients = await asyncio.gather(*(never_reading_socket(server, replies, half_close)
                                         for _ in range(3)))
        started = time.monotonic()
        while open_descriptors(pid) > baseline:
            assert time.monotonic() - started < bound_s, (
                f"{open_descriptors(pid) - baseline} dropped connections still open "
                f"after {bound_s} s; log: {server.log}")
            await asyncio.sleep(0.05)  # polling /proc: the server sends no event for this
        print(f"  released {time.monotonic() - started:.2f} s after the requests "
              f"(half_close {half_close})")
        if drop_log:
            await server.wait_for_log(drop_log)
        assert unsent_bytes_on_port(server.port) == 0, unsent_bytes_on_port(server.port)
        _, _, body = await server.http("GET", "/healthz")
        assert json.loads(body)["connections"] == 0, body
        for sock in clients:
            sock.close()


DROP_FLAGS = ("--max-message-bytes", "64k", "--rate", "100000", "--burst", "100000")


async def test_readers_dropped_at_their_queue_limit_are_released_at_once(binary):
    """The queue limit is reached while the socket is full, so the reader is
    cut off with no close frame (it would not read one); before, a close
    frame waited behind the unread data for the 5 s close grace."""
    flags = DROP_FLAGS + ("--send-queue-bytes", "256k", "--send-queue-max-bytes", "256k")
    for half_close in (False, True):
        await check_dropped_readers_are_released(binary, flags, 100, 2.5, half_close)


async def test_readers_dropped_by_the_send_budget_are_released_at_once(binary):
    """All three limits 2 MiB: reading never pauses before a drop, and the
    budget, which counts all three queues, drops the largest ones first."""
    flags = DROP_FLAGS + ("--send-queue-bytes", "2m", "--send-queue-max-bytes", "2m",
                          "--send-queue-budget-bytes", "2m")
    for half_close in (False, True):  # the last drop may come as the backlog is read
        await check_dropped_readers_are_released(binary, flags, 100, 4, half_close)


async def test_paused_readers_dropped_when_silent_are_released_at_once(binary):
    """Reading pauses at send-queue-bytes, so the server never sees these
    clients' later requests, nor their half-close; the idle rule drops them
    (2 s after their last request, checked every 0.5 s). Before, that drop
    was a kill lws noticed only at its next event or its own 30 s timer."""
    flags = DROP_FLAGS + ("--send-queue-bytes", "64k", "--send-queue-max-bytes", "8m",
                          "--ping-interval", "1", "--idle-timeout", "2")
    for half_close in (False, True):
        await check_dropped_readers_are_released(binary, flags, 100, 5, half_close)


async def test_readers_silent_after_an_orderly_close_are_reset_after_its_grace(binary):
    """A few replies fit in the kernel's buffers, so reading never pauses:
    these never-readers are closed in order for their silence (1001), which
    they do not answer either, and 5 s later they are killed; or, read on,
    their half-close ends them at once. Either way with a reset: before,
    the kernel kept their unsent replies for minutes."""
    flags = DROP_FLAGS + ("--ping-interval", "1", "--idle-timeout", "2")
    await check_dropped_readers_are_released(binary, flags, 8, 9, False,
                                             r"closing connection \d+: silent for 2 s")
    await check_dropped_readers_are_released(binary, flags, 8, 2, True, None)


async def read_frame(reader, timeout=5):
    """One unmasked server frame with a short payload: (opcode, payload)."""
    first, second = await asyncio.wait_for(reader.readexactly(2), timeout)
    assert second < 126, "long frames are not expected here"
    return first & 0x0F, await reader.readexactly(second)


async def test_send_queue_overflow_closes_1013(binary):
    # A reply larger than the whole queue limit: the simplest way to overflow
    # it with an echo app (a real app overflows it with broadcasts).
    flags = ("--max-message-bytes", "4k", "--send-queue-bytes", "1k",
             "--send-queue-max-bytes", "2k")
    async with TesseraServer(binary, *flags) as server:
        async with server.connect() as bystander, server.connect() as client:
            await echo_round_trip(client, "small")
            await client.send(ping_text("x" * 3000))
            await expect_close(client, 1013)
            await server.wait_for_log(r"dropping connection \d+: send queue over 2048 bytes")
            await echo_round_trip(bystander)


async def test_silent_client_is_pinged_then_closed_1001(binary):
    async with TesseraServer(binary, "--ping-interval", "1", "--idle-timeout", "2") as server:
        reader, writer = await raw_websocket(server.port)
        started = time.monotonic()
        opcode, _ = await read_frame(reader)
        assert opcode == 0x9, "expected a ping first"
        while opcode != 0x8:  # never answers the pings
            opcode, payload = await read_frame(reader)
        assert 1.5 < time.monotonic() - started < 4
        assert int.from_bytes(payload[:2], "big") == 1001, payload
        mask = b"\x01\x02\x03\x04"  # answer the close, as a client must
        writer.write(b"\x88\x82" + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload[:2])))
        assert await asyncio.wait_for(reader.read(), 2) == b""
        writer.close()


async def test_client_answering_pings_stays_connected(binary):
    async with TesseraServer(binary, "--ping-interval", "1", "--idle-timeout", "2") as server:
        async with server.connect(ping_interval=None) as client:
            await asyncio.sleep(3.5)  # the behaviour under test: staying idle past the timeout
            await echo_round_trip(client)


async def test_handshake_timeout_closes_silent_socket(binary):
    async with TesseraServer(binary, "--handshake-timeout", "1") as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        started = time.monotonic()
        writer.write(b"GET /ws HTTP/1.1\r\nHost: x\r\n")  # never finishes its headers
        data = await asyncio.wait_for(reader.read(), 10)
        assert time.monotonic() - started < 4, time.monotonic() - started
        assert data == b"", data
        writer.close()


if __name__ == "__main__":
    run_tests(globals())
