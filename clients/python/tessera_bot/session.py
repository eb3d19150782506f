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

On a server of several instances (docs/PROTOCOL.md, `moved`), a session
told its room up front connects to /ws?room=CODE, which the proxy routes to
the room's owner. A `moved` (the answer to a room.join, room.rematch,
queue.join -- quick play lives on one instance -- or tournament.watch, or an event when another
instance took the room or quick play over) is followed: the session
closes its connection, waits retry_ms, connects to the url it names on the
same host and port, says hello with its token, then sends again the request
that got `moved` (whose caller gets the new answer) or, for the event, a
room.join as a spectator, which gives a seated player its view again (for
quick play, its last queue.join). Drops
after that reconnect there. At most MAX_MOVES moves in a row without a room
answer, the same place waited for longer each time it comes back; then the
request fails with the error code "moved" (for an event, the session ends).
"""

import asyncio
import json
import logging
from urllib.parse import urlencode, urlsplit, urlunsplit

import websockets

DEFAULT_RETRY_DELAYS = (0.25, 0.5, 1, 2, 4, 8)  # seconds; the last one repeats
REPLACED_REASON = "signed in from another connection"
MAX_MESSAGE_BYTES = 2 ** 22  # a 4p game.moves list is tens of KB; stay well clear
MAX_MOVES = 8  # `moved` in a row without a room answer: then the room is given up
REPEAT_DELAY_S = 0.25  # the least wait before a place already moved to, doubling
MAX_REPEAT_DELAY_S = 8

log = logging.getLogger("tessera_bot")


def room_url(url, room):
    """The websocket URL `url` asking for `room` (/ws?room=CODE): a proxy in
    front of several instances routes it to the room's owner."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(query=urlencode({"room": room})))


