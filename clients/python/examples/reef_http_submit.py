#!/usr/bin/env python3
"""reef_http_submit.py -- a Reef run on the stateless HTTP API, then submitted.

Plays one run of a seed through `GET /api/games/reef-builder/init` and
`POST /api/games/reef-builder/action` (docs/REEF_API.md) with the greedy
choice of tessera_bot.reef, until no action is left or the run reaches the
leaderboards' standard 1000 turns (or --max-actions), then posts the final
state to `POST /api/games/reef-builder/submit` with the player's session
token or bot key, so the server replays it from the seed and puts it on the
leaderboard. Prints one JSON line: the seed, score, actions played,
and the server's answer to the submission (null without --token).

    python3 reef_http_submit.py --url http://127.0.0.1:8080 --seed 7 --token TOKEN
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import ReefApiError, ReefHttp  # noqa: E402
from tessera_bot.reef import greedy_action  # noqa: E402


STANDARD_TURNS = 1000  # the leaderboards compare runs of at most this many turns


def play(api, seed, max_actions):
    """The final state of a greedy run of `seed`."""
    answer = api.init(seed)
    actions = 0
    limit = STANDARD_TURNS if max_actions is None else max_actions
    while answer["legalActions"] and actions < limit:
        state = answer["state"]
        action = greedy_action(state["board"], state["current"], state["streak"],
                               answer["legalActions"])
        answer = api.action(state, action)
        actions += 1
    return answer["state"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("TESSERA_HTTP", "http://127.0.0.1:8080"),
                        help="the server (http://HOST:PORT)")
    parser.add_argument("--seed", type=int, required=True, help="the run's seed")
    parser.add_argument("--token", default=os.environ.get("TESSERA_TOKEN"),
                        help="session token (or bot key) to submit the run under; or TESSERA_TOKEN")
    parser.add_argument("--max-actions", type=int, help="stop after this many actions")
    arguments = parser.parse_args()
    api = ReefHttp(arguments.url)
    try:
        state = play(api, arguments.seed, arguments.max_actions)
        submitted = api.submit(arguments.token, state) if arguments.token else None
    except ReefApiError as error:
        print(f"reef_http_submit: {error}", file=sys.stderr)
        return 1
    print(json.dumps({"seed": arguments.seed, "score": state["score"], "actions": state["turn"],
                      "phase": state["phase"], "submitted": submitted}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
