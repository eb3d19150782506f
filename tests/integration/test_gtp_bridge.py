"""test_gtp_bridge.py -- `tessera-bot --gtp` seats a GTP engine, checked against the server.

Each test runs the SDK's command (`python3 -m tessera_bot`, what pip installs
as `tessera-bot`) with --gtp naming gtp_random_engine.py, a small GTP engine
with rules of its own that logs the game as it was told it, against a real
server. When the game is over, the engine's move list must be the server's:
the moves of the game's SGF export (GET /api/games/{id}.blksgf, written by
the server from its stored log), in the same order, up to the engine's last
turn, and every move of the bridge's colours must be one the engine chose
(or, for a bad answer, the logged fallback). One test seats the bridge's
GtpPlayer in the SDK's Bot in this process, in two games at once.
"""

import asyncio
import json
import logging
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "clients", "python"))
from tessera_bot import Bot  # noqa: E402
from tessera_bot.gtp import GtpPlayer  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SDK = os.path.join(ROOT, "clients", "python")
ENGINE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "gtp_random_engine.py")
PYTHON = "/usr/bin/python3"
GAME_TIMEOUT_S = 50
SGF_MOVE = re.compile(r";([BW1-4])\[([^\]]*)\]")
FALLBACK = "playing a random legal move instead"


class Bridge:
    """One run of the bridge with the test engine, in a folder of its own."""

    def __init__(self, binary, *bad):
        self.folder = tempfile.TemporaryDirectory(prefix="tessera-gtp-")
        self.pieces = os.path.join(self.folder.name, "pieces.json")
        self.log = os.path.join(self.folder.name, "engine.log")
        with open(self.pieces, "w") as out:
            subprocess.run([binary, "pieces"], stdout=out, check=True)
        self.engine = " ".join([PYTHON, ENGINE, "--pieces", self.pieces, "--log", self.log] +
                               [f"--bad {entry}" for entry in bad])

    async def play(self, server, *arguments):
        """Runs the bridge to its end; returns (status, result lines, stderr)."""
        environment = dict(os.environ, PYTHONPATH=SDK)
        process = await asyncio.create_subprocess_exec(
            PYTHON, "-m", "tessera_bot", "--gtp", self.engine, "--url", server.ws_url(),
            *arguments, env=environment, cwd=self.folder.name,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), GAME_TIMEOUT_S)
        lines = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
        return process.returncode, lines, err.decode()

    def engine_moves(self):
        """[(verb, colour, move)] as the engine last knew the game."""
        with open(self.log) as moves:
            return [tuple(line.split()) for line in moves if line.strip()]


async def server_moves(server):
    """[(colour, move)] of the only game on the server, from its SGF export."""
    status, _, body = await server.http("GET", "/api/games?limit=1")
    assert status == 200, body
    game_id = json.loads(body)["items"][0]["id"]
    status, headers, body = await server.http("GET", f"/api/games/{game_id}.blksgf")
    assert status == 200 and headers["content-type"] == "application/x-blokus-sgf", body
    return [(colour.lower(), move) for colour, move in SGF_MOVE.findall(body.decode())]


def assert_lists_agree(engine, server, own_colours, is_all_chosen=True):
    """The engine's list is the server's up to the engine's last turn, and
    (unless a fallback made the bridge tell the engine the game again) each
    of the bridge's moves is one the engine chose."""
    assert [(colour, move) for _, colour, move in engine] == server[:len(engine)], \
        (engine, server)
    own = [index for index, (colour, _) in enumerate(server) if colour in own_colours]
    assert own and len(engine) > own[-1], (engine, server)
    if is_all_chosen:
        chosen = [index for index, (verb, _, _) in enumerate(engine) if verb == "genmove"]
        assert chosen == own, (chosen, own)
    return len(server)


async def test_an_engine_plays_a_whole_duo_game_through_the_bridge(binary):
    bridge = Bridge(binary)
    async with TesseraServer(binary) as server:
        status, lines, errors = await bridge.play(server, "--practice", "blokus:duo:greedy",
                                                  "--seed", "7")
        assert status == 0, errors
        assert len(lines) == 1 and lines[0]["result"]["reason"] == "no_moves", lines
        assert "GTP engine: gtp-random-engine" in errors and FALLBACK not in errors, errors
        count = assert_lists_agree(bridge.engine_moves(), await server_moves(server), {"b"})
        print(f"  duo: {count} moves on the server, the engine's list agrees")


