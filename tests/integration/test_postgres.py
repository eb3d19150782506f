"""test_postgres.py -- the server on PostgreSQL (--db postgresql://...).

Each test runs its own throw-away PostgreSQL server (tests/tools/
pg_cluster.sh), so it can stop and start it without touching the tests
that share ctest's.

- A player plays Duo against the greedy bot on a database server; the
  server is stopped mid-game: the next move is refused with
  `storage_error`, nothing changes, /healthz answers 503 saying the
  database cannot be reached, everyone is still served; the server is
  started again: the same move goes through (the connection is made
  again), /healthz is 200, and the game is played to its end. Every move
  acknowledged is stored, `tessera replay verify` passes on the database,
  and a restarted tessera lists the finished game.
- A database that holds a REST request's read (a table locked by someone
  else) holds that request only: the loop answers a websocket ping and
  /metrics meanwhile (one read in flight), and once the lock goes the
  request is answered.
- A room whose game row another transaction holds (as a slow commit
  would) waits for it, while the instance's other rooms play on: their
  moves are stored and acknowledged meanwhile (several writer
  connections, `db-writers`). Once the row goes, the waiting move is
  acknowledged too.
- A database server that cannot be reached at start is refused with a
  clear message and exit status 1, and the log never shows the URL's
  password.
- A history database (bench/gen_history_db) copied into PostgreSQL with
  `tessera migrate` answers every history route, page after page by its
  cursors, with the very bytes the SQLite file answers.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_disk_full import (  # noqa: E402
    duo_against_greedy, first_legal, my_turn, play_to_the_end, refused_then_accepted)
from test_live_play import Client  # noqa: E402
from test_results import replay_verify  # noqa: E402
from test_tournament_rules import account  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000")
CLUSTER = os.path.join(os.path.dirname(__file__), "..", "tools", "pg_cluster.sh")


class Cluster:
    """A PostgreSQL server of the test's own, removed at the end."""

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="tessera-pg-")
        self.dir = os.path.join(self.folder.name, "pg")  # the script makes it, owned as it needs
        os.chmod(self.folder.name, 0o755)  # the postgres user reaches its socket through it
        self.url = f"postgresql:///postgres?host={self.dir}&user=postgres"

    def run(self, action):
        subprocess.run(["sh", CLUSTER, action, self.dir], check=True)

    def __enter__(self):
        self.run("start")
        return self

    def __exit__(self, *exc):
        self.run("stop")
        self.folder.cleanup()

    def rows(self, sql):
        """The rows `sql` answers, each a tuple of text."""
        out = subprocess.run(["psql", self.url, "-tAF", "\t", "-c", sql], check=True,
                             capture_output=True, text=True).stdout
        return [tuple(line.split("\t")) for line in out.splitlines() if line]


async def test_a_database_server_stopped_mid_game_refuses_moves_and_loses_nothing(binary):
    with Cluster() as cluster:
        async with TesseraServer(binary, *FAST, db_path=cluster.url) as server:
            player, room = await duo_against_greedy(server)
            bearer = {"Authorization": "Bearer some-session-token"}

            async def halt():
                cluster.run("halt")
                # A route's read (on the reader pool) fails with the server gone.
                status, _, body = await server.http("POST", "/api/bots", b'{"name":"b"}',
                                                    headers=bearer)
                assert status == 500 and b"storage_error" in body, (status, body)

            await refused_then_accepted(
                player, room, await my_turn(player, room), halt, lambda: cluster.run("resume"),
                server, ("the database server cannot be reached",))
            # The reader connects again by itself: the same request is judged, not failed.
            status, _, body = await server.http("POST", "/api/bots", b'{"name":"b"}',
                                                headers=bearer)
            assert status == 403, (status, body)  # no such token, no admin key
            acknowledged = {(str(seat), str(ply))
                            for seat, ply in await play_to_the_end(player, room)}
            await player.close()
        stored = set(cluster.rows("SELECT seat, ply FROM moves"))
        assert acknowledged <= stored, acknowledged - stored
        assert cluster.rows("SELECT status FROM games") == [("finished",)]
        status, lines = await replay_verify(binary, cluster.url)
        assert status == 0, lines
        async with TesseraServer(binary, db_path=cluster.url) as server:  # a restart reads it
            status, _, body = await server.http("GET", "/api/games")
            games = json.loads(body)["items"]
            assert status == 200 and [g["status"] for g in games] == ["finished"], body


