#!/usr/bin/env python3
"""random_blokus.py -- the smallest useful bot: a random legal Blokus move.

    python3 random_blokus.py --url ws://127.0.0.1:8080/ws --key KEY
    python3 random_blokus.py --practice blokus:4p:greedy,random,mcts

Without --room/--queue/--tournament it practises a Duo game against the
built-in greedy bot. `python3 random_blokus.py --help` lists the options.
"""

import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import run  # noqa: E402


def choose(state, legal_moves):
    return random.choice(legal_moves)


if __name__ == "__main__":
    sys.exit(run(choose, default_name="random-blokus"))
