"""test_instances.py -- two tessera instances on one PostgreSQL database.

Each test runs its own throw-away PostgreSQL server (test_postgres.py's
Cluster) and two instances, `a` and `b`, with short leases.

- A room made on `a` has a code starting with `a`; a client of `b` that
  asks for it is answered `moved`, naming `a` and the URL a proxy routes
  to it. A code nobody serves is still `no_such_room`.
- Behind a real nginx running deploy/nginx-instances.conf.example: a
  player's lobby connection (/ws) reaches an instance, where its room is
  made; a spectator's /ws?room=CODE reaches the room's owner directly; a
  connection to the other instance (/ws?room=CODE&instance=OTHER) is
  answered `moved` and following its URL reaches the room. Then the owner
  is killed (SIGKILL) mid-game: the player and the spectator reconnect to
  /ws?room=CODE, which nginx sends to the other instance, following
  `moved` until that instance has taken the run-out lease over and
  rebuilt the room; the game goes on from the last acknowledged move to
  its end, the spectator watching. Every acknowledged move is stored, the
  room's lease is gone with its game, and `tessera replay verify` passes.
- rooms.list on any instance lists the public rooms of all (their notices
  through PostgreSQL's LISTEN/NOTIFY): a room made on one is listed by the
  others and follows its changes; a private room never is; an instance
  started later hears of the rooms made before it; the rooms of a killed
  instance are listed again by the one that takes them over.
- Quick play is served by one instance (the holder of its lease): a
  player who queues on the other is answered `moved` there, and players
  who came to different instances are matched in one room.
- The database stops and starts again: each instance's listener connects
  again, and rooms made after are listed by the others as before.
- A tournament of bots made on `a` is `a`'s to run; `a` is killed midway:
  `b` takes the tournament over with its rooms and plays it to its end,
  every game once; no lease is left.
"""

import asyncio
import json
import os
import signal
import ssl
import sys
import tempfile
import time

import websockets

sys.path.insert(0, os.path.dirname(__file__))
from tessera_server import TesseraServer, run_tests  # noqa: E402
from test_deploy import free_port, nginx_site, start_nginx  # noqa: E402
from test_disk_full import duo_against_greedy, first_legal, my_turn, play_to_the_end  # noqa: E402,E501
from test_live_play import Client, create_room  # noqa: E402
from test_postgres import Cluster  # noqa: E402
from test_results import replay_verify  # noqa: E402
from test_bot_sdk import run_example  # noqa: E402
from test_tournament_rules import account  # noqa: E402

FAST = ("--rate", "100000", "--burst", "100000", "--trusted-proxies", "127.0.0.1")
LEASE_MS = 1500
ADMIN_KEY = "admin-key-for-tests-0123456789"


def instance(binary, cluster, name, *settings, lease_ms=LEASE_MS):
    return TesseraServer(binary, *FAST, "--instance", name, "--lease-ms", str(lease_ms),
                         *settings, db_path=cluster.url)


async def stop_survivors(servers):
    """Stops the instances of `servers` (a dict) that were not killed: each exits 0."""
    for server in servers.values():
        if server.process.returncode is None:
            assert await server.stop() == 0, server.log


async def until_stored(cluster, sql, holds, seconds=60):
    """Reads `sql` until `holds` is true of its rows: them. (What another
    process stores has no event to wait for.)"""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        rows = cluster.rows(sql)
        if holds(rows):
            return rows
        await asyncio.sleep(0.1)
    raise AssertionError(f"{sql}: {rows}")


