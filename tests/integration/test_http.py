"""test_http.py -- plain HTTP on the websocket port, against a real server.

The transport hands whole requests to the app's routes; these tests check
what every route relies on: status, Content-Type, Content-Length and
`Cache-Control: no-store` on JSON, the JSON 404 and 405 answers, the body
cap, and keep-alive connections serving several requests.

Hostile requests are written byte by byte over a raw socket, and every
answer is checked whole: its status, a Content-Length equal to the bytes
that follow the headers, and the JSON shape of the error: the Reef API's
{"error":{"code","message"}} under /api/games/reef-builder/, else
{"type":"error","code","message"}. A few requests are refused by lws 4.1.6
before the server sees them; their tests say exactly what the client gets.
"""

import asyncio
import gzip
import json
import os
import re
import signal
import socket

from tessera_server import (TesseraServer, assert_security_headers, echo_round_trip,
                            raw_websocket, run_tests)


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


async def test_every_answer_has_a_request_id_that_its_log_line_names(binary):
    async with TesseraServer(binary, "--log-format", "json") as server:
        ids = []
        for method, path, status in (("GET", "/healthz", 200), ("GET", "/nothing", 404),
                                     ("POST", "/healthz", 405), ("GET", "/api/games?limit=0", 400)):
            got, headers, _ = await server.http(method, path)
            assert got == status, (path, got)
            assert re.fullmatch(r"[0-9a-f]{8}-\d+", headers["x-request-id"]), headers
            ids.append(headers["x-request-id"])
            line = json.loads(await server.wait_for_log(f'"request_id":"{ids[-1]}"'))
            assert line["msg"] == "http" and line["level"] == "info", line
            assert (line["method"], line["path"], line["status"]) == (method, path.split("?")[0],
                                                                       status), line
            assert line["duration_ms"] >= 0 and line["peer"] == "127.0.0.1", line
        assert len(set(ids)) == len(ids)
        assert all(json.loads(line) for line in server.log)  # every line is one JSON object


async def test_behind_a_trusted_proxy_each_player_has_its_own_address(binary):
    flags = ("--trusted-proxies", "127.0.0.1", "--http-burst", "2", "--http-rate", "1",
             "--log-format", "json", "--log-level", "debug")
    async with TesseraServer(binary, *flags) as server:
        forged_then_real = {"X-Forwarded-For": "6.6.6.6, 203.0.113.9"}
        for _ in range(2):
            status, headers, _ = await server.http("GET", "/healthz", headers=forged_then_real)
            assert status == 200
        line = json.loads(await server.wait_for_log(f'"request_id":"{headers["x-request-id"]}"'))
        assert line["peer"] == "203.0.113.9", line
        status, _, _ = await server.http("GET", "/healthz", headers=forged_then_real)
        assert status == 429  # that player's burst is spent...
        other = {"X-Forwarded-For": "198.51.100.4"}
        status, _, _ = await server.http("GET", "/healthz", headers=other)
        assert status == 200  # ...not the next player's, though both come through one proxy
        async with server.connect(extra_headers={"X-Forwarded-For": "2001:DB8::5"}) as client:
            await echo_round_trip(client)
            await server.wait_for_log(r"connection \d+ from 2001:db8::5")

    async with TesseraServer(binary, "--log-format", "json") as server:  # no proxy trusted
        status, headers, _ = await server.http("GET", "/healthz", headers=forged_then_real)
        line = json.loads(await server.wait_for_log(f'"request_id":"{headers["x-request-id"]}"'))
        assert line["peer"] == "127.0.0.1", line


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


REEF = "/api/games/reef-builder"


