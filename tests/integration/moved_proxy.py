"""moved_proxy.py -- a stub of several instances in front of one real server.

A test's websocket proxy: it forwards every connection to the real `tessera
serve` behind it (same path and query), recording each connection's path and
what the client sent, and says `moved` (docs/PROTOCOL.md) where the test
wants it, as a server of several instances would:

- as the answer to a client message for which `move_to(message, record)`
  names an instance (the message is then not forwarded);
- as an event, when the test calls `send_moved(record, room, instance)`
  (another instance took the room over).

Plain HTTP GETs (the SDK's piece table) are passed on to the server too.

The `moved` names /ws?room=CODE&instance=ID, which this proxy also serves.
Nothing sleeps: `until_connections(n)` waits for the n-th connection.
"""

import asyncio
import json
from http import HTTPStatus

import websockets

from tessera_server import http_request

HOP_BY_HOP = {"connection", "content-length", "transfer-encoding", "keep-alive"}
MAX_MESSAGE_BYTES = 2 ** 22


class Connection:
    """One client connection through the proxy: its path, what the client
    sent (decoded), and when the proxy first said `moved` on it."""

    def __init__(self, client, path):
        self.client = client
        self.path = path
        self.sent = []
        self.opened_at = asyncio.get_running_loop().time()
        self.moved_at = None


class MovingProxy:
    """Use `async with MovingProxy(server.port, move_to=...) as proxy`."""

    def __init__(self, backend_port, move_to=lambda message, record: None, retry_ms=0):
        self.backend_port = backend_port
        self.move_to = move_to
        self.retry_ms = retry_ms
        self.connections = []
        self.port = None
        self._changed = asyncio.Condition()
        self._server = None

    def ws_url(self, path="/ws"):
        return f"ws://127.0.0.1:{self.port}{path}"

    async def __aenter__(self):
        self._server = await websockets.serve(self._relay, "127.0.0.1", 0,
                                              max_size=MAX_MESSAGE_BYTES,
                                              process_request=self._plain_http)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, kind, value, trace):
        self._server.close()
        await self._server.wait_closed()

    async def until_connections(self, count, timeout=10):
        """Waits until `count` connections came through; returns them all."""
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self.connections) >= count), timeout)
        return self.connections

    async def until_sent(self, record, check, timeout=10):
        """Waits until check(record.sent) holds (checked as messages pass)."""
        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: check(record.sent)), timeout)

    async def send_moved(self, record, room, instance, request_id=None):
        """Says `moved` on the connection: room `room` (None: quick play)
        lives on `instance`."""
        if record.moved_at is None:
            record.moved_at = asyncio.get_running_loop().time()
        moved = {"type": "moved", "room": room, "instance": instance,
                 "url": f"/ws?room={room}&instance={instance}", "retry_ms": self.retry_ms}
        if room is None:
            del moved["room"]
            moved["url"] = f"/ws?instance={instance}"
        if request_id is not None:
            moved["id"] = request_id
        await record.client.send(json.dumps(moved))

    async def _plain_http(self, path, headers):
        """A GET that is no websocket upgrade: the server's answer."""
        if headers.get("Upgrade", "").lower() == "websocket":
            return None
        status, answer_headers, body = await http_request(self.backend_port, "GET", path)
        return HTTPStatus(status), [(name, value) for name, value in answer_headers.items()
                        if name not in HOP_BY_HOP], body

    async def _relay(self, client, path):
        record = Connection(client, path)
        async with self._changed:
            self.connections.append(record)
            self._changed.notify_all()
        async with websockets.connect(f"ws://127.0.0.1:{self.backend_port}{path}",
                                      max_size=MAX_MESSAGE_BYTES) as server:
            upstream = asyncio.create_task(self._upstream(record, server))
            downstream = asyncio.create_task(self._pipe(server, client))
            await asyncio.wait({upstream, downstream}, return_when=asyncio.FIRST_COMPLETED)
            for task in (upstream, downstream):
                task.cancel()
            await asyncio.gather(upstream, downstream, return_exceptions=True)

    async def _upstream(self, record, server):
        try:
            async for text in record.client:
                message = json.loads(text)
                record.sent.append(message)
                async with self._changed:
                    self._changed.notify_all()
                instance = self.move_to(message, record)
                if instance:
                    await self.send_moved(record, message.get("room"), instance,
                                          message.get("id"))
                else:
                    await server.send(text)
        except websockets.ConnectionClosed:
            pass

    @staticmethod
    async def _pipe(source, sink):
        try:
            async for text in source:
                await sink.send(text)
        except websockets.ConnectionClosed:
            pass
