"""gtp.py -- a GTP Blokus engine seated at a tessera table (`tessera-bot --gtp COMMAND`).

The Go Text Protocol is how Blokus programs such as Pentobi's engine
(pentobi-gtp) are driven. GtpPlayer is a choose(state, legal_moves) for the
Bot: at each of its turns it tells the engine the moves played since its
last turn (`play COLOR MOVE`), asks it for its move (`genmove COLOR`), and
checks the answer against the server's legal moves before it is sent.

The wire of the engine is Pentobi's: `set_game` names the variant ("Blokus
Duo", "Blokus Two-Player", "Blokus Three-Player", "Blokus"), a colour is
`b`/`w` in Duo and `1` to `4` otherwise, and a move is its points joined by
commas, each a column letter from the left and a row number from 1 at the
bottom ("e8,d9,e9,f9,e10"), bottom row first, as in the SGF files the
server exports (GET /api/games/{id}.blksgf).

The moves to relay are read from the board, not from events: each
game.state is the whole board, and between two turns of a seat every colour
moves at most once, so a colour's new cells are one piece, relayed in turn
order from the colour after the last one relayed. A state that shows more
than one new piece of a colour (the bridge joined a game already under way)
cannot be told to the engine, nor can a board that lost a move the engine
chose (its clock ran out first); that game is played with random legal
moves.

A bad answer never stalls the seat: an illegal move, an answer that is not
a move, a pass while moves are legal, a `?` error, or no answer within the
think time is logged (one line, saying what the engine answered) and a
random legal move is played instead. The engine is then brought back to
the game's true position: `clear_board` and every move again (an engine
that hung is killed and started anew first).
"""

import collections
import logging
import os
import random
import re
import select
import shlex
import subprocess
import threading
import time

log = logging.getLogger("tessera_bot.gtp")

GAME_NAMES = {"duo": "Blokus Duo", "2p": "Blokus Two-Player", "3p": "Blokus Three-Player",
              "4p": "Blokus"}
DEFAULT_THINK_TIME_S = 30.0
COMMAND_TIME_S = 10.0  # every command but genmove (start, set_game, play)
CLOCK_MARGIN_S = 1.0  # of a seat's clock, left for the answer to reach the server
KEPT_GAMES = 16  # games whose moves are kept, for a bot seated in several at once
POINT = re.compile(r"^([a-z])([0-9]{1,2})$")


class GtpError(Exception):
    """The engine refused a command (`?`), died, or did not answer in time."""


class GtpTimeout(GtpError):
    """The engine did not answer within the time given."""


def color_name(color, mode):
    """A tessera colour (0-3) as the engine names it."""
    return "bw"[color] if mode == "duo" else str(color + 1)


def move_text(cells, size):
    """Board cells [(row, col), ...] as a GTP move, bottom row first."""
    ordered = sorted(cells, key=lambda cell: (-cell[0], cell[1]))
    return ",".join(f"{chr(ord('a') + col)}{size - row}" for row, col in ordered)


def parse_move(text, size):
    """The cells of a GTP move, as a frozenset of (row, col); ValueError if
    the text is not a list of points on this board."""
    cells = set()
    for point in text.strip().lower().split(","):
        match = POINT.match(point.strip())
        if not match:
            raise ValueError(f"{point.strip()!r} is not a point such as e8")
        col, number = ord(match.group(1)) - ord("a"), int(match.group(2))
        if col >= size or not 1 <= number <= size:
            raise ValueError(f"{point.strip()} is off the {size}x{size} board")
        cells.add((size - number, col))
    return frozenset(cells)