async def until_rows(cluster, sql, holds, seconds=20):
    """Reads `sql` until `holds` is true of its rows (what the database does
    has no event to wait for): them."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        rows = cluster.rows(sql)
        if holds(rows) or asyncio.get_running_loop().time() > deadline:
            assert holds(rows), (sql, rows)
            return rows
        await asyncio.sleep(0.05)


async def test_a_stalled_database_holds_a_rest_read_but_never_the_loop(binary):
    with Cluster() as cluster:
        async with TesseraServer(binary, *FAST, db_path=cluster.url) as server:
            ada = await account(server, "ada")
            pinger = await Client.join(server, "pinger")
            locker = subprocess.Popen(["psql", cluster.url, "-q"], stdin=subprocess.PIPE,
                                      text=True)
            try:
                locker.stdin.write("BEGIN; LOCK TABLE players IN ACCESS EXCLUSIVE MODE;\n")
                locker.stdin.flush()
                await until_rows(cluster, "SELECT count(*) FROM pg_locks JOIN pg_class"
                                 " ON pg_class.oid = relation WHERE relname = 'players'"
                                 " AND mode = 'AccessExclusiveLock' AND granted",
                                 lambda rows: rows == [("1",)])
                # Who asks is read from players: the request waits on the lock.
                request = asyncio.create_task(server.http(
                    "POST", "/api/bots", b'{"name":"robo"}', timeout=60,
                    headers={"Authorization": f"Bearer {ada.token}"}))
                await until_rows(cluster, "SELECT count(*) FROM pg_stat_activity"
                                 " WHERE wait_event_type = 'Lock'", lambda rows: rows == [("1",)])
                pong = await asyncio.wait_for(pinger.request({"type": "ping"}), 2)
                assert pong["type"] == "pong", pong
                status, _, metrics = await server.http("GET", "/metrics", timeout=2)
                assert status == 200 and b"\ntessera_database_reads_in_flight 1\n" in metrics
                assert not request.done()
            finally:
                locker.communicate("COMMIT;\n", timeout=20)
            status, _, body = await request
            assert status == 201 and json.loads(body)["name"] == "robo", (status, body)
            await pinger.close()
            await ada.close()


async def test_a_locked_room_holds_up_no_other_room(binary):
    with Cluster() as cluster:
        async with TesseraServer(binary, *FAST, db_path=cluster.url) as server:
            ada, held = await duo_against_greedy(server, moves=1, name="ada")
            bea, free = await duo_against_greedy(server, moves=1, name="bea")
            locker = subprocess.Popen(["psql", cluster.url, "-q"], stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, text=True)
            try:
                locker.stdin.write(
                    f"BEGIN; SELECT id FROM games WHERE room = '{held}' FOR UPDATE;\n")
                locker.stdin.flush()
                await until_rows(cluster, "SELECT count(*) FROM pg_stat_activity WHERE state ="
                                 " 'idle in transaction' AND query LIKE '%FOR UPDATE%'",
                                 lambda rows: rows == [("1",)])
                state = await my_turn(ada, held)
                waiting = asyncio.create_task(ada.request(
                    {"type": "game.move", "room": held, "ply": state["ply"],
                     "action": await first_legal(ada, held)}))
                await until_rows(cluster, "SELECT count(*) FROM pg_stat_activity"
                                 " WHERE wait_event_type = 'Lock'", lambda rows: rows == [("1",)])
                for _ in range(3):  # bea's game goes on, the bot's moves with hers
                    state = await my_turn(bea, free)
                    reply = await asyncio.wait_for(bea.request(
                        {"type": "game.move", "room": free, "ply": state["ply"],
                         "action": await first_legal(bea, free)}), 5)
                    assert reply["type"] == "game.moved", reply
                assert not waiting.done()
            finally:
                locker.communicate("COMMIT;\n", timeout=20)
            reply = await waiting
            assert reply["type"] == "game.moved" and reply["room"] == held, reply
            await ada.close()
            await bea.close()


async def test_an_unreachable_database_server_is_refused_at_start(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-pg-none-")
    url = f"postgresql:///postgres?host={folder.name}&user=postgres&password=hush"
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--port", "0", "--db", url, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 20)
    log = err.decode()
    assert process.returncode == 1 and out == b"", (process.returncode, out, log)
    assert "cannot open the database postgresql:///postgres?host=" in log, log
    assert "password=***" in log and "hush" not in log, log
    assert "No such file or directory" in log, log  # libpq's own words: no socket there


async def same_answer(sqlite_server, postgres_server, path):
    """GETs `path` from both servers: the answer, which both give alike."""
    first = await sqlite_server.http("GET", path)
    second = await postgres_server.http("GET", path)
    assert first[0] == 200, (path, first)
    assert (first[0], first[2]) == (second[0], second[2]), (path, first[2][:300], second[2][:300])
    return first[2]


async def same_pages(sqlite_server, postgres_server, path, pages=3):
    """A list route and its next pages, alike on both: its items."""
    items = []
    for _ in range(pages):
        answer = json.loads(await same_answer(sqlite_server, postgres_server, path))
        items += answer["items"]
        if not answer.get("next"):
            break
        path = path.split("&cursor=")[0] + "&cursor=" + answer["next"]
    return items


async def test_history_answers_the_same_after_a_migration(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-pg-history-")
    source = os.path.join(folder.name, "history.db")
    generator = os.path.join(os.path.dirname(binary), "gen_history_db")
    subprocess.run([generator, "--db", source, "--games", "400", "--players", "40", "--days", "5",
                    "--seed", "3"], check=True, capture_output=True)
    with Cluster() as cluster:
        missing = subprocess.run([binary, "migrate", "--from", source + ".typo", "--to",
                                  cluster.url], capture_output=True, text=True)
        assert missing.returncode == 2 and "no database at" in missing.stderr, missing
        assert not os.path.exists(source + ".typo")  # no empty database made and copied
        copied = subprocess.run([binary, "migrate", "--from", source, "--to", cluster.url],
                                check=True, capture_output=True, text=True).stdout
        assert "(400 games" in copied, copied
        async with TesseraServer(binary, db_path=source) as sqlite_server, \
                TesseraServer(binary, db_path=cluster.url) as postgres_server:
            both = (sqlite_server, postgres_server)
            games = await same_pages(*both, "/api/games?limit=50", pages=4)
            assert len(games) == 200, len(games)
            for kind in ("duo", "2p", "3p", "4p"):
                await same_pages(*both, f"/api/games?game=blokus&mode={kind}&limit=20")
                await same_pages(*both, f"/api/leaderboards/blokus?kind={kind}&limit=10")
            await same_pages(*both, "/api/leaderboards/reef?period=all&limit=10")
            await same_pages(*both, "/api/tournaments?limit=5")
            names = sorted({seat["player"]["name"] for game in games[:20]
                            for seat in game["seats"] if seat["player"]})
            assert names, games[:2]
            for name in names[:5]:
                await same_answer(*both, f"/api/players/{name}")
                await same_pages(*both, f"/api/games?player={name}&limit=10")
            for game in games[:5]:
                for suffix in ("", "/replay", ".blksgf"):
                    if suffix == ".blksgf" and game["game"] != "blokus":
                        continue
                    await same_answer(*both, f"/api/games/{game['id']}{suffix}")


if __name__ == "__main__":
    run_tests(globals())