async def exchange(port, data, timeout=5):
    """Writes raw request bytes and reads until the server closes (or, for
    a kept-alive connection, until one whole response is in). Returns
    (status, headers, body, closed): `closed` says the server closed."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(data)
    await writer.drain()
    try:
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
    except asyncio.IncompleteReadError as error:
        writer.close()
        return None, {}, error.partial, True
    lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    body = await asyncio.wait_for(reader.readexactly(int(headers["content-length"])), timeout)
    rest = await asyncio.wait_for(reader.read(), timeout) if headers.get("connection") == "close" \
        else None
    writer.close()
    return int(lines[0].split()[1]), headers, body, rest == b""


def assert_error(status, headers, body, expected_status, code, reef_shape=False):
    """A whole JSON error answer: status, length, shape, code."""
    assert status == expected_status, (status, body)
    assert int(headers["content-length"]) == len(body), (headers, body)
    assert headers["content-type"] == "application/json", headers
    error = json.loads(body)
    if reef_shape:
        assert set(error) == {"error"}, error
        assert set(error["error"]) == {"code", "message"}, error
        assert error["error"]["code"] == code, error
        return error["error"]["message"]
    assert set(error) == {"type", "code", "message"}, error
    assert error["type"] == "error" and error["code"] == code, error
    return error["message"]


def header_fields(head):
    """The headers of a response head, by lower-case name."""
    return dict((name.strip().lower(), value.strip()) for name, _, value in
                (line.partition(":") for line in head.decode("latin-1").split("\r\n")[1:]))


def request_head(method, path, *header_lines):
    head = f"{method} {path} HTTP/1.1\r\nHost: x\r\n" + "".join(
        line + "\r\n" for line in header_lines) + "\r\n"
    return head.encode("latin-1")


async def test_malformed_content_length_is_a_whole_400_and_a_close(binary):
    async with TesseraServer(binary) as server:
        for value in ("-1", "+5", "5x", "0x5", "", "99999999999999999999999"):
            status, headers, body, closed = await exchange(
                server.port, request_head("POST", "/healthz", f"Content-Length: {value}"))
            assert_error(status, headers, body, 400, "bad_request")
            assert headers["connection"] == "close" and closed, (value, headers)
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


async def test_repeated_content_length_is_a_whole_400(binary):
    async with TesseraServer(binary) as server:
        for second in ("5", "6"):
            status, headers, body, closed = await exchange(
                server.port, request_head("POST", f"{REEF}/action", "Content-Length: 5",
                                          f"Content-Length: {second}") + b"hello!")
            assert_error(status, headers, body, 400, "bad_request", reef_shape=True)
            assert closed


async def test_trailing_space_after_content_length_is_allowed(binary):
    """RFC 9112 section 5: trailing whitespace is not part of a header value,
    and lws frames the body the same way (5 bytes)."""
    async with TesseraServer(binary) as server:
        status, headers, body, _ = await exchange(
            server.port, request_head("POST", "/healthz", "Content-Length: 5 ",
                                      "Connection: close") + b"hello")
        assert_error(status, headers, body, 405, "method_not_allowed")


async def test_chunked_body_is_a_whole_411_and_a_close(binary):
    async with TesseraServer(binary) as server:
        chunked = b"5\r\nhello\r\n0\r\n\r\n"
        status, headers, body, closed = await exchange(
            server.port, request_head("POST", f"{REEF}/action",
                                      "Transfer-Encoding: chunked") + chunked)
        assert_error(status, headers, body, 411, "length_required", reef_shape=True)
        assert closed
        status, headers, body, closed = await exchange(
            server.port, request_head("POST", "/healthz", "Transfer-Encoding: chunked",
                                      "Content-Length: 5") + b"hello")
        assert_error(status, headers, body, 400, "bad_request")
        assert closed


async def test_post_without_a_length_is_a_whole_411(binary):
    async with TesseraServer(binary) as server:
        status, headers, body, closed = await exchange(
            server.port, request_head("POST", f"{REEF}/action"))
        assert_error(status, headers, body, 411, "length_required", reef_shape=True)
        assert closed


async def test_path_that_is_not_utf8_is_a_whole_400(binary):
    async with TesseraServer(binary) as server:
        for path in (b"/caf\xc3", b"/he\xffllo", b"/he%FFllo", b"/%C0%AF", b"/healthz?x=%ED%A0%80"):
            status, headers, body, _ = await exchange(
                server.port, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert_error(status, headers, body, 400, "bad_request")
        status, headers, body, _ = await exchange(
            server.port, f"GET {REEF}/init?seed=1%FF HTTP/1.1\r\nConnection: close\r\n\r\n".encode())
        assert_error(status, headers, body, 400, "bad_request", reef_shape=True)
        status, _, body = await server.http("GET", "/caf%C3%A9")
        assert status == 404 and "caf??" in json.loads(body)["message"], body


async def test_nul_in_the_target_is_dropped_by_lws_without_an_answer(binary):
    """lws 4.1.6's URI parser fails on a decoded NUL (%00) or a raw NUL byte
    in the request target before any callback of ours, and closes the
    connection: the client reads end-of-stream and no byte at all. (A 400
    would need a patched lws; a NUL right after a '/' is the exception, see
    the next test.) The server goes on serving."""
    async with TesseraServer(binary) as server:
        for target in (b"/he%00llo", b"/healthz?x=%00", b"/he\x00llo"):
            status, _, partial, closed = await exchange(
                server.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n\r\n")
            assert status is None and partial == b"" and closed, (target, partial)
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


async def test_a_request_head_over_lws_header_space_is_dropped_without_an_answer(binary):
    """lws 4.1.6 keeps a request's target and headers in 4096 bytes of
    header space (its max_http_header_data); a longer head -- a long target
    or many headers -- fails its parser before any callback of ours, and
    it closes the connection without answering (a 414 or 431 would need a
    patched lws). A head that fits is served, and so is everyone else."""
    async with TesseraServer(binary) as server:
        for target, headers in ((b"/" + b"a" * 3000, b""), (b"/healthz", b"X-A: b\r\n" * 100)):
            status, _, _, _ = await exchange(
                server.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + headers
                + b"Connection: close\r\n\r\n")
            assert status in (200, 404), (target[:20], status)
        for target, headers in ((b"/" + b"a" * 5000, b""), (b"/healthz", b"X-A: b\r\n" * 1000)):
            try:
                status, _, partial, closed = await exchange(
                    server.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\n" + headers
                    + b"Connection: close\r\n\r\n")
            except ConnectionResetError:  # closed with part of the head unread
                status, partial, closed = None, b"", True
            assert status is None and partial == b"" and closed, (target[:20], partial)
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200


async def test_nul_after_a_slash_is_a_whole_400_not_the_page(binary):
    """lws 4.1.6 lets a %00 through right after a '/' and hands the path on
    cut at it, so "/%00" read as "/" and served the browser client. Such a
    path is refused with a whole 400, with or without a query, on a kept-alive
    connection too, and paths that only look alike are served as before."""
    async with TesseraServer(binary) as server:
        for target in (b"/%00", b"/%00x", b"/web/%00", b"/web/app.js/%00", b"/a/%00/b",
                       b"/%00?seed=1", b"/%00/..", b"/api/games/%00?limit=1&x=2"):
            for method in (b"GET", b"POST"):
                status, headers, body, _ = await exchange(
                    server.port, method + b" " + target + b" HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Length: 0\r\nConnection: close\r\n\r\n")
                assert "NUL" in assert_error(status, headers, body, 400, "bad_request"), target
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(b"GET /%00 HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        for expected in (b"HTTP/1.1 400", b"HTTP/1.1 200"):
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(expected), head
            length = int(re.search(rb"content-length: (\d+)", head.lower()).group(1))
            await asyncio.wait_for(reader.readexactly(length), 5)
        writer.close()
        for target, expected in ((b"/", 200), (b"/?", 200), (b"/?a&&b", 200), (b"/%2F", 200),
                                 (b"/healthz?x=1;y=2", 200), (b"/a/../healthz", 200),
                                 (b"//healthz?", 200), (b"/web/app.js?v=1", 200),
                                 (b"/web/%2500", 404)):
            status, _, _, _ = await exchange(
                server.port, b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            assert status == expected, (target, status)


async def test_lws_answers_bad_escapes_and_unknown_methods_itself(binary):
    """A malformed percent-escape and a method lws does not know are
    refused by lws 4.1.6 with its own complete 403 HTML page, before the
    server sees the request -- the page's body even to a HEAD (lws writes
    it anyway, then closes the connection, so nothing is read out of step;
    the live fuzzer found it). A request pipelined behind the refused one
    is never answered: the close comes first."""
    async with TesseraServer(binary) as server:
        for request in (f"GET {REEF}/init?seed=%zz HTTP/1.1\r\n\r\n".encode(),
                        b"GET /healthz% HTTP/1.1\r\n\r\n", b"BREW /healthz HTTP/1.1\r\n\r\n",
                        b"HEAD /api/games/1/%./x HTTP/1.1\r\n\r\n"):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(request + b"GET /healthz HTTP/1.1\r\n\r\n")
            data = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            head, _, body = data.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.0 403"), data
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n")
                              if line.lower().startswith(b"content-length:")))
            assert length == len(body) and body.startswith(b"<html>"), data



async def test_every_answer_carries_the_security_headers(binary):
    """Pages, scripts, API JSON, deferred answers, every error of the
    transport's own (framing, size, rate, NUL, shutdown) and lws's own 403
    page: each carries the Content-Security-Policy, nosniff and the
    Referrer-Policy."""
    async with TesseraServer(binary, "--max-http-body-bytes", "1024", "--http-burst", "20") as server:
        _, _, body = await server.http("GET", f"{REEF}/init?seed=7")
        state = json.loads(body)["state"]
        action = json.dumps({"state": state,
                             "action": {"type": "place", "row": 0, "col": 0, "orientation": 0}})
        requests = [("GET", "/", b"", 200), ("GET", "/web/app.js", b"", 200),
                    ("GET", "/web/style.css", b"", 200), ("GET", "/web/icon.svg", b"", 200),
                    ("GET", "/healthz", b"", 200), ("GET", "/metrics", b"", 200),
                    ("GET", "/api/games", b"", 200), ("GET", "/api/games/blokus/pieces", b"", 200),
                    ("POST", f"{REEF}/action", action.encode(), 200),
                    ("POST", f"{REEF}/action", b"[1]", 400), ("GET", "/nope", b"", 404),
                    ("GET", f"{REEF}/nope", b"", 404), ("POST", "/healthz", b"{}", 405),
                    ("POST", "/healthz", b"x" * 2000, 413), ("GET", "/api/games/abc", b"", 404)]
        for method, path, payload, expected in requests:
            status, headers, _ = await server.http(method, path, payload)
            assert status == expected, (method, path, status)
            assert_security_headers(headers, (method, path))
        for raw, expected in ((request_head("GET", "/%00"), 400),
                              (request_head("GET", "/caf%C3"), 400),
                              (request_head("POST", "/healthz", "Content-Length: 5x"), 400),
                              (request_head("POST", "/healthz", "Transfer-Encoding: chunked"), 411),
                              (request_head("GET", "/healthz%zz"), 403),
                              (b"BREW / HTTP/1.1\r\nHost: x\r\n\r\n", 403)):
            reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
            writer.write(raw)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            writer.close()
            headers = header_fields(head)
            assert int(head.split()[1]) == expected, (raw, head)
            assert_security_headers(headers, raw)
        status = 200
        while status == 200:  # another address, so the flood spares the requests above
            status, headers, _ = await server.http("GET", "/healthz", source="127.0.0.9")
        assert status == 429
        assert_security_headers(headers, "429")
        _, ws_writer = await raw_websocket(server.port)  # holds the shutdown open
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        server.process.send_signal(signal.SIGINT)
        await server.wait_for_log("shutdown: closing 1 connections")
        writer.write(request_head("GET", "/healthz", "Connection: close"))
        head = (await asyncio.wait_for(reader.read(), 5)).partition(b"\r\n\r\n")[0]
        writer.close()
        ws_writer.close()
        headers = header_fields(head)
        assert head.startswith(b"HTTP/1.1 503"), head
        assert_security_headers(headers, "503")


async def test_wrong_method_lists_the_allowed_ones(binary):
    async with TesseraServer(binary) as server:
        status, headers, body = await server.http("DELETE", "/healthz")
        assert_error(status, headers, body, 405, "method_not_allowed")
        assert headers["allow"] == "GET", headers
        status, headers, body = await server.http("GET", f"{REEF}/action")
        assert_error(status, headers, body, 405, "method_not_allowed", reef_shape=True)
        assert headers["allow"] == "POST", headers


async def test_unknown_paths_answer_404_in_the_shape_of_their_api(binary):
    async with TesseraServer(binary) as server:
        status, headers, body = await server.http("GET", "/nope")
        assert_error(status, headers, body, 404, "not_found")
        status, headers, body = await server.http("GET", f"{REEF}/nope")
        assert_error(status, headers, body, 404, "not_found", reef_shape=True)


async def test_reef_api_413_uses_the_reef_error_shape(binary):
    async with TesseraServer(binary, "--max-http-body-bytes", "1024") as server:
        status, headers, body = await server.http("POST", f"{REEF}/action", b"x" * 5000)
        assert_error(status, headers, body, 413, "too_big", reef_shape=True)
        status, headers, body = await server.http("POST", "/healthz", b"x" * 5000)
        assert_error(status, headers, body, 413, "too_big")


async def test_query_arguments_are_percent_decoded(binary):
    async with TesseraServer(binary) as server:
        _, _, plain = await server.http("GET", f"{REEF}/init?seed=1")
        for query in ("seed=%31", "se%65d=1", "seed=1&", "&seed=%31"):
            status, _, body = await server.http("GET", f"{REEF}/init?{query}")
            assert status == 200 and body == plain, (query, body)
        status, headers, body = await server.http("GET", f"{REEF}/init?se+ed=1")
        message = assert_error(status, headers, body, 400, "bad_request", reef_shape=True)
        assert "'se ed'" in message, message  # '+' is a space
        status, headers, body = await server.http("GET", f"{REEF}/init?seed=1%26x%3D2")
        message = assert_error(status, headers, body, 400, "bad_request", reef_shape=True)
        assert "'seed' must be decimal" in message, message  # %26 stays in the value


async def test_burst_over_the_http_rate_gets_429_with_retry_after(binary):
    async with TesseraServer(binary, "--http-rate", "1", "--http-burst", "3") as server:
        for _ in range(3):
            status, _, _ = await server.http("GET", "/healthz")
            assert status == 200
        status, headers, body = await server.http("GET", "/healthz")
        assert_error(status, headers, body, 429, "rate_limited")
        assert int(headers["retry-after"]) >= 1, headers
        status, headers, body = await server.http("POST", f"{REEF}/action", b"{}")
        assert_error(status, headers, body, 429, "rate_limited", reef_shape=True)
        assert int(headers["retry-after"]) >= 1, headers
        # websockets are not HTTP requests: the limit does not touch them
        async with server.connect() as client:
            await echo_round_trip(client)


async def test_shutdown_503_on_the_reef_api_uses_its_shape(binary):
    async with TesseraServer(binary) as server:
        # a raw websocket never answers the close frame: the shutdown waits
        _, ws_writer = await raw_websocket(server.port)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        server.process.send_signal(signal.SIGINT)
        await server.wait_for_log("shutdown: closing 1 connections")
        writer.write(request_head("GET", f"{REEF}/init?seed=1", "Connection: close"))
        data = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        ws_writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        headers = header_fields(head)
        assert_error(int(head.split()[1]), headers, body, 503, "shutting_down", reef_shape=True)


async def test_deferred_reef_action_answers_as_before(binary):
    async with TesseraServer(binary, "--log-level", "debug") as server:
        _, _, body = await server.http("GET", f"{REEF}/init?seed=7")
        state = json.loads(body)["state"]
        action = {"type": "place", "row": 0, "col": 0, "orientation": 0}
        status, headers, body = await server.http(
            "POST", f"{REEF}/action", json.dumps({"state": state, "action": action}).encode())
        assert status == 200 and int(headers["content-length"]) == len(body)
        assert json.loads(body)["state"]["history"] == "00r"
        await server.wait_for_log(r"POST /api/games/reef-builder/action -> deferred")
        status, headers, body = await server.http("POST", f"{REEF}/action", b"[1]")
        assert_error(status, headers, body, 400, "bad_json", reef_shape=True)


async def test_an_empty_body_on_every_post_route_is_a_whole_error(binary):
    """Content-Length: 0 on a route that runs off the loop once crashed the
    server: lws reports the (empty) body complete after the request was
    already answered at its headers. Every POST and DELETE route, with the
    admin key so the body is read, answers a whole error and the server
    goes on serving."""
    async with TesseraServer(binary, "--admin-key", "k" * 32) as server:
        auth = {"Authorization": "Bearer " + "k" * 32}
        for method, path, status, code, reef in (
                ("POST", f"{REEF}/action", 400, "bad_json", True),
                ("POST", f"{REEF}/submit", 400, "bad_json", True),
                ("POST", "/api/bots", 400, "bad_json", False),
                ("POST", "/api/tournaments", 400, "bad_json", False),
                ("POST", "/api/bots/nobody/key", 404, "not_found", False),
                ("DELETE", "/api/bots/nobody/key", 404, "not_found", False)):
            for close in (False, True):
                lines = ["Content-Length: 0"] + [f"{k}: {v}" for k, v in auth.items()]
                if close:
                    lines.append("Connection: close")
                got, headers, body, _ = await exchange(server.port,
                                                       request_head(method, path, *lines))
                assert_error(got, headers, body, status, code, reef_shape=reef)
            got, _, _ = await server.http("GET", "/healthz")
            assert got == 200, (method, path)


async def test_a_request_pipelined_behind_a_body_closes_after_the_first_answer(binary):
    """Requests with bodies written back to back on one connection (or a
    body behind a GET) froze the whole server (found by tests/fuzz/fuzz_live.c): lws 4.1 kept
    reporting the first body complete and never read the next request,
    so /healthz went unanswered, and SIGTERM too. A route answered at once
    answers the first request whole with `Connection: close` and closes;
    the Reef API, which answers later, closes at once without an answer.
    The rest is never read, and the server goes on serving."""
    async with TesseraServer(binary) as server:
        request = request_head("POST", "/api/bots", "Content-Length: 3") + b"[1]"
        got, headers, body, closed = await exchange(server.port, request * 3)
        assert_error(got, headers, body, 401, "unauthorized")
        assert headers["connection"] == "close" and closed, headers
        request = request_head("POST", f"{REEF}/action", "Content-Length: 3") + b"[1]"
        got, _, body, closed = await exchange(server.port, request * 3)
        assert (got, body, closed) == (None, b"", True)
        # a body pipelined behind a request without one: whole answers (the
        # one in hand; the history's 404 is answered later, so it is not
        # waited for), then the close
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(request_head("GET", "/api/games") +
                     request_head("GET", "/api/games/1", "Content-Length: 3") + b"abc")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 200 "), head
        length = int(re.search(rb"content-length: (\d+)", head, re.I).group(1))
        json.loads(await asyncio.wait_for(reader.readexactly(length), 5))
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()
        got, _, _ = await asyncio.wait_for(server.http("GET", "/healthz"), 5)
        assert got == 200
        await server.wait_for_log("a request pipelined behind its body; closing")


async def test_an_answer_to_head_has_no_body(binary):
    """RFC 9110 9.3.2: an answer to HEAD tells the length but sends no body.
    The body went out anyway, so on a kept-alive connection a client read
    it as the start of the next answer (found by tests/fuzz/fuzz_live.c)."""
    async with TesseraServer(binary) as server:
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(request_head("HEAD", "/healthz") + request_head("GET", "/healthz"))
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 405 "), head
        assert int(re.search(rb"content-length: (\d+)", head, re.I).group(1)) > 0, head
        status, body = await read_response(reader)
        assert status == 200 and json.loads(body)["status"] == "ok", (status, body)
        writer.close()


async def test_client_leaving_before_a_deferred_answer_leaves_the_server_serving(binary):
    """A body that takes jansson long to parse (a few MB of numbers) keeps
    the job busy while the server sees the client close; the late answer
    is dropped, and other requests are served all along."""
    async with TesseraServer(binary, "--log-level", "debug",
                             "--max-http-body-bytes", "16m") as server:
        body = b"[" + b"0," * 3_000_000 + b"0]"
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"POST {REEF}/action HTTP/1.1\r\nHost: x\r\n"
                     f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        await writer.drain()
        await server.wait_for_log(r"-> deferred \(exchange (\d+)\)")
        writer.transport.abort()
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200
        await server.wait_for_log(r"answer dropped, the client is gone", timeout=20)
        status, _, body = await server.http("GET", f"{REEF}/init?seed=3")
        assert status == 200 and json.loads(body)["state"]["seed"] == 3


async def test_the_browser_client_is_served_from_memory(binary):
    web = os.path.join(os.path.dirname(__file__), "..", "..", "web")
    with open(os.path.join(web, "index.html"), "rb") as page:
        index = page.read()
    async with TesseraServer(binary) as server:
        for path in ("/", "/web/index.html"):
            status, headers, body = await server.http("GET", path)
            assert status == 200 and body == index, (path, status)
            assert headers["content-type"] == "text/html; charset=utf-8"
            assert headers["cache-control"] == "no-cache"
            assert int(headers["content-length"]) == len(body)
        for path in ("/web/nope.js", "/web/../CMakeLists.txt", "/web/", "/web/.hidden"):
            status, headers, body = await server.http("GET", path)
            assert status in (404, 403), (path, status, body)
            assert int(headers["content-length"]) == len(body)
        status, headers, _ = await server.http("POST", "/")
        assert status == 405 and headers["allow"] == "GET"


async def test_the_browser_client_is_gzipped_for_clients_that_accept_it(binary):
    """Text files go gzipped (made once at start) to a client whose
    Accept-Encoding allows it, plain to one that does not; both say
    Vary: Accept-Encoding, and every answer's length is its body's."""
    web = os.path.join(os.path.dirname(__file__), "..", "..", "web")
    async with TesseraServer(binary) as server:
        for path, name in (("/", "index.html"), ("/web/app.js", "app.js"),
                           ("/web/style.css", "style.css"), ("/web/icon.svg", "icon.svg")):
            with open(os.path.join(web, name), "rb") as file:
                plain = file.read()
            status, headers, body = await server.http(
                "GET", path, headers={"Accept-Encoding": "gzip, deflate, br"})
            assert status == 200 and headers["content-encoding"] == "gzip", (path, headers)
            assert headers["vary"] == "Accept-Encoding", (path, headers)
            assert int(headers["content-length"]) == len(body) < len(plain), path
            assert gzip.decompress(body) == plain, path
            for refusal in (None, "identity", "gzip;q=0, *", "x" * 300):
                extra = {"Accept-Encoding": refusal} if refusal else None
                status, headers, body = await server.http("GET", path, headers=extra)
                assert status == 200 and body == plain, (path, refusal)
                assert "content-encoding" not in headers, (path, refusal, headers)
                assert headers["vary"] == "Accept-Encoding", (path, headers)
                assert int(headers["content-length"]) == len(body), (path, refusal)
        # JSON from the API is not the client's files: never gzipped here.
        status, headers, body = await server.http("GET", "/healthz",
                                                  headers={"Accept-Encoding": "gzip"})
        assert status == 200 and "content-encoding" not in headers and json.loads(body)
        assert any("gzipped) from" in line for line in server.log), server.log


async def read_head(reader):
    """One answer's status line and headers off a kept-alive connection."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
    lines = head.decode().split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name:
            headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers


