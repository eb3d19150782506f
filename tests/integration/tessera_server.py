"""tessera_server.py -- a real `tessera serve` process for integration tests.

Each test starts its own server on a free port (`--port 0`) with a database
in a fresh temporary folder, learns the port from the one line the server
prints on stdout (`listening on http://ADDRESS:PORT`), and stops it with a
signal, expecting exit status 0 within 5 seconds. Nothing here sleeps to
synchronize: every wait is for a line, a reply or a process exit, bounded
by a timeout.

The server's stderr (its log) is collected as it arrives, so a test can
wait for a log line that proves an event happened on the server side.

Every message a websocket client of the test process receives (this
module replaces websockets.connect with checked_connect, so the tests' own
connections and the SDK's are all covered), and every JSON answer of
http_request, is checked against the published schemas (schema_check.py)
when the test ends: a test fails on any message or answer that drifts from
them.

A test file lists `async def test_...(binary)` functions and calls
`run_tests(globals())`; each test runs under an overall timeout, and the
last line printed is "N passed, M failed" (exit status 1 on any failure).
"""

import argparse
import asyncio
import json
import os
import re
import resource
import signal
import sys
import tempfile
import time
import traceback

import websockets
from websockets.legacy.client import WebSocketClientProtocol

from schema_check import (check_received, discard_received, record_http_answer,
                          record_server_message)

LISTENING = re.compile(r"^listening on http://\[?([^\]]+)\]?:(\d+)$")
START_TIMEOUT_S = 10
STOP_TIMEOUT_S = 20  # a sanitizer build on a loaded machine may take several seconds
TEST_TIMEOUT_S = 60


class CheckedConnection(WebSocketClientProtocol):
    """A websockets client connection whose every received text message is
    checked against docs/schema/server-messages.json (after the test)."""

    async def recv(self):
        data = await super().recv()
        if isinstance(data, str):
            record_server_message(data)
        return data


def checked_connect(uri, **options):
    """websockets.connect, with CheckedConnection unless told otherwise."""
    options.setdefault("create_protocol", CheckedConnection)
    return _UNCHECKED_CONNECT(uri, **options)


# Every websocket client of the test process is checked: the tests' own
# connections and the Python SDK's (tessera_bot.session calls
# websockets.connect), run in-process by the SDK's tests.
_UNCHECKED_CONNECT = websockets.connect
websockets.connect = checked_connect


class TesseraServer:
    """One `tessera serve` subprocess; use `async with TesseraServer(...)`."""

    def __init__(self, binary, *flags, port=0, descriptor_limit=None, db_path=None):
        self.binary = binary
        self.flags = list(flags)
        self.requested_port = port
        self.descriptor_limit = descriptor_limit  # RLIMIT_NOFILE of the server, if given
        self.port = None
        self.process = None
        self.log = []
        self._log_changed = asyncio.Condition()
        self._folder = tempfile.TemporaryDirectory(prefix="tessera-test-")
        self._db_path = db_path  # another run's database, to restart on it
        self._stderr_task = None

    @property
    def db_path(self):
        return self._db_path or os.path.join(self._folder.name, "t.db")

    def _limit_descriptors(self):
        """Runs in the child before exec: caps its open descriptors."""
        resource.setrlimit(resource.RLIMIT_NOFILE, (self.descriptor_limit, self.descriptor_limit))

    async def start(self):
        """Starts the process; returns once it printed its listening line."""
        self.process = await asyncio.create_subprocess_exec(
            self.binary, "serve", "--port", str(self.requested_port), "--db", self.db_path,
            *self.flags,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            preexec_fn=self._limit_descriptors if self.descriptor_limit else None)
        self._stderr_task = asyncio.create_task(self._collect_stderr())
        line = await asyncio.wait_for(self.process.stdout.readline(), START_TIMEOUT_S)
        match = LISTENING.match(line.decode().strip())
        if not match:
            await self.process.wait()
            await self._stderr_task
            raise AssertionError(f"no listening line (got {line!r}); log: {self.log}")
        self.port = int(match.group(2))
        return self

    async def _collect_stderr(self):
        async for raw in self.process.stderr:
            async with self._log_changed:
                self.log.append(raw.decode(errors="replace").rstrip("\n"))
                self._log_changed.notify_all()

    async def wait_for_log(self, pattern, timeout=5):
        """Waits for a log line matching the regular expression; returns it."""
        regex = re.compile(pattern)

        def find():
            return next((line for line in self.log if regex.search(line)), None)

        async with self._log_changed:
            await asyncio.wait_for(self._log_changed.wait_for(find), timeout)
            return find()

    async def stop(self, signal_number=signal.SIGTERM, timeout=STOP_TIMEOUT_S):
        """Sends the signal; returns the exit status, waited for `timeout`."""
        if self.process.returncode is None:
            self.process.send_signal(signal_number)
        try:
            status = await asyncio.wait_for(self.process.wait(), timeout)
        except asyncio.TimeoutError:
            self.process.kill()
            await self.process.wait()
            raise AssertionError(f"server did not exit within {timeout} s; log: {self.log}")
        await self._stderr_task
        return status

    def cpu_seconds(self):
        """The server's CPU time so far (user + system), from /proc."""
        with open(f"/proc/{self.process.pid}/stat") as stat:
            fields = stat.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def ws_url(self, path="/ws"):
        return f"ws://127.0.0.1:{self.port}{path}"

    def connect(self, path="/ws", **options):
        """A websockets client connection (await it, or use `async with`)."""
        options.setdefault("open_timeout", 5)
        options.setdefault("close_timeout", 5)
        return websockets.connect(self.ws_url(path), **options)

    async def http(self, method, path, body=b"", timeout=5, headers=None, source="127.0.0.1"):
        """One HTTP/1.1 request from the address `source`; returns (status,
        headers dict, body bytes)."""
        return await http_request(self.port, method, path, body, timeout, headers, source)

    async def __aenter__(self):
        return await self.start()

    async def __aexit__(self, kind, value, trace):
        status = await self.stop()
        self._folder.cleanup()
        if kind is not None:
            print("server log:\n  " + "\n  ".join(self.log), file=sys.stderr)
            return
        assert status == 0, f"exit status {status}; log: {self.log}"


