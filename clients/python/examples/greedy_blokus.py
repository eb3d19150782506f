#!/usr/bin/env python3
"""greedy_blokus.py -- play the biggest piece, keeping the most corners open.

Each legal move is scored by its squares (big pieces first: they are the
hardest to place late) and then by the new free corner cells it opens for
this color, which is where its next pieces can attach. The orientation table
(`state.pieces`) gives each move's cells and corners.

    python3 greedy_blokus.py --key KEY --practice blokus:2p:greedy
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import run  # noqa: E402


def open_corners(state, move):
    """Free board cells diagonal to the placed piece (its corners)."""
    entry = state.pieces.orientation(move["piece"], move["orientation"])
    size = state["size"]
    count = 0
    for row, col in entry["corners"]:
        row, col = move["row"] + row, move["col"] + col
        if 0 <= row < size and 0 <= col < size and state["board"][row][col] == ".":
            count += 1
    return count


def choose(state, legal_moves):
    return max(legal_moves,
               key=lambda move: (state.pieces.size(move), open_corners(state, move)))


if __name__ == "__main__":
    sys.exit(run(choose, default_name="greedy-blokus"))
