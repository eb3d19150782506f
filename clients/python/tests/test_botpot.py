"""test_botpot.py -- the Botpot view and the place_piece mapping, without a server.

The orientation table comes from `tessera pieces` (the binary under test),
the same table the server serves, so these tests check the mapping against
the engine's own numbering: every piece and orientation goes to a tessera
action and back unchanged, covering the cells its Botpot template says, and
the view of known positions has the attach and unavailable cells the
protocol document shows.

    /usr/bin/python3 test_botpot.py --tessera build/tessera [unittest options]
"""

import argparse
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot import (GameState, InvalidActionError, PieceTable,  # noqa: E402
                         action_to_botpot, botpot_to_action)

PIECES = None  # the PieceTable, loaded once from `tessera pieces`

# The piece order and orientation counts docs/PROTOCOL.md and docs/BOTS.md show.
DOCUMENTED_PIECES = [
    ("I1", 1), ("I2", 2), ("I3", 2), ("V3", 4), ("I4", 2), ("L4", 8), ("T4", 4), ("O4", 1),
    ("Z4", 4), ("F", 8), ("I5", 2), ("L5", 8), ("N", 8), ("P", 8), ("T5", 4), ("U", 4),
    ("V5", 4), ("W", 4), ("X", 1), ("Y", 8), ("Z5", 4),
]

# After four moves in 4p (docs/PROTOCOL.md, "The board"); color 0 is to move.
FOUR_MOVES_BOARD = (
    ["0.................11", ".................11.", ".................1.."]
    + ["." * 20] * 14
    + ["..3..............22.", ".33...............22", "33.................2"])
FOUR_MOVES_COLOR0_UNAVAILABLE = [
    [0, 0], [0, 1], [0, 18], [0, 19], [1, 0], [1, 17], [1, 18], [2, 17], [17, 2], [17, 17],
    [17, 18], [18, 1], [18, 2], [18, 18], [18, 19], [19, 0], [19, 1], [19, 19]]


def blokus_state(board, mode="4p", to_move=(0, 0), pieces_left=None):
    """A Blokus game.state with this board; `to_move` is (seat, color) or None."""
    colors = 2 if mode == "duo" else 4
    all_names = [name for name, _ in DOCUMENTED_PIECES]
    return GameState({
        "type": "game.state", "room": "test", "game": "blokus", "mode": mode,
        "status": "playing" if to_move else "finished", "seat": 0, "clocks": [], "ply": 0, "size": len(board),
        "board": board, "pieces_left": pieces_left or [all_names] * colors,
        "scores": [0] * (2 if mode in ("duo", "2p") else colors),
        "to_move": {"seat": to_move[0], "color": to_move[1]} if to_move else None,
    }, PIECES)


def points(cells):
    """Botpot's {x, y} points of (row, col) cells, in Botpot's order."""
    return [{"x": col, "y": row} for row, col in sorted(cells)]


