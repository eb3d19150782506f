"""test_crash_drill.py -- kill -9 the server while games are played, again
and again, on the same database; nothing acknowledged may be lost.

Players (each a websocket client) play Blokus Duo and 4-player Blokus
against greedy bots, and Reef solo, one game after another, every one
moving as fast as the server answers. A killer SIGKILLs the server at random moments
(seeded: the same drill every run) and starts a new one on the same file;
the players notice the drop, sign in again with their tokens on the new
port (a guest that had not yet taken a seat is not stored, so its token is
`unknown token` and it signs in afresh, as docs/PROTOCOL.md says), and carry
on from the game.state they are given. After the last kill
every game under way is played to its end. Then:

- every move any player saw acknowledged (its own game.moved reply, or a
  game.moved event of another seat) is in the database, at its ply, as it
  was shown;
- every game that started is finished (a room still waiting at a kill is
  aborted by the restart, as documented);
- PRAGMA integrity_check says ok and `tessera replay verify` passes.

With `--instances 2` the drill runs on two instances, `a` and `b`,
sharing a throw-away PostgreSQL server (short leases): the killer kills one
of them at a time and starts it again; the players of the killed one sign
in to the other and ask for their games there, following `moved` (to the
instance taking the room over, or back to the restarted one) as the
clients do. The same checks follow.

The short drills (one instance, two) run in the test suite; the long ones
are
    /usr/bin/python3 tests/integration/test_crash_drill.py --tessera BUILD/tessera --long \
        [--instances 2]
(40 players, 25 kills).
"""

import asyncio
import json
import os
import random
import re
import signal
import sqlite3
import sys
import tempfile

import websockets

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer  # noqa: E402
from stored_moves import wire_action  # noqa: E402
from test_postgres import Cluster  # noqa: E402
from test_results import replay_verify  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000", "--reconnect-grace", "600",
        "--connections-per-ip", "1000")
WAIT_S = 20
LEASE_MS = 1500  # two instances: a killed one's rooms go on elsewhere 1.5 s later


class Drill:
    """The servers of the moment, restarted on one database; players wait on
    `up` for a server to talk to. On SQLite one server; on PostgreSQL
    (`cluster`) two instances, `a` and `b`, of which the killer kills one
    at a time: its rooms go on on the other (or on it, back again)."""

    def __init__(self, binary, seed, cluster=None):
        self.binary = binary
        self.random = random.Random(seed)
        self.folder = tempfile.TemporaryDirectory(prefix="tessera-drill-")
        self.cluster = cluster
        self.db_path = cluster.url if cluster else os.path.join(self.folder.name, "drill.db")
        self.servers = dict.fromkeys("ab" if cluster else [None])
        self.up = asyncio.Event()
        self.playing = asyncio.Event()  # a player saw a game under way on this server
        self.kills = 0
        self.moves_followed = 0  # `moved` answers players followed
        self.lives = []  # every server started, for its log
        self.stopping = False  # no new games: finish the ones under way

    async def start(self, name=None):
        flags = ("--instance", name, "--lease-ms", str(LEASE_MS)) if name else ()
        server = TesseraServer(self.binary, *FAST, *flags, db_path=self.db_path)
        self.lives.append(server)
        self.servers[name] = await server.start()  # listed once it listens
        self.up.set()

    async def start_all(self):
        for name in self.servers:
            await self.start(name)

    def live(self, name=None):
        """The server `name` if it is up, else any server that is."""
        alive = {key: server for key, server in self.servers.items()
                 if server and server.process.returncode is None}
        return alive.get(name) or next(iter(alive.values()))

    async def kill_and_restart(self):
        name = self.random.choice(sorted(self.servers, key=str))
        if len(self.servers) == 1:
            self.up.clear()
        await self.servers[name].stop(signal.SIGKILL)
        self.playing.clear()
        self.kills += 1
        await self.start(name)

    async def stop(self):
        for server in self.servers.values():
            if server and server.process.returncode is None:
                await server.stop()


