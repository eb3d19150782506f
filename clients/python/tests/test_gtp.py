"""test_gtp.py -- the GTP bridge's notation (tessera_bot.gtp), without an engine.

Moves are written as in the server's SGF export and Pentobi's GTP: column
letters from the left, rows numbered from 1 at the bottom, bottom row
first. The integration suite (tests/integration/test_gtp_bridge.py) plays
whole games through the bridge against a real server.

    /usr/bin/python3 test_gtp.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from tessera_bot.gtp import color_name, move_text, parse_move  # noqa: E402


class GtpNotationTest(unittest.TestCase):
    def test_duo_start_points_are_e10_and_j5(self):
        self.assertEqual(move_text([(4, 4)], 14), "e10")
        self.assertEqual(move_text([(9, 9)], 14), "j5")

    def test_a_move_lists_the_bottom_row_first_then_left_to_right(self):
        cells = [(5, 4), (6, 3), (6, 4), (6, 5), (7, 4)]  # an X around (6, 4) on a 14x14 board
        self.assertEqual(move_text(cells, 14), "e7,d8,e8,f8,e9")

    def test_parsing_gives_back_the_cells_in_any_order_and_case(self):
        self.assertEqual(parse_move(" E9,e7 , d8,f8,e8 ", 14),
                         frozenset([(5, 4), (6, 3), (6, 4), (6, 5), (7, 4)]))
        self.assertEqual(parse_move("t20", 20), frozenset([(0, 19)]))

    def test_what_is_not_a_move_on_this_board_is_refused(self):
        for text in ("pass", "", "e", "e0", "o1", "a15", "e8;e9", "ee8"):
            with self.assertRaises(ValueError, msg=text):
                parse_move(text, 14)

    def test_colours_are_b_and_w_in_duo_and_numbered_otherwise(self):
        self.assertEqual([color_name(color, "duo") for color in (0, 1)], ["b", "w"])
        self.assertEqual([color_name(color, "3p") for color in range(4)], ["1", "2", "3", "4"])


if __name__ == "__main__":
    unittest.main()
