"""pieces.py -- the Blokus orientation table, as the server serves it.

The server is the one source of the 21 pieces and their 91 orientations:
`GET /api/games/blokus/pieces` (or `tessera pieces`) lists, for each
orientation, its piece name, its index within the piece, and its cells,
sides and corners as [row, col] offsets from the orientation's origin, the
top-left corner of its bounding box. This module loads that list once and
answers the questions a bot asks about a move: which piece index a name has,
how many squares it covers, which board cells a placement covers. Nothing
here is a second copy of the table.
"""

import json
import urllib.parse
import urllib.request

PIECES_PATH = "/api/games/blokus/pieces"


class PieceTable:
    """The orientation table, indexed by piece and orientation."""

    def __init__(self, entries):
        """`entries` is the JSON array the server serves, in its order
        (pieces in piece order, each piece's orientations in order)."""
        self.names = []  # piece index -> name, in the wire's piece order
        self.orientations = []  # piece index -> list of orientation entries
        for entry in entries:
            if not self.names or self.names[-1] != entry["piece"]:
                self.names.append(entry["piece"])
                self.orientations.append([])
            if entry["orientation"] != len(self.orientations[-1]):
                raise ValueError(f"orientation table out of order at entry {entry['id']}")
            self.orientations[-1].append(entry)
        self.index_of = {name: index for index, name in enumerate(self.names)}

    @classmethod
    def fetch(cls, server_url, timeout=10):
        """Loads the table from a running server. `server_url` may be the
        websocket URL (ws://host:port/ws) or any http:// URL of the server."""
        parts = urllib.parse.urlsplit(server_url)
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        url = urllib.parse.urlunsplit((scheme, parts.netloc, PIECES_PATH, "", ""))
        with urllib.request.urlopen(url, timeout=timeout) as answer:
            return cls(json.load(answer))

    def piece_index(self, piece):
        """The index (0-20) of a piece given by name or index."""
        if isinstance(piece, int):
            if not 0 <= piece < len(self.names):
                raise ValueError(f"no piece {piece}: pieces are 0 to {len(self.names) - 1}")
            return piece
        if piece not in self.index_of:
            raise ValueError(f"no piece called {piece!r}")
        return self.index_of[piece]

    def orientation(self, piece, orientation):
        """The table entry of one orientation of a piece (name or index)."""
        variants = self.orientations[self.piece_index(piece)]
        if not 0 <= orientation < len(variants):
            raise ValueError(f"piece {self.names[self.piece_index(piece)]} has orientations "
                             f"0 to {len(variants) - 1}, not {orientation}")
        return variants[orientation]

    def size(self, move):
        """Squares covered by a placement in the piece form."""
        return self.orientation(move["piece"], move["orientation"])["size"]

    def cells(self, move):
        """The board cells [(row, col), ...] a piece-form placement covers."""
        entry = self.orientation(move["piece"], move["orientation"])
        return [(move["row"] + row, move["col"] + col) for row, col in entry["cells"]]