class Player:
    """One player: starts a game (of its kind) whenever it has none, plays
    its first legal move whenever it is to move, and keeps every
    acknowledged move it saw, by (room, seat, ply). A game it learns of from
    a game.state after signing in again (its start was stored, its reply
    lost in a kill) is played like any other."""

    def __init__(self, drill, name, kind):
        self.drill = drill
        self.name = name
        self.kind = kind
        self.token = None
        self.connection = None
        self.next_id = 1
        self.backlog = []  # messages read while waiting for a reply
        self.seen = {}  # (room, seat, ply) -> action, acknowledged
        self.seated = False  # ever held a seat: stored, so its token outlives any restart
        self.active = set()  # rooms whose game this player is playing
        self.here = set()  # those of them served where it is connected
        self.started = set()  # rooms whose game this player saw under way
        # The room it created last, until its game.state: a kill may swallow
        # the reply to room.start after storing the start, and nothing else
        # would lead this player back to that game (its room may come back
        # on another instance than the one it signs in to).
        self.creating = None

    async def connect(self):
        """Signs in (again) to a server of the moment, and asks for its games
        there; a game served elsewhere answers `moved`: it signs in there
        after the retry_ms the answer says (at least 100 ms when it names the
        same instance again, as the clients do)."""
        target = last = None
        while True:
            moved = await self.connect_to(target)
            if not moved:
                return
            await self.connection.close()
            self.connection = None
            self.backlog.clear()
            self.drill.moves_followed += 1
            wait = moved["retry_ms"] / 1000
            await asyncio.sleep(max(wait, 0.1) if moved["instance"] == last else wait)
            target = last = moved["instance"]

    async def connect_to(self, target):
        """Signs in to server `target` (or any, if it is down or None): the
        `moved` one of its games answered, or None."""
        await self.drill.up.wait()
        self.here = set()
        self.connection = await self.drill.live(target).connect(max_size=2 ** 22)
        hello = {"type": "hello", "name": self.name}
        if self.token:
            hello["token"] = self.token
        welcome = await self.request(hello)
        if welcome["type"] == "error" and not self.seated:
            # A guest that never sat is not stored: after a restart its token
            # is `unknown token`, and it says hello without it
            # (docs/PROTOCOL.md, hello). A seated player's token must work.
            assert (welcome["code"], welcome["message"]) == ("unauthorized", "unknown token"), \
                welcome
            welcome = await self.request({"type": "hello", "name": self.name})
        assert welcome["type"] == "welcome", welcome
        self.token = welcome["token"]
        await self.barrier()  # the room and game.state of every seat come first
        # A game whose end was stored but whose game.over a kill swallowed
        # is not rebuilt: its room is gone (the final check finds it finished).
        moved = None
        for room in self.active | {self.creating} - {None}:
            reply = await self.request({"type": "room.join", "room": room})
            if reply["type"] == "moved":
                moved = moved or reply
                continue
            if reply["type"] == "error":
                assert reply["code"] == "no_such_room", reply  # over, or it never started
                self.active.discard(room)
            if room == self.creating:
                self.creating = None  # under way (its game.state says so), or never started
        await self.barrier()  # the game.state of each room joined
        # Games on two instances (one started on each, a kill between):
        # those here first; the others after them (run).
        return moved if not self.active & self.here else None

    async def barrier(self):
        """Reads (and notes) every message the server sent before this one's
        reply: it answers one connection's messages in order."""
        await self.request({"type": "ping"})

    def note(self, message):
        """Bookkeeping of every message, whenever it is read."""
        if message["type"] == "game.moved" and "pass" not in message["action"]:
            self.seen[(message["room"], message["seat"], message["ply"])] = message["action"]
        elif message["type"] == "game.over":
            self.active.discard(message["room"])
        elif message["type"] == "game.state" and message["seat"] is not None:
            self.seated = True
            if message["room"] == self.creating:
                self.creating = None
            if message["status"] == "playing":
                self.active.add(message["room"])
                self.here.add(message["room"])  # its state comes from where it is served
                self.started.add(message["room"])
                self.drill.playing.set()
            else:
                self.active.discard(message["room"])

    async def read(self):
        message = json.loads(await asyncio.wait_for(self.connection.recv(), WAIT_S))
        self.note(message)
        return message

    async def request(self, message):
        message = dict(message, id=self.next_id)
        self.next_id += 1
        await self.connection.send(json.dumps(message))
        while True:
            reply = await self.read()
            if reply.get("id") == message["id"]:
                return reply
            self.backlog.append(reply)

    async def run(self):
        """Plays games until the drill stops and its last game is over,
        through any number of restarts."""
        while self.active or self.creating or not self.drill.stopping:
            try:
                if self.connection is None:
                    await self.connect()
                    continue  # signing in may have shown its last game gone
                if self.active and not self.active & self.here:
                    await self.connection.close()  # its other games are served elsewhere
                    self.connection = None
                    continue
                if not self.active and not self.drill.stopping:
                    await self.start_game()
                    continue
                message = self.backlog.pop(0) if self.backlog else await self.read()
                if message["type"] == "game.state" and message["room"] in self.active:
                    await self.maybe_move(message)
            except (websockets.ConnectionClosed, websockets.InvalidHandshake, OSError,
                    asyncio.TimeoutError):
                self.connection = None
                self.backlog.clear()  # a new sign-in sends the state of every game again

    async def start_game(self):
        settings = {"duo": {"game": "blokus", "mode": "duo"},
                    "4p": {"game": "blokus", "mode": "4p"},
                    "reef": {"game": "reef-builder", "mode": "solo", "max_turns": 60}}[self.kind]
        reply = await self.request(dict({"type": "room.create"}, **settings))
        room = self.creating = reply["room"]["id"]
        reply = await self.request({"type": "room.join", "room": room, "seat": 0})
        assert reply["type"] == "room", reply
        self.seated = True
        for seat in range(1, len(reply["room"]["seats"])):
            await self.request({"type": "room.add_bot", "room": room, "seat": seat,
                                "bot": "greedy"})
        reply = await self.request({"type": "room.start", "room": room})
        assert reply["type"] == "room.started", reply
        # The game.state that makes the room active follows the reply: read
        # it before the run loop asks whether this player still has a game.
        await self.barrier()

    async def maybe_move(self, state):
        if state["status"] != "playing":
            return
        if state["game"] == "blokus":
            if state["to_move"]["seat"] != state["seat"]:
                return
            ply = state["ply"]
        else:
            board = state["boards"][state["seat"]]
            if board["phase"] != "playing":
                return
            ply = board["ply"]
        moves = await self.request({"type": "game.moves", "room": state["room"]})
        if moves["type"] != "game.moves" or not moves["moves"]:
            return  # a stale state: the next one says what to do
        await self.request({"type": "game.move", "room": state["room"], "ply": ply,
                            "action": moves["moves"][0]})


