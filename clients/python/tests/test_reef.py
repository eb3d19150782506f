"""test_reef.py -- the Reef look-ahead helpers (tessera_bot.reef), without a server.

The cases are the rules' own examples (docs/REEF_API.md): the integration
suite also checks the helper's points against the server's `result.points`
over a whole run.

    /usr/bin/python3 test_reef.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot.reef import greedy_action, place, placement_cells  # noqa: E402

EMPTY = ["......"] * 8
BLUE = {"a": "B", "b": "B"}


def board_with(first_row, *more_rows):
    rows = [first_row, *more_rows]
    return rows + EMPTY[len(rows):]


def place_action(row, col, orientation):
    return {"type": "place", "row": row, "col": col, "orientation": orientation}


class ReefTest(unittest.TestCase):
    def test_half_b_goes_right_below_left_above(self):
        self.assertEqual([placement_cells(place_action(3, 3, angle)) for angle in (0, 90, 180, 270)],
                         [((3, 3), (3, 4)), ((3, 3), (4, 3)), ((3, 3), (3, 2)), ((3, 3), (2, 3))])

    def test_documented_bloom_scores_100_and_clears_the_group(self):
        points, after = place(board_with("RRBB.."), BLUE, place_action(0, 4, 0))
        self.assertEqual(points, 100)
        self.assertEqual(after, board_with("RR...."))

    def test_streak_multiplies_before_flooring(self):
        self.assertEqual(place(board_with("RRBB.."), BLUE, place_action(0, 4, 0), streak=1)[0], 150)
        self.assertEqual(place(board_with("RRBB.."), BLUE, place_action(0, 4, 0), streak=9)[0], 300)

    def test_two_groups_score_each_plus_50(self):
        # Half A completes 4 reds on row 0, half B 4 greens on row 1.
        board = board_with("RRR...", "GGG...")
        points, after = place(board, {"a": "R", "b": "G"}, place_action(0, 3, 90))
        self.assertEqual(points, 100 + 100 + 50)
        self.assertEqual(after, EMPTY)

    def test_no_bloom_scores_nothing_and_keeps_the_cells(self):
        points, after = place(EMPTY, BLUE, place_action(7, 4, 0))
        self.assertEqual(points, 0)
        self.assertEqual(after[7], "....BB")

    def test_greedy_takes_the_bloom_and_never_skips_while_a_placement_fits(self):
        legal = [place_action(5, 0, 0), place_action(0, 4, 0), {"type": "skip"}]
        self.assertEqual(greedy_action(board_with("RRBB.."), BLUE, 0, legal), legal[1])
        self.assertEqual(greedy_action(EMPTY, BLUE, 0, [{"type": "skip"}]), {"type": "skip"})


if __name__ == "__main__":
    unittest.main()