async def test_a_browser_revalidating_a_file_it_has_gets_304_and_no_body(binary):
    """Each file has a weak ETag, the same plain or gzipped; a request whose
    If-None-Match names it (or "*") is answered 304 with the ETag and no
    body, length or type, and the connection serves the next request; a
    stale tag gets the file whole."""
    async with TesseraServer(binary) as server:
        status, headers, plain = await server.http("GET", "/web/app.js")
        etag = headers["etag"]
        assert status == 200 and re.fullmatch(r'W/"[0-9a-f]{16}"', etag), headers
        status, headers, _ = await server.http("GET", "/web/app.js",
                                               headers={"Accept-Encoding": "gzip"})
        assert status == 200 and headers["etag"] == etag, headers
        status, other, _ = await server.http("GET", "/web/style.css")
        assert other["etag"] != etag
        for sent in (etag, etag[2:], f'"stale", {etag}', "*"):
            status, headers, body = await server.http("GET", "/web/app.js",
                                                      headers={"If-None-Match": sent})
            assert status == 304 and body == b"", (sent, status, body)
            assert headers["etag"] == etag and headers["vary"] == "Accept-Encoding", headers
            assert headers["cache-control"] == "no-cache", headers
            assert "content-length" not in headers and "content-type" not in headers, headers
        for stale in ('"stale"', 'W/"0000000000000000"', etag[:-2] + '"', "x" * 300):
            status, headers, body = await server.http("GET", "/web/app.js",
                                                      headers={"If-None-Match": stale})
            assert status == 200 and body == plain, stale
            assert int(headers["content-length"]) == len(body)
        # The connection goes on after a 304: the next answer is read whole.
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        writer.write(f"GET /web/app.js HTTP/1.1\r\nHost: x\r\nIf-None-Match: {etag}\r\n\r\n"
                     "GET /web/style.css HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                     .encode())
        status, headers = await read_head(reader)
        assert status == 304, (status, headers)
        status, headers = await read_head(reader)
        rest = await asyncio.wait_for(reader.read(), 5)
        writer.close()
        assert status == 200 and headers["etag"] == other["etag"], headers
        assert len(rest) == int(headers["content-length"]), (len(rest), headers)
        # A missing page and the API's JSON have no tag to match.
        status, headers, _ = await server.http("GET", "/web/nope.js",
                                               headers={"If-None-Match": "*"})
        assert status == 404 and "etag" not in headers, headers
        status, headers, body = await server.http("GET", "/healthz",
                                                  headers={"If-None-Match": "*"})
        assert status == 200 and "etag" not in headers and json.loads(body)


async def test_a_reader_slower_than_its_socket_gets_every_answer_whole(binary):
    """Two pipelined requests for the largest client file (more than one
    16 KB chunk each) from a client with a 4 KB receive buffer that reads
    only after another client was served: both answers arrive whole, in
    order, each chunk after the last one went out."""
    web = os.path.join(os.path.dirname(__file__), "..", "..", "web")
    name = max((os.path.relpath(os.path.join(folder, file), web)
                for folder, _, files in os.walk(web) for file in files
                if file.endswith(".js")), key=lambda path: os.path.getsize(os.path.join(web, path)))
    with open(os.path.join(web, name), "rb") as file:
        plain = file.read()
    assert len(plain) > 16384, (name, len(plain))
    async with TesseraServer(binary) as server:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        reader, writer = await asyncio.open_connection(sock=sock, limit=1 << 20)
        writer.write(f"GET /web/{name} HTTP/1.1\r\nHost: x\r\n\r\n".encode() +
                     f"GET /web/{name} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                     .encode())
        # Stalled, it holds up no one else.
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200
        for _ in range(2):
            status, headers = await read_head(reader)
            assert status == 200 and int(headers["content-length"]) == len(plain), headers
            body = await asyncio.wait_for(reader.readexactly(len(plain)), 5)
            assert body == plain
        assert await asyncio.wait_for(reader.read(), 5) == b""
        writer.close()


async def test_a_server_without_its_client_still_serves_the_api(binary):
    async with TesseraServer(binary, "--web-dir", "/nonexistent/web") as server:
        status, _, body = await server.http("GET", "/")
        assert status == 404 and json.loads(body)["code"] == "not_found", body
        status, _, _ = await server.http("GET", "/healthz")
        assert status == 200
        await server.wait_for_log(r"no web client at /nonexistent/web")


if __name__ == "__main__":
    run_tests(globals())
