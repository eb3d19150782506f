"""test_bot_sdk.py -- the Python bot SDK (clients/python) against a real server.

Every test starts `tessera serve` on a free port with a fresh database,
creates bot accounts with `tessera bot add` where it needs one, and runs
either an example bot as its own process (exactly as a bot author would)
or the SDK's Bot class in this process when the test must reach inside it
(to cut its socket, or to compare what choose() was shown with what the
server said). Nothing sleeps to synchronize: tests wait for a process
exit, a result, or an event, bounded by timeouts.

The server runs with its default rate limits: the SDK must play within them.
"""

import asyncio
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, ask, run_tests  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SDK = os.path.join(ROOT, "clients", "python")
EXAMPLES = os.path.join(SDK, "examples")
sys.path.insert(0, SDK)
from tessera_bot import Bot, PieceTable, ReefHttp, RequestError  # noqa: E402
from tessera_bot.reef import greedy_action, place  # noqa: E402

PYTHON = "/usr/bin/python3"
GAME_TIMEOUT_S = 40


def add_bot_account(binary, server, name):
    """A new bot account in the server's database; returns its key."""
    done = subprocess.run([binary, "bot", "add", name, "--db", server.db_path],
                          check=True, capture_output=True, text=True)
    match = re.search(r"^key ([0-9a-f]{48})$", done.stdout, re.MULTILINE)
    assert match, done.stdout
    return match.group(1)


async def run_example(script, *arguments, key=None, timeout=GAME_TIMEOUT_S, environment=None):
    """Runs an example bot (in `environment`, default ours); returns (exit
    status, stdout JSON lines, stderr)."""
    environment = dict(environment or os.environ)
    environment.pop("TESSERA_BOT_KEY", None)
    if key:
        environment["TESSERA_BOT_KEY"] = key
    process = await asyncio.create_subprocess_exec(
        PYTHON, os.path.join(EXAMPLES, script), *arguments, env=environment,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    lines = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return process.returncode, lines, err.decode()


def assert_clean_game(status, lines, errors, players, reason):
    assert status == 0, errors
    assert len(lines) == 1, lines
    result = lines[0]["result"]
    assert lines[0]["seat"] == 0, lines
    assert result["reason"] == reason, result
    assert len(result["scores"]) == players and len(result["ranks"]) == players, result
    assert "refused" not in errors and "random legal move" not in errors, errors
    return result


class Spectator:
    """A plain websocket client watching one room, keeping its events."""

    def __init__(self, connection):
        self.connection = connection
        self.events = []

    @classmethod
    async def watch(cls, server, room):
        spectator = cls(await server.connect(max_size=2 ** 22))
        welcome = await ask(spectator.connection, {"type": "hello", "name": "watcher"})
        assert welcome["type"] == "welcome", welcome
        reply = await ask(spectator.connection, {"type": "room.join", "room": room,
                                                 "as": "spectator"})
        assert reply["type"] == "room", reply
        return spectator

    async def until(self, kind, where=lambda message: True, timeout=GAME_TIMEOUT_S):
        """Reads events up to the first of type `kind` matching `where`."""
        while True:
            message = json.loads(await asyncio.wait_for(self.connection.recv(), timeout))
            self.events.append(message)
            if message.get("type") == kind and where(message):
                return message

    def moves_of(self, seat):
        return [event for event in self.events
                if event.get("type") == "game.moved" and event["seat"] == seat]


# The example bots, each a process with a bot account, to a game's end. -------

async def test_random_blokus_example_plays_a_4p_game_with_a_bot_account(binary):
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, "sdk-random")
        status, lines, errors = await run_example(
            "random_blokus.py", "--url", server.ws_url(), "--practice", "blokus:4p:greedy",
            "--seed", "5", key=key)
        result = assert_clean_game(status, lines, errors, 4, "no_moves")
        assert result["scores"][0] > 0, result
        await server.wait_for_log(r"player \d+ \(sdk-random\) signed in")


async def test_greedy_blokus_example_plays_2p_and_beats_random(binary):
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, "sdk-greedy")
        status, lines, errors = await run_example(
            "greedy_blokus.py", "--url", server.ws_url(), "--practice", "blokus:2p:random",
            "--seed", "11", key=key)
        result = assert_clean_game(status, lines, errors, 2, "no_moves")
        assert result["ranks"][0] == 1, result  # greedy beats random on this seed