class GtpEngine:
    """One engine process and its command channel."""

    def __init__(self, command):
        self.command = command
        self.process = None
        self._pending = b""

    def start(self):
        """Starts the engine; GtpError if it cannot run or does not answer `name`."""
        try:
            self.process = subprocess.Popen(shlex.split(self.command), stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE, bufsize=0)
        except OSError as error:
            raise GtpError(f"cannot start the engine {self.command!r}: {error}") from error
        self._pending = b""
        return self.ask("name", COMMAND_TIME_S)

    def ask(self, command, timeout):
        """Sends one command; returns the text of its `=` answer. GtpError
        for a `?` answer or a dead engine, GtpTimeout past `timeout` s."""
        try:
            self.process.stdin.write(command.encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise GtpError(f"the engine is gone ({error})") from error
        answer = self._read_answer(time.monotonic() + timeout, command)
        if answer.startswith("?"):
            raise GtpError(f"{command!r} refused: {answer[1:].strip()}")
        if not answer.startswith("="):
            raise GtpError(f"{command!r} got {answer!r}, not a GTP answer")
        return answer[1:].strip()

    def _read_answer(self, deadline, command):
        """The next answer: lines up to an empty line (GTP's terminator)."""
        descriptor = self.process.stdout.fileno()
        while b"\n\n" not in self._pending.replace(b"\r", b""):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([descriptor], [], [], left)[0]:
                raise GtpTimeout(f"no answer to {command!r} in time")
            chunk = os.read(descriptor, 65536)
            if not chunk:
                raise GtpError(f"the engine exited (status {self.process.wait()})")
            self._pending += chunk
        text = self._pending.replace(b"\r", b"").decode(errors="replace")
        answer, _, rest = text.partition("\n\n")
        self._pending = rest.encode()
        return answer.strip()

    def close(self):
        """Asks the engine to quit; kills it if it does not within a second."""
        if self.process is None or self.process.poll() is not None:
            return
        try:
            self.ask("quit", 1.0)
        except GtpError:
            pass
        try:
            self.process.wait(1.0)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process.stdin.close()
        self.process.stdout.close()


class GameRecord:
    """One game as the engine was told it."""

    def __init__(self, room, mode):
        self.room, self.mode = room, mode
        self.known = {}  # {(row, col): colour}
        self.moves = []  # [(colour name, move text)], in order
        self.last_color = -1
        self.is_unrelayable = False  # this game cannot be told to the engine

    def record(self, color, cells, size):
        self.moves.append((color_name(color, self.mode), move_text(cells, size)))
        self.known.update({cell: color for cell in cells})
        self.last_color = color


class GtpPlayer:
    """choose(state, legal_moves), played by a GTP engine (see the module comment).

    The engine holds one position; a bot seated in several games at once (a
    tournament playing games in parallel) keeps a record of each, and the
    engine is set to a game's position (`clear_board` and its moves) when
    that game's turn comes after another's."""

    def __init__(self, command, think_time=DEFAULT_THINK_TIME_S, rng=random):
        self.engine = GtpEngine(command)
        self.think_time = think_time
        self.rng = rng
        self.games = collections.OrderedDict()  # room -> GameRecord, the latest last
        self.game = None  # the record whose position the engine holds
        self._lock = threading.Lock()  # choose() runs on executor threads

    def start(self):
        """Starts the engine (GtpError if it cannot be run)."""
        log.info("GTP engine: %s", self.engine.start())

    def close(self):
        self.engine.close()

    def choose(self, state, legal_moves):
        with self._lock:
            if not state.is_blokus or state["mode"] not in GAME_NAMES:
                log.error("a GTP engine plays Blokus only; random legal moves in %s %s",
                          state["game"], state["mode"])
                return self.rng.choice(legal_moves)
            try:
                self._select(state)
                if not self._relay(state):
                    return self.rng.choice(legal_moves)
                return self._genmove(state, legal_moves)
            except GtpError as error:
                log.error("GTP engine: %s; restarting it, and a random legal move now", error)
                self._restart()
                return self.rng.choice(legal_moves)

    # Telling the engine the game -------------------------------------------

    def _select(self, state):
        """Sets the engine to the position of the state's game."""
        record = self.games.get(state["room"])
        if record is None:
            record = self.games[state["room"]] = GameRecord(state["room"], state["mode"])
            while len(self.games) > KEPT_GAMES:
                self.games.popitem(last=False)
        self.games.move_to_end(state["room"])
        if self.game is not record:
            log.debug("GTP engine: to the game in %s (%d moves)", record.room, len(record.moves))
            self.game = record
            self._replay()

    def _replay(self):
        """Sets the engine to the current game's position, as it was told it."""
        self.engine.ask(f"set_game {GAME_NAMES[self.game.mode]}", COMMAND_TIME_S)
        self.engine.ask("clear_board", COMMAND_TIME_S)
        for name, text in self.game.moves:
            self.engine.ask(f"play {name} {text}", COMMAND_TIME_S)

    def _relay(self, state):
        """Tells the engine the moves since its last turn; False when the
        game cannot be told (it joined a game under way)."""
        game = self.game
        if game.is_unrelayable:
            return False
        size, colors = state["size"], 2 if state["mode"] == "duo" else 4
        if any(state["board"][row][col] != str(color) for (row, col), color in game.known.items()):
            log.error("the game in %s is not what the engine was told (a move it chose was not "
                      "played: a clock?); random legal moves in this game", game.room)
            game.is_unrelayable = True
            return False
        new = {color: [] for color in range(colors)}
        for row, line in enumerate(state["board"]):
            for col, mark in enumerate(line):
                if mark != "." and (row, col) not in game.known:
                    new[int(mark)].append((row, col))
        first = game.last_color + 1
        for color in [(first + step) % colors for step in range(colors)]:
            if len(new[color]) > 5:
                log.error("the game in %s was under way before the engine saw it: it cannot be "
                          "told the moves so far; random legal moves in this game", game.room)
                game.is_unrelayable = True
                return False
            if new[color]:
                self._tell(color, new[color], size)
        return True

    def _tell(self, color, cells, size):
        """Plays a move on the engine's board and records it."""
        text = move_text(cells, size)
        self.engine.ask(f"play {color_name(color, self.game.mode)} {text}", COMMAND_TIME_S)
        self.game.record(color, cells, size)

    def _restart(self):
        self.engine.close()
        try:
            self.engine.start()
            if self.game is not None:
                self._replay()
        except GtpError as error:
            log.error("GTP engine could not be restarted: %s", error)
            self.game = None  # the next turn sets the engine up again

    # Asking it for a move --------------------------------------------------

    def _think_time(self, state):
        clock = next((clock for clock in state["clocks"] if clock["seat"] == state["seat"]), None)
        if clock is None:
            return self.think_time
        return max(0.1, min(self.think_time, clock["ms"] / 1000 - CLOCK_MARGIN_S))

    def _genmove(self, state, legal_moves):
        color, size = state["to_move"]["color"], state["size"]
        name = color_name(color, self.game.mode)
        by_cells = {frozenset(state.cells(move)): move for move in legal_moves}
        think = self._think_time(state)
        try:
            answer = self.engine.ask(f"genmove {name}", think)
        except GtpTimeout:
            return self._fall_back(state, legal_moves, f"no answer to genmove {name} within "
                                   f"{think:.1f} s", restart=True)
        except GtpError as error:
            return self._fall_back(state, legal_moves, str(error))
        if answer.lower() == "pass":
            return self._fall_back(state, legal_moves, f"genmove {name} answered pass, but "
                                   f"{len(legal_moves)} moves are legal")
        try:
            cells = parse_move(answer, size)
        except ValueError as error:
            return self._fall_back(state, legal_moves, f"genmove {name} answered {answer!r}, "
                                   f"not a move: {error}")
        if cells not in by_cells:
            return self._fall_back(state, legal_moves, f"genmove {name} answered {answer!r}, "
                                   "an illegal move here")
        self.game.record(color, cells, size)  # the engine played it as it answered
        return by_cells[cells]

    def _fall_back(self, state, legal_moves, problem, restart=False):
        """A random legal move instead of a bad answer; the engine is set
        back to the true position, with that move played."""
        move = self.rng.choice(legal_moves)
        log.warning("GTP engine: %s; playing a random legal move instead", problem)
        if restart:
            self._restart()
        else:
            self._replay()
        if self.game is not None:  # else the engine is down, and learns the move when back
            self._tell(state["to_move"]["color"], state.cells(move), state["size"])
        return move