async def test_a_seat_with_two_colours_names_them_1_to_4(binary):
    """2p: seat 0 plays colours 0 and 2, which GTP calls 1 and 3."""
    bridge = Bridge(binary)
    async with TesseraServer(binary) as server:
        status, lines, errors = await bridge.play(server, "--practice", "blokus:2p:random",
                                                  "--seed", "3")
        assert status == 0 and len(lines) == 1, errors
        assert FALLBACK not in errors, errors
        count = assert_lists_agree(bridge.engine_moves(), await server_moves(server),
                                   {"1", "3"})
        print(f"  2p: {count} moves on the server, the engine's list agrees")


async def test_bad_answers_are_logged_and_replaced_by_a_legal_move(binary):
    """Garbage, an illegal move, a pass, a `?` error and a hang past the
    think time: each is one log line and a random legal move, and the engine
    (restarted after the hang) is brought back to the server's position.
    --seed also seeds the fallback moves, so the game is the same every run
    (unseeded, they once left Black without a move before the engine's turn
    after the restart)."""
    bridge = Bridge(binary, "garbage@1", "illegal@2", "pass@3", "error@4", "hang@5")
    async with TesseraServer(binary) as server:
        status, lines, errors = await bridge.play(server, "--practice", "blokus:duo:greedy",
                                                  "--seed", "7", "--think-time", "4")
        assert status == 0 and len(lines) == 1, errors
        for problem in (r"genmove b answered 'xyzzy', not a move",
                        r"genmove b answered '[a-n][0-9]+', an illegal move here",  # covered
                        r"genmove b answered pass, but [0-9]+ moves are legal",
                        r"'genmove b' refused: cannot think today",
                        r"no answer to genmove b within 4\.0 s"):
            assert re.search(f"WARNING GTP engine: {problem}.*; {FALLBACK}", errors), \
                (problem, errors)
        assert errors.count(FALLBACK) == 5, errors
        engine = bridge.engine_moves()
        assert_lists_agree(engine, await server_moves(server), {"b"}, is_all_chosen=False)
        assert any(verb == "genmove" for verb, _, _ in engine), engine  # it chose again after


class KeptRecords(logging.Handler):
    def __init__(self):
        super().__init__(logging.DEBUG)
        self.records = []

    def emit(self, record):
        self.records.append(record)


async def test_two_games_at_once_each_keep_their_own_position(binary):
    """One engine, two Duo games played at the same time by one bot (as a
    tournament may seat it): the engine is set to each game's position in
    turn, and never refuses a move or answers badly."""
    bridge = Bridge(binary)
    player = GtpPlayer(bridge.engine, think_time=20)
    kept, gtp_log = KeptRecords(), logging.getLogger("tessera_bot.gtp")
    gtp_log.addHandler(kept)
    gtp_log.setLevel(logging.DEBUG)
    try:
        player.start()
        async with TesseraServer(binary) as server:
            async with Bot(player.choose, server.ws_url(), name="two-tables") as bot:
                rooms = await asyncio.gather(*(bot.practice("blokus", "duo", ["greedy"],
                                                            seed=seed) for seed in (5, 6)))
                results = await asyncio.wait_for(
                    asyncio.gather(*(bot.wait_game_over(room) for room in rooms)),
                    GAME_TIMEOUT_S)
    finally:
        player.close()
        gtp_log.removeHandler(kept)
        gtp_log.setLevel(logging.NOTSET)
    assert all(result["reason"] == "no_moves" for result in results), results
    problems = [record.getMessage() for record in kept.records
                if record.levelno >= logging.WARNING]
    assert not problems, problems
    switches = [record for record in kept.records if "to the game in" in record.getMessage()]
    assert len(switches) > 2, [record.getMessage() for record in switches]  # the games alternated
    assert sorted(player.games) == sorted(rooms), (player.games, rooms)


async def test_an_engine_that_cannot_start_is_a_clear_error(binary):
    bridge = Bridge(binary)
    bridge.engine = "/nonexistent/gtp-engine --level 3"
    async with TesseraServer(binary) as server:
        status, lines, errors = await bridge.play(server, "--practice", "blokus:duo:greedy")
        assert status == 2 and lines == [], (status, lines, errors)
        assert "cannot start the engine '/nonexistent/gtp-engine --level 3'" in errors, errors


if __name__ == "__main__":
    run_tests(globals())