async def test_botpot_style_example_plays_4p_from_the_botpot_view_alone(binary):
    """The Botpot bot never looks at the legal move list: every one of its
    moves was accepted, so the view (required positions, unavailable spots)
    and the place_piece mapping are right in every position it met."""
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, "sdk-botpot")
        status, lines, errors = await run_example(
            "botpot_style.py", "--url", server.ws_url(), "--practice", "blokus:4p:greedy",
            key=key)
        result = assert_clean_game(status, lines, errors, 4, "no_moves")
        assert result["scores"][0] >= 20, result


async def example_takes_a_seat(binary, server, url):
    """--room CODE --seat N: someone else owns and starts the room, the
    example bot (connecting to `url`) plays seat 1 to the end; returns CODE."""
    key = add_bot_account(binary, server, "sdk-seat-one")
    async with server.connect() as owner:
        await ask(owner, {"type": "hello", "name": "owner"})
        created = await ask(owner, {"type": "room.create", "game": "blokus", "mode": "duo"})
        code = created["room"]["id"]
        bot = asyncio.create_task(run_example(
            "greedy_blokus.py", "--url", url, "--room", code, "--seat", "1", key=key))
        while True:  # the room event that shows the bot in seat 1
            message = json.loads(await asyncio.wait_for(owner.recv(), 10))
            if message.get("type") == "room" and \
                    message["room"]["seats"][1]["kind"] == "player":
                assert message["room"]["seats"][1]["name"] == "sdk-seat-one", message
                break
        await ask(owner, {"type": "room.add_bot", "room": code, "seat": 0, "bot": "random"})
        await ask(owner, {"type": "room.start", "room": code})
        status, lines, errors = await bot
    assert status == 0, errors
    assert lines[0]["room"] == code and lines[0]["seat"] == 1, lines
    assert lines[0]["result"]["reason"] == "no_moves", lines
    return code


async def test_an_example_takes_a_seat_in_a_room_by_its_code(binary):
    async with TesseraServer(binary) as server:
        await example_takes_a_seat(binary, server, server.ws_url())


async def test_greedy_reef_example_plays_solo_and_a_race(binary):
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, "sdk-reef")
        status, lines, errors = await run_example(
            "greedy_reef.py", "--url", server.ws_url(), "--seed", "7", "--max-turns", "150",
            key=key)
        solo = assert_clean_game(status, lines, errors, 1, "boards_ended")
        assert solo["scores"][0] > 1000 and solo["winners"] == [], solo
        status, lines, errors = await run_example(
            "greedy_reef.py", "--url", server.ws_url(), "--seed", "7", "--max-turns", "150",
            "--practice", "reef-builder:race:greedy", key=key)
        race = assert_clean_game(status, lines, errors, 4, "boards_ended")
        assert race["scores"][0] > 1000, race


async def test_reef_http_example_plays_the_stateless_api(binary):
    async with TesseraServer(binary) as server:
        http = f"http://127.0.0.1:{server.port}"
        status, lines, errors = await run_example(
            "reef_http_submit.py", "--url", http, "--seed", "7", "--max-actions", "60")
        assert status == 0, errors
        assert lines[0]["actions"] == 60 and lines[0]["phase"] == "playing", lines
        assert lines[0]["score"] > 0 and lines[0]["submitted"] is None, lines