def unavailable_cells(view, color):
    spots = view.players_unavailable_spots[color]["unavailable_spots"]
    return [[index // view.size, index % view.size] for index, spot in enumerate(spots) if spot]


class NumberingTest(unittest.TestCase):
    def test_pieces_are_in_the_documented_order_with_their_orientation_counts(self):
        self.assertEqual([(name, len(variants)) for name, variants
                          in zip(PIECES.names, PIECES.orientations)], DOCUMENTED_PIECES)

    def test_every_piece_and_orientation_round_trips_through_the_action(self):
        ref_data = blokus_state(["." * 20] * 20).botpot().ref_data
        checked = 0
        for piece_idx, variants in enumerate(PIECES.orientations):
            for orientation_idx, entry in enumerate(variants):
                template = ref_data["piece_templates"][piece_idx]["all_orientations"][orientation_idx]
                for offset_x, offset_y in ((0, 0), (7, 3), (15, 16)):
                    action = botpot_to_action(PIECES, piece_idx, orientation_idx,
                                              offset_x, offset_y)
                    self.assertEqual(action, {"piece": entry["piece"],
                                              "orientation": orientation_idx,
                                              "row": offset_y, "col": offset_x})
                    self.assertEqual(action_to_botpot(PIECES, action),
                                     (piece_idx, orientation_idx, offset_x, offset_y))
                    covered = sorted(PIECES.cells(action))
                    by_template = sorted((offset_y + pos["y"], offset_x + pos["x"])
                                         for pos in template["pos"])
                    self.assertEqual(covered, by_template)
                checked += 1
        self.assertEqual(checked, 91)

    def test_templates_carry_sides_and_corners_as_x_y(self):
        ref_data = blokus_state(["." * 20] * 20).botpot().ref_data
        i2 = ref_data["piece_templates"][1]["all_orientations"][0]
        self.assertEqual(ref_data["piece_templates"][1]["name"], "I2")
        self.assertEqual(i2["pos"], [{"x": 0, "y": 0}, {"x": 1, "y": 0}])
        self.assertIn({"x": 2, "y": 0}, i2["side"])
        self.assertIn({"x": 2, "y": -1}, i2["corner"])

    def test_out_of_range_numbers_are_refused(self):
        with self.assertRaises(ValueError):
            botpot_to_action(PIECES, 21, 0, 0, 0)
        with self.assertRaises(ValueError):
            botpot_to_action(PIECES, 7, 1, 0, 0)  # O4 has one orientation
        with self.assertRaises(ValueError):
            action_to_botpot(PIECES, {"piece": "Q", "orientation": 0, "row": 0, "col": 0})


class ViewTest(unittest.TestCase):
    def test_empty_classic_board_requires_each_start_corner(self):
        view = blokus_state(["." * 20] * 20).botpot()
        self.assertEqual(view.game_board, [-1] * 400)
        self.assertEqual(view.player_hands, [list(range(21))] * 4)
        self.assertEqual([entry["positions"] for entry in view.required_positions],
                         [[{"x": 0, "y": 0}], [{"x": 19, "y": 0}], [{"x": 19, "y": 19}],
                          [{"x": 0, "y": 19}]])
        self.assertEqual(view.players_unavailable_spots,
                         [{"unavailable_spots": [0] * 400}] * 4)
        self.assertEqual(view.player_idx_to_play, 0)
        self.assertIsNone(view.user_idx_to_play_fourth_color)

    def test_known_position_matches_the_documented_hints(self):
        view = blokus_state(FOUR_MOVES_BOARD).botpot()
        self.assertEqual(view.required_positions[0]["positions"], [{"x": 1, "y": 1}])
        self.assertEqual(unavailable_cells(view, 0), FOUR_MOVES_COLOR0_UNAVAILABLE)
        self.assertEqual(view.game_board[0], 0)
        self.assertEqual(view.game_board[0 * 20 + 19], 1)  # x=19, y=0
        self.assertEqual(view.game_board[19 * 20 + 0], 3)  # x=0, y=19

    def test_other_colors_get_their_own_attach_cells(self):
        view = blokus_state(FOUR_MOVES_BOARD).botpot()
        # Color 1 covers (0,18) (0,19) (1,17) (1,18) (2,17). Of the cells diagonal
        # to them, (0,16), (2,19), (3,16) and (3,18) are free and touch none of its
        # squares along an edge; (2,16) and (2,18) do.
        self.assertEqual(view.required_positions[1]["positions"],
                         points([(0, 16), (2, 19), (3, 16), (3, 18)]))

    def test_a_covered_start_cell_leaves_nothing_to_attach(self):
        board = ["1" + "." * 19] + ["." * 20] * 19
        view = blokus_state(board, to_move=(1, 1)).botpot()
        self.assertEqual(view.required_positions[0]["positions"], [])

    def test_duo_starts_on_its_start_points(self):
        view = blokus_state(["." * 14] * 14, mode="duo").botpot()
        self.assertEqual(view.size, 14)
        self.assertEqual([entry["positions"] for entry in view.required_positions],
                         [[{"x": 4, "y": 4}], [{"x": 9, "y": 9}]])

    def test_three_player_shared_color_names_the_player_that_plays_it_from_1(self):
        # The Botpot page: "whether it is player 1, 2, or 3 who should play
        # the fourth set"; tessera's seats count from 0.
        for seat in range(3):
            view = blokus_state(["." * 20] * 20, mode="3p", to_move=(seat, 3)).botpot()
            self.assertEqual(view.player_idx_to_play, 3)
            self.assertEqual(view.user_idx_to_play_fourth_color, seat + 1)
            self.assertEqual(view.state["user_idx_to_play_fourth_color"], seat + 1)
        view = blokus_state(["." * 20] * 20, mode="3p", to_move=(2, 2)).botpot()
        self.assertIsNone(view.user_idx_to_play_fourth_color)

    def test_hands_hold_the_piece_indices_left(self):
        left = [["I1", "Z5"], ["X"], [], ["I2", "I1"]]
        view = blokus_state(["." * 20] * 20, pieces_left=left).botpot()
        self.assertEqual(view.player_hands, [[0, 20], [18], [], [0, 1]])

    def test_state_dict_has_the_botpot_keys(self):
        state = blokus_state(["." * 20] * 20).botpot().state
        self.assertEqual(set(state), {"player_hands", "game_board", "players_unavailable_spots",
                                      "required_positions", "player_idx_to_play",
                                      "user_idx_to_play_fourth_color", "scores"})


class PlacePieceTest(unittest.TestCase):
    def setUp(self):
        self.view = blokus_state(FOUR_MOVES_BOARD).botpot()

    def test_a_legal_placement_becomes_the_tessera_action(self):
        # I2 across (1,1) (1,2): covers the attach cell, touches 0 only at a corner.
        self.assertEqual(self.view.place_piece(1, 0, 1, 1),
                         {"piece": "I2", "orientation": 0, "row": 1, "col": 1})

    def test_refusals_name_botpot_rules(self):
        cases = {
            (21, 0, 1, 1): "not in the player's hand",
            (1, 2, 1, 1): "orientation_idx out of bound",
            (1, 0, 19, 1): "out of the board",
            (1, 0, 0, 1): "unavailable",
            (1, 0, 5, 5): "no required position",
        }
        for arguments, words in cases.items():
            with self.assertRaises(InvalidActionError) as raised:
                self.view.place_piece(*arguments)
            self.assertIn(words, str(raised.exception), arguments)

    def test_a_placed_piece_is_no_longer_in_hand(self):
        left = [[name for name, _ in DOCUMENTED_PIECES if name != "I1"]] * 4
        view = blokus_state(FOUR_MOVES_BOARD, pieces_left=left).botpot()
        with self.assertRaises(InvalidActionError):
            view.place_piece(0, 0, 1, 1)

    def test_nothing_to_place_once_the_game_is_over(self):
        view = blokus_state(FOUR_MOVES_BOARD, to_move=None).botpot()
        with self.assertRaises(InvalidActionError):
            view.place_piece(1, 0, 1, 1)


def main():
    global PIECES
    parser = argparse.ArgumentParser()
    parser.add_argument("--tessera", required=True, help="path to the tessera binary")
    arguments, rest = parser.parse_known_args()
    PIECES = PieceTable(json.loads(subprocess.run([arguments.tessera, "pieces"], check=True,
                                                  capture_output=True, text=True).stdout))
    unittest.main(argv=[sys.argv[0]] + rest)


if __name__ == "__main__":
    main()
