"""command.py -- the `tessera-bot` command that `pip install` puts on PATH.

    tessera-bot --version
    tessera-bot --practice blokus:duo:greedy          # the SDK's random bot
    tessera-bot --gtp "pentobi-gtp --level 3" --queue blokus:duo

Without --gtp it plays random legal moves: the quickest check that an
install, a server and a bot key work together. With --gtp it seats a GTP
Blokus engine (gtp.py). Every other option is the one every example bot
has (cli.py), so `tessera-bot --help` lists them all.
"""

import random
import sys

from . import PROTOCOL_VERSION, __version__
from .cli import check_arguments, make_parser, play

DEFAULT_PRACTICE = "blokus:duo:greedy"


def random_move(state, legal_moves):
    """The SDK's random bot: any legal move."""
    return random.choice(legal_moves)


def main(argv=None):
    parser = make_parser(DEFAULT_PRACTICE, "tessera-bot")
    parser.add_argument("--version", action="version",
                        version=f"tessera-bot {__version__} (protocol {PROTOCOL_VERSION})")
    arguments = check_arguments(parser, argv, DEFAULT_PRACTICE)
    return play(random_move, arguments)


if __name__ == "__main__":
    sys.exit(main())
