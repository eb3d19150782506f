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
from .cli import check_arguments, make_parser, play, setup_logging
from .gtp import DEFAULT_THINK_TIME_S, GtpError, GtpPlayer

DEFAULT_PRACTICE = "blokus:duo:greedy"


def random_move(state, legal_moves):
    """The SDK's random bot: any legal move."""
    return random.choice(legal_moves)


def main(argv=None):
    parser = make_parser(DEFAULT_PRACTICE, "tessera-bot")
    parser.prog = "tessera-bot"  # also when run as `python3 -m tessera_bot`
    parser.add_argument("--version", action="version",
                        version=f"tessera-bot {__version__} (protocol {PROTOCOL_VERSION})")
    parser.add_argument("--gtp", metavar="COMMAND",
                        help="seat this GTP Blokus engine, e.g. \"pentobi-gtp --level 3\"")
    parser.add_argument("--think-time", type=float, default=DEFAULT_THINK_TIME_S,
                        help="with --gtp: seconds the engine may think per move (default "
                             f"{DEFAULT_THINK_TIME_S:g}; less when the seat's clock is short)")
    arguments = check_arguments(parser, argv, DEFAULT_PRACTICE)
    if arguments.think_time <= 0:
        parser.error("--think-time must be above 0")
    if arguments.gtp is None:
        return play(random_move, arguments)
    if any(where[0] != "blokus" for where in (arguments.practice, arguments.queue) if where):
        parser.error("--gtp plays Blokus only")
    setup_logging(arguments)
    player = GtpPlayer(arguments.gtp, arguments.think_time)
    try:
        player.start()
    except GtpError as error:
        print(f"tessera-bot: {error}", file=sys.stderr)
        player.close()
        return 2
    try:
        return play(player.choose, arguments)
    finally:
        player.close()


if __name__ == "__main__":
    sys.exit(main())
