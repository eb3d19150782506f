"""session.py -- one signed-in websocket session that survives drops.

A Session owns the connection: it says hello (with the session token if it
has one, else the bot key, else as a new guest), matches each reply to its
request by `id`, and hands every other message (events) to its owner. When
the connection drops it reconnects with backoff and signs in again with the
same identity; the server then sends back the rooms and game states of every
seat it holds, so a game in progress simply continues. Requests that were
waiting when the connection dropped fail with ConnectionLost: their answer
can no longer arrive, and a move names its ply, so sending it again is safe.

Two things end a session instead of a reconnect: the server refusing the
identity (`unauthorized`: an unknown key), and the same identity signing in
elsewhere (close reason "signed in from another connection"), where
reconnecting would only take the seat back and forth between two programs.
"""

import asyncio
import json
import logging

import websockets

DEFAULT_RETRY_DELAYS = (0.25, 0.5, 1, 2, 4, 8)  # seconds; the last one repeats
REPLACED_REASON = "signed in from another connection"
MAX_MESSAGE_BYTES = 2 ** 22  # a 4p game.moves list is tens of KB; stay well clear

log = logging.getLogger("tessera_bot")


class ConnectionLost(Exception):
    """The connection dropped before the reply to a request arrived."""


class SessionEnded(Exception):
    """The session stopped for good (closed, refused, or replaced)."""


class RequestError(Exception):
    """The server answered a request with an error message."""

    def __init__(self, error):
        super().__init__(f"{error.get('code')}: {error.get('message')}")
        self.error = error
        self.code = error.get("code")


class Session:
    """A websocket session to a tessera server; see the module comment.

    `on_event(message)` is called (on the event loop) for every message that
    is not a reply; `on_signed_in(welcome, is_reconnect)` after each hello."""

    def __init__(self, url, *, name, key=None, token=None, on_event, on_signed_in,
                 retry_delays=DEFAULT_RETRY_DELAYS, max_retries=None):
        self.url = url
        self.name = name
        self.key = key
        self.token = token
        self.player_id = None
        self.reconnects = 0
        self._on_event = on_event
        self._on_signed_in = on_signed_in
        self._retry_delays = retry_delays
        self._max_retries = max_retries
        self._connection = None
        self._pending = {}
        self._last_id = 0
        self._closing = False
        self._serve_task = None
        self.ended = None  # a future: set when the session stops for good

    async def start(self):
        """Connects and signs in (retrying like a reconnect); then serves."""
        self.ended = asyncio.get_running_loop().create_future()
        await self._connect_with_retries(is_reconnect=False)
        self._serve_task = asyncio.create_task(self._serve())

    async def close(self):
        """Closes the connection; the session ends without reconnecting."""
        self._closing = True
        if self._connection is not None:
            await self._connection.close()
        if self._serve_task is not None:
            await self._serve_task
        self._end(None)

    @property
    def connection(self):
        """The current websocket (tests use it to cut the line)."""
        return self._connection

    async def request(self, message):
        """Sends `message` with a fresh id; returns the reply. Raises
        RequestError for an error reply, ConnectionLost on a drop."""
        if self._connection is None:
            raise ConnectionLost("not connected")
        self._last_id += 1
        reply = asyncio.get_running_loop().create_future()
        self._pending[self._last_id] = reply
        try:
            await self._connection.send(json.dumps(dict(message, id=self._last_id)))
        except websockets.ConnectionClosed as closed:
            self._pending.pop(self._last_id, None)
            raise ConnectionLost(str(closed)) from None
        answer = await reply
        if answer.get("type") == "error":
            raise RequestError(answer)
        return answer

    def _hello(self):
        hello = {"type": "hello", "name": self.name, "bot": True, "id": 0}
        if self.token:
            hello["token"] = self.token
        elif self.key:
            hello["key"] = self.key
        return hello

    async def _sign_in(self, is_reconnect):
        """One connection and hello; leaves the events after welcome unread."""
        connection = await websockets.connect(self.url, max_size=MAX_MESSAGE_BYTES,
                                              open_timeout=10, close_timeout=5)
        try:
            await connection.send(json.dumps(self._hello()))
            while True:
                answer = json.loads(await asyncio.wait_for(connection.recv(), 10))
                if answer.get("id") == 0:
                    break
        except BaseException:
            await connection.close()
            raise
        if answer["type"] == "error":
            await connection.close()
            if answer["code"] == "unauthorized" and self.token and not self.key:
                # A guest that never sat keeps no token across a drop.
                self.token = None
                return await self._sign_in(is_reconnect)
            raise SessionEnded(f"hello refused: {answer['code']}: {answer['message']}")
        self.token = answer.get("token", self.token)
        self.player_id = answer["player"]["id"]
        self._connection = connection
        self._on_signed_in(answer, is_reconnect)
        return answer

    async def _connect_with_retries(self, is_reconnect):
        failures = 0
        while True:
            try:
                return await self._sign_in(is_reconnect)
            except (OSError, asyncio.TimeoutError, websockets.WebSocketException) as error:
                failures += 1
                if self._max_retries is not None and failures > self._max_retries:
                    raise SessionEnded(f"cannot connect to {self.url}: {error}") from error
                delay = self._retry_delays[min(failures, len(self._retry_delays)) - 1]
                log.warning("connection to %s failed (%s); retrying in %.2f s",
                            self.url, error, delay)
                await asyncio.sleep(delay)

    def _dispatch(self, message):
        reply = self._pending.pop(message.get("id"), None) if "id" in message else None
        if self.player_id is None and message.get("type") == "queue.joined":
            # a guest learns its id as it queues, before the match's room event
            self.player_id = message["player_id"]
        if reply is not None:
            if not reply.done():
                reply.set_result(message)
            return
        if message.get("type") == "error":
            log.warning("server error: %s", message.get("message"))
        self._on_event(message)

    async def _serve(self):
        """Reads messages; on a drop, reconnects until the session ends."""
        try:
            while True:
                await self._read_until_closed()
                if self._closing:
                    return
                self.reconnects += 1
                log.warning("connection lost; reconnecting as %s", self.name)
                await self._connect_with_retries(is_reconnect=True)
        except SessionEnded as ended:
            log.error("%s", ended)
            self._end(ended)

    async def _read_until_closed(self):
        connection = self._connection
        try:
            async for text in connection:
                self._dispatch(json.loads(text))
        except websockets.ConnectionClosed:
            pass
        self._connection = None
        for reply in self._pending.values():
            if not reply.done():
                reply.set_exception(ConnectionLost("connection closed"))
        self._pending.clear()
        if connection.close_reason == REPLACED_REASON:
            raise SessionEnded("this bot signed in from another connection; stopping here")

    def _end(self, error):
        if self.ended is not None and not self.ended.done():
            if error is None:
                self.ended.set_result(None)
            else:
                self.ended.set_exception(error)
