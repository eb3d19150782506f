"""reef.py -- what a Reef Builder placement would do, for bots to compare moves.

The server decides every action; this only lets a bot look one placement
ahead without asking it: which cells the two halves cover, which groups of
four or more would bloom, and the points the rules give for that (50N - 100
per group, +50 per group beyond the first, times the streak multiplier from
before the placement, floored). Boards are the 8 strings of 6 characters of
both the websocket board object and the stateless API's state.
"""

import math

HALF_B_OFFSETS = {0: (0, 1), 90: (1, 0), 180: (0, -1), 270: (-1, 0)}
STREAK_MULTIPLIERS = (1, 1.5, 2, 2.5, 3)
BLOOM_SIZE = 4


def placement_cells(move):
    """((row, col) of half A, (row, col) of half B) of a place action."""
    row_step, col_step = HALF_B_OFFSETS[move["orientation"]]
    return (move["row"], move["col"]), (move["row"] + row_step, move["col"] + col_step)


def _group(grid, start):
    """The cells of the same-color orthogonal group holding `start`."""
    color = grid[start[0]][start[1]]
    seen, frontier = {start}, [start]
    while frontier:
        row, col = frontier.pop()
        for near in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if (0 <= near[0] < len(grid) and 0 <= near[1] < len(grid[0])
                    and near not in seen and grid[near[0]][near[1]] == color):
                seen.add(near)
                frontier.append(near)
    return seen


def place(board, piece, move, streak=0):
    """(points, board after) of a place action for the current `piece`
    ({"a", "b"}) on `board`; the move is assumed to fit."""
    grid = [list(line) for line in board]
    half_a, half_b = placement_cells(move)
    grid[half_a[0]][half_a[1]] = piece["a"]
    grid[half_b[0]][half_b[1]] = piece["b"]
    groups = []
    for cell in (half_a, half_b):
        group = _group(grid, cell)
        if len(group) >= BLOOM_SIZE and group not in groups:
            groups.append(group)
    if not groups:
        return 0, ["".join(line) for line in grid]
    raw = sum(50 * len(group) - 100 for group in groups) + 50 * (len(groups) - 1)
    for group in groups:
        for row, col in group:
            grid[row][col] = "."
    points = math.floor(raw * STREAK_MULTIPLIERS[min(streak, len(STREAK_MULTIPLIERS) - 1)])
    return points, ["".join(line) for line in grid]


def same_color_neighbours(board, piece, move):
    """How many cells already on the board touch a half of its own color:
    a greedy bot's way to build towards the next bloom."""
    cells = placement_cells(move)
    count = 0
    for (row, col), color in zip(cells, (piece["a"], piece["b"])):
        for near in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if (near not in cells and 0 <= near[0] < len(board) and 0 <= near[1] < len(board[0])
                    and board[near[0]][near[1]] == color):
                count += 1
    return count


def greedy_action(board, piece, streak, legal_actions):
    """The legal action with the most points now, then the most same-color
    contact; a skip only when it is the only action."""
    placements = [action for action in legal_actions if action["type"] == "place"]
    if not placements:
        return legal_actions[0]

    def value(action):
        points, _ = place(board, piece, action, streak)
        return points, same_color_neighbours(board, piece, action)
    return max(placements, key=value)
