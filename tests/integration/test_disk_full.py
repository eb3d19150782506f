"""test_disk_full.py -- a full disk and a read-only file system.

The database lives on a small tmpfs mounted for the test. A player plays
Duo against the greedy bot; then the file system is filled to the last
byte (while a reader holds a snapshot, so the WAL cannot start over in
space it already has). A move is refused with `storage_error` and a sentence saying why,
nothing changes (the game stays at its ply, the refused move is not
stored), the server keeps answering everyone (pings, /metrics counting the
failed commits, /healthz answering 503 with the reason: it probes storage
with a write), and once space returns (the filler removed) the same move
goes through, /healthz is 200 again and the game is played to its end. Every move
acknowledged is stored, integrity_check is ok and replay verify passes.

A database on a read-only file system (a read-only bind mount: Linux will
not make a mount read-only under a process writing to it, so that case is
met at start) is refused at start with a clear message and exit status 1,
whether it was closed cleanly or left with its -wal and -shm by a crash,
instead of a server that would refuse every move.

Mounting needs root or an unprivileged user namespace: the test re-runs
itself under `unshare -rm` when it is not root. It never skips.
"""

import asyncio
import json
from contextlib import closing
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_live_play import Client, create_room  # noqa: E402
from metrics_scrape import scrape, value  # noqa: E402
from test_results import replay_verify  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000")
MOUNT_BYTES = 8 * 1024 * 1024


class SmallDisk:
    """A tmpfs of MOUNT_BYTES, unmounted at the end."""

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="tessera-disk-")
        self.path = self.folder.name
        self.filler = os.path.join(self.path, "filler")

    def __enter__(self):
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={MOUNT_BYTES}", "tmpfs", self.path],
                       check=True)
        return self

    def __exit__(self, *exc):
        subprocess.run(["umount", "--lazy", self.path], check=True)  # even if a file is open
        self.folder.cleanup()

    def fill(self):
        """Writes a file until the file system has no byte left."""
        with open(self.filler, "wb", buffering=0) as file:
            for size in (65536, 1):  # big pieces, then the last few bytes
                try:
                    while file.write(b"\0" * size):
                        pass
                except OSError:
                    pass
        assert os.statvfs(self.path).f_bavail == 0

    def free(self):
        os.remove(self.filler)



async def my_turn(player, room):
    """The next game.state that asks this player to move."""
    return await player.expect("game.state", lambda m: m["room"] == room and m.get("to_move")
                               and m["to_move"]["seat"] == 0)


async def first_legal(player, room):
    return (await player.request({"type": "game.moves", "room": room}))["moves"][0]


async def refused_then_accepted(player, room, state, break_disk, mend_disk, server, problem):
    """Breaks the storage (`break_disk`, a function or a coroutine function), checks a move is refused and nothing changed and
    /healthz says so (its problem holds each of `problem`), mends it, plays
    that very move, and checks /healthz is well again; returns how many
    moves were refused. Also test_postgres.py's, with a database server
    stopped and started."""
    move = await first_legal(player, room)
    broken = break_disk()
    if asyncio.iscoroutine(broken):
        await broken
    refusals = 0
    reply = await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                  "action": move})
    # A commit can still fit in space SQLite had already claimed: play on
    # until one needs more (each move writes new pages).
    while reply["type"] == "game.moved":
        state = await my_turn(player, room)
        move = await first_legal(player, room)
        reply = await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                      "action": move})
    assert reply["type"] == "error" and reply["code"] == "storage_error", reply
    assert "could not be saved" in reply["message"], reply
    refusals += 1
    assert (await player.request({"type": "ping"}))["type"] == "pong"
    again = await player.request({"type": "room.join", "room": room})
    assert again["type"] == "room"
    current = await player.expect("game.state", lambda m: m["room"] == room)
    assert current["ply"] == state["ply"], (current["ply"], state["ply"])  # nothing changed
    status, _, body = await server.http("GET", "/healthz")
    health = json.loads(body)
    assert status == 503 and health["status"] == "failing", (status, health)
    for part in problem:
        assert part in health["problem"], (part, health)
    assert health["rooms"] == 1 and health["connections"] == 1, health  # still served
    mend_disk()
    reply = await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                  "action": move})
    assert reply["type"] == "game.moved", reply
    status, _, body = await server.http("GET", "/healthz")
    assert status == 200 and json.loads(body)["status"] == "ok", body
    return refusals


