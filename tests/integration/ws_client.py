"""ws_client.py -- the integration tests' websocket client.

A Client keeps every message it receives, answers `request` with the reply
that echoes its id, and `expect` with the next unread message of a type:
tests wait for what they expect instead of sleeping.
"""

import asyncio
import json

WAIT_S = 10


class Client:
    """A websocket client that keeps every message it receives."""

    def __init__(self, connection, name):
        self.connection = connection
        self.name = name
        self.inbox = []
        self.cursor = 0
        self.next_id = 1
        self.token = None
        self.player_id = None

    @classmethod
    async def join(cls, server, name):
        client = cls(await server.connect(max_size=2 ** 22), name)
        welcome = await client.request({"type": "hello", "name": name})
        assert welcome["type"] == "welcome", welcome
        client.token = welcome["token"]
        client.player_id = welcome["player"]["id"]
        return client

    async def send(self, message):
        await self.connection.send(json.dumps(message))

    async def _receive(self):
        text = await asyncio.wait_for(self.connection.recv(), WAIT_S)
        message = json.loads(text)
        self.inbox.append(message)
        return message

    async def expect(self, kind, where=lambda m: True):
        """The next unread message of type `kind` matching `where`."""
        while True:
            while self.cursor < len(self.inbox):
                message = self.inbox[self.cursor]
                self.cursor += 1
                if message.get("type") == kind and where(message):
                    return message
            await self._receive()

    async def request(self, message):
        """Sends `message` with a fresh id; returns the reply echoing it."""
        message = dict(message, id=self.next_id)
        self.next_id += 1
        await self.send(message)
        while True:
            for reply in self.inbox:
                if reply.get("id") == message["id"]:
                    self.inbox.remove(reply)
                    self.cursor = min(self.cursor, len(self.inbox))
                    return reply
            await self._receive()

    async def close(self):
        await self.connection.close()

    def count(self, kind):
        return sum(1 for m in self.inbox if m.get("type") == kind)