class Nginx:
    """nginx on free ports running the several-instances example in front of
    `a` and `b`; connect(path) opens a websocket through it."""

    def __init__(self, a, b):
        self.folder = tempfile.TemporaryDirectory(prefix="tessera-nginx-instances-")
        self.port = free_port()
        self.site = nginx_site(self.port, free_port(), {8081: a.port, 8082: b.port},
                               "nginx-instances.conf.example")
        self.tls = ssl.create_default_context()
        self.tls.check_hostname = False
        self.tls.verify_mode = ssl.CERT_NONE

    async def __aenter__(self):
        self.process = await start_nginx(self.folder.name, self.site)
        return self

    async def __aexit__(self, *exc):
        self.process.terminate()
        await self.process.communicate()
        self.folder.cleanup()

    def certificate(self):
        """The file of nginx's self-signed certificate, for a client to trust."""
        return os.path.join(self.folder.name, "fullchain.pem")

    async def connect(self, path):
        for _ in range(50):  # nginx is listening once a connection is accepted
            try:
                return await websockets.connect(f"wss://127.0.0.1:{self.port}{path}",
                                                ssl=self.tls, max_size=2 ** 22, open_timeout=5)
            except OSError:
                await asyncio.sleep(0.1)
        raise AssertionError("nginx never listened")


async def reach_room(nginx, token, room, name, path, spectator=False):
    """Connects through nginx to `path` as the player of `token` (None: a new
    guest, as a spectator that never sat, whose token no other instance
    knows, signs in again) and asks
    for `room`, following each `moved` to its URL after its retry_ms (at
    least 100 ms when it names the same instance again, as the clients
    do) until the room comes: (client, the room's game.state, how many
    `moved` were followed)."""
    last, moves = None, 0
    for _ in range(40):
        client = Client(await nginx.connect(path), name)
        hello = {"type": "hello", "name": name}
        welcome = await client.request(dict(hello, token=token) if token else hello)
        assert welcome["type"] == "welcome", welcome
        join = {"type": "room.join", "room": room}
        reply = await client.request(dict(join, **{"as": "spectator"}) if spectator else join)
        if reply["type"] == "room":
            client.cursor = len(client.inbox)  # what hello's reconnect sent came before
            return client, await client.expect("game.state", lambda m: m["room"] == room), moves
        assert reply["type"] == "moved" and reply["room"] == room, reply
        assert reply["url"] == f"/ws?room={room}&instance={reply['instance']}", reply
        await client.close()
        wait = reply["retry_ms"] / 1000
        await asyncio.sleep(max(wait, 0.1) if reply["instance"] == last else wait)
        last, path, moves = reply["instance"], reply["url"], moves + 1
    raise AssertionError(f"never reached room {room}")


async def test_a_room_served_elsewhere_is_answered_moved(binary):
    with Cluster() as cluster:
        async with instance(binary, cluster, "a") as a, instance(binary, cluster, "b") as b:
            owner, room = await duo_against_greedy(a, moves=1)
            assert room[0] == "a" and len(room) == 8, room
            watcher = await Client.join(b, "watcher")
            reply = await watcher.request({"type": "room.join", "room": room,
                                           "as": "spectator"})
            assert reply == {"type": "moved", "room": room, "instance": "a",
                             "url": f"/ws?room={room}&instance=a", "retry_ms": 0,
                             "id": reply["id"]}, reply
            nowhere = await watcher.request({"type": "room.join", "room": "a0000000"})
            assert nowhere["type"] == "error" and nowhere["code"] == "no_such_room", nowhere
            assert (await watcher.request({"type": "ping"}))["type"] == "pong"  # still served
            await watcher.close()
            await owner.close()


async def listing(client, holds, seconds=10):
    """Asks rooms.list until `holds` is true of the rooms listed (a dict by
    id): them. (rooms.list is a request: there is no event to wait for.)"""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        page = await client.request({"type": "rooms.list", "limit": 100})
        rooms = {entry["id"]: entry for entry in page["rooms"]}
        if holds(rooms):
            return rooms
        await asyncio.sleep(0.05)
    raise AssertionError(f"the rooms listed never were as expected: {page}")


async def listed(client, room, where=lambda entry: True):
    """Waits until `room` is listed and `where` holds of its entry: the entry."""
    return (await listing(client, lambda rooms: room in rooms and where(rooms[room])))[room]