async def duo_against_greedy(server, moves=3, name="steady"):
    """A player in seat 0 of a Duo game against the greedy bot, `moves`
    moves in: (player, room). Also test_postgres.py's."""
    player = await Client.join(server, name)
    room = await create_room(player, game="blokus", mode="duo")
    await player.request({"type": "room.join", "room": room, "seat": 0})
    await player.request({"type": "room.add_bot", "room": room, "seat": 1, "bot": "greedy"})
    await player.request({"type": "room.start", "room": room})
    for _ in range(moves):
        state = await my_turn(player, room)
        reply = await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                      "action": await first_legal(player, room)})
        assert reply["type"] == "game.moved", reply
    return player, room


async def play_to_the_end(player, room):
    """Plays seat 0's first legal move until the game is over: the (seat,
    ply) of every move the player saw acknowledged."""
    while True:
        state = await player.expect("game.state", lambda m: m["room"] == room)
        if state["status"] == "finished":
            break
        if state["to_move"]["seat"] == 0:
            await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                  "action": await first_legal(player, room)})
    return {(m["seat"], m["ply"]) for m in player.inbox
            if m.get("type") == "game.moved" and m["room"] == room}


async def play_through_a_full_disk(binary):
    with SmallDisk() as disk:
        db_path = os.path.join(disk.path, "t.db")
        async with TesseraServer(binary, *FAST, db_path=db_path) as server:
            player, room = await duo_against_greedy(server)
            # A reader keeps its snapshot meanwhile, so the WAL cannot start over: were a
            # checkpoint to let it, commits could reuse its space until the game ends. So
            # the next commits append to it, and one soon needs space the disk has not.
            with closing(sqlite3.connect(db_path, isolation_level=None)) as reader:
                reader.execute("BEGIN")
                reader.execute("SELECT count(*) FROM moves").fetchone()
                refusals = await refused_then_accepted(
                    player, room, await my_turn(player, room), disk.fill, disk.free, server,
                    ("storage: cannot write ", "No space left on device"))
            samples = await scrape(server)
            assert value(samples, "tessera_errors_total", code="storage_error") == refusals
            assert value(samples, "tessera_sqlite_commit_failures_total") >= refusals
            acknowledged = await play_to_the_end(player, room)  # on a healthy disk
            await player.close()

        with closing(sqlite3.connect(db_path)) as db:  # closed: the mount must go
            stored = set(db.execute("SELECT seat, ply FROM moves").fetchall())
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert db.execute("SELECT status FROM games").fetchone()[0] == "finished"
        assert acknowledged <= stored, acknowledged - stored
        status, lines = await replay_verify(binary, db_path)
        assert status == 0, lines


async def test_a_full_disk_refuses_moves_and_loses_nothing(binary):
    await play_through_a_full_disk(binary)


async def refused_at_start(binary, db_path):
    process = await asyncio.create_subprocess_exec(
        binary, "serve", "--port", "0", "--db", db_path, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(process.communicate(), 10)
    assert process.returncode == 1 and out == b"", (process.returncode, out)
    assert "can only be read" in err.decode(), err


async def test_a_read_only_database_is_refused_at_start(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-ro-")
    read_only = tempfile.TemporaryDirectory(prefix="tessera-ro-mount-")
    db_path = os.path.join(folder.name, "t.db")
    async with TesseraServer(binary, db_path=db_path):
        pass  # a database, closed cleanly
    subprocess.run(["mount", "--bind", folder.name, read_only.name], check=True)
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", read_only.name], check=True)
        await refused_at_start(binary, os.path.join(read_only.name, "t.db"))
        server = TesseraServer(binary, db_path=db_path)
        await server.start()
        await server.stop(signal.SIGKILL)  # leaves its -wal and -shm behind
        assert os.path.exists(db_path + "-shm")
        await refused_at_start(binary, os.path.join(read_only.name, "t.db"))
    finally:
        subprocess.run(["umount", "--lazy", read_only.name], check=True)
    async with TesseraServer(binary, db_path=db_path) as server:  # writable again: all there
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


if __name__ == "__main__":
    if os.geteuid() != 0 and "TESSERA_IN_USERNS" not in os.environ:
        # Mounting needs privilege: a user namespace of our own gives it.
        os.environ["TESSERA_IN_USERNS"] = "1"
        os.execvp("unshare", ["unshare", "-rm", sys.executable, *sys.argv])
    run_tests(globals())
