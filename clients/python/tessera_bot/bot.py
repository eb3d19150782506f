"""bot.py -- a bot: a choose(state, legal_moves) function plugged into a session.

The Bot follows rooms. A room is followed when the bot joins or creates it,
or when the server names the bot in one of its seats (quick play and
tournaments seat players by sending a `room` event). For every game.state
of a followed room that says this seat may move, the bot asks the server for
the legal moves (`game.moves`), calls the author's choose() off the event
loop (a slow search must not stop the connection's keepalive), and sends the
chosen action with the state's ply. Each ply is answered once; a reconnect
forgets that, because the server then sends the state again and the move
may have been lost with the connection (the ply makes a resend harmless).

Refusals are handled where they can be: a stale ply or a finished game
means the world moved on (a newer state follows, or the game is over); an
illegal choice is logged, counted, and replaced by a random legal move so
the bot never stalls its seat; a storage error is retried.

After a reconnect, seats in games under way come back by themselves; seats
in rooms that were still waiting are given up by the server on a drop, so
the bot takes them again, and it joins its queue again if it was still
waiting in it (not once matched).
"""

import asyncio
import inspect
import itertools
import logging
import random

from .pieces import PieceTable
from .session import DEFAULT_RETRY_DELAYS, ConnectionLost, RequestError, Session
from .state import GameState

log = logging.getLogger("tessera_bot")

MOVED_ON_CODES = {"stale_ply", "not_your_turn", "game_over", "not_in_room", "not_started",
                  "out_of_time"}
REFUSED_CODES = {"illegal_move", "bad_message"}
RETRY_CODES = {"storage_error", "internal"}
RETRIES = 3
RETRY_DELAY_S = 0.5


class FollowedRoom:
    """What the bot knows of one room it plays in."""

    def __init__(self, code):
        self.code = code
        self.seat = None
        self.room = None  # the latest room object
        self.final_state = None  # the last game.state, once it says "finished"
        self.answered_ply = None  # the ply a move is being (or was) sent for
        self.result = asyncio.get_running_loop().create_future()

    @property
    def status(self):
        return self.room["status"] if self.room else None