async def test_reef_http_example_submits_its_run_under_a_token(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as connection:
            welcome = await ask(connection, {"type": "hello", "name": "reef-submitter"})
            created = await ask(connection, {"type": "room.create", "game": "reef-builder",
                                             "mode": "solo"})
            await ask(connection, {"type": "room.join", "room": created["room"]["id"]})
            status, lines, errors = await run_example(
                "reef_http_submit.py", "--url", f"http://127.0.0.1:{server.port}",
                "--seed", "7", "--token", welcome["token"])
        assert status == 0, errors
        submitted = lines[0]["submitted"]
        assert submitted["player"] == "reef-submitter" and submitted["seed"] == "7", lines
        assert submitted["score"] == lines[0]["score"], lines


async def test_reef_look_ahead_agrees_with_the_server_on_every_action(binary):
    async with TesseraServer(binary) as server:
        api = ReefHttp(f"http://127.0.0.1:{server.port}")
        loop = asyncio.get_running_loop()
        answer = await loop.run_in_executor(None, api.init, 3)
        for _ in range(80):
            state = answer["state"]
            action = greedy_action(state["board"], state["current"], state["streak"],
                                   answer["legalActions"])
            expected_points, expected_board = place(state["board"], state["current"], action,
                                                    state["streak"])
            answer = await loop.run_in_executor(None, api.action, state, action)
            assert answer["result"]["points"] == expected_points, (state, action, answer)
            assert answer["state"]["board"] == expected_board, (state, action, answer)


# The SDK's Bot in this process. --------------------------------------------

def cutting_choose(bot, cut_on_turn):
    """A choose() that plays the first legal move and, on its turn number
    `cut_on_turn`, cuts the bot's socket first (no close frame: the server
    sees a dead connection). Returns it and the list of plies it was asked."""
    turns = []

    async def choose(state, legal_moves):
        turns.append(state.ply)
        if len(turns) == cut_on_turn:
            bot.session.connection.transport.abort()
        return legal_moves[0]
    return choose, turns


async def duo_against_greedy_watched(bot, server, **settings):
    """`bot` makes a Duo room (seed 3, or `settings`), sits in seat 0
    against the greedy bot and plays it to the end while a spectator on
    `server` watches: (the room's code, the result the bot saw, the
    spectator with its messages). Also test_sdk_moved.py's."""
    created = await bot.request(dict({"type": "room.create", "game": "blokus", "mode": "duo"},
                                     **(settings or {"seed": 3})))
    code = created["room"]["id"]
    await bot.join_room(code, 0)
    await bot.request({"type": "room.add_bot", "room": code, "seat": 1, "bot": "greedy"})
    watcher = await Spectator.watch(server, code)
    await bot.request({"type": "room.start", "room": code})
    result = await asyncio.wait_for(bot.wait_game_over(code), GAME_TIMEOUT_S)
    over = await watcher.until("game.over")
    assert result == over["result"] and result["reason"] == "no_moves", result
    return code, result, watcher


async def check_drop_and_resume(binary, account_name):
    """A Duo game against greedy in which the bot's socket is cut on its
    third turn: the bot reconnects (with its key, or as a guest with its
    token), gets the state again, and plays every one of its turns itself."""
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, account_name) if account_name else None
        bot = Bot(None, server.ws_url(), key=key, name="cut-bot", retry_delays=(0.05,))
        bot.choose, turns = cutting_choose(bot, 3)
        async with bot:
            _, _, watcher = await duo_against_greedy_watched(bot, server)
        assert bot.session.reconnects == 1
        ours = watcher.moves_of(0)
        # No stand-in and no timeout played for the bot; the turn it was cut on
        # was asked again after the reconnect, and answered once.
        assert len(ours) > 5 and all("cause" not in move for move in ours), ours
        assert len(turns) == len(ours) + 1 and turns[2] == turns[3], turns
        assert [move["ply"] for move in ours] == sorted(set(turns)), (ours, turns)


async def test_a_bot_account_resumes_its_game_after_its_socket_is_cut(binary):
    await check_drop_and_resume(binary, "sdk-cut")


async def test_a_guest_bot_resumes_with_its_session_token(binary):
    await check_drop_and_resume(binary, None)


