#!/usr/bin/env python3
"""greedy_reef.py -- Reef Builder over the websocket: the most points now.

Each legal placement is tried on a copy of this bot's board
(`tessera_bot.reef`): the one that blooms for the most points wins, then the
one whose halves touch the most corals of their own color. It never skips
while a placement fits.

    python3 greedy_reef.py --key KEY                      # a solo run
    python3 greedy_reef.py --practice reef-builder:race:lookahead
"""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import run  # noqa: E402
from tessera_bot.reef import greedy_action  # noqa: E402


def choose(state, legal_moves):
    mine = state.my_board
    return greedy_action(mine["board"], mine["current"], mine["streak"], legal_moves)


if __name__ == "__main__":
    sys.exit(run(choose, default_practice="reef-builder:solo", default_name="greedy-reef"))
