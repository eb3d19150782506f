"""state.py -- the game.state a bot's choose() receives.

`GameState` is the `game.state` message exactly as docs/PROTOCOL.md
describes it (a dict: `state["board"]`, `state["to_move"]`, ...), with a few
read-only helpers a bot author would otherwise write first: whose board is
mine in a Reef race, which cells a Blokus move covers, the Botpot view.
Keeping the dict as received means the protocol document stays the one
reference for every field.
"""

from .botpot import BotpotView


class GameState(dict):
    """One game.state message, plus helpers; `pieces` is the PieceTable
    (Blokus) or None (Reef)."""

    def __init__(self, message, pieces=None):
        super().__init__(message)
        self.pieces = pieces

    @property
    def is_blokus(self):
        return self["game"] == "blokus"

    @property
    def my_seat(self):
        """The seat this bot plays in this room (None for a spectator)."""
        return self["seat"]

    @property
    def my_board(self):
        """Reef: this bot's board object (board, current, next, score, ...)."""
        return self["boards"][self["seat"]]

    @property
    def ply(self):
        """The ply to send with a move: the game's (Blokus) or my board's (Reef)."""
        return self["ply"] if self.is_blokus else self.my_board["ply"]

    @property
    def is_my_turn(self):
        """Whether this seat may move now."""
        if self["seat"] is None or self["status"] != "playing":
            return False
        if self.is_blokus:
            return bool(self["to_move"]) and self["to_move"]["seat"] == self["seat"]
        return self.my_board["phase"] == "playing"

    def cells(self, move):
        """Blokus: the [(row, col), ...] cells a piece-form move covers."""
        return self.pieces.cells(move)

    def botpot(self):
        """Blokus: this state as the Botpot platform shows it (BotpotView)."""
        return BotpotView(self, self.pieces)
