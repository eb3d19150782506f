"""test_schemas.py -- the published schemas cover the whole server, by its own source.

docs/schema/client-messages.json, docs/schema/server-messages.json and
docs/openapi.json are what an author in another language builds a client
from; schema_check.py checks every message and answer the integration tests
receive against them. These tests check they are complete, against the
tables the server itself runs on rather than a second list kept by hand:

- every message type in the decoder's table (protocol/decode.c, MESSAGES)
  is in the client schema with exactly the fields of its field table, and
  the schema has no other type;
- every message type the lobby and the server write (the "type" of their
  json_pack calls and JSON texts, lobby/ and server/) is in the server
  schema, and the schema has no type they never write;
- the error codes of the server schema are protocol/message.c's names;
- every route of the route table (each http_routes_add in server/) is an
  operation of openapi.json, every operation is served by a route, and a
  prefix route ('*') has at least one operation below it;
- every whole message example of docs/PROTOCOL.md is valid.

One test plays the only exchange the other suites never receive on a
checked connection (quick play's queue.left), so that every server message
type is met live somewhere in the test command.

The source is read with small regular expressions; a call or table they
cannot resolve fails the test, so a new way of registering a route or a
message cannot slip past unchecked. The counts are printed for the record.
"""

import glob
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(__file__))
from jsonschema import Draft202012Validator  # noqa: E402
from schema_check import (CLIENT_URI, DOCUMENTS, OPENAPI, OPENAPI_URI, SERVER_URI,  # noqa: E402
                          SchemaMismatch, check_http_answer, check_received, check_server_message,
                          message_types, record_server_message, validator)
from tessera_server import TesseraServer, ask, run_tests  # noqa: E402

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
CLIENT = DOCUMENTS[CLIENT_URI]
SERVER = DOCUMENTS[SERVER_URI]
METHODS = ("get", "post", "put", "delete", "patch", "head")


def source(relative):
    with open(os.path.join(ROOT, relative)) as text:
        return text.read()


def initializer(text, name):
    """The string literals of `static const ... NAME[] = {...}` in `text`."""
    match = re.search(re.escape(name) + r"\[\]\s*=\s*\{(.*?)\};", text, re.DOTALL)
    assert match, f"no table {name}"
    return match.group(1)


def decoder_messages():
    """{type: set of field names} from protocol/decode.c's MESSAGES table."""
    text = source("protocol/decode.c")
    messages = {}
    table = initializer(text, "MESSAGES")
    entries = re.findall(r'\{"([a-z_.]+)",\s*PROTOCOL_[A-Z_]+,\s*([A-Z_]+)\}', table)
    assert len(entries) == table.count("PROTOCOL_") >= 19, "a MESSAGES entry this test cannot read"
    for type_name, fields in entries:
        field_table = initializer(text, fields)  # its only string literals are field names
        names = set(re.findall(r'"([a-z_]+)"', field_table))
        names |= {"room"} if "ROOM_FIELD" in field_table else set()
        names |= {"password"} if "PASSWORD(" in field_table else set()
        messages[type_name] = names
    return messages


def schema_fields(document, name):
    """The property names a $defs entry allows (following one $ref)."""
    entry = document["$defs"][name]
    names = set(entry.get("properties", {}))
    if "$ref" in entry:
        names |= set(document["$defs"][entry["$ref"].rsplit("/", 1)[1]]["properties"])
    return names


def written_message_types():
    """The message types lobby/ and server/ write."""
    found = set()
    for path in glob.glob(os.path.join(ROOT, "lobby", "*.c")) + \
            glob.glob(os.path.join(ROOT, "server", "*.c")):
        with open(path) as text:
            code = text.read()
        found |= set(re.findall(r'json_pack\([^;]*?"type",\s*"([a-z_.]+)"', code, re.DOTALL))
        found |= set(re.findall(r'\\"type\\":\\"([a-z_.]+)\\"', code))
        tables = re.findall(r"char\s*\*\s*const\s+TYPES\[\]\s*=\s*\{(.*?)\};", code, re.DOTALL)
        for table in tables:
            found |= set(re.findall(r'"([a-z_.]+)"', table))
    return found


