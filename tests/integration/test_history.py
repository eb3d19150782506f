"""test_history.py -- the history REST API against a real server.

Games are played for real over websockets (a human client and built-in
bots), then read back through /api/games, /api/games/{id}, its /replay and
its .blksgf: the replay must rebuild exactly the final board the players
saw live. Ratings, rating history and Reef best runs are filled by other
code; here they are inserted with the sqlite3 module into the server's
database between two runs of the server on the same file. Every answer is
checked whole: status, Content-Type, a Content-Length equal to the body.
"""

import asyncio
import datetime
import json
import os
import sqlite3
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_live_play import FAST, Client, create_room, play_first_legal  # noqa: E402
from test_results import HTTP_FAST, play_reef_run, submit  # noqa: E402

WAIT_S = 20


async def get(server, path, status=200, content_type="application/json"):
    """GETs `path`; checks the status, type and length; returns the body
    (parsed when JSON)."""
    got, headers, body = await server.http("GET", path)
    assert got == status, (path, got, body)
    assert headers["content-type"] == content_type, (path, headers)
    assert int(headers["content-length"]) == len(body), (path, headers)
    return json.loads(body) if content_type == "application/json" else body


async def get_error(server, path, status, code):
    error = await get(server, path, status)
    assert error["type"] == "error" and error["code"] == code, (path, error)
    assert error["message"], error


async def walk(server, path, limit):
    """Every item of a list, `limit` per page, following `next`."""
    items, cursor, pages = [], None, 0
    separator = "&" if "?" in path else "?"
    while True:
        page_path = f"{path}{separator}limit={limit}"
        page = await get(server, page_path + (f"&cursor={cursor}" if cursor else ""))
        assert len(page["items"]) <= limit
        items += page["items"]
        pages += 1
        assert pages < 100
        cursor = page["next"]
        if cursor is None:
            return items


async def play_duo_against_greedy(server, name):
    """`name` (seat 0) plays its first legal move every turn against the
    greedy bot; returns the last game.state it saw and game.over."""
    human = await Client.join(server, name)
    room = await create_room(human, game="blokus", mode="duo")
    await human.request({"type": "room.join", "room": room, "seat": 0})
    await human.request({"type": "room.add_bot", "room": room, "seat": 1, "bot": "greedy"})
    await human.request({"type": "room.start", "room": room})
    while True:
        state = await human.expect("game.state", lambda m: m["room"] == room)
        if state["to_move"] is None:
            over = await human.expect("game.over")
            await human.close()
            return state, over
        if state["to_move"]["seat"] == 0:
            await play_first_legal(human, room, state["ply"])


async def play_reef_solo(server, name, turns):
    human = await Client.join(server, name)
    room = await create_room(human, game="reef-builder", mode="solo", seed=11, max_turns=turns)
    await human.request({"type": "room.join", "room": room})
    await human.request({"type": "room.start", "room": room})
    for ply in range(turns):
        await play_first_legal(human, room, ply)
    over = await human.expect("game.over")
    states = [m for m in human.inbox if m.get("type") == "game.state"]
    await human.close()
    return states[-1], over


async def newest_game(server):
    return (await get(server, "/api/games?limit=1"))["items"][0]


