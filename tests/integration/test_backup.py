"""test_backup.py -- `tessera backup` against a running server.

A backup is taken while a game is being played; the copy holds every move
acknowledged before it, passes `tessera replay verify`, and a server
started on it (the documented restore: copy the file back while stopped)
rebuilds the unfinished game and lets it be played on. A backup holds
password hashes and key digests: it is written 0600 whatever the umask, and
the folders of its path that did not exist are created 0700. Refusals: an
existing target is never overwritten, a missing database is reported, and
bad usage exits 2.
"""

import asyncio
import os
import re
import shutil
import sqlite3
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_history import play_duo_against_greedy  # noqa: E402
from test_live_play import FAST, Client, create_room, play_first_legal  # noqa: E402
from test_results import replay_verify  # noqa: E402

BACKUP_LINE = re.compile(r"^backed up .* to .*: (\d+) pages, (\d+) bytes, (\d+) games, "
                         r"(\d+) moves, integrity ok, \d+ ms$")


async def backup(binary, *args):
    """`tessera backup ARGS`: (exit status, stdout, stderr)."""
    process = await asyncio.create_subprocess_exec(
        binary, "backup", *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await process.communicate()
    return process.returncode, out.decode().strip(), err.decode().strip()


def count_moves(db_path, room):
    with sqlite3.connect(db_path) as db:
        return db.execute("SELECT count(*) FROM moves JOIN games ON games.id = moves.game_id "
                          "WHERE games.room = ?", (room,)).fetchone()[0]


async def test_a_backup_during_play_restores_every_acknowledged_move(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-backup-")
    target = os.path.join(folder.name, "copy.db")
    async with TesseraServer(binary, *FAST) as server:
        await play_duo_against_greedy(server, "finisher")
        player = await Client.join(server, "ongoing")
        room = await create_room(player, game="blokus", mode="duo")
        await player.request({"type": "room.join", "room": room, "seat": 0})
        await player.request({"type": "room.add_bot", "room": room, "seat": 1, "bot": "greedy"})
        await player.request({"type": "room.start", "room": room})
        for ply in (0, 2):  # each after the bot's answer to the one before
            await player.expect("game.state", lambda m, ply=ply: m.get("ply") == ply)
            await play_first_legal(player, room, ply)
        # The bot answers ply 2; then nothing moves until this player does.
        await player.expect("game.state", lambda m: m.get("ply") == 4)

        status, out, err = await backup(binary, target, "--db", server.db_path)
        assert status == 0, (out, err)
        pages, size, games, moves = map(int, BACKUP_LINE.match(out).groups())
        assert pages > 0 and size == os.path.getsize(target) and games == 2, out
        assert not os.path.exists(target + ".partial")
        # The server goes on while and after the copy is taken.
        await play_first_legal(player, room, 4)
        token = player.token
        await player.close()

    assert count_moves(target, room) == 4  # plies 0-3: all acknowledged before the backup
    assert moves >= 4 + 20, out  # the finished duo game has at least 20 moves
    status, lines = await replay_verify(binary, target)
    assert status == 0 and lines[-1].startswith("2 games checked, 0 failed"), lines

    restored = TesseraServer(binary, *FAST)
    shutil.copy(target, restored.db_path)
    async with restored:
        player = Client(await restored.connect(), "ongoing")
        welcome = await player.request({"type": "hello", "name": "ongoing", "token": token})
        assert welcome["type"] == "welcome", welcome
        reply = await player.request({"type": "room.join", "room": room})
        assert reply["type"] == "room" and reply["room"]["status"] == "playing", reply
        state = await player.expect("game.state", lambda m: m["room"] == room)
        assert state["ply"] == 4 and state["seat"] == 0, state
        await play_first_legal(player, room, 4)  # the game goes on from the backup
        await player.close()
    folder.cleanup()


async def test_a_backup_refuses_to_overwrite_or_to_invent_a_database(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-backup-")
    existing = os.path.join(folder.name, "existing.db")
    with open(existing, "w") as file:
        file.write("keep me")
    async with TesseraServer(binary, *FAST) as server:
        status, out, err = await backup(binary, existing, "--db", server.db_path)
        assert status == 1 and "already exists" in err, (out, err)
        with open(existing) as file:
            assert file.read() == "keep me"

    missing = os.path.join(folder.name, "missing.db")
    status, out, err = await backup(binary, os.path.join(folder.name, "x.db"), "--db", missing)
    assert status == 1 and "no database" in err, (out, err)
    assert not os.path.exists(os.path.join(folder.name, "x.db"))
    assert not os.path.exists(missing)
    status, out, err = await backup(binary)
    assert status == 2 and "usage" in err, err
    status, out, err = await backup(binary, "--db")
    assert status == 2, err
    folder.cleanup()


async def test_a_backup_is_private_in_folders_it_creates(binary):
    folder = tempfile.TemporaryDirectory(prefix="tessera-backup-")
    target = os.path.join(folder.name, "new", "nested", "copy.db")
    previous = os.umask(0o022)  # the usual umask, which would make files 0644
    try:
        async with TesseraServer(binary, *FAST) as server:
            await play_duo_against_greedy(server, "private")
            status, out, err = await backup(binary, target, "--db", server.db_path)
    finally:
        os.umask(previous)
    assert status == 0, (out, err)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o600, oct(os.stat(target).st_mode)
    for created in (os.path.dirname(target), os.path.dirname(os.path.dirname(target))):
        assert stat.S_IMODE(os.stat(created).st_mode) == 0o700, (created, os.stat(created))
    status, lines = await replay_verify(binary, target)
    assert status == 0 and lines[-1].startswith("1 games checked, 0 failed"), lines
    folder.cleanup()


if __name__ == "__main__":
    run_tests(globals())