def route_table():
    """{(METHOD, path)} of every http_routes_add in server/, macros and
    path tables resolved; a path ending in '*' is a prefix route."""
    routes = set()
    for path in glob.glob(os.path.join(ROOT, "server", "*.c")):
        with open(path) as text:
            code = text.read()
        defines = dict(re.findall(r'#define\s+([A-Z_]+)\s+"([^"]*)"', code))
        calls = re.findall(r'http_routes_add\(\s*[\w>-]+,\s*"([A-Z]+)",\s*([^,]+),', code)
        assert len(calls) == len(re.findall(r"\bhttp_routes_add\(\s*[\w>-]+,", code)), \
            f"{os.path.basename(path)}: a route registered in a way this test cannot read"
        for method, expression in calls:
            expression = expression.strip()
            table = re.fullmatch(r"([A-Z_]+)\[\w+\]", expression)
            if table:
                paths = re.findall(r'"([^"]*)"', initializer(code, table.group(1)))
            else:
                parts = re.findall(r'"([^"]*)"|([A-Z_]+)', expression)
                assert parts and all(literal or name in defines for literal, name in parts), \
                    f"{os.path.basename(path)}: cannot read the route path {expression!r}"
                paths = ["".join(literal or defines[name] for literal, name in parts)]
            routes |= {(method, route) for route in paths}
    assert len(routes) >= 20, routes
    return routes


def operations():
    return {(method.upper(), path) for path, item in OPENAPI["paths"].items()
            for method in item if method in METHODS}


def serves(route, operation):
    (method, path), (operation_method, template) = route, operation
    if method != operation_method:
        return False
    if path.endswith("*"):
        return template.startswith(path[:-1]) and len(template) > len(path) - 1
    return template == path


async def test_the_documents_are_valid_2020_12_schemas_and_openapi_3_1(binary):
    Draft202012Validator.check_schema(CLIENT)
    Draft202012Validator.check_schema(SERVER)
    assert OPENAPI["openapi"].startswith("3.1"), OPENAPI["openapi"]
    for _, item in sorted(OPENAPI["paths"].items()):
        for method, operation in item.items():
            for response in operation["responses"].values():
                for content in response.get("content", {}).values():
                    if "schema" in content:
                        Draft202012Validator.check_schema(content["schema"])
                        validator(content["schema"], OPENAPI_URI).is_valid(None)  # refs resolve
    for name in ("client", "server"):
        document = CLIENT if name == "client" else SERVER
        for kind in message_types(document):  # oneOf picks each message by its type alone
            assert document["$defs"][kind].get("properties", {}).get("type") == {"const": kind} \
                or all(variant["properties"]["type"] == {"const": kind}
                       for variant in document["$defs"][kind]["oneOf"]), (name, kind)


async def test_every_message_the_decoder_accepts_is_in_the_client_schema(binary):
    decoded = decoder_messages()
    assert sorted(message_types(CLIENT)) == sorted(decoded), \
        set(message_types(CLIENT)) ^ set(decoded)
    for kind, fields in decoded.items():
        assert schema_fields(CLIENT, kind) == fields | {"type", "id"}, \
            (kind, schema_fields(CLIENT, kind) ^ (fields | {"type", "id"}))
    print(f"  client message types: {len(decoded)} in protocol/decode.c, "
          f"{len(message_types(CLIENT))} in the schema")


async def test_every_message_type_the_server_writes_is_in_the_server_schema(binary):
    written = written_message_types()
    assert written == set(message_types(SERVER)), written ^ set(message_types(SERVER))
    names = re.findall(r'"([a-z_]+)"', initializer(source("protocol/message.c"), "ERROR_NAMES"))
    codes = SERVER["$defs"]["error"]["properties"]["code"]["enum"]
    assert sorted(codes) == sorted(name for name in names if name != "ok"), set(codes) ^ set(names)
    print(f"  server message types: {len(written)} written by lobby/ and server/, "
          f"{len(message_types(SERVER))} in the schema; {len(codes)} error codes")


