#!/usr/bin/env python3
"""botpot_style.py -- a bot written for Botpot's Blokus, run on tessera.

`botpot_bot` below is Botpot-platform code: it reads `player_hands`,
`required_positions`, `players_unavailable_spots` and `player_idx_to_play`
from the state, looks orientations up in `ref_data["piece_templates"]`, and
answers with `place_piece(piece_idx, orientation_idx, offset_x, offset_y)`.
It does not use tessera's legal move list. The lines under "tessera" are
all it takes to run it here: `state.botpot()` builds the Botpot view of the
game.state, and its `place_piece` returns the tessera action.

    python3 botpot_style.py --key KEY --practice blokus:4p:greedy
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import run  # noqa: E402


# ---- Botpot bot, unchanged: biggest piece first, the first placement that
# covers a required position and no unavailable spot. ----------------------
def botpot_bot(state, ref_data, place_piece):
    player = state["player_idx_to_play"]
    spots = state["players_unavailable_spots"][player]["unavailable_spots"]
    width = int(len(spots) ** 0.5)
    templates = ref_data["piece_templates"]
    hand = sorted(state["player_hands"][player],
                  key=lambda piece: -len(templates[piece]["all_orientations"][0]["pos"]))
    for piece_idx in hand:
        for orientation_idx, template in enumerate(templates[piece_idx]["all_orientations"]):
            for required in state["required_positions"][player]["positions"]:
                for anchor in template["pos"]:
                    offset_x = required["x"] - anchor["x"]
                    offset_y = required["y"] - anchor["y"]
                    cells = [(offset_x + pos["x"], offset_y + pos["y"]) for pos in template["pos"]]
                    if all(0 <= x < width and 0 <= y < width and not spots[y * width + x]
                           for x, y in cells):
                        return place_piece(piece_idx, orientation_idx, offset_x, offset_y)
    return None


# ---- tessera: the few lines that connect it. -------------------------------
def choose(state, legal_moves):
    view = state.botpot()
    return botpot_bot(view.state, view.ref_data, view.place_piece)


if __name__ == "__main__":
    sys.exit(run(choose, default_name="botpot-style"))