async def test_every_instance_lists_the_public_rooms_of_all(binary):
    with Cluster() as cluster:
        servers = {name: await instance(binary, cluster, name).start() for name in "ab"}
        try:
            ada = await Client.join(servers["a"], "ada")
            bob = await Client.join(servers["b"], "bob")
            on_a = await create_room(ada, game="blokus", mode="4p")
            hidden = await create_room(ada, game="blokus", mode="duo", private=True)
            on_b = await create_room(bob, game="reef-builder", mode="solo")
            entry = await listed(bob, on_a)
            assert entry["status"] == "waiting" and entry["mode"] == "4p", entry
            await listed(ada, on_b)
            await ada.request({"type": "room.join", "room": on_a, "seat": 2})
            await listed(bob, on_a, lambda e: e["seats"][2]["kind"] == "player")
            # A third instance, started now, hears of what was made before it.
            servers["c"] = await instance(binary, cluster, "c").start()
            cleo = await Client.join(servers["c"], "cleo")
            await listed(cleo, on_a)
            await listed(cleo, on_b)
            page = await cleo.request({"type": "rooms.list", "limit": 100})
            assert hidden not in [e["id"] for e in page["rooms"]], page
            # a dies: the game under way there is listed again by whoever
            # takes it over (a rebuilt room has no owner: an entry without
            # one is the taker's); its waiting room, aborted by the
            # takeover, is listed no more.
            steady, live = await duo_against_greedy(servers["a"], moves=1)
            await listed(bob, live, lambda e: e["status"] == "playing" and "owner" in e)
            await steady.close()
            await ada.close()
            assert await servers["a"].stop(signal.SIGKILL) == -signal.SIGKILL
            for client in (bob, cleo):
                await listed(client, live, lambda e: "owner" not in e)
                await listing(client, lambda rooms: on_a not in rooms and on_b in rooms)
            taker = [name for name in "bc"
                     if cluster.rows(f"SELECT 1 FROM room_leases WHERE room = '{live}'"
                                     f" AND instance = '{name}'")]
            assert len(taker) == 1, taker
            assert (await bob.request({"type": "ping"}))["type"] == "pong"
            await bob.close()
            await cleo.close()
        finally:
            await stop_survivors(servers)


async def test_quick_play_matches_players_of_both_instances(binary):
    with Cluster() as cluster:
        async with instance(binary, cluster, "a") as a, instance(binary, cluster, "b") as b:
            servers = {"a": a, "b": b}
            holder = cluster.rows("SELECT instance FROM room_leases WHERE room = 'q:'")[0][0]
            other = "b" if holder == "a" else "a"
            queue = {"type": "queue.join", "game": "blokus", "mode": "duo"}
            ada = await Client.join(servers[holder], "ada")
            assert (await ada.request(queue))["type"] == "queue.joined"
            bob = await Client.join(servers[other], "bob")
            moved = await bob.request(queue)
            assert moved == {"type": "moved", "instance": holder, "url": f"/ws?instance={holder}",
                             "retry_ms": 0, "id": moved["id"]}, moved
            await bob.close()
            bob = await Client.join(servers[holder], "bob")  # where the url leads
            joined = await bob.request(queue)
            assert joined["type"] == "queue.joined", joined
            room = await ada.expect("room")
            assert room == await bob.expect("room")
            assert room["room"]["id"][0] == holder and room["room"]["status"] == "playing"
            assert sorted(seat["name"] for seat in room["room"]["seats"]) == ["ada", "bob"]
            await ada.close()
            await bob.close()


async def test_the_lists_come_back_with_the_database(binary):
    with Cluster() as cluster:
        async with instance(binary, cluster, "a") as a, instance(binary, cluster, "b") as b:
            ada = await Client.join(a, "ada")
            bob = await Client.join(b, "bob")
            await listed(bob, await create_room(ada, game="blokus", mode="duo"))
            cluster.run("halt")
            try:
                # Not stored while the database is away, and said so.
                reply = await ada.request({"type": "room.create", "game": "blokus",
                                           "mode": "duo"})
                assert reply["type"] == "error" and reply["code"] == "storage_error", reply
            finally:
                cluster.run("resume")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:  # the writer reconnects on its next batch
                reply = await ada.request({"type": "room.create", "game": "blokus",
                                           "mode": "duo"})
                if reply["type"] == "room":
                    break
                await asyncio.sleep(0.1)
            assert reply["type"] == "room", reply
            await listed(bob, reply["room"]["id"])
            assert any("lobby notices: listening again" in line for line in b.log), b.log
            await ada.close()
            await bob.close()