async def test_games_list_filters_and_pages_through_every_game(binary):
    async with TesseraServer(binary, *FAST) as server:
        for i in range(3):
            await play_duo_against_greedy(server, f"duo{i}")
        for i in range(2):
            await play_reef_solo(server, f"reef{i}", 4)
        waiting = await Client.join(server, "waiter")
        await create_room(waiting, game="blokus", mode="4p")
        for limit in (1, 2, 5, 100):
            games = await walk(server, "/api/games", limit)
            ids = [game["id"] for game in games]
            assert len(ids) == 6 and ids == sorted(set(ids), reverse=True), ids
        by_game = await walk(server, "/api/games?game=reef-builder", 1)
        assert [g["mode"] for g in by_game] == ["solo", "solo"], by_game
        duo = await walk(server, "/api/games?game=blokus&mode=duo&status=finished", 2)
        assert len(duo) == 3 and all(g["status"] == "finished" for g in duo)
        assert all(g["seats"][1]["bot"] == "greedy" and g["seats"][1]["player"] is None
                   for g in duo)
        assert {g["seats"][0]["player"]["name"] for g in duo} == {"duo0", "duo1", "duo2"}
        assert all(g["seats"][0]["rank"] in (1, 2) and isinstance(g["seats"][0]["score"], int)
                   for g in duo)
        waiting_games = await walk(server, "/api/games?status=waiting", 3)
        assert len(waiting_games) == 1 and waiting_games[0]["mode"] == "4p"
        assert waiting_games[0]["started_at_ms"] is None
        assert (await walk(server, "/api/games?tournament=5", 3)) == []
        # Guests have no name key: they are not players one can filter by.
        await get_error(server, "/api/games?player=duo0", 400, "unknown_player")
        # ... but by their id, which their seats show ("my games" of a guest).
        guest = duo[1]["seats"][0]["player"]
        mine = await walk(server, f"/api/games?player_id={guest['id']}", 1)
        assert [g["id"] for g in mine] == [duo[1]["id"]], mine
        assert await walk(server, "/api/games?player_id=999999", 1) == []


def rebuild_blokus_board(replay):
    size = replay["board"]["rows"]
    board = [["."] * size for _ in range(size)]
    for ply in replay["plies"]:
        for row, col in ply.get("cells", []):
            assert board[row][col] == ".", (ply, row, col)
            board[row][col] = str(ply["color"])
    return ["".join(row) for row in board]


async def test_replay_rebuilds_the_final_blokus_board_seen_live(binary):
    async with TesseraServer(binary, *FAST) as server:
        final, over = await play_duo_against_greedy(server, "alice")
        summary = await newest_game(server)
        game_id = summary["id"]
        detail = await get(server, f"/api/games/{game_id}")
        assert detail["result"] == over["result"], (detail, over)
        assert detail["options"]["scoring"] in ("squares", "official"), detail["options"]
        # the game is rated: the guest and the built-in bot's entry, from the start
        changes = {c["player"]["name"]: c for c in detail["rating_changes"]}
        assert set(changes) == {"alice", "bot:greedy"}, detail["rating_changes"]
        assert all(c["pool"] == "blokus-duo" and c["before"]["mu"] == 25 for c in changes.values())
        winner = "alice" if over["result"]["winners"] == [0] else "bot:greedy"
        assert changes[winner]["after"]["mu"] > 25
        replay = await get(server, f"/api/games/{game_id}/replay")
        plies = replay["plies"]
        assert [p["seq"] for p in plies] == list(range(len(plies)))
        assert [p["ply"] for p in plies] == list(range(len(plies)))
        assert detail["moves"] == len(plies)
        assert sum(c["moves"] for c in detail["clocks"]) == len(plies)
        assert rebuild_blokus_board(replay) == final["board"]
        assert plies[-1]["scores"] == over["result"]["scores"] == final["scores"]
        assert all(p["time_ms"] >= 0 and p["clock_ms"] is None for p in plies)
        assert replay["result"] == over["result"]
        sgf = await get(server, f"/api/games/{game_id}.blksgf",
                        content_type="application/x-blokus-sgf")
        text = sgf.decode()
        assert text.startswith("(;FF[4]") and "GM[Blokus Duo]" in text, text[:80]
        placements = sum(1 for p in plies if p["cells"])
        assert text.count(";B[") + text.count(";W[") == placements


async def test_replay_rebuilds_the_final_reef_board_seen_live(binary):
    async with TesseraServer(binary, *FAST) as server:
        final, over = await play_reef_solo(server, "rita", 30)
        game_id = (await newest_game(server))["id"]
        replay = await get(server, f"/api/games/{game_id}/replay")
        assert replay["board"] == {"rows": 8, "cols": 6}
        board = [["."] * 6 for _ in range(8)]
        for ply in replay["plies"]:
            for row, col, color in ply["cells"]:
                board[row][col] = color
            for bloom in ply["result"]["blooms"]:
                for row, col in bloom["cells"]:
                    board[row][col] = "."
        assert ["".join(row) for row in board] == final["boards"][0]["board"]
        assert replay["plies"][-1]["scores"] == over["result"]["scores"]
        # Only Blokus has a Pentobi file.
        await get_error(server, f"/api/games/{game_id}.blksgf", 404, "not_found")