async def test_a_bot_takes_its_waiting_seat_back_after_a_drop(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as owner:
            await ask(owner, {"type": "hello", "name": "owner"})
            created = await ask(owner, {"type": "room.create", "game": "blokus", "mode": "duo"})
            code = created["room"]["id"]
            key = add_bot_account(binary, server, "sdk-waiting")
            async with Bot(lambda state, moves: moves[0], server.ws_url(), key=key,
                           retry_delays=(0.05,)) as bot:
                await bot.join_room(code, 1)
                events = []

                async def seat_one(is_wanted):
                    while True:
                        message = json.loads(await asyncio.wait_for(owner.recv(), 10))
                        events.append(message)
                        if message.get("type") == "room" and \
                                is_wanted(message["room"]["seats"][1]):
                            return message["room"]["seats"][1]
                await seat_one(lambda seat: seat["kind"] == "player")
                bot.session.connection.transport.abort()
                # The seat waits for the reconnect grace (docs/PROTOCOL.md).
                away = await seat_one(lambda seat: seat.get("connected") is False)
                assert away["player_id"] == bot.player_id, away
                back = await seat_one(lambda seat: seat.get("connected") is True)
                assert back["player_id"] == bot.player_id and back["connected"], back
                assert bot.session.reconnects == 1
                await ask(owner, {"type": "room.add_bot", "room": code, "seat": 0,
                                  "bot": "greedy"})
                await ask(owner, {"type": "room.start", "room": code})
                result = await asyncio.wait_for(bot.wait_game_over(code), GAME_TIMEOUT_S)
                assert result["reason"] == "no_moves" and len(result["scores"]) == 2, result


async def test_a_new_process_with_the_same_key_picks_up_the_game(binary):
    """A bot that stops mid-game (a crash, a redeploy) and starts again knows
    no rooms: the server names its seat in a `room` event after hello, and the
    new Bot follows that room and plays it out, as it does for the rooms
    quick play and tournaments seat it in."""
    async with TesseraServer(binary) as server:
        key = add_bot_account(binary, server, "sdk-restart")
        stopped = asyncio.Event()

        async def stop_on_third_turn(state, legal_moves):
            if state.ply >= 4:
                stopped.set()
                await asyncio.Event().wait()  # never answers; close() cancels it
            return legal_moves[0]

        first = Bot(stop_on_third_turn, server.ws_url(), key=key)
        async with first:
            code = await first.practice("blokus", "duo", ["greedy"], seed=2)
            await asyncio.wait_for(stopped.wait(), GAME_TIMEOUT_S)
        async with Bot(lambda state, moves: moves[0], server.ws_url(), key=key) as second:
            got_code, result = await asyncio.wait_for(second.next_result(), GAME_TIMEOUT_S)
            assert second.rooms[code].seat == 0
        assert got_code == code and result["reason"] == "no_moves", (got_code, result)


async def test_an_illegal_or_failing_choice_is_replaced_and_the_game_goes_on(binary):
    async with TesseraServer(binary) as server:
        calls = []

        def choose(state, legal_moves):
            calls.append(state.ply)
            if len(calls) == 1:
                return {"piece": "I1", "orientation": 0, "row": 13, "col": 13}  # not a start
            if len(calls) == 2:
                raise RuntimeError("a bug in the author's code")
            return legal_moves[-1]

        async with Bot(choose, server.ws_url(), name="clumsy") as bot:
            code = await bot.practice("blokus", "duo", ["greedy"])
            result = await asyncio.wait_for(bot.wait_game_over(code), GAME_TIMEOUT_S)
        assert result["reason"] == "no_moves", result
        assert [error["code"] for error in bot.refused_moves] == ["illegal_move"], \
            bot.refused_moves
        assert bot.refused_moves[0]["reason"] == "not_on_start", bot.refused_moves
        assert len(calls) > 5


async def test_a_move_the_clock_overtook_is_dropped_and_play_goes_on(binary):
    """A one-second clock with a one-second increment, and a first turn that
    takes 1.2 s: the room's timeout policy plays that turn, the bot's late
    move is refused as stale, and the bot neither counts it as its own
    mistake nor stops: it plays every later turn itself (0.1 s each)."""
    async with TesseraServer(binary) as server:
        async def slow_start(state, legal_moves):
            await asyncio.sleep(1.2 if state.ply == 0 else 0.1)
            return legal_moves[0]

        async with Bot(slow_start, server.ws_url(), name="slow") as bot:
            _, _, watcher = await duo_against_greedy_watched(
                bot, server, clock={"initial_ms": 1000, "increment_ms": 1000})
        assert bot.refused_moves == [], bot.refused_moves
        assert [error["code"] for error in bot.late_turns] == ["stale_ply"], bot.late_turns
        causes = [move.get("cause") for move in watcher.moves_of(0)]
        assert causes[0] == "timeout" and len(causes) > 5 and not any(causes[1:]), causes


async def test_the_botpot_view_matches_every_hint_the_server_sends(binary):
    """Two SDK bots play a 2p game (four colors) against each other; on each
    turn the view built from game.state is compared with the server's own
    hints for the color to move and with the state's board and hands."""
    async with TesseraServer(binary) as server:
        checked, mismatches = [], []

        def compare(state, legal_moves):
            view = state.botpot()
            color = state["to_move"]["color"]
            size = state["size"]
            required = [[point["y"], point["x"]] for point in
                        view.required_positions[color]["positions"]]
            spots = view.players_unavailable_spots[color]["unavailable_spots"]
            unavailable = [[index // size, index % size]
                           for index, spot in enumerate(spots) if spot]
            if required != state["hints"]["attach"] or \
                    unavailable != state["hints"]["unavailable"]:
                mismatches.append((state["ply"], color, required, unavailable, state["hints"]))
            board = [-1 if cell == "." else int(cell) for line in state["board"] for cell in line]
            if view.game_board != board or view.player_hands[color] != sorted(
                    state.pieces.piece_index(name) for name in state["pieces_left"][color]):
                mismatches.append((state["ply"], color, "board or hand"))
            checked.append(color)
            return legal_moves[len(legal_moves) // 2]

        async with Bot(compare, server.ws_url(), name="first") as first, \
                Bot(compare, server.ws_url(), name="second") as second:
            created = await first.request({"type": "room.create", "game": "blokus",
                                           "mode": "2p", "seed": 9})
            code = created["room"]["id"]
            await first.join_room(code, 0)
            await second.join_room(code, 1)
            await first.request({"type": "room.start", "room": code})
            results = await asyncio.wait_for(asyncio.gather(
                first.wait_game_over(code), second.wait_game_over(code)), GAME_TIMEOUT_S)
        assert results[0] == results[1] and results[0]["reason"] == "no_moves", results
        assert mismatches == [], mismatches[:3]
        assert set(checked) == {0, 1, 2, 3} and len(checked) > 40, checked


async def test_the_piece_table_is_the_servers(binary):
    async with TesseraServer(binary) as server:
        loop = asyncio.get_running_loop()
        fetched = await loop.run_in_executor(None, PieceTable.fetch, server.ws_url())
        printed = PieceTable(json.loads(subprocess.run([binary, "pieces"], check=True,
                                                       capture_output=True, text=True).stdout))
        assert fetched.orientations == printed.orientations
        assert len(fetched.names) == 21


async def test_quick_play_seats_two_queued_bots_in_one_game(binary):
    async with TesseraServer(binary) as server:
        async with Bot(lambda state, moves: moves[0], server.ws_url(), name="q1") as first, \
                Bot(lambda state, moves: moves[-1], server.ws_url(), name="q2") as second:
            await first.join_queue("blokus", "duo")
            await second.join_queue("blokus", "duo")
            (code_a, result_a), (code_b, result_b) = await asyncio.wait_for(
                asyncio.gather(first.next_result(), second.next_result()), GAME_TIMEOUT_S)
        assert code_a == code_b and result_a == result_b, (code_a, code_b)


async def test_two_queued_examples_play_their_games_and_exit_0(binary):
    """`--queue` as BOTS.md shows it: two bot processes queue for Duo, are
    matched, play, and exit 0 (the server took them out of the queue as it
    seated them, so there is no queue to leave); with `--games 2` each
    queues again after its first game and the two meet once more (a window
    wide enough for the ratings the first game gave them)."""
    async with TesseraServer(binary, "--queue-window", "1000") as server:
        runs = await asyncio.gather(*(
            run_example("random_blokus.py", "--url", server.ws_url(), "--name", name,
                        "--queue", "blokus:duo", "--games", "2", timeout=2 * GAME_TIMEOUT_S)
            for name in ("queued-a", "queued-b")))
    for status, lines, errors in runs:
        assert status == 0, errors
        assert "not_queued" not in errors, errors
        assert [line["result"]["reason"] for line in lines] == ["no_moves"] * 2, lines
    rooms = [[line["room"] for line in lines] for _, lines, _ in runs]
    assert rooms[0] == rooms[1] and rooms[0][0] != rooms[0][1], rooms
    assert sorted(line["seat"] for _, lines, _ in runs for line in lines[:1]) == [0, 1], runs


async def test_a_matched_bot_cut_mid_game_does_not_queue_again(binary):
    """Being matched ends a bot's wait in the queue: when its socket is cut
    during the match, it reconnects to its game, not to the queue."""
    async with TesseraServer(binary) as server:
        cut = Bot(None, server.ws_url(), name="q-cut", retry_delays=(0.05,))
        cut.choose, _ = cutting_choose(cut, 3)
        async with cut, Bot(lambda state, moves: moves[0], server.ws_url(), name="q-other") \
                as other:
            await cut.join_queue("blokus", "duo")
            await other.join_queue("blokus", "duo")
            (code, result), _ = await asyncio.wait_for(
                asyncio.gather(cut.next_result(), other.next_result()), GAME_TIMEOUT_S)
            assert cut.session.reconnects == 1 and result["reason"] == "no_moves", result
            try:
                left = await cut.leave_queue()
            except RequestError as error:
                left = error.error
            assert left["type"] == "error" and left["code"] == "not_queued", left


# The arena CI runs. ------------------------------------------------------------

async def test_a_tournament_of_example_bots_and_a_built_in_bot(binary):
    """Two example bots, signed in as bot accounts, play a round-robin Duo
    tournament against the built-in greedy bot to its end; the standings
    and the ratings it produced are checked."""
    admin = "admin-key-for-the-sdk-arena-01"
    async with TesseraServer(binary, "--admin-key", admin) as server:
        keys = {name: add_bot_account(binary, server, name)
                for name in ("sdk-random", "sdk-greedy")}
        settings = {"name": "SDK arena", "game": "blokus", "mode": "duo",
                    "format": "round-robin", "seed": 1, "parallel": 2,
                    "participants": [{"player": "sdk-random"}, {"player": "sdk-greedy"},
                                     {"bot": "greedy"}]}
        status, _, body = await server.http(
            "POST", "/api/tournaments", json.dumps(settings).encode(),
            headers={"Authorization": f"Bearer {admin}"})
        assert status == 201, body
        tournament = str(json.loads(body)["id"])
        runs = await asyncio.gather(
            run_example("random_blokus.py", "--url", server.ws_url(), "--tournament", tournament,
                        key=keys["sdk-random"]),
            run_example("greedy_blokus.py", "--url", server.ws_url(), "--tournament", tournament,
                        key=keys["sdk-greedy"]))
        for status, lines, errors in runs:
            assert status == 0 and len(lines) == 1, errors
        standings = runs[0][1][0]["standings"]
        assert runs[1][1][0]["standings"] == standings
        assert {entry["player"]["name"] for entry in standings} == \
            {"sdk-random", "sdk-greedy", "bot:greedy"}
        assert sum(entry["points"] for entry in standings) == 6  # six games, a point each
        assert all(entry["games"] == 4 and entry["games_left"] == 0 for entry in standings)
        status, _, body = await server.http("GET", "/api/leaderboards/blokus?kind=duo")
        assert status == 200, body
        board = {item["player"]["name"]: item for item in json.loads(body)["items"]}
        assert set(board) == {"sdk-random", "sdk-greedy", "bot:greedy"}, board
        assert all(item["games"] == 4 for item in board.values()), board


# The command line. -----------------------------------------------------------

async def test_bad_command_lines_and_keys_are_refused_clearly(binary):
    async with TesseraServer(binary) as server:
        status, _, errors = await run_example("random_blokus.py", "--seat", "1")
        assert status == 2 and "--seat goes with --room" in errors, errors
        status, _, errors = await run_example("random_blokus.py", "--practice", "blokus")
        assert status == 2 and "is not GAME:MODE" in errors, errors
        status, lines, errors = await run_example(
            "random_blokus.py", "--url", server.ws_url(), key="0" * 48)
        assert status == 1 and lines == [], errors
        assert "hello refused: unauthorized: unknown bot key" in errors, errors
        status, lines, errors = await run_example(
            "random_blokus.py", "--url", server.ws_url(), "--room", "nosuchrm", key="")
        assert status == 1 and "no_such_room" in errors, errors


if __name__ == "__main__":
    run_tests(globals())
