"""botpot.py -- a Blokus game.state seen the way the Botpot platform shows it.

A bot written for Botpot's Blokus reads a state with `player_hands`,
`game_board`, `players_unavailable_spots`, `required_positions` and
`player_idx_to_play`, looks pieces up in `ref_data["piece_templates"]`, and
answers with `place_piece(piece_idx, orientation_idx, offset_x, offset_y)`.
`BotpotView` builds exactly those fields from one tessera `game.state`, so
such a bot runs here with its move code unchanged.

The numbering (see docs/BOTS.md for the full table):

- a player index is a tessera **color** (0 blue, 1 yellow, 2 red, 3 green);
  Botpot's start corners are the same ones: color 1 starts at x=19, y=0;
- in 3p, `user_idx_to_play_fourth_color` counts players as the Botpot page
  does, 1, 2, 3: tessera's seat + 1;
- `x` is the column and `y` the row; flat boards are indexed `y * size + x`;
- `piece_idx` is tessera's piece order (0 I1, 1 I2, ... 20 Z5) and
  `orientation_idx` is tessera's orientation index for that piece, as the
  server's orientation table (`GET /api/games/blokus/pieces`) lists them;
- `offset_x`, `offset_y` place the orientation's origin, the top-left corner
  of its bounding box, exactly as tessera's `col` and `row` do, and every
  template's `pos` is given relative to that origin.

So `place_piece(p, o, x, y)` is the tessera action
`{"piece": NAME[p], "orientation": o, "row": y, "col": x}`: the mapping is
one-to-one and `action_to_botpot` inverts it.

Tessera sends hints (attach and unavailable cells) for the color to move
only; the view computes them for every color from the board, by the same
rules the engine uses: a color may not cover an occupied cell or one edge-
adjacent to its own pieces, and attaches through free cells diagonal to its
own pieces (its start cell before its first piece, unless someone covered it).
"""

CLASSIC_START_CELLS = [(0, 0), (0, 19), (19, 19), (19, 0)]
DUO_START_CELLS = [(4, 4), (9, 9)]
EMPTY = -1


class InvalidActionError(ValueError):
    """A place_piece that Botpot's rules would refuse; nothing is sent."""


def _neighbours(size, row, col, steps):
    for row_step, col_step in steps:
        near_row, near_col = row + row_step, col + col_step
        if 0 <= near_row < size and 0 <= near_col < size:
            yield near_row, near_col


EDGE_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))
DIAGONAL_STEPS = ((-1, -1), (-1, 1), (1, -1), (1, 1))


def _cell_lists(board, color, start_cell):
    """(unavailable, attach) cell sets of one color on a board of strings."""
    size = len(board)
    mark = str(color)
    own = [(row, col) for row in range(size) for col in range(size) if board[row][col] == mark]
    unavailable = {(row, col) for row in range(size) for col in range(size)
                   if board[row][col] != "."}
    for row, col in own:
        unavailable.update(_neighbours(size, row, col, EDGE_STEPS))
    if not own:
        return unavailable, ({start_cell} - unavailable)
    corners = set()
    for row, col in own:
        corners.update(_neighbours(size, row, col, DIAGONAL_STEPS))
    return unavailable, corners - unavailable


def _point(row, col):
    return {"x": col, "y": row}


def _template(entry):
    """A Botpot piece template from one tessera orientation entry."""
    return {
        "pos": [_point(row, col) for row, col in entry["cells"]],
        "side": [_point(row, col) for row, col in entry["sides"]],
        "corner": [_point(row, col) for row, col in entry["corners"]],
    }


def botpot_ref_data(pieces):
    """Botpot's `ref_data` from a PieceTable: piece_templates[piece_idx]
    ["all_orientations"][orientation_idx] holds `pos`, `side`, `corner`."""
    return {"piece_templates": [
        {"name": name, "all_orientations": [_template(entry) for entry in variants]}
        for name, variants in zip(pieces.names, pieces.orientations)]}