class Bot:
    """A bot for a tessera server. Use `async with Bot(choose, url, ...)`.

    `choose(state, legal_moves)` gets a GameState (the game.state message)
    and the server's list of legal actions, and returns one action: one of
    the list, or any action of the game.move form (e.g. a Botpot
    place_piece result). It may be a plain or an async function. `room`, a
    room code the bot is told up front, makes it connect to that room's
    server (see Session)."""

    def __init__(self, choose, url, *, key=None, token=None, name="python-bot",
                 retry_delays=DEFAULT_RETRY_DELAYS, max_retries=None, room=None):
        self.choose = choose
        self.url = url
        self.rooms = {}
        self.results = asyncio.Queue()  # (room code, result) per finished game
        self.refused_moves = []  # error replies to moves choose() made
        self.late_turns = []  # turns the game moved on from (a clock ran out, it ended)
        self.pieces = None
        self._pieces_lock = asyncio.Lock()
        self._queue = None  # (game, mode) while queued: until matched or left
        self._tournament_over = {}  # tournament id -> future of its final view
        self._tasks = set()
        self.session = Session(url, name=name, key=key, token=token,
                               on_event=self._on_event, on_signed_in=self._on_signed_in,
                               retry_delays=retry_delays, max_retries=max_retries, room=room)

    async def __aenter__(self):
        await self.session.start()
        return self

    async def __aexit__(self, kind, value, trace):
        await self.close()

    async def close(self):
        await self.session.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    @property
    def player_id(self):
        return self.session.player_id

    @property
    def token(self):
        """The session token of a guest bot (bot-key sessions have none)."""
        return self.session.token

    async def request(self, message):
        """One request (see Session.request)."""
        return await self.session.request(message)

    # Rooms -----------------------------------------------------------------

    def _follow(self, code):
        if code not in self.rooms:
            self.rooms[code] = FollowedRoom(code)
        return self.rooms[code]

    async def join_room(self, code, seat=None):
        """Takes a seat (the given one, else the first empty) in a room and
        follows it; returns the room object."""
        followed = self._follow(code)
        message = {"type": "room.join", "room": code}
        if seat is not None:
            message["seat"] = seat
        reply = await self.request(message)
        if self.player_id is None and seat is not None:
            # A guest gets its player id with its first seat.
            self.session.player_id = reply["room"]["seats"][seat]["player_id"]
        self._adopt_room(followed, reply["room"])
        log.info("seat %s in room %s (%s %s)", followed.seat, code, reply["room"]["game"],
                 reply["room"]["mode"])
        return reply["room"]

    async def practice(self, game, mode, opponents=("greedy",), seat=0, **options):
        """Creates a room, sits in `seat`, fills every other seat with the
        built-in bots named in `opponents` (cycled; none for Reef solo),
        starts it and returns its code. `options` go to room.create
        (seed, clock, scoring, timeout, max_turns, private)."""
        created = await self.request(dict(options, type="room.create", game=game, mode=mode))
        code = created["room"]["id"]
        await self.join_room(code, seat)
        seats = created["room"]["options"]["seats"]
        others = [other for other in range(seats) if other != seat]
        names = [opponents] if isinstance(opponents, str) else list(opponents)
        for other, opponent in zip(others, itertools.cycle(names) if names else []):
            await self.request({"type": "room.add_bot", "room": code, "seat": other,
                                "bot": opponent})
        await self.request({"type": "room.start", "room": code})
        return code

    async def join_queue(self, game, mode):
        """Quick play: waits in the server's queue for `game`/`mode`. The
        server seats the bot with a `room` event, which also ends its wait in
        the queue; the bot follows the room. One game per join."""
        reply = await self.request({"type": "queue.join", "game": game, "mode": mode})
        self._queue = (game, mode)
        return reply

    async def leave_queue(self):
        """Leaves the quick-play queue (`not_queued` once matched)."""
        self._queue = None
        return await self.request({"type": "queue.leave"})

    async def join_tournament(self, tournament):
        """Follows a tournament the bot is entered in (`tournament.watch`):
        its games arrive as `room` events naming the bot's seat and are
        played like any other. Returns the tournament's view."""
        self._tournament_over.setdefault(tournament, asyncio.get_running_loop().create_future())
        reply = await self.request({"type": "tournament.watch", "tournament": tournament})
        return reply["tournament"]

    async def wait_tournament_over(self, tournament):
        """The final view of a followed tournament (its standings), once the
        server says `tournament.finished` (or `tournament.cancelled`)."""
        return await self._until(self._tournament_over[tournament])

    async def wait_game_over(self, code):
        """The game.over result of a followed room (waits for it)."""
        return await self._until(self._follow(code).result)

    async def next_result(self):
        """(room code, result) of the next game this bot finishes."""
        waiting = asyncio.ensure_future(self.results.get())
        try:
            return await self._until(waiting)
        finally:
            waiting.cancel()

    async def _until(self, future):
        """Waits for `future`, or raises if the session ends first."""
        done, _ = await asyncio.wait({future, self.session.ended},
                                     return_when=asyncio.FIRST_COMPLETED)
        if future in done:
            return future.result()
        self.session.ended.result()  # raises the reason the session ended
        raise ConnectionLost("the session ended")

    def _my_seat(self, room):
        """The seat of `room` this bot holds (and has not left), or None."""
        if self.player_id is None:
            return None
        return next((seat["seat"] for seat in room["seats"] if seat["kind"] == "player"
                     and seat["player_id"] == self.player_id and not seat["left"]), None)

    def _adopt_room(self, followed, room):
        followed.room = room
        seat = self._my_seat(room)
        if seat is not None:
            followed.seat = seat  # a Reef race renumbers its seats at the start
        if room["status"] == "finished":
            self._finish_from_state(followed)

    # Events ----------------------------------------------------------------

    def _on_signed_in(self, welcome, is_reconnect):
        player = welcome["player"]
        log.info("signed in as %s (%s)", player["name"],
                 f"player {player['id']}" if player["id"] else "a guest")
        if "token" in welcome and not is_reconnect:
            log.info("session token %s: --token resumes this guest", welcome["token"])
        if not is_reconnect:
            return
        for followed in self.rooms.values():
            followed.answered_ply = None
            if followed.status == "waiting" and followed.seat is not None:
                self._spawn(self._rejoin(followed))
        if self._queue:
            self._spawn(self.join_queue(*self._queue))

    async def _rejoin(self, followed):
        try:
            await self.join_room(followed.code, followed.seat)
        except RequestError as error:
            log.warning("could not take seat %s of %s again: %s", followed.seat,
                        followed.code, error)

    def _on_event(self, message):
        kind = message.get("type")
        log.debug("event %s", message)
        if kind in ("tournament.finished", "tournament.cancelled"):
            over = self._tournament_over.get(message["tournament"]["id"])
            if over is not None and not over.done():
                over.set_result(message["tournament"])
            return
        if kind.startswith("tournament."):
            return
        code = message.get("room") if kind != "room" else message["room"]["id"]
        is_new_seat = kind == "room" and code not in self.rooms
        if is_new_seat and self._my_seat(message["room"]) is not None:
            followed = self._follow(code)  # quick play or a tournament seated the bot
            if self._queue == (message["room"]["game"], message["room"]["mode"]):
                self._queue = None  # matched: the server took the bot out of its queue
            self._adopt_room(followed, message["room"])
            if message["room"]["status"] == "waiting":
                self._spawn(self._rejoin(followed))
            return
        followed = self.rooms.get(code)
        if followed is None:
            return
        if kind == "room":
            self._adopt_room(followed, message["room"])
        elif kind == "game.state":
            self._on_state(followed, message)
        elif kind == "game.over":
            self._finish(followed, message["result"])

    def _on_state(self, followed, message):
        followed.seat = message["seat"]
        if self.player_id is None and followed.room and followed.seat is not None:
            self.session.player_id = followed.room["seats"][followed.seat].get("player_id")
        if message["status"] == "finished":
            followed.final_state = message
            if followed.status == "finished":
                self._finish_from_state(followed)
            return
        state = GameState(message)
        if state.is_my_turn and followed.answered_ply != state.ply:
            followed.answered_ply = state.ply
            self._spawn(self._play_turn(followed, message))

    def _finish(self, followed, result):
        if not followed.result.done():
            followed.result.set_result(result)
            self.results.put_nowait((followed.code, result))

    def _finish_from_state(self, followed):
        """A game that ended while the bot was away has no game.over for it:
        the result is read from its final state."""
        state = followed.final_state
        if state is None:
            return
        if state["game"] == "blokus":
            scores = state["scores"]
        else:
            scores = [board["score"] for board in state["boards"]]
        self._finish(followed, {"scores": scores, "reason": None})

    def _spawn(self, coroutine):
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)

    def _task_done(self, task):
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("%s", task.exception())

    # Turns -----------------------------------------------------------------

    async def _piece_table(self):
        async with self._pieces_lock:
            if self.pieces is None:
                loop = asyncio.get_running_loop()
                self.pieces = await loop.run_in_executor(None, PieceTable.fetch, self.url)
            return self.pieces

    async def _play_turn(self, followed, message):
        try:
            pieces = await self._piece_table() if message["game"] == "blokus" else None
            state = GameState(message, pieces)
            listed = await self.request({"type": "game.moves", "room": followed.code})
            if listed["ply"] != state.ply or not listed["moves"]:
                return
            action = await self._choose(state, listed["moves"])
            await self._send_move(followed.code, state.ply, action, listed["moves"])
        except ConnectionLost:
            pass  # after the reconnect the state comes again, and is answered again
        except RequestError as error:
            if error.code not in MOVED_ON_CODES:
                log.warning("turn in %s failed: %s", followed.code, error)
                return
            self.late_turns.append(error.error)
            log.info("too late for ply %s in %s: %s", followed.answered_ply, followed.code, error)

    async def _choose(self, state, legal_moves):
        """choose()'s action; a random legal one if choose() fails."""
        try:
            if inspect.iscoroutinefunction(self.choose):
                action = await self.choose(state, legal_moves)
            else:
                loop = asyncio.get_running_loop()
                action = await loop.run_in_executor(None, self.choose, state, legal_moves)
        except Exception:
            log.exception("choose() raised; playing a random legal move instead")
            return random.choice(legal_moves)
        if not isinstance(action, dict):
            log.error("choose() returned %r, not an action; playing a random legal move", action)
            return random.choice(legal_moves)
        return action

    async def _send_move(self, code, ply, action, legal_moves):
        for attempt in range(RETRIES + 1):
            try:
                return await self.request({"type": "game.move", "room": code, "ply": ply,
                                           "action": action})
            except RequestError as error:
                if error.code in REFUSED_CODES and action not in legal_moves:
                    self.refused_moves.append(error.error)
                    log.warning("move %s refused (%s); playing a random legal move", action,
                                error)
                    action = random.choice(legal_moves)
                elif error.code in RETRY_CODES and attempt < RETRIES:
                    await asyncio.sleep(RETRY_DELAY_S)
                else:
                    raise
        return None
