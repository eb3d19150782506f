"""cli.py -- `run(choose)`: the command line every example bot shares.

A bot script is a choose() function and one call to run(choose). The
command line says where to play:

  --room CODE [--seat N]        take a seat in a room someone created
  --practice GAME:MODE[:BOTS]   create a room against built-in bots, start it
  --queue GAME:MODE             quick play: wait to be matched
  --tournament ID               play a tournament the bot is entered in, to its end

and how to sign in (--key or TESSERA_BOT_KEY for a bot account, --token or
TESSERA_TOKEN to resume a session, else a new guest called --name). Each
finished game prints one JSON line on stdout, {"room", "seat", "result"}
(a tournament prints one at its end: {"tournament", "standings"}), so
scripts and tests can read the outcome; logs go to stderr.
"""

import argparse
import asyncio
import json
import logging
import os
import random
import sys

from .bot import Bot
from .session import RequestError, SessionEnded

DEFAULT_URL = "ws://127.0.0.1:8080/ws"


def _game_mode(text, with_bots):
    parts = text.split(":")
    if len(parts) < 2 or len(parts) > (3 if with_bots else 2) or not all(parts):
        shape = "GAME:MODE[:BOT,BOT...]" if with_bots else "GAME:MODE"
        raise argparse.ArgumentTypeError(f"{text!r} is not {shape}")
    bots = parts[2].split(",") if len(parts) == 3 else []
    return parts[0], parts[1], bots


def make_parser(default_practice, default_name):
    """The options every bot shares; a command may add its own."""
    parser = argparse.ArgumentParser(description="A tessera bot.")
    parser.add_argument("--url", default=os.environ.get("TESSERA_URL", DEFAULT_URL),
                        help=f"the server's websocket URL (default {DEFAULT_URL})")
    parser.add_argument("--key", default=os.environ.get("TESSERA_BOT_KEY"),
                        help="bot account key (tessera bot add NAME); or TESSERA_BOT_KEY")
    parser.add_argument("--token", default=os.environ.get("TESSERA_TOKEN"),
                        help="a session token to resume; or TESSERA_TOKEN")
    parser.add_argument("--name", default=default_name, help="name of a new guest bot")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--room", metavar="CODE", help="take a seat in this room")
    where.add_argument("--practice", metavar="GAME:MODE[:BOTS]",
                       type=lambda text: _game_mode(text, True),
                       help=f"create a room against built-in bots (default {default_practice})")
    where.add_argument("--queue", metavar="GAME:MODE", type=lambda text: _game_mode(text, False),
                       help="quick play: wait to be matched")
    where.add_argument("--tournament", metavar="ID", type=int,
                       help="play this tournament's games (the bot must be entered) to its end")
    parser.add_argument("--seat", type=int, help="with --room: the seat to take")
    parser.add_argument("--seed", type=int,
                        help="with --practice: the room's seed, and the seed of the bot's own "
                        "random choices (so a game can be played again move for move)")
    parser.add_argument("--max-turns", type=int,
                        help="with --practice on reef-builder: actions per board")
    parser.add_argument("--games", type=int, default=1,
                        help="games to play, one after another (default 1)")
    parser.add_argument("--verbose", action="store_true", help="log every message received")
    return parser


def check_arguments(parser, argv, default_practice):
    """Parses `argv` with a parser from make_parser() and checks the shared options."""
    arguments = parser.parse_args(argv)
    if arguments.seat is not None and not arguments.room:
        parser.error("--seat goes with --room")
    if arguments.games < 1:
        parser.error("--games must be at least 1")
    if not (arguments.room or arguments.queue or arguments.tournament or arguments.practice):
        arguments.practice = _game_mode(default_practice, True)
    return arguments


def _report(bot, code, result):
    seat = bot.rooms[code].seat if code in bot.rooms else None
    print(json.dumps({"room": code, "seat": seat, "result": result}), flush=True)


async def _play(choose, arguments):
    async with Bot(choose, arguments.url, key=arguments.key, token=arguments.token,
                   name=arguments.name, room=arguments.room) as bot:
        if arguments.room:
            await bot.join_room(arguments.room, arguments.seat)
            _report(bot, arguments.room, await bot.wait_game_over(arguments.room))
            return
        if arguments.practice:
            game, mode, opponents = arguments.practice
            options = {name: value for name, value in
                       (("seed", arguments.seed), ("max_turns", arguments.max_turns))
                       if value is not None}
            for _ in range(arguments.games):
                code = await bot.practice(game, mode, opponents or ["greedy"], **options)
                _report(bot, code, await bot.wait_game_over(code))
            return
        if arguments.tournament:
            await bot.join_tournament(arguments.tournament)
            final = await bot.wait_tournament_over(arguments.tournament)
            print(json.dumps({"tournament": final["id"], "standings": final["standings"]}),
                  flush=True)
            return
        # The server takes the bot out of the queue as it seats it, so it
        # queues again for each game and has no queue to leave at the end.
        for _ in range(arguments.games):
            await bot.join_queue(*arguments.queue[:2])
            _report(bot, *await bot.next_result())


def setup_logging(arguments):
    """Logs to stderr, every message received with --verbose."""
    logging.basicConfig(level=logging.DEBUG if arguments.verbose else logging.INFO,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s",
                        stream=sys.stderr)


def play(choose, arguments):
    """Plays with choose() where the parsed command line says; returns the
    exit status (0: every game played to its end)."""
    setup_logging(arguments)
    if arguments.seed is not None:
        random.seed(arguments.seed)  # the random bot's and the GTP bridge's fallback choices
    try:
        asyncio.run(_play(choose, arguments))
    except (RequestError, SessionEnded) as error:
        print(f"bot: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0


def run(choose, default_practice="blokus:duo:greedy", default_name="python-bot", argv=None):
    """Runs a bot with choose() as the command line says; returns the exit
    status (0: every game played to its end)."""
    parser = make_parser(default_practice, default_name)
    return play(choose, check_arguments(parser, argv, default_practice))
