"""test_descriptors.py -- a server out of file descriptors stays calm and recovers.

The server runs with a small RLIMIT_NOFILE and is filled with idle TCP
connections from one address (the per-address limit raised out of the
way). Full, it must neither spin (its CPU time, read from /proc, barely
moves) nor flood its log (one line per second at most); clients that
connect meanwhile wait in the kernel's backlog. Once the idle connections
go, the waiting client and a new one are served.
"""

import asyncio
import json

from tessera_server import TesseraServer, run_tests

DESCRIPTOR_LIMIT = 64
IDLE_CONNECTIONS = 90  # more than the limit: some wait in the backlog
FULL_WINDOW_S = 2      # how long the server is watched while full
FULL_LOG = r"not accepting connections: Too many open files"


async def sign_in(client, name):
    await client.send(json.dumps({"type": "hello", "name": name, "id": 1}))
    reply = json.loads(await asyncio.wait_for(client.recv(), 5))
    assert reply["type"] == "welcome", reply


async def connect_and_sign_in(server, name):
    async with server.connect(open_timeout=10) as client:
        await sign_in(client, name)


async def test_full_server_does_not_spin_and_serves_again(binary):
    flags = ("--connections-per-ip", "1000", "--handshake-timeout", "60")
    async with TesseraServer(binary, *flags, descriptor_limit=DESCRIPTOR_LIMIT) as server:
        idle = [await asyncio.open_connection("127.0.0.1", server.port)
                for _ in range(IDLE_CONNECTIONS)]
        await server.wait_for_log(FULL_LOG)
        waiting = asyncio.create_task(connect_and_sign_in(server, "waiting"))
        log_lines_before = len(server.log)
        cpu_before = server.cpu_seconds()
        await asyncio.sleep(FULL_WINDOW_S)  # the behaviour under test: idling while full
        cpu_used = server.cpu_seconds() - cpu_before
        assert cpu_used < 0.2, f"{cpu_used:.2f} s of CPU in {FULL_WINDOW_S} s while full"
        new_lines = server.log[log_lines_before:]
        assert len(new_lines) <= FULL_WINDOW_S + 1, new_lines
        assert not waiting.done(), "a client was served while the server was full"

        for _, writer in idle:
            writer.close()
        await asyncio.wait_for(waiting, 10)
        await connect_and_sign_in(server, "after")
        assert len(server.log) < 30, server.log


if __name__ == "__main__":
    run_tests(globals())