class RestartableServer(TesseraServer):
    """A server whose database outlives the process (same file each start)."""

    def __init__(self, binary, folder, *flags):
        super().__init__(binary, *flags, db_path=os.path.join(folder, "t.db"))


# The security headers every answer of the server carries (docs/API.md).
SECURITY_HEADERS = {
    "content-security-policy":
        "default-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def assert_security_headers(headers, what):
    """The server's security headers, each once, whoever served the answer."""
    for name, value in SECURITY_HEADERS.items():
        assert headers.get(name) == value, (what, name, headers)


async def http_request(port, method, path, body=b"", timeout=5, headers=None,
                       source="127.0.0.1"):
    """A raw HTTP/1.1 request with Connection: close, read to the end;
    `headers` (a dict) adds request headers."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    extra = "".join(f"{name}: {value}\r\n" for name, value in (headers or {}).items())
    head = (f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}"
            f"Connection: close\r\nContent-Length: {len(body)}\r\n\r\n")
    writer.write(head.encode() + body)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), timeout)
    writer.close()
    header_block, _, payload = data.partition(b"\r\n\r\n")
    lines = header_block.decode().split("\r\n")
    status = int(lines[0].split()[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    record_http_answer(method, path, status, headers, payload)
    return status, headers, payload


UPGRADE_REQUEST = (b"GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
                   b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                   b"Sec-WebSocket-Version: 13\r\n\r\n")


async def raw_websocket(port):
    """A websocket handshake over a plain TCP stream, for a client that
    must misbehave in ways the websockets library does not allow.
    Returns (reader, writer) positioned after the handshake."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(UPGRADE_REQUEST)
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    assert head.startswith(b"HTTP/1.1 101"), head
    return reader, writer


def ping_text(data):
    """A ping whose pong carries `data` back: a reply of known size."""
    return json.dumps({"type": "ping", "data": data})


async def echo_round_trip(connection, text="ping"):
    """Sends a ping carrying `text` and checks the pong brings it back."""
    await connection.send(ping_text(text))
    reply = json.loads(await asyncio.wait_for(connection.recv(), 5))
    assert reply == {"type": "pong", "data": text}, reply


async def ask(connection, message, on_event=None, timeout=5):
    """Sends `message` with the connection's next request id and returns the
    reply echoing it; messages arriving before it go to `on_event`."""
    connection.last_request_id = getattr(connection, "last_request_id", 0) + 1
    await connection.send(json.dumps(dict(message, id=connection.last_request_id)))
    while True:
        reply = json.loads(await asyncio.wait_for(connection.recv(), timeout))
        if reply.get("id") == connection.last_request_id:
            return reply
        if on_event:
            on_event(reply)


def run_tests(namespace):
    """Runs every `test_*` coroutine function of `namespace` in order."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True, help="path to the tessera binary")
    parser.add_argument("tests", nargs="*", help="names of the tests to run (default: all)")
    arguments = parser.parse_args()
    tests = [(name, function) for name, function in namespace.items()
             if name.startswith("test_") and asyncio.iscoroutinefunction(function)
             and (not arguments.tests or name in arguments.tests)]
    passed = failed = 0
    for name, function in tests:
        started = time.monotonic()
        try:
            discard_received()
            asyncio.run(asyncio.wait_for(function(arguments.tessera), TEST_TIMEOUT_S))
            check_received()  # what the test received, against the published schemas
            passed += 1
            print(f"ok   {name} ({time.monotonic() - started:.2f} s)", flush=True)
        except Exception:
            failed += 1
            print(f"FAIL {name}", flush=True)
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed", flush=True)
    sys.exit(1 if failed or not tests else 0)