async def test_a_killed_instances_tournament_is_played_on_elsewhere(binary):
    # mcts thinking 50 ms a move makes its games last a second or so: time to kill a midway.
    settings = ("--admin-key", ADMIN_KEY, "--bot-think-ms", "50")
    with Cluster() as cluster:
        servers = {name: await instance(binary, cluster, name, *settings).start()
                   for name in "ab"}
        try:
            body = {"name": "cup", "game": "blokus", "mode": "duo", "format": "round-robin",
                    "seed": 7, "parallel": 1,
                    "participants": [{"bot": "greedy"}, {"bot": "random"}, {"bot": "mcts"}]}
            status, _, created = await servers["a"].http(
                "POST", "/api/tournaments", json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {ADMIN_KEY}"})
            assert status == 201, created
            cup = json.loads(created)["id"]
            assert cluster.rows(f"SELECT instance FROM room_leases WHERE room = 't:{cup}'") == \
                [("a",)]
            finished = f"SELECT count(*) FROM games WHERE tournament_id = {cup}" \
                       " AND status = 'finished'"
            await until_stored(cluster, finished, lambda rows: int(rows[0][0]) >= 1)
            assert await servers["a"].stop(signal.SIGKILL) == -signal.SIGKILL
            assert cluster.rows(f"SELECT status FROM tournaments WHERE id = {cup}") == \
                [("running",)]
            await until_stored(cluster, f"SELECT status FROM tournaments WHERE id = {cup}",
                               lambda rows: rows == [("finished",)])
            assert cluster.rows(finished) == [("6",)]
            # Each scheduled game finished once. A game whose room a had made but not
            # started when killed is aborted by b and played again; no game under way is.
            assert cluster.rows(f"SELECT count(DISTINCT tournament_game) FROM games"
                                f" WHERE tournament_id = {cup} AND status = 'finished'") == [("6",)]
            assert cluster.rows(f"SELECT count(*) FROM games WHERE tournament_id = {cup}"
                                " AND status NOT IN ('finished', 'aborted')") == [("0",)]
            assert cluster.rows(f"SELECT count(*) FROM moves JOIN games ON games.id = game_id"
                                f" WHERE tournament_id = {cup} AND status = 'aborted'") == [("0",)]
            assert cluster.rows(f"SELECT sum(points) FROM tournament_entries"
                                f" WHERE tournament_id = {cup}") == [("6",)]
            assert cluster.rows("SELECT room FROM room_leases WHERE room <> 'q:'") == []
        finally:
            await stop_survivors(servers)


async def test_a_tournament_run_elsewhere_is_followed_from_any_instance(binary):
    settings = ("--admin-key", ADMIN_KEY)
    admin = {"Authorization": f"Bearer {ADMIN_KEY}"}
    with Cluster() as cluster:
        async with instance(binary, cluster, "a", *settings) as a, \
                instance(binary, cluster, "b", *settings) as b:
            ada = await account(b, "ada")  # an entry connected to the other instance
            body = {"name": "cup", "game": "blokus", "mode": "duo", "format": "round-robin",
                    "seed": 7, "participants": [{"player": "ada"}, {"bot": "greedy"}]}
            status, _, created = await a.http("POST", "/api/tournaments",
                                              json.dumps(body).encode(), headers=admin)
            assert status == 201, created
            cup = json.loads(created)["id"]
            # Its game starts on a; ada, on b, hears of it all the same.
            game = await ada.expect("tournament.game")
            assert game["tournament"]["id"] == cup, game
            assert game["game"]["room"][0] == "a" and game["game"]["game_id"] > 0, game
            # Watching it or cancelling it on b: moved to a, where it runs.
            watcher = await Client.join(b, "watcher")
            for client, kind in ((watcher, "tournament.watch"), (ada, "tournament.cancel")):
                moved = await client.request({"type": kind, "tournament": cup})
                assert moved == {"type": "moved", "instance": "a", "url": "/ws?instance=a",
                                 "tournament": cup, "retry_ms": 0, "id": moved["id"]}, moved
            over = await watcher.request({"type": "tournament.watch", "tournament": cup + 1})
            assert over["type"] == "error" and over["code"] == "no_such_tournament", over
            await watcher.close()
            watcher = await Client.join(a, "watcher")  # where the url leads
            view = await watcher.request({"type": "tournament.watch", "tournament": cup})
            assert view["type"] == "tournament" and view["tournament"]["id"] == cup, view
            # Cancelled through b's REST API: checked there, then sent on to a.
            for who, expected in (({"Authorization": f"Bearer {ada.token}"}, 403), (admin, 202)):
                status, _, answer = await b.http("DELETE", f"/api/tournaments/{cup}", b"",
                                                 headers=who)
                assert status == expected, (status, answer)
            assert json.loads(answer) == {"id": cup, "status": "cancelling"}, answer
            status, _, answer = await b.http("DELETE", f"/api/tournaments/{cup + 1}", b"",
                                             headers=admin)
            assert status == 404, answer
            # ada, on b, hears it as the watcher on a does.
            cancelled = await ada.expect("tournament.cancelled")
            assert cancelled["tournament"]["status"] == "cancelled", cancelled
            assert (await watcher.expect("tournament.cancelled"))["tournament"]["id"] == cup
            await watcher.close()
            await ada.close()


async def test_a_cleanly_stopped_instance_lets_its_rooms_go_at_once(binary):
    # A long lease: a room left to run out would not be taken within the test's bound.
    lease_ms = 12000
    with Cluster() as cluster:
        servers = {name: await instance(binary, cluster, name, lease_ms=lease_ms).start()
                   for name in "ab"}
        try:
            player, room = await duo_against_greedy(servers["a"], moves=1)
            watcher = await Client.join(servers["b"], "watcher")
            await listed(watcher, room)
            state = await my_turn(player, room)
            token = player.token
            assert await servers["a"].stop() == 0  # SIGTERM: a clean stop
            stopped_at = time.monotonic()
            assert any("leases given up" in line for line in servers["a"].log), servers["a"].log
            await until_stored(cluster, f"SELECT instance FROM room_leases WHERE room = '{room}'",
                               lambda rows: rows == [("b",)])
            assert time.monotonic() - stopped_at < lease_ms / 2000
            resumed = None
            while not resumed:  # b may still be rebuilding it: moved here, a moment later
                player = Client(await servers["b"].connect(), "steady")
                welcome = await player.request({"type": "hello", "name": "steady",
                                                "token": token})
                assert welcome["type"] == "welcome", welcome
                reply = await player.request({"type": "room.join", "room": room, "seat": 0})
                if reply["type"] == "room":
                    resumed = await my_turn(player, room)
                    break
                assert reply["type"] == "moved" and reply["instance"] == "b", reply
                await player.close()
                await asyncio.sleep(reply["retry_ms"] / 1000)
            assert resumed["ply"] == state["ply"], (resumed, state)
            reply = await player.request({"type": "game.move", "room": room,
                                          "ply": resumed["ply"],
                                          "action": await first_legal(player, room)})
            assert reply["type"] == "game.moved", reply
            print(f"clean stop: {time.monotonic() - stopped_at:.2f} s from the stop to a move"
                  f" accepted on b (lease {lease_ms} ms)")
            await player.close()
            await watcher.close()
        finally:
            await stop_survivors(servers)


async def test_behind_nginx_a_killed_instances_game_goes_on_elsewhere(binary):
    with Cluster() as cluster:
        servers = {name: await instance(binary, cluster, name).start() for name in "ab"}
        try:
            async with Nginx(servers["a"], servers["b"]) as nginx:
                acknowledged = await route_then_fail_over(nginx, servers)
        finally:
            await stop_survivors(servers)
        stored = {(int(seat), int(ply))
                  for seat, ply in cluster.rows("SELECT seat, ply FROM moves")}
        assert acknowledged <= stored, acknowledged - stored
        assert cluster.rows("SELECT status FROM games") == [("finished",)]
        assert cluster.rows("SELECT room FROM room_leases WHERE room <> 'q:'") == []
        status, lines = await replay_verify(binary, cluster.url)
        assert status == 0, lines


async def test_behind_nginx_the_sdk_follows_quick_play_to_its_instance(binary):
    """The SDK's example bot, sent through nginx to the instance that does
    not hold quick play, follows its `moved` (through nginx again) and plays
    the game quick play makes it there (bots fill the other seat)."""
    with Cluster() as cluster:
        servers = {name: await instance(binary, cluster, name, "--queue-fill", "1").start()
                   for name in "ab"}
        try:
            holder = (await until_stored(cluster, "SELECT instance FROM room_leases"
                                         " WHERE room = 'q:'", lambda rows: len(rows) == 1))[0][0]
            other = "b" if holder == "a" else "a"
            async with Nginx(servers["a"], servers["b"]) as nginx:
                environment = dict(os.environ, SSL_CERT_FILE=nginx.certificate())
                status, lines, errors = await run_example(
                    "random_blokus.py", "--url", f"wss://127.0.0.1:{nginx.port}/ws?instance={other}",
                    "--queue", "blokus:duo", "--name", "traveller", environment=environment)
            assert status == 0, errors
            assert len(lines) == 1 and lines[0]["room"][0] == holder, lines
            result = lines[0]["result"]
            assert len(result["scores"]) == 2, result
            assert cluster.rows(f"SELECT status FROM games WHERE room = '{lines[0]['room']}'") \
                == [("finished",)]
        finally:
            await stop_survivors(servers)


async def route_then_fail_over(nginx, servers):
    """The routing, then the owner killed mid-game: the (seat, ply) of every
    move the player saw acknowledged."""
    player = Client(await nginx.connect("/ws"), "steady")
    welcome = await player.request({"type": "hello", "name": "steady"})
    room = await create_room(player, game="blokus", mode="duo")
    owner = room[0]
    other = "b" if owner == "a" else "a"
    await player.request({"type": "room.join", "room": room, "seat": 0})
    await player.request({"type": "room.add_bot", "room": room, "seat": 1, "bot": "greedy"})
    await player.request({"type": "room.start", "room": room})
    # By the code's first character, straight to the owner; by another id, moved there.
    watcher = Client(await nginx.connect(f"/ws?room={room}"), "watcher")
    await watcher.request({"type": "hello", "name": "watcher"})
    reply = await watcher.request({"type": "room.join", "room": room, "as": "spectator"})
    assert reply["type"] == "room", reply
    await watcher.close()
    watcher, _, moves = await reach_room(nginx, None, room, "watcher",
                                         f"/ws?room={room}&instance={other}", spectator=True)
    assert moves == 1, moves
    for _ in range(4):
        state = await my_turn(player, room)
        reply = await player.request({"type": "game.move", "room": room, "ply": state["ply"],
                                      "action": await first_legal(player, room)})
        assert reply["type"] == "game.moved", reply
    state = await my_turn(player, room)
    acknowledged = {(m["seat"], m["ply"]) for m in player.inbox
                    if m.get("type") == "game.moved" and m["room"] == room}
    assert await servers[owner].stop(signal.SIGKILL) == -signal.SIGKILL
    killed_at = time.monotonic()
    player, resumed, _ = await reach_room(nginx, welcome["token"], room, "steady",
                                          f"/ws?room={room}")
    assert resumed["ply"] == state["ply"], (resumed["ply"], state["ply"])
    reply = await player.request({"type": "game.move", "room": room, "ply": resumed["ply"],
                                  "action": await first_legal(player, room)})
    assert reply["type"] == "game.moved", reply
    print(f"failover: {time.monotonic() - killed_at:.2f} s from SIGKILL to a move accepted "
          f"on {other} (lease {LEASE_MS} ms)")
    watcher, _, _ = await reach_room(nginx, None, room, "watcher", f"/ws?room={room}",
                                     spectator=True)
    acknowledged |= await play_to_the_end(player, room)
    over = await watcher.expect("game.state", lambda m: m["status"] == "finished")
    assert over["room"] == room, over
    await player.close()
    await watcher.close()
    return acknowledged


if __name__ == "__main__":
    run_tests(globals())