def query(run, sql):
    """The rows `sql` answers on the drill's database, numbers as numbers."""
    if run.cluster:
        return [tuple(int(v) if v.lstrip("-").isdigit() else v for v in row)
                for row in run.cluster.rows(sql)]
    with sqlite3.connect(run.db_path) as db:
        return db.execute(sql).fetchall()


def stored_moves(run):
    rows = query(run, "SELECT games.room, games.game, moves.seat, moves.ply, moves.action "
                      "FROM moves JOIN games ON games.id = moves.game_id")
    return {(room, seat, ply): wire_action(game, action) for room, game, seat, ply, action in rows}


def same_action(shown, stored):
    """The stored action in the canonical form game.moved shows."""
    return all(stored.get(key) == value for key, value in shown.items())


async def drill(binary, players, kills, seed, cluster=None):
    run = Drill(binary, seed, cluster)
    await run.start_all()
    kinds = ("duo", "4p", "reef")
    everyone = [Player(run, f"p{i}", kinds[i % 3]) for i in range(players)]
    games = asyncio.gather(*(player.run() for player in everyone))
    try:
        for _ in range(kills):
            # Each server life sees a game under way (however slow the
            # machine), then dies at a random moment of it.
            await run.playing.wait()
            await asyncio.sleep(run.random.uniform(0.1, 0.5))  # a random moment, not a wait
            await run.kill_and_restart()
        run.stopping = True
        await asyncio.wait_for(games, 120)
    except BaseException:
        for number, server in enumerate(run.lives):
            print(f"server {number}'s log:\n  " + "\n  ".join(server.log), file=sys.stderr)
        for player in everyone:
            print(f"{player.name}: active {sorted(player.active)}", file=sys.stderr)
        raise
    finally:
        await run.stop()  # a failed drill leaves no server behind

    stored = stored_moves(run)
    seen = {}
    for player in everyone:
        seen.update(player.seen)
    lost = [key for key in seen if key not in stored]
    assert not lost, f"{len(lost)} acknowledged moves are not stored: {lost[:5]}"
    changed = [key for key, action in seen.items() if not same_action(action, stored[key])]
    assert not changed, f"stored differently from what was shown: {changed[:5]}"
    if not cluster:
        assert query(run, "PRAGMA integrity_check")[0][0] == "ok"
    unfinished = query(run, "SELECT room, status FROM games WHERE status != 'finished' AND "
                            "NOT (status = 'aborted' AND started_at IS NULL)")
    finished = query(run, "SELECT count(*) FROM games WHERE status = 'finished'")[0][0]
    assert not unfinished, f"games that did not finish: {unfinished}"
    started = {room for player in everyone for room in player.started}
    assert finished >= len(started) > 0, (finished, len(started))
    status, lines = await replay_verify(binary, run.db_path)
    checked = re.match(r"(\d+) games checked, 0 failed;", lines[-1])
    assert status == 0 and checked and int(checked.group(1)) >= finished, lines
    print(f"drill: {players} players, {finished} games finished, {run.kills} kills, "
          f"{run.moves_followed} moves to another instance followed, "
          f"{len(seen)} acknowledged moves, all stored")


async def test_the_short_drill_loses_nothing(binary):
    await drill(binary, players=9, kills=6, seed=1)


async def test_the_short_drill_on_two_instances_loses_nothing(binary):
    with Cluster() as cluster:
        await drill(binary, players=9, kills=6, seed=2, cluster=cluster)


if __name__ == "__main__":
    import argparse
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True)
    parser.add_argument("--long", action="store_true", help="40 players, 25 kills")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--instances", type=int, choices=(1, 2), default=1,
                        help="1: one server on SQLite; 2: two instances on PostgreSQL")
    arguments = parser.parse_args()
    if arguments.long and arguments.instances == 2:
        with Cluster() as cluster:
            asyncio.run(drill(arguments.tessera, players=40, kills=25, seed=arguments.seed,
                              cluster=cluster))
    elif arguments.long:
        asyncio.run(drill(arguments.tessera, players=40, kills=25, seed=arguments.seed))
    else:
        test = (test_the_short_drill_on_two_instances_loses_nothing if arguments.instances == 2
                else test_the_short_drill_loses_nothing)
        asyncio.run(asyncio.wait_for(test(arguments.tessera), 170))
    print("1 passed, 0 failed")
