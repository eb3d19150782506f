"""test_lifecycle.py -- starting and stopping `tessera serve`.

A signal stops the server gracefully: every client gets a 1001 close and
the process exits 0 within 5 seconds, even when a client never answers.
Failing to start is loud and has a distinct exit status: 1 when the port
is taken, 2 for a bad option. SIGHUP neither stops nor disturbs it: it is
logged as ignored, and the clients play on.
"""

import asyncio
import json
import os
import signal
import time

import websockets

from tessera_server import TesseraServer, ask, echo_round_trip, raw_websocket, run_tests

EXIT_TIMEOUT_S = 5


async def run_to_exit(binary, *arguments, timeout=EXIT_TIMEOUT_S):
    """Runs `tessera serve ARGUMENTS` to its end: (status, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        binary, "serve", *arguments,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    stdout, stderr = await asyncio.wait_for(process.communicate(), timeout)
    return process.returncode, stdout.decode(), stderr.decode()


async def expect_going_away(client):
    """The server says it is shutting down, then closes with 1001."""
    told = False
    try:
        while True:
            message = json.loads(await asyncio.wait_for(client.recv(), EXIT_TIMEOUT_S))
            told = told or message.get("type") == "server.shutdown"
    except websockets.ConnectionClosed as closed:
        assert closed.rcvd is not None and closed.rcvd.code == 1001, closed
    assert told, "no server.shutdown message before the close"


async def stop_with_clients_connected(binary, signal_number):
    server = await TesseraServer(binary).start()
    try:
        clients = [await server.connect() for _ in range(3)]
        for client in clients:
            await echo_round_trip(client)
        _, unresponsive = await raw_websocket(server.port)  # never reads, never answers
        started = time.monotonic()
        status = await server.stop(signal_number, timeout=EXIT_TIMEOUT_S)
        assert status == 0, f"exit status {status}; log: {server.log}"
        assert time.monotonic() - started < EXIT_TIMEOUT_S
        for client in clients:
            await expect_going_away(client)
        unresponsive.close()
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()


async def test_sigterm_with_clients_connected_exits_0_within_5_s(binary):
    await stop_with_clients_connected(binary, signal.SIGTERM)


async def test_sigint_with_clients_connected_exits_0_within_5_s(binary):
    await stop_with_clients_connected(binary, signal.SIGINT)


async def test_sigterm_with_many_bot_rooms_thinking_exits_at_once(binary):
    """40 rooms of four MCTS bots, each search allowed 2 s: stopping must
    not wait for the queue (~27 s) nor for running searches to end."""
    server = await TesseraServer(binary, "--bot-think-ms", "2000", "--max-rooms-per-player",
                                 "100", "--rate", "100000", "--burst", "100000").start()
    try:
        owner = await server.connect(max_size=2 ** 24)
        await ask(owner, {"type": "hello", "name": "arena"})
        for _ in range(40):
            room = (await ask(owner, {"type": "room.create", "game": "blokus", "mode": "4p"}))
            code = room["room"]["id"]
            for seat in range(4):
                await ask(owner, {"type": "room.add_bot", "room": code, "seat": seat,
                                  "bot": "mcts"})
            started = await ask(owner, {"type": "room.start", "room": code})
            assert started["type"] == "room.started", started
        started = time.monotonic()
        status = await server.stop(signal.SIGTERM, timeout=EXIT_TIMEOUT_S)
        elapsed = time.monotonic() - started
        assert status == 0, f"exit status {status}; log: {server.log}"
        # A search still running would hold the exit for up to its 2 s.
        assert elapsed < 1.5, f"took {elapsed:.2f} s to stop"
    finally:
        if server.process.returncode is None:
            server.process.kill()
            await server.process.wait()


async def test_sighup_is_logged_as_ignored_and_changes_nothing(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as client:
            await echo_round_trip(client, "before")
            server.process.send_signal(signal.SIGHUP)
            line = await server.wait_for_log(r"Hangup: ignored")
            assert "restart the server to apply a changed config" in line, line
            await echo_round_trip(client, "after")  # the same connection, still served
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


async def test_second_server_on_the_same_port_fails_with_status_1(binary):
    async with TesseraServer(binary) as first:
        status, stdout, stderr = await run_to_exit(
            binary, "--port", str(first.port), "--db", first.db_path + ".second")
        assert status == 1, (status, stderr)
        assert "listening on" not in stdout
        assert f"cannot listen on 127.0.0.1:{first.port}: Address already in use" in stderr, stderr
        async with first.connect() as client:
            await echo_round_trip(client)


async def test_ipv6_address_is_listened_on(binary):
    async with TesseraServer(binary, "--bind", "::1") as server:
        async with websockets.connect(f"ws://[::1]:{server.port}/ws", open_timeout=5) as client:
            await echo_round_trip(client)


async def test_bad_option_value_exits_2_with_a_clear_message(binary):
    status, stdout, stderr = await run_to_exit(binary, "--port", "http")
    assert status == 2, status
    assert "--port: expected an integer from 0 to 65535, got 'http'" in stderr, stderr
    status, _, stderr = await run_to_exit(binary, "--no-such-option", "1")
    assert status == 2 and "unknown option '--no-such-option'" in stderr, stderr


async def test_help_exits_0_and_lists_the_options(binary):
    status, stdout, _ = await run_to_exit(binary, "--help")
    assert status == 0
    for option in ("--port", "--bind", "--db", "--db-sync", "--log-level", "--max-message-bytes",
                   "--rate", "--burst", "--connections-per-ip", "--send-queue-bytes",
                   "--ping-interval", "--idle-timeout", "--handshake-timeout", "--config"):
        assert option in stdout, option


async def test_database_folder_is_created(binary):
    server = TesseraServer(binary)
    nested = os.path.join(os.path.dirname(server.db_path), "a", "b", "t.db")
    server.flags = ["--db", nested]
    async with server:
        assert os.path.isdir(os.path.dirname(nested))


async def test_config_file_and_environment_are_applied(binary):
    server = TesseraServer(binary, "--log-level", "warn")
    config = os.path.join(os.path.dirname(server.db_path), "tessera.conf")
    with open(config, "w") as file:
        file.write("# small messages only\nmax-message-bytes = 100\n")
    server.flags += ["--config", config]
    async with server:
        async with server.connect() as client:
            await client.send("x" * 101)
            try:
                await asyncio.wait_for(client.recv(), 5)
                raise AssertionError("a message over the file's cap was accepted")
            except websockets.ConnectionClosed as closed:
                assert closed.rcvd.code == 1009
    assert not any(" info " in line for line in server.log), server.log


if __name__ == "__main__":
    run_tests(globals())
