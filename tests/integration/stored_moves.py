"""stored_moves.py -- a stored move log entry read back as game.moved shows it.

The server keeps each action of a game's log (moves.action) as a short text
of its own, defined in lobby/action_record.h: "F 3 4 5" and "pass" in
Blokus, "4 3 90" and "skip" in Reef, "resign" and "leave" in both. Tests
that look into the database compare what clients were shown with what was
stored; this turns a stored text into the JSON form game.moved uses, and
refuses (ValueError) anything that is not the documented format.
"""


def wire_action(game, text):
    """The game.moved form of stored `text` in a game of kind `game`."""
    words = text.split(" ")
    if text in ("resign", "leave"):
        return {text: True}
    if game == "blokus":
        if text == "pass":
            return {"pass": True}
        piece, orientation, row, col = words
        return {"piece": piece, "orientation": int(orientation), "row": int(row), "col": int(col)}
    if game != "reef-builder":
        raise ValueError(f"no game {game!r}")
    if text == "skip":
        return {"type": "skip"}
    row, col, orientation = words
    return {"type": "place", "row": int(row), "col": int(col), "orientation": int(orientation)}
