#!/usr/bin/env python3
"""gtp_random_engine.py -- a small GTP Blokus engine for the GTP bridge's tests.

It speaks the part of GTP that the bridge (clients/python/tessera_bot/gtp.py)
and Pentobi's engine share: name, protocol_version, version, known_command,
list_commands, set_game, clear_board, play, genmove, quit. It keeps its own
board with its own rules (the orientation table `tessera pieces` prints,
given as --pieces, through the SDK's PieceTable) and answers genmove with
the SDK's random bot among the moves its rules allow, so a test can check
what the bridge told it against the server.

After every change it rewrites --log with the game as it knows it, one move
a line: "play COLOUR MOVE" for a move it was told, "genmove COLOUR MOVE" for
one it chose. --bad KIND@N (repeatable) makes its Nth genmove answer badly,
once per log file even across restarts: `illegal` (a covered point),
`garbage`, `pass`, `hang` (no answer at all), `error` (a `?` answer).
"""

import argparse
import json
import os
import random
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from tessera_bot import PieceTable  # noqa: E402
from tessera_bot.command import random_move  # noqa: E402
from tessera_bot.gtp import move_text, parse_move  # noqa: E402

GAMES = {"Blokus Duo": (14, 2), "Blokus Two-Player": (20, 4), "Blokus Three-Player": (20, 4),
         "Blokus": (20, 4)}
STARTS = {14: [(4, 4), (9, 9)], 20: [(0, 0), (0, 19), (19, 19), (19, 0)]}
COMMANDS = ["name", "protocol_version", "version", "known_command", "list_commands",
            "set_game", "clear_board", "play", "genmove", "quit"]


class Game:
    """A Blokus board and the pieces each colour has placed."""

    def __init__(self, pieces, size, colors):
        self.pieces, self.size, self.colors = pieces, size, colors
        self.board = {}  # (row, col) -> colour
        self.used = [set() for _ in range(colors)]
        self.moves = []  # (verb, colour name, move text)
        self.shapes = {frozenset(map(tuple, variant["cells"])): piece  # cells -> piece index
                       for piece, variants in enumerate(pieces.orientations)
                       for variant in variants}

    def color_index(self, name):
        index = "bw".index(name) if self.colors == 2 and name in "bw" else int(name) - 1
        if not 0 <= index < self.colors:
            raise ValueError(f"no colour {name}")
        return index

    def placements(self, color):
        """{frozenset of cells: piece index} of every legal placement."""
        own = {cell for cell, owner in self.board.items() if owner == color}
        anchors = {STARTS[self.size][color]} if not own else {
            (row + dr, col + dc) for row, col in own for dr in (-1, 1) for dc in (-1, 1)}
        anchors = [anchor for anchor in anchors if self.fits(color, [anchor], own)]
        found = {}
        for piece, variants in enumerate(self.pieces.orientations):
            if piece in self.used[color]:
                continue
            for variant in variants:
                for anchor in anchors:
                    for dr, dc in variant["cells"]:
                        cells = frozenset((anchor[0] - dr + r, anchor[1] - dc + c)
                                          for r, c in variant["cells"])
                        if cells not in found and self.fits(color, cells, own):
                            found[cells] = piece
        return found

    def fits(self, color, cells, own):
        for row, col in cells:
            if not (0 <= row < self.size and 0 <= col < self.size) or (row, col) in self.board:
                return False
            if any((row + dr, col + dc) in own for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))):
                return False
        return True

    def piece_of(self, color, cells):
        """The index of the unused piece whose shape `cells` is, if it is legal
        for `color` there; else ValueError."""
        top, left = min(row for row, _ in cells), min(col for _, col in cells)
        piece = self.shapes.get(frozenset((row - top, col - left) for row, col in cells))
        own = {cell for cell, owner in self.board.items() if owner == color}
        touches = STARTS[self.size][color] in cells if not own else any(
            (row + dr, col + dc) in own for row, col in cells for dr in (-1, 1) for dc in (-1, 1))
        if piece is None or piece in self.used[color] or not touches or \
                not self.fits(color, cells, own):
            raise ValueError("illegal move")
        return piece

    def place(self, verb, name, cells):
        color = self.color_index(name)
        self.used[color].add(self.piece_of(color, cells))
        self.board.update({cell: color for cell in cells})
        self.moves.append((verb, name, move_text(cells, self.size)))


class Engine:
    def __init__(self, arguments):
        self.pieces = PieceTable(json.load(open(arguments.pieces)))
        self.log = arguments.log
        random.seed(arguments.seed)  # the SDK's random bot draws from the module's generator
        self.bad = dict((int(when), kind) for kind, when in
                        (entry.split("@") for entry in arguments.bad))
        self.genmoves = 0
        self.game = Game(self.pieces, 20, 4)

    def write_log(self):
        with open(self.log, "w") as out:
            out.writelines(f"{verb} {name} {text}\n" for verb, name, text in self.game.moves)

    def misbehaviour(self):
        """The bad answer due at this genmove, if not given yet."""
        kind = self.bad.get(self.genmoves)
        marker = f"{self.log}.{kind}-{self.genmoves}"
        if kind is None or os.path.exists(marker):
            return None
        open(marker, "w").close()
        return kind

    def genmove(self, name):
        self.genmoves += 1
        kind = self.misbehaviour()
        if kind == "hang":
            sys.stdin.read()  # never answers: waits until the bridge ends it
        if kind == "error":
            raise ValueError("cannot think today")
        covered = next(iter(self.game.board), (self.game.size // 2, self.game.size // 2))
        answers = {"garbage": "xyzzy", "pass": "pass",
                   "illegal": move_text([covered], self.game.size)}
        if kind in answers:
            return answers[kind]
        legal = [{"cells": cells} for cells in self.game.placements(self.game.color_index(name))]
        if not legal:
            return "pass"
        cells = random_move(None, legal)["cells"]
        self.game.place("genmove", name, cells)  # checked again: the rules agree with themselves
        return move_text(cells, self.game.size)

    def answer(self, command, arguments):
        if command == "name":
            return "gtp-random-engine"
        if command in ("protocol_version", "version"):
            return "2" if command == "protocol_version" else "1"
        if command == "known_command":
            return "true" if arguments[:1] and arguments[0] in COMMANDS else "false"
        if command == "list_commands":
            return "\n".join(COMMANDS)
        if command == "set_game":
            size, colors = GAMES[" ".join(arguments)]
            self.game = Game(self.pieces, size, colors)
            return ""
        if command == "clear_board":
            self.game = Game(self.pieces, self.game.size, self.game.colors)
            return ""
        if command == "play":
            self.game.place("play", arguments[0], parse_move(arguments[1], self.game.size))
            return ""
        if command == "genmove":
            return self.genmove(arguments[0])
        if command == "quit":
            return ""
        raise ValueError("unknown command")

    def run(self):
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            try:
                text, status = self.answer(words[0], words[1:]), "="
            except (ValueError, KeyError, IndexError) as error:
                text, status = str(error), "?"
            self.write_log()
            sys.stdout.write(f"{status} {text}\n\n")
            sys.stdout.flush()
            if words[0] == "quit":
                return


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pieces", required=True, help="the JSON `tessera pieces` prints")
    parser.add_argument("--log", required=True, help="where to keep the game as it knows it")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bad", action="append", default=[], metavar="KIND@N")
    Engine(parser.parse_args()).run()


if __name__ == "__main__":
    main()