class BotpotView:
    """The Botpot fields of one Blokus game.state (a dict as received)."""

    def __init__(self, state, pieces):
        self.pieces = pieces
        self.size = state["size"]
        board = state["board"]
        colors = len(state["pieces_left"])
        starts = DUO_START_CELLS if state["mode"] == "duo" else CLASSIC_START_CELLS
        self.game_board = [EMPTY if cell == "." else int(cell) for line in board for cell in line]
        self.player_hands = [sorted(pieces.piece_index(name) for name in names)
                             for names in state["pieces_left"]]
        self.players_unavailable_spots = []
        self.required_positions = []
        for color in range(colors):
            unavailable, attach = _cell_lists(board, color, starts[color])
            spots = [0] * (self.size * self.size)
            for row, col in unavailable:
                spots[row * self.size + col] = 1
            self.players_unavailable_spots.append({"unavailable_spots": spots})
            self.required_positions.append(
                {"positions": [_point(row, col) for row, col in sorted(attach)]})
        to_move = state.get("to_move")
        self.player_idx_to_play = to_move["color"] if to_move else None
        is_shared_turn = state["mode"] == "3p" and to_move and to_move["color"] == 3
        self.user_idx_to_play_fourth_color = to_move["seat"] + 1 if is_shared_turn else None
        self.scores = list(state["scores"])
        self.ref_data = botpot_ref_data(pieces)

    @property
    def state(self):
        """The view as the dict a Botpot bot receives as its state."""
        return {
            "player_hands": self.player_hands,
            "game_board": self.game_board,
            "players_unavailable_spots": self.players_unavailable_spots,
            "required_positions": self.required_positions,
            "player_idx_to_play": self.player_idx_to_play,
            "user_idx_to_play_fourth_color": self.user_idx_to_play_fourth_color,
            "scores": self.scores,
        }

    def place_piece(self, piece_idx, orientation_idx, offset_x, offset_y):
        """The tessera action for Botpot's place_piece. Checks what Botpot's
        place_piece checks (piece in hand, orientation, board, unavailable
        and required cells) and raises InvalidActionError where it would."""
        color = self.player_idx_to_play
        if color is None:
            raise InvalidActionError("the game is over; no color is to play")
        if piece_idx not in self.player_hands[color]:
            raise InvalidActionError("piece_idx not in the player's hand")
        variants = self.pieces.orientations[piece_idx]
        if not 0 <= orientation_idx < len(variants):
            raise InvalidActionError("orientation_idx out of bound")
        spots = self.players_unavailable_spots[color]["unavailable_spots"]
        required = {(point["x"], point["y"]) for point in self.required_positions[color]["positions"]}
        covers_required = False
        for row, col in variants[orientation_idx]["cells"]:
            x, y = offset_x + col, offset_y + row
            if not (0 <= x < self.size and 0 <= y < self.size):
                raise InvalidActionError("Placing this piece here goes out of the board")
            if spots[y * self.size + x]:
                raise InvalidActionError("Placing this piece here covers an unavailable spot")
            covers_required |= (x, y) in required
        if not covers_required:
            raise InvalidActionError("Placing this piece here covers no required position")
        return botpot_to_action(self.pieces, piece_idx, orientation_idx, offset_x, offset_y)


def botpot_to_action(pieces, piece_idx, orientation_idx, offset_x, offset_y):
    """The tessera piece-form action of a Botpot placement (no rule checks)."""
    pieces.orientation(piece_idx, orientation_idx)  # raises ValueError if out of range
    return {"piece": pieces.names[piece_idx], "orientation": orientation_idx,
            "row": offset_y, "col": offset_x}


def action_to_botpot(pieces, action):
    """(piece_idx, orientation_idx, offset_x, offset_y) of a tessera action."""
    piece_idx = pieces.piece_index(action["piece"])
    pieces.orientation(piece_idx, action["orientation"])
    return piece_idx, action["orientation"], action["col"], action["row"]
