"""tessera_bot -- write a bot for a tessera server in one function.

    from tessera_bot import run

    def choose(state, legal_moves):
        return legal_moves[0]

    sys.exit(run(choose))

`choose(state, legal_moves)` receives the game.state message (a GameState:
the dict docs/PROTOCOL.md describes, with helpers) and the server's legal
actions, and returns the action to play. Everything else (signing in,
rooms, plies, reconnecting) is the SDK's. See docs/BOTS.md.

Needs only the standard library and `websockets` (Debian: python3-websockets).
`pip install ./clients/python` installs the package and the `tessera-bot`
command (a random legal player, or a GTP engine with --gtp).
"""

# The server release this SDK comes with (`tessera --version`), and the
# version of the websocket protocol it speaks (docs/PROTOCOL.md).
__version__ = "0.1.0"
PROTOCOL_VERSION = 1

from .bot import Bot
from .botpot import BotpotView, InvalidActionError, action_to_botpot, botpot_to_action
from .cli import run
from .pieces import PieceTable
from .reef_http import ReefApiError, ReefHttp
from .session import ConnectionLost, RequestError, SessionEnded
from .state import GameState

__all__ = [
    "PROTOCOL_VERSION", "Bot", "BotpotView", "ConnectionLost", "GameState", "InvalidActionError",
    "PieceTable", "ReefApiError", "ReefHttp", "RequestError", "SessionEnded", "action_to_botpot",
    "botpot_to_action", "run",
]