def moved_url(url, path):
    """The URL a `moved` names: its path (and query) on the host and port of `url`."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, "", "", "")) + path


def _place(moved):
    """What a `moved` is about: its room, its tournament, or quick play."""
    if "room" in moved:
        return f"room {moved['room']}"
    return f"tournament {moved['tournament']}" if "tournament" in moved else "quick play"


def _settle(future, result=None, error=None):
    """Gives a request's future its answer (or error), unless it is done
    (its caller gave up waiting)."""
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


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
    is not a reply; `on_signed_in(welcome, is_reconnect)` after each hello.
    `room`, a room code known up front, makes it connect to that room's
    owner (the URL with ?room=CODE)."""

    def __init__(self, url, *, name, key=None, token=None, on_event, on_signed_in,
                 retry_delays=DEFAULT_RETRY_DELAYS, max_retries=None, room=None):
        self.url = room_url(url, room) if room else url  # where it connects; a move changes it
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
        self._moves = {}  # url -> times a `moved` sent the session there since a room answer
        self._queue_join = None  # the last queue.join asked
        self._move = None  # (moved, request it answered or None) while following one
        self._gave_up = None  # SessionEnded: a moved event the session could not follow
        self.moves_followed = 0
        self._tasks = set()  # the joins after a move, under way
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
        """Sends `message` with a fresh id; returns the reply (after any
        `moved` was followed). Raises RequestError for an error reply,
        ConnectionLost on a drop."""
        answer = await self._ask(message)
        if answer.get("type") == "error":
            raise RequestError(answer)
        return answer

    async def _ask(self, message):
        """Sends `message` with a fresh id; returns the answer, whatever its type."""
        if self._connection is None:
            raise ConnectionLost("not connected")
        if message.get("type") == "queue.join":
            self._queue_join = message  # sent again if quick play moves (a `moved` event)
        self._last_id += 1
        reply = asyncio.get_running_loop().create_future()
        self._pending[self._last_id] = (reply, message)
        try:
            await self._connection.send(json.dumps(dict(message, id=self._last_id)))
        except websockets.ConnectionClosed as closed:
            self._pending.pop(self._last_id, None)
            raise ConnectionLost(str(closed)) from None
        return await reply

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
        waiting = self._pending.pop(message.get("id"), None) if "id" in message else None
        if self.player_id is None and message.get("type") == "queue.joined":
            # a guest learns its id as it queues, before the match's room event
            self.player_id = message["player_id"]
        if message.get("type") == "moved":
            self._on_moved(message, waiting)
            return
        if waiting is not None:
            if message.get("type") in ("room", "queue.joined", "tournament"):
                self._moves.clear()  # the place asked for answered: any move is over
            _settle(waiting[0], message)
            return
        if message.get("type") == "error":
            log.warning("server error: %s", message.get("message"))
        self._on_event(message)

    def _on_moved(self, moved, waiting):
        """A `moved` answering `waiting` (request future and message), or an
        event (None): follow it once this connection is closed, or give up."""
        url, room, retry_ms = moved.get("url"), moved.get("room"), moved.get("retry_ms", 0)
        times = self._moves.get(url, 0) + 1
        if not isinstance(url, str) or not url.startswith("/") \
                or not (room is None or isinstance(room, str)) \
                or not isinstance(retry_ms, int) or retry_ms < 0:
            problem = f"the server sent a moved that names no place to go: {moved}"
        elif sum(self._moves.values()) + 1 > MAX_MOVES:
            problem = f"{_place(moved)} was moved {MAX_MOVES} times in a row without opening"
        else:
            self._moves[url] = times
            self._move = (moved, waiting)
            return
        log.error("cannot follow moved: %s", problem)
        if waiting is not None:
            _settle(waiting[0], {"type": "error", "code": "moved", "message": problem})
        else:
            self._gave_up = SessionEnded(f"cannot follow moved: {problem}")

    async def _follow_move(self):
        """Connects where the `moved` said, after its retry_ms (longer when
        that place comes back), then joins the room there again."""
        moved, waiting = self._move
        self._move = None
        self.moves_followed += 1
        times = self._moves[moved["url"]]
        least = min(MAX_REPEAT_DELAY_S, REPEAT_DELAY_S * 2 ** (times - 2)) if times > 1 else 0
        delay = max(moved.get("retry_ms", 0) / 1000, least)
        self.url = moved_url(self.url, moved["url"])
        log.info("%s is on instance %s: reconnecting to %s in %.2f s", _place(moved),
                 moved.get("instance"), self.url, delay)
        await asyncio.sleep(delay)
        if self._closing:
            return
        await self._connect_with_retries(is_reconnect=True)
        task = asyncio.create_task(self._join_after_move(moved, waiting))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _join_after_move(self, moved, waiting):
        """The request that got `moved` again (its caller gets this answer),
        or for an event, room.join as a spectator (the answer is an event)
        -- for quick play's, the session's last queue.join again."""
        if waiting:
            message = waiting[1]
        elif "room" in moved:
            message = {"type": "room.join", "room": moved["room"], "as": "spectator"}
        elif self._queue_join is not None:
            message = self._queue_join
        else:
            return
        try:
            answer = await self._ask(message)
        except ConnectionLost as lost:
            if waiting is not None:
                _settle(waiting[0], error=lost)
            return
        if waiting is not None:
            _settle(waiting[0], answer)
        elif answer.get("type") == "error":
            log.warning("could not join %s after it moved: %s", _place(moved),
                        answer.get("message"))
        else:
            self._on_event(answer)

    async def _serve(self):
        """Reads messages; on a drop, reconnects until the session ends."""
        try:
            while True:
                await self._read_until_closed()
                if self._closing:
                    return
                if self._move is not None:
                    await self._follow_move()
                    if self._closing:
                        return
                    continue
                self.reconnects += 1
                log.warning("connection lost; reconnecting as %s", self.name)
                await self._connect_with_retries(is_reconnect=True)
        except SessionEnded as ended:
            log.error("%s", ended)
            self._end(ended)

    async def _read_until_closed(self):
        """Dispatches messages until the connection closes or a `moved`
        is to be followed (then closes it)."""
        connection = self._connection
        try:
            async for text in connection:
                self._dispatch(json.loads(text))
                if self._move is not None or self._gave_up is not None:
                    break
        except websockets.ConnectionClosed:
            pass
        self._connection = None
        await connection.close()
        for reply, _ in self._pending.values():
            _settle(reply, error=ConnectionLost("connection closed"))
        self._pending.clear()
        if self._gave_up is not None:
            raise self._gave_up
        if connection.close_reason == REPLACED_REASON:
            raise SessionEnded("this bot signed in from another connection; stopping here")

    def _end(self, error):
        if self.ended is not None and not self.ended.done():
            if error is None:
                self.ended.set_result(None)
            else:
                self.ended.set_exception(error)