def fill_rankings(path):
    """Accounts, ratings, rating history and Reef best runs, as the rating
    code would leave them."""
    db = sqlite3.connect(path)
    day = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d")
    names = ["Alice", "Bob", "Carol", "Dave"]
    for index, name in enumerate(names, start=100):
        db.execute("INSERT INTO players (id, name, is_bot, created_at, name_key)"
                   " VALUES (?, ?, 0, 1, ?)", (index, name, name.lower()))
    # display = mu - 3 sigma: Carol 25, Alice 20, Bob 20 (ties: by id), Dave 1 game.
    for player, mu, sigma, games in ((100, 35, 5, 4), (101, 29, 3, 6), (102, 28, 1, 9),
                                     (103, 50, 1, 1)):
        db.execute("INSERT INTO ratings VALUES (?, 'blokus-4p', ?, ?, ?, ?, ?, ?, 1, 1)",
                   (player, mu, sigma, mu - 3 * sigma, games, games // 2, games * 40))
    db.execute("INSERT INTO games (id, room, game, mode, options, seed, status, created_at)"
               " VALUES (900, 'r', 'blokus', '4p', '{}', 1, 'waiting', 1)")
    db.execute("INSERT INTO rating_history VALUES (100, 'blokus-4p', 900, 25, 8.3, 35, 5, 7)")
    runs = [(100, 300, 5), (101, 500, 4), (102, 300, 2), (103, 100, 1)]
    for run_id, (player, score, at_ms) in enumerate(runs, start=1):
        db.execute("INSERT INTO reef_runs (id, player_id, seed, score, actions, at_ms)"
                   " VALUES (?, ?, 5, ?, '[]', ?)", (run_id, player, score, at_ms))
        for board in ("seed:5", f"day:{day}"):
            db.execute("INSERT INTO reef_best VALUES (?, ?, ?, ?, ?)",
                       (board, player, score, run_id, at_ms))
    db.commit()
    db.close()
    return day


async def test_profiles_and_leaderboards_read_the_rankings(binary):
    async with TesseraServer(binary) as first:
        await first.stop()
        day = fill_rankings(first.db_path)
        query = [binary, "query", "leaderboard", "reef", "--seed", "5", "--db", first.db_path]
        table = subprocess.run(query, capture_output=True, text=True, timeout=10)
        assert table.returncode == 0, table.stderr
        names = [line.split()[1] for line in table.stdout.splitlines()[2:]]
        assert names == ["Bob", "Carol", "Alice", "Dave"], table.stdout
        printed = subprocess.run(query + ["--json"], capture_output=True, text=True, timeout=10)
        bad = subprocess.run(query[:-2] + ["--period", "day", "--db", first.db_path],
                             capture_output=True, text=True, timeout=10)
        assert bad.returncode == 2 and "not both" in bad.stderr, bad
        async with TesseraServer(binary, "--db", first.db_path,
                                 "--leaderboard-min-games", "2") as server:
            profile = await get(server, "/api/players/ALICE")
            assert profile["player"] == {"id": 100, "name": "Alice"}, profile
            assert profile["bot"] is False
            assert [r["pool"] for r in profile["ratings"]] == ["blokus-4p"]
            assert profile["ratings"][0]["rating"] == 20.0
            assert profile["ratings"][0]["average_score"] == 40.0
            history = profile["rating_history"]["blokus-4p"]
            assert [h["game_id"] for h in history] == [900]
            assert history[0] == {"game_id": 900, "at_ms": 7, "mu": 35.0, "sigma": 5.0,
                                  "rating": 20.0}
            assert {b["board"] for b in profile["reef_best"]} == {"seed:5", f"day:{day}"}
            await get_error(server, "/api/players/nobody", 404, "not_found")

            board = await walk(server, "/api/leaderboards/blokus?kind=4p", 1)
            assert [e["player"]["name"] for e in board] == ["Carol", "Alice", "Bob"], board
            assert [e["rank"] for e in board] == [1, 2, 3]
            assert board[0]["games"] == 9 and board[0]["rating"] == 25.0
            assert (await get(server, "/api/leaderboards/blokus?kind=duo"))["items"] == []

            assert json.loads(printed.stdout) == await get(server, "/api/leaderboards/reef?seed=5")
            reef = await walk(server, "/api/leaderboards/reef?seed=5", 2)
            assert [e["player"]["name"] for e in reef] == ["Bob", "Carol", "Alice", "Dave"]
            assert [e["rank"] for e in reef] == [1, 2, 3, 4]
            today = await get(server, "/api/leaderboards/reef")
            assert today["board"] == f"day:{day}" and today["seed"] == int(day)
            assert len(today["items"]) == 4
            around = await get(server, "/api/leaderboards/reef?seed=5&around=alice&limit=3")
            assert [e["player"]["name"] for e in around["items"]] == ["Carol", "Alice", "Dave"]
            assert [e["rank"] for e in around["items"]] == [2, 3, 4]
            everything = await get(server, "/api/leaderboards/reef?period=all")
            assert everything["board"] == "all" and everything["items"] == []
            await get_error(server, "/api/leaderboards/reef?seed=6&around=alice", 404,
                            "not_found")


async def resign_against_bot(server, name, bot):
    """`name` (seat 0) resigns a Duo game against built-in `bot`; the game's id."""
    human = await Client.join(server, name)
    created = await human.request({"type": "room.create", "game": "blokus", "mode": "duo"})
    code = created["room"]["id"]
    await human.request({"type": "room.join", "room": code, "seat": 0})
    await human.request({"type": "room.add_bot", "room": code, "seat": 1, "bot": bot})
    await human.request({"type": "room.start", "room": code})
    await human.request({"type": "game.resign", "room": code})
    await human.expect("game.over")
    await human.close()
    return created["room"]["game_id"]


async def test_builtin_bots_have_games_and_counters(binary):
    """A built-in bot's entry (bot:greedy, bot:mcts@Nms) has a profile with
    its games counted and listed, and /api/games?player= lists them."""
    async with TesseraServer(binary, *FAST) as server:
        greedy_games = [await resign_against_bot(server, f"g{i}", "greedy") for i in range(3)]
        mcts_game = await resign_against_bot(server, "mo", "mcts")
        greedy = await get(server, "/api/players/bot:greedy")
        assert greedy["bot"] is True
        assert greedy["games_played"] == 3 and greedy["wins"] == 3, greedy
        assert [g["id"] for g in greedy["recent_games"]] == greedy_games[::-1], greedy
        listed = await walk(server, "/api/games?player=BOT:GREEDY", 2)
        assert [g["id"] for g in listed] == greedy_games[::-1], listed
        assert all(g["seats"][1]["bot"] == "greedy" and g["seats"][1]["player"] is None
                   for g in listed)
        changes = (await get(server, f"/api/games/{mcts_game}"))["rating_changes"]
        mcts_name = next(c["player"]["name"] for c in changes
                         if c["player"]["name"].startswith("bot:mcts@"))
        mcts = await get(server, f"/api/players/{mcts_name}")
        assert mcts["games_played"] == 1 and mcts["wins"] == 1, mcts
        assert [g["id"] for g in mcts["recent_games"]] == [mcts_game]
        assert [g["id"] for g in await walk(server, f"/api/games?player={mcts_name}", 5)] \
            == [mcts_game]


async def test_rating_history_follows_finish_order(binary):
    """Parallel games finish out of id order: the chart is in the order they
    finished, so its last point is the current rating."""
    async with TesseraServer(binary, *FAST) as server:
        rooms = []
        for name in ("early", "late"):
            human = await Client.join(server, name)
            created = await human.request({"type": "room.create", "game": "blokus",
                                           "mode": "duo"})
            code = created["room"]["id"]
            await human.request({"type": "room.join", "room": code, "seat": 0})
            await human.request({"type": "room.add_bot", "room": code, "seat": 1,
                                 "bot": "greedy"})
            await human.request({"type": "room.start", "room": code})
            rooms.append((human, code, created["room"]["game_id"]))
        for human, code, _ in reversed(rooms):  # the newer game ends first
            await human.request({"type": "game.resign", "room": code})
            await human.expect("game.over")
        profile = await get(server, "/api/players/bot:greedy")
        chart = profile["rating_history"]["blokus-duo"]
        assert [point["game_id"] for point in chart] == [rooms[1][2], rooms[0][2]], chart
        assert chart[0]["at_ms"] <= chart[1]["at_ms"]
        current = next(r for r in profile["ratings"] if r["pool"] == "blokus-duo")
        assert chart[-1]["mu"] == current["mu"] and chart[-1]["sigma"] == current["sigma"]
        for human, _, _ in rooms:
            await human.close()


async def test_reef_day_and_week_boards_rank_their_seed_only(binary):
    """A run of a seed of one's choosing tops no period's board: the day's
    board ranks runs of the day's seed, the week's runs of its Monday's."""
    async with TesseraServer(binary, *HTTP_FAST) as server:
        day = await get(server, "/api/leaderboards/reef?period=day")
        week = await get(server, "/api/leaderboards/reef?period=week")
        today, monday = day["seed"], int(week["board"].removeprefix("week:"))
        assert day["board"] == f"day:{today}", day
        players = {}
        for name, seed in (("chooser", 7), ("daily", today), ("weekly", monday)):
            guest = await Client.join(server, name)
            status, reply = await submit(server, guest.token, await play_reef_run(server, seed))
            assert status == 201, reply
            players[name] = reply["score"]
        day = await get(server, "/api/leaderboards/reef?period=day")
        week = await get(server, "/api/leaderboards/reef?period=week")
        on_day = {e["player"]["name"] for e in day["items"]}
        on_week = {e["player"]["name"] for e in week["items"]}
        assert on_day == ({"daily", "weekly"} if today == monday else {"daily"}), day
        assert on_week == ({"daily", "weekly"} if today == monday else {"weekly"}), week
        assert week["seed"] == monday, week  # a week's board names its seed
        everything = await get(server, "/api/leaderboards/reef?period=all")
        assert {e["player"]["name"] for e in everything["items"]} == set(players)


def flip(digit):
    return "1" if digit != "1" else "2"


async def test_cursors_are_taken_back_only_by_their_list(binary):
    async with TesseraServer(binary, *FAST) as server:
        for i in range(3):
            await resign_against_bot(server, f"c{i}", "greedy")
        games = (await get(server, "/api/games?limit=1"))["next"]
        finished = (await get(server, "/api/games?status=finished&limit=1"))["next"]
        board = (await get(server, "/api/leaderboards/blokus?kind=duo&limit=1"))["next"]
        assert games and finished and board
        # each cursor works on its own list, whatever the page size
        assert len((await get(server, f"/api/games?limit=2&cursor={games}"))["items"]) == 2
        second = await get(server, f"/api/games?status=finished&limit=1&cursor={finished}")
        assert len(second["items"]) == 1
        await get(server, f"/api/leaderboards/blokus?kind=duo&cursor={board}")
        refused = [
            f"/api/games?cursor={board}",  # a leaderboard's on the games list
            f"/api/leaderboards/blokus?kind=duo&cursor={games}",  # and the other way
            f"/api/games?status=waiting&cursor={finished}",  # other filters
            f"/api/games?cursor={finished}",
            f"/api/leaderboards/blokus?kind=4p&cursor={board}",
            f"/api/tournaments?cursor={games}",
            f"/api/leaderboards/reef?period=all&cursor={board}",
            "/api/games?cursor=" + "0" * 64,  # made up
            "/api/games?cursor=" + "0" * 31 + "2",  # the old form
            "/api/games?cursor=" + games[:-1] + flip(games[-1]),  # its tag altered
            "/api/games?cursor=" + games[:15] + flip(games[15]) + games[16:],  # elsewhere
        ]
        for path in refused:
            await get_error(server, path, 400, "bad_parameter")
        assert len(games) == 64
        await server.stop()
        # the key is the database's: cursors outlive a restart and work in `tessera query`
        query = [binary, "query", "games", "--cursor", games, "--json", "--db", server.db_path]
        printed = subprocess.run(query, capture_output=True, text=True, timeout=10)
        assert printed.returncode == 0, printed.stderr
        assert len(json.loads(printed.stdout)["items"]) == 2
        async with TesseraServer(binary, db_path=server.db_path) as again:
            assert len((await get(again, f"/api/games?cursor={games}"))["items"]) == 2


async def test_bad_input_on_every_route_is_refused(binary):
    async with TesseraServer(binary) as server:
        cases = [
            ("/api/games?limit=0", 400, "bad_parameter"),
            ("/api/games?limit=101", 400, "bad_parameter"),
            ("/api/games?limit=x", 400, "bad_parameter"),
            ("/api/games?cursor=zz", 400, "bad_parameter"),
            ("/api/games?mode=5p", 400, "bad_parameter"),
            ("/api/games?game=reef-builder&mode=duo", 400, "bad_parameter"),
            ("/api/games?status=lost", 400, "bad_parameter"),
            ("/api/games?tournament=0", 400, "bad_parameter"),
            ("/api/games?player_id=0", 400, "bad_parameter"),
            ("/api/games?player_id=-1", 400, "bad_parameter"),
            ("/api/games?player_id=x", 400, "bad_parameter"),
            ("/api/games?player_id=" + "9" * 19, 400, "bad_parameter"),
            ("/api/games?player_id=1&player_id=1", 400, "bad_parameter"),
            ("/api/games?player=bot:greedy&player_id=1", 400, "bad_parameter"),
            ("/api/games?player=nobody", 400, "unknown_player"),
            ("/api/games?mode=duo&mode=4p", 400, "bad_parameter"),
            ("/api/games?colour=red", 400, "bad_parameter"),
            ("/api/games/7", 404, "not_found"),
            ("/api/games/7?limit=3", 400, "bad_parameter"),
            ("/api/games/07", 404, "not_found"),
            ("/api/games/7/moves", 404, "not_found"),
            ("/api/games/7/replay", 404, "not_found"),
            ("/api/games/7.blksgf", 404, "not_found"),
            ("/api/players/nobody", 404, "not_found"),
            ("/api/players/" + "x" * 64, 400, "bad_parameter"),
            ("/api/leaderboards/blokus?kind=5p", 400, "bad_parameter"),
            ("/api/leaderboards/blokus?limit=101", 400, "bad_parameter"),
            ("/api/leaderboards/reef?seed=-1", 400, "bad_parameter"),
            ("/api/leaderboards/reef?seed=18446744073709551616", 400, "bad_parameter"),
            ("/api/leaderboards/reef?period=month", 400, "bad_parameter"),
            ("/api/leaderboards/reef?seed=1&period=day", 400, "bad_parameter"),
            ("/api/leaderboards/reef?around=nobody", 400, "unknown_player"),
            ("/api/leaderboards/reef?around=x&cursor=" + "0" * 32, 400, "bad_parameter"),
            ("/api/leaderboards/elo", 404, "not_found"),
        ]
        for path, status, code in cases:
            await get_error(server, path, status, code)
        # The exact routes under /api/games keep their own answers.
        got, headers, _ = await server.http("GET", "/api/games/reef-builder/action")
        assert got == 405 and headers["allow"] == "POST"
        got, _, body = await server.http("GET", "/api/games/reef-builder/nothing")
        assert got == 404 and json.loads(body)["error"]["code"] == "not_found"
        got, headers, _ = await server.http("POST", "/api/games", b"{}")
        assert got == 405 and headers["allow"] == "GET"


async def test_many_requests_at_once_all_get_their_answer(binary):
    """More requests than connections and workers: they queue, none is lost."""
    async with TesseraServer(binary, "--history-readers", "1", "--http-burst", "1000",
                             "--connections-per-ip", "100") as server:
        await play_reef_solo(server, "queue", 3)
        answers = await asyncio.gather(*(server.http("GET", "/api/games?limit=5")
                                         for _ in range(40)))
        assert all(status == 200 and len(json.loads(body)["items"]) == 1
                   for status, _, body in answers)


if __name__ == "__main__":
    run_tests(globals())
