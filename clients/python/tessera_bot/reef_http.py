"""reef_http.py -- the stateless Reef Builder HTTP API (docs/REEF_API.md).

No websocket, no room: `init(seed)` gives a state and its legal actions,
`action(state, action)` the next ones; the server replays the state's
history from its seed on every request, so the client keeps nothing but the
last answer. `submit(token, state)` hands a finished run to the server for
the leaderboard. Errors come back as ReefApiError with the API's code; a 429
is waited out (its Retry-After) and retried, as the API asks.
"""

import json
import time
import urllib.error
import urllib.parse
import urllib.request

BASE_PATH = "/api/games/reef-builder"
RATE_LIMIT_RETRIES = 5


class ReefApiError(Exception):
    """An error answer: `status` (HTTP), `code` and `message` from its body."""

    def __init__(self, status, code, message):
        super().__init__(f"HTTP {status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message


class ReefHttp:
    """A client of one server's stateless Reef API."""

    def __init__(self, server_url, timeout=30):
        parts = urllib.parse.urlsplit(server_url)
        scheme = {"ws": "http", "wss": "https"}.get(parts.scheme, parts.scheme)
        self.base = urllib.parse.urlunsplit((scheme, parts.netloc, BASE_PATH, "", ""))
        self.timeout = timeout

    def init(self, seed):
        """{state, legalActions} of a new run of `seed`."""
        return self._call("GET", f"/init?seed={int(seed)}")

    def action(self, state, action):
        """{state, legalActions, result} after `action`."""
        return self._call("POST", "/action", {"state": state, "action": action})

    def submit(self, token, state):
        """Submits a finished run for the leaderboard; the server's answer."""
        return self._call("POST", "/submit", {"token": token, "state": state})

    def _call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        retries = 0
        while True:
            request = urllib.request.Request(self.base + path, data=data, method=method,
                                             headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                    return json.load(answer)
            except urllib.error.HTTPError as failure:
                retry_after = failure.headers.get("Retry-After")
                if failure.code != 429 or not retry_after or retries == RATE_LIMIT_RETRIES:
                    raise _api_error(failure) from None
                retries += 1
                time.sleep(float(retry_after))


def _api_error(failure):
    """The ReefApiError of an HTTP error answer (body {"error": {code, message}})."""
    text = failure.read().decode(errors="replace")
    try:
        error = json.loads(text)["error"]
        return ReefApiError(failure.code, error["code"], error["message"])
    except (ValueError, KeyError, TypeError):
        return ReefApiError(failure.code, "http_error", text[:200] or failure.reason)