async def test_every_route_is_in_openapi_and_every_operation_has_a_route(binary):
    routes, documented = route_table(), operations()
    unserved = [operation for operation in documented
                if not any(serves(route, operation) for route in routes)]
    undocumented = [route for route in routes
                    if not any(serves(route, operation) for operation in documented)]
    assert not undocumented, f"routes missing from docs/openapi.json: {sorted(undocumented)}"
    assert not unserved, f"operations no route serves: {sorted(unserved)}"
    print(f"  routes: {len(routes)} in the route table, {len(documented)} operations "
          f"on {len(OPENAPI['paths'])} paths in docs/openapi.json")


def documented_examples(relative):
    """Every JSON object of the ```json blocks of a document: a block that is
    one object, or each line of a block that is one; cut examples (with
    `…`) are not JSON and are left out."""
    def parsed(text):
        try:
            return json.loads(text)
        except ValueError:
            return None

    examples = []
    for block in re.findall(r"```json\n(.*?)```", source(relative), re.DOTALL):
        whole = parsed(block)
        examples += [whole] if whole is not None else [parsed(line) for line in block.splitlines()]
    return [example for example in examples if isinstance(example, dict)]


async def test_every_whole_message_example_of_protocol_md_is_valid(binary):
    """The prose's examples (real output of the server, PROTOCOL.md says)
    and the schemas describe the same messages. A type both directions have
    (game.moves) may match either."""
    checked = 0
    for example in documented_examples("docs/PROTOCOL.md"):
        kind = example.get("type")
        uris = [uri for document, uri in ((CLIENT, CLIENT_URI), (SERVER, SERVER_URI))
                if kind in message_types(document)]
        if not uris:
            continue  # a Reef action, an HTTP answer
        assert any(validator({"$ref": f"#/$defs/{kind}"}, uri).is_valid(example)
                   for uri in uris), example
        checked += 1
    assert checked >= 60, checked
    print(f"  {checked} whole examples of docs/PROTOCOL.md are valid messages")


async def test_leaving_the_queue_is_answered_as_the_schema_says(binary):
    """queue.left is the one server message the other suites never receive
    on a checked connection (the SDK's own tests read it in the SDK): here
    it is, and run_tests checks it with the rest when the test ends."""
    async with TesseraServer(binary) as server, server.connect() as connection:
        await ask(connection, {"type": "hello", "name": "queuer"})
        joined = await ask(connection, {"type": "queue.join", "game": "blokus", "mode": "duo"})
        left = await ask(connection, {"type": "queue.leave"})
        assert (joined["type"], left["type"]) == ("queue.joined", "queue.left"), (joined, left)
        assert (left["game"], left["mode"]) == ("blokus", "duo"), left


async def test_the_checks_refuse_what_the_schemas_do_not_describe(binary):
    """The shared hook is not a rubber stamp: a drifted message or answer fails."""
    check_server_message({"type": "pong", "id": 1})
    for drifted in ({"type": "pong", "extra": 1}, {"type": "no.such"},
                    {"type": "error", "code": "no_such_code", "message": "x"}):
        try:
            check_server_message(drifted)
        except SchemaMismatch:
            continue
        raise AssertionError(f"accepted {drifted}")
    json_headers = {"content-type": "application/json"}
    check_http_answer("GET", "/api/games/7", 404, json_headers,
                      b'{"type":"error","code":"not_found","message":"no game 7"}')
    check_http_answer("GET", "/api/games/reef-builder/nothing", 404, json_headers,
                      b'{"error":{"code":"not_found","message":"no such path"}}')
    for method, path, status, body in (
            ("GET", "/api/games/reef-builder/init?seed=1", 400,
             b'{"type":"error","code":"bad_request","message":"x"}'),
            ("GET", "/api/tournaments", 200, b'{"items":[]}'),
            ("GET", "/api/nowhere", 200, b'{}')):
        try:
            check_http_answer(method, path, status, json_headers, body)
        except SchemaMismatch:
            continue
        raise AssertionError(f"accepted {method} {path} {status} {body}")
    record_server_message('{"type": "pong", "extra": 1}')  # what run_tests checks after a test
    try:
        check_received()
    except SchemaMismatch:
        return
    raise AssertionError("a recorded message was not checked")


if __name__ == "__main__":
    run_tests(globals())
