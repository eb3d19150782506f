"""schema_check.py -- what the integration tests receive, checked against the published schemas.

Every websocket message a test's connection receives (TesseraServer.connect)
is checked against docs/schema/server-messages.json, and every JSON answer
of an HTTP request (http_request) against the answer docs/openapi.json
documents for its method, path and status. A message or answer that drifts
from the schemas fails the test that received it, whatever that test was
about, so the schemas cannot silently fall behind the server.

The checks run after each test (run_tests calls check_received), not as
the messages arrive: validating a long game.moves list takes milliseconds,
and a test about timing (a commit racing the checkpointer, a clock) must
run at its own pace. Receiving only records the text; a text already
checked in this run is not checked again. A message is checked against the
$defs entry its `type` names (the document's oneOf picks that same entry:
test_schemas.py checks the documents as a whole), which keeps the error
short.
"""

import json
import os
import re

from jsonschema import Draft202012Validator, RefResolver
from jsonschema.exceptions import best_match

DOCS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "docs"))
REEF_API_PREFIX = "/api/games/reef-builder/"


def _load(relative):
    path = os.path.join(DOCS, relative)
    with open(path) as document:
        return "file://" + path, json.load(document)


DOCUMENTS = dict(_load(name) for name in ("openapi.json", "schema/server-messages.json",
                                            "schema/client-messages.json"))
SERVER_URI = "file://" + os.path.join(DOCS, "schema", "server-messages.json")
CLIENT_URI = "file://" + os.path.join(DOCS, "schema", "client-messages.json")
OPENAPI_URI = "file://" + os.path.join(DOCS, "openapi.json")
OPENAPI = DOCUMENTS[OPENAPI_URI]


class SchemaMismatch(AssertionError):
    """A message or answer that its schema does not describe."""


def validator(schema, base_uri):
    """A 2020-12 validator of `schema`, whose references resolve against the
    document at `base_uri` and the other published documents."""
    resolver = RefResolver(base_uri, DOCUMENTS[base_uri], store=DOCUMENTS)
    return Draft202012Validator(schema, resolver=resolver)


def _fail(what, instance, errors):
    error = best_match(errors)
    where = "/".join(str(part) for part in error.absolute_path)
    text = json.dumps(instance)
    raise SchemaMismatch(f"{what} at '{where}': {error.message}\n  in {text[:600]}")


_MESSAGE_VALIDATORS = {}


def message_types(document):
    """The message types a schema document's oneOf lists, by $defs name."""
    return [entry["$ref"].rsplit("/", 1)[1] for entry in document["oneOf"]]


def check_server_message(message):
    """Raises SchemaMismatch unless `message` is a server message the schema describes."""
    kind = message.get("type") if isinstance(message, dict) else None
    if kind not in _MESSAGE_VALIDATORS:
        if kind not in message_types(DOCUMENTS[SERVER_URI]):
            raise SchemaMismatch(f"server message of a type the schema lacks: {message!r:.300}")
        _MESSAGE_VALIDATORS[kind] = validator({"$ref": f"#/$defs/{kind}"}, SERVER_URI)
    errors = list(_MESSAGE_VALIDATORS[kind].iter_errors(message))
    if errors:
        _fail(f"server message {kind!r} differs from docs/schema/server-messages.json", message,
              errors)


_received = []  # what arrived since the last check_received(), unchecked
_checked = set()  # what this run has checked already


def record_server_message(text):
    """Keeps a received websocket text for check_received()."""
    _received.append(("message", text))


def record_http_answer(method, target, status, headers, body):
    """Keeps a received HTTP answer for check_received()."""
    _received.append(("http", (method, target, status, headers.get("content-type", ""), body)))


def discard_received():
    _received.clear()


def check_received():
    """Checks everything received since the last call; raises SchemaMismatch
    for the first message or answer the schemas do not describe."""
    received = list(_received)
    _received.clear()
    for item in received:
        if item in _checked:
            continue
        kind, payload = item
        if kind == "message":
            check_server_message(json.loads(payload))
        else:
            method, target, status, content_type, body = payload
            check_http_answer(method, target, status, {"content-type": content_type}, body)
        _checked.add(item)


def _template_regex(template):
    parts = re.split(r"\{[^}]+\}", template)
    return re.compile("^" + "[^/]+".join(re.escape(part) for part in parts) + "$")


# Literal paths first, then the templates with the most literal text, so
# /api/games/blokus/pieces is not read as /api/games/{id}.
_ROUTES = sorted(((_template_regex(path), path) for path in OPENAPI["paths"]),
                 key=lambda route: ("{" in route[1], -len(re.sub(r"\{[^}]+\}", "", route[1]))))


def find_path(path):
    """The openapi.json path template a request path falls under, or None."""
    return next((template for regex, template in _ROUTES if regex.match(path)), None)


def error_schema_for(path):
    """The error shape of a path (docs/openapi.json's description)."""
    name = "ReefError" if path.startswith(REEF_API_PREFIX) else "Error"
    return {"$ref": f"#/components/schemas/{name}"}


def _answer_schema(method, path, status):
    template = find_path(path)
    operation = OPENAPI["paths"].get(template, {}).get(method.lower()) if template else None
    if operation is None:
        # No route has this method and path: the route table answers 404 or
        # 405, and the HTTP layer may refuse the request before that.
        if status < 400:
            raise SchemaMismatch(f"{method} {path} answered {status} but docs/openapi.json "
                                 "has no such operation")
        return error_schema_for(path)
    response = operation["responses"].get(str(status)) or operation["responses"].get("default")
    if response is None:
        raise SchemaMismatch(f"{method} {template} answered {status}, which docs/openapi.json "
                             "does not document")
    content = response.get("content", {}).get("application/json")
    if content is None:
        raise SchemaMismatch(f"{method} {template} answered {status} with JSON, which "
                             "docs/openapi.json does not document")
    return content["schema"]


def check_http_answer(method, target, status, headers, body):
    """Raises SchemaMismatch unless a JSON answer is the one docs/openapi.json
    documents; answers of other types (and HEAD's, without a body) pass."""
    if not body or not headers.get("content-type", "").startswith("application/json"):
        return
    path = target.split("?", 1)[0]
    answer = json.loads(body)
    errors = list(validator(_answer_schema(method, path, status), OPENAPI_URI).iter_errors(answer))
    if errors:
        _fail(f"{method} {path} {status} differs from docs/openapi.json", answer, errors)
