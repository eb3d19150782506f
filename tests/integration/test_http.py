"""test_http.py -- plain HTTP on the websocket port, against a real server.

The transport hands whole requests to the app's routes; these tests check
what every route relies on: status, Content-Type, Content-Length and
`Cache-Control: no-store` on JSON, the JSON 404 and 405 answers, the body
cap, and keep-alive connections serving several requests.
"""

import asyncio
import json

from tessera_server import TesseraServer, echo_round_trip, run_tests


async def test_healthz_reports_status_version_and_connections(binary):
    async with TesseraServer(binary) as server:
        async with server.connect() as client:
            await echo_round_trip(client)
            status, headers, body = await server.http("GET", "/healthz")
        assert status == 200
        assert headers["content-type"] == "application/json"
        assert headers["cache-control"] == "no-store"
        assert int(headers["content-length"]) == len(body)
        health = json.loads(body)
        assert health["status"] == "ok"
        assert isinstance(health["version"], str) and health["version"]
        assert isinstance(health["uptime_s"], int) and health["uptime_s"] >= 0
        assert health["rooms"] == 0
        assert health["connections"] == 1


async def test_query_string_does_not_change_the_route(binary):
    async with TesseraServer(binary) as server:
        status, _, body = await server.http("GET", "/healthz?verbose=1&x=%20")
        assert status == 200 and json.loads(body)["status"] == "ok"


async def test_unknown_path_is_a_json_404(binary):
    async with TesseraServer(binary) as server:
        status, headers, body = await server.http("GET", "/no/such/page")
        assert status == 404
        assert headers["content-type"] == "application/json"
        error = json.loads(body)
        assert error["type"] == "error" and error["code"] == "not_found", error


async def test_wrong_method_is_a_json_405(binary):
    async with TesseraServer(binary) as server:
        status, _, body = await server.http("POST", "/healthz", b'{"a":1}')
        assert status == 405
        assert json.loads(body)["code"] == "method_not_allowed"


async def test_body_over_the_cap_is_refused_with_413(binary):
    async with TesseraServer(binary, "--max-http-body-bytes", "1024") as server:
        status, _, body = await server.http("POST", "/healthz", b"x" * 5000)
        assert status == 413
        assert json.loads(body)["code"] == "too_big"
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


async def read_response(reader):
    """One Content-Length framed response from a kept-alive connection."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    lines = head.decode().split("\r\n")
    length = next(int(line.split(":")[1]) for line in lines
                  if line.lower().startswith("content-length:"))
    return int(lines[0].split()[1]), await reader.readexactly(length)


async def test_keep_alive_connection_serves_several_requests(binary):
    async with TesseraServer(binary) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        for path, expected in (("/healthz", 200), ("/nope", 404), ("/healthz", 200)):
            writer.write(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            status, body = await read_response(reader)
            assert status == expected, (path, status, body)
            json.loads(body)
        writer.close()


if __name__ == "__main__":
    run_tests(globals())
